//! Kotlin fixture (`tests/fixtures/kotlin_app`, a Gradle layout): facts, import
//! resolution (also for a file whose package does not match its directory) and edges.

use deepdiscovery_core::Relation;
use deepdiscovery_core::facts::DefKind;

use crate::support::{assert_edge, assert_no_edge, fixture_graph, fixture_path, imported};

const APP: &str = "src/main/kotlin/com/acme/fleet/App.kt";
/// Declares `package com.acme.fleet.geo` but sits in `com/acme/fleet/`.
const GEO: &str = "src/main/kotlin/com/acme/fleet/Geo.kt";
const VEHICLE: &str = "src/main/kotlin/com/acme/fleet/model/Vehicle.kt";
const TRACKED: &str = "src/main/kotlin/com/acme/fleet/model/Tracked.kt";
const TRUCK: &str = "src/main/kotlin/com/acme/fleet/model/Truck.kt";
const PLANNER: &str = "src/main/kotlin/com/acme/fleet/routing/RoutePlanner.kt";
const FUEL: &str = "src/main/kotlin/com/acme/fleet/routing/Fuel.kt";
const STRINGS: &str = "src/main/kotlin/com/acme/fleet/util/Strings.kt";
const REGISTRY: &str = "src/main/kotlin/com/acme/fleet/util/Registry.kt";
const TEST: &str = "src/test/kotlin/com/acme/fleet/routing/RoutePlannerTest.kt";

#[test]
fn imports_resolve_by_declared_package_not_by_directory() {
    let graph = fixture_graph("kotlin_app");
    let edge = assert_edge(
        &graph,
        PLANNER,
        GEO,
        Relation::Imports,
        "imports `com.acme.fleet.geo.Coordinates` (line 3)",
    );
    assert_eq!(edge.confidence, 1.0, "found through the declared package");
    // An aliased import (`as Coords`) names the same file.
    assert_edge(
        &graph,
        APP,
        GEO,
        Relation::Imports,
        "imports `com.acme.fleet.geo.Coordinates` (line 4)",
    );
    assert_edge(
        &graph,
        PLANNER,
        VEHICLE,
        Relation::Imports,
        "imports `com.acme.fleet.model.Vehicle` (line 4)",
    );
    assert_edge(
        &graph,
        APP,
        PLANNER,
        Relation::Imports,
        "imports `com.acme.fleet.routing.RoutePlanner` (line 6)",
    );
    // `kotlin.test.*` names nothing in the repository.
    assert_eq!(imported(&graph, TEST), [GEO, TRUCK]);
}

#[test]
fn wildcard_and_top_level_function_imports() {
    let graph = fixture_graph("kotlin_app");
    for file in [VEHICLE, TRACKED, TRUCK] {
        let edge = assert_edge(
            &graph,
            APP,
            file,
            Relation::Imports,
            "imports `com.acme.fleet.model.*` (line 5)",
        );
        assert_eq!(edge.confidence, 1.0, "a package of a few files");
    }
    // A top-level function is indexed by its package-qualified name: exactly its file.
    let edge = assert_edge(
        &graph,
        APP,
        STRINGS,
        Relation::Imports,
        "imports `com.acme.fleet.util.slugify` (line 7)",
    );
    assert_eq!(edge.confidence, 1.0);
    assert!(
        graph
            .edges_from(APP)
            .iter()
            .all(|e| !(e.to == REGISTRY && e.rationale.contains("slugify"))),
        "the other file of the package is not named by the import"
    );
    // `kotlin.system.exitProcess` names nothing.
    assert!(
        imported(&graph, APP)
            .iter()
            .all(|p| p.starts_with("src/main/kotlin/com/acme/fleet/"))
    );
}

#[test]
fn supertypes_with_a_constructor_call_are_extended_others_implemented() {
    let graph = fixture_graph("kotlin_app");
    assert_edge(
        &graph,
        TRUCK,
        VEHICLE,
        Relation::Inherits,
        "`Truck` extends `Vehicle` (line 4)",
    );
    assert_edge(
        &graph,
        TRUCK,
        TRACKED,
        Relation::Implements,
        "`Truck` implements `Tracked` (line 4)",
    );
    assert_no_edge(&graph, TRUCK, TRACKED, Relation::Inherits);
    assert_no_edge(&graph, TRUCK, VEHICLE, Relation::Implements);
}

