//! What a session knew of a repository's files when its process ended: for each
//! file it read, the content hash and the listing entry (size, modification time,
//! inode) the file had when it was read. A later process that lists the same entry
//! knows the content hash without reading the file, so it finds the file's cached
//! entries (facts, lexical index) from its listing alone: git's index, in
//! miniature, and trusted on the same terms ("racy" files, modified within
//! [`crate::session`]'s window of being read, are not kept).
//!
//! One table per source identity ([`crate::source::RepoSource::identity`]), in
//! `DIR/known-v1/`, named by a hash of the identity: a 56-byte header (magic, format,
//! the identity's hash, the number of files, the payload's length and its xxh3
//! checksum), then one record per file. Written whole, through a temporary file
//! renamed over the table (atomic: a reader sees the old table or the new one); two
//! processes writing at once lose one's additions, which only costs reading those
//! files again. A table that fails any check is empty, never trusted in part.

use std::collections::HashMap;
use std::fs;
use std::io::Read;
use std::path::PathBuf;
use std::sync::atomic::Ordering;

use super::DiskCache;
use crate::source::{Entry, Stamp};

/// The folder of the tables under the cache directory.
pub(super) const LAYOUT: &str = "known-v1";
const MAGIC: &[u8; 8] = b"DDKNOWN\0";
const FORMAT: u32 = 1;
const HEADER: usize = 56;
/// The largest table read or written (64 MiB: some 500,000 files).
pub const MAX_TABLE_BYTES: u64 = 64 << 20;
/// The longest path a record may hold.
const MAX_PATH: usize = 4096;

/// One file as last read: the listing entry it had, when it was read, and the
/// hash of the bytes read ([`crate::source::content_hash`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct KnownFile {
    /// The listing entry the file had when it was read.
    pub entry: Entry,
    /// When it was read, nanoseconds since the Unix epoch.
    pub read_at_ns: u128,
    /// The hash of its bytes.
    pub hash: u128,
}

impl DiskCache {
    /// The table kept for the source named `identity`: empty when there is none or it
    /// fails a check.
    pub(crate) fn load_known(&self, identity: &str) -> HashMap<String, KnownFile> {
        let key = identity_key(identity);
        let path = self.known_path(key);
        let Ok(meta) = fs::symlink_metadata(&path) else {
            return HashMap::new();
        };
        if !meta.is_file() || meta.len() > MAX_TABLE_BYTES {
            return HashMap::new();
        }
        let mut bytes = Vec::with_capacity(meta.len() as usize);
        let read = fs::File::open(&path)
            .and_then(|file| file.take(MAX_TABLE_BYTES + 1).read_to_end(&mut bytes));
        if read.is_err() {
            return HashMap::new();
        }
        let files = decode(&bytes, key).unwrap_or_default();
        if !files.is_empty() {
            self.hits.fetch_add(1, Ordering::Relaxed);
            // Eviction goes by modification time: a table in use is dated again.
            if let Ok(file) = fs::File::options().write(true).open(&path) {
                let _ = file.set_modified(std::time::SystemTime::now());
            }
        }
        files
    }

    /// Replaces the table of the source named `identity` by `files` (sorted by path
    /// here, so equal tables are equal bytes); failures are ignored.
    pub(crate) fn store_known<'a>(
        &self,
        identity: &str,
        files: impl IntoIterator<Item = (&'a str, &'a KnownFile)>,
    ) {
        let key = identity_key(identity);
        let mut files: Vec<(&str, &KnownFile)> = files.into_iter().collect();
        files.sort_unstable_by(|a, b| a.0.cmp(b.0));
        let bytes = encode(key, &files);
        if bytes.len() as u64 > MAX_TABLE_BYTES {
            return;
        }
        let _ = self.replace_file(&self.known_path(key), key, &bytes);
    }

    fn known_path(&self, key: u128) -> PathBuf {
        self.dir.join(LAYOUT).join(format!("{key:032x}"))
    }
}

fn identity_key(identity: &str) -> u128 {
    let mut hasher = xxhash_rust::xxh3::Xxh3::new();
    hasher.update(b"known:");
    hasher.update(identity.as_bytes());
    hasher.digest128()
}

/// The bytes of a table: the header, then per file its path (length-prefixed), size,
/// stamp, time of reading and hash, little-endian.
fn encode(key: u128, files: &[(&str, &KnownFile)]) -> Vec<u8> {
    let mut payload = Vec::with_capacity(files.len() * 96);
    for (path, known) in files {
        payload.extend_from_slice(&(path.len() as u32).to_le_bytes());
        payload.extend_from_slice(path.as_bytes());
        payload.extend_from_slice(&known.entry.size.to_le_bytes());
        match known.entry.stamp {
            Stamp::Modified { nanos, inode } => {
                payload.push(0);
                payload.extend_from_slice(&nanos.to_le_bytes());
                payload.extend_from_slice(&inode.to_le_bytes());
            }
            Stamp::Content(hash) => {
                payload.push(1);
                payload.extend_from_slice(&u128::from(hash).to_le_bytes());
                payload.extend_from_slice(&0u64.to_le_bytes());
            }
        }
        payload.extend_from_slice(&known.read_at_ns.to_le_bytes());
        payload.extend_from_slice(&known.hash.to_le_bytes());
    }
    let mut out = Vec::with_capacity(HEADER + payload.len());
    out.extend_from_slice(MAGIC);
    out.extend_from_slice(&FORMAT.to_le_bytes());
    out.extend_from_slice(&[0; 4]);
    out.extend_from_slice(&key.to_le_bytes());
    out.extend_from_slice(&(files.len() as u64).to_le_bytes());
    out.extend_from_slice(&(payload.len() as u64).to_le_bytes());
    out.extend_from_slice(&xxhash_rust::xxh3::xxh3_64(&payload).to_le_bytes());
    out.extend_from_slice(&payload);
    out
}

