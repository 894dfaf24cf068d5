//! Ruby fixture (`tests/fixtures/ruby_app`): facts, `require` resolution and edges.

use deepdiscovery_core::facts::{DefKind, SuperKind};
use deepdiscovery_core::{Relation, Session};

use crate::support::{assert_edge, assert_no_edge, fixture_graph, fixture_path};

const SHOP: &str = "lib/shop.rb";
const CART: &str = "lib/shop/cart.rb";
const LOGGABLE: &str = "lib/shop/loggable.rb";
const TAX: &str = "lib/shop/pricing/tax.rb";
const ORDER: &str = "app/models/order.rb";
const CHECKOUT: &str = "app/services/checkout.rb";
const ORDER_SPEC: &str = "spec/models/order_spec.rb";

#[test]
fn require_relative_resolves_next_to_the_file() {
    let graph = fixture_graph("ruby_app");
    let edge = assert_edge(
        &graph,
        CART,
        LOGGABLE,
        Relation::Imports,
        "imports `loggable` (line 2)",
    );
    assert_eq!(edge.confidence, 1.0);
    assert_edge(
        &graph,
        ORDER_SPEC,
        ORDER,
        Relation::Imports,
        "imports `../../app/models/order` (line 3)",
    );
}

#[test]
fn require_resolves_through_the_load_path() {
    let graph = fixture_graph("ruby_app");
    assert_edge(
        &graph,
        SHOP,
        CART,
        Relation::Imports,
        "imports `shop/cart` (line 2)",
    );
    assert_edge(
        &graph,
        SHOP,
        TAX,
        Relation::Imports,
        "imports `shop/pricing/tax` (line 3)",
    );
    let edge = assert_edge(
        &graph,
        ORDER,
        SHOP,
        Relation::Imports,
        "imports `shop` (line 2)",
    );
    assert_eq!(edge.confidence, 1.0);
    // `spec/` is on RSpec's load path.
    assert_edge(
        &graph,
        ORDER_SPEC,
        "spec/spec_helper.rb",
        Relation::Imports,
        "imports `spec_helper` (line 2)",
    );
    // `require "json"` is the standard library: only `shop/cart` links.
    let imported: Vec<String> = graph
        .edges_from(CHECKOUT)
        .iter()
        .filter(|e| e.relation == Relation::Imports)
        .map(|e| e.to.to_string())
        .collect();
    assert_eq!(imported, [CART]);
}

#[test]
fn a_subclass_inherits_from_its_superclass_file() {
    let graph = fixture_graph("ruby_app");
    assert_edge(
        &graph,
        ORDER,
        "app/models/application_record.rb",
        Relation::Inherits,
        "`Order` extends `ApplicationRecord` (line 4)",
    );
    // `ActiveRecord::Base` is not defined in the repository.
    assert!(
        graph
            .edges_from("app/models/application_record.rb")
            .iter()
            .all(|e| e.relation != Relation::Inherits)
    );
}

#[test]
fn mixins_are_recorded_as_implemented_modules() {
    let session = Session::open(fixture_path("ruby_app")).unwrap();
    let order = session.facts(ORDER).unwrap();
    let mixins: Vec<(&str, &str, SuperKind, u32)> = order
        .supertypes
        .iter()
        .map(|s| (s.child.as_str(), s.parent.as_str(), s.kind, s.line))
        .collect();
    assert_eq!(
        mixins,
        [
            ("Order", "ApplicationRecord", SuperKind::Extends, 4),
            ("Order", "Auditable", SuperKind::Implements, 5),
            ("Order", "Loggable", SuperKind::Implements, 6),
        ]
    );
    let cart = session.facts(CART).unwrap();
    assert_eq!(cart.supertypes.len(), 1);
    assert_eq!(
        (
            cart.supertypes[0].child.as_str(),
            cart.supertypes[0].parent.as_str()
        ),
        ("Cart", "Loggable")
    );
    let graph = session.graph().unwrap();
    assert_edge(
        &graph,
        CART,
        LOGGABLE,
        Relation::Implements,
        "`Cart` implements `Loggable`",
    );
    assert_edge(
        &graph,
        ORDER,
        "app/models/concerns/auditable.rb",
        Relation::Implements,
        "`Order` implements `Auditable` (line 5)",
    );
}

