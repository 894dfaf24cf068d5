//! Reading a history with the `git` program: HEAD, the log of its ancestors within
//! the bounds of [`HistoryOptions`], and the commits added on top of a history read
//! before.

use std::hash::{BuildHasher, Hasher};
use std::io::Read;
use std::path::Path;
use std::process::{Command, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};

use super::log::{Log, assemble, extend, split_log};
use super::{History, HistoryCut, HistoryOptions, is_object_id};

/// Variables that would point git at another repository, index or HEAD than the
/// one the root is in.
const REDIRECTING_ENV: &[&str] = &[
    "GIT_DIR",
    "GIT_WORK_TREE",
    "GIT_INDEX_FILE",
    "GIT_COMMON_DIR",
    "GIT_NAMESPACE",
    "GIT_OBJECT_DIRECTORY",
];

/// HEAD as git sees it from a directory.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Head {
    id: String,
    /// The directory's path inside the work tree (`sub/dir/`, empty at the top).
    prefix: String,
}

/// A `git` command run in `root`, isolated from settings that change its output.
fn git(root: &Path) -> Command {
    let mut cmd = Command::new("git");
    cmd.current_dir(root);
    for var in REDIRECTING_ENV {
        cmd.env_remove(var);
    }
    cmd.env("GIT_OPTIONAL_LOCKS", "0")
        .env("GIT_TERMINAL_PROMPT", "0")
        // A partial clone would otherwise fetch missing trees from its remote.
        .env("GIT_NO_LAZY_FETCH", "1")
        .args([
            "-c",
            "core.fsmonitor=false",
            "-c",
            "log.showSignature=false",
            "-c",
            "log.follow=false",
            "-c",
            "core.quotePath=false",
        ])
        .stdin(Stdio::null())
        .stderr(Stdio::null());
    cmd
}

/// The id of HEAD when `root` is inside a git work tree with at least one commit.
pub(crate) fn git_head(root: &Path) -> Option<String> {
    head(root).map(|h| h.id)
}

fn head(root: &Path) -> Option<Head> {
    let out = git(root)
        .args([
            "rev-parse",
            "--is-inside-work-tree",
            "--show-prefix",
            "HEAD",
        ])
        .output()
        .ok()?;
    if !out.status.success() {
        return None;
    }
    let text = String::from_utf8(out.stdout).ok()?;
    let mut lines = text.split('\n');
    if lines.next()? != "true" {
        return None;
    }
    let prefix = lines.next()?.to_string();
    let id = lines.next()?.trim().to_string();
    is_object_id(&id).then_some(Head { id, prefix })
}

/// Committer time of a commit.
fn commit_time(root: &Path, id: &str) -> Option<i64> {
    let out = git(root)
        .args(["log", "-1", "--no-color", "--format=%ct", id, "--"])
        .output()
        .ok()?;
    if !out.status.success() {
        return None;
    }
    String::from_utf8(out.stdout).ok()?.trim().parse().ok()
}

/// Why a log could not be read.
enum Failure {
    /// git failed or is missing: no history.
    Git,
    /// git did not finish within [`HistoryOptions::max_seconds`].
    Time,
}

/// A history that says git ran out of time, with no commit in it.
fn timed_out(head: Head, head_time: i64) -> History {
    let mut history = History::new(head.id, head_time, Vec::new());
    history.cut = Some(HistoryCut::Time);
    history
}

/// Reads the history of the work tree `root` is in, restricted to paths under `root`.
/// `None` without git, outside a work tree, on an unborn HEAD or on any git error.
pub(crate) fn read_git_history(root: &Path, options: &HistoryOptions) -> Option<History> {
    let started = Instant::now();
    let head = head(root)?;
    let head_time = commit_time(root, &head.id)?;
    if options.max_commits == 0 || options.max_bytes == 0 {
        let mut history = History::new(head.id, head_time, Vec::new());
        history.cut = Some(HistoryCut::Commits);
        return Some(history);
    }
    match run_log(root, &head, None, options, started) {
        Ok(log) => Some(assemble(head.id, head_time, log, options)),
        Err(Failure::Time) => Some(timed_out(head, head_time)),
        Err(Failure::Git) => None,
    }
}

/// The history of HEAD given `known`, a history read before on an older commit:
/// when HEAD is `known`'s head plus a chain of single-parent commits, only those are
/// read, and the result is exactly what [`read_git_history`] would give; otherwise
/// (another branch, a merge, a rewritten history) it reads afresh.
pub(crate) fn extend_git_history(
    root: &Path,
    options: &HistoryOptions,
    known: &History,
) -> Option<History> {
    extend_only(root, options, known).or_else(|| read_git_history(root, options))
}

