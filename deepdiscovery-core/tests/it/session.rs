//! Sessions: cached facts, fresh answers after edits, determinism across threads.

use std::fs;
use std::path::Path;

use deepdiscovery_core::{MemorySource, Relation, Session};
use proptest::prelude::*;

use crate::support::fixture_path;

fn write(root: &Path, rel: &str, content: &str) {
    let path = root.join(rel);
    fs::create_dir_all(path.parent().unwrap()).unwrap();
    fs::write(path, content).unwrap();
}

fn edge_dump(session: &Session) -> Vec<String> {
    session
        .graph()
        .unwrap()
        .edges()
        .iter()
        .map(|e| {
            format!(
                "{} {} {:?} {:.6} {}",
                e.from, e.to, e.relation, e.confidence, e.rationale
            )
        })
        .collect()
}

#[test]
fn edits_deletions_and_additions_are_seen_at_the_next_query() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    write(root, "app/main.py", "from app.util import helper\n");
    write(root, "app/util.py", "def helper():\n    return 1\n");
    write(root, "app/other.py", "def other_thing():\n    return 2\n");
    let session = Session::open(root).unwrap();
    let graph = session.graph().unwrap();
    assert!(
        graph
            .edge("app/main.py", "app/util.py", Relation::Imports)
            .is_some()
    );
    assert_eq!(session.stats().parsed, 3);

    // Nothing changed: everything reused, same graph object.
    let again = session.graph().unwrap();
    assert!(std::sync::Arc::ptr_eq(&graph, &again));
    assert_eq!((session.stats().parsed, session.stats().reused), (0, 3));

    // Edit (the racy-mtime rule re-hashes files written this recently), delete, add.
    write(root, "app/main.py", "from app.other import other_thing\n");
    fs::remove_file(root.join("app/util.py")).unwrap();
    write(root, "app/new.py", "import app.other\n");
    let graph = session.graph().unwrap();
    let stats = session.stats();
    assert_eq!(stats.removed, 1);
    assert_eq!(stats.parsed, 2, "{stats:?}");
    assert!(graph.node("app/util.py").is_none());
    assert!(
        graph
            .edge("app/main.py", "app/util.py", Relation::Imports)
            .is_none()
    );
    assert!(
        graph
            .edge("app/main.py", "app/other.py", Relation::Imports)
            .is_some()
    );
    assert!(
        graph
            .edge("app/new.py", "app/other.py", Relation::Imports)
            .is_some()
    );
    let facts = session.facts("app/main.py").unwrap();
    assert_eq!(facts.imports[0].target, "app.other");
}

#[test]
fn a_same_size_edit_within_the_same_mtime_is_still_seen() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    write(root, "a.py", "import b\n");
    write(root, "b.py", "x = 1\n");
    write(root, "c.py", "y = 1\n");
    let session = Session::open(root).unwrap();
    session.graph().unwrap();
    let mtime = fs::metadata(root.join("a.py")).unwrap().modified().unwrap();
    write(root, "a.py", "import c\n");
    // Restore the old mtime: size and mtime now match the cache, the content does not.
    let file = fs::File::options()
        .write(true)
        .open(root.join("a.py"))
        .unwrap();
    file.set_modified(mtime).unwrap();
    let graph = session.graph().unwrap();
    assert!(graph.edge("a.py", "c.py", Relation::Imports).is_some());
    assert!(graph.edge("a.py", "b.py", Relation::Imports).is_none());
}

#[test]
fn memory_sources_are_revalidated_by_content() {
    let mut source = MemorySource::new();
    source.insert("m.py", "import n\n").unwrap();
    source.insert("n.py", "").unwrap();
    let session = Session::new(source.clone());
    assert!(
        session
            .graph()
            .unwrap()
            .edge("m.py", "n.py", Relation::Imports)
            .is_some()
    );
    assert!(session.facts("nope.py").is_err());
}

#[test]
fn output_is_identical_with_one_and_two_threads() {
    let run = |threads: usize| {
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(threads)
            .build()
            .unwrap();
        pool.install(|| {
            let session = Session::open(fixture_path("python_app")).unwrap();
            edge_dump(&session)
        })
    };
    let one = run(1);
    assert!(!one.is_empty());
    assert_eq!(one, run(2));
    assert_eq!(one, run(2));
}

