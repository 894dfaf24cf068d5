//! C and C++ fixture (`tests/fixtures/c_app`): facts, `#include` resolution,
//! header ↔ source pairs and edges.

use deepdiscovery_core::facts::DefKind;
use deepdiscovery_core::{Relation, Session};

use crate::support::{assert_edge, assert_no_edge, fixture_graph, fixture_path};

const SHAPE_H: &str = "include/proj/shape.h";
const CIRCLE_H: &str = "include/proj/circle.h";
const GEOMETRY_H: &str = "include/proj/geometry.h";
const LOG_H: &str = "src/util/log.h";
const SHAPE_CPP: &str = "src/shape.cpp";
const CIRCLE_CPP: &str = "src/circle.cpp";
const GEOMETRY_C: &str = "src/geometry.c";
const MAIN_CPP: &str = "src/main.cpp";
const TEST_CPP: &str = "tests/test_circle.cpp";

#[test]
fn quoted_includes_resolve_next_to_the_file_then_through_include_dirs() {
    let graph = fixture_graph("c_app");
    // The same header, included relative to its neighbour and through `include/`.
    let relative = assert_edge(
        &graph,
        CIRCLE_H,
        SHAPE_H,
        Relation::Imports,
        "imports `shape.h` (line 5)",
    );
    assert_eq!(relative.confidence, 1.0);
    let through_dir = assert_edge(
        &graph,
        SHAPE_CPP,
        SHAPE_H,
        Relation::Imports,
        "imports `proj/shape.h` (line 2)",
    );
    assert_eq!(through_dir.confidence, 1.0);
    assert_edge(
        &graph,
        "src/util/log.c",
        LOG_H,
        Relation::Imports,
        "imports `log.h` (line 4)",
    );
    // `util/log.h` from `tests/` is found through the top-level directory `src`.
    let top = assert_edge(
        &graph,
        TEST_CPP,
        LOG_H,
        Relation::Imports,
        "imports `util/log.h` (line 5)",
    );
    assert_eq!(top.confidence, 1.0);
}

#[test]
fn an_include_found_only_by_its_path_suffix_is_likely() {
    let graph = fixture_graph("c_app");
    let edge = assert_edge(
        &graph,
        MAIN_CPP,
        LOG_H,
        Relation::Imports,
        "imports `log.h` (line 5, resolved loosely)",
    );
    assert!(edge.confidence < 1.0, "{}", edge.confidence);
}

#[test]
fn system_includes_resolve_through_include_dirs_but_never_to_the_standard_library() {
    let graph = fixture_graph("c_app");
    assert_edge(
        &graph,
        TEST_CPP,
        CIRCLE_H,
        Relation::Imports,
        "imports `proj/circle.h` (line 3)",
    );
    // `<math.h>` names nothing in the repository: only the two quoted includes link.
    let imported: Vec<String> = graph
        .edges_from(GEOMETRY_C)
        .iter()
        .filter(|e| e.relation == Relation::Imports)
        .map(|e| e.to.to_string())
        .collect();
    assert_eq!(imported, [GEOMETRY_H, LOG_H]);
    // `<string>` alone: no import edge at all.
    assert!(
        graph
            .edges_from(SHAPE_H)
            .iter()
            .all(|e| e.relation != Relation::Imports)
    );
}

#[test]
fn sources_implement_their_headers_in_the_same_dir_and_across_include_and_src() {
    let graph = fixture_graph("c_app");
    for (source, header, name) in [
        (SHAPE_CPP, SHAPE_H, "shape.h"),
        (CIRCLE_CPP, CIRCLE_H, "circle.h"),
        (GEOMETRY_C, GEOMETRY_H, "geometry.h"),
        ("src/util/log.c", LOG_H, "log.h"),
    ] {
        assert_edge(
            &graph,
            source,
            header,
            Relation::Implements,
            &format!("implements the declarations of `{name}` (same name)"),
        );
    }
    assert_no_edge(&graph, MAIN_CPP, CIRCLE_H, Relation::Implements);
    assert_no_edge(&graph, SHAPE_CPP, CIRCLE_H, Relation::Implements);
}

#[test]
fn a_derived_class_inherits_from_the_header_of_its_base() {
    let graph = fixture_graph("c_app");
    let edge = assert_edge(
        &graph,
        CIRCLE_H,
        SHAPE_H,
        Relation::Inherits,
        "`Circle` extends `Shape` (line 9)",
    );
    assert!(edge.confidence > 0.9, "included base: {}", edge.confidence);
}

