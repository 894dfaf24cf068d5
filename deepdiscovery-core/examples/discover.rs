//! Runs the whole of Algorithm 1 on a repository and prints the context package as
//! Markdown (or JSON with `--json`).
//!
//! ```sh
//! cargo run --release -p deepdiscovery-core --example discover -- REPO "task text"
//! cargo run --release -p deepdiscovery-core --example discover -- --json --budget 8000 REPO @task.txt
//! ```
//!
//! Options: `--json`, `--budget TOKENS`, `--location-only`, `--no-compression`,
//! `--no-implicit`, `--no-metadata-first`, `--cache-dir DIR` (read and write facts
//! through the on-disk cache in DIR; without it, no cache).

use std::sync::Arc;

use deepdiscovery_core::cache::DiskCache;
use deepdiscovery_core::{DiscoverConfig, Session, Task};

fn main() {
    let mut config = DiscoverConfig::default();
    let mut json = false;
    let mut cache_dir = None;
    let mut positional = Vec::new();
    let mut args = std::env::args().skip(1);
    while let Some(arg) = args.next() {
        match arg.as_str() {
            "--json" => json = true,
            "--location-only" => config.ablation.location_only = true,
            "--no-compression" => config.ablation.no_compression = true,
            "--no-implicit" => config.ablation.no_implicit = true,
            "--no-metadata-first" => config.ablation.no_metadata_first = true,
            "--cache-dir" => match args.next() {
                Some(dir) => cache_dir = Some(dir),
                None => fail("--cache-dir needs a directory", 2),
            },
            "--budget" => match args.next().and_then(|v| v.parse().ok()) {
                Some(tokens) => config.budget.max_tokens = tokens,
                None => fail("--budget needs a number of tokens", 2),
            },
            _ => positional.push(arg),
        }
    }
    let [root, text] = positional.as_slice() else {
        fail(
            "usage: discover [--json] [--budget N] [--location-only] [--no-compression] \
             [--no-implicit] [--no-metadata-first] [--cache-dir DIR] REPO \"task text\" | @file",
            2,
        )
    };
    let text = match text.strip_prefix('@') {
        Some(file) => std::fs::read_to_string(file)
            .unwrap_or_else(|e| fail(&format!("error: {file}: {e}"), 1)),
        None => text.clone(),
    };
    let mut session = Session::open(root).unwrap_or_else(|e| fail(&format!("error: {e}"), 1));
    if let Some(dir) = cache_dir {
        match DiskCache::open(&dir) {
            Ok(cache) => session = session.with_disk_cache(Arc::new(cache)),
            Err(e) => eprintln!("no cache in {dir}: {e}"),
        }
    }
    let package = Task::new(text)
        .and_then(|task| session.discover(&task, &config))
        .unwrap_or_else(|e| fail(&format!("error: {e}"), 1));
    if json {
        println!("{}", package.to_json());
    } else {
        print!("{}", package.to_markdown());
        let b = &package.budget;
        let stats = session.stats();
        eprintln!(
            "{} parsed ({} from the disk cache), {} reused",
            stats.parsed, stats.from_disk, stats.reused
        );
        eprintln!(
            "{} files, {} of {} tokens, {} steps (stopped: {:?}), {:.0} ms",
            package.files.len(),
            b.used_tokens,
            b.max_tokens,
            b.steps,
            b.stop,
            b.stages.iter().map(|s| s.millis).sum::<f64>()
        );
    }
}

fn fail(message: &str, code: i32) -> ! {
    eprintln!("{message}");
    std::process::exit(code)
}
