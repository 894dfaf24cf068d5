//! An on-disk cache of per-file facts, shared by processes: a second process on an
//! unchanged repository reads the facts tree-sitter gave the first one instead of
//! parsing again. It never changes an answer: an entry is found by a hash of
//! everything the facts are a function of (the build's parser versions and facts
//! code, the language, the path and the file's bytes), so an edit, a branch switch
//! or another build can only miss, never hit a stale entry; and an entry is used
//! only after its header, length and checksum are verified.
//!
//! # Storage: plain files
//! One file per entry, content-addressed, in 16 shard directories under
//! `DIR/facts-v1/`. Each file is a 56-byte header (magic, format version, the
//! build's version tag, the key, the payload length, an xxh3 checksum of the
//! payload) and the facts as JSON. Why plain files rather than a single-file store
//! (redb, sled, SQLite):
//! - no new dependency and no build cost (serde_json and xxhash are already here);
//! - many processes read and write at once without a lock: a writer writes a
//!   temporary file in the shard and renames it over the entry, which is atomic on
//!   POSIX and Windows, so a reader sees the old entry, the new one, or none; two
//!   writers of one key write the same bytes. A single-file store serializes
//!   writers on a file lock (redb refuses a second writer process outright);
//! - a torn or corrupt file is one bad entry, found by its checksum and replaced on
//!   the next write, never a corrupt database to repair;
//! - `cache clear` and eviction are file removals.
//!
//! The cost: one small file per source file and kind (a few KB each) and a directory
//! walk for eviction, done once per process that writes, then again every eighth of
//! the size bound written. Sixteen shards, not 256: on ext4, creating files across
//! 256 fresh directories spread over the block groups cost 2 s per 3,000 files
//! against 0.18 s across 16 (measured here), which was most of a cold run's cost.
//!
//! What is not trusted: a file that is not a regular file (a symbolic link, a FIFO),
//! larger than [`MAX_ENTRY_BYTES`], shorter than its header says, with another magic,
//! format, version tag or key, a checksum that does not match, or a payload that does
//! not parse: each is a miss. No failure of the cache (a directory that is a file,
//! read-only, full, missing) is an error: the answer is computed as without a cache.

use std::fs;
use std::io::{Read, Write};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Mutex, OnceLock};
use std::time::{Duration, SystemTime};

use serde::Serialize;

use crate::artifact::Language;
use crate::facts::Facts;

mod known;
mod pack;

pub(crate) use known::KnownFile;
pub(crate) use pack::Packed;

/// The environment variable that names the cache directory for the bindings and
/// the CLI (see [`default_dir`]); the core never reads it on its own.
pub const ENV_DIR: &str = "DEEPDISCOVERY_CACHE_DIR";

/// The default bound on the total size of the cache's entries (512 MiB).
pub const DEFAULT_MAX_BYTES: u64 = 512 << 20;

/// The largest entry stored or read (16 MiB); larger facts are recomputed each time.
pub const MAX_ENTRY_BYTES: u64 = 16 << 20;

const MAGIC: &[u8; 8] = b"DDFACTS\0";
/// 2: keys from the content hash, facts stored with their language; 3: payloads
/// compressed.
const FORMAT: u32 = 3;
const LAYOUT: &str = "facts-v1";
const HEADER: usize = 56;
/// An entry read this long after it was last dated is dated again (see `read_entry`).
const REDATE_AFTER: Duration = Duration::from_secs(86_400);
/// Temporary files older than this are left-overs of a killed writer.
const STALE_TEMP: Duration = Duration::from_secs(600);

/// What the build's facts are a function of besides the file: the library version,
/// the parser crates' versions and a hash of the facts code (see `build.rs`).
pub fn version() -> &'static str {
    static VERSION: OnceLock<String> = OnceLock::new();
    VERSION.get_or_init(|| {
        format!(
            "deepdiscovery {}; facts {}; abi {}; {}",
            env!("CARGO_PKG_VERSION"),
            env!("DEEPDISCOVERY_FACTS_CODE_HASH"),
            crate::facts::grammar_shapes(),
            env!("DEEPDISCOVERY_PARSER_VERSIONS"),
        )
    })
}

/// A file's facts as stored: with its language, which detection gave from the path
/// and the first bytes (so a reader that did not read the file knows it).
#[derive(serde::Deserialize)]
struct StoredFacts {
    language: Language,
    facts: Facts,
}

