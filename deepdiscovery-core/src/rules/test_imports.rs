//! `test_imports`: a test tests the repository code it imports.
//!
//! Each non-test file a test imports (resolved exactly by the per-language
//! resolver) gets a TestOf link whose confidence is divided by √(number of such
//! imports): a test importing one module says more about it than one importing ten.

use std::collections::BTreeMap;

use crate::Result;
use crate::artifact::Role;
use crate::graph::{EdgeData, Relation, RelationRule, RuleContext};
use crate::resolve::Certainty;

use super::RuleSpec;

/// The rule.
#[derive(Debug)]
pub(super) struct TestImports {
    name: String,
    relation: Relation,
    confidence: f32,
}

impl TestImports {
    pub(super) fn new(spec: &RuleSpec) -> Result<Self> {
        Ok(TestImports {
            name: spec.name.clone(),
            relation: spec.relation,
            confidence: spec.confidence,
        })
    }
}

impl RelationRule for TestImports {
    fn name(&self) -> &str {
        &self.name
    }

    fn apply(&self, context: &RuleContext<'_>, out: &mut Vec<(String, String, EdgeData)>) {
        let role_of = |path: &str| {
            context
                .artifacts
                .binary_search_by(|a| a.path.as_str().cmp(path))
                .ok()
                .map(|i| context.artifacts[i].role)
        };
        for test in context.artifacts.iter().filter(|a| a.role == Role::Test) {
            // Target → (shown import, line) of its first import.
            let mut targets: BTreeMap<String, (String, u32)> = BTreeMap::new();
            for import in &test.facts.imports {
                for resolved in
                    context
                        .index
                        .resolve(&test.path, test.language, &test.facts, import)
                {
                    let is_code = role_of(&resolved.path)
                        .is_some_and(|r| !matches!(r, Role::Test | Role::Docs | Role::Other));
                    if resolved.certainty == Certainty::Exact && is_code {
                        targets
                            .entry(resolved.path)
                            .or_insert_with(|| (import.target.clone(), import.line));
                    }
                }
            }
            if targets.is_empty() {
                continue;
            }
            let confidence = self.confidence / (targets.len() as f32).sqrt();
            for (target, (shown, line)) in targets {
                out.push((
                    test.path.clone(),
                    target,
                    EdgeData {
                        relation: self.relation,
                        confidence,
                        rationale: format!(
                            "the test imports `{shown}` (line {line}) (rule {})",
                            self.name
                        ),
                    },
                ));
            }
        }
    }
}
