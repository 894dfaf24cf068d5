//! TypeScript/JavaScript fixture (`tests/fixtures/ts_app`): facts, import resolution
//! (relative, index files, tsconfig `paths`, workspace packages) and edges.

use deepdiscovery_core::facts::{DefKind, SuperKind};
use deepdiscovery_core::{MemorySource, Relation, Session};

use crate::support::{assert_edge, assert_no_edge, fixture_graph, fixture_path};

const APP: &str = "src/app.ts";
const MONEY: &str = "src/core/money.ts";
const REPOSITORY: &str = "src/core/repository.ts";
const ORDER: &str = "src/orders/order.ts";
const ORDER_STORE: &str = "src/orders/orderStore.ts";
const LOG: &str = "src/util/log.ts";
const LIST: &str = "src/ui/OrderList.tsx";

#[test]
fn relative_imports_resolve_with_extensions_and_index_files() {
    let graph = fixture_graph("ts_app");
    assert_edge(
        &graph,
        ORDER_STORE,
        ORDER,
        Relation::Imports,
        "imports `./order` (line 4)",
    );
    // A directory import is its `index.ts` barrel, and the barrel re-exports.
    assert_edge(
        &graph,
        APP,
        "src/core/index.ts",
        Relation::Imports,
        "imports `./core` (line 3)",
    );
    assert_edge(
        &graph,
        "src/core/index.ts",
        MONEY,
        Relation::Imports,
        "imports `./money` (line 2)",
    );
    assert_edge(
        &graph,
        "src/core/index.ts",
        REPOSITORY,
        Relation::Imports,
        "`./repository` (line 3)",
    );
    // ESM style: `./x.js` written for `./x.ts`.
    assert_edge(
        &graph,
        APP,
        ORDER_STORE,
        Relation::Imports,
        "imports `./orders/orderStore.js` (line 4)",
    );
    // Type-only, side-effect (non-code target), dynamic and test-file imports.
    assert_edge(
        &graph,
        LIST,
        ORDER,
        Relation::Imports,
        "imports `../orders/order` (line 5)",
    );
    assert_edge(
        &graph,
        LIST,
        "src/ui/orderList.css",
        Relation::Imports,
        "(line 6)",
    );
    assert_edge(
        &graph,
        LIST,
        "src/ui/SalesChart.jsx",
        Relation::Imports,
        "imports `./SalesChart` (line 11)",
    );
    assert_edge(
        &graph,
        "tests/orderStore.test.ts",
        ORDER_STORE,
        Relation::Imports,
        "../src/orders/orderStore",
    );
}

#[test]
fn commonjs_requires_resolve() {
    let graph = fixture_graph("ts_app");
    let legacy = "src/orders/legacyExport.js";
    assert_edge(
        &graph,
        legacy,
        MONEY,
        Relation::Imports,
        "imports `../core/money` (line 2)",
    );
    assert_edge(
        &graph,
        legacy,
        LOG,
        Relation::Imports,
        "imports `../util/log` (line 3)",
    );
}

#[test]
fn tsconfig_paths_and_workspace_packages_resolve() {
    let graph = fixture_graph("ts_app");
    // `@core/*` → `src/core/*` (tsconfig with comments and trailing commas).
    assert_edge(
        &graph,
        ORDER,
        MONEY,
        Relation::Imports,
        "imports `@core/money` (line 3)",
    );
    assert_edge(
        &graph,
        ORDER,
        REPOSITORY,
        Relation::Imports,
        "imports `@core/repository` (line 2)",
    );
    // An exact alias without a wildcard.
    assert_edge(
        &graph,
        APP,
        LOG,
        Relation::Imports,
        "imports `@util` (line 6)",
    );
    // `@acme/shared` is packages/shared: its `main` is not in the repository, `types` is.
    assert_edge(
        &graph,
        APP,
        "packages/shared/src/index.ts",
        Relation::Imports,
        "imports `@acme/shared` (line 5)",
    );
    // `express` and `react` are node_modules packages: nothing in the repository.
    let imports: Vec<String> = graph
        .edges_from(APP)
        .iter()
        .filter(|e| e.relation == Relation::Imports)
        .map(|e| e.to.to_string())
        .collect();
    assert_eq!(
        imports,
        [
            "packages/shared/src/index.ts",
            "src/core/index.ts",
            ORDER_STORE,
            LOG
        ]
    );
}

