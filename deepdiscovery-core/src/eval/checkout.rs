//! The repositories of evaluation tasks: a task's repository is found among local
//! mirrors (bare git directories) and checked out at its commit, plain (files only,
//! as a tarball or a `--depth 1` clone gives them) or with history (a git work tree
//! whose history holds the commit's ancestors and nothing after it).
//!
//! Where the mirrors and checkouts live comes from the caller (options, or the
//! environment variables [`MIRRORS_ENV`] and [`CHECKOUTS_ENV`]); no path of a machine
//! is built in.

use std::fs;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use super::tasks::EvalTask;

/// The environment variable naming the mirrors' directory.
pub const MIRRORS_ENV: &str = "DD_EVAL_MIRRORS";
/// The environment variable naming the checkouts' directory.
pub const CHECKOUTS_ENV: &str = "DD_EVAL_CHECKOUTS";

/// The git directory of a repository (`owner/name`) under the mirrors directory:
/// `OWNER+NAME` or `swe-bench+OWNER__NAME`, bare or holding a bare `repo/`. The exact
/// spelling is taken first, then one that differs only in case (mirror names keep
/// GitHub's spelling: `briannesbitt+Carbon` for `briannesbitt/carbon`). Only names
/// present in the directory are joined, so no task field can lead outside it.
pub fn find_mirror(mirrors: &Path, repo: &str) -> Option<PathBuf> {
    let (owner, name) = repo.split_once('/')?;
    let wanted = [
        format!("{owner}+{name}"),
        format!("swe-bench+{owner}__{name}"),
    ];
    let mut present: Vec<String> = fs::read_dir(mirrors)
        .ok()?
        .filter_map(|entry| entry.ok()?.file_name().into_string().ok())
        .collect();
    present.sort();
    wanted
        .iter()
        .flat_map(|w| mirror_names(&present, w))
        .flat_map(|n| [mirrors.join(n).join("repo"), mirrors.join(n)])
        .find(|dir| dir.join("HEAD").is_file() && dir.join("objects").is_dir())
}

/// The names of `present` that spell `wanted`: the exact spelling first, then those
/// that differ only in case, in sorted order.
fn mirror_names<'a>(present: &'a [String], wanted: &str) -> Vec<&'a str> {
    let folded = wanted.to_lowercase();
    let exact = present.iter().filter(|p| *p == wanted);
    let other = present
        .iter()
        .filter(|p| *p != wanted && p.to_lowercase() == folded);
    exact.chain(other).map(String::as_str).collect()
}

/// The checkout of `task` under `checkouts` (`checkouts/<id>`), made from its mirror
/// under `mirrors` when missing. It is written next to its place and renamed when
/// whole, so an interrupted checkout is never taken for one.
///
/// # Errors
/// A message when the task's id cannot name a directory, it has no base commit, its
/// repository has no mirror, or git fails (the commit missing, say).
pub fn ensure_checkout(
    task: &EvalTask,
    checkouts: &Path,
    mirrors: &Path,
    with_history: bool,
) -> Result<PathBuf, String> {
    if task.id.is_empty() || task.id.contains(['/', '\\']) || task.id.starts_with('.') {
        return Err(format!(
            "task id {:?} is not usable as a directory",
            task.id
        ));
    }
    let dest = checkouts.join(&task.id);
    if dest.is_dir() {
        // A plain checkout has no history to read; one with history is no tarball.
        return match (dest.join(".git").exists(), with_history) {
            (true, false) => Err(format!(
                "{} holds history: plain checkouts go to another directory",
                dest.display()
            )),
            (false, true) => Err(format!(
                "{} is a plain checkout: checkouts with history go to another directory",
                dest.display()
            )),
            _ => Ok(dest),
        };
    }
    let commit = task
        .base_commit
        .as_deref()
        .ok_or_else(|| format!("task {} has no base_commit", task.id))?;
    let git_dir =
        find_mirror(mirrors, &task.repo).ok_or_else(|| format!("no mirror of {}", task.repo))?;
    fs::create_dir_all(checkouts)
        .map_err(|e| format!("cannot create {}: {e}", checkouts.display()))?;
    let partial = checkouts.join(format!("{}.partial", task.id));
    remove_dir(&partial)?;
    if let Err(e) = check_out(&git_dir, commit, &partial, with_history) {
        let _ = remove_dir(&partial);
        return Err(e);
    }
    fs::rename(&partial, &dest).map_err(|e| format!("cannot rename {}: {e}", partial.display()))?;
    Ok(dest)
}