#[test]
fn calls_link_by_rare_names_and_not_by_common_ones() {
    let graph = fixture_graph("c_app");
    // C++ calling C: the prototype's header and the defining source.
    let edge = assert_edge(
        &graph,
        CIRCLE_CPP,
        GEOMETRY_C,
        Relation::Calls,
        "`geometry_distance` (line 16)",
    );
    assert!(
        edge.confidence > 0.3,
        "rare name links strongly: {}",
        edge.confidence
    );
    assert_edge(
        &graph,
        CIRCLE_CPP,
        GEOMETRY_H,
        Relation::Calls,
        "`geometry_origin` (line 16)",
    );
    // A function-like macro is called like a function.
    assert_edge(
        &graph,
        GEOMETRY_C,
        GEOMETRY_H,
        Relation::Calls,
        "calls `SQUARE` (line 10)",
    );
    // A method call through an object reaches the declaring header and the out-of-line definition.
    assert_edge(
        &graph,
        MAIN_CPP,
        SHAPE_H,
        Relation::Calls,
        "`describe` (line 11)",
    );
    assert_edge(
        &graph,
        MAIN_CPP,
        SHAPE_CPP,
        Relation::Calls,
        "`describe` (line 11)",
    );
    // `log_message` is called by most files: it links nothing.
    assert_no_edge(&graph, MAIN_CPP, "src/util/log.c", Relation::Calls);
    assert_no_edge(&graph, GEOMETRY_C, LOG_H, Relation::Calls);
}

#[test]
fn the_cmake_project_is_the_module_of_its_files() {
    let graph = fixture_graph("c_app");
    assert_eq!(graph.module_of(CIRCLE_CPP), Some("CMakeLists.txt"));
    assert_eq!(graph.module_of(SHAPE_H), Some("CMakeLists.txt"));
}

#[test]
fn cpp_facts_have_namespaces_classes_methods_and_docs() {
    let session = Session::open(fixture_path("c_app")).unwrap();
    let shape = session.facts(SHAPE_H).unwrap();
    assert_eq!(
        shape.doc.as_deref(),
        Some("Abstract shapes that every concrete figure derives from.")
    );
    let class = shape
        .definitions
        .iter()
        .find(|d| d.name == "Shape")
        .unwrap();
    assert_eq!(class.kind, DefKind::Class);
    assert_eq!(class.qualified.as_deref(), Some("proj::Shape"));
    assert_eq!(class.signature, "class Shape {");
    assert_eq!((class.span.start, class.span.end), (10, 15));
    let describe = shape
        .definitions
        .iter()
        .find(|d| d.name == "describe")
        .unwrap();
    assert_eq!(describe.kind, DefKind::Method);
    assert_eq!(describe.qualified.as_deref(), Some("proj::Shape::describe"));
    let namespace = shape.definitions.iter().find(|d| d.name == "proj").unwrap();
    assert_eq!(namespace.kind, DefKind::Module);
    assert_eq!(shape.imports.len(), 1);
    assert!(shape.imports[0].system && shape.imports[0].target == "string");

    let circle = session.facts(CIRCLE_H).unwrap();
    let constructor = circle
        .definitions
        .iter()
        .find(|d| d.name == "Circle" && d.span.start == 11)
        .unwrap();
    assert_eq!(constructor.kind, DefKind::Method);
    assert_eq!(
        constructor.qualified.as_deref(),
        Some("proj::Circle::Circle")
    );
    // A method returning a reference: the name sits under a reference declarator.
    let scaled = circle
        .definitions
        .iter()
        .find(|d| d.name == "scaled_copy")
        .unwrap();
    assert_eq!(scaled.kind, DefKind::Method);

    // Out-of-line member definitions are methods; a local object is not a function.
    let source = session.facts(CIRCLE_CPP).unwrap();
    let area = source
        .definitions
        .iter()
        .find(|d| d.name == "area")
        .unwrap();
    assert_eq!(
        (area.kind, area.signature.as_str()),
        (DefKind::Method, "double Circle::area() const {")
    );
    assert!(
        source
            .definitions
            .iter()
            .any(|d| d.name == "scaled_copy" && d.kind == DefKind::Method)
    );
    assert!(
        !source.definitions.iter().any(|d| d.name == "copy"),
        "{:?}",
        source.definitions
    );
    let targets: Vec<(&str, bool)> = source
        .imports
        .iter()
        .map(|i| (i.target.as_str(), i.system))
        .collect();
    assert_eq!(
        targets,
        [
            ("proj/circle.h", false),
            ("cmath", true),
            ("proj/geometry.h", false),
            ("util/log.h", false)
        ]
    );
}

