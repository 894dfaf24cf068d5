//! Rust fixture (`tests/fixtures/rust_app`, a two-crate workspace): facts, module and
//! `use` resolution, trait implementations and edges.

use deepdiscovery_core::facts::{DefKind, SuperKind};
use deepdiscovery_core::{MemorySource, Relation, Session};

use crate::support::{assert_edge, assert_no_edge, fixture_graph, fixture_path};

const LIB: &str = "crates/shop-core/src/lib.rs";
const ORDERS: &str = "crates/shop-core/src/orders.rs";
const LINE: &str = "crates/shop-core/src/orders/line.rs";
const PRICING: &str = "crates/shop-core/src/pricing.rs";
const UTIL: &str = "crates/shop-core/src/util.rs";
const PAYMENT: &str = "crates/shop-core/src/payment/mod.rs";
const STRIPE: &str = "crates/shop-core/src/payment/stripe.rs";
const IMPLS: &str = "crates/shop-core/src/payment/impls.rs";
const CLI: &str = "crates/shop-cli/src/main.rs";
const COMMANDS: &str = "crates/shop-cli/src/commands.rs";

#[test]
fn mod_declarations_resolve_to_module_files() {
    let graph = fixture_graph("rust_app");
    // `mod orders;` and `pub use crate::orders::Order;`: one edge, both counted.
    assert_edge(&graph, LIB, ORDERS, Relation::Imports, "(line 8) (+1 more)");
    // `payment/mod.rs` form.
    assert_edge(
        &graph,
        LIB,
        PAYMENT,
        Relation::Imports,
        "imports `payment` (line 4)",
    );
    assert_edge(
        &graph,
        LIB,
        UTIL,
        Relation::Imports,
        "imports `util` (line 6)",
    );
    // A non-mod.rs file keeps its child modules in a directory of its name.
    assert_edge(
        &graph,
        ORDERS,
        LINE,
        Relation::Imports,
        "imports `line` (line 3) (+1 more)",
    );
    assert_edge(
        &graph,
        PAYMENT,
        STRIPE,
        Relation::Imports,
        "imports `stripe` (line 4)",
    );
    assert_edge(
        &graph,
        PAYMENT,
        IMPLS,
        Relation::Imports,
        "imports `impls` (line 3)",
    );
    assert_edge(
        &graph,
        CLI,
        COMMANDS,
        Relation::Imports,
        "imports `commands` (line 3)",
    );
}

#[test]
fn use_paths_resolve_to_the_longest_module_prefix() {
    let graph = fixture_graph("rust_app");
    // `crate::`, `self::`, `super::` (from `orders.rs`, `orders/line.rs`, `payment/impls.rs`).
    assert_edge(
        &graph,
        ORDERS,
        PRICING,
        Relation::Imports,
        "imports `crate::pricing::loyalty_discount_percent` (line 8)",
    );
    assert_edge(
        &graph,
        ORDERS,
        UTIL,
        Relation::Imports,
        "imports `super::util::get` (line 9)",
    );
    assert_edge(
        &graph,
        LINE,
        ORDERS,
        Relation::Imports,
        "imports `super::Order` (line 3)",
    );
    assert_edge(
        &graph,
        IMPLS,
        STRIPE,
        Relation::Imports,
        "imports `super::stripe::StripeGateway` (line 3)",
    );
    assert_edge(
        &graph,
        IMPLS,
        PAYMENT,
        Relation::Imports,
        "imports `super` (line 4)",
    );
    // A use list: one import, every leaf resolved.
    assert_edge(
        &graph,
        PAYMENT,
        ORDERS,
        Relation::Imports,
        "imports `crate` (line 8)",
    );
    assert_edge(
        &graph,
        PAYMENT,
        UTIL,
        Relation::Imports,
        "imports `crate` (line 8)",
    );
    // `std` resolves to nothing, and a `use` never reaches the crate root by accident.
    assert_no_edge(&graph, ORDERS, LIB, Relation::Imports);
    assert_no_edge(&graph, PAYMENT, LIB, Relation::Imports);
}

#[test]
fn use_of_another_workspace_crate_resolves_into_it() {
    let graph = fixture_graph("rust_app");
    assert_edge(
        &graph,
        COMMANDS,
        ORDERS,
        Relation::Imports,
        "imports `shop_core::orders::Order` (line 5)",
    );
    // An item re-exported at the crate root is the root file.
    assert_edge(
        &graph,
        CLI,
        LIB,
        Relation::Imports,
        "imports `shop_core::Order` (line 8)",
    );
    assert_edge(
        &graph,
        CLI,
        STRIPE,
        Relation::Imports,
        "imports `shop_core::payment` (line 7)",
    );
    assert_edge(
        &graph,
        CLI,
        PAYMENT,
        Relation::Imports,
        "imports `shop_core::payment` (line 7)",
    );
    assert_no_edge(&graph, CLI, ORDERS, Relation::Imports);
}