/// [`StoredFacts`] by reference, to store without a copy.
#[derive(Serialize)]
struct StoredFactsRef<'a> {
    language: Language,
    facts: &'a Facts,
}

/// The bounds of [`crate::source::HistoryOptions`] that shape a history's content
/// (its time guard does not: a history it cut is never stored).
fn history_limits(options: &crate::source::HistoryOptions) -> Vec<u8> {
    let mut limits = (options.max_commits as u64).to_le_bytes().to_vec();
    limits.extend_from_slice(&options.max_bytes.to_le_bytes());
    limits.extend_from_slice(&(options.max_files_per_commit as u64).to_le_bytes());
    limits
}

/// The key of an entry of this build: xxh3-128 of the build's version tag, a label
/// naming what the entry holds, and the parts, separated by a zero byte.
pub(super) fn build_key(label: &[u8], parts: &[&[u8]]) -> u128 {
    let mut hasher = xxhash_rust::xxh3::Xxh3::new();
    hasher.update(&version_tag().to_le_bytes());
    hasher.update(label);
    for (i, part) in parts.iter().enumerate() {
        if i > 0 {
            hasher.update(&[0]);
        }
        hasher.update(part);
    }
    hasher.digest128()
}

fn version_tag() -> u64 {
    static TAG: OnceLock<u64> = OnceLock::new();
    *TAG.get_or_init(|| xxhash_rust::xxh3::xxh3_64(version().as_bytes()))
}

/// The platform's cache directory for deepdiscovery: `$DEEPDISCOVERY_CACHE_DIR` when
/// set and not empty, else `$XDG_CACHE_HOME/deepdiscovery`, else
/// `~/Library/Caches/deepdiscovery` on macOS, `%LOCALAPPDATA%\deepdiscovery\cache` on
/// Windows and `~/.cache/deepdiscovery` elsewhere. `None` when none can be named.
///
/// For the bindings and the CLI, which open sessions with the cache on by default;
/// a core [`Session`](crate::Session) has no cache unless given one.
pub fn default_dir() -> Option<PathBuf> {
    let var = |name: &str| {
        std::env::var_os(name)
            .filter(|v| !v.is_empty())
            .map(PathBuf::from)
    };
    if let Some(dir) = var(ENV_DIR) {
        return Some(dir);
    }
    if let Some(dir) = var("XDG_CACHE_HOME").filter(|d| d.is_absolute()) {
        return Some(dir.join("deepdiscovery"));
    }
    if cfg!(windows) {
        return var("LOCALAPPDATA").map(|d| d.join("deepdiscovery").join("cache"));
    }
    let home = var("HOME")?;
    if cfg!(target_os = "macos") {
        Some(home.join("Library/Caches/deepdiscovery"))
    } else {
        Some(home.join(".cache/deepdiscovery"))
    }
}

/// What is in a cache directory.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct CacheInfo {
    /// The cache directory.
    pub dir: String,
    /// Entries of this format (any build).
    pub entries: u64,
    /// Their total size in bytes.
    pub bytes: u64,
    /// The bound on `bytes` beyond which the oldest entries are evicted.
    pub max_bytes: u64,
    /// What this build's entries are versioned by ([`version`]).
    pub version: String,
}

/// The facts cache in one directory. Cheap to share (`Send + Sync`): every method
/// takes `&self`, and processes share the directory safely.
#[derive(Debug)]
pub struct DiskCache {
    dir: PathBuf,
    max_bytes: u64,
    /// Bytes written since the last walk, and whether a walk was done.
    housekeeping: Mutex<(u64, bool)>,
    temp_counter: AtomicU64,
    hits: AtomicU64,
    writes: AtomicU64,
}

impl DiskCache {
    /// A cache in `dir`, created if missing, bounded by [`DEFAULT_MAX_BYTES`].
    ///
    /// # Errors
    /// When the directory cannot be created or is not a directory: the caller then
    /// goes without a cache.
    pub fn open(dir: impl Into<PathBuf>) -> std::io::Result<DiskCache> {
        let cache = DiskCache::at(dir);
        fs::create_dir_all(cache.dir.join(LAYOUT))?;
        Ok(cache)
    }

