//! Shared by the cache fuzz targets: the files a query wrote into a cache directory,
//! each with its header, to be rewritten with the fuzz input as payload.

use std::fs;
use std::path::{Path, PathBuf};

/// Header bytes before the payload, for entries and tables alike: bytes 40..48 hold
/// the payload's length and 48..56 its xxh3 (a table also has its count at 32..40).
pub const HEADER: usize = 56;

/// Every file under `dir` at least a header long, sorted, with its header.
pub fn with_headers(dir: &Path) -> Vec<(PathBuf, Vec<u8>)> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for e in fs::read_dir(&d).expect("read dir").flatten() {
            let p = e.path();
            if p.is_dir() {
                stack.push(p);
            } else if let Ok(bytes) = fs::read(&p)
                && bytes.len() >= HEADER
            {
                out.push((p, bytes[..HEADER].to_vec()));
            }
        }
    }
    out.sort();
    out
}

/// `header` with `payload`'s length and checksum, then `payload`.
pub fn entry(header: &[u8], payload: &[u8]) -> Vec<u8> {
    let mut bytes = header.to_vec();
    bytes[40..48].copy_from_slice(&(payload.len() as u64).to_le_bytes());
    bytes[48..56].copy_from_slice(&xxhash_rust::xxh3::xxh3_64(payload).to_le_bytes());
    bytes.extend_from_slice(payload);
    bytes
}