#[test]
fn trait_impls_in_another_file_are_implementations() {
    let graph = fixture_graph("rust_app");
    let edge = assert_edge(
        &graph,
        IMPLS,
        PAYMENT,
        Relation::Implements,
        "`StripeGateway` implements `Describe` (line 7)",
    );
    assert!(
        edge.rationale.contains("+1 more"),
        "both traits: {}",
        edge.rationale
    );
    assert!(
        edge.confidence > 0.9,
        "imported traits: {}",
        edge.confidence
    );
    assert_edge(
        &graph,
        IMPLS,
        STRIPE,
        Relation::References,
        "uses `StripeGateway` (line 7)",
    );
}

#[test]
fn calls_link_by_rare_names_and_not_by_common_ones() {
    let graph = fixture_graph("rust_app");
    assert_edge(
        &graph,
        ORDERS,
        PRICING,
        Relation::Calls,
        "calls `loyalty_discount_percent` (line 23)",
    );
    assert_edge(
        &graph,
        CLI,
        COMMANDS,
        Relation::Calls,
        "calls `print_total` (line 20)",
    );
    assert_edge(
        &graph,
        IMPLS,
        PAYMENT,
        Relation::Calls,
        "calls `gateway_error` (line 16)",
    );
    // Through the trait: the trait's file (imported) and the impl's file.
    assert_edge(
        &graph,
        CLI,
        PAYMENT,
        Relation::Calls,
        "calls `charge_order` (line 15)",
    );
    assert_edge(
        &graph,
        CLI,
        IMPLS,
        Relation::Calls,
        "calls `charge_order` (line 15)",
    );
    // `get` is called in most files: imported from util, but no call edge.
    assert_edge(&graph, PRICING, UTIL, Relation::Imports, "crate::util");
    for file in [PRICING, ORDERS, PAYMENT, COMMANDS, CLI] {
        assert_no_edge(&graph, file, UTIL, Relation::Calls);
    }
}

#[test]
fn facts_have_definitions_with_module_paths_and_docs() {
    let session = Session::open(fixture_path("rust_app")).unwrap();
    let lib = session.facts(LIB).unwrap();
    assert_eq!(
        lib.doc.as_deref(),
        Some("The shop's domain: orders, pricing and payment.")
    );
    assert_eq!(lib.package, None);
    let defs: Vec<(DefKind, &str, Option<&str>)> = lib
        .definitions
        .iter()
        .map(|d| (d.kind, d.name.as_str(), d.qualified.as_deref()))
        .collect();
    assert_eq!(
        defs,
        [
            (DefKind::Constant, "CURRENCY", None),
            (DefKind::Module, "debug", None),
            (DefKind::Function, "dump_order", Some("debug::dump_order")),
        ]
    );
    let targets: Vec<&str> = lib.imports.iter().map(|i| i.target.as_str()).collect();
    assert_eq!(
        targets,
        [
            "orders",
            "payment",
            "pricing",
            "util",
            "crate::orders::Order"
        ]
    );

    let payment = session.facts(PAYMENT).unwrap();
    let gateway = payment
        .definitions
        .iter()
        .find(|d| d.name == "Gateway")
        .unwrap();
    assert_eq!(gateway.kind, DefKind::Trait);
    assert_eq!(gateway.signature, "pub trait Gateway: Describe + Debug {");
    assert_eq!((gateway.span.start, gateway.span.end), (16, 18));
    let charge = payment
        .definitions
        .iter()
        .find(|d| d.name == "charge_order")
        .unwrap();
    assert_eq!(
        (charge.kind, charge.qualified.as_deref()),
        (DefKind::Method, Some("Gateway::charge_order"))
    );
    assert!(
        payment
            .definitions
            .iter()
            .any(|d| d.kind == DefKind::Macro && d.name == "gateway_error")
    );
    let supertraits: Vec<(&str, &str, SuperKind)> = payment
        .supertypes
        .iter()
        .map(|s| (s.child.as_str(), s.parent.as_str(), s.kind))
        .collect();
    assert_eq!(
        supertraits,
        [
            ("Gateway", "Debug", SuperKind::Extends),
            ("Gateway", "Describe", SuperKind::Extends)
        ]
    );
    let list = payment.imports.iter().find(|i| i.line == 8).unwrap();
    assert_eq!(
        (list.target.as_str(), list.names.clone()),
        (
            "crate",
            vec!["orders::Order".to_string(), "util::get".to_string()]
        )
    );

    let impls = session.facts(IMPLS).unwrap();
    let implemented: Vec<(&str, &str, SuperKind)> = impls
        .supertypes
        .iter()
        .map(|s| (s.child.as_str(), s.parent.as_str(), s.kind))
        .collect();
    assert_eq!(
        implemented,
        [
            ("StripeGateway", "Describe", SuperKind::Implements),
            ("StripeGateway", "Gateway", SuperKind::Implements)
        ]
    );

    let stripe = session.facts(STRIPE).unwrap();
    let kinds: Vec<(DefKind, &str)> = stripe
        .definitions
        .iter()
        .map(|d| (d.kind, d.name.as_str()))
        .collect();
    assert_eq!(
        kinds,
        [
            (DefKind::Struct, "StripeGateway"),
            (DefKind::Constant, "ENDPOINT")
        ]
    );
}

