//! A repository on disk, walked with the `ignore` crate (the walker behind ripgrep).

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::UNIX_EPOCH;

use ignore::{WalkBuilder, WalkState};

use super::history::{History, HistoryOptions, extend_git_history, git_head, read_git_history};
use super::watch::{FileOutcome, Kept, Walked, Watcher};
use super::{
    DEFAULT_MAX_FILE_SIZE, Entry, Listing, ListingUpdate, MAX_IGNORE_FILE_SIZE, RepoSource,
    SkipReason, SkipStats, Stamp, has_binary_extension, validate_relative,
};
use crate::resolve::{is_in_dir, parent_dir};
use crate::sync::lock;
use crate::{Error, Result};

/// Version-control metadata directories that are never part of the repository's content.
const VCS_DIRS: &[&str] = &[".git", ".hg", ".svn", ".bzr", ".jj"];

/// The ignore files the walk reads in every directory.
const IGNORE_FILES: &[&str] = &[".gitignore", ".ignore"];

/// Whether a file of this name changes what the walk ignores.
pub(super) fn is_ignore_file(name: &str) -> bool {
    IGNORE_FILES.contains(&name)
}

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
///
/// Built with [`FsSourceBuilder::watch`], it lists by difference on Linux (see
/// [`FsSource::list`]). Clones share the watch.
#[derive(Debug, Clone)]
pub struct FsSource {
    root: PathBuf,
    canonical_root: PathBuf,
    max_file_size: u64,
    honor_ignore_files: bool,
    watcher: Option<Arc<Mutex<Watcher>>>,
}

/// Builder for [`FsSource`]; validates the root in [`FsSourceBuilder::build`].
#[derive(Debug, Clone)]
pub struct FsSourceBuilder {
    root: PathBuf,
    max_file_size: u64,
    honor_ignore_files: bool,
    watch: bool,
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

