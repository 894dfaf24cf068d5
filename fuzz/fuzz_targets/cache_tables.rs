//! The on-disk cache's per-repository tables (`deepdiscovery_core::cache`): the
//! known-files table, which lets a process skip reading files whose listing entry is
//! unchanged, and the pack of small files' lexical indexes. Both are files anyone with
//! write access to the cache directory may have written. A repository on disk (its
//! files dated an hour back, so the table is trusted) fills a cache once; then the
//! fuzz input becomes the payload of the known-files table (under a header whose
//! checksum and count agree with it) and of every other entry (stored as the cache
//! stores payloads), and a query must still answer.
#![no_main]

use std::fs;
use std::path::{Path, PathBuf};
use std::sync::{Arc, OnceLock};
use std::time::{Duration, SystemTime};

use deepdiscovery_core::cache::DiskCache;
use deepdiscovery_core::{DiscoverConfig, Session, Task};
use libfuzzer_sys::fuzz_target;

/// Header bytes before the payload: a table's count is at 32..40, its payload's
/// length at 40..48 and xxh3 at 48..56; an entry's length and xxh3 at the same places.
const HEADER: usize = 56;

fn write_repo(root: &Path) {
    let files = [
        (
            "shop/pricing.py",
            "from shop.rates import rate\n\ndef convert_currency(amount, to):\n    return amount * rate(to)\n",
        ),
        ("shop/rates.py", "def rate(code):\n    return {'EUR': 1.1}[code]\n"),
        ("README.md", "# Shop\nConverts currencies.\n"),
    ];
    for (path, text) in files {
        let full = root.join(path);
        fs::create_dir_all(full.parent().expect("parent")).expect("mkdir");
        fs::write(&full, text).expect("write");
    }
    // One file large enough for an entry of its own.
    let mut large = String::new();
    for i in 0..200 {
        large.push_str(&format!("def shelf_{i}(rows):\n    return rows[{i}]\n\n"));
    }
    fs::write(root.join("shop/shelves.py"), large).expect("write");
    let old = SystemTime::now() - Duration::from_secs(3600);
    for path in ["shop/pricing.py", "shop/rates.py", "README.md", "shop/shelves.py"] {
        let file = fs::File::options().write(true).open(root.join(path)).expect("open");
        file.set_modified(old).expect("date");
    }
}

fn run(repo: &Path, cache: &Path) {
    let session = Session::open(repo)
        .expect("repo")
        .with_disk_cache(Arc::new(DiskCache::at(cache)));
    let task = Task::new("convert_currency fails for GBP: 'EUR to GBP'").expect("task");
    let _ = session.discover(&task, &DiscoverConfig::default());
}

struct Filled {
    _repo: tempfile::TempDir,
    repo: PathBuf,
    _cache: tempfile::TempDir,
    cache: PathBuf,
    /// Every file of the cache with its header.
    files: Vec<(PathBuf, Vec<u8>, bool)>,
}

fn filled() -> &'static Filled {
    static FILLED: OnceLock<Filled> = OnceLock::new();
    FILLED.get_or_init(|| {
        let repo = tempfile::tempdir().expect("temp dir");
        let cache = tempfile::tempdir().expect("temp dir");
        write_repo(repo.path());
        run(repo.path(), cache.path());
        let mut files = Vec::new();
        let mut stack = vec![cache.path().to_path_buf()];
        while let Some(d) = stack.pop() {
            for e in fs::read_dir(&d).expect("read dir").flatten() {
                let p = e.path();
                if p.is_dir() {
                    stack.push(p);
                } else if let Ok(bytes) = fs::read(&p)
                    && bytes.len() >= HEADER
                {
                    let table = p.parent().is_some_and(|d| d.ends_with("known-v1"));
                    files.push((p, bytes[..HEADER].to_vec(), table));
                }
            }
        }
        files.sort();
        assert!(files.iter().any(|f| f.2), "the first query wrote no table");
        Filled {
            repo: repo.path().to_path_buf(),
            _repo: repo,
            cache: cache.path().to_path_buf(),
            _cache: cache,
            files,
        }
    })
}

fuzz_target!(|data: &[u8]| {
    let filled = filled();
    let count = data.first().copied().unwrap_or(0) as u64;
    let entry_payload = deepdiscovery_core::cache::stored_form(data);
    for (path, header, table) in &filled.files {
        let payload: &[u8] = if *table { data } else { &entry_payload };
        let mut bytes = header.clone();
        if *table {
            bytes[32..40].copy_from_slice(&count.to_le_bytes());
        }
        bytes[40..48].copy_from_slice(&(payload.len() as u64).to_le_bytes());
        bytes[48..56].copy_from_slice(&xxhash_rust::xxh3::xxh3_64(payload).to_le_bytes());
        bytes.extend_from_slice(payload);
        fs::write(path, bytes).expect("write entry");
    }
    run(&filled.repo, &filled.cache);
});
