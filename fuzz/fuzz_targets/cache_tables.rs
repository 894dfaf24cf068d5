//! The on-disk cache's per-repository tables (`deepdiscovery_core::cache`): the
//! known-files table, which lets a process skip reading files whose listing entry is
//! unchanged, and the pack of small files' lexical indexes. Both are files anyone with
//! write access to the cache directory may have written. A repository on disk (its
//! files dated an hour back, so the table is trusted; under git when git is here, so
//! that the history of HEAD is kept as well) fills a cache once; then the
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

#[path = "support/cache_files.rs"]
mod cache_files;

fn write_repo(root: &Path) {
    let files = [
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
    // Under git when git is here, so that the history of HEAD is kept too.
    let git = |args: &[&str]| {
        std::process::Command::new("git")
            .current_dir(root)
            .env("GIT_CONFIG_NOSYSTEM", "1")
            .env("GIT_CONFIG_GLOBAL", "/dev/null")
            .args(["-c", "user.name=fuzz", "-c", "user.email=fuzz@example.com"])
            .args(args)
            .output()
            .is_ok_and(|o| o.status.success())
    };
    let _ = git(&["init", "-q"]) && git(&["add", "-A"]) && git(&["commit", "-q", "-m", "start"]);
    let old = SystemTime::now() - Duration::from_secs(3600);
    for path in [
        "shop/pricing.py",
        "shop/rates.py",
        "README.md",
        "shop/shelves.py",
    ] {
        let file = fs::File::options()
            .write(true)
            .open(root.join(path))
            .expect("open");
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
        let files: Vec<(PathBuf, Vec<u8>, bool)> = cache_files::with_headers(cache.path())
            .into_iter()
            .map(|(p, header)| {
                let table = p.parent().is_some_and(|d| d.ends_with("known-v1"));
                (p, header, table)
            })
            .collect();
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
        let mut bytes = cache_files::entry(header, payload);
        if *table {
            bytes[32..40].copy_from_slice(&count.to_le_bytes());
        }
        fs::write(path, bytes).expect("write entry");
    }
    run(&filled.repo, &filled.cache);
});
