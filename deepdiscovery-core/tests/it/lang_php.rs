//! PHP fixture (`tests/fixtures/php_app`): facts, PSR-4 `use` resolution, `require`
//! paths and edges.

use deepdiscovery_core::facts::{DefKind, SuperKind};
use deepdiscovery_core::{Relation, Session};

use crate::support::{assert_edge, assert_no_edge, fixture_graph, fixture_path};

const MODEL: &str = "src/Models/Model.php";
const USER: &str = "src/Models/User.php";
const ORDER: &str = "src/Models/Order.php";
const BILLABLE: &str = "src/Contracts/Billable.php";
const TIMESTAMPS: &str = "src/Concerns/HasTimestamps.php";
const SERVICE: &str = "src/Services/InvoiceService.php";
const HELPERS: &str = "src/Support/helpers.php";
const INDEX: &str = "public/index.php";
const TEST: &str = "tests/InvoiceServiceTest.php";

#[test]
fn use_statements_resolve_through_psr4() {
    let graph = fixture_graph("php_app");
    let edge = assert_edge(
        &graph,
        USER,
        BILLABLE,
        Relation::Imports,
        "imports `App\\Contracts\\Billable` (line 8)",
    );
    assert_eq!(edge.confidence, 1.0);
    assert_edge(
        &graph,
        USER,
        TIMESTAMPS,
        Relation::Imports,
        "imports `App\\Concerns\\HasTimestamps` (line 7)",
    );
    assert_edge(
        &graph,
        TEST,
        SERVICE,
        Relation::Imports,
        "imports `App\\Services\\InvoiceService` (line 8)",
    );
    // A vendor class is not in the repository.
    let imported: Vec<String> = graph
        .edges_from(TEST)
        .iter()
        .filter(|e| e.relation == Relation::Imports)
        .map(|e| e.to.to_string())
        .collect();
    assert_eq!(imported, [ORDER, SERVICE]);
}

#[test]
fn grouped_use_statements_resolve_each_name() {
    let graph = fixture_graph("php_app");
    assert_edge(
        &graph,
        SERVICE,
        USER,
        Relation::Imports,
        "imports `App\\Models` (line 8)",
    );
    assert_edge(
        &graph,
        SERVICE,
        ORDER,
        Relation::Imports,
        "imports `App\\Models` (line 8)",
    );
    assert_no_edge(&graph, SERVICE, MODEL, Relation::Imports);
}

#[test]
fn require_and_include_resolve_literal_paths() {
    let graph = fixture_graph("php_app");
    // `require_once __DIR__ . '/../src/Support/helpers.php'`: the literal part, relative to the file.
    assert_edge(
        &graph,
        INDEX,
        HELPERS,
        Relation::Imports,
        "imports `/../src/Support/helpers.php` (line 6)",
    );
    // A plain relative `require`.
    assert_edge(
        &graph,
        "legacy/report.php",
        "legacy/functions.php",
        Relation::Imports,
        "imports `functions.php` (line 5)",
    );
    // `vendor/autoload.php` is not in the repository: no edge, no error.
    assert!(
        graph
            .edges_from(INDEX)
            .iter()
            .all(|e| !e.to.contains("vendor"))
    );
}

#[test]
fn extends_implements_and_trait_use_link_to_the_declaring_files() {
    let graph = fixture_graph("php_app");
    assert_edge(
        &graph,
        USER,
        MODEL,
        Relation::Inherits,
        "`User` extends `Model` (line 10)",
    );
    assert_edge(
        &graph,
        ORDER,
        MODEL,
        Relation::Inherits,
        "`Order` extends `Model` (line 7)",
    );
    let edge = assert_edge(
        &graph,
        USER,
        BILLABLE,
        Relation::Implements,
        "`User` implements `Billable` (line 10)",
    );
    assert!(
        edge.confidence > 0.9,
        "imported interface: {}",
        edge.confidence
    );
    assert_edge(
        &graph,
        USER,
        TIMESTAMPS,
        Relation::Implements,
        "`User` implements `HasTimestamps` (line 12)",
    );
    // `TestCase` comes from PHPUnit, outside the repository.
    assert!(
        graph
            .edges_from(TEST)
            .iter()
            .all(|e| e.relation != Relation::Inherits)
    );
}

