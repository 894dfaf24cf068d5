//! The repository's own history: the commits that are ancestors of the checked-out
//! one, each with the paths it changed (paper Figure 1, "Repo Evolution").
//!
//! Only ancestors of HEAD are ever read — never other branches, `--all` or reflogs:
//! history after the commit a task was written against would leak its answer.

use std::collections::HashMap;
use std::io::Read;
use std::path::Path;
use std::process::{Command, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};

use serde::{Deserialize, Serialize};

/// How much history to read.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
pub struct HistoryOptions {
    /// At most this many commits, newest first (default 500).
    pub max_commits: usize,
    /// Stop reading after this many milliseconds and keep what was read (default 300).
    pub max_millis: u64,
    /// Commits changing more files than this are skipped: mass renames, vendoring,
    /// formatting sweeps say nothing about which files belong together (default 50).
    pub max_files_per_commit: usize,
}

impl Default for HistoryOptions {
    fn default() -> Self {
        HistoryOptions {
            max_commits: 500,
            max_millis: 300,
            max_files_per_commit: 50,
        }
    }
}

/// One commit: who, when, and which paths it changed.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Commit {
    /// The commit id (hexadecimal object name).
    pub id: String,
    /// Committer time, in seconds since the Unix epoch.
    pub time: i64,
    /// Author name (after the repository's mailmap).
    pub author: String,
    /// The first line of the commit message.
    pub subject: String,
    /// Changed paths relative to the source's root, `/`-separated, sorted, each under
    /// its newest name (a file renamed later is listed by the name it has at HEAD).
    pub paths: Vec<String>,
}

/// The commits that are ancestors of HEAD, newest first.
///
/// [`FsSource`](super::FsSource) reads it with the `git` command-line program found on
/// PATH rather than a git library crate. A library (gix, or git2 with its bundled
/// libgit2) would add hundreds of crates or a C build to every build of the core, the
/// Python wheel and the C library, for a feature that is optional by design; the CLI
/// costs nothing to build, is present wherever a work tree is, and reads every
/// repository layout git itself reads (packs, alternates, worktrees, partial clones).
/// Its run-time cost is a few process spawns when HEAD moves and one `git rev-parse`
/// per query, bounded by [`HistoryOptions::max_millis`]. Without git, or outside a
/// work tree, there is simply no history.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct History {
    /// The id of the checked-out commit the history was read from.
    pub head: String,
    /// Committer time of HEAD, in seconds since the Unix epoch.
    pub head_time: i64,
    /// Commits, newest first (merges and skipped commits left out).
    pub commits: Vec<Commit>,
    /// Commits left out for changing more than
    /// [`HistoryOptions::max_files_per_commit`] files.
    pub skipped_large: usize,
    /// True when reading stopped at [`HistoryOptions::max_millis`].
    pub truncated: bool,
}

/// Record and field separators of the log format (ASCII RS and US).
const RECORD: u8 = 0x1e;
const FIELD: u8 = 0x1f;

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