    /// Whether to watch the tree for changes (default false), for long-lived
    /// processes that list the same repository again and again (an MCP server, a
    /// notebook): on Linux, a listing after the first re-states only the paths the
    /// kernel reported as changed, instead of every file, and lists exactly what a
    /// full walk would. Costs one inotify instance and a watch per directory; where
    /// the platform, a system limit or the tree does not allow it (symbolic links,
    /// hard links, network file systems, over 65,536 directories), every listing is
    /// a full walk, as without it.
    pub fn watch(mut self, yes: bool) -> Self {
        self.watch = yes;
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
            watcher: self.watch.then(Arc::default),
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
            watch: false,
        }
    }

    /// Whether the last listing left the tree watched, so that the next one lists
    /// by difference (see [`FsSourceBuilder::watch`]).
    pub fn is_watching(&self) -> bool {
        self.watcher
            .as_ref()
            .is_some_and(|w| lock_watcher(w).is_watching())
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

    /// What the listing makes of one walked item.
    fn seen(&self, item: std::result::Result<ignore::DirEntry, ignore::Error>, stat: bool) -> Seen {
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
                return Seen::WalkSkip(reason, shown);
            }
        };
        let link = entry.path_is_symlink();
        let kind = entry.file_type();
        if kind.is_some_and(|t| t.is_dir()) {
            return match self.relative(entry.path()) {
                Some(rel) => Seen::Dir(rel, link),
                None => Seen::Other(true),
            };
        }
        if !stat || !kind.is_some_and(|t| t.is_file()) {
            return Seen::Other(link);
        }
        let Some(rel) = self.relative(entry.path()) else {
            let shown = entry.path().to_string_lossy().into_owned();
            return Seen::WalkSkip(SkipReason::NonUtf8Path, shown);
        };
        let (outcome, hard_linked) = self.outcome(rel, || entry.metadata().ok());
        Seen::File(outcome, link || hard_linked)
    }

    /// What the listing makes of the file at `rel`, given its metadata (following
    /// links, read only when the name does not already rule the file out), and
    /// whether it has other names (hard links).
    fn outcome(
        &self,
        rel: String,
        metadata: impl FnOnce() -> Option<std::fs::Metadata>,
    ) -> (FileOutcome, bool) {
        if has_binary_extension(&rel) {
            return (FileOutcome::Skipped(SkipReason::Binary, rel), false);
        }
        let Some(meta) = metadata() else {
            return (FileOutcome::Skipped(SkipReason::Unreadable, rel), false);
        };
        let hard_linked = link_count(&meta) > 1;
        if meta.len() > self.max_file_size {
            return (FileOutcome::Skipped(SkipReason::TooLarge, rel), hard_linked);
        }
        let mtime = meta
            .modified()
            .ok()
            .and_then(|t| t.duration_since(UNIX_EPOCH).ok())
            .map(|d| d.as_nanos())
            .unwrap_or(0);
        let entry = Entry {
            path: rel,
            size: meta.len(),
            stamp: Stamp::Modified {
                nanos: mtime,
                inode: inode_of(&meta),
            },
        };
        (FileOutcome::Listed(entry), hard_linked)
    }

    /// Whether ignore files are honoured on this walk, and the skips of the root's
    /// ignore files that are too large to be.
    fn honor(&self) -> (bool, SkipStats) {
        let mut root_skips = SkipStats::default();
        let mut honor = self.honor_ignore_files;
        if honor {
            for path in oversized_ignore_files(&self.canonical_root, true) {
                honor = false;
                let shown = self.relative(&path).unwrap_or_default();
                root_skips.record(SkipReason::IgnoreFileTooLarge, shown);
            }
        }
        (honor, root_skips)
    }

    /// Walks the tree: every directory, and every file when `stat` (with a `stat`
    /// each). With `scope`, only the files directly in those directories (relative
    /// paths), reached through their ancestors, so that they are ignored or not
    /// exactly as in a full walk.
    fn walk(&self, honor: bool, scope: Option<&BTreeSet<String>>, stat: bool) -> Walked {
        let walk_skips = Arc::new(Mutex::new(SkipStats::default()));
        let links = Arc::new(std::sync::atomic::AtomicBool::new(false));
        let (filter_skips, filter_links) = (Arc::clone(&walk_skips), Arc::clone(&links));
        let canonical_root = self.canonical_root.clone();
        let scope = scope.cloned().map(Arc::new);
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
                // A link anywhere, even outside a scoped walk's directories, makes
                // the tree unwatchable: the watch cannot follow changes through it.
                if entry.path_is_symlink() {
                    filter_links.store(true, std::sync::atomic::Ordering::Relaxed);
                }
                let is_dir = entry.file_type().is_some_and(|t| t.is_dir());
                if entry.depth() > 0
                    && let Some(scope) = &scope
                    && !in_scope(scope, &canonical_root, entry.path(), is_dir)
                {
                    return false;
                }
                if entry.depth() > 0 && is_dir {
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
                        let mut stats = lock(&filter_skips);
                        for path in oversized {
                            let shown = path.strip_prefix(&canonical_root).unwrap_or(&path);
                            stats.record(
                                SkipReason::IgnoreFileTooLarge,
                                shown.to_string_lossy().replace('\\', "/"),
                            );
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
                lock(&filter_skips).record(reason, shown.to_string_lossy().replace('\\', "/"));
                false
            })
            .build_parallel();

        // Directories are read and files stat'ed on every core; the order is
        // restored when the listing is made.
        let walked = Mutex::new(Walked::default());
        walker.run(|| {
            Box::new(|item| {
                let seen = self.seen(item, stat);
                let mut walked = lock(&walked);
                match seen {
                    Seen::File(outcome, unwatchable) => {
                        walked.files.push(outcome);
                        walked.unwatchable |= unwatchable;
                    }
                    Seen::Dir(rel, link) => {
                        walked.dirs.push(rel);
                        walked.unwatchable |= link;
                    }
                    Seen::WalkSkip(reason, path) => walked.walk_skips.record(reason, path),
                    Seen::Other(link) => walked.unwatchable |= link,
                }
                WalkState::Continue
            })
        });
        let mut walked = walked.into_inner().unwrap_or_else(|e| e.into_inner());
        walked.walk_skips.merge(&lock(&walk_skips));
        walked.unwatchable |= links.load(std::sync::atomic::Ordering::Relaxed);
        walked
    }

    /// Patches a listing kept by the watcher with the paths that changed since;
    /// `None` when only a full walk can tell what changed (a link or a directory
    /// where a file was, a skip that is no file's).
    fn patch(&self, kept: &mut Kept, paths: BTreeSet<String>, honor: bool) -> Option<()> {
        // New names: whether they are ignored takes the ignore files of their
        // directory and its ancestors, so their directories are walked again.
        let mut new_dirs = BTreeSet::new();
        for path in paths {
            if !kept.knows(&path) {
                new_dirs.insert(parent_dir(&path).to_string());
                continue;
            }
            match std::fs::symlink_metadata(self.canonical_root.join(&path)) {
                Err(e) if e.kind() == std::io::ErrorKind::NotFound => kept.remove(&path),
                Ok(meta) if meta.file_type().is_symlink() || meta.is_dir() => return None,
                Ok(meta) if !meta.is_file() => kept.remove(&path),
                meta => {
                    let (outcome, hard_linked) = self.outcome(path, || meta.ok());
                    if hard_linked {
                        return None;
                    }
                    kept.set(outcome);
                }
            }
        }
        if !new_dirs.is_empty() {
            let walked = self.walk(honor, Some(&new_dirs), true);
            if walked.unwatchable || walked.walk_skips.total() > 0 {
                return None;
            }
            kept.replace_dirs(&new_dirs, walked.files);
        }
        Some(())
    }
}