    /// A handle on the cache in `dir` without creating anything: for
    /// [`DiskCache::info`] and [`DiskCache::clear`] on a directory that may not exist.
    pub fn at(dir: impl Into<PathBuf>) -> DiskCache {
        DiskCache {
            dir: dir.into(),
            max_bytes: DEFAULT_MAX_BYTES,
            housekeeping: Mutex::new((0, false)),
            temp_counter: AtomicU64::new(0),
            hits: AtomicU64::new(0),
            writes: AtomicU64::new(0),
        }
    }

    /// Bounds the total size of the entries (at least one entry's worth is kept).
    pub fn with_max_bytes(mut self, max_bytes: u64) -> DiskCache {
        self.max_bytes = max_bytes;
        self
    }

    /// The cache directory.
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// Entries read by this handle since it was opened.
    pub fn hits(&self) -> u64 {
        self.hits.load(Ordering::Relaxed)
    }

    /// Entries written by this handle since it was opened.
    pub fn writes(&self) -> u64 {
        self.writes.load(Ordering::Relaxed)
    }

    /// Counts the entries and their size.
    pub fn info(&self) -> CacheInfo {
        let entries = self.walk();
        CacheInfo {
            dir: self.dir.display().to_string(),
            entries: entries.len() as u64,
            bytes: entries.iter().map(|e| e.1).sum(),
            max_bytes: self.max_bytes,
            version: version().to_string(),
        }
    }

    /// Removes every entry (and left-over temporary file) of the cache's layout;
    /// nothing else in the directory is touched. Returns how many were removed.
    ///
    /// # Errors
    /// The first entry that could not be removed.
    pub fn clear(&self) -> std::io::Result<u64> {
        let mut removed = 0;
        for shard in self.shards() {
            for file in files_in(&shard) {
                if is_entry_name(&file) || is_temp_name(&file) {
                    match fs::remove_file(&file) {
                        Ok(()) => removed += 1,
                        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
                        Err(e) => return Err(e),
                    }
                }
            }
            let _ = fs::remove_dir(&shard);
        }
        Ok(removed)
    }

    /// The key of the facts of the file at `path` whose bytes hash to `content`
    /// ([`crate::source::content_hash`]), for this build. The language is not in the
    /// key: it is a function of the path and the bytes, and is stored with the facts.
    pub(crate) fn facts_key(path: &str, content: u128) -> u128 {
        build_key(b"facts:", &[path.as_bytes(), &content.to_le_bytes()])
    }

    /// The key of a `.h` header's facts read with the grammar of `language` (C or
    /// C++, as the repository's other sources say): a header read as C is kept
    /// apart from the same bytes read as C++.
    pub(crate) fn header_facts_key(path: &str, language: Language, content: u128) -> u128 {
        build_key(
            b"header-facts:",
            &[
                path.as_bytes(),
                language.name().as_bytes(),
                &content.to_le_bytes(),
            ],
        )
    }

    /// The key of a value that depends on a file's bytes alone (they hash to
    /// `content`), computed by the code of `kind` in this build (the lexical index of
    /// a file's text, say).
    pub(crate) fn bytes_key(kind: &str, content: u128) -> u128 {
        build_key(b"bytes:", &[kind.as_bytes(), &content.to_le_bytes()])
    }

    /// The key of the history of `head` read with `options` from the source named
    /// `identity` (see [`crate::source::RepoSource::identity`]).
    pub(crate) fn history_key(
        identity: &str,
        head: &str,
        options: &crate::source::HistoryOptions,
    ) -> u128 {
        build_key(
            b"history-v2:",
            &[
                identity.as_bytes(),
                head.as_bytes(),
                &history_limits(options),
            ],
        )
    }

    /// The key under which the HEAD of the latest history stored for the source
    /// named `identity` with `options` is kept: a later HEAD extends that history
    /// rather than reading all of it again.
    pub(crate) fn latest_history_key(
        identity: &str,
        options: &crate::source::HistoryOptions,
    ) -> u128 {
        build_key(
            b"history-latest-v2:",
            &[identity.as_bytes(), &history_limits(options)],
        )
    }

    /// The language and facts stored under `key`, if a valid entry holds them.
    pub(crate) fn load_facts(&self, key: u128) -> Option<(Language, Facts)> {
        self.load::<StoredFacts>(key).map(|s| (s.language, s.facts))
    }

    /// Stores a file's language and facts under `key`; failures are ignored (the
    /// cache is an optimization).
    /// Stores a file's language and facts under `key` unless their stored form is
    /// larger than `at_most` bytes (the file's size: see [`DiskCache::store_raw`]);
    /// failures are ignored (the cache is an optimization).
    pub(crate) fn store_facts(&self, key: u128, language: Language, facts: &Facts, at_most: u64) {
        if let Ok(payload) = serde_json::to_vec(&StoredFactsRef { language, facts }) {
            let _ = self.write_entry(key, &payload, at_most);
        }
    }

