//! An in-memory repository: path → bytes. For tests, bindings and unsaved buffers.

use std::collections::BTreeMap;

use super::{
    Entry, Listing, RepoSource, SkipReason, Stamp, has_binary_extension, validate_relative,
};
use crate::{Error, Result};

/// A repository held in memory. Paths are repository-relative with `/` separators.
///
/// Binary files (by extension) and files over the size cap are listed as skipped,
/// like [`super::FsSource`] does, so both sources behave the same in tests.
#[derive(Debug, Clone, Default)]
pub struct MemorySource {
    files: BTreeMap<String, Vec<u8>>,
    max_file_size: u64,
}

impl MemorySource {
    /// An empty repository with the default size cap.
    pub fn new() -> Self {
        MemorySource {
            files: BTreeMap::new(),
            max_file_size: super::DEFAULT_MAX_FILE_SIZE,
        }
    }

    /// Builds a repository from `(path, content)` pairs.
    ///
    /// # Errors
    /// [`Error::NoSuchArtifact`] for a path that is absolute, empty or has `.`/`..` parts.
    pub fn from_files<P, C>(files: impl IntoIterator<Item = (P, C)>) -> Result<Self>
    where
        P: Into<String>,
        C: Into<Vec<u8>>,
    {
        let mut source = MemorySource::new();
        for (path, content) in files {
            source.insert(path, content)?;
        }
        Ok(source)
    }

    /// Sets the size cap (bytes) above which files are skipped.
    pub fn with_max_file_size(mut self, max: u64) -> Self {
        self.max_file_size = max;
        self
    }

    /// Adds or replaces a file.
    ///
    /// # Errors
    /// [`Error::NoSuchArtifact`] for a malformed path.
    pub fn insert(&mut self, path: impl Into<String>, content: impl Into<Vec<u8>>) -> Result<()> {
        let path = path.into();
        validate_relative(&path)?;
        self.files.insert(path, content.into());
        Ok(())
    }

    /// Removes a file; returns whether it was there.
    pub fn remove(&mut self, path: &str) -> bool {
        self.files.remove(path).is_some()
    }

    /// Number of files held (including ones that listing skips).
    pub fn len(&self) -> usize {
        self.files.len()
    }

    /// True when no file is held.
    pub fn is_empty(&self) -> bool {
        self.files.is_empty()
    }
}

impl RepoSource for MemorySource {
    fn label(&self) -> String {
        "memory".to_string()
    }

    fn list(&self) -> Result<Listing> {
        let mut listing = Listing::default();
        for (path, bytes) in &self.files {
            if has_binary_extension(path) {
                listing.skipped.record(SkipReason::Binary, path.clone());
            } else if bytes.len() as u64 > self.max_file_size {
                listing.skipped.record(SkipReason::TooLarge, path.clone());
            } else {
                listing.entries.push(Entry {
                    path: path.clone(),
                    size: bytes.len() as u64,
                    stamp: Stamp::Content(xxhash_rust::xxh3::xxh3_64(bytes)),
                });
            }
        }
        Ok(listing)
    }

    fn read(&self, path: &str) -> Result<Vec<u8>> {
        self.files
            .get(path)
            .cloned()
            .ok_or_else(|| Error::NoSuchArtifact(path.to_string()))
    }
}