#[test]
fn calls_link_by_rare_names_and_not_by_common_ones() {
    let graph = fixture_graph("kotlin_app");
    // A top-level function of the same package: no import needed.
    let edge = assert_edge(
        &graph,
        PLANNER,
        FUEL,
        Relation::Calls,
        "`estimateFuelBurn` (line 10)",
    );
    assert!(
        edge.confidence > 0.3,
        "rare name links strongly: {}",
        edge.confidence
    );
    assert_edge(
        &graph,
        TEST,
        PLANNER,
        Relation::Calls,
        "`RoutePlanner` (line 11)",
    );
    assert_edge(&graph, PLANNER, VEHICLE, Relation::Calls, "`label`");
    // `get` is called by most files: it links nothing to `Registry.get`.
    for from in [APP, PLANNER, TRUCK, FUEL, TEST] {
        assert_no_edge(&graph, from, REGISTRY, Relation::Calls);
    }
}

#[test]
fn facts_have_packages_qualified_definitions_docs_and_imports() {
    let session = deepdiscovery_core::Session::open(fixture_path("kotlin_app")).unwrap();
    let app = session.facts(APP).unwrap();
    assert_eq!(app.package.as_deref(), Some("com.acme.fleet"));
    // The KDoc, not the license line above the package.
    assert_eq!(
        app.doc.as_deref(),
        Some("Plans the day's routes for the fleet and prints them.")
    );
    let main = app.definitions.iter().find(|d| d.name == "main").unwrap();
    assert_eq!(main.kind, DefKind::Function);
    assert_eq!(main.qualified.as_deref(), Some("com.acme.fleet.main"));
    assert_eq!(main.signature, "fun main(args: Array<String>) {");
    let alias = app.imports.iter().find(|i| i.line == 4).unwrap();
    assert_eq!(
        (alias.target.as_str(), alias.names.as_slice()),
        (
            "com.acme.fleet.geo.Coordinates",
            &["Coords".to_string()][..]
        )
    );
    let wildcard = app.imports.iter().find(|i| i.line == 5).unwrap();
    assert_eq!(
        (wildcard.target.as_str(), wildcard.names.as_slice()),
        ("com.acme.fleet.model", &["*".to_string()][..])
    );

    let geo = session.facts(GEO).unwrap();
    assert_eq!(geo.package.as_deref(), Some("com.acme.fleet.geo"));
    let qualified: Vec<&str> = geo
        .definitions
        .iter()
        .filter_map(|d| d.qualified.as_deref())
        .collect();
    assert!(
        qualified.contains(&"com.acme.fleet.geo.Coordinates"),
        "{qualified:?}"
    );
    assert!(
        qualified.contains(&"com.acme.fleet.geo.Coordinates.shifted"),
        "{qualified:?}"
    );
    assert!(
        qualified.contains(&"com.acme.fleet.geo.Coordinates.Origin.ZERO"),
        "{qualified:?}"
    );

    let planner = session.facts(PLANNER).unwrap();
    let route = planner
        .definitions
        .iter()
        .find(|d| d.name == "Route")
        .unwrap();
    assert_eq!(route.kind, DefKind::Class);
    assert_eq!(
        route.qualified.as_deref(),
        Some("com.acme.fleet.routing.RoutePlanner.Route")
    );
    assert_eq!((route.span.start, route.span.end), (15, 15));

    let kinds = |path: &str, name: &str| {
        session
            .facts(path)
            .unwrap()
            .definitions
            .iter()
            .find(|d| d.name == name)
            .map(|d| d.kind)
    };
    assert_eq!(kinds(TRACKED, "Tracked"), Some(DefKind::Interface));
    assert_eq!(
        kinds(REGISTRY, "Registry"),
        Some(DefKind::Class),
        "an object is a class"
    );
    assert_eq!(kinds(REGISTRY, "get"), Some(DefKind::Method));
    assert_eq!(
        kinds(TRUCK, "capacityKg"),
        Some(DefKind::Field),
        "a `val` constructor parameter"
    );
    assert_eq!(kinds(FUEL, "LITRES_PER_STOP"), Some(DefKind::Constant));
}

#[test]
fn a_syntax_error_keeps_what_parsed() {
    let session = deepdiscovery_core::Session::open(fixture_path("kotlin_app")).unwrap();
    let facts = session
        .facts("src/main/kotlin/com/acme/fleet/legacy/Dispatch.kt")
        .unwrap();
    let names: Vec<&str> = facts.definitions.iter().map(|d| d.name.as_str()).collect();
    assert!(names.contains(&"cancel"), "{names:?}");
    assert!(names.contains(&"stillParsed"), "{names:?}");
    assert!(
        facts.problems.iter().any(|p| p.contains("syntax error")),
        "{:?}",
        facts.problems
    );
}