/// What the walk met.
enum Seen {
    /// A file, listed or skipped, and whether it has other names (a symbolic or
    /// hard link).
    File(FileOutcome, bool),
    /// A directory, relative to the root, and whether it was reached by a link.
    Dir(String, bool),
    /// A skip that is no single file's.
    WalkSkip(SkipReason, String),
    /// Anything else, and whether it was a link (or could not be named).
    Other(bool),
}

/// Whether a scoped walk goes through `path`: the directories of `scope` and their
/// ancestors, and the files directly in those directories.
fn in_scope(scope: &BTreeSet<String>, root: &Path, path: &Path, is_dir: bool) -> bool {
    let Some(rel) = path.strip_prefix(root).ok().and_then(Path::to_str) else {
        return false;
    };
    if !is_dir {
        return scope.contains(parent_dir(rel));
    }
    scope.iter().any(|dir| dir == rel || is_in_dir(dir, rel))
}

/// Reads `path` (relative, validated) in one resolution the kernel keeps beneath
/// `root` (`openat2` with `RESOLVE_BENEATH`): what resolving the path to its
/// canonical form and checking it is inside the root gives, without a `readlink`
/// per component (a dozen system calls per file read). `None` on any failure (no
/// `openat2`, a link the kernel will not follow beneath the root, such as an
/// absolute one, a missing file): the caller resolves the path itself, and fails
/// as it would have.
#[cfg(target_os = "linux")]
fn read_beneath(root: &Path, path: &str) -> Option<Vec<u8>> {
    use rustix::fs::{Mode, OFlags, ResolveFlags};
    use std::io::Read;
    let flags = OFlags::PATH | OFlags::DIRECTORY | OFlags::CLOEXEC;
    let dir = rustix::fs::open(root, flags, Mode::empty()).ok()?;
    let resolve = ResolveFlags::BENEATH | ResolveFlags::NO_MAGICLINKS;
    let flags = OFlags::RDONLY | OFlags::CLOEXEC;
    let fd = rustix::fs::openat2(&dir, path, flags, Mode::empty(), resolve).ok()?;
    let mut file = std::fs::File::from(fd);
    let mut bytes = Vec::new();
    file.read_to_end(&mut bytes).ok()?;
    Some(bytes)
}

/// Elsewhere than on Linux, the caller resolves every path itself.
#[cfg(not(target_os = "linux"))]
fn read_beneath(_root: &Path, _path: &str) -> Option<Vec<u8>> {
    None
}