    /// The payload stored under `key`, if a valid entry holds one.
    pub(crate) fn load_raw(&self, key: u128) -> Option<Vec<u8>> {
        let payload = self.read_entry(key)?;
        self.hits.fetch_add(1, Ordering::Relaxed);
        Some(payload)
    }

    /// Stores `payload` under `key` unless its stored form is larger than `at_most`
    /// bytes; failures are ignored. Per-file values are bounded by the file's size,
    /// so the cache never holds more than the text it describes (a notebook of
    /// base64 images has a lexical index three times its size: cheaper to compute
    /// again than to keep).
    /// Returns false when the payload was too large to store.
    pub(crate) fn store_raw(&self, key: u128, payload: &[u8], at_most: u64) -> bool {
        self.write_entry(key, payload, at_most)
    }

    /// The value stored under `key`, if a valid entry holds one that parses.
    pub(crate) fn load<T: serde::de::DeserializeOwned>(&self, key: u128) -> Option<T> {
        let payload = self.read_entry(key)?;
        let value = serde_json::from_slice(&payload).ok()?;
        self.hits.fetch_add(1, Ordering::Relaxed);
        Some(value)
    }

    /// Stores `value` under `key`; failures are ignored (the cache is an optimization).
    pub(crate) fn store<T: Serialize>(&self, key: u128, value: &T) {
        if let Ok(payload) = serde_json::to_vec(value) {
            let _ = self.write_entry(key, &payload, u64::MAX);
        }
    }

    /// Evicts the oldest entries when the cache outgrew its bound: walks the
    /// directory after the first batch this handle wrote, then again every eighth of
    /// the bound written; a handle that only reads never walks.
    pub(crate) fn housekeep(&self) {
        let mut state = crate::sync::lock(&self.housekeeping);
        let (written, walked) = *state;
        if written == 0 || (walked && written < self.max_bytes / 8) {
            return;
        }
        *state = (0, true);
        drop(state);
        self.evict();
    }

    /// Removes the least recently used entries (by modification time, which a read
    /// renews at most daily; then by name) until the total is at most three quarters
    /// of the bound, and stale temporary files.
    pub fn evict(&self) {
        let mut entries = self.walk();
        let mut total: u64 = entries.iter().map(|e| e.1).sum();
        if total <= self.max_bytes {
            return;
        }
        entries.sort_by(|a, b| (a.2, &a.0).cmp(&(b.2, &b.0)));
        let target = self.max_bytes / 4 * 3;
        for (path, size, _) in entries {
            if total <= target {
                break;
            }
            if fs::remove_file(&path).is_ok() {
                total = total.saturating_sub(size);
            }
        }
    }

    /// The folders that hold entries: the shards of the facts layout, then the
    /// folder of the known-files tables ([`known`]).
    fn shards(&self) -> Vec<PathBuf> {
        let mut shards = self.fact_shards();
        shards.push(self.dir.join(known::LAYOUT));
        shards
    }

    fn fact_shards(&self) -> Vec<PathBuf> {
        let Ok(read) = fs::read_dir(self.dir.join(LAYOUT)) else {
            return Vec::new();
        };
        let mut shards: Vec<PathBuf> = read
            .filter_map(|e| e.ok())
            .filter(|e| e.file_type().is_ok_and(|t| t.is_dir()))
            .map(|e| e.path())
            .filter(|p| {
                p.file_name()
                    .and_then(|n| n.to_str())
                    .is_some_and(|n| n.len() == 1 && n.bytes().all(|b| b.is_ascii_hexdigit()))
            })
            .collect();
        shards.sort();
        shards
    }

    /// Every entry: path, size, modification time. Removes stale temporary files.
    fn walk(&self) -> Vec<(PathBuf, u64, SystemTime)> {
        let now = SystemTime::now();
        let mut out = Vec::new();
        for shard in self.shards() {
            for file in files_in(&shard) {
                let Ok(meta) = fs::symlink_metadata(&file) else {
                    continue;
                };
                let modified = meta.modified().unwrap_or(SystemTime::UNIX_EPOCH);
                if is_temp_name(&file) {
                    if now
                        .duration_since(modified)
                        .is_ok_and(|age| age > STALE_TEMP)
                    {
                        let _ = fs::remove_file(&file);
                    }
                } else if is_entry_name(&file) {
                    out.push((file, meta.len(), modified));
                }
            }
        }
        out
    }

