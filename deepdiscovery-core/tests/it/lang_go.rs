//! Go fixture (`tests/fixtures/go_app`): facts, import resolution through `go.mod`,
//! embedding and edges.

use deepdiscovery_core::facts::{DefKind, SuperKind};
use deepdiscovery_core::{MemorySource, Relation, Session};

use crate::support::{assert_edge, assert_no_edge, fixture_graph, fixture_path};

const MAIN: &str = "cmd/shop/main.go";
const CONFIG: &str = "internal/config/config.go";
const ORDER: &str = "internal/orders/order.go";
const PRICING: &str = "internal/orders/pricing.go";
const ORDER_TEST: &str = "internal/orders/order_test.go";
const STAMP: &str = "internal/audit/stamp.go";
const STORE: &str = "internal/store/store.go";
const MEMORY: &str = "internal/store/memory.go";

#[test]
fn module_imports_resolve_to_every_file_of_the_package() {
    let graph = fixture_graph("go_app");
    // Aliased import in a group: both files of the package, not its test file.
    assert_edge(
        &graph,
        MAIN,
        ORDER,
        Relation::Imports,
        "imports `example.com/shop/internal/orders` (line 8)",
    );
    assert_edge(
        &graph,
        MAIN,
        PRICING,
        Relation::Imports,
        "imports `example.com/shop/internal/orders` (line 8)",
    );
    assert_no_edge(&graph, MAIN, ORDER_TEST, Relation::Imports);
    assert_edge(
        &graph,
        MAIN,
        STORE,
        Relation::Imports,
        "internal/store` (line 9)",
    );
    assert_edge(
        &graph,
        MAIN,
        MEMORY,
        Relation::Imports,
        "internal/store` (line 9)",
    );
    // A single (ungrouped) import, and an external test package importing its package.
    assert_edge(
        &graph,
        PRICING,
        CONFIG,
        Relation::Imports,
        "imports `example.com/shop/internal/config` (line 3)",
    );
    assert_edge(
        &graph,
        ORDER_TEST,
        ORDER,
        Relation::Imports,
        "internal/orders` (line 7)",
    );
    // `fmt` and `github.com/google/uuid` are outside the repository.
    let mut targets: Vec<String> = graph
        .edges_from(MAIN)
        .iter()
        .filter(|e| e.relation == Relation::Imports)
        .map(|e| e.to.to_string())
        .collect();
    targets.sort();
    assert_eq!(targets, [CONFIG, ORDER, PRICING, MEMORY, STORE]);
}

#[test]
fn struct_embedding_is_inheritance() {
    let graph = fixture_graph("go_app");
    let edge = assert_edge(
        &graph,
        ORDER,
        STAMP,
        Relation::Inherits,
        "`Order` extends `Stamp` (line 11)",
    );
    assert!(
        edge.confidence > 0.9,
        "imported package: {}",
        edge.confidence
    );
}

#[test]
fn calls_link_by_rare_names_and_not_by_common_ones() {
    let graph = fixture_graph("go_app");
    assert_edge(
        &graph,
        ORDER,
        PRICING,
        Relation::Calls,
        "calls `ApplyLoyaltyDiscount` (line 24)",
    );
    assert_edge(
        &graph,
        ORDER,
        STAMP,
        Relation::Calls,
        "calls `TouchStamp` (line 25)",
    );
    // A call through the interface reaches the interface and its implementation.
    assert_edge(
        &graph,
        MAIN,
        MEMORY,
        Relation::Calls,
        "`NewMemoryStore` (line 14)",
    );
    assert_edge(
        &graph,
        MAIN,
        STORE,
        Relation::Calls,
        "calls `SaveOrder` (line 16)",
    );
    assert_edge(
        &graph,
        MAIN,
        STORE,
        Relation::References,
        "uses `Store` (line 14)",
    );
    // `config.Get` is called from most files: imports, but no call edges.
    assert_edge(&graph, ORDER, CONFIG, Relation::Imports, "internal/config");
    for file in [MAIN, ORDER, PRICING, STORE, MEMORY, STAMP] {
        assert_no_edge(&graph, file, CONFIG, Relation::Calls);
    }
}