#[test]
fn a_syntax_error_keeps_what_parsed() {
    let session = Session::open(fixture_path("rust_app")).unwrap();
    let facts = session.facts("crates/shop-cli/src/broken.rs").unwrap();
    let names: Vec<&str> = facts.definitions.iter().map(|d| d.name.as_str()).collect();
    assert!(
        names.contains(&"still_parsed") && names.contains(&"AlsoParsed"),
        "{names:?}"
    );
    assert!(
        facts
            .problems
            .iter()
            .any(|p| p.contains("syntax error near line 7")),
        "{:?}",
        facts.problems
    );
}

#[test]
fn crate_roots_beyond_src_and_nested_use_lists() {
    let mut source = MemorySource::new();
    let files = [
        (
            "Cargo.toml",
            "[package]\nname = \"my-lib\"\n\n[lib]\nname = \"mylib\"\n",
        ),
        ("src/lib.rs", "pub mod a;\nuse self::a::c::Thing;\n"),
        ("src/a.rs", "pub mod b;\npub mod c;\n"),
        (
            "src/a/b.rs",
            "use super::super::a::c::Thing;\npub struct B;\n",
        ),
        ("src/a/c/mod.rs", "pub struct Thing;\n"),
        (
            "src/bin/tool.rs",
            "mod helpers;\nuse ::mylib::{a::{b::B, c}, a as alias};\n",
        ),
        ("src/bin/helpers.rs", "pub fn help() {}\n"),
        (
            "tests/it/main.rs",
            "mod support;\nuse mylib::a::b::B;\nuse serde::Deserialize;\n",
        ),
        ("tests/it/support.rs", "use crate::support as me;\n"),
    ];
    for (path, text) in files {
        source.insert(path, text).unwrap();
    }
    let graph = Session::new(source).graph().unwrap();
    assert_edge(
        &graph,
        "src/a.rs",
        "src/a/c/mod.rs",
        Relation::Imports,
        "imports `c` (line 2)",
    );
    assert_edge(
        &graph,
        "src/lib.rs",
        "src/a/c/mod.rs",
        Relation::Imports,
        "imports `self::a::c::Thing` (line 2)",
    );
    assert_edge(
        &graph,
        "src/a/b.rs",
        "src/a/c/mod.rs",
        Relation::Imports,
        "imports `super::super::a::c::Thing` (line 1)",
    );
    // A binary root keeps its modules beside it; `[lib] name` names the crate.
    assert_edge(
        &graph,
        "src/bin/tool.rs",
        "src/bin/helpers.rs",
        Relation::Imports,
        "imports `helpers` (line 1)",
    );
    assert_edge(
        &graph,
        "src/bin/tool.rs",
        "src/a/b.rs",
        Relation::Imports,
        "imports `::mylib` (line 2)",
    );
    assert_edge(
        &graph,
        "src/bin/tool.rs",
        "src/a/c/mod.rs",
        Relation::Imports,
        "line 2",
    );
    assert_edge(
        &graph,
        "src/bin/tool.rs",
        "src/a.rs",
        Relation::Imports,
        "line 2",
    );
    // An integration test directory is a crate root of its own.
    assert_edge(
        &graph,
        "tests/it/main.rs",
        "tests/it/support.rs",
        Relation::Imports,
        "imports `support` (line 1)",
    );
    assert_edge(
        &graph,
        "tests/it/main.rs",
        "src/a/b.rs",
        Relation::Imports,
        "imports `mylib::a::b::B` (line 2)",
    );
    assert_no_edge(
        &graph,
        "tests/it/support.rs",
        "src/lib.rs",
        Relation::Imports,
    );
    let imports_of_main = graph
        .edges_from("tests/it/main.rs")
        .iter()
        .filter(|e| e.relation == Relation::Imports)
        .count();
    assert_eq!(imports_of_main, 2, "serde is outside the repository");
}

#[test]
fn super_inside_an_inline_test_module_stays_in_the_file() {
    let graph = fixture_graph("rust_app");
    // `use super::*;` in `mod tests` of pricing.rs names pricing.rs itself, not its
    // parent module: no import edge to lib.rs may come from it.
    let from_tests: Vec<_> = graph
        .edges_from(PRICING)
        .into_iter()
        .filter(|e| {
            e.relation == Relation::Imports
                && (e.rationale.contains("line 14") || e.rationale.contains("line 15"))
        })
        .collect();
    assert!(from_tests.is_empty(), "{from_tests:?}");
    assert_no_edge(&graph, PRICING, LIB, Relation::Imports);
}
