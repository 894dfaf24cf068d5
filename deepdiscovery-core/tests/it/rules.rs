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
    let session = Session::new(source).with_rule(TestNaming);
    let graph = session.graph().unwrap();
    let edge = graph
        .edge("tests/test_cart.py", "shop/cart.py", Relation::TestOf)
        .expect("the rule's edge");
    assert_eq!(edge.rationale, "`test_cart.py` is named after `cart.py`");
    assert_eq!(graph.relation_counts()[&Relation::TestOf], 1);
    // Without the rule, no such edge.
    let plain = Session::new(
        MemorySource::from_files([("shop/cart.py", ""), ("tests/test_cart.py", "")]).unwrap(),
    );
    assert!(
        plain
            .graph()
            .unwrap()
            .edge("tests/test_cart.py", "shop/cart.py", Relation::TestOf)
            .is_none()
    );
}