/// Writes the tree of `commit` of the git directory `git_dir` into `dest`. With
/// history, `dest` is a git work tree whose only ref is a branch at `commit` (its
/// objects are borrowed from `git_dir` through git's alternates, nothing is copied:
/// keep the mirror while the checkout is used); plain, the files alone.
pub fn check_out(
    git_dir: &Path,
    commit: &str,
    dest: &Path,
    with_history: bool,
) -> Result<(), String> {
    if commit.is_empty() || !commit.bytes().all(|b| b.is_ascii_hexdigit()) {
        return Err(format!("{commit:?} is not a commit id"));
    }
    let git_dir = git_dir
        .canonicalize()
        .map_err(|e| format!("cannot open {}: {e}", git_dir.display()))?;
    let objects = git_dir.join("objects");
    run_git(
        &git_dir,
        &["cat-file", "-e", &format!("{commit}^{{commit}}")],
    )
    .map_err(|_| format!("commit {commit} is not in {}", git_dir.display()))?;
    fs::create_dir_all(dest).map_err(|e| format!("cannot create {}: {e}", dest.display()))?;
    run_git(dest, &["init", "-q"])?;
    let alternates = dest.join(".git/objects/info/alternates");
    fs::write(&alternates, format!("{}\n", objects.display()))
        .map_err(|e| format!("cannot write {}: {e}", alternates.display()))?;
    run_git(dest, &["update-ref", "refs/heads/task", commit])?;
    run_git(dest, &["symbolic-ref", "HEAD", "refs/heads/task"])?;
    run_git(dest, &["reset", "-q", "--hard", "task"])?;
    if !with_history {
        remove_dir(&dest.join(".git"))?;
    }
    Ok(())
}

/// Runs git in `dir` with no system or user configuration.
fn run_git(dir: &Path, args: &[&str]) -> Result<(), String> {
    let output = Command::new("git")
        .current_dir(dir)
        .env_remove("GIT_DIR")
        .env_remove("GIT_WORK_TREE")
        .env_remove("GIT_INDEX_FILE")
        .env_remove("GIT_OBJECT_DIRECTORY")
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .env("GIT_CONFIG_GLOBAL", "/dev/null")
        .env("GIT_TERMINAL_PROMPT", "0")
        .args([
            "-c",
            "core.hooksPath=/dev/null",
            "-c",
            "init.defaultBranch=task",
        ])
        .args(args)
        .stdin(Stdio::null())
        .output()
        .map_err(|e| format!("cannot run git: {e}"))?;
    if output.status.success() {
        return Ok(());
    }
    let stderr = String::from_utf8_lossy(&output.stderr);
    let last = stderr.lines().last().unwrap_or("").trim();
    Err(format!(
        "git {} failed ({}): {last}",
        args.join(" "),
        output.status
    ))
}

