//! The query's graph covers the task's neighbourhood, not the repository: files that
//! write the anchors' names are parsed and linked, unrelated ones are not parsed,
//! and the answer equals the full graph's where the neighbourhood holds the links.

use deepdiscovery_core::{DiscoverConfig, MemorySource, Relation, Session, Task};

const TASK: &str = "Refunds are rounded twice: `settle_refund_amount` rounds to cents \
                    after the ledger already did";

/// A repository of 200 unrelated modules plus a refund module, a caller of it in
/// another package, a subclass of its class in a third, and its test.
fn repository() -> Vec<(String, String)> {
    let mut files: Vec<(String, String)> = (0..200)
        .map(|i| {
            (
                format!("catalog/items/item{i}.py"),
                format!(
                    "\"\"\"Catalog item {i}.\"\"\"\n\n\ndef describe_item_{i}(item):\n    return item.name\n"
                ),
            )
        })
        .collect();
    // Files that match the task's words better than the anchor's users do: they fill
    // the Location stage's best candidates, so the users are found by name only.
    files.extend((0..40).map(|i| {
        (
            format!("ledger/refund_rounding/refund_rounding_{i}.py"),
            format!(
                "\"\"\"Refunds rounded to cents in the ledger ({i}).\"\"\"\n\n\n\
                 def refund_rounding_{i}(refunds, cents):\n    return [round(r, cents) for r in refunds]\n"
            ),
        )
    }));
    files.push((
        "payments/refunds.py".into(),
        "\"\"\"Refund settlement.\"\"\"\n\n\nclass RefundPolicy:\n    cents = 2\n\n\n\
         def settle_refund_amount(amount, policy):\n    return round(round(amount, 2), policy.cents)\n"
            .into(),
    ));
    files.push((
        "backoffice/jobs/nightly.py".into(),
        "\"\"\"Nightly jobs.\"\"\"\nfrom payments import refunds\n\n\n\
         def run_nightly(batch):\n    return [refunds.settle_refund_amount(a, p) for a, p in batch]\n"
            .into(),
    ));
    files.push((
        "partners/acme/policy.py".into(),
        "\"\"\"Acme's refund rules.\"\"\"\nfrom payments.refunds import RefundPolicy\n\n\n\
         class AcmeRefundPolicy(RefundPolicy):\n    cents = 0\n"
            .into(),
    ));
    files.push((
        "tests/test_refunds.py".into(),
        "from payments.refunds import settle_refund_amount, RefundPolicy\n\n\n\
         def test_rounds_once():\n    assert settle_refund_amount(1.005, RefundPolicy()) == 1.0\n"
            .into(),
    ));
    files
}

#[test]
fn the_graph_parses_the_neighbourhood_and_links_it() {
    let files = repository();
    let session = Session::new(MemorySource::from_files(files.clone()).unwrap());
    let task = Task::new(TASK).unwrap();
    let package = session.discover(&task, &DiscoverConfig::default()).unwrap();
    assert_eq!(package.anchors[0].path, "payments/refunds.py");
    for (from, relation) in [
        ("backoffice/jobs/nightly.py", Relation::Calls),
        ("partners/acme/policy.py", Relation::Inherits),
        ("tests/test_refunds.py", Relation::TestOf),
    ] {
        assert!(
            package
                .relations
                .iter()
                .any(|r| r.from == from && r.to == "payments/refunds.py" && r.relation == relation),
            "{from} -{relation:?}-> payments/refunds.py: {:?}",
            package.relations
        );
    }
    // The catalog says nothing of refunds: most of it is never parsed.
    assert!(
        package.budget.files_parsed < files.len() / 2,
        "{} of {} files parsed",
        package.budget.files_parsed,
        files.len()
    );
    let full = Session::new(MemorySource::from_files(files.clone()).unwrap());
    let config = DiscoverConfig {
        full_graph: true,
        ..DiscoverConfig::default()
    };
    let whole = full.discover(&task, &config).unwrap();
    assert_eq!(whole.budget.files_parsed, files.len());
    assert_eq!(package.file_paths(), whole.file_paths());
}

#[test]
fn scope_limits_are_checked() {
    let session = Session::new(MemorySource::from_files(repository()).unwrap());
    let task = Task::new(TASK).unwrap();
    let mut config = DiscoverConfig::default();
    config.scope.rounds = 9;
    let error = session.discover(&task, &config).unwrap_err().to_string();
    assert!(error.contains("scope.rounds"), "{error}");
    config.scope.rounds = 0;
    // No growth: the graph holds the seeds' facts alone, and discover still answers.
    let package = session.discover(&task, &config).unwrap();
    assert_eq!(package.anchors[0].path, "payments/refunds.py");
}

#[test]
fn a_hub_offers_its_best_links_only() {
    // A module manifest with 400 member files: every member links to it (SameModule),
    // so expansion from it must not cost (and parse) all 400.
    let mut files: Vec<(String, String)> = (0..400)
        .map(|i| {
            (
                format!("pkg{}/file{i}.go", i / 20),
                format!(
                    "package pkg{}\n\nfunc Handler{i}() int {{ return {i} }}\n",
                    i / 20
                ),
            )
        })
        .collect();
    files.push((
        "go.mod".into(),
        "module example.com/old/platform\n\ngo 1.22\n".into(),
    ));
    let session = Session::new(MemorySource::from_files(files.clone()).unwrap());
    let task = Task::new("go.mod declares the old module path example.com/old/platform").unwrap();
    let package = session.discover(&task, &DiscoverConfig::default()).unwrap();
    assert_eq!(package.anchors[0].path, "go.mod");
    let parsed = session.stats().parsed;
    assert!(
        parsed < files.len() / 2,
        "{parsed} of {} files parsed for one query",
        files.len()
    );
}

#[test]
fn growth_leaves_files_over_the_size_limit_unparsed() {
    // A generated table of 6,000 entries that each call a helper of the anchor: about
    // 300 KiB, over the default limit of 256 KiB. None of its words is the task's, so
    // only growth (from the helper's name) reaches it.
    let mut files = repository();
    let anchor = files
        .iter_mut()
        .find(|(path, _)| path == "payments/refunds.py")
        .unwrap();
    anchor
        .1
        .push_str("\n\ndef zq_table_entry(code, value):\n    return (code, value)\n");
    let table: String = (0..6000)
        .map(|i| format!("def entry_{i}():\n    return zq_table_entry({i}, {i})\n\n"))
        .collect();
    assert!(table.len() > 256 << 10);
    files.push((
        "generated/table.py".into(),
        format!("from payments.lookup import *\n\n{table}"),
    ));
    // Whether the query parsed the table.
    let parsed = |config: &DiscoverConfig| {
        let session = Session::new(MemorySource::from_files(files.clone()).unwrap());
        let package = session.discover(&Task::new(TASK).unwrap(), config).unwrap();
        assert_eq!(package.anchors[0].path, "payments/refunds.py");
        let artifacts = session.artifacts().unwrap();
        let table = artifacts.iter().find(|a| a.path == "generated/table.py");
        table.unwrap().facts.is_some()
    };
    let mut config = DiscoverConfig::default();
    assert!(!parsed(&config), "the large file was parsed by growth");
    config.scope.max_file_bytes = 1 << 20;
    assert!(parsed(&config), "under a higher limit growth parses it");
}
