//! The on-disk cache (`deepdiscovery_core::cache`): entries are files that any process
//! (or anyone with write access to the cache directory) may have written. The header's
//! checksum is no signature, so an entry can hold any payload: the fuzz input becomes
//! the payload of every entry of a small repository's cache, under a well-formed header
//! (compressed as the cache stores it, or raw),
//! and a second query must still answer (a payload that does not parse is a miss).
#![no_main]

use std::fs;
use std::path::Path;
use std::sync::{Arc, OnceLock};

use deepdiscovery_core::cache::DiskCache;
use deepdiscovery_core::{DiscoverConfig, MemorySource, Session, Task};
use libfuzzer_sys::fuzz_target;

#[path = "support/cache_files.rs"]
mod cache_files;

const FILES: [(&str, &str); 3] = [
    (
        "shop/pricing.py",
        "from shop.rates import rate\n\ndef convert_currency(amount, to):\n    return amount * rate(to)\n",
    ),
    (
        "shop/rates.py",
        "def rate(code):\n    return {'EUR': 1.1}[code]\n",
    ),
    ("README.md", "# Shop\nConverts currencies.\n"),
];

fn session(dir: &Path) -> Session {
    let source = MemorySource::from_files(FILES).expect("fixture");
    Session::new(source).with_disk_cache(Arc::new(DiskCache::at(dir)))
}

fn run(dir: &Path) {
    let task = Task::new("convert_currency fails for GBP").expect("task");
    let _ = session(dir).discover(&task, &DiscoverConfig::default());
}

/// A cache directory filled by one query, and its entries' headers.
fn filled() -> &'static (tempfile::TempDir, Vec<(std::path::PathBuf, Vec<u8>)>) {
    static CACHE: OnceLock<(tempfile::TempDir, Vec<(std::path::PathBuf, Vec<u8>)>)> =
        OnceLock::new();
    CACHE.get_or_init(|| {
        let dir = tempfile::tempdir().expect("temp dir");
        run(dir.path());
        let entries = cache_files::with_headers(dir.path());
        assert!(!entries.is_empty(), "the first query wrote no entry");
        (dir, entries)
    })
}

fuzz_target!(|payload: &[u8]| {
    let (dir, entries) = filled();
    // As the cache stores payloads (compressed), so that the readers behind it see
    // the fuzz input itself; the first byte's parity leaves it raw half the time, to
    // reach the decompression too.
    let stored = match payload.first() {
        Some(b) if b % 2 == 1 => deepdiscovery_core::cache::stored_form(payload),
        _ => payload.to_vec(),
    };
    let payload = stored.as_slice();
    for (path, header) in entries {
        fs::write(path, cache_files::entry(header, payload)).expect("write entry");
    }
    run(dir.path());
});
