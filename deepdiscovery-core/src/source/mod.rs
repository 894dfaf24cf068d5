//! Where artifacts come from: the [`RepoSource`] trait and its two built-in sources.
//!
//! All I/O of the library goes through this trait, so the algorithms run the same on a
//! checkout on disk ([`FsSource`]), on files held in memory ([`MemorySource`]), or on
//! whatever a caller plugs in (a VFS, a git tree, an editor's unsaved buffers).

mod content;
mod fs;
mod history;
mod memory;
mod watch;

pub(crate) use content::{Content, content_hash};

pub use fs::{FsSource, FsSourceBuilder};
#[doc(hidden)]
pub use history::check_log_window;
pub use history::{Commit, History, HistoryCut, HistoryOptions};
pub use memory::MemorySource;

use serde::Serialize;
use std::collections::BTreeMap;

use crate::Result;

/// Ignore files larger than this are not compiled (each line is a glob: a crafted
/// 20 MB `.gitignore` costs the `ignore` crate most of a minute and gigabytes).
pub const MAX_IGNORE_FILE_SIZE: u64 = 256 * 1024;

/// Default cap on the size of one artifact: bigger files are skipped and counted.
pub const DEFAULT_MAX_FILE_SIZE: u64 = 1024 * 1024;

/// How a source tells whether an artifact changed since it was last seen.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
pub enum Stamp {
    /// A file on disk (disk sources): its modification time in nanoseconds since the
    /// Unix epoch and its file id (the inode on Unix, 0 where the platform has none),
    /// so that a file replaced by another of the same size and time is seen to change.
    Modified {
        /// Modification time, nanoseconds since the Unix epoch (0: unknown).
        nanos: u128,
        /// The inode number on Unix, 0 elsewhere.
        inode: u64,
    },
    /// A content hash (sources that hold the bytes, or have no reliable clock).
    Content(u64),
}

/// One artifact as listed by a source: its repository-relative path and change stamp.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Entry {
    /// Path relative to the repository root, with `/` separators and no leading `./`.
    pub path: String,
    /// Size in bytes.
    pub size: u64,
    /// What changes when the content changes.
    pub stamp: Stamp,
}

/// Why a source or a reader left a file out.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
#[non_exhaustive]
pub enum SkipReason {
    /// Binary content (by extension when listing, by a NUL byte when reading).
    Binary,
    /// Larger than the configured size cap.
    TooLarge,
    /// A symbolic link that points outside the repository root.
    OutsideRoot,
    /// A symbolic link loop, or a link to nothing.
    BrokenLink,
    /// The file or directory could not be read.
    Unreadable,
    /// A path that is not valid UTF-8.
    NonUtf8Path,
    /// Not left out but cut short: a work limit (nesting depth, parser or query
    /// steps) stopped the reading of its facts; the file is kept with what was read
    /// before the limit and its metadata.
    WorkLimit,
    /// An ignore file (`.gitignore`, `.ignore`, `.git/info/exclude`) over
    /// [`MAX_IGNORE_FILE_SIZE`], too large to honor within bounded work: at the root
    /// the walk goes on without ignore files; below it the directory it governs is left
    /// out.
    IgnoreFileTooLarge,
}

/// Counts of skipped files by reason, with a few example paths of each.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct SkipStats {
    /// Number of files skipped, by reason.
    pub counts: BTreeMap<SkipReason, usize>,
    /// Up to [`SkipStats::MAX_EXAMPLES`] example paths per reason, in sorted order.
    pub examples: BTreeMap<SkipReason, Vec<String>>,
}

impl SkipStats {
    /// How many example paths are kept per reason.
    pub const MAX_EXAMPLES: usize = 5;

    /// Records one skipped path.
    pub fn record(&mut self, reason: SkipReason, path: impl Into<String>) {
        *self.counts.entry(reason).or_default() += 1;
        let examples = self.examples.entry(reason).or_default();
        let path = path.into();
        if examples.len() < Self::MAX_EXAMPLES {
            examples.push(path);
            examples.sort();
        } else if examples.last().is_some_and(|last| path < *last) {
            examples.pop();
            examples.push(path);
            examples.sort();
        }
    }

    /// Adds every count and example of `other` to `self`.
    pub fn merge(&mut self, other: &SkipStats) {
        for (reason, paths) in &other.examples {
            for p in paths {
                self.record(*reason, p.clone());
            }
            let extra = other.counts[reason].saturating_sub(paths.len());
            *self.counts.entry(*reason).or_default() += extra;
        }
    }

    /// Total number of skipped files.
    pub fn total(&self) -> usize {
        self.counts.values().sum()
    }

    /// Number of files skipped for `reason`.
    pub fn count(&self, reason: SkipReason) -> usize {
        self.counts.get(&reason).copied().unwrap_or(0)
    }
}

/// What a source lists: its artifacts in path order, and what it left out.
#[derive(Debug, Clone, Default)]
pub struct Listing {
    /// Artifacts, sorted by path, without duplicates.
    pub entries: Vec<Entry>,
    /// Files that were seen but left out, by reason.
    pub skipped: SkipStats,
}

/// What changed in a source's listing since an earlier listing of the same source
/// (see [`RepoSource::list_changes`]): applied to that listing, the listing now.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ListingChanges {
    /// Entries listed now that are new or may have changed since, in path order.
    pub changed: Vec<Entry>,
    /// Paths not listed now that may have been listed then, in path order.
    pub removed: Vec<String>,
    /// Every file left out now, as [`Listing::skipped`] would say.
    pub skipped: SkipStats,
}