    fn entry_path(&self, key: u128) -> PathBuf {
        let name = format!("{key:032x}");
        self.dir.join(LAYOUT).join(&name[..1]).join(&name[1..])
    }

    fn read_entry(&self, key: u128) -> Option<Vec<u8>> {
        let path = self.entry_path(key);
        // Not followed: a link or a special file is never an entry.
        let meta = fs::symlink_metadata(&path).ok()?;
        if !meta.is_file() || meta.len() > MAX_ENTRY_BYTES + HEADER as u64 {
            return None;
        }
        let mut file = fs::File::open(&path).ok()?;
        let mut bytes = Vec::with_capacity(meta.len() as usize);
        Read::by_ref(&mut file)
            .take(MAX_ENTRY_BYTES + HEADER as u64 + 1)
            .read_to_end(&mut bytes)
            .ok()?;
        let payload = decode(&bytes, key)?;
        // Eviction removes the least recently used: an entry in use is dated again,
        // at most once a day (one extra system call per entry and day). A read-only
        // cache keeps its dates.
        let now = SystemTime::now();
        let stale = meta
            .modified()
            .ok()
            .and_then(|m| now.duration_since(m).ok())
            .is_some_and(|age| age > REDATE_AFTER);
        if stale {
            let _ = file.set_modified(now);
        }
        unpack(payload)
    }

    /// Writes an entry; false when the payload is over [`MAX_ENTRY_BYTES`] or its
    /// stored form over `at_most` (other failures are ignored).
    fn write_entry(&self, key: u128, payload: &[u8], at_most: u64) -> bool {
        if payload.len() as u64 > MAX_ENTRY_BYTES {
            return false;
        }
        let stored = pack(payload);
        if stored.len() as u64 > at_most {
            return false;
        }
        let bytes = encode(key, &stored);
        if !self.replace_file(&self.entry_path(key), key, &bytes) {
            return true;
        }
        self.writes.fetch_add(1, Ordering::Relaxed);
        let mut state = crate::sync::lock(&self.housekeeping);
        state.0 = state.0.saturating_add(bytes.len() as u64);
        true
    }
}

impl DiskCache {
    /// Writes `bytes` to `path` through a temporary file in its folder renamed over
    /// it (atomic on POSIX and Windows: a reader sees the old file, the new one or
    /// none); the folder is created if missing. False on any failure, after which
    /// no temporary file is left.
    fn replace_file(&self, path: &Path, key: u128, bytes: &[u8]) -> bool {
        let Some(folder) = path.parent() else {
            return false;
        };
        if fs::create_dir_all(folder).is_err() {
            return false;
        }
        let temp = folder.join(format!(
            ".tmp-{}-{}-{key:032x}",
            std::process::id(),
            self.temp_counter.fetch_add(1, Ordering::Relaxed)
        ));
        let written = fs::OpenOptions::new()
            .write(true)
            .create_new(true)
            .open(&temp)
            .and_then(|mut f| f.write_all(bytes));
        if written.is_err() || fs::rename(&temp, path).is_err() {
            let _ = fs::remove_file(&temp);
            return false;
        }
        true
    }
}

/// The stored form of a payload: its length, then its LZ4 block. JSON facts and
/// indexes shrink about fourfold, which keeps the cache below the size of the text
/// it describes, and decompressing costs less than reading the bytes saved.
fn pack(payload: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(4 + payload.len() / 2);
    out.extend_from_slice(&(payload.len() as u32).to_le_bytes());
    out.extend_from_slice(&lz4_flex::block::compress(payload));
    out
}

/// The payload of a stored form ([`pack`]); `None` when the length is over
/// [`MAX_ENTRY_BYTES`] or the block does not decompress to exactly that length.
fn unpack(stored: &[u8]) -> Option<Vec<u8>> {
    let (len, block) = stored.split_first_chunk::<4>()?;
    let len = u32::from_le_bytes(*len) as usize;
    if len as u64 > MAX_ENTRY_BYTES {
        return None;
    }
    let mut payload = vec![0; len];
    let written = lz4_flex::block::decompress_into(block, &mut payload).ok()?;
    (written == len).then_some(payload)
}

