//! Where a warm query's time goes (issue 23, target 3): on the synthetic repository of
//! the benchmarks (`DD_BENCH_FILES` files, 25,000 by default), one cold `discover` in
//! a new session, then `ITERS` rounds (10 by default) of the workload of
//! `benches/query.rs` (10 files edited, 10 added or deleted), each followed by a warm
//! `discover` in one long-lived session. Prints each query's wall time, its stages
//! (`budget.stages`) and the session's counts to standard error. Then one query of a
//! new task in the same session (its lexical pass starts over: the per-file results
//! are kept per task). With `DISK=DIR`, the long-lived session reads and writes the
//! on-disk cache in DIR.
//!
//! ```sh
//! cargo run --release -p deepdiscovery-core --example warm_stages
//! DD_BENCH_FILES=2500 ITERS=20 cargo run --release -p deepdiscovery-core --example warm_stages
//! ```

use std::fs;
use std::time::Instant;

use deepdiscovery_core::{ContextPackage, DiscoverConfig, Session, Task};

#[path = "../../benches/support/synthetic.rs"]
mod synthetic;

/// A number from the environment, or `default`.
fn env_number(name: &str, default: usize) -> usize {
    std::env::var(name)
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

/// The stages of a package, `name ms` each.
fn stages(package: &ContextPackage) -> String {
    let parts: Vec<String> = package
        .budget
        .stages
        .iter()
        .map(|s| format!("{} {:.0}", s.stage, s.millis))
        .collect();
    parts.join(", ")
}

fn main() {
    let files = env_number("DD_BENCH_FILES", 25_000);
    let iters = env_number("ITERS", 10);
    let root = synthetic::ensure(files);
    let task = Task::new(synthetic::task(files)).expect("task");
    let config = DiscoverConfig::default();
    let start = Instant::now();
    let cold = Session::open(&root)
        .expect("open")
        .discover(&task, &config)
        .expect("discover");
    let ms = |start: Instant| start.elapsed().as_secs_f64() * 1e3;
    eprintln!("cold {:.1} ms: {}", ms(start), stages(&cold));
    // Watched, as a long-lived process would list it (`NO_WATCH=1`: walked).
    let source = deepdiscovery_core::FsSource::builder(&root)
        .watch(std::env::var_os("NO_WATCH").is_none())
        .build()
        .expect("open");
    let mut session = Session::new(source);
    if let Some(dir) = std::env::var_os("DISK") {
        let disk = deepdiscovery_core::cache::DiskCache::open(dir).expect("cache directory");
        session = session.with_disk_cache(std::sync::Arc::new(disk));
    }
    session.discover(&task, &config).expect("discover");
    let mut round = 0;
    // `EDITS_ONLY=1`: 10 files edited per round, none added or deleted.
    let edit = if std::env::var_os("EDITS_ONLY").is_some() {
        synthetic::edit_only
    } else {
        synthetic::edit
    };
    for _ in 0..iters {
        edit(&root, &mut round);
        let start = Instant::now();
        let package = session.discover(&task, &config).expect("discover");
        let stats = session.stats();
        eprintln!(
            "warm {:.1} ms: {}; parsed {}, reused {}, graph reused {}",
            ms(start),
            stages(&package),
            stats.parsed,
            stats.reused,
            stats.graph_reused
        );
    }
    let other = Task::new(format!("{} and the ledger totals", task.text)).expect("task");
    let start = Instant::now();
    let package = session.discover(&other, &config).expect("discover");
    eprintln!("new task {:.1} ms: {}", ms(start), stages(&package));
    // Leave the repository as generated.
    let _ = fs::remove_dir_all(root.join("bench_edits"));
    if round % 2 == 1 {
        synthetic::edit(&root, &mut round);
        let _ = fs::remove_dir_all(root.join("bench_edits"));
    }
}
