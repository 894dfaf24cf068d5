//! Helpers shared by the integration tests.

use std::path::PathBuf;
use std::sync::Arc;

use deepdiscovery_core::graph::Edge;
use deepdiscovery_core::{ContextPackage, Relation, RepoGraph, Session};

/// The path of a fixture repository under `tests/fixtures/` at the workspace root.
pub fn fixture_path(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../tests/fixtures")
        .join(name)
}

/// The package as JSON without wall times (the only part allowed to differ between
/// two runs): the stages' and the language model's milliseconds are zeroed.
pub fn stable_json(package: &ContextPackage) -> serde_json::Value {
    let mut value: serde_json::Value = serde_json::from_str(&package.to_json()).unwrap();
    for stage in value["budget"]["stages"].as_array_mut().unwrap() {
        stage["millis"] = 0.into();
    }
    if let Some(llm) = value["budget"]["llm"].as_object_mut() {
        llm.insert("millis".into(), 0.into());
    }
    value
}

/// The graph of a fixture repository, read from disk.
pub fn fixture_graph(name: &str) -> Arc<RepoGraph> {
    let session = Session::open(fixture_path(name)).expect("fixture opens");
    session.graph().expect("graph builds")
}

/// Asserts that an edge of `relation` goes from `from` to `to` with a rationale that
/// contains `rationale_part`; returns it.
pub fn assert_edge<'g>(
    graph: &'g RepoGraph,
    from: &str,
    to: &str,
    relation: Relation,
    rationale_part: &str,
) -> Edge<'g> {
    let edge = graph.edge(from, to, relation).unwrap_or_else(|| {
        let out: Vec<String> = graph
            .edges_from(from)
            .iter()
            .map(|e| format!("  {:?} -> {} ({})", e.relation, e.to, e.rationale))
            .collect();
        panic!(
            "missing {relation:?} edge {from} -> {to}; edges from {from}:\n{}",
            out.join("\n")
        )
    });
    assert!(
        edge.rationale.contains(rationale_part),
        "rationale of {from} -> {to} ({relation:?}) is {:?}, expected it to contain {rationale_part:?}",
        edge.rationale
    );
    assert!(
        (0.0..=1.0).contains(&edge.confidence),
        "confidence out of range: {}",
        edge.confidence
    );
    edge
}

/// Asserts that no edge of `relation` goes from `from` to `to`.
pub fn assert_no_edge(graph: &RepoGraph, from: &str, to: &str, relation: Relation) {
    if let Some(edge) = graph.edge(from, to, relation) {
        panic!(
            "unexpected {relation:?} edge {from} -> {to}: {}",
            edge.rationale
        );
    }
}

/// The targets of the import edges of `from`, sorted.
pub fn imported(graph: &RepoGraph, from: &str) -> Vec<String> {
    let mut out: Vec<String> = graph
        .edges_from(from)
        .iter()
        .filter(|e| e.relation == Relation::Imports)
        .map(|e| e.to.to_string())
        .collect();
    out.sort();
    out
}

/// The paths of `package` but those only the learned change-set completion guessed
/// ("matches the task beside ..."): in a fixture of a few files that guess follows a
/// file's rank alone, and reads no relation and no history.
pub fn paths_not_guessed(package: &ContextPackage) -> Vec<&str> {
    package
        .files
        .iter()
        .filter(|f| {
            !f.rationale
                .iter()
                .any(|r| r.contains("learned change-set completion"))
        })
        .map(|f| f.path.as_str())
        .collect()
}
