//! How a cold query grows with the repository (issue 9, targets 3 and 5): for each
//! size of the generated repository, a fresh process lists and reads every file
//! (the reference; a first read warms the page cache), then opens a `Session` and
//! answers the task, and reports
//! its wall times, peak RSS (VmHWM), what it read and parsed, and the package's
//! per-stage costs. One process per size, so the RSS and the caches of one size do
//! not leak into the next.
//!
//! ```sh
//! cargo bench -p deepdiscovery-core --bench scale                     # 2.5k, 10k, 25k, 50k files
//! cargo bench -p deepdiscovery-core --bench scale -- --sizes 2500,200000 --json out.json
//! cargo bench -p deepdiscovery-core --bench scale -- --full-graph     # parse every file instead
//! cargo bench -p deepdiscovery-core --bench scale -- --sizes 25000 --slow-task [--no-bridge]
//! cargo bench -p deepdiscovery-core --bench scale -- --sizes 200000 [--disk-cache] [--term-memory=0] [--watch]
//! ```
//!
//! `--slow-task` adds a performance complaint to the task ("slow", "memory", "hangs"),
//! whose words the vocabulary bridge expands the most; `--no-bridge` answers without
//! the bridge. Together they give the bridge's cost (issue 34, item 4). Each row also
//! gives the query again with one more word in the same session: the first such
//! query (`first new query`, which builds the session's term tables when there is no
//! disk cache), then the median of five more (`warm`), with that query's stages
//! (`warm stages`): the query's own
//! cost, without listing, reading or parsing. `--disk-cache` answers through an
//! on-disk cache that starts empty (as the Python, C and CLI sessions do by default);
//! `--term-memory=BYTES` sets the session's term memory (0: no term tables, so that a
//! new query reads and tokenizes its files again); `--watch` opens the repository
//! watched, so that a query lists only what changed since the last.

use std::fs;
use std::process::Command;
use std::time::Instant;

use deepdiscovery_core::{DiscoverConfig, Session, Task};

#[path = "support/synthetic.rs"]
mod synthetic;

fn main() {
    let mut sizes = vec![2_500, 10_000, 25_000, 50_000];
    let mut json = None;
    let mut one = None;
    let mut full_graph = false;
    let mut flags: Vec<String> = Vec::new();
    let mut args = std::env::args().skip(1);
    while let Some(arg) = args.next() {
        match arg.as_str() {
            "--sizes" => {
                let list = args.next().unwrap_or_default();
                sizes = list
                    .split(',')
                    .filter_map(|s| s.trim().parse().ok())
                    .collect();
            }
            "--json" => json = args.next(),
            "--one" => one = args.next().and_then(|v| v.parse().ok()),
            "--full-graph" => full_graph = true,
            "--slow-task" | "--no-bridge" | "--disk-cache" | "--watch" => flags.push(arg.clone()),
            _ if arg.starts_with("--term-memory=") => flags.push(arg.clone()),
            // `cargo bench` passes `--bench`; other harness flags are ignored too.
            _ => {}
        }
    }
    if let Some(files) = one {
        println!("{}", measure(files, full_graph, &flags));
        return;
    }
    let exe = std::env::current_exe().expect("own path");
    println!(
        "| files | lines | MiB | read all (ms) | cold discover (ms) | ratio | first new query (ms) | warm (ms) | peak RSS (MiB) | read | parsed | stages (ms) | warm stages (ms) |"
    );
    println!("|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|---|");
    let mut rows = Vec::new();
    for files in sizes {
        // Generate in this process first, so that generation is not measured.
        synthetic::ensure(files);
        let mut command = Command::new(&exe);
        command.args(["--one", &files.to_string()]);
        if full_graph {
            command.arg("--full-graph");
        }
        command.args(&flags);
        let output = command.output().expect("run one size");
        let row: serde_json::Value =
            serde_json::from_slice(&output.stdout).expect("one size's JSON");
        let stages = |key: &str| -> String {
            row[key]
                .as_array()
                .into_iter()
                .flatten()
                .map(|s| {
                    format!(
                        "{} {:.0}",
                        s["stage"].as_str().unwrap_or(""),
                        s["millis"].as_f64().unwrap_or(0.0)
                    )
                })
                .collect::<Vec<_>>()
                .join(", ")
        };
        println!(
            "| {} | {} | {:.0} | {:.0} | {:.0} | {:.2} | {:.0} | {:.0} | {:.0} | {} | {} | {} | {} |",
            row["files"],
            row["lines"],
            row["bytes"].as_f64().unwrap_or(0.0) / 1048576.0,
            row["read_ms"].as_f64().unwrap_or(0.0),
            row["discover_ms"].as_f64().unwrap_or(0.0),
            row["discover_ms"].as_f64().unwrap_or(0.0) / row["read_ms"].as_f64().unwrap_or(1.0),
            row["first_new_ms"].as_f64().unwrap_or(0.0),
            row["warm_ms"].as_f64().unwrap_or(0.0),
            row["peak_rss_mib"].as_f64().unwrap_or(0.0),
            row["files_read"],
            row["files_parsed"],
            stages("stages"),
            stages("warm_stages")
        );
        rows.push(row);
    }
    if let Some(path) = json {
        let text = serde_json::to_string_pretty(&rows).expect("json");
        fs::write(&path, text).expect("write --json");
    }
}

