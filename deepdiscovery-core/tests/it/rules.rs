//! The relation-rule hook: rules a caller adds contribute edges to the graph.

use deepdiscovery_core::graph::{EdgeData, RelationRule, RuleContext};
use deepdiscovery_core::{MemorySource, Relation, Role, Session};

/// Links `tests/test_x.py` to `x.py` anywhere: a tiny TestOf rule.
struct TestNaming;

impl RelationRule for TestNaming {
    fn name(&self) -> &str {
        "test-naming"
    }

    fn apply(&self, context: &RuleContext<'_>, out: &mut Vec<(String, String, EdgeData)>) {
        for test in context.artifacts.iter().filter(|a| a.role == Role::Test) {
            let name = test.path.rsplit('/').next().unwrap_or("");
            let Some(subject) = name.strip_prefix("test_") else {
                continue;
            };
            for target in context.index.with_name(subject) {
                out.push((
                    test.path.clone(),
                    target.clone(),
                    EdgeData {
                        relation: Relation::TestOf,
                        confidence: 0.8,
                        rationale: format!("`{name}` is named after `{subject}`"),
                    },
                ));
            }
        }
    }
}

#[test]
fn a_rule_adds_typed_edges_with_its_rationale() {
    let source = MemorySource::from_files([
        ("shop/cart.py", "def total():\n    return 0\n"),
        ("tests/test_cart.py", "def test_total():\n    assert True\n"),
    ])
    .unwrap();
    let session = Session::new(source)
        .with_builtin_rules(false)
        .with_rule(TestNaming);
    let graph = session.graph().unwrap();
    let edge = graph
        .edge("tests/test_cart.py", "shop/cart.py", Relation::TestOf)
        .expect("the rule's edge");
    assert_eq!(edge.rationale, "`test_cart.py` is named after `cart.py`");
    assert_eq!(graph.relation_counts()[&Relation::TestOf], 1);
    // Without the rule, no such edge.
    let plain = Session::new(
        MemorySource::from_files([("shop/cart.py", ""), ("tests/test_cart.py", "")]).unwrap(),
    )
    .with_builtin_rules(false);
    assert!(
        plain
            .graph()
            .unwrap()
            .edge("tests/test_cart.py", "shop/cart.py", Relation::TestOf)
            .is_none()
    );
}

#[test]
fn the_builtin_test_naming_rule_links_tests_in_every_ecosystem() {
    let cases = [
        ("python_app", "tests/test_orders.py", "src/shop/orders.py"),
        (
            "java_app",
            "src/test/java/com/acme/shop/orders/OrderServiceTest.java",
            "src/main/java/com/acme/shop/orders/OrderService.java",
        ),
        (
            "go_app",
            "internal/orders/order_test.go",
            "internal/orders/order.go",
        ),
        (
            "ruby_app",
            "spec/models/order_spec.rb",
            "app/models/order.rb",
        ),
        (
            "ts_app",
            "tests/orderStore.test.ts",
            "src/orders/orderStore.ts",
        ),
        (
            "locate_app",
            "tests/test_export.py",
            "inventory/reports/export.py",
        ),
    ];
    for (fixture, test, subject) in cases {
        let graph = crate::support::fixture_graph(fixture);
        crate::support::assert_edge(
            &graph,
            test,
            subject,
            Relation::TestOf,
            "(rule test-file-naming)",
        );
    }
    // A test is not linked to another test, nor to a file of another name.
    let graph = crate::support::fixture_graph("locate_app");
    crate::support::assert_no_edge(
        &graph,
        "tests/test_export.py",
        "inventory/warehouse.py",
        Relation::TestOf,
    );
    let off = Session::open(crate::support::fixture_path("python_app"))
        .unwrap()
        .with_builtin_rules(false)
        .graph()
        .unwrap();
    assert!(
        off.edge(
            "tests/test_orders.py",
            "src/shop/orders.py",
            Relation::TestOf
        )
        .is_none()
    );
}