#[test]
fn calls_link_by_rare_names_and_not_by_common_ones() {
    let graph = fixture_graph("ruby_app");
    let edge = assert_edge(
        &graph,
        CART,
        TAX,
        Relation::Calls,
        "calls `vat_for` (line 19)",
    );
    assert!(
        edge.confidence > 0.3,
        "rare name links strongly: {}",
        edge.confidence
    );
    assert_edge(
        &graph,
        CHECKOUT,
        ORDER,
        Relation::Calls,
        "`grand_total` (line 8)",
    );
    // `log_event` is called by most files: it links nothing.
    assert_no_edge(&graph, CHECKOUT, LOGGABLE, Relation::Calls);
    assert_no_edge(&graph, ORDER_SPEC, LOGGABLE, Relation::Calls);
    assert_no_edge(
        &graph,
        "app/models/concerns/auditable.rb",
        LOGGABLE,
        Relation::Calls,
    );
}

#[test]
fn the_gemfile_is_the_module_of_the_project() {
    let graph = fixture_graph("ruby_app");
    assert_eq!(graph.module_of(CART), Some("Gemfile"));
    assert_eq!(graph.module_of(ORDER_SPEC), Some("Gemfile"));
}

#[test]
fn facts_have_nested_modules_classes_methods_and_constants() {
    let session = Session::open(fixture_path("ruby_app")).unwrap();
    let tax = session.facts(TAX).unwrap();
    assert_eq!(tax.doc.as_deref(), Some("Value added tax."));
    let find = |name: &str| tax.definitions.iter().find(|d| d.name == name).unwrap();
    let pricing = find("Pricing");
    assert_eq!(
        (pricing.kind, pricing.qualified.as_deref()),
        (DefKind::Module, Some("Shop::Pricing"))
    );
    let class = find("Tax");
    assert_eq!(
        (class.kind, class.qualified.as_deref()),
        (DefKind::Class, Some("Shop::Pricing::Tax"))
    );
    assert_eq!((class.span.start, class.span.end), (4, 10));
    let vat = find("vat_for");
    assert_eq!(vat.kind, DefKind::Method);
    assert_eq!(
        vat.qualified.as_deref(),
        Some("Shop::Pricing::Tax::vat_for")
    );
    assert_eq!(vat.signature, "def self.vat_for(amount)");
    assert_eq!(find("RATE").kind, DefKind::Constant);

    let checkout = session.facts(CHECKOUT).unwrap();
    let imports: Vec<(&str, bool)> = checkout
        .imports
        .iter()
        .map(|i| (i.target.as_str(), i.system))
        .collect();
    assert_eq!(imports, [("json", true), ("shop/cart", true)]);
    let cart = session.facts(CART).unwrap();
    assert_eq!(
        (cart.imports[0].target.as_str(), cart.imports[0].system),
        ("loggable", false)
    );
    assert_eq!(
        cart.doc.as_deref(),
        Some("A shopping cart that prices its lines with the tax rules.")
    );
}

#[test]
fn a_syntax_error_keeps_what_parsed() {
    let session = Session::open(fixture_path("ruby_app")).unwrap();
    let facts = session.facts("script/broken.rb").unwrap();
    let names: Vec<&str> = facts.definitions.iter().map(|d| d.name.as_str()).collect();
    assert!(names.contains(&"still_parsed"), "{names:?}");
    assert!(names.contains(&"AfterError"), "{names:?}");
    assert!(
        facts.problems.iter().any(|p| p.contains("syntax error")),
        "{:?}",
        facts.problems
    );
}
