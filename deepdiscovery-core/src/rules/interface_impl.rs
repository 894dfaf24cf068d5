//! `interface_impl`: implementation ↔ interface.
//!
//! Interfaces are the definitions of kind interface or trait (Java, Kotlin, C#,
//! TypeScript, PHP, Go, Rust) and the classes that derive from an abstract base
//! (`class Gateway(ABC)`, `class Reader(Protocol)`); any type that extends or
//! implements one links to the file declaring it. C and C++ sources link to the
//! headers they implement. Go's implicit interface satisfaction is not matched yet.

use std::collections::{BTreeMap, BTreeSet};

use crate::Result;
use crate::facts::DefKind;
use crate::graph::{EdgeData, Relation, RelationRule, RuleContext};
use crate::resolve::file_name;

use super::{RuleSpec, string_list};

/// An interface declared in more files than this is too ambiguous to link.
const MAX_DECLARERS: usize = 3;

/// The rule.
#[derive(Debug)]
pub(super) struct InterfaceImpl {
    name: String,
    relation: Relation,
    confidence: f32,
    abstract_bases: Vec<String>,
}

impl InterfaceImpl {
    pub(super) fn new(spec: &RuleSpec) -> Result<Self> {
        Ok(InterfaceImpl {
            name: spec.name.clone(),
            relation: spec.relation,
            confidence: spec.confidence,
            abstract_bases: string_list(spec, "abstract_bases")?,
        })
    }
}

impl RelationRule for InterfaceImpl {
    fn name(&self) -> &str {
        &self.name
    }

    fn apply(&self, context: &RuleContext<'_>, out: &mut Vec<(String, String, EdgeData)>) {
        // Interface name → files declaring it.
        let mut interfaces: BTreeMap<&str, BTreeSet<usize>> = BTreeMap::new();
        for (i, a) in context.artifacts.iter().enumerate() {
            for def in &a.facts.definitions {
                if matches!(def.kind, DefKind::Interface | DefKind::Trait) {
                    interfaces.entry(def.name.as_str()).or_default().insert(i);
                }
            }
            for sup in &a.facts.supertypes {
                if !sup.child.is_empty() && self.abstract_bases.contains(&sup.parent) {
                    interfaces.entry(sup.child.as_str()).or_default().insert(i);
                }
            }
        }
        for (i, a) in context.artifacts.iter().enumerate() {
            for sup in &a.facts.supertypes {
                let Some(declarers) = interfaces.get(sup.parent.as_str()) else {
                    continue;
                };
                let targets: Vec<usize> = declarers.iter().copied().filter(|&d| d != i).collect();
                if targets.is_empty() || targets.len() > MAX_DECLARERS {
                    continue;
                }
                let who = if sup.child.is_empty() {
                    String::new()
                } else {
                    format!("`{}` ", sup.child)
                };
                let confidence = self.confidence / (targets.len() as f32).sqrt();
                for d in targets {
                    out.push((
                        a.path.clone(),
                        context.artifacts[d].path.clone(),
                        EdgeData {
                            relation: self.relation,
                            confidence,
                            rationale: format!(
                                "{who}implements the interface `{}` (line {}) (rule {})",
                                sup.parent, sup.line, self.name
                            ),
                        },
                    ));
                }
            }
        }
        for (source, header) in context.index.header_pairs() {
            out.push((
                source,
                header.clone(),
                EdgeData {
                    relation: self.relation,
                    confidence: self.confidence,
                    rationale: format!(
                        "defines what `{}` declares (rule {})",
                        file_name(&header),
                        self.name
                    ),
                },
            ));
        }
    }
}