#[test]
fn dotted_paths_in_configuration_name_the_files_that_define_them() {
    let graph = crate::support::fixture_graph("python_app");
    crate::support::assert_edge(
        &graph,
        "src/shop/settings.py",
        "src/shop/orders.py",
        Relation::ConfigBinding,
        "names `shop.orders` (line 2) (rule config-dotted-path)",
    );
    let edge = crate::support::assert_edge(
        &graph,
        "config/app.yaml",
        "src/shop/payments/stripe_gateway.py",
        Relation::ConfigBinding,
        "names `shop.payments.stripe_gateway.StripeGateway` under `payments.provider` (line 2)",
    );
    assert!(
        edge.confidence < 0.9,
        "a module prefix is a looser match: {}",
        edge.confidence
    );
    let mixed = crate::support::fixture_graph("mixed_app");
    crate::support::assert_edge(
        &mixed,
        "config/app.yaml",
        "backend/shop/orders/views.py",
        Relation::ConfigBinding,
        "`shop.orders.views.order_summary`",
    );
    // Code files' own dotted strings are not configuration.
    crate::support::assert_no_edge(
        &graph,
        "src/shop/orders.py",
        "src/shop/payments/gateway.py",
        Relation::ConfigBinding,
    );
}

#[test]
fn code_reading_a_config_key_binds_to_the_file_defining_it() {
    let graph = crate::support::fixture_graph("locate_app");
    crate::support::assert_edge(
        &graph,
        "inventory/config.py",
        "config/settings.yaml",
        Relation::ConfigBinding,
        "reads config key `inventory.reorder.threshold` (line 11, defined at line 3)",
    );
    let source = MemorySource::from_files([
        ("src/main/resources/application.properties", "app.timeout.seconds=30\nname=x\n"),
        (
            "src/main/java/com/acme/Client.java",
            "package com.acme;\nclass Client {\n  @Value(\"${app.timeout.seconds}\") int timeout;\n  String n = \"${name}\";\n}\n",
        ),
    ])
    .unwrap();
    let graph = Session::new(source).graph().unwrap();
    let edge = graph
        .edge(
            "src/main/java/com/acme/Client.java",
            "src/main/resources/application.properties",
            Relation::ConfigBinding,
        )
        .expect("the @Value placeholder binds");
    assert!(
        edge.rationale
            .contains("`app.timeout.seconds` (line 3, defined at line 1)"),
        "{}",
        edge.rationale
    );
    assert_eq!(
        graph.relation_counts()[&Relation::ConfigBinding],
        1,
        "`name` is too short to bind"
    );
}

#[test]
fn implementations_link_to_their_interfaces_abcs_traits_and_headers() {
    let cases = [
        (
            "python_app",
            "src/shop/payments/stripe_gateway.py",
            "src/shop/payments/gateway.py",
            "`StripeGateway` implements the interface `PaymentGateway` (line 6)",
        ),
        (
            "java_app",
            "src/main/java/com/acme/shop/payments/AbstractGateway.java",
            "src/main/java/com/acme/shop/payments/PaymentGateway.java",
            "implements the interface `PaymentGateway`",
        ),
        (
            "rust_app",
            "crates/shop-core/src/payment/impls.rs",
            "crates/shop-core/src/payment/mod.rs",
            "`StripeGateway` implements the interface `Describe` (line 7) (rule interface-implementation) (+1 more)",
        ),
        (
            "c_app",
            "src/circle.cpp",
            "include/proj/circle.h",
            "defines what `circle.h` declares",
        ),
        (
            "go_app",
            "internal/store/memory.go",
            "internal/store/store.go",
            "`MemoryStore` satisfies the interface `Store` (methods LoadOrder, SaveOrder)",
        ),
    ];
    for (fixture, from, to, rationale) in cases {
        let graph = crate::support::fixture_graph(fixture);
        crate::support::assert_edge(&graph, from, to, Relation::InterfaceImpl, rationale);
    }
    // A plain base class is not an interface.
    let graph = crate::support::fixture_graph("locate_app");
    assert!(
        !graph
            .relation_counts()
            .contains_key(&Relation::InterfaceImpl)
    );
}