/// A listing as a source gives it: whole, or as its changes since an earlier one.
#[derive(Debug, Clone)]
pub enum ListingUpdate {
    /// The whole listing.
    Whole(Listing),
    /// The changes since the listing asked about.
    Changes(ListingChanges),
}

/// A repository: something that lists artifacts and reads their bytes.
///
/// Implementations must be deterministic (the same state lists the same entries in
/// the same order) and must never give access to anything outside the repository.
pub trait RepoSource: Send + Sync {
    /// A short label for messages (a root path, `"memory"`, …).
    fn label(&self) -> String;

    /// Lists every artifact, sorted by path.
    fn list(&self) -> Result<Listing>;

    /// Reads the bytes of one listed artifact.
    fn read(&self, path: &str) -> Result<Vec<u8>>;

    /// The listing, with a mark of it for the next call: when `since` is a mark this
    /// source gave, a source that can gives only what changed since that listing
    /// ([`ListingUpdate::Changes`]), which must be exactly the difference between it
    /// and what [`RepoSource::list`] would give now. A watched directory lists a
    /// million files this way in the time of its changes. The default lists whole
    /// and gives no mark.
    ///
    /// # Errors
    /// As [`RepoSource::list`].
    fn list_changes(&self, since: Option<u64>) -> Result<(ListingUpdate, Option<u64>)> {
        let _ = since;
        Ok((ListingUpdate::Whole(self.list()?), None))
    }

    /// A name for the files this source reads that other processes give the same
    /// source (a directory's canonical path), or `None` (the default) when there is
    /// none. A session with an on-disk cache keeps, under this name, the content hash
    /// of each file it read with the listing entry the file had then, so that a later
    /// process proves a file unchanged from its listing entry alone (see
    /// [`crate::cache`]). Only for sources whose [`Stamp`]s change whenever the
    /// content does.
    fn identity(&self) -> Option<String> {
        None
    }

    /// The id of the commit the history would be read from (HEAD), or `None` when
    /// the source has no history. Called on every query to tell whether a cached
    /// [`History`] is still current, so it must be cheap. The default has none.
    ///
    /// # Errors
    /// Reserved for sources that can fail; a source without history answers `Ok(None)`.
    fn history_head(&self) -> Result<Option<String>> {
        Ok(None)
    }

    /// The commits that are ancestors of the checked-out commit, newest first, with
    /// the paths each changed, relative to the root like [`RepoSource::list`]'s.
    /// Never other branches, never commits after HEAD. `None` when the source has no
    /// history (the default: a source in memory, a directory outside any work tree).
    ///
    /// # Errors
    /// Reserved for sources that can fail; a source without history answers `Ok(None)`.
    fn history(&self, options: &HistoryOptions) -> Result<Option<History>> {
        let _ = options;
        Ok(None)
    }

    /// [`RepoSource::history`] when `known`, a history this source gave before with
    /// the same `options`, may be a prefix of the current one (HEAD moved forward):
    /// a source that can reads only the commits added since, and must give exactly
    /// what [`RepoSource::history`] would. The default reads it afresh.
    ///
    /// # Errors
    /// As [`RepoSource::history`].
    fn history_after(&self, options: &HistoryOptions, known: &History) -> Result<Option<History>> {
        let _ = known;
        self.history(options)
    }
}

/// Extensions whose files are never text worth reading.
const BINARY_EXTENSIONS: &[&str] = &[
    "png", "jpg", "jpeg", "gif", "bmp", "ico", "icns", "webp", "tif", "tiff", "psd", "pdf", "zip",
    "gz", "tgz", "bz2", "xz", "zst", "7z", "rar", "tar", "jar", "war", "ear", "class", "so",
    "dylib", "dll", "exe", "o", "a", "lib", "obj", "pyc", "pyo", "pyd", "whl", "egg", "wasm",
    "mp3", "mp4", "wav", "ogg", "flac", "avi", "mov", "mkv", "webm", "ttf", "otf", "woff", "woff2",
    "eot", "db", "sqlite", "sqlite3", "bin", "dat", "npy", "npz", "pkl", "pickle", "h5", "hdf5",
    "parquet", "onnx", "pt", "pth", "ckpt", "mo", "keystore", "jks", "p12", "der", "dmg", "iso",
    "deb", "rpm", "apk", "aab", "ipa", "xcf", "blend", "fbx", "glb", "swf",
];

/// True when the path's extension marks a binary file.
pub fn has_binary_extension(path: &str) -> bool {
    let name = path.rsplit('/').next().unwrap_or(path);
    match name.rsplit_once('.') {
        Some((stem, ext)) if !stem.is_empty() => {
            let ext = ext.to_ascii_lowercase();
            BINARY_EXTENSIONS.contains(&ext.as_str())
        }
        _ => false,
    }
}

/// True when the bytes look binary: a NUL byte in the first 8 KiB (git's heuristic).
pub fn looks_binary(bytes: &[u8]) -> bool {
    memchr::memchr(0, &bytes[..bytes.len().min(8192)]).is_some()
}

/// Checks that a repository-relative path is well formed and stays inside the root.
pub fn validate_relative(path: &str) -> Result<()> {
    let bad = path.is_empty()
        || path.starts_with('/')
        || path.contains('\\')
        || path.contains('\0')
        || path
            .split('/')
            .any(|c| c.is_empty() || c == "." || c == "..");
    if bad {
        Err(crate::Error::NoSuchArtifact(path.to_string()))
    } else {
        Ok(())
    }
}
