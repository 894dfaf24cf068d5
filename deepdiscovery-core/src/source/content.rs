//! A file's content as a pass over files sees it: the bytes, read on first use, and
//! the content hash, known without reading when the session can prove the file
//! unchanged since it was read (see [`crate::cache`]).

use std::sync::OnceLock;

use super::RepoSource;

/// The hash of a file's bytes that the session remembers per file and the on-disk
/// cache's keys are made of: 128-bit xxh3, so that two contents sharing a hash is not
/// a practical concern.
pub(crate) fn content_hash(bytes: &[u8]) -> u128 {
    xxhash_rust::xxh3::xxh3_128(bytes)
}

/// One file's content, read lazily.
pub(crate) struct Content<'a> {
    source: &'a dyn RepoSource,
    path: &'a str,
    /// The size the listing gave.
    pub(crate) size: u64,
    known: Option<u128>,
    bytes: OnceLock<Vec<u8>>,
    hash: OnceLock<u128>,
}

impl<'a> Content<'a> {
    /// The content of `path` in `source`, of `size` bytes by the listing, whose hash
    /// is `known` when the listing proves it.
    pub(crate) fn new(
        source: &'a dyn RepoSource,
        path: &'a str,
        size: u64,
        known: Option<u128>,
    ) -> Content<'a> {
        Content {
            source,
            path,
            size,
            known,
            bytes: OnceLock::new(),
            hash: OnceLock::new(),
        }
    }

    /// The bytes, read on the first call (empty when the file cannot be read).
    pub(crate) fn bytes(&self) -> &[u8] {
        self.bytes
            .get_or_init(|| self.source.read(self.path).unwrap_or_default())
    }

    /// The content hash: the known one, else that of the bytes (read if need be).
    pub(crate) fn hash(&self) -> u128 {
        self.known
            .unwrap_or_else(|| *self.hash.get_or_init(|| content_hash(self.bytes())))
    }

    /// The hash of the bytes, when they were read: what the session learns of the file.
    pub(crate) fn read_hash(&self) -> Option<u128> {
        let bytes = self.bytes.get()?;
        Some(*self.hash.get_or_init(|| content_hash(bytes)))
    }
}
