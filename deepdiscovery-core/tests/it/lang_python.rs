//! Python fixture (`tests/fixtures/python_app`): facts, import resolution and edges.

use deepdiscovery_core::Relation;
use deepdiscovery_core::facts::{DefKind, KeyKind};

use crate::support::{assert_edge, assert_no_edge, fixture_graph, fixture_path};

const ORDERS: &str = "src/shop/orders.py";
const GATEWAY: &str = "src/shop/payments/gateway.py";
const STRIPE: &str = "src/shop/payments/stripe_gateway.py";
const PRICING: &str = "src/shop/pricing.py";
const UTIL: &str = "src/shop/util.py";

#[test]
fn absolute_imports_resolve_through_the_src_layout() {
    let graph = fixture_graph("python_app");
    // `from shop.payments import gateway`: the package and its submodule.
    assert_edge(
        &graph,
        ORDERS,
        GATEWAY,
        Relation::Imports,
        "imports `shop.payments` (line 2)",
    );
    assert_edge(
        &graph,
        ORDERS,
        "src/shop/payments/__init__.py",
        Relation::Imports,
        "line 2",
    );
    assert_edge(
        &graph,
        ORDERS,
        STRIPE,
        Relation::Imports,
        "imports `shop.payments.stripe_gateway` (line 3)",
    );
    // An import inside a function body counts too.
    assert_edge(
        &graph,
        ORDERS,
        PRICING,
        Relation::Imports,
        "imports `shop.pricing` (line 13)",
    );
    assert_edge(
        &graph,
        "tests/test_orders.py",
        ORDERS,
        Relation::Imports,
        "shop.orders",
    );
    assert_edge(
        &graph,
        "src/shop/cli.py",
        ORDERS,
        Relation::Imports,
        "imports `shop` (line 4)",
    );
}

#[test]
fn relative_imports_resolve_by_level() {
    let graph = fixture_graph("python_app");
    assert_edge(
        &graph,
        STRIPE,
        GATEWAY,
        Relation::Imports,
        "imports `.gateway` (line 2)",
    );
    assert_edge(
        &graph,
        STRIPE,
        UTIL,
        Relation::Imports,
        "imports `..util` (line 3)",
    );
    assert_edge(
        &graph,
        "src/shop/payments/__init__.py",
        GATEWAY,
        Relation::Imports,
        ".gateway",
    );
    // Standard library imports resolve to nothing in the repository.
    assert!(
        graph
            .edges_from(GATEWAY)
            .iter()
            .all(|e| e.relation != Relation::Imports)
    );
}

#[test]
fn inheritance_links_subclass_to_base_class_file() {
    let graph = fixture_graph("python_app");
    let edge = assert_edge(
        &graph,
        STRIPE,
        GATEWAY,
        Relation::Inherits,
        "`StripeGateway` extends `PaymentGateway` (line 6)",
    );
    assert!(edge.confidence > 0.9, "imported base: {}", edge.confidence);
}

#[test]
fn calls_link_by_rare_names_and_not_by_common_ones() {
    let graph = fixture_graph("python_app");
    let edge = assert_edge(
        &graph,
        ORDERS,
        PRICING,
        Relation::Calls,
        "`compute_discount_ratio`",
    );
    assert!(
        edge.confidence > 0.3,
        "rare name links strongly: {}",
        edge.confidence
    );
    // `get` is used by most files: it links nothing.
    assert_no_edge(&graph, ORDERS, UTIL, Relation::Calls);
    assert_no_edge(&graph, GATEWAY, PRICING, Relation::Calls);
}

#[test]
fn organizational_edges_come_from_tree_manifest_and_codeowners() {
    let graph = fixture_graph("python_app");
    assert_edge(
        &graph,
        ORDERS,
        "pyproject.toml",
        Relation::SameModule,
        "pyproject.toml",
    );
    assert_eq!(graph.module_of(GATEWAY), Some("pyproject.toml"));
    assert_edge(
        &graph,
        STRIPE,
        "CODEOWNERS",
        Relation::Owner,
        "@payments-team (CODEOWNERS line 3)",
    );
    assert_edge(
        &graph,
        ORDERS,
        "CODEOWNERS",
        Relation::Owner,
        "@shop-team (CODEOWNERS line 2)",
    );
    assert_no_edge(&graph, "config/app.yaml", "CODEOWNERS", Relation::Owner);
    assert_edge(
        &graph,
        GATEWAY,
        STRIPE,
        Relation::SameDir,
        "src/shop/payments",
    );
}

#[test]
fn facts_have_definitions_docs_and_dotted_paths() {
    let session = deepdiscovery_core::Session::open(fixture_path("python_app")).unwrap();
    let gateway = session.facts(GATEWAY).unwrap();
    assert_eq!(
        gateway.doc.as_deref(),
        Some("The payment gateway interface every provider implements.")
    );
    let class = gateway
        .definitions
        .iter()
        .find(|d| d.name == "PaymentGateway")
        .unwrap();
    assert_eq!(class.kind, DefKind::Class);
    assert_eq!(class.signature, "class PaymentGateway(ABC):");
    assert_eq!((class.span.start, class.span.end), (5, 11));
    let charge = gateway
        .definitions
        .iter()
        .find(|d| d.name == "charge")
        .unwrap();
    assert_eq!(charge.qualified.as_deref(), Some("PaymentGateway.charge"));

    let stripe = session.facts(STRIPE).unwrap();
    assert_eq!(
        stripe.doc.as_deref(),
        Some("A gateway that talks to Stripe.")
    );

    let settings = session.facts("src/shop/settings.py").unwrap();
    let dotted: Vec<&str> = settings
        .string_keys
        .iter()
        .filter(|k| k.kind == KeyKind::DottedPath)
        .map(|k| k.text.as_str())
        .collect();
    assert_eq!(
        dotted,
        ["shop.orders", "shop.payments.stripe_gateway.StripeGateway"]
    );
    assert!(
        settings
            .string_keys
            .iter()
            .any(|k| k.kind == KeyKind::FilePath && k.text == "config/app.yaml")
    );
}

#[test]
fn a_syntax_error_keeps_what_parsed() {
    let session = deepdiscovery_core::Session::open(fixture_path("python_app")).unwrap();
    let facts = session.facts("scripts/broken.py").unwrap();
    let names: Vec<&str> = facts.definitions.iter().map(|d| d.name.as_str()).collect();
    assert!(names.contains(&"ok"), "{names:?}");
    assert!(names.contains(&"StillParsed"), "{names:?}");
    assert!(
        facts.problems.iter().any(|p| p.contains("syntax error")),
        "{:?}",
        facts.problems
    );
}
