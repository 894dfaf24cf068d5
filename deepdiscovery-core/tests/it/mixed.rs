//! The mixed-language fixture (`tests/fixtures/mixed_app`): one repository, four
//! languages, shared configuration; edges stay within a language unless a file path
//! or dotted path says otherwise.

use deepdiscovery_core::source::SkipReason;
use deepdiscovery_core::{Relation, Role, Session};

use crate::support::{assert_edge, assert_no_edge, fixture_path};

#[test]
fn each_language_resolves_its_own_imports() {
    let session = Session::open(fixture_path("mixed_app")).unwrap();
    let graph = session.graph().unwrap();
    assert_edge(
        &graph,
        "backend/shop/orders/views.py",
        "backend/shop/orders/models.py",
        Relation::Imports,
        "`.models` (line 2)",
    );
    assert_edge(
        &graph,
        "backend/tests/test_views.py",
        "backend/shop/orders/views.py",
        Relation::Imports,
        "shop.orders.views",
    );
    assert_edge(
        &graph,
        "web/src/pages/Orders.tsx",
        "web/src/api/client.ts",
        Relation::Imports,
        "../api/client",
    );
    assert_edge(
        &graph,
        "services/billing/main.go",
        "services/billing/invoice/invoice.go",
        Relation::Imports,
        "example.com/billing/invoice",
    );
    assert_edge(
        &graph,
        "native/src/checksum.c",
        "native/include/checksum.h",
        Relation::Imports,
        "checksum.h",
    );
    assert_edge(
        &graph,
        "native/src/checksum.c",
        "native/include/checksum.h",
        Relation::Implements,
        "checksum.h",
    );
    assert_edge(
        &graph,
        "backend/shop/orders/views.py",
        "backend/shop/orders/models.py",
        Relation::Calls,
        "compute_invoice_total",
    );
}

#[test]
fn names_never_link_across_languages() {
    let graph = Session::open(fixture_path("mixed_app"))
        .unwrap()
        .graph()
        .unwrap();
    // `compute_invoice_total` (Python) and `ComputeInvoiceTotal` (Go) differ anyway;
    // nothing links a Go file to a Python or TypeScript file by name.
    for edge in graph.edges() {
        if matches!(
            edge.relation,
            Relation::Calls | Relation::References | Relation::Inherits
        ) {
            let (a, b) = (graph.node(edge.from).unwrap(), graph.node(edge.to).unwrap());
            let family = |l: deepdiscovery_core::Language| match l.name() {
                "typescript" | "tsx" | "javascript" => "js",
                "c" | "cpp" => "c",
                other => other,
            };
            assert_eq!(
                family(a.language),
                family(b.language),
                "{} -> {}",
                edge.from,
                edge.to
            );
        }
    }
    assert_no_edge(
        &graph,
        "backend/shop/orders/views.py",
        "services/billing/invoice/invoice.go",
        Relation::Calls,
    );
}

#[test]
fn modules_owners_and_roles_follow_the_tree() {
    let session = Session::open(fixture_path("mixed_app")).unwrap();
    let graph = session.graph().unwrap();
    let modules = [
        ("backend/shop/orders/views.py", "backend/pyproject.toml"),
        ("web/src/api/client.ts", "web/package.json"),
        (
            "services/billing/invoice/invoice.go",
            "services/billing/go.mod",
        ),
        ("native/src/checksum.c", "native/CMakeLists.txt"),
    ];
    for (file, manifest) in modules {
        assert_eq!(graph.module_of(file), Some(manifest), "{file}");
        assert_edge(&graph, file, manifest, Relation::SameModule, manifest);
    }
    assert_eq!(graph.module_of("config/app.yaml"), None);
    assert_edge(
        &graph,
        "web/src/pages/Orders.tsx",
        "CODEOWNERS",
        Relation::Owner,
        "@frontend (CODEOWNERS line 2)",
    );
    assert_edge(
        &graph,
        "services/billing/main.go",
        "CODEOWNERS",
        Relation::Owner,
        "@billing (CODEOWNERS line 3)",
    );
    assert_no_edge(
        &graph,
        "native/src/checksum.c",
        "CODEOWNERS",
        Relation::Owner,
    );

    let roles = [
        ("backend/shop/settings.py", Role::Config),
        ("backend/tests/test_views.py", Role::Test),
        ("web/tsconfig.json", Role::Build),
        ("config/app.yaml", Role::Config),
        ("deploy/Dockerfile", Role::Build),
        ("docs/architecture.md", Role::Docs),
        ("services/billing/invoice/invoice.go", Role::Source),
    ];
    for (path, role) in roles {
        assert_eq!(graph.node(path).unwrap().role, role, "{path}");
    }
    assert!(graph.node("docs/logo.png").is_none());
    assert_eq!(session.stats().skipped.count(SkipReason::Binary), 1);
}

#[test]
fn every_file_gets_a_doc_summary_where_it_has_one() {
    let session = Session::open(fixture_path("mixed_app")).unwrap();
    let cases = [
        (
            "backend/shop/orders/views.py",
            "The order API used by the web client.",
        ),
        (
            "web/src/api/client.ts",
            "HTTP client for the backend's order API.",
        ),
        (
            "services/billing/invoice/invoice.go",
            "Package invoice computes invoice totals.",
        ),
        (
            "native/include/checksum.h",
            "Checksums for invoice exports.",
        ),
    ];
    for (path, doc) in cases {
        assert_eq!(
            session.facts(path).unwrap().doc.as_deref(),
            Some(doc),
            "{path}"
        );
    }
}
