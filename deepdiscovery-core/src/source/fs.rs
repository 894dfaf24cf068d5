//! A repository on disk, walked with the `ignore` crate (the walker behind ripgrep).

use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::time::UNIX_EPOCH;

use ignore::{WalkBuilder, WalkState};

use super::history::{History, HistoryOptions, git_head, read_git_history};
use super::{
    DEFAULT_MAX_FILE_SIZE, Entry, Listing, MAX_IGNORE_FILE_SIZE, RepoSource, SkipReason, SkipStats,
    Stamp, has_binary_extension, validate_relative,
};
use crate::sync::lock;
use crate::{Error, Result};

/// Version-control metadata directories that are never part of the repository's content.
const VCS_DIRS: &[&str] = &[".git", ".hg", ".svn", ".bzr", ".jj"];

/// The ignore files the walk reads in every directory.
const IGNORE_FILES: &[&str] = &[".gitignore", ".ignore"];

/// The ignore files of `dir` (and, at the root, `.git/info/exclude`) that are over
/// [`MAX_IGNORE_FILE_SIZE`].
fn oversized_ignore_files(dir: &Path, root: bool) -> Vec<PathBuf> {
    let exclude = root.then(|| dir.join(".git/info/exclude"));
    IGNORE_FILES
        .iter()
        .map(|name| dir.join(name))
        .chain(exclude)
        .filter(|path| {
            std::fs::metadata(path).is_ok_and(|m| m.is_file() && m.len() > MAX_IGNORE_FILE_SIZE)
        })
        .collect()
}

/// A repository checked out on disk.
///
/// The walk honours `.gitignore`, `.ignore` and `.git/info/exclude` (also outside a git
/// work tree), lists hidden files (`.env`, `.github/…` matter for configuration) but
/// never the VCS directories, follows symbolic links only while they stay inside the
/// root, and skips binaries and files over the size cap, counting each skip. When the
/// root is inside a git work tree, it also offers the history of HEAD
/// ([`RepoSource::history`]).
#[derive(Debug, Clone)]
pub struct FsSource {
    root: PathBuf,
    canonical_root: PathBuf,
    max_file_size: u64,
    honor_ignore_files: bool,
}

/// Builder for [`FsSource`]; validates the root in [`FsSourceBuilder::build`].
#[derive(Debug, Clone)]
pub struct FsSourceBuilder {
    root: PathBuf,
    max_file_size: u64,
    honor_ignore_files: bool,
}

impl FsSourceBuilder {
    /// Sets the size cap in bytes (default [`DEFAULT_MAX_FILE_SIZE`], 1 MiB).
    pub fn max_file_size(mut self, bytes: u64) -> Self {
        self.max_file_size = bytes;
        self
    }

    /// Whether `.gitignore`/`.ignore` files are honoured (default true).
    pub fn honor_ignore_files(mut self, yes: bool) -> Self {
        self.honor_ignore_files = yes;
        self
    }

    /// Checks the root and builds the source.
    ///
    /// # Errors
    /// [`Error::RootNotFound`], [`Error::RootNotDirectory`], or [`Error::Io`] when the
    /// root cannot be resolved.
    pub fn build(self) -> Result<FsSource> {
        let meta = match std::fs::metadata(&self.root) {
            Ok(meta) => meta,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
                return Err(Error::RootNotFound(self.root));
            }
            Err(e) => return Err(Error::io(self.root, e)),
        };
        if !meta.is_dir() {
            return Err(Error::RootNotDirectory(self.root));
        }
        let canonical_root =
            std::fs::canonicalize(&self.root).map_err(|e| Error::io(self.root.clone(), e))?;
        std::fs::read_dir(&canonical_root).map_err(|e| Error::io(self.root.clone(), e))?;
        Ok(FsSource {
            root: self.root,
            canonical_root,
            max_file_size: self.max_file_size,
            honor_ignore_files: self.honor_ignore_files,
        })
    }
}

impl FsSource {
    /// A source on `root` with default settings.
    ///
    /// # Errors
    /// See [`FsSourceBuilder::build`].
    pub fn new(root: impl Into<PathBuf>) -> Result<Self> {
        Self::builder(root).build()
    }

