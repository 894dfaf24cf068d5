//! The on-disk facts cache never changes an answer: packages with and without it are
//! byte-identical (wall times aside) — cold, warm, after an edit, after a git branch
//! switch, with corrupted or truncated entries, with two sessions writing at once,
//! and with a cache directory that cannot be used.

use std::fs;
use std::path::Path;
use std::process::Command;
use std::sync::Arc;

use deepdiscovery_core::cache::DiskCache;
use deepdiscovery_core::options::session_options;
use deepdiscovery_core::{DiscoverConfig, Session, Task};

use crate::support::{fixture_path, stable_json};

const TASK: &str = "Pricing endpoint crashes: CurrencyMismatchError: cannot convert EUR to GBP \
                    in `convert_currency`";

/// The package of a fresh session over `root`, through `cache` if given; with the
/// session's count of facts read from the cache.
fn package(root: &Path, cache: Option<&Path>) -> (serde_json::Value, usize) {
    let (json, from_disk, _) = package_and_hits(root, cache);
    (json, from_disk)
}

/// [`package`], and every entry read from the cache (facts and lexical indexes).
fn package_and_hits(root: &Path, cache: Option<&Path>) -> (serde_json::Value, usize, u64) {
    let mut session = Session::open(root).unwrap();
    if let Some(dir) = cache {
        session = session.with_disk_cache(Arc::new(DiskCache::open(dir).unwrap()));
    }
    let package = session
        .discover(&Task::new(TASK).unwrap(), &DiscoverConfig::default())
        .unwrap();
    let hits = session.disk_cache().map_or(0, |d| d.hits());
    (stable_json(&package), session.stats().from_disk, hits)
}

/// Asserts that the package is the same with and without the cache in `cache`;
/// returns how many facts came from the cache.
fn same_with_cache(root: &Path, cache: &Path) -> usize {
    let (without, _) = package(root, None);
    let (with, from_disk) = package(root, Some(cache));
    assert_eq!(with, without, "the cache changed the package");
    from_disk
}

fn copy_dir(from: &Path, to: &Path) {
    for entry in fs::read_dir(from).unwrap() {
        let entry = entry.unwrap();
        let target = to.join(entry.file_name());
        if entry.file_type().unwrap().is_dir() {
            fs::create_dir_all(&target).unwrap();
            copy_dir(&entry.path(), &target);
        } else {
            fs::copy(entry.path(), target).unwrap();
        }
    }
}