/// [`extend_git_history`] without its fallback: `None` when the commits on top of
/// `known` cannot be read alone.
fn extend_only(root: &Path, options: &HistoryOptions, known: &History) -> Option<History> {
    let started = Instant::now();
    if known.cut == Some(HistoryCut::Time) || !is_object_id(&known.head) {
        return None;
    }
    let head = head(root)?;
    if head.id == known.head {
        return Some(known.clone());
    }
    if !is_chain_onto(root, &known.head, &head.id, options.max_commits + 1) {
        return None;
    }
    let head_time = commit_time(root, &head.id)?;
    let log = run_log(root, &head, Some(&known.head), options, started).ok()?;
    extend(head.id, head_time, log, known, options)
}

/// Whether `head` is `base` plus at most `max` commits, each with one parent: then
/// the log of `head` is the log of those commits followed by the log of `base`.
fn is_chain_onto(root: &Path, base: &str, head: &str, max: usize) -> bool {
    let Ok(out) = git(root)
        .args(["rev-list", "--parents"])
        .arg(format!("--max-count={}", max.saturating_add(1)))
        .arg(format!("{base}..{head}"))
        .arg("--")
        .output()
    else {
        return false;
    };
    if !out.status.success() {
        return false;
    }
    let Ok(text) = String::from_utf8(out.stdout) else {
        return false;
    };
    let lines: Vec<&str> = text.lines().collect();
    if lines.is_empty() || lines.len() > max {
        return false;
    }
    let mut expected = head;
    for line in &lines {
        let mut ids = line.split(' ');
        let (Some(id), Some(parent), None) = (ids.next(), ids.next(), ids.next()) else {
            return false;
        };
        if id != expected {
            return false;
        }
        expected = parent;
    }
    expected == base
}

/// A record marker no commit message can forge: a separator and 16 hexadecimal
/// digits drawn anew for each run. Its length is fixed, so the size of a record
/// (see [`split_log`]) is the same in every run.
fn marker() -> String {
    let nonce = std::collections::hash_map::RandomState::new()
        .build_hasher()
        .finish();
    format!("\x1e{nonce:016x}")
}

/// Runs `git log` on the ancestors of `head` (not those of `since`, if given),
/// at most `max_commits + 1` of them, reading its output until it ends or holds
/// every record that could fit in `max_bytes` (then the process is stopped).
fn run_log(
    root: &Path,
    head: &Head,
    since: Option<&str>,
    options: &HistoryOptions,
    started: Instant,
) -> Result<Log, Failure> {
    let deadline = started + Duration::from_secs(options.max_seconds);
    let marker = marker();
    let mut cmd = git(root);
    cmd.args([
        "log",
        "-z",
        "--name-status",
        "-M",
        "--no-merges",
        "--no-color",
        "--no-ext-diff",
        "--no-textconv",
    ]);
    // The marker is hexadecimal after its separator: nothing in it is a `%` escape.
    cmd.arg(format!(
        "--format={}%H%x1f%ct%x1f%aN%x1f%s%x1f%b",
        marker.replace('\x1e', "%x1e")
    ));
    cmd.arg(format!(
        "--max-count={}",
        options.max_commits.saturating_add(1)
    ));
    let sub = !head.prefix.is_empty();
    if sub {
        // Paths relative to the root, commits that touch something under it.
        cmd.arg("--relative");
    }
    // Ids come from git itself and are checked to be hexadecimal; paths go after
    // `--`, so nothing is ever read as an option.
    match since {
        Some(base) => cmd.arg(format!("{base}..{}", head.id)),
        None => cmd.arg(&head.id),
    };
    cmd.arg("--");
    if sub {
        cmd.arg(".");
    }
    // Every record that could fit is whole once the next marker has arrived.
    let enough = usize::try_from(options.max_bytes)
        .unwrap_or(usize::MAX)
        .saturating_add(marker.len());
    let (bytes, ended) = read_output(cmd, enough, deadline)?;
    Ok(split_log(&bytes, marker.as_bytes(), ended))
}

