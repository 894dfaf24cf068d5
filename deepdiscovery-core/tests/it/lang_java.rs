//! Java fixture (`tests/fixtures/java_app`, a Maven layout): facts, import resolution
//! and edges.

use deepdiscovery_core::Relation;
use deepdiscovery_core::facts::{DefKind, KeyKind};

use crate::support::{assert_edge, assert_no_edge, fixture_graph, fixture_path, imported};

const MAIN: &str = "src/main/java/com/acme/shop";
const APP: &str = "src/main/java/com/acme/shop/ShopApplication.java";
const GATEWAY: &str = "src/main/java/com/acme/shop/payments/PaymentGateway.java";
const ABSTRACT: &str = "src/main/java/com/acme/shop/payments/AbstractGateway.java";
const STRIPE: &str = "src/main/java/com/acme/shop/payments/StripeGateway.java";
const RECEIPT: &str = "src/main/java/com/acme/shop/payments/Receipt.java";
const SERVICE: &str = "src/main/java/com/acme/shop/orders/OrderService.java";
const ORDER: &str = "src/main/java/com/acme/shop/orders/Order.java";
const PRICING: &str = "src/main/java/com/acme/shop/orders/Pricing.java";
const MONEY: &str = "src/main/java/com/acme/shop/util/Money.java";
const INVENTORY: &str = "src/main/java/com/acme/shop/inventory/Inventory.java";
const TEST: &str = "src/test/java/com/acme/shop/orders/OrderServiceTest.java";

#[test]
fn single_type_imports_resolve_to_the_defining_file() {
    let graph = fixture_graph("java_app");
    let edge = assert_edge(
        &graph,
        SERVICE,
        GATEWAY,
        Relation::Imports,
        "imports `com.acme.shop.payments.PaymentGateway` (line 6)",
    );
    assert_eq!(edge.confidence, 1.0);
    assert_edge(&graph, SERVICE, RECEIPT, Relation::Imports, "(line 7)");
    assert_edge(
        &graph,
        APP,
        SERVICE,
        Relation::Imports,
        "imports `com.acme.shop.orders.OrderService` (line 7)",
    );
    // From the test source root into the main one.
    assert_edge(
        &graph,
        TEST,
        STRIPE,
        Relation::Imports,
        "imports `com.acme.shop.payments.StripeGateway` (line 5)",
    );
}

#[test]
fn static_and_nested_imports_resolve_to_the_outer_type() {
    let graph = fixture_graph("java_app");
    let edge = assert_edge(
        &graph,
        SERVICE,
        MONEY,
        Relation::Imports,
        "imports `com.acme.shop.util.Money.formatCents` (line 3)",
    );
    assert_eq!(edge.confidence, 1.0);
    assert_edge(
        &graph,
        SERVICE,
        ORDER,
        Relation::Imports,
        "imports `com.acme.shop.orders.Order.Status` (line 5)",
    );
}

#[test]
fn wildcard_imports_name_every_file_of_the_package() {
    let graph = fixture_graph("java_app");
    for file in [GATEWAY, ABSTRACT, STRIPE, RECEIPT] {
        assert_edge(
            &graph,
            APP,
            file,
            Relation::Imports,
            "imports `com.acme.shop.payments.*` (line 8)",
        );
    }
    // `java.util.Map` names nothing in the repository.
    let mut expected = vec![ABSTRACT, GATEWAY, RECEIPT, STRIPE, SERVICE];
    expected.sort();
    assert_eq!(imported(&graph, APP), expected);
}

#[test]
fn library_imports_resolve_to_nothing() {
    let graph = fixture_graph("java_app");
    assert!(imported(&graph, INVENTORY).is_empty(), "java.util only");
    assert!(imported(&graph, PRICING).is_empty(), "java.util only");
    // JUnit's static and single-type imports name no file; StripeGateway does.
    assert_eq!(imported(&graph, TEST), [STRIPE]);
}

#[test]
fn inheritance_and_implementation_link_to_the_supertype_file() {
    let graph = fixture_graph("java_app");
    // Same package, no import: found by name.
    assert_edge(
        &graph,
        STRIPE,
        ABSTRACT,
        Relation::Inherits,
        "`StripeGateway` extends `AbstractGateway` (line 4)",
    );
    assert_edge(
        &graph,
        ABSTRACT,
        GATEWAY,
        Relation::Implements,
        "`AbstractGateway` implements `PaymentGateway` (line 7)",
    );
    assert_no_edge(&graph, STRIPE, GATEWAY, Relation::Inherits);
    // `java.io.Serializable` is not in the repository.
    assert!(
        graph
            .edges_from(RECEIPT)
            .iter()
            .all(|e| e.relation != Relation::Implements)
    );
}

#[test]
fn calls_link_by_rare_names_and_not_by_common_ones() {
    let graph = fixture_graph("java_app");
    let edge = assert_edge(
        &graph,
        SERVICE,
        PRICING,
        Relation::Calls,
        "`computeLoyaltyDiscount` (line 22)",
    );
    assert!(
        edge.confidence > 0.3,
        "rare name links strongly: {}",
        edge.confidence
    );
    assert_edge(
        &graph,
        STRIPE,
        ABSTRACT,
        Relation::Calls,
        "`balanceOf` (line 13)",
    );
    // `get` is called by most files: it links nothing to the class that defines one.
    for from in [SERVICE, APP, PRICING, TEST] {
        assert_no_edge(&graph, from, INVENTORY, Relation::Calls);
    }
}