#[test]
fn extends_and_implements_link_to_the_declaring_files() {
    let graph = fixture_graph("ts_app");
    let edge = assert_edge(
        &graph,
        ORDER_STORE,
        REPOSITORY,
        Relation::Inherits,
        "`OrderStore` extends `BaseStore` (line 7)",
    );
    assert!(edge.confidence > 0.9, "imported base: {}", edge.confidence);
    assert_edge(
        &graph,
        ORDER_STORE,
        "src/orders/audit.ts",
        Relation::Implements,
        "`OrderStore` implements `Auditable` (line 7)",
    );
    // Interface extension.
    assert_edge(
        &graph,
        ORDER,
        REPOSITORY,
        Relation::Inherits,
        "`Order` extends `Identified` (line 10)",
    );
}

#[test]
fn calls_link_by_rare_names_and_not_by_common_ones() {
    let graph = fixture_graph("ts_app");
    let edge = assert_edge(
        &graph,
        APP,
        "packages/shared/src/index.ts",
        Relation::Calls,
        "calls `slugifyTitle` (line 13)",
    );
    assert!(
        edge.confidence > 0.5,
        "rare name links strongly: {}",
        edge.confidence
    );
    assert_edge(
        &graph,
        "tests/orderStore.test.ts",
        ORDER_STORE,
        Relation::Calls,
        "`markPaid` (line 9)",
    );
    assert_edge(
        &graph,
        LIST,
        MONEY,
        Relation::Calls,
        "calls `formatMoneyAmount` (line 16)",
    );
    // `log` is called by almost every file: imported, but no call edge.
    assert_edge(&graph, APP, LOG, Relation::Imports, "@util");
    assert_no_edge(&graph, APP, LOG, Relation::Calls);
    assert_no_edge(&graph, ORDER_STORE, LOG, Relation::Calls);
    assert_no_edge(&graph, MONEY, LOG, Relation::Calls);
}