/// Removes a directory and what it holds; a missing one is no error.
pub fn remove_dir(dir: &Path) -> Result<(), String> {
    match fs::remove_dir_all(dir) {
        Ok(()) => Ok(()),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(()),
        Err(e) => Err(format!("cannot remove {}: {e}", dir.display())),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn git(dir: &Path, args: &[&str]) -> Option<String> {
        let out = Command::new("git")
            .current_dir(dir)
            .env("GIT_CONFIG_NOSYSTEM", "1")
            .env("GIT_CONFIG_GLOBAL", "/dev/null")
            .env("GIT_AUTHOR_NAME", "T")
            .env("GIT_AUTHOR_EMAIL", "t@example.com")
            .env("GIT_COMMITTER_NAME", "T")
            .env("GIT_COMMITTER_EMAIL", "t@example.com")
            .args(args)
            .output()
            .ok()?;
        out.status
            .success()
            .then(|| String::from_utf8_lossy(&out.stdout).trim().to_string())
    }

    /// A mirror `owner+Name` with two commits; `None` without git.
    fn mirror(root: &Path) -> Option<(PathBuf, String, String)> {
        let work = root.join("work");
        fs::create_dir_all(&work).unwrap();
        git(&work, &["init", "-q"])?;
        fs::write(work.join("a.py"), "one\n").unwrap();
        git(&work, &["add", "."])?;
        git(&work, &["commit", "-qm", "first"])?;
        let first = git(&work, &["rev-parse", "HEAD"])?;
        fs::write(work.join("b.py"), "two\n").unwrap();
        git(&work, &["add", "."])?;
        git(&work, &["commit", "-qm", "second"])?;
        let second = git(&work, &["rev-parse", "HEAD"])?;
        let mirrors = root.join("mirrors");
        fs::create_dir_all(&mirrors).unwrap();
        let bare = mirrors.join("owner+Name");
        git(
            root,
            &["clone", "-q", "--mirror", work.to_str()?, bare.to_str()?],
        )?;
        Some((mirrors, first, second))
    }

    fn task(id: &str, commit: &str) -> EvalTask {
        EvalTask {
            id: id.into(),
            repo: "owner/name".into(),
            base_commit: Some(commit.into()),
            task: "t".into(),
            gold_files: vec!["a.py".into()],
            gold_new_files: Vec::new(),
            language: None,
        }
    }

    #[test]
    fn checkouts_hold_the_commit_with_or_without_its_past() {
        let root = tempfile::tempdir().unwrap();
        let Some((mirrors, first, second)) = mirror(root.path()) else {
            return; // no git on this machine
        };
        let checkouts = root.path().join("checkouts");
        // Found by a spelling that differs in case.
        let plain = ensure_checkout(&task("t1", &first), &checkouts, &mirrors, false).unwrap();
        assert!(plain.join("a.py").is_file() && !plain.join("b.py").exists());
        assert!(
            !plain.join(".git").exists(),
            "a plain checkout has no history"
        );
        let hist = ensure_checkout(&task("t2", &second), &checkouts, &mirrors, true).unwrap();
        assert!(hist.join("b.py").is_file());
        assert_eq!(
            git(&hist, &["rev-list", "--count", "HEAD"]).as_deref(),
            Some("2")
        );
        let older = ensure_checkout(&task("t3", &first), &checkouts, &mirrors, true).unwrap();
        // Only the commit's ancestors: nothing after it.
        assert_eq!(
            git(&older, &["rev-list", "--all", "--count"]).as_deref(),
            Some("1")
        );
        // A checkout of the other kind is refused.
        let err = ensure_checkout(&task("t1", &first), &checkouts, &mirrors, true).unwrap_err();
        assert!(err.contains("is a plain checkout"), "{err}");
        let err = ensure_checkout(&task("t2", &second), &checkouts, &mirrors, false).unwrap_err();
        assert!(err.contains("holds history"), "{err}");
        // A second call takes the checkout as it is.
        assert_eq!(
            ensure_checkout(&task("t1", &second), &checkouts, &mirrors, false).unwrap(),
            plain
        );
    }

    #[test]
    fn what_cannot_be_checked_out_is_named() {
        let root = tempfile::tempdir().unwrap();
        let Some((mirrors, _, _)) = mirror(root.path()) else {
            return;
        };
        let checkouts = root.path().join("checkouts");
        let missing = "0123456789012345678901234567890123456789";
        let err = ensure_checkout(&task("t1", missing), &checkouts, &mirrors, false).unwrap_err();
        assert!(err.contains("is not in"), "{err}");
        assert!(!checkouts.join("t1.partial").exists() && !checkouts.join("t1").exists());
        let err =
            ensure_checkout(&task("../up", missing), &checkouts, &mirrors, false).unwrap_err();
        assert!(err.contains("not usable as a directory"), "{err}");
        let err = ensure_checkout(&task("t2", "--upload-pack=x"), &checkouts, &mirrors, false)
            .unwrap_err();
        assert!(err.contains("not a commit id"), "{err}");
        let mut other = task("t3", missing);
        other.repo = "nobody/else".into();
        let err = ensure_checkout(&other, &checkouts, &mirrors, false).unwrap_err();
        assert_eq!(err, "no mirror of nobody/else");
    }

    fn fake_git_dir(dir: &Path) {
        fs::create_dir_all(dir.join("objects")).unwrap();
        fs::write(dir.join("HEAD"), "ref: refs/heads/main\n").unwrap();
    }

    #[test]
    fn mirror_lookup_ignores_case_but_prefers_the_exact_spelling() {
        let dir = tempfile::tempdir().unwrap();
        let mirrors = dir.path().join("mirrors");
        let carbon = mirrors.join("briannesbitt+Carbon/repo");
        fake_git_dir(&carbon);
        assert_eq!(
            find_mirror(&mirrors, "briannesbitt/carbon"),
            Some(carbon.clone())
        );
        assert_eq!(
            find_mirror(&mirrors, "BrianNesbitt/CARBON"),
            Some(carbon.clone())
        );
        assert_eq!(find_mirror(&mirrors, "briannesbitt/carbo"), None);
        // With two spellings, the task's own wins; the git directory may be the mirror
        // directory itself.
        let exact = mirrors.join("briannesbitt+carbon");
        fake_git_dir(&exact);
        assert_eq!(find_mirror(&mirrors, "briannesbitt/carbon"), Some(exact));
        assert_eq!(find_mirror(&mirrors, "briannesbitt/Carbon"), Some(carbon));
        // The SWE-bench spelling, in any case.
        let django = mirrors.join("swe-bench+django__django/repo");
        fake_git_dir(&django);
        assert_eq!(find_mirror(&mirrors, "Django/Django"), Some(django));
        // A directory that is no git directory is passed over; so is a missing root,
        // and a name without an owner.
        fs::create_dir_all(mirrors.join("o+empty/repo")).unwrap();
        assert_eq!(find_mirror(&mirrors, "o/empty"), None);
        assert_eq!(find_mirror(&dir.path().join("absent"), "o/empty"), None);
        assert_eq!(find_mirror(&mirrors, "no-slash"), None);
        let present: Vec<String> = ["A+b", "a+B", "a+b", "c+d"].map(String::from).to_vec();
        assert_eq!(mirror_names(&present, "a+B"), ["a+B", "A+b", "a+b"]);
    }
}