fn name() -> impl Strategy<Value = String> {
    prop::sample::select(vec!["alpha", "beta", "gamma", "delta", "epsilon", "zeta"])
        .prop_map(str::to_string)
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(24))]

    /// Whatever the repository, every edge joins two listed artifacts, has a
    /// confidence in [0, 1] and a rationale, and two builds agree.
    #[test]
    fn graph_invariants_hold_on_random_repositories(
        files in prop::collection::btree_map(
            prop::collection::vec(name(), 1..3).prop_map(|p| p.join("/") + ".py"),
            prop::collection::vec((name(), name(), 0..3u8), 0..4),
            1..8,
        )
    ) {
        let mut source = MemorySource::new();
        for (path, lines) in &files {
            let mut text = String::new();
            for (a, b, form) in lines {
                text.push_str(&match form {
                    0 => format!("import {a}.{b}\n"),
                    1 => format!("from {a} import {b}\n"),
                    _ => format!("def {a}_{b}():\n    return {b}_{a}()\n"),
                });
            }
            source.insert(path.clone(), text).unwrap();
        }
        let first = edge_dump(&Session::new(source.clone()));
        let session = Session::new(source);
        let graph = session.graph().unwrap();
        for e in graph.edges() {
            prop_assert!(files.contains_key(e.from) && files.contains_key(e.to));
            prop_assert!(e.from != e.to);
            prop_assert!((0.0..=1.0).contains(&e.confidence));
            prop_assert!(!e.rationale.is_empty());
        }
        prop_assert_eq!(first, edge_dump(&session));
    }
}

#[test]
fn facts_are_computed_only_for_the_files_asked_for() {
    let session = Session::open(fixture_path("python_app")).unwrap();
    let listed = session.artifacts().unwrap();
    assert!(listed.len() > 10);
    assert!(
        listed.iter().all(|a| a.facts.is_none()),
        "listing reads nothing"
    );
    assert_eq!(session.stats().parsed, 0);
    session.facts("src/shop/orders.py").unwrap();
    assert_eq!(session.stats().parsed, 1);
    let both = session
        .facts_for(&["src/shop/orders.py", "src/shop/util.py", "not/there.py"])
        .unwrap();
    let paths: Vec<&str> = both.iter().map(|(p, _)| p.as_str()).collect();
    assert_eq!(paths, ["src/shop/orders.py", "src/shop/util.py"]);
    assert_eq!(
        session.stats().parsed,
        1,
        "orders.py was reused, util.py parsed"
    );
}

#[test]
fn a_root_removed_or_replaced_during_a_session_is_the_error_opening_it_gives() {
    use deepdiscovery_core::{DiscoverConfig, Error, Task};
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("repo");
    write(&root, "app/main.py", "def main():\n    return 1\n");
    let task = Task::new("main returns the wrong value").unwrap();
    let config = DiscoverConfig::default();
    for watched in [false, true] {
        let source = deepdiscovery_core::FsSource::builder(&root)
            .watch(watched)
            .build()
            .unwrap();
        let session = Session::new(source);
        assert!(session.discover(&task, &config).is_ok());
        fs::remove_dir_all(&root).unwrap();
        let err = session.discover(&task, &config).unwrap_err();
        assert!(matches!(err, Error::RootNotFound(_)), "{err:?}");
        assert!(matches!(session.graph(), Err(Error::RootNotFound(_))));
        // Replaced by a file.
        fs::write(&root, "not a directory").unwrap();
        let err = session.discover(&task, &config).unwrap_err();
        assert!(matches!(err, Error::RootNotDirectory(_)), "{err:?}");
        // Back again: the session answers as before.
        fs::remove_file(&root).unwrap();
        write(&root, "app/main.py", "def main():\n    return 1\n");
        let package = session.discover(&task, &config).unwrap();
        assert_eq!(package.file_paths(), ["app/main.py"]);
    }
}
