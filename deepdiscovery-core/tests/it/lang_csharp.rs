//! C# fixture (`tests/fixtures/csharp_app`, one `.csproj`, namespaces across folders):
//! facts, `using` resolution and edges.

use deepdiscovery_core::Relation;
use deepdiscovery_core::facts::DefKind;

use crate::support::{assert_edge, assert_no_edge, fixture_graph, fixture_path, imported};

const PROGRAM: &str = "Program.cs";
const SERVICE: &str = "Orders/OrderService.cs";
const ISERVICE: &str = "Orders/IOrderService.cs";
const ORDER: &str = "Orders/Order.cs";
const ORDER_RULES: &str = "Orders/Order.Validation.cs";
const BASE: &str = "Services/ServiceBase.cs";
const DISCOUNT: &str = "Pricing/DiscountCalculator.cs";
const GUARD: &str = "Util/Guard.cs";
const CLOCK: &str = "Util/SystemClock.cs";
const LEDGER: &str = "Util/Ledger.cs";
const REPOSITORY: &str = "Data/OrderRepository.cs";

#[test]
fn using_a_small_namespace_names_its_files_loosely() {
    let graph = fixture_graph("csharp_app");
    // Both halves of the partial class are in the namespace.
    for file in [SERVICE, ISERVICE, ORDER, ORDER_RULES] {
        let edge = assert_edge(
            &graph,
            PROGRAM,
            file,
            Relation::Imports,
            "imports `Acme.Store.Orders` (line 3, resolved loosely)",
        );
        assert!(edge.confidence < 1.0);
    }
    assert_edge(
        &graph,
        SERVICE,
        BASE,
        Relation::Imports,
        "imports `Acme.Store.Services` (line 4, resolved loosely)",
    );
    assert_edge(
        &graph,
        REPOSITORY,
        ORDER,
        Relation::Imports,
        "imports `Acme.Store.Orders` (line 2",
    );
}

#[test]
fn using_static_and_aliases_name_the_type_exactly() {
    let graph = fixture_graph("csharp_app");
    let edge = assert_edge(
        &graph,
        PROGRAM,
        GUARD,
        Relation::Imports,
        "imports `Acme.Store.Util.Guard` (line 4)",
    );
    assert_eq!(edge.confidence, 1.0);
    assert!(!edge.rationale.contains("loosely"));
    let edge = assert_edge(
        &graph,
        PROGRAM,
        CLOCK,
        Relation::Imports,
        "imports `Acme.Store.Util.SystemClock` (line 5)",
    );
    assert_eq!(edge.confidence, 1.0);
    // A type names its file, not its whole namespace; `System…` names nothing.
    assert_no_edge(&graph, PROGRAM, LEDGER, Relation::Imports);
    let mut expected = vec![SERVICE, ISERVICE, ORDER, ORDER_RULES, GUARD, CLOCK];
    expected.sort();
    assert_eq!(imported(&graph, PROGRAM), expected);
    assert!(imported(&graph, GUARD).is_empty(), "using System only");
}

#[test]
fn base_lists_split_into_a_class_and_interfaces_by_name() {
    let graph = fixture_graph("csharp_app");
    let edge = assert_edge(
        &graph,
        SERVICE,
        BASE,
        Relation::Inherits,
        "`OrderService` extends `ServiceBase` (line 12)",
    );
    assert!(
        edge.confidence > 0.9,
        "the base's namespace is imported: {}",
        edge.confidence
    );
    assert_edge(
        &graph,
        SERVICE,
        ISERVICE,
        Relation::Implements,
        "`OrderService` implements `IOrderService` (line 12)",
    );
    assert_no_edge(&graph, SERVICE, ISERVICE, Relation::Inherits);
    assert_no_edge(&graph, SERVICE, BASE, Relation::Implements);
}

#[test]
fn calls_link_by_rare_names_and_not_by_common_ones() {
    let graph = fixture_graph("csharp_app");
    let edge = assert_edge(
        &graph,
        SERVICE,
        DISCOUNT,
        Relation::Calls,
        "`ComputeLoyaltyDiscount` (line 25)",
    );
    assert!(
        edge.confidence > 0.3,
        "rare name links strongly: {}",
        edge.confidence
    );
    assert_edge(&graph, SERVICE, BASE, Relation::Calls, "`Log` (line 27)");
    // `Add` is called by most files: it links nothing to `Ledger.Add`.
    for from in [PROGRAM, SERVICE, ORDER, REPOSITORY] {
        assert_no_edge(&graph, from, LEDGER, Relation::Calls);
    }
}