/// An entry's payload in the form the cache stores it (compressed): for tests and
/// fuzzing that write entries themselves.
#[doc(hidden)]
pub fn stored_form(payload: &[u8]) -> Vec<u8> {
    pack(payload)
}

/// The bytes of an entry: the header, then the payload.
fn encode(key: u128, payload: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(HEADER + payload.len());
    out.extend_from_slice(MAGIC);
    out.extend_from_slice(&FORMAT.to_le_bytes());
    out.extend_from_slice(&[0; 4]); // reserved, must be zero
    out.extend_from_slice(&version_tag().to_le_bytes());
    out.extend_from_slice(&key.to_le_bytes());
    out.extend_from_slice(&(payload.len() as u64).to_le_bytes());
    out.extend_from_slice(&xxhash_rust::xxh3::xxh3_64(payload).to_le_bytes());
    out.extend_from_slice(payload);
    out
}

/// The payload of an entry, when every field of its header checks out.
fn decode(bytes: &[u8], key: u128) -> Option<&[u8]> {
    let (header, payload) = bytes.split_at_checked(HEADER)?;
    let u64_at = |at: usize| {
        header
            .get(at..at + 8)
            .and_then(|b| b.try_into().ok())
            .map(u64::from_le_bytes)
    };
    let ok = header.get(..8)? == MAGIC
        && header.get(8..12)? == FORMAT.to_le_bytes()
        && header.get(12..16)? == [0; 4]
        && u64_at(16)? == version_tag()
        && header.get(24..40)? == key.to_le_bytes()
        && u64_at(40)? == payload.len() as u64
        && u64_at(48)? == xxhash_rust::xxh3::xxh3_64(payload);
    ok.then_some(payload)
}

fn files_in(dir: &Path) -> Vec<PathBuf> {
    fs::read_dir(dir)
        .map(|read| read.filter_map(|e| e.ok().map(|e| e.path())).collect())
        .unwrap_or_default()
}

/// An entry's name (31 hex digits, after its shard's) or a known-files table's (32).
fn is_entry_name(path: &Path) -> bool {
    path.file_name()
        .and_then(|n| n.to_str())
        .is_some_and(|n| matches!(n.len(), 31 | 32) && n.bytes().all(|b| b.is_ascii_hexdigit()))
}