/// The files of a table whose every check passes (header, checksum, each record
/// whole and well formed, the count as announced, no path twice); `None` otherwise.
fn decode(bytes: &[u8], key: u128) -> Option<HashMap<String, KnownFile>> {
    let (header, payload) = bytes.split_at_checked(HEADER)?;
    let mut head = Reader(header);
    let ok =
        head.take(8)? == MAGIC && head.u32()? == FORMAT && head.u32()? == 0 && head.u128()? == key;
    if !ok {
        return None;
    }
    let count = head.u64()?;
    if head.u64()? != payload.len() as u64 || head.u64()? != xxhash_rust::xxh3::xxh3_64(payload) {
        return None;
    }
    let mut files = HashMap::new();
    let mut body = Reader(payload);
    while !body.0.is_empty() {
        let len = body.u32()? as usize;
        if len == 0 || len > MAX_PATH {
            return None;
        }
        let path = std::str::from_utf8(body.take(len)?).ok()?.to_string();
        let size = body.u64()?;
        let stamp = match body.take(1)?[0] {
            0 => {
                let nanos = body.u128()?;
                let inode = body.u64()?;
                Stamp::Modified { nanos, inode }
            }
            1 => {
                let hash = u64::try_from(body.u128()?).ok()?;
                body.u64()?;
                Stamp::Content(hash)
            }
            _ => return None,
        };
        let read_at_ns = body.u128()?;
        let hash = body.u128()?;
        let entry = Entry {
            path: path.clone(),
            size,
            stamp,
        };
        let known = KnownFile {
            entry,
            read_at_ns,
            hash,
        };
        if files.insert(path, known).is_some() {
            return None;
        }
    }
    (files.len() as u64 == count).then_some(files)
}

/// Little-endian fields read off the front of a slice; `None` past its end.
struct Reader<'a>(&'a [u8]);

impl<'a> Reader<'a> {
    fn take(&mut self, n: usize) -> Option<&'a [u8]> {
        let (taken, rest) = self.0.split_at_checked(n)?;
        self.0 = rest;
        Some(taken)
    }

    fn u32(&mut self) -> Option<u32> {
        self.take(4)?.try_into().ok().map(u32::from_le_bytes)
    }

    fn u64(&mut self) -> Option<u64> {
        self.take(8)?.try_into().ok().map(u64::from_le_bytes)
    }

    fn u128(&mut self) -> Option<u128> {
        self.take(16)?.try_into().ok().map(u128::from_le_bytes)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn known(path: &str, nanos: u128, hash: u128) -> (String, KnownFile) {
        let entry = Entry {
            path: path.to_string(),
            size: 10,
            stamp: Stamp::Modified { nanos, inode: 7 },
        };
        let file = KnownFile {
            entry,
            read_at_ns: nanos + 5_000_000_000,
            hash,
        };
        (path.to_string(), file)
    }

    #[test]
    fn a_table_reads_back_and_any_damage_empties_it() {
        let dir = tempfile::tempdir().unwrap();
        let cache = DiskCache::open(dir.path()).unwrap();
        let table: HashMap<String, KnownFile> =
            [known("a.py", 1, 11), known("src/b.rs", 2, 22)].into();
        assert!(cache.load_known("fs:/repo").is_empty());
        cache.store_known("fs:/repo", table.iter().map(|(p, k)| (p.as_str(), k)));
        assert_eq!(cache.load_known("fs:/repo"), table);
        assert!(cache.load_known("fs:/other").is_empty(), "another source");
        let path = cache.known_path(identity_key("fs:/repo"));
        let good = fs::read(&path).unwrap();
        for cut in [0, HEADER - 1, HEADER, good.len() - 1] {
            assert!(decode(&good[..cut], identity_key("fs:/repo")).is_none());
        }
        for at in 0..good.len() {
            let mut bad = good.clone();
            bad[at] ^= 0x21;
            fs::write(&path, &bad).unwrap();
            assert!(cache.load_known("fs:/repo").is_empty(), "byte {at}");
        }
    }

    #[test]
    fn records_that_lie_are_refused_even_under_a_good_checksum() {
        let key = identity_key("x");
        let (path, file) = known("a.py", 1, 11);
        let one = encode(key, &[(path.as_str(), &file)]);
        assert_eq!(decode(&one, key).map(|f| f.len()), Some(1));
        // The same path twice, and a count that disagrees with the records.
        let twice = encode(key, &[(path.as_str(), &file), (path.as_str(), &file)]);
        assert!(decode(&twice, key).is_none());
        let mut miscounted = one.clone();
        miscounted[32] = 2;
        assert!(decode(&miscounted, key).is_none());
    }
}