#[test]
fn c_facts_have_functions_types_and_macros() {
    let session = Session::open(fixture_path("c_app")).unwrap();
    let header = session.facts(GEOMETRY_H).unwrap();
    let kind_of = |name: &str| {
        header
            .definitions
            .iter()
            .find(|d| d.name == name)
            .map(|d| d.kind)
    };
    assert_eq!(kind_of("geometry_distance"), Some(DefKind::Function));
    // A prototype returning a pointer.
    assert_eq!(kind_of("geometry_origin"), Some(DefKind::Function));
    assert_eq!(kind_of("point"), Some(DefKind::Struct));
    assert_eq!(kind_of("point_t"), Some(DefKind::Type));
    assert_eq!(kind_of("SQUARE"), Some(DefKind::Macro));
    assert_eq!(kind_of("GEOMETRY_PI"), Some(DefKind::Macro));
    // The struct inside the typedef is not nested under the typedef's name.
    let point = header
        .definitions
        .iter()
        .find(|d| d.name == "point")
        .unwrap();
    assert_eq!(point.qualified, None);
    let distance = header
        .definitions
        .iter()
        .find(|d| d.name == "geometry_distance")
        .unwrap();
    assert_eq!(
        distance.signature,
        "double geometry_distance(point_t a, point_t b);"
    );

    let source = session.facts(GEOMETRY_C).unwrap();
    assert_eq!(source.doc.as_deref(), Some("Distances between points."));
    let names: Vec<(&str, DefKind)> = source
        .definitions
        .iter()
        .map(|d| (d.name.as_str(), d.kind))
        .collect();
    assert_eq!(
        names,
        [
            ("hypotenuse", DefKind::Function),
            ("geometry_distance", DefKind::Function),
            ("geometry_origin", DefKind::Function),
        ]
    );
    let origin = &source.definitions[2];
    assert_eq!((origin.span.start, origin.span.end), (18, 20));
}

#[test]
fn a_syntax_error_keeps_what_parsed() {
    let session = Session::open(fixture_path("c_app")).unwrap();
    let facts = session.facts("src/broken.c").unwrap();
    let names: Vec<&str> = facts.definitions.iter().map(|d| d.name.as_str()).collect();
    assert!(names.contains(&"still_parsed"), "{names:?}");
    assert!(names.contains(&"after_error"), "{names:?}");
    assert_eq!(facts.imports[0].target, "util/log.h");
    assert!(
        facts.problems.iter().any(|p| p.contains("syntax error")),
        "{:?}",
        facts.problems
    );
}

/// A header that only C reads whole: `class`, `new` and `template` are C identifiers.
const C_ONLY_HEADER: &str = "#ifndef LIST_H\n#define LIST_H\n\nstruct list {\n    int class;\n    struct node *head;\n};\n\nint list_push(struct list *list, int new);\nconst char *template(const struct list *list);\nint list_pop(struct list *list);\n\n#endif\n";

fn write(root: &std::path::Path, path: &str, text: &str) {
    let full = root.join(path);
    std::fs::create_dir_all(full.parent().unwrap()).unwrap();
    std::fs::write(full, text).unwrap();
}

fn header_of(session: &Session) -> (deepdiscovery_core::Language, Vec<String>, Vec<String>) {
    let facts = session.facts("include/list.h").unwrap();
    let language = session
        .artifacts()
        .unwrap()
        .into_iter()
        .find(|a| a.path == "include/list.h")
        .unwrap()
        .language;
    let names = facts.definitions.iter().map(|d| d.name.clone()).collect();
    (language, names, facts.problems.clone())
}

#[test]
fn headers_are_read_with_the_grammar_of_the_repositorys_sources() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    write(root, "include/list.h", C_ONLY_HEADER);
    write(
        root,
        "src/list.c",
        "#include \"list.h\"\nint list_pop(struct list *list) { return 0; }\n",
    );
    write(
        root,
        "src/push.c",
        "#include \"list.h\"\nint list_push(struct list *list, int new) { return new; }\n",
    );
    let session = Session::open(root).unwrap();
    let (language, names, problems) = header_of(&session);
    assert_eq!(language, deepdiscovery_core::Language::C);
    assert!(problems.is_empty(), "{problems:?}");
    for name in ["list", "list_push", "template", "list_pop"] {
        assert!(names.iter().any(|n| n == name), "{name} in {names:?}");
    }

    // C++ sources now outnumber the C ones: the same bytes are read as C++, whose
    // grammar stumbles on the C identifiers.
    for k in 0..3 {
        write(root, &format!("src/view_{k}.cpp"), "class View {};\n");
    }
    let (language, names, problems) = header_of(&session);
    assert_eq!(language, deepdiscovery_core::Language::Cpp);
    assert!(
        !problems.is_empty(),
        "C++ stumbles on `template`: {names:?}"
    );
    assert!(!names.iter().any(|n| n == "template"), "{names:?}");
}