#[test]
fn same_namespace_uses_need_no_using() {
    let graph = fixture_graph("csharp_app");
    assert_edge(
        &graph,
        SERVICE,
        ORDER,
        Relation::References,
        "uses `Order` (line 15)",
    );
    assert_no_edge(&graph, SERVICE, ORDER, Relation::Imports);
    assert_edge(
        &graph,
        PROGRAM,
        SERVICE,
        Relation::References,
        "`OrderService` (line 17)",
    );
}

#[test]
fn facts_have_namespaces_qualified_definitions_docs_and_usings() {
    let session = deepdiscovery_core::Session::open(fixture_path("csharp_app")).unwrap();
    let service = session.facts(SERVICE).unwrap();
    assert_eq!(
        service.package.as_deref(),
        Some("Acme.Store.Orders"),
        "file-scoped namespace"
    );
    // The `///` comment, not the license line at the top.
    assert_eq!(
        service.doc.as_deref(),
        Some("Places orders and keeps a ledger of them.")
    );
    let class = service
        .definitions
        .iter()
        .find(|d| d.name == "OrderService" && d.kind == DefKind::Class)
        .unwrap();
    assert_eq!(
        class.qualified.as_deref(),
        Some("Acme.Store.Orders.OrderService")
    );
    assert_eq!(
        class.signature,
        "public class OrderService : ServiceBase, IOrderService"
    );
    assert_eq!((class.span.start, class.span.end), (12, 30));
    let place = service
        .definitions
        .iter()
        .find(|d| d.name == "Place")
        .unwrap();
    assert_eq!(place.kind, DefKind::Method);
    assert_eq!(
        place.qualified.as_deref(),
        Some("Acme.Store.Orders.OrderService.Place")
    );

    let order = session.facts(ORDER).unwrap();
    assert_eq!(
        order.package.as_deref(),
        Some("Acme.Store.Orders"),
        "block namespace"
    );
    let status = order
        .definitions
        .iter()
        .find(|d| d.name == "Status")
        .unwrap();
    assert_eq!(status.kind, DefKind::Enum);
    assert_eq!(
        status.qualified.as_deref(),
        Some("Acme.Store.Orders.Order.Status")
    );
    let sku = order.definitions.iter().find(|d| d.name == "Sku").unwrap();
    assert_eq!(sku.kind, DefKind::Field, "a property");

    let repository = session.facts(REPOSITORY).unwrap();
    let class = repository
        .definitions
        .iter()
        .find(|d| d.name == "OrderRepository")
        .unwrap();
    assert_eq!(
        class.qualified.as_deref(),
        Some("Acme.Store.Data.Sql.OrderRepository"),
        "nested namespace"
    );

    let interface = session.facts(ISERVICE).unwrap();
    assert_eq!(interface.definitions[0].kind, DefKind::Interface);

    let program = session.facts(PROGRAM).unwrap();
    assert_eq!(
        program.doc.as_deref(),
        Some("Entry point: places one demo order and prints the receipt.")
    );
    let targets: Vec<(&str, &[String])> = program
        .imports
        .iter()
        .map(|i| (i.target.as_str(), i.names.as_slice()))
        .collect();
    assert_eq!(
        targets,
        [
            ("System", &[][..]),
            ("System.Collections.Generic", &[][..]),
            ("Acme.Store.Orders", &[][..]),
            ("Acme.Store.Util.Guard", &[][..]),
            ("Acme.Store.Util.SystemClock", &["Clock".to_string()][..]),
        ]
    );
}

#[test]
fn a_syntax_error_keeps_what_parsed() {
    let session = deepdiscovery_core::Session::open(fixture_path("csharp_app")).unwrap();
    let facts = session.facts("Legacy/Exporter.cs").unwrap();
    let names: Vec<&str> = facts.definitions.iter().map(|d| d.name.as_str()).collect();
    assert!(names.contains(&"Header"), "{names:?}");
    assert!(names.contains(&"Version"), "{names:?}");
    assert!(
        facts.problems.iter().any(|p| p.contains("syntax error")),
        "{:?}",
        facts.problems
    );
}

#[test]
fn xml_doc_comments_and_block_namespaces_give_plain_summaries() {
    let session = deepdiscovery_core::Session::open(fixture_path("csharp_app")).unwrap();
    let doc = |path: &str| session.facts(path).unwrap().doc.clone();
    assert_eq!(
        doc(ISERVICE).as_deref(),
        Some("What the storefront needs from order handling.")
    );
    assert_eq!(
        doc(ORDER).as_deref(),
        Some("One order line and its status.")
    );
}