#[test]
fn facts_have_package_qualified_definitions_and_docs() {
    let session = Session::open(fixture_path("go_app")).unwrap();
    let order = session.facts(ORDER).unwrap();
    assert_eq!(order.package.as_deref(), Some("orders"));
    assert_eq!(
        order.doc.as_deref(),
        Some("Package orders models customer orders.")
    );
    let defs: Vec<(DefKind, &str)> = order
        .definitions
        .iter()
        .map(|d| (d.kind, d.qualified.as_deref().unwrap_or("")))
        .collect();
    assert_eq!(
        defs,
        [
            (DefKind::Struct, "orders.Order"),
            (DefKind::Constant, "orders.StatusOpen"),
            (DefKind::Constant, "orders.StatusPaid"),
            (DefKind::Function, "orders.NewOrder"),
        ]
    );
    let new_order = order
        .definitions
        .iter()
        .find(|d| d.name == "NewOrder")
        .unwrap();
    assert_eq!(
        new_order.signature,
        "func NewOrder(id string, total int64) *Order {"
    );
    assert_eq!((new_order.span.start, new_order.span.end), (23, 28));
    let imports: Vec<&str> = order.imports.iter().map(|i| i.target.as_str()).collect();
    assert_eq!(
        imports,
        [
            "example.com/shop/internal/audit",
            "example.com/shop/internal/config"
        ]
    );
    assert!(
        order
            .supertypes
            .iter()
            .any(|s| s.child == "Order" && s.parent == "Stamp" && s.kind == SuperKind::Extends)
    );

    let store = session.facts(STORE).unwrap();
    let interface = store
        .definitions
        .iter()
        .find(|d| d.name == "Store")
        .unwrap();
    assert_eq!(interface.kind, DefKind::Interface);
    let save = store
        .definitions
        .iter()
        .find(|d| d.name == "SaveOrder")
        .unwrap();
    assert_eq!(
        (save.kind, save.qualified.as_deref()),
        (DefKind::Method, Some("store.Store.SaveOrder"))
    );

    let memory = session.facts(MEMORY).unwrap();
    let load = memory
        .definitions
        .iter()
        .find(|d| d.name == "LoadOrder")
        .unwrap();
    assert_eq!(load.kind, DefKind::Method);
    assert_eq!(
        load.signature,
        "func (m *MemoryStore) LoadOrder(id string) (*orders.Order, error) {"
    );

    let test = session.facts(ORDER_TEST).unwrap();
    assert_eq!(test.package.as_deref(), Some("orders_test"));
}

#[test]
fn a_syntax_error_keeps_what_parsed() {
    let session = Session::open(fixture_path("go_app")).unwrap();
    let facts = session.facts("tools/broken/broken.go").unwrap();
    let names: Vec<&str> = facts.definitions.iter().map(|d| d.name.as_str()).collect();
    assert!(
        names.contains(&"StillParsed") && names.contains(&"AlsoParsed"),
        "{names:?}"
    );
    assert!(
        facts.problems.iter().any(|p| p.contains("syntax error")),
        "{:?}",
        facts.problems
    );
}

#[test]
fn nested_modules_and_local_replacements() {
    let mut source = MemorySource::new();
    let files = [
        (
            "go.mod",
            "module example.com/app\n\nreplace example.com/lib => ./third_party/lib\n",
        ),
        (
            "main.go",
            "package main\n\nimport (\n\t\"example.com/app/tools/gen\"\n\t\"example.com/lib/text\"\n)\n",
        ),
        (
            "tools/go.mod",
            "module example.com/app/tools // a nested module\n",
        ),
        ("tools/gen/gen.go", "package gen\n"),
        ("third_party/lib/go.mod", "module example.com/lib\n"),
        ("third_party/lib/text/text.go", "package text\n"),
        ("third_party/lib/text/text_test.go", "package text\n"),
    ];
    for (path, text) in files {
        source.insert(path, text).unwrap();
    }
    let graph = Session::new(source).graph().unwrap();
    assert_edge(
        &graph,
        "main.go",
        "tools/gen/gen.go",
        Relation::Imports,
        "imports `example.com/app/tools/gen` (line 4)",
    );
    assert_edge(
        &graph,
        "main.go",
        "third_party/lib/text/text.go",
        Relation::Imports,
        "example.com/lib/text",
    );
    assert_no_edge(
        &graph,
        "main.go",
        "third_party/lib/text/text_test.go",
        Relation::Imports,
    );
}