    /// A builder to change the defaults.
    pub fn builder(root: impl Into<PathBuf>) -> FsSourceBuilder {
        FsSourceBuilder {
            root: root.into(),
            max_file_size: DEFAULT_MAX_FILE_SIZE,
            honor_ignore_files: true,
        }
    }

    /// The root as given.
    pub fn root(&self) -> &Path {
        &self.root
    }

    /// The size cap in bytes.
    pub fn max_file_size(&self) -> u64 {
        self.max_file_size
    }

    fn relative(&self, path: &Path) -> Option<String> {
        let rel = path
            .strip_prefix(&self.canonical_root)
            .or_else(|_| path.strip_prefix(&self.root))
            .ok()?;
        let mut out = String::new();
        for part in rel.components() {
            let part = part.as_os_str().to_str()?;
            if !out.is_empty() {
                out.push('/');
            }
            out.push_str(part);
        }
        Some(out)
    }

    /// The listing entry of one walked item, or why it is skipped (`None`: not a
    /// file).
    fn entry_of(
        &self,
        item: std::result::Result<ignore::DirEntry, ignore::Error>,
    ) -> Option<std::result::Result<Entry, (SkipReason, String)>> {
        let entry = match item {
            Ok(entry) => entry,
            Err(err) => {
                let path = error_path(&err);
                let is_link = path
                    .and_then(|p| std::fs::symlink_metadata(p).ok())
                    .is_some_and(|m| m.file_type().is_symlink());
                let reason = if is_loop(&err) || is_link {
                    SkipReason::BrokenLink
                } else {
                    SkipReason::Unreadable
                };
                let shown = path
                    .and_then(|p| self.relative(p))
                    .unwrap_or_else(|| err.to_string());
                return Some(Err((reason, shown)));
            }
        };
        if !entry.file_type().is_some_and(|t| t.is_file()) {
            return None;
        }
        let Some(rel) = self.relative(entry.path()) else {
            return Some(Err((
                SkipReason::NonUtf8Path,
                entry.path().to_string_lossy().into_owned(),
            )));
        };
        if has_binary_extension(&rel) {
            return Some(Err((SkipReason::Binary, rel)));
        }
        let meta = match entry.metadata() {
            Ok(meta) => meta,
            Err(_) => {
                return Some(Err((SkipReason::Unreadable, rel)));
            }
        };
        if meta.len() > self.max_file_size {
            return Some(Err((SkipReason::TooLarge, rel)));
        }
        let mtime = meta
            .modified()
            .ok()
            .and_then(|t| t.duration_since(UNIX_EPOCH).ok())
            .map(|d| d.as_nanos())
            .unwrap_or(0);
        Some(Ok(Entry {
            path: rel,
            size: meta.len(),
            stamp: Stamp::Modified {
                nanos: mtime,
                inode: inode_of(&meta),
            },
        }))
    }
}

impl RepoSource for FsSource {
    fn label(&self) -> String {
        self.root.display().to_string()
    }

