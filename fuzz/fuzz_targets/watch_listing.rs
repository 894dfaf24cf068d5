//! The listing by difference of a watched `FsSource` (inotify on Linux) against a
//! full walk: the fuzz input is a script of changes to a small tree (files written,
//! grown over the size cap, deleted and renamed; directories made, removed and
//! renamed; ignore files and `.git/info/exclude` rewritten; symbolic and hard links;
//! names that are not UTF-8), cut into rounds. After each round the watched source
//! must list exactly what a fresh, unwatched source lists, entries and skips; and so
//! must a consumer that keeps the listing by the changes since its last mark.
#![no_main]

use std::collections::BTreeMap;
use std::fs;
use std::path::{Path, PathBuf};

use deepdiscovery_core::source::{Entry, FsSource, ListingUpdate, RepoSource, SkipStats};
use libfuzzer_sys::fuzz_target;

/// Where changes land: a few names at a few depths.
const NAMES: &[&str] = &[
    "a.py",
    "b.log",
    "c.png",
    "src/d.py",
    "src/e.txt",
    "src/sub/f.py",
    "src/sub/g.rs",
    "build/h.py",
    "docs/i.md",
    "new/deep/j.py",
    ".hidden/k.py",
    "src/.gitignore",
];

const DIRS: &[&str] = &[
    "src", "src/sub", "build", "docs", "new", "new/deep", "other",
];

const PATTERNS: &[&str] = &[
    "",
    "*.log\n",
    "build/\n",
    "src/sub/\n*.txt\n",
    "!b.log\n*.py\n",
    "docs\n",
    "/a.py\n",
];

fn write(root: &Path, rel: &str, bytes: &[u8]) {
    let path = root.join(rel);
    if let Some(parent) = path.parent() {
        let _ = fs::create_dir_all(parent);
    }
    let _ = fs::write(path, bytes);
}

/// Applies the change coded by `op` and `arg`.
fn apply(root: &Path, op: u8, arg: u8) {
    let name = NAMES[arg as usize % NAMES.len()];
    let other = NAMES[(arg as usize / NAMES.len()) % NAMES.len()];
    let dir = DIRS[arg as usize % DIRS.len()];
    let pattern = PATTERNS[arg as usize % PATTERNS.len()];
    match op % 12 {
        0 | 1 => write(root, name, &vec![b'x'; (arg as usize % 7) * 4]),
        2 => write(root, name, &vec![b'y'; 200]), // over the cap
        3 => {
            let _ = fs::remove_file(root.join(name));
        }
        4 => {
            let target = root.join(other);
            if let Some(parent) = target.parent() {
                let _ = fs::create_dir_all(parent);
            }
            let _ = fs::rename(root.join(name), target);
        }
        5 => {
            let _ = fs::create_dir_all(root.join(dir));
        }
        6 => {
            let _ = fs::remove_dir_all(root.join(dir));
        }
        7 => {
            let _ = fs::rename(root.join(dir), root.join(format!("{dir}_moved")));
        }
        8 => write(root, ".gitignore", pattern.as_bytes()),
        9 => write(root, ".git/info/exclude", pattern.as_bytes()),
        10 => {
            #[cfg(unix)]
            {
                let _ = std::os::unix::fs::symlink(root.join(dir), root.join(format!("link{arg}")));
                let _ = fs::hard_link(root.join(name), root.join(format!("hard{arg}.py")));
            }
        }
        _ => {
            #[cfg(unix)]
            {
                use std::os::unix::ffi::OsStrExt;
                let odd = std::ffi::OsStr::from_bytes(&[b'n', 0xff, b'.', b'p', b'y']);
                let _ = fs::write(root.join(dir).join(odd), b"odd");
            }
        }
    }
}

/// Brings a consumer's listing up to date with the changes since its mark; the
/// skips the source reports.
fn track(
    watched: &FsSource,
    mark: &mut Option<u64>,
    tracked: &mut BTreeMap<String, Entry>,
) -> SkipStats {
    let (update, next) = watched.list_changes(*mark).expect("listing");
    *mark = next;
    match update {
        ListingUpdate::Whole(listing) => {
            *tracked = (listing.entries.into_iter())
                .map(|e| (e.path.clone(), e))
                .collect();
            listing.skipped
        }
        ListingUpdate::Changes(changes) => {
            for path in &changes.removed {
                tracked.remove(path);
            }
            for entry in changes.changed {
                tracked.insert(entry.path.clone(), entry);
            }
            changes.skipped
        }
    }
}

fn source(root: &PathBuf, watch: bool) -> FsSource {
    FsSource::builder(root)
        .max_file_size(64)
        .watch(watch)
        .build()
        .expect("the root exists")
}

fuzz_target!(|data: &[u8]| {
    let dir = tempfile::tempdir().expect("temp dir");
    let root = dir.path().to_path_buf();
    write(&root, "src/d.py", b"d");
    write(&root, "docs/i.md", b"i");
    let watched = source(&root, true);
    let _ = watched.list();
    // A consumer keeping the listing by the changes since its last mark (as a
    // session does), listing before the plain listing in even rounds, after in odd.
    let (mut mark, mut tracked) = (None, BTreeMap::new());
    // Rounds of up to four changes: a byte 0xFF ends a round early.
    for (i, round) in data.chunks(8).take(16).enumerate() {
        for pair in round.chunks(2) {
            if pair[0] == 0xFF {
                break;
            }
            apply(&root, pair[0], pair.get(1).copied().unwrap_or(0));
        }
        let skipped = (i % 2 == 0).then(|| track(&watched, &mut mark, &mut tracked));
        let by_difference = watched.list().expect("listing");
        let skipped = skipped.unwrap_or_else(|| track(&watched, &mut mark, &mut tracked));
        let full = source(&root, false).list().expect("listing");
        assert_eq!(by_difference.entries, full.entries);
        assert_eq!(by_difference.skipped, full.skipped);
        let entries: Vec<_> = tracked.values().cloned().collect();
        assert_eq!(entries, full.entries);
        assert_eq!(skipped, full.skipped);
    }
});