#[test]
fn calls_link_by_rare_names_and_not_by_common_ones() {
    let graph = fixture_graph("php_app");
    let edge = assert_edge(
        &graph,
        SERVICE,
        ORDER,
        Relation::Calls,
        "`vatAmount` (line 15)",
    );
    assert!(
        edge.confidence > 0.3,
        "rare name links strongly: {}",
        edge.confidence
    );
    // Static calls and plain function calls.
    assert_edge(
        &graph,
        INDEX,
        SERVICE,
        Relation::Calls,
        "`forUser` (line 12)",
    );
    assert_edge(
        &graph,
        INDEX,
        HELPERS,
        Relation::Calls,
        "calls `format_cents` (line 14)",
    );
    // `new User()` is a use of the type.
    assert_edge(
        &graph,
        INDEX,
        USER,
        Relation::References,
        "uses `User` (line 12)",
    );
    // `config()` is called by most files: it links nothing.
    assert_no_edge(&graph, SERVICE, HELPERS, Relation::Calls);
    assert_no_edge(&graph, ORDER, HELPERS, Relation::Calls);
}

#[test]
fn composer_json_is_the_module_of_the_project() {
    let graph = fixture_graph("php_app");
    assert_eq!(graph.module_of(SERVICE), Some("composer.json"));
}

#[test]
fn facts_have_namespaces_qualified_names_and_kinds() {
    let session = Session::open(fixture_path("php_app")).unwrap();
    let user = session.facts(USER).unwrap();
    assert_eq!(user.package.as_deref(), Some("App\\Models"));
    assert_eq!(user.doc.as_deref(), Some("A customer account."));
    let class = user.definitions.iter().find(|d| d.name == "User").unwrap();
    assert_eq!(class.kind, DefKind::Class);
    assert_eq!(class.qualified.as_deref(), Some("App\\Models\\User"));
    assert_eq!(
        class.signature,
        "class User extends Model implements Billable"
    );
    assert_eq!((class.span.start, class.span.end), (10, 18));
    let method = user
        .definitions
        .iter()
        .find(|d| d.name == "billingName")
        .unwrap();
    assert_eq!(method.kind, DefKind::Method);
    assert_eq!(
        method.qualified.as_deref(),
        Some("App\\Models\\User\\billingName")
    );
    let supertypes: Vec<(&str, SuperKind)> = user
        .supertypes
        .iter()
        .map(|s| (s.parent.as_str(), s.kind))
        .collect();
    assert_eq!(
        supertypes,
        [
            ("Billable", SuperKind::Implements),
            ("Model", SuperKind::Extends),
            ("HasTimestamps", SuperKind::Implements)
        ]
    );

    let kind_in = |path: &str, name: &str| {
        session
            .facts(path)
            .unwrap()
            .definitions
            .iter()
            .find(|d| d.name == name)
            .map(|d| d.kind)
    };
    assert_eq!(kind_in(BILLABLE, "Billable"), Some(DefKind::Interface));
    assert_eq!(kind_in(TIMESTAMPS, "HasTimestamps"), Some(DefKind::Trait));
    assert_eq!(kind_in(ORDER, "VAT_RATE"), Some(DefKind::Constant));
    assert_eq!(kind_in(HELPERS, "format_cents"), Some(DefKind::Function));
    // The docblock after `<?php` is the file's summary.
    assert_eq!(
        session.facts(MODEL).unwrap().doc.as_deref(),
        Some("The base of every persisted model.")
    );

    let service = session.facts(SERVICE).unwrap();
    let imports: Vec<(&str, Vec<String>)> = service
        .imports
        .iter()
        .map(|i| (i.target.as_str(), i.names.clone()))
        .collect();
    assert_eq!(
        imports,
        [
            ("App\\Contracts\\Billable", vec![]),
            ("App\\Models", vec!["User".to_string()]),
            ("App\\Models", vec!["Order".to_string()]),
        ]
    );
}

#[test]
fn a_syntax_error_keeps_what_parsed() {
    let session = Session::open(fixture_path("php_app")).unwrap();
    let facts = session.facts("legacy/broken.php").unwrap();
    let names: Vec<&str> = facts.definitions.iter().map(|d| d.name.as_str()).collect();
    assert!(names.contains(&"still_parsed"), "{names:?}");
    assert!(names.contains(&"AfterError"), "{names:?}");
    assert!(
        facts.problems.iter().any(|p| p.contains("syntax error")),
        "{:?}",
        facts.problems
    );
}