    fn list(&self) -> Result<Listing> {
        let mut root_skips = SkipStats::default();
        let mut honor = self.honor_ignore_files;
        if honor {
            for path in oversized_ignore_files(&self.canonical_root, true) {
                honor = false;
                let shown = self.relative(&path).unwrap_or_default();
                root_skips.record(SkipReason::IgnoreFileTooLarge, shown);
            }
        }
        let skipped = Arc::new(Mutex::new(root_skips));
        let filter_skips = Arc::clone(&skipped);
        let canonical_root = self.canonical_root.clone();
        let walker = WalkBuilder::new(&self.canonical_root)
            .hidden(false)
            .parents(false)
            .ignore(honor)
            .git_ignore(honor)
            .git_exclude(honor)
            .git_global(false)
            .require_git(false)
            .follow_links(true)
            .sort_by_file_name(|a, b| a.cmp(b))
            .filter_entry(move |entry| {
                if entry.depth() > 0 && entry.file_type().is_some_and(|t| t.is_dir()) {
                    let name = entry.file_name().to_str().unwrap_or("");
                    if VCS_DIRS.contains(&name) {
                        return false;
                    }
                    // The walker would compile the directory's ignore files on entering
                    // it: one too large to compile leaves the directory out.
                    let oversized = if honor {
                        oversized_ignore_files(entry.path(), false)
                    } else {
                        Vec::new()
                    };
                    if !oversized.is_empty() {
                        if let Ok(mut stats) = filter_skips.lock() {
                            for path in oversized {
                                let shown = path.strip_prefix(&canonical_root).unwrap_or(&path);
                                stats.record(
                                    SkipReason::IgnoreFileTooLarge,
                                    shown.to_string_lossy().replace('\\', "/"),
                                );
                            }
                        }
                        return false;
                    }
                }
                if !entry.path_is_symlink() {
                    return true;
                }
                let reason = match std::fs::canonicalize(entry.path()) {
                    Ok(target) if target.starts_with(&canonical_root) => return true,
                    Ok(_) => SkipReason::OutsideRoot,
                    Err(_) => SkipReason::BrokenLink,
                };
                let shown = entry
                    .path()
                    .strip_prefix(&canonical_root)
                    .unwrap_or(entry.path());
                if let Ok(mut stats) = filter_skips.lock() {
                    stats.record(reason, shown.to_string_lossy().replace('\\', "/"));
                }
                false
            })
            .build_parallel();

        // Directories are read and files stat'ed on every core; the order is
        // restored by the sort below.
        let entries = Mutex::new(Vec::new());
        let local = Mutex::new(SkipStats::default());
        walker.run(|| {
            Box::new(|item| {
                match self.entry_of(item) {
                    Some(Ok(entry)) => lock(&entries).push(entry),
                    Some(Err((reason, path))) => lock(&local).record(reason, path),
                    None => {}
                }
                WalkState::Continue
            })
        });
        let mut entries = entries.into_inner().unwrap_or_else(|e| e.into_inner());
        let local = local.into_inner().unwrap_or_else(|e| e.into_inner());
        entries.sort_by(|a, b| a.path.cmp(&b.path));
        entries.dedup_by(|a, b| a.path == b.path);
        let mut skipped = skipped.lock().map(|s| s.clone()).unwrap_or_default();
        skipped.merge(&local);
        Ok(Listing { entries, skipped })
    }

    fn read(&self, path: &str) -> Result<Vec<u8>> {
        validate_relative(path)?;
        let full = self.canonical_root.join(path);
        let target = std::fs::canonicalize(&full).map_err(|e| Error::io(&full, e))?;
        if !target.starts_with(&self.canonical_root) {
            return Err(Error::NoSuchArtifact(path.to_string()));
        }
        std::fs::read(&target).map_err(|e| Error::io(&full, e))
    }

    /// The canonical root: the same directory gives the same identity in every
    /// process, whatever path it was opened by.
    fn identity(&self) -> Option<String> {
        self.canonical_root
            .to_str()
            .map(|root| format!("fs:{root}"))
    }

    /// HEAD of the git work tree the root is in (one `git rev-parse`).
    fn history_head(&self) -> Result<Option<String>> {
        Ok(git_head(&self.canonical_root))
    }

    /// Read with the `git` program on PATH (see [`History`] for why the CLI): the
    /// ancestors of HEAD touching paths under the root, relative to it. Without git,
    /// outside a work tree, or on any git error: `Ok(None)`.
    fn history(&self, options: &HistoryOptions) -> Result<Option<History>> {
        Ok(read_git_history(&self.canonical_root, options))
    }
}

/// The file's inode (0 where the platform has none).
fn inode_of(meta: &std::fs::Metadata) -> u64 {
    #[cfg(unix)]
    {
        std::os::unix::fs::MetadataExt::ino(meta)
    }
    #[cfg(not(unix))]
    {
        let _ = meta;
        0
    }
}

fn is_loop(err: &ignore::Error) -> bool {
    match err {
        ignore::Error::Loop { .. } => true,
        ignore::Error::WithPath { err, .. }
        | ignore::Error::WithDepth { err, .. }
        | ignore::Error::WithLineNumber { err, .. } => is_loop(err),
        ignore::Error::Partial(errs) => errs.iter().any(is_loop),
        _ => false,
    }
}

/// The path an ignore error is about, when it says.
fn error_path(err: &ignore::Error) -> Option<&Path> {
    match err {
        ignore::Error::WithPath { path, .. } => Some(path),
        ignore::Error::Loop { child, .. } => Some(child),
        ignore::Error::WithDepth { err, .. } | ignore::Error::WithLineNumber { err, .. } => {
            error_path(err)
        }
        _ => None,
    }
}