/// Runs git in `root` with no system or global configuration; `None` when git is
/// not on PATH.
fn git(root: &Path, args: &[&str]) -> Option<()> {
    let out = Command::new("git")
        .current_dir(root)
        .env_remove("GIT_DIR")
        .env_remove("GIT_WORK_TREE")
        .env_remove("GIT_INDEX_FILE")
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .env("GIT_CONFIG_GLOBAL", "/dev/null")
        .env("GIT_AUTHOR_DATE", "@1700000000 +0000")
        .env("GIT_COMMITTER_DATE", "@1700000000 +0000")
        .env("GIT_AUTHOR_NAME", "Test")
        .env("GIT_AUTHOR_EMAIL", "t@example.com")
        .env("GIT_COMMITTER_NAME", "Test")
        .env("GIT_COMMITTER_EMAIL", "t@example.com")
        .args(args)
        .output()
        .ok()?;
    assert!(
        out.status.success(),
        "git {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    Some(())
}

fn entries(cache: &Path) -> Vec<std::path::PathBuf> {
    let mut out = Vec::new();
    for shard in fs::read_dir(cache.join("facts-v1")).unwrap() {
        for file in fs::read_dir(shard.unwrap().path()).unwrap() {
            out.push(file.unwrap().path());
        }
    }
    out.sort();
    out
}

/// A module large enough that its lexical index is kept on disk too (small files
/// are cheaper to tokenize than to look up).
fn add_large_module(root: &Path) {
    let mut text = String::from("\"\"\"Exchange rates for convert_currency.\"\"\"\n\n");
    for i in 0..120 {
        text.push_str(&format!(
            "def rate_{i}(source, target):\n    \"\"\"EUR to GBP, table {i}.\"\"\"\n    \
             return convert_currency(source, target) * {i}\n\n"
        ));
    }
    assert!(text.len() > 8192);
    fs::write(root.join("inventory/pricing/rates.py"), text).unwrap();
}

#[test]
fn packages_are_identical_with_and_without_the_cache() {
    let repo = tempfile::tempdir().unwrap();
    let cache = tempfile::tempdir().unwrap();
    let root = repo.path();
    copy_dir(&fixture_path("locate_app"), root);
    add_large_module(root);
    let with_git = git(root, &["init", "-q", "-b", "main"]).is_some();
    if with_git {
        git(root, &["add", "-A"]);
        git(root, &["commit", "-q", "-m", "start"]);
    }

    // Cold: everything parsed and written; warm: everything read back.
    assert_eq!(same_with_cache(root, cache.path()), 0);
    assert!(!entries(cache.path()).is_empty());
    let warm = same_with_cache(root, cache.path());
    assert!(warm > 0, "a warm cache is read");
    let (_, facts, hits) = package_and_hits(root, Some(cache.path()));
    assert!(hits > facts as u64, "lexical indexes are read too");

    // An edit: the edited file misses, the others still hit.
    let currency = root.join("inventory/pricing/currency.py");
    let mut text = fs::read_to_string(&currency).unwrap();
    text.push_str("\n\ndef convert_currency_strict(amount, rate):\n    return amount * rate\n");
    fs::write(&currency, &text).unwrap();
    let after_edit = same_with_cache(root, cache.path());
    assert!(after_edit > 0 && after_edit < warm + 1);

    if with_git {
        // A branch that rewrites the pricing module, then back to main.
        git(root, &["checkout", "-q", "-b", "rewrite"]);
        fs::write(
            &currency,
            "class CurrencyMismatchError(Exception):\n    pass\n\n\
             def convert_currency(amount, source, target):\n    \
             raise CurrencyMismatchError(source, target)\n",
        )
        .unwrap();
        fs::remove_file(root.join("inventory/pricing/discounts.py")).unwrap();
        git(root, &["add", "-A"]);
        git(root, &["commit", "-q", "-m", "rewrite pricing"]);
        same_with_cache(root, cache.path());
        git(root, &["checkout", "-q", "main"]);
        same_with_cache(root, cache.path());
        git(root, &["checkout", "-q", "rewrite"]);
        same_with_cache(root, cache.path());
    }

    // Every entry corrupted in a different way: none is trusted.
    for (i, entry) in entries(cache.path()).iter().enumerate() {
        let bytes = fs::read(entry).unwrap();
        let bad = match i % 4 {
            0 => bytes[..bytes.len() / 2].to_vec(),
            1 => Vec::new(),
            2 => {
                let mut b = bytes.clone();
                let last = b.len() - 1;
                b[last] ^= 1;
                b
            }
            _ => b"garbage that is not an entry".to_vec(),
        };
        fs::write(entry, bad).unwrap();
    }
    assert_eq!(same_with_cache(root, cache.path()), 0);
    // ... and rewritten by that run.
    assert!(same_with_cache(root, cache.path()) > 0);
}

#[test]
fn one_session_with_the_cache_follows_edits() {
    let repo = tempfile::tempdir().unwrap();
    let cache = tempfile::tempdir().unwrap();
    let root = repo.path();
    copy_dir(&fixture_path("locate_app"), root);
    let session = Session::open(root)
        .unwrap()
        .with_disk_cache(Arc::new(DiskCache::open(cache.path()).unwrap()));
    let task = Task::new(TASK).unwrap();
    let config = DiscoverConfig::default();
    for round in 0..3 {
        let with = stable_json(&session.discover(&task, &config).unwrap());
        let (without, _) = package(root, None);
        assert_eq!(with, without, "round {round}");
        let path = root.join("inventory/models.py");
        let text = fs::read_to_string(&path).unwrap();
        fs::write(&path, format!("{text}\nclass Extra{round}:\n    pass\n")).unwrap();
    }
}

#[test]
fn sessions_writing_the_same_entries_at_once_agree() {
    let cache = tempfile::tempdir().unwrap();
    let root = fixture_path("locate_app");
    let (expected, _) = package(&root, None);
    std::thread::scope(|scope| {
        let workers: Vec<_> = (0..4)
            .map(|_| scope.spawn(|| (0..3).map(|_| package(&root, Some(cache.path())).0)))
            .collect();
        for worker in workers {
            for got in worker.join().unwrap().collect::<Vec<_>>() {
                assert_eq!(got, expected);
            }
        }
    });
    // No temporary file is left behind, and every entry reads back.
    for entry in entries(cache.path()) {
        let name = entry.file_name().unwrap().to_string_lossy().into_owned();
        assert!(!name.starts_with(".tmp-"), "{name}");
    }
    assert!(package(&root, Some(cache.path())).1 > 0);
}

#[test]
fn an_unusable_cache_directory_is_no_cache() {
    let dir = tempfile::tempdir().unwrap();
    let root = fixture_path("locate_app");
    let (expected, _) = package(&root, None);
    let file = dir.path().join("a-file");
    fs::write(&file, "in the way").unwrap();
    // A cache full of garbage: files under entry names in every shard, a shard that
    // is a file, stray names.
    let garbage = dir.path().join("garbage");
    for shard in "0123456789abcde".chars() {
        let shard_dir = garbage.join("facts-v1").join(shard.to_string());
        fs::create_dir_all(&shard_dir).unwrap();
        for i in 0..16 {
            let name = format!("{i:x}").repeat(31);
            fs::write(shard_dir.join(name), format!("garbage {i}")).unwrap();
        }
        fs::write(shard_dir.join("not-an-entry"), "x").unwrap();
    }
    fs::write(garbage.join("facts-v1/f"), "a file where a shard goes").unwrap();
    fs::write(garbage.join("facts-v1/zz"), "a stray file").unwrap();
    for cache_dir in [file.clone(), file.join("below"), garbage] {
        let json = serde_json::json!({ "cache_dir": cache_dir }).to_string();
        let options = session_options(Some(&json)).unwrap();
        let session = options.apply(Session::open(&root).unwrap()).unwrap();
        let got = session
            .discover(&Task::new(TASK).unwrap(), &DiscoverConfig::default())
            .unwrap();
        assert_eq!(stable_json(&got), expected, "{cache_dir:?}");
    }
    let off = session_options(Some(r#"{"cache": false, "cache_dir": "/nonexistent"}"#)).unwrap();
    assert!(off.disk_cache().is_none());
}

#[cfg(unix)]
#[test]
fn a_read_only_cache_directory_is_no_cache() {
    use std::os::unix::fs::PermissionsExt;
    let dir = tempfile::tempdir().unwrap();
    let cache = dir.path().join("ro");
    fs::create_dir(&cache).unwrap();
    fs::set_permissions(&cache, fs::Permissions::from_mode(0o500)).unwrap();
    let root = fixture_path("locate_app");
    let (expected, _) = package(&root, None);
    // As root the directory is still writable; the answer is the same either way.
    let session = match DiskCache::open(&cache) {
        Ok(disk) => Session::open(&root)
            .unwrap()
            .with_disk_cache(Arc::new(disk)),
        Err(_) => Session::open(&root).unwrap(),
    };
    let got = session
        .discover(&Task::new(TASK).unwrap(), &DiscoverConfig::default())
        .unwrap();
    assert_eq!(stable_json(&got), expected);
    fs::set_permissions(&cache, fs::Permissions::from_mode(0o700)).unwrap();
}

/// An [`FsSource`] that records every path it reads.
struct Counting {
    inner: deepdiscovery_core::FsSource,
    reads: Arc<std::sync::Mutex<Vec<String>>>,
}

impl deepdiscovery_core::RepoSource for Counting {
    fn label(&self) -> String {
        self.inner.label()
    }
    fn list(&self) -> deepdiscovery_core::Result<deepdiscovery_core::source::Listing> {
        self.inner.list()
    }
    fn read(&self, path: &str) -> deepdiscovery_core::Result<Vec<u8>> {
        self.reads.lock().unwrap().push(path.to_string());
        self.inner.read(path)
    }
    fn identity(&self) -> Option<String> {
        self.inner.identity()
    }
    fn history_head(&self) -> deepdiscovery_core::Result<Option<String>> {
        self.inner.history_head()
    }
    fn history(
        &self,
        options: &deepdiscovery_core::HistoryOptions,
    ) -> deepdiscovery_core::Result<Option<deepdiscovery_core::History>> {
        self.inner.history(options)
    }
}

/// The package of a fresh session over `root` through the cache in `cache`, and the
/// paths the session read.
fn package_and_reads(root: &Path, cache: &Path) -> (serde_json::Value, Vec<String>) {
    let reads = Arc::new(std::sync::Mutex::new(Vec::new()));
    let source = Counting {
        inner: deepdiscovery_core::FsSource::new(root).unwrap(),
        reads: Arc::clone(&reads),
    };
    let session = Session::new(source).with_disk_cache(Arc::new(DiskCache::open(cache).unwrap()));
    let package = session
        .discover(&Task::new(TASK).unwrap(), &DiscoverConfig::default())
        .unwrap();
    let reads = reads.lock().unwrap().clone();
    (stable_json(&package), reads)
}

/// Dates every file under `dir` an hour back: older than any "racy" window.
fn age(dir: &Path, by: std::time::Duration) {
    for entry in fs::read_dir(dir).unwrap() {
        let entry = entry.unwrap();
        if entry.file_type().unwrap().is_dir() {
            age(&entry.path(), by);
        } else {
            let file = fs::File::options().write(true).open(entry.path()).unwrap();
            file.set_modified(std::time::SystemTime::now() - by)
                .unwrap();
        }
    }
}

/// A large module that has nothing to do with the task: no package includes it.
fn unrelated_module(variant: char) -> String {
    let mut text = String::from("\"\"\"Nightly listing of warehouse shelves.\"\"\"\n\n");
    for i in 0..150 {
        text.push_str(&format!(
            "def shelf_{variant}{i:03}(rows):\n    return [r.label for r in rows if r.depth > {i}]\n\n"
        ));
    }
    text
}

#[test]
fn a_second_process_reads_no_unchanged_file_it_does_not_show() {
    let repo = tempfile::tempdir().unwrap();
    let cache = tempfile::tempdir().unwrap();
    let root = repo.path();
    copy_dir(&fixture_path("locate_app"), root);
    add_large_module(root);
    let export = root.join("inventory/shelving.py");
    fs::write(&export, unrelated_module('a')).unwrap();
    let hour = std::time::Duration::from_secs(3600);
    age(root, hour);
    let (expected, _) = package(root, None);
    let is_export = |reads: &[String]| reads.iter().any(|p| p == "inventory/shelving.py");

    let (first, reads) = package_and_reads(root, cache.path());
    assert_eq!(first, expected);
    assert!(is_export(&reads), "the first process reads every file");
    let (second, reads) = package_and_reads(root, cache.path());
    assert_eq!(second, expected);
    assert!(!is_export(&reads), "known unchanged from its listing entry");

    // Another content, one byte longer, dated an hour back as well: a new size.
    fs::write(&export, unrelated_module('b') + "\n").unwrap();
    age(root, hour);
    let (third, reads) = package_and_reads(root, cache.path());
    assert_eq!(third, package(root, None).0);
    assert!(is_export(&reads), "a new size is read");

    // Same size and time, but another file (a new inode): read again.
    #[cfg(unix)]
    {
        let (_, reads) = package_and_reads(root, cache.path());
        assert!(!is_export(&reads));
        let before = fs::metadata(&export).unwrap().modified().unwrap();
        let replacement = root.join("inventory/shelving.py.new");
        fs::write(&replacement, unrelated_module('c') + "\n").unwrap();
        fs::File::options()
            .write(true)
            .open(&replacement)
            .unwrap()
            .set_modified(before)
            .unwrap();
        fs::rename(&replacement, &export).unwrap();
        let (fourth, reads) = package_and_reads(root, cache.path());
        assert_eq!(fourth, package(root, None).0);
        assert!(is_export(&reads), "a replaced file is read");
    }

    // A file modified within the racy window of when it was read is read again.
    fs::write(&export, unrelated_module('d')).unwrap();
    let (_, reads) = package_and_reads(root, cache.path());
    assert!(is_export(&reads));
    let (_, reads) = package_and_reads(root, cache.path());
    assert!(is_export(&reads), "too recent to be trusted");
}

/// The bytes of every file under `dir`.
fn bytes_under(dir: &Path) -> u64 {
    entries(dir)
        .iter()
        .map(|e| fs::metadata(e).map_or(0, |m| m.len()))
        .sum()
}

#[test]
fn a_file_is_never_cached_in_more_bytes_than_it_has() {
    let repo = tempfile::tempdir().unwrap();
    let root = repo.path();
    copy_dir(&fixture_path("locate_app"), root);
    add_large_module(root);
    let without = tempfile::tempdir().unwrap();
    package(root, Some(without.path()));
    // Base64-like words, each one new: the file's lexical index (every token and
    // identifier, with counts) is larger than the file, and does not compress.
    let mut blob = String::new();
    let mut x: u64 = 0x9e37_79b9_7f4a_7c15;
    while blob.len() < 40_000 {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        blob.push_str(&format!("q{x:016x}z{:x} ", x.rotate_left(17)));
        if blob.len() % 96 < 24 {
            blob.push('\n');
        }
    }
    fs::write(root.join("inventory/blob.txt"), &blob).unwrap();
    let with = tempfile::tempdir().unwrap();
    let (got, _) = package(root, Some(with.path()));
    assert_eq!(got, package(root, None).0);
    // The next process finds the marker left for the blob and scans it directly.
    assert_eq!(package(root, Some(with.path())).0, got);
    let grown = bytes_under(with.path()).saturating_sub(bytes_under(without.path()));
    assert!(
        grown < blob.len() as u64 / 2,
        "the cache grew by {grown} bytes for a file of {}",
        blob.len()
    );
}