fn is_temp_name(path: &Path) -> bool {
    path.file_name()
        .and_then(|n| n.to_str())
        .is_some_and(|n| n.starts_with(".tmp-"))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `len` characters that do not compress: entry sizes stay what the tests count.
    fn noise(len: usize) -> String {
        let mut text: String = (0..len as u64 / 16 + 1)
            .map(|k| format!("{:016x}", xxhash_rust::xxh3::xxh3_64(&k.to_le_bytes())))
            .collect();
        text.truncate(len);
        text
    }

    fn facts(name: &str) -> Facts {
        Facts {
            doc: Some(name.to_string()),
            ..Facts::default()
        }
    }

    #[test]
    fn round_trip_and_every_corruption_is_a_miss() {
        let dir = tempfile::tempdir().unwrap();
        let cache = DiskCache::open(dir.path()).unwrap();
        let key = DiskCache::facts_key("a.py", crate::source::content_hash(b"x = 1\n"));
        assert!(cache.load_facts(key).is_none());
        cache.store_facts(key, Language::Python, &facts("a"), u64::MAX);
        assert_eq!(cache.load_facts(key), Some((Language::Python, facts("a"))));
        let path = cache.entry_path(key);
        let good = fs::read(&path).unwrap();
        // Truncated anywhere, or any single byte flipped: never trusted.
        for cut in [0, 7, HEADER - 1, HEADER, good.len() - 1] {
            fs::write(&path, &good[..cut]).unwrap();
            assert!(cache.load_facts(key).is_none(), "truncated at {cut}");
        }
        for at in (0..good.len()).step_by(3) {
            let mut bad = good.clone();
            bad[at] ^= 0x5a;
            fs::write(&path, &bad).unwrap();
            assert!(cache.load_facts(key).is_none(), "byte {at} flipped");
        }
        // Another key's valid entry under this key's name.
        let other = DiskCache::facts_key("b.py", crate::source::content_hash(b"x = 1\n"));
        fs::write(
            &path,
            encode(other, &serde_json::to_vec(&facts("b")).unwrap()),
        )
        .unwrap();
        assert!(cache.load_facts(key).is_none());
        // A rewrite replaces the bad entry.
        cache.store_facts(key, Language::Python, &facts("a"), u64::MAX);
        assert_eq!(cache.load_facts(key), Some((Language::Python, facts("a"))));
    }

    #[test]
    fn a_header_read_as_c_is_kept_apart_from_the_same_header_read_as_cpp() {
        let content = crate::source::content_hash(b"int template(int x);");
        let c = DiskCache::header_facts_key("a.h", Language::C, content);
        let cpp = DiskCache::header_facts_key("a.h", Language::Cpp, content);
        assert_ne!(c, cpp);
        assert_ne!(c, DiskCache::facts_key("a.h", content));
        assert_eq!(c, DiskCache::header_facts_key("a.h", Language::C, content));
    }

    #[cfg(unix)]
    #[test]
    fn links_and_special_files_are_not_entries() {
        let dir = tempfile::tempdir().unwrap();
        let cache = DiskCache::open(dir.path()).unwrap();
        let key = DiskCache::facts_key("lib.rs", crate::source::content_hash(b"fn f() {}"));
        let other = DiskCache::facts_key("x.rs", crate::source::content_hash(b""));
        cache.store_facts(other, Language::Python, &facts("x"), u64::MAX);
        let path = cache.entry_path(key);
        fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::os::unix::fs::symlink(cache.entry_path(other), &path).unwrap();
        assert!(cache.load_facts(key).is_none());
        fs::remove_file(&path).unwrap();
        std::os::unix::fs::symlink("/dev/zero", &path).unwrap();
        assert!(cache.load_facts(key).is_none());
        fs::remove_file(&path).unwrap();
        fs::create_dir(&path).unwrap();
        assert!(cache.load_facts(key).is_none());
        cache.store_facts(key, Language::Python, &facts("k"), u64::MAX);
        assert!(cache.load_facts(key).is_none(), "a directory in the way");
    }

    #[test]
    fn an_entry_in_use_is_dated_again_and_outlives_newer_ones() {
        let dir = tempfile::tempdir().unwrap();
        let cache = DiskCache::open(dir.path()).unwrap().with_max_bytes(3_000);
        let big = Facts {
            doc: Some(noise(900)),
            ..Facts::default()
        };
        let key =
            |i: usize| DiskCache::facts_key(&format!("f{i}.py"), crate::source::content_hash(b""));
        let old = SystemTime::now() - Duration::from_secs(3 * 86_400);
        for i in 0..3 {
            cache.store_facts(key(i), Language::Python, &big, u64::MAX);
            let file = fs::File::options()
                .write(true)
                .open(cache.entry_path(key(i)));
            file.unwrap().set_modified(old).unwrap();
        }
        // Entry 0 is used: dated now, so the unused 1 and 2 go first.
        assert!(cache.load_facts(key(0)).is_some());
        cache.store_facts(key(3), Language::Python, &big, u64::MAX);
        cache.evict();
        assert!(cache.load_facts(key(0)).is_some());
        assert!(cache.load_facts(key(3)).is_some());
        assert!(cache.load_facts(key(1)).is_none());
    }

    #[test]
    fn a_directory_that_is_a_file_is_no_cache() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("file");
        fs::write(&file, "not a directory").unwrap();
        assert!(DiskCache::open(&file).is_err());
    }

    #[test]
    fn eviction_keeps_the_bound_and_clear_removes_only_entries() {
        let dir = tempfile::tempdir().unwrap();
        fs::write(dir.path().join("mine.txt"), "kept").unwrap();
        let cache = DiskCache::open(dir.path()).unwrap().with_max_bytes(20_000);
        let big = Facts {
            doc: Some(noise(1000)),
            ..Facts::default()
        };
        for i in 0..100 {
            let key = DiskCache::facts_key(&format!("f{i}.py"), crate::source::content_hash(b""));
            cache.store_facts(key, Language::Python, &big, u64::MAX);
            cache.housekeep();
            assert!(cache.info().bytes <= 20_000 + 2_500 + 1_200, "after {i}");
        }
        cache.evict();
        let info = cache.info();
        assert!(info.bytes <= 20_000 && info.entries > 5, "{info:?}");
        assert_eq!(cache.clear().unwrap(), info.entries);
        assert_eq!(cache.info().entries, 0);
        assert_eq!(
            fs::read_to_string(dir.path().join("mine.txt")).unwrap(),
            "kept"
        );
    }
}