/// The `FsSource`'s watcher, locked; a watcher poisoned by a panic is reset, so that
/// no half-patched listing is trusted.
fn lock_watcher(watcher: &Mutex<Watcher>) -> MutexGuard<'_, Watcher> {
    match watcher.lock() {
        Ok(guard) => guard,
        Err(poisoned) => {
            let mut guard = poisoned.into_inner();
            guard.reset();
            watcher.clear_poison();
            guard
        }
    }
}

impl RepoSource for FsSource {
    fn label(&self) -> String {
        self.root.display().to_string()
    }

    /// Walks the tree, or, when it is watched ([`FsSourceBuilder::watch`]), patches
    /// the last listing with the paths the kernel reported as changed: the same
    /// listing either way.
    /// # Errors
    /// [`Error::RootNotFound`] or [`Error::RootNotDirectory`] when the root was
    /// removed or replaced by a file since the source was opened: the same errors
    /// as opening it would give, never an empty listing.
    fn list(&self) -> Result<Listing> {
        match self.list_changes(None)?.0 {
            ListingUpdate::Whole(listing) => Ok(listing),
            // Only a mark asks for changes.
            ListingUpdate::Changes(_) => Err(Error::Internal("changes without a mark".into())),
        }
    }

    /// [`FsSource::list`]; when the tree is watched and `since` marks a listing
    /// the watch still describes, only the paths the kernel reported as changed
    /// since then.
    fn list_changes(&self, since: Option<u64>) -> Result<(ListingUpdate, Option<u64>)> {
        match std::fs::metadata(&self.canonical_root) {
            Ok(meta) if meta.is_dir() => {}
            Ok(_) => return Err(Error::RootNotDirectory(self.root.clone())),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
                return Err(Error::RootNotFound(self.root.clone()));
            }
            Err(e) => return Err(Error::io(self.root.clone(), e)),
        }
        let (honor, root_skips) = self.honor();
        let full = |walked: Walked| {
            let mut walked = walked;
            walked.walk_skips.merge(&root_skips);
            walked
        };
        let whole = |listing| Ok((ListingUpdate::Whole(listing), None));
        let Some(watcher) = &self.watcher else {
            return whole(full(self.walk(honor, None, true)).listing());
        };
        let mut watcher = lock_watcher(watcher);
        if let Some((paths, kept)) = watcher.changes() {
            if self.patch(kept, paths, honor).is_some() {
                let update = match since.and_then(|mark| kept.changes_since(mark)) {
                    Some(changes) => ListingUpdate::Changes(changes),
                    None => ListingUpdate::Whole(kept.listing()),
                };
                return Ok((update, Some(kept.mark())));
            }
            watcher.reset();
        }
        if watcher.wants_to_start() {
            // Watches first, then the walk: no change made during the walk goes
            // unreported.
            let dirs = self.walk(honor, None, false);
            if dirs.unwatchable {
                watcher.give_up();
            } else if watcher.start(&self.canonical_root, &dirs.dirs, honor) {
                let listing = watcher.finish(full(self.walk(honor, None, true)));
                return Ok((ListingUpdate::Whole(listing), watcher.mark()));
            }
        }
        whole(full(self.walk(honor, None, true)).listing())
    }

    fn read(&self, path: &str) -> Result<Vec<u8>> {
        validate_relative(path)?;
        if let Some(bytes) = read_beneath(&self.canonical_root, path) {
            return Ok(bytes);
        }
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

    /// Reads only the commits added on top of `known` when HEAD is `known`'s head
    /// plus a chain of single-parent commits (the usual commit or fast-forward),
    /// with the same result as a fresh read; otherwise reads afresh.
    fn history_after(&self, options: &HistoryOptions, known: &History) -> Result<Option<History>> {
        Ok(extend_git_history(&self.canonical_root, options, known))
    }
}

/// How many names the file has (1 where the platform does not say).
fn link_count(meta: &std::fs::Metadata) -> u64 {
    #[cfg(unix)]
    {
        std::os::unix::fs::MetadataExt::nlink(meta)
    }
    #[cfg(not(unix))]
    {
        let _ = meta;
        1
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