#[test]
fn same_package_uses_need_no_import() {
    let graph = fixture_graph("java_app");
    // The test sits in the package of OrderService and never imports it.
    assert_edge(
        &graph,
        TEST,
        SERVICE,
        Relation::References,
        "uses `OrderService` (line 12)",
    );
    assert_edge(&graph, TEST, SERVICE, Relation::Calls, "`placeOrder`");
    assert_no_edge(&graph, TEST, SERVICE, Relation::Imports);
    // A static call through the class name.
    assert_edge(
        &graph,
        SERVICE,
        PRICING,
        Relation::References,
        "`Pricing` (line 22)",
    );
}

#[test]
fn facts_have_packages_qualified_definitions_docs_and_imports() {
    let session = deepdiscovery_core::Session::open(fixture_path("java_app")).unwrap();
    let app = session.facts(APP).unwrap();
    assert_eq!(app.package.as_deref(), Some("com.acme.shop"));
    // The Javadoc, not the license header above the package line.
    assert_eq!(
        app.doc.as_deref(),
        Some("Wires the shop together and places a demo order.")
    );
    let wildcard = app.imports.iter().find(|i| i.line == 8).unwrap();
    assert_eq!(wildcard.target, "com.acme.shop.payments");
    assert_eq!(wildcard.names, ["*"]);
    let dotted: Vec<&str> = app
        .string_keys
        .iter()
        .filter(|k| k.kind == KeyKind::DottedPath)
        .map(|k| k.text.as_str())
        .collect();
    assert_eq!(dotted, ["com.acme.shop.payments.StripeGateway"]);

    let service = session.facts(SERVICE).unwrap();
    let targets: Vec<&str> = service.imports.iter().map(|i| i.target.as_str()).collect();
    assert_eq!(
        targets,
        [
            "com.acme.shop.util.Money.formatCents",
            "com.acme.shop.orders.Order.Status",
            "com.acme.shop.payments.PaymentGateway",
            "com.acme.shop.payments.Receipt",
            "java.util.ArrayList",
            "java.util.List",
        ]
    );
    let class = service
        .definitions
        .iter()
        .find(|d| d.name == "OrderService" && d.kind == DefKind::Class)
        .unwrap();
    assert_eq!(
        class.qualified.as_deref(),
        Some("com.acme.shop.orders.OrderService")
    );
    assert_eq!(class.signature, "public class OrderService {");
    assert_eq!((class.span.start, class.span.end), (12, 28));
    let place = service
        .definitions
        .iter()
        .find(|d| d.name == "placeOrder")
        .unwrap();
    assert_eq!(place.kind, DefKind::Method);
    assert_eq!(
        place.qualified.as_deref(),
        Some("com.acme.shop.orders.OrderService.placeOrder")
    );
    let constructor = service
        .definitions
        .iter()
        .find(|d| d.name == "OrderService" && d.kind == DefKind::Method);
    assert!(constructor.is_some(), "the constructor is a method");

    let order = session.facts(ORDER).unwrap();
    let status = order
        .definitions
        .iter()
        .find(|d| d.name == "Status")
        .unwrap();
    assert_eq!(status.kind, DefKind::Enum);
    assert_eq!(
        status.qualified.as_deref(),
        Some("com.acme.shop.orders.Order.Status")
    );
    let gateway = session.facts(GATEWAY).unwrap();
    assert_eq!(gateway.definitions[0].kind, DefKind::Interface);
    assert_eq!(
        gateway.doc.as_deref(),
        Some("Charges a customer through an external payment provider.")
    );
    let receipt = session.facts(RECEIPT).unwrap();
    assert_eq!(
        receipt.definitions[0].kind,
        DefKind::Class,
        "a record is a class"
    );
    assert_eq!(receipt.supertypes[0].parent, "Serializable");
}

#[test]
fn a_syntax_error_keeps_what_parsed() {
    let session = deepdiscovery_core::Session::open(fixture_path("java_app")).unwrap();
    let facts = session
        .facts(&format!("{MAIN}/legacy/LegacyExporter.java"))
        .unwrap();
    let names: Vec<&str> = facts.definitions.iter().map(|d| d.name.as_str()).collect();
    assert!(names.contains(&"LegacyExporter"), "{names:?}");
    assert!(names.contains(&"header"), "{names:?}");
    assert!(
        facts.problems.iter().any(|p| p.contains("syntax error")),
        "{:?}",
        facts.problems
    );
}

#[test]
fn signatures_are_the_line_of_the_name_not_of_an_annotation() {
    let session = deepdiscovery_core::Session::open(fixture_path("java_app")).unwrap();
    let stripe = session.facts(STRIPE).unwrap();
    let charge = stripe
        .definitions
        .iter()
        .find(|d| d.name == "charge")
        .unwrap();
    assert_eq!(
        charge.signature,
        "public Receipt charge(String customer, long cents) {"
    );
    assert_eq!(
        charge.span.start, 11,
        "the span still starts at `@Override`"
    );
}