fn is_object_id(id: &str) -> bool {
    matches!(id.len(), 40 | 64) && id.bytes().all(|b| b.is_ascii_hexdigit())
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

/// Reads the history of the work tree `root` is in, restricted to paths under `root`.
/// `None` without git, outside a work tree, on an unborn HEAD or on any git error.
pub(crate) fn read_git_history(root: &Path, options: &HistoryOptions) -> Option<History> {
    let started = Instant::now();
    let head = head(root)?;
    let head_time = commit_time(root, &head.id)?;
    let mut history = History {
        head: head.id.clone(),
        head_time,
        commits: Vec::new(),
        skipped_large: 0,
        truncated: false,
    };
    if options.max_commits == 0 {
        return Some(history);
    }
    let budget = Duration::from_millis(options.max_millis);
    let remaining = budget.saturating_sub(started.elapsed());
    let (bytes, truncated) = run_log(root, &head, options.max_commits, remaining)?;
    history.truncated = truncated;
    let mut records: Vec<&[u8]> = bytes.split(|&b| b == RECORD).skip(1).collect();
    if truncated {
        // The last record may have been cut anywhere.
        records.pop();
    }
    let mut renames = Renames::default();
    for record in records {
        let Some(parsed) = parse_record(record) else {
            continue;
        };
        let paths = parsed.paths(&renames);
        renames.learn(&parsed.changes);
        if parsed.size > options.max_files_per_commit {
            history.skipped_large += 1;
            continue;
        }
        history.commits.push(Commit {
            id: parsed.id,
            time: parsed.time,
            author: parsed.author,
            subject: parsed.subject,
            paths,
        });
    }
    Some(history)
}

/// Runs `git log` on the ancestors of `head`, reading its output until it ends or
/// the time is up (then the process is killed). Returns the bytes read and whether
/// reading was cut short; `None` when git fails.
fn run_log(root: &Path, head: &Head, max: usize, time: Duration) -> Option<(Vec<u8>, bool)> {
    let deadline = Instant::now() + time;
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
        "--format=%x1e%H%x1f%ct%x1f%aN%x1f%s",
    ]);
    cmd.arg(format!("--max-count={max}"));
    let sub = !head.prefix.is_empty();
    if sub {
        // Paths relative to the root, commits that touch something under it.
        cmd.arg("--relative");
    }
    // The id comes from git itself and is checked to be hexadecimal; paths go after
    // `--`, so nothing is ever read as an option.
    cmd.arg(&head.id).arg("--");
    if sub {
        cmd.arg(".");
    }
    let mut child = cmd.stdout(Stdio::piped()).spawn().ok()?;
    let Some(mut stdout) = child.stdout.take() else {
        stop(&mut child);
        return None;
    };
    let (send, receive) = mpsc::channel::<Vec<u8>>();
    // A reader thread, so that a git busy on one commit cannot hold us past the
    // deadline: the main thread waits on the channel with a timeout.
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
        return None;
    };
    let mut bytes = Vec::new();
    let mut truncated = false;
    loop {
        let left = deadline.saturating_duration_since(Instant::now());
        match receive.recv_timeout(left) {
            Ok(chunk) => bytes.extend_from_slice(&chunk),
            Err(mpsc::RecvTimeoutError::Disconnected) => break,
            Err(mpsc::RecvTimeoutError::Timeout) => {
                truncated = true;
                let _ = child.kill();
                break;
            }
        }
    }
    drop(receive);
    let status = child.wait().ok();
    let _ = reader.join();
    if !truncated && !status.is_some_and(|s| s.success()) {
        return None;
    }
    Some((bytes, truncated))
}

/// Kills a child and reaps it.
fn stop(child: &mut std::process::Child) {
    let _ = child.kill();
    let _ = child.wait();
}

/// One change of a commit: its status letter and the path(s).
#[derive(Debug, Clone, PartialEq, Eq)]
enum Change {
    /// Added, modified, deleted or type-changed.
    Touched(String),
    /// Renamed from the first path to the second.
    Renamed(String, String),
}

/// One commit as git printed it.
#[derive(Debug)]
struct Record {
    id: String,
    time: i64,
    author: String,
    subject: String,
    /// Number of changed files, named or not.
    size: usize,
    changes: Vec<Change>,
}

impl Record {
    /// The changed paths under their newest names, sorted and distinct.
    fn paths(&self, renames: &Renames) -> Vec<String> {
        let mut out: Vec<String> = self
            .changes
            .iter()
            .map(|c| match c {
                Change::Touched(p) | Change::Renamed(_, p) => renames.newest(p).to_string(),
            })
            .collect();
        out.sort();
        out.dedup();
        out
    }
}

/// Old path → the name the file has at HEAD, learnt walking from HEAD backwards.
#[derive(Debug, Default)]
struct Renames(HashMap<String, String>);

impl Renames {
    fn newest<'a>(&'a self, path: &'a str) -> &'a str {
        self.0.get(path).map_or(path, String::as_str)
    }

    /// Records the renames of a commit, after its own paths were resolved: older
    /// commits then see the renamed files under their newest names.
    fn learn(&mut self, changes: &[Change]) {
        for change in changes {
            if let Change::Renamed(old, new) = change {
                let newest = self.newest(new).to_string();
                self.0.insert(old.clone(), newest);
            }
        }
    }
}