#[test]
fn facts_have_definitions_imports_and_docs() {
    let session = Session::open(fixture_path("ts_app")).unwrap();
    let repo = session.facts(REPOSITORY).unwrap();
    assert_eq!(
        repo.doc.as_deref(),
        Some("Storage contracts for every entity.")
    );
    assert_eq!(repo.package, None);
    let base = repo
        .definitions
        .iter()
        .find(|d| d.name == "BaseStore")
        .unwrap();
    assert_eq!(base.kind, DefKind::Class);
    assert_eq!(
        base.signature,
        "export abstract class BaseStore<T extends Identified> implements Repository<T> {"
    );
    assert_eq!((base.span.start, base.span.end), (13, 28));
    let qualified: Vec<&str> = repo
        .definitions
        .iter()
        .filter_map(|d| d.qualified.as_deref())
        .collect();
    assert_eq!(
        qualified,
        [
            "Repository.find",
            "Repository.save",
            "BaseStore.find",
            "BaseStore.save"
        ]
    );
    let kinds: Vec<(DefKind, &str)> = repo
        .definitions
        .iter()
        .filter(|d| d.qualified.is_none())
        .map(|d| (d.kind, d.name.as_str()))
        .collect();
    assert_eq!(
        kinds,
        [
            (DefKind::Interface, "Identified"),
            (DefKind::Interface, "Repository"),
            (DefKind::Class, "BaseStore")
        ]
    );
    assert!(repo.supertypes.iter().any(|s| s.child == "BaseStore"
        && s.parent == "Repository"
        && s.kind == SuperKind::Implements));

    let money = session.facts(MONEY).unwrap();
    assert_eq!(
        money.doc.as_deref(),
        Some("Money amounts and their formatting.")
    );
    let kinds: Vec<(DefKind, &str)> = money
        .definitions
        .iter()
        .map(|d| (d.kind, d.name.as_str()))
        .collect();
    assert_eq!(
        kinds,
        [
            (DefKind::Constant, "CURRENCY"),
            (DefKind::Type, "Cents"),
            (DefKind::Function, "formatMoneyAmount")
        ]
    );

    let order = session.facts(ORDER).unwrap();
    assert!(
        order
            .definitions
            .iter()
            .any(|d| d.kind == DefKind::Enum && d.name == "OrderStatus")
    );

    let app = session.facts(APP).unwrap();
    let imports: Vec<(&str, Vec<&str>)> = app
        .imports
        .iter()
        .map(|i| {
            (
                i.target.as_str(),
                i.names.iter().map(String::as_str).collect(),
            )
        })
        .collect();
    assert_eq!(
        imports,
        [
            ("express", vec![]),
            ("./core", vec![]),
            ("./orders/orderStore.js", vec!["OrderStore"]),
            ("@acme/shared", vec!["slugifyTitle"]),
            ("@util", vec!["log"]),
        ]
    );
    let start = app.definitions.iter().find(|d| d.name == "start").unwrap();
    assert_eq!(start.kind, DefKind::Function);
    assert_eq!(start.signature, "export const start = (port: number) => {");

    // CommonJS exports and requires in a .js file; dynamic import in a .tsx file.
    let legacy = session.facts("src/orders/legacyExport.js").unwrap();
    assert!(
        legacy
            .definitions
            .iter()
            .any(|d| d.name == "exportOrdersCsv" && d.kind == DefKind::Function)
    );
    let list = session.facts(LIST).unwrap();
    assert!(
        list.imports
            .iter()
            .any(|i| i.target == "./SalesChart" && i.line == 11)
    );
}

#[test]
fn a_syntax_error_keeps_what_parsed() {
    let session = Session::open(fixture_path("ts_app")).unwrap();
    let facts = session.facts("scripts/broken.ts").unwrap();
    let names: Vec<&str> = facts.definitions.iter().map(|d| d.name.as_str()).collect();
    assert_eq!(names, ["stillParsed", "AlsoParsed", "run"]);
    assert!(
        facts
            .problems
            .iter()
            .any(|p| p.contains("syntax error near line 6")),
        "{:?}",
        facts.problems
    );
}

#[test]
fn tsconfig_extends_and_paths_without_base_url() {
    let mut source = MemorySource::new();
    let files = [
        (
            "tsconfig.base.json",
            r#"{ "compilerOptions": { "paths": { "~/*": ["./lib/*"] } } }"#,
        ),
        (
            "web/tsconfig.json",
            r#"{ "extends": "../tsconfig.base.json", /* no paths */ }"#,
        ),
        (
            "web/main.ts",
            "import { a } from \"~/a\";\nimport b from \"left-pad\";\n",
        ),
        ("lib/a.ts", "export const a = 1;\n"),
        (
            "node_modules/left-pad/package.json",
            r#"{ "name": "left-pad", "main": "index.js" }"#,
        ),
        ("node_modules/left-pad/index.js", "module.exports = 1;\n"),
    ];
    for (path, text) in files {
        source.insert(path, text).unwrap();
    }
    let graph = Session::new(source).graph().unwrap();
    assert_edge(
        &graph,
        "web/main.ts",
        "lib/a.ts",
        Relation::Imports,
        "imports `~/a` (line 1)",
    );
    assert_no_edge(
        &graph,
        "web/main.ts",
        "node_modules/left-pad/index.js",
        Relation::Imports,
    );
}

#[test]
fn jsx_elements_in_tsx_are_component_calls() {
    let graph = fixture_graph("ts_app");
    assert_edge(
        &graph,
        LIST,
        "src/ui/OrderBadge.tsx",
        Relation::Imports,
        "./OrderBadge",
    );
    assert_edge(
        &graph,
        LIST,
        "src/ui/OrderBadge.tsx",
        Relation::Calls,
        "`OrderBadge`",
    );
}
