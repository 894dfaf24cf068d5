//! Prints the multi-relational graph of a repository: what was read, what was
//! skipped, edge counts per relation, and the edges of the most connected files.
//!
//! ```sh
//! cargo run --release -p deepdiscovery-core --example graph -- [REPO] [FILE]
//! ```
//! With a FILE, prints every edge from and to that file instead.

use std::time::Instant;

use deepdiscovery_core::Session;

fn main() {
    let mut args = std::env::args().skip(1);
    let root = args
        .next()
        .unwrap_or_else(|| "tests/fixtures/mixed_app".to_string());
    let focus = args.next();
    if let Err(e) = run(&root, focus.as_deref()) {
        eprintln!("error: {e}");
        std::process::exit(1);
    }
}

fn run(root: &str, focus: Option<&str>) -> deepdiscovery_core::Result<()> {
    let session = Session::open(root)?;
    let start = Instant::now();
    let graph = session.graph()?;
    let cold = start.elapsed();
    let stats = session.stats();
    println!("repository {root}");
    println!(
        "  {} artifacts, {} edges, built in {:.1} ms ({} parsed, {} skipped, {} with recovered problems)",
        graph.node_count(),
        graph.edge_count(),
        cold.as_secs_f64() * 1e3,
        stats.parsed,
        stats.skipped.total(),
        stats.with_problems
    );
    for (reason, count) in &stats.skipped.counts {
        println!("  skipped {count} ({reason:?})");
    }
    println!("edges by relation:");
    for (relation, count) in graph.relation_counts() {
        println!("  {relation:?}: {count}");
    }
    let start = Instant::now();
    session.graph()?;
    println!(
        "warm re-query: {:.1} ms",
        start.elapsed().as_secs_f64() * 1e3
    );

    let focus: Vec<String> = match focus {
        Some(f) => vec![f.to_string()],
        None => {
            let mut by_degree: Vec<(usize, &str)> = graph
                .nodes()
                .map(|n| (graph.edges_from(&n.path).len(), n.path.as_str()))
                .collect();
            by_degree.sort_by(|a, b| b.0.cmp(&a.0).then(a.1.cmp(b.1)));
            by_degree
                .iter()
                .take(3)
                .map(|(_, p)| p.to_string())
                .collect()
        }
    };
    for path in focus {
        let Some(node) = graph.node(&path) else {
            println!("\n{path}: not an artifact of the repository");
            continue;
        };
        println!("\n{} ({}, {})", node.path, node.language, node.role);
        for e in graph.edges_from(&path) {
            println!(
                "  -> {:<40} {:?} {:.2}  {}",
                e.to, e.relation, e.confidence, e.rationale
            );
        }
        for e in graph.edges_to(&path) {
            println!(
                "  <- {:<40} {:?} {:.2}  {}",
                e.from, e.relation, e.confidence, e.rationale
            );
        }
    }
    Ok(())
}