/// One size, in this (fresh) process: a JSON object.
fn measure(files: usize, full_graph: bool, flags: &[String]) -> serde_json::Value {
    let root = synthetic::ensure(files);
    // One read to bring the files into the page cache (generation may have been
    // long ago), then the measured one: both sides of the ratio run on a warm cache.
    read_all(&root);
    let start = Instant::now();
    let (listed, bytes, lines) = read_all(&root);
    let read_ms = start.elapsed().as_secs_f64() * 1e3;

    let mut text = synthetic::task(files);
    if flags.iter().any(|f| f == "--slow-task") {
        text.push_str(
            ". It is very slow on large inputs, memory grows on every call and the \
             export hangs until it times out",
        );
    }
    let task = Task::new(text).expect("task");
    let mut config = DiscoverConfig {
        full_graph,
        ..DiscoverConfig::default()
    };
    config.location_ablation.no_bridge = flags.iter().any(|f| f == "--no-bridge");
    let cache_dir = std::env::temp_dir().join(format!("dd-scale-cache-{}", std::process::id()));
    let start = Instant::now();
    let source = deepdiscovery_core::FsSource::builder(&root)
        .watch(flags.iter().any(|f| f == "--watch"))
        .build()
        .expect("open");
    let mut session = Session::new(source);
    if flags.iter().any(|f| f == "--disk-cache") {
        let cache = deepdiscovery_core::cache::DiskCache::open(&cache_dir).expect("cache");
        session = session.with_disk_cache(std::sync::Arc::new(cache));
    }
    if let Some(bytes) = flags
        .iter()
        .find_map(|f| f.strip_prefix("--term-memory="))
        .and_then(|v| v.parse().ok())
    {
        session = session.with_term_memory(bytes);
    }
    let package = session.discover(&task, &config).expect("discover");
    let discover_ms = start.elapsed().as_secs_f64() * 1e3;
    // Another word makes another query: the lexical pass counts its terms again, from
    // the per-file indexes the first query left. The median of five such queries.
    let mut warm: Vec<(f64, serde_json::Value)> =
        ["first", "again", "later", "twice", "still", "often"]
            .iter()
            .map(|word| {
                let again = Task::new(format!("{} {word}", task.text)).expect("task");
                let start = Instant::now();
                let package = session.discover(&again, &config).expect("discover again");
                let ms = start.elapsed().as_secs_f64() * 1e3;
                (ms, serde_json::json!(package.budget.stages))
            })
            .collect();
    let _ = fs::remove_dir_all(&cache_dir);
    // The first new query builds the session's term tables (without a disk cache);
    // `warm` is the median of the five after it.
    let first_new_ms = warm.remove(0).0;
    warm.sort_by(|a, b| a.0.total_cmp(&b.0));
    let (warm_ms, warm_stages) = warm.swap_remove(warm.len() / 2);
    serde_json::json!({
        "files": listed,
        "lines": lines,
        "bytes": bytes,
        "read_ms": read_ms,
        "discover_ms": discover_ms,
        "warm_ms": warm_ms,
        "first_new_ms": first_new_ms,
        "peak_rss_mib": synthetic::peak_rss_mib(),
        "files_read": package.budget.files_read,
        "files_parsed": package.budget.files_parsed,
        "stages": package.budget.stages,
        "warm_stages": warm_stages,
        "top_files": package.files.iter().take(5).map(|f| f.path.clone()).collect::<Vec<_>>(),
        "notes": package.notes,
        "full_graph": full_graph,
        "flags": flags,
    })
}

/// Lists the repository and reads every file once: (files, bytes, lines).
fn read_all(root: &std::path::Path) -> (usize, usize, usize) {
    let listed = Session::open(root)
        .expect("open")
        .artifacts()
        .expect("list");
    let mut bytes = 0usize;
    let mut lines = 0usize;
    for a in &listed {
        if let Ok(data) = fs::read(root.join(&a.path)) {
            bytes += data.len();
            lines += data.iter().filter(|&&b| b == b'\n').count();
        }
    }
    (listed.len(), bytes, lines)
}
