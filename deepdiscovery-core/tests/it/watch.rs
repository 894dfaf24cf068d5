//! A watched `FsSource` (listing by difference, inotify on Linux) lists exactly what a
//! full walk lists, whatever happened to the tree in between: edits, new and deleted
//! files and directories, renames, ignore files changed, binaries, files over the
//! size cap, links.

use std::cell::RefCell;
use std::collections::BTreeMap;
use std::fs;
use std::path::Path;

use deepdiscovery_core::source::{Entry, FsSource, Listing, ListingUpdate, RepoSource};
use proptest::prelude::*;

fn write(root: &Path, rel: &str, content: &[u8]) {
    let path = root.join(rel);
    fs::create_dir_all(path.parent().unwrap()).unwrap();
    fs::write(path, content).unwrap();
}

/// A watched source, and a consumer that keeps its listing by the changes the
/// source reports since the consumer's last mark (as a session does).
struct Watched {
    source: FsSource,
    tracked: RefCell<Tracked>,
}

#[derive(Default)]
struct Tracked {
    mark: Option<u64>,
    entries: BTreeMap<String, Entry>,
    /// How many listings came as changes rather than whole.
    by_changes: usize,
}

impl std::ops::Deref for Watched {
    type Target = FsSource;

    fn deref(&self) -> &FsSource {
        &self.source
    }
}

impl Watched {
    /// The consumer's listing brought up to date with `list_changes`.
    fn tracked_listing(&self) -> Listing {
        let mut tracked = self.tracked.borrow_mut();
        let (update, mark) = self.source.list_changes(tracked.mark).unwrap();
        tracked.mark = mark;
        let skipped = match update {
            ListingUpdate::Whole(listing) => {
                let entries = listing.entries.into_iter();
                tracked.entries = entries.map(|e| (e.path.clone(), e)).collect();
                listing.skipped
            }
            ListingUpdate::Changes(changes) => {
                tracked.by_changes += 1;
                assert!(changes.changed.is_sorted_by(|a, b| a.path < b.path));
                assert!(changes.removed.is_sorted());
                for path in &changes.removed {
                    tracked.entries.remove(path);
                }
                for entry in changes.changed {
                    tracked.entries.insert(entry.path.clone(), entry);
                }
                changes.skipped
            }
        };
        Listing {
            entries: tracked.entries.values().cloned().collect(),
            skipped,
        }
    }

    fn by_changes(&self) -> usize {
        self.tracked.borrow().by_changes
    }
}

fn watched(root: &Path) -> Watched {
    let source = FsSource::builder(root)
        .max_file_size(64)
        .watch(true)
        .build()
        .unwrap();
    Watched {
        source,
        tracked: RefCell::default(),
    }
}

fn walked(root: &Path) -> Listing {
    FsSource::builder(root)
        .max_file_size(64)
        .build()
        .unwrap()
        .list()
        .unwrap()
}

/// The watched source's listing equals a fresh full walk's, entries and skips; and
/// so does the listing a consumer keeps from the changes since its last mark.
fn assert_same(source: &Watched, root: &Path, step: &str) {
    let tracked = source.tracked_listing();
    let by_difference = source.list().unwrap();
    let full = walked(root);
    assert_eq!(by_difference.entries, full.entries, "entries after {step}");
    assert_eq!(by_difference.skipped, full.skipped, "skips after {step}");
    assert_eq!(
        tracked.entries, full.entries,
        "tracked entries after {step}"
    );
    assert_eq!(tracked.skipped, full.skipped, "tracked skips after {step}");
}

fn seed(root: &Path) {
    write(root, ".gitignore", b"*.log\nbuild/\n");
    write(root, "src/app.py", b"import util\n");
    write(root, "src/util.py", b"x = 1\n");
    write(root, "src/deep/mod.py", b"y = 2\n");
    write(root, "docs/readme.md", b"# docs\n");
    write(root, "logo.png", b"\x89PNG");
    write(root, "big.txt", &[b'x'; 100]);
    write(root, "build/out.py", b"z = 3\n");
}

/// A seeded tree in a temporary directory and its watched source, listed once.
fn seeded_and_listed() -> (tempfile::TempDir, Watched) {
    let dir = tempfile::tempdir().unwrap();
    seed(dir.path());
    let source = watched(dir.path());
    assert_same(&source, dir.path(), "the first listing");
    (dir, source)
}

#[test]
fn edits_additions_and_deletions_are_listed_by_difference() {
    let (dir, source) = seeded_and_listed();
    let root = dir.path();
    if cfg!(target_os = "linux") {
        assert!(
            source.is_watching(),
            "a plain tree on a local file system is watched"
        );
    }
    write(root, "src/util.py", b"x = 11\n");
    assert_same(&source, root, "an edit");
    write(root, "src/new.py", b"n = 1\n");
    assert_same(&source, root, "a new file");
    fs::remove_file(root.join("src/app.py")).unwrap();
    assert_same(&source, root, "a deletion");
    fs::rename(root.join("src/new.py"), root.join("src/deep/moved.py")).unwrap();
    assert_same(&source, root, "a rename into another directory");
    write(root, "src/debug.log", b"ignored\n");
    assert_same(&source, root, "an ignored file");
    write(root, "src/util.py", &[b'y'; 100]);
    assert_same(&source, root, "a file grown over the cap");
    write(root, "src/util.py", b"small again\n");
    assert_same(&source, root, "a file back under the cap");
    write(root, "src/shot.png", b"\x89PNG");
    assert_same(&source, root, "a new binary");
    assert_same(&source, root, "nothing");
    if cfg!(target_os = "linux") {
        assert!(source.is_watching(), "no change so far needed a full walk");
        assert_eq!(
            source.by_changes(),
            9,
            "every listing after the first by changes"
        );
    }
}