#[test]
fn a_test_tests_the_repository_code_it_imports() {
    let source = MemorySource::from_files([
        ("shop/__init__.py", ""),
        ("shop/cart.py", "def add():\n    pass\n"),
        ("shop/payment.py", "def pay():\n    pass\n"),
        ("tests/helpers.py", "def make():\n    pass\n"),
        (
            "tests/test_checkout_flow.py",
            "import os\nfrom shop.cart import add\nfrom shop import payment\nfrom tests.helpers import make\n",
        ),
    ])
    .unwrap();
    let graph = Session::new(source).graph().unwrap();
    let edge = graph
        .edge(
            "tests/test_checkout_flow.py",
            "shop/cart.py",
            Relation::TestOf,
        )
        .expect("imported module is tested");
    assert_eq!(
        edge.rationale,
        "the test imports `shop.cart` (line 2) (rule test-imports)"
    );
    assert!(
        graph
            .edge(
                "tests/test_checkout_flow.py",
                "shop/payment.py",
                Relation::TestOf
            )
            .is_some()
    );
    assert!(
        graph
            .edge(
                "tests/test_checkout_flow.py",
                "tests/helpers.py",
                Relation::TestOf
            )
            .is_none()
    );
    // Three code files imported (package, cart, payment): each link is weaker than one.
    assert!(edge.confidence < 0.6, "{}", edge.confidence);
}

#[test]
fn code_reading_an_environment_setting_binds_to_the_env_file() {
    let source = MemorySource::from_files([
        (".env", "DATABASE_URL=postgres://db/shop\nDEBUG=1\n"),
        (
            "app/db.py",
            "import os\n\nURL = os.environ[\"DATABASE_URL\"]\nMODE = \"GET\"\n",
        ),
        ("app/other.py", "x = 'DEBUG'\n"),
    ])
    .unwrap();
    let graph = Session::new(source).graph().unwrap();
    let edge = graph
        .edge("app/db.py", ".env", Relation::ConfigBinding)
        .expect("os.environ read binds to .env");
    assert!(
        edge.rationale
            .contains("`DATABASE_URL` (line 3, defined at line 1)"),
        "{}",
        edge.rationale
    );
    // `DEBUG` has no underscore: too generic to bind on as a single segment.
    assert!(
        graph
            .edge("app/other.py", ".env", Relation::ConfigBinding)
            .is_none()
    );
}

#[test]
fn callers_add_rules_as_data() {
    let spec = r#"
[[rule]]
name = "house-checks"
relation = "test_of"
confidence = 0.7
kind = "test_naming"
params.patterns = ["check_{stem}.{ext}"]
"#;

    let source = MemorySource::from_files([
        ("lib/parser.py", "def parse():\n    pass\n"),
        ("tests/check_parser.py", "def check():\n    pass\n"),
    ])
    .unwrap();
    let graph = Session::new(source)
        .with_rule_specs(spec)
        .unwrap()
        .graph()
        .unwrap();
    let edge = graph
        .edge("tests/check_parser.py", "lib/parser.py", Relation::TestOf)
        .expect("the caller's rule links the check to its subject");
    assert!(
        edge.rationale.contains("(rule house-checks)"),
        "{}",
        edge.rationale
    );

    let bad = "[[rule]]\nname = \"x\"\nrelation = \"test_of\"\nconfidence = 0.5\nkind = \"nope\"\n";
    let err = Session::new(MemorySource::new())
        .with_rule_specs(bad)
        .unwrap_err();
    assert!(err.to_string().contains("invalid rule x"), "{err}");
}