/// Parses `<id> US <time> US <author> US <subject> NUL \n (<status> NUL <path> NUL
/// [<path> NUL])*`. An author or subject that is not UTF-8 is kept lossily: the
/// commit's paths still count.
fn parse_record(record: &[u8]) -> Option<Record> {
    let end = memchr::memchr(0, record).unwrap_or(record.len());
    let header = String::from_utf8_lossy(&record[..end]);
    let mut fields = header.split(FIELD as char);
    let id = fields.next()?.to_string();
    let time = fields.next()?.trim().parse().ok()?;
    let author = fields.next().unwrap_or("").to_string();
    let subject = fields.next().unwrap_or("").trim().to_string();
    if !is_object_id(&id) {
        return None;
    }
    let body = record.get(end + 1..).unwrap_or(&[]);
    let mut tokens = body
        .split(|&b| b == 0)
        .map(|t| t.strip_prefix(b"\n").unwrap_or(t))
        .filter(|t| !t.is_empty());
    let mut changes = Vec::new();
    let mut size = 0usize;
    while let Some(status) = tokens.next() {
        let two_paths = matches!(status.first(), Some(b'R' | b'C'));
        let first = tokens.next().and_then(utf8_path);
        let change = if two_paths {
            let second = tokens.next().and_then(utf8_path);
            match (status.first(), first, second) {
                (Some(b'R'), Some(old), Some(new)) => Some(Change::Renamed(old, new)),
                (_, _, Some(new)) => Some(Change::Touched(new)),
                _ => None,
            }
        } else {
            first.map(Change::Touched)
        };
        size += 1;
        // A path that is not UTF-8 cannot be an artifact of the source: it counts
        // towards the size of the commit only.
        changes.extend(change);
    }
    Some(Record {
        id,
        time,
        author,
        subject,
        size,
        changes,
    })
}

fn utf8_path(bytes: &[u8]) -> Option<String> {
    std::str::from_utf8(bytes).ok().map(str::to_string)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn record(id: char, changes: &[&[&str]]) -> Vec<u8> {
        let mut out = format!(
            "{}\x1f1700000000\x1fAuthor\x1fFix the parser\0\n",
            id.to_string().repeat(40)
        );
        for change in changes {
            for part in *change {
                out.push_str(part);
                out.push('\0');
            }
        }
        out.into_bytes()
    }

    #[test]
    fn records_parse_statuses_renames_and_sizes() {
        let bytes = record(
            'a',
            &[
                &["M", "src/a.py"],
                &["R087", "old/b.py", "new/b.py"],
                &["D", "gone.py"],
            ],
        );
        let parsed = parse_record(&bytes).unwrap();
        assert_eq!(parsed.id, "a".repeat(40));
        assert_eq!(parsed.time, 1_700_000_000);
        assert_eq!(parsed.author, "Author");
        assert_eq!(parsed.subject, "Fix the parser");
        assert_eq!(parsed.size, 3);
        assert_eq!(
            parsed.changes[1],
            Change::Renamed("old/b.py".into(), "new/b.py".into())
        );
        // A header that is not a commit is not a record.
        assert!(parse_record(b"not-a-commit\x1f1\x1fx\0\nM\0a\0").is_none());
        // Invalid UTF-8 in a path still counts towards the size.
        let mut odd = record('b', &[&["M", "ok.py"]]);
        odd.extend_from_slice(b"M\0bad\xff.py\0");
        let parsed = parse_record(&odd).unwrap();
        assert_eq!((parsed.size, parsed.changes.len()), (2, 1));
    }

    #[test]
    fn renames_map_old_names_to_the_newest_walking_back_from_head() {
        let mut renames = Renames::default();
        // Newest first: b → c, then (older) a → b.
        renames.learn(&[Change::Renamed("b.py".into(), "c.py".into())]);
        renames.learn(&[Change::Renamed("a.py".into(), "b.py".into())]);
        assert_eq!(renames.newest("a.py"), "c.py");
        assert_eq!(renames.newest("b.py"), "c.py");
        assert_eq!(renames.newest("other.py"), "other.py");
        // Renamed back and forth: the older name is the newest again.
        let mut renames = Renames::default();
        renames.learn(&[Change::Renamed("y.py".into(), "x.py".into())]);
        renames.learn(&[Change::Renamed("x.py".into(), "y.py".into())]);
        assert_eq!(renames.newest("x.py"), "x.py");
    }
}