#[test]
fn changes_that_need_a_walk_are_walked() {
    let (dir, source) = seeded_and_listed();
    let root = dir.path();
    write(root, "lib/fresh/a.py", b"a = 1\n");
    assert_same(&source, root, "new directories");
    write(root, "lib/fresh/b.py", b"b = 1\n");
    assert_same(&source, root, "a file in a directory created since");
    write(root, ".gitignore", b"*.log\n");
    assert_same(&source, root, "an ignore file that un-ignores a directory");
    write(root, "src/.ignore", b"util.py\n");
    assert_same(&source, root, "a new nested ignore file");
    fs::remove_dir_all(root.join("src/deep")).unwrap();
    assert_same(&source, root, "a directory deleted");
    fs::create_dir_all(root.join(".git/info")).unwrap();
    assert_same(&source, root, "a repository created");
    write(root, ".git/info/exclude", b"docs/\n");
    assert_same(&source, root, "an exclude file");
}

#[cfg(unix)]
#[test]
fn trees_with_links_are_walked_every_time() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    seed(root);
    std::os::unix::fs::symlink(root.join("src"), root.join("alias")).unwrap();
    let source = watched(root);
    assert_same(&source, root, "the first listing");
    assert!(
        !source.is_watching(),
        "a link's target changes under two names"
    );
    write(root, "src/util.py", b"changed\n");
    assert_same(&source, root, "an edit seen through the link");

    // A link made after the first listing (found by `make fuzz`, watch_listing).
    let (dir, source) = seeded_and_listed();
    let root = dir.path();
    std::os::unix::fs::symlink(root.join("src"), root.join("later")).unwrap();
    assert_same(&source, root, "a link to a directory added");
    assert!(!source.is_watching(), "a link added ends the watch");

    let (dir, source) = seeded_and_listed();
    let root = dir.path();
    fs::hard_link(root.join("src/util.py"), root.join("docs/util.py")).unwrap();
    assert_same(&source, root, "a hard link added");
    assert!(
        !source.is_watching(),
        "a hard-linked file changes under two names"
    );
    write(root, "src/util.py", b"changed through one name\n");
    assert_same(&source, root, "an edit through one of two names");
}

/// One change to the tree, drawn by the property test.
#[derive(Debug, Clone)]
enum Change {
    Write { file: usize, size: usize },
    Delete { file: usize },
    Rename { from: usize, to: usize },
    Ignore { pattern: usize },
}

const NAMES: &[&str] = &[
    "a.py",
    "b.log",
    "c.png",
    "src/d.py",
    "src/e.log",
    "src/sub/f.py",
    "src/sub/g.txt",
    "build/h.py",
    "new/i.py",
    "new/deeper/j.py",
];

const PATTERNS: &[&str] = &[
    "",
    "*.log\n",
    "src/sub/\n",
    "build/\n*.txt\n",
    "!b.log\n*.py\n",
];

fn change() -> impl Strategy<Value = Change> {
    let file = 0..NAMES.len();
    prop_oneof![
        4 => (file.clone(), 0usize..100).prop_map(|(file, size)| Change::Write { file, size }),
        2 => file.clone().prop_map(|file| Change::Delete { file }),
        1 => (file.clone(), file).prop_map(|(from, to)| Change::Rename { from, to }),
        1 => (0..PATTERNS.len()).prop_map(|pattern| Change::Ignore { pattern }),
    ]
}

fn apply(root: &Path, change: &Change) {
    match change {
        Change::Write { file, size } => write(root, NAMES[*file], &vec![b'q'; *size]),
        Change::Delete { file } => {
            let _ = fs::remove_file(root.join(NAMES[*file]));
        }
        Change::Rename { from, to } => {
            let target = root.join(NAMES[*to]);
            fs::create_dir_all(target.parent().unwrap()).unwrap();
            let _ = fs::rename(root.join(NAMES[*from]), target);
        }
        Change::Ignore { pattern } => write(root, ".gitignore", PATTERNS[*pattern].as_bytes()),
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 48, ..ProptestConfig::default() })]

    /// After any sequence of changes, listed after each or after several at once,
    /// the listing by difference is the full walk's.
    #[test]
    fn any_changes_list_as_a_full_walk(
        rounds in prop::collection::vec(prop::collection::vec(change(), 1..4), 1..8)
    ) {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        seed(root);
        let source = watched(root);
        prop_assert_eq!(source.list().unwrap().entries, walked(root).entries);
        for (i, round) in rounds.iter().enumerate() {
            for change in round {
                apply(root, change);
            }
            // The consumer of changes lists before or after the plain listing.
            let tracked_first = i % 2 == 0;
            let tracked = tracked_first.then(|| source.tracked_listing());
            let by_difference = source.list().unwrap();
            let tracked = tracked.unwrap_or_else(|| source.tracked_listing());
            let full = walked(root);
            prop_assert_eq!(&by_difference.entries, &full.entries, "round {}: {:?}", i, round);
            prop_assert_eq!(&by_difference.skipped, &full.skipped, "round {}: {:?}", i, round);
            prop_assert_eq!(&tracked.entries, &full.entries, "tracked, round {}: {:?}", i, round);
            prop_assert_eq!(&tracked.skipped, &full.skipped, "tracked, round {}: {:?}", i, round);
        }
    }
}