/// Runs `cmd` and reads its standard output until it ends (`true`) or `enough`
/// bytes were read (`false`; the process is stopped). `Failure::Git` when it
/// cannot start or fails, `Failure::Time` past `deadline`.
fn read_output(
    mut cmd: Command,
    enough: usize,
    deadline: Instant,
) -> Result<(Vec<u8>, bool), Failure> {
    let mut child = cmd
        .stdout(Stdio::piped())
        .spawn()
        .map_err(|_| Failure::Git)?;
    let Some(mut stdout) = child.stdout.take() else {
        stop(&mut child);
        return Err(Failure::Git);
    };
    let (send, receive) = mpsc::channel::<Vec<u8>>();
    // A reader thread, so that a git that never answers cannot hold the query past
    // the guard: the main thread waits on the channel with a timeout.
    let reader = std::thread::Builder::new().spawn(move || {
        let mut buf = vec![0u8; 64 * 1024];
        loop {
            match stdout.read(&mut buf) {
                Ok(0) | Err(_) => break,
                Ok(n) => {
                    if send.send(buf[..n].to_vec()).is_err() {
                        break;
                    }
                }
            }
        }
    });
    let Ok(reader) = reader else {
        stop(&mut child);
        return Err(Failure::Git);
    };
    let mut bytes = Vec::new();
    let mut outcome = Ok(true);
    loop {
        let left = deadline.saturating_duration_since(Instant::now());
        match receive.recv_timeout(left) {
            Ok(chunk) => {
                bytes.extend_from_slice(&chunk);
                if bytes.len() >= enough {
                    outcome = Ok(false);
                    let _ = child.kill();
                    break;
                }
            }
            Err(mpsc::RecvTimeoutError::Disconnected) => break,
            Err(mpsc::RecvTimeoutError::Timeout) => {
                outcome = Err(Failure::Time);
                let _ = child.kill();
                break;
            }
        }
    }
    drop(receive);
    let status = child.wait().ok();
    let _ = reader.join();
    match outcome {
        Ok(true) if !status.is_some_and(|s| s.success()) => Err(Failure::Git),
        Ok(ended) => Ok((bytes, ended)),
        Err(failure) => Err(failure),
    }
}

/// Kills a child and reaps it.
fn stop(child: &mut std::process::Child) {
    let _ = child.kill();
    let _ = child.wait();
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Runs git in `root` with a fixed date and no user configuration.
    fn run(root: &Path, args: &[&str]) -> String {
        let out = Command::new("git")
            .current_dir(root)
            .env("GIT_CONFIG_NOSYSTEM", "1")
            .env("GIT_CONFIG_GLOBAL", "/dev/null")
            .env("GIT_AUTHOR_DATE", "@1700000000 +0000")
            .env("GIT_COMMITTER_DATE", "@1700000000 +0000")
            .args(["-c", "user.name=T", "-c", "user.email=t@example.com"])
            .args(args)
            .output()
            .unwrap();
        assert!(out.status.success(), "git {args:?}");
        String::from_utf8_lossy(&out.stdout).trim().to_string()
    }

    fn commit(root: &Path, file: &str, message: &str) -> String {
        std::fs::write(root.join(file), message).unwrap();
        run(root, &["add", "-A"]);
        run(root, &["commit", "-q", "-m", message]);
        run(root, &["rev-parse", "HEAD"])
    }

    #[test]
    fn new_commits_on_top_are_read_alone_and_a_merge_is_read_afresh() {
        if Command::new("git").arg("--version").output().is_err() {
            return;
        }
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        run(root, &["init", "-q", "-b", "main"]);
        commit(root, "a.py", "one");
        commit(root, "b.py", "two");
        let options = HistoryOptions::default();
        let known = read_git_history(root, &options).unwrap();
        commit(root, "a.py", "three");
        commit(root, "c.py", "four");
        let extended = extend_only(root, &options, &known).expect("read alone");
        assert_eq!(extended, read_git_history(root, &options).unwrap());
        assert_eq!(extended.commits.len(), 4);
        // A merge on top: the log of HEAD interleaves two lines of commits.
        let before = extended;
        run(root, &["checkout", "-q", "-b", "side", "HEAD~1"]);
        commit(root, "d.py", "five");
        run(root, &["checkout", "-q", "main"]);
        run(root, &["merge", "-q", "--no-edit", "side"]);
        assert!(extend_only(root, &options, &before).is_none());
        let merged = extend_git_history(root, &options, &before).unwrap();
        assert_eq!(merged, read_git_history(root, &options).unwrap());
        assert_eq!(merged.commits.len(), 5);
    }
}
