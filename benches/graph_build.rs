//! Full-graph build on a generated multi-language repository.
//!
//! Generates (once, cached under `target/bench-repos/`) a synthetic repository of
//! about 25,000 files and 2.5M lines, the size of the paper's industrial ecosystem:
//! several subprojects in Python, Java, TypeScript, Go and C, with real imports
//! between modules, class hierarchies, calls by rare and common names, and YAML,
//! JSON and properties configuration. Then measures:
//!
//! - **cold**: a new `Session`, every file listed, read, parsed; all facts; all edges;
//! - **warm**: the same session after 10 files were touched (edited in place).
//!
//! Prints wall times, files/s, lines/s, edge counts and peak RSS (VmHWM).
//!
//! ```sh
//! cargo bench -p deepdiscovery-core --bench graph_build              # 25,000 files
//! cargo bench -p deepdiscovery-core --bench graph_build -- --files 2500
//! ```

use std::fs;
use std::time::Instant;

#[path = "support/synthetic.rs"]
mod synthetic;

use deepdiscovery_core::Session;

fn main() {
    let mut files = 25_000usize;
    let mut args = std::env::args().skip(1);
    while let Some(arg) = args.next() {
        if arg == "--files" {
            files = args.next().and_then(|v| v.parse().ok()).unwrap_or(files);
        }
    }
    let root = synthetic::ensure(files);

    let session = Session::open(&root).expect("open");
    let start = Instant::now();
    let graph = session.graph().expect("graph");
    let cold = start.elapsed().as_secs_f64();
    let stats = session.stats();
    let lines: usize = session
        .artifacts()
        .expect("artifacts")
        .iter()
        .filter_map(|a| fs::read_to_string(root.join(&a.path)).ok())
        .map(|t| t.lines().count())
        .sum();
    println!(
        "repository: {} ({} files listed, {lines} lines)",
        root.display(),
        stats.listed
    );
    println!(
        "cold full graph: {cold:.2} s, {:.0} files/s, {:.0} lines/s, {} nodes, {} edges",
        stats.listed as f64 / cold,
        lines as f64 / cold,
        graph.node_count(),
        graph.edge_count()
    );
    for (relation, count) in graph.relation_counts() {
        println!("  {relation:?}: {count}");
    }
    drop(graph);

    // Touch 10 files: append a line to each.
    let artifacts = session.artifacts().expect("artifacts");
    let step = (artifacts.len() / 10).max(1);
    for a in artifacts.iter().step_by(step).take(10) {
        let path = root.join(&a.path);
        let mut text = fs::read_to_string(&path).unwrap_or_default();
        text.push('\n');
        fs::write(&path, text).expect("touch");
    }
    let start = Instant::now();
    let graph = session.graph().expect("graph");
    let warm = start.elapsed().as_secs_f64();
    let stats = session.stats();
    println!(
        "warm re-query after touching 10 files: {warm:.3} s ({} re-parsed, {} reused), {} edges",
        stats.parsed,
        stats.reused,
        graph.edge_count()
    );
    let start = Instant::now();
    session.graph().expect("graph");
    println!("unchanged re-query: {:.3} s", start.elapsed().as_secs_f64());
    if let Some(rss) = synthetic::peak_rss_mib() {
        println!("peak RSS: {rss:.0} MiB");
    }
}
