//! `interface_impl`: implementation ↔ interface.
//!
//! Interfaces are the definitions of kind interface or trait (Java, Kotlin, C#,
//! TypeScript, PHP, Go, Rust) and the classes that derive from an abstract base
//! (`class Gateway(ABC)`, `class Reader(Protocol)`); any type that extends or
//! implements one links to the file declaring it. C and C++ sources link to the
//! headers they implement. Go interfaces are satisfied implicitly: a type whose
//! methods (read from the receivers of its method declarations) include every method
//! of an interface of the repository satisfies it.

use std::collections::{BTreeMap, BTreeSet};

use crate::Result;
use crate::artifact::Language;
use crate::facts::DefKind;
use crate::graph::{EdgeData, Relation, RelationRule, RuleContext};
use crate::resolve::{file_name, parent_dir};

use super::{RuleSpec, string_list};

/// An interface declared in more files than this is too ambiguous to link.
const MAX_DECLARERS: usize = 3;
/// A Go interface satisfied by more types than this (`Stringer`-like) links nothing.
const MAX_GO_IMPLEMENTERS: usize = 5;

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
        self.go_satisfaction(context, out);
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

impl InterfaceImpl {
    /// Go: types whose method sets include an interface's methods satisfy it.
    fn go_satisfaction(
        &self,
        context: &RuleContext<'_>,
        out: &mut Vec<(String, String, EdgeData)>,
    ) {
        // Interface (file index, name) → its method names; type name → (file of
        // its declaration, method names from all its receivers).
        let mut interfaces: Vec<(usize, &str, BTreeSet<&str>)> = Vec::new();
        let mut declared: BTreeMap<(&str, &str), usize> = BTreeMap::new();
        let mut methods: BTreeMap<(&str, &str), BTreeSet<&str>> = BTreeMap::new();
        for (i, a) in context.artifacts.iter().enumerate() {
            if a.language != Language::Go {
                continue;
            }
            let dir = parent_dir(&a.path);
            for def in &a.facts.definitions {
                match def.kind {
                    DefKind::Interface => {
                        let prefix = def.qualified.as_deref().unwrap_or(&def.name);
                        let set: BTreeSet<&str> = a
                            .facts
                            .definitions
                            .iter()
                            .filter(|m| m.kind == DefKind::Method)
                            .filter(|m| {
                                m.qualified
                                    .as_deref()
                                    .and_then(|q| q.strip_prefix(prefix))
                                    .is_some_and(|rest| rest.starts_with('.'))
                            })
                            .map(|m| m.name.as_str())
                            .collect();
                        if !set.is_empty() {
                            interfaces.push((i, def.name.as_str(), set));
                        }
                    }
                    DefKind::Struct | DefKind::Type | DefKind::Class => {
                        declared.entry((dir, def.name.as_str())).or_insert(i);
                    }
                    DefKind::Method => {
                        if let Some(receiver) = go_receiver(&def.signature) {
                            methods
                                .entry((dir, receiver))
                                .or_default()
                                .insert(def.name.as_str());
                        }
                    }
                    _ => {}
                }
            }
        }
        for (iface_file, iface, wanted) in &interfaces {
            let implementers: Vec<(&(&str, &str), usize)> = methods
                .iter()
                .filter(|(_, have)| wanted.is_subset(have))
                .filter_map(|(key, _)| declared.get(key).map(|&file| (key, file)))
                .filter(|(_, file)| file != iface_file)
                .collect();
            if implementers.is_empty() || implementers.len() > MAX_GO_IMPLEMENTERS {
                continue;
            }
            let names: Vec<&str> = wanted.iter().copied().collect();
            let confidence = self.confidence / (implementers.len() as f32).sqrt();
            for ((_, ty), file) in implementers {
                out.push((
                    context.artifacts[file].path.clone(),
                    context.artifacts[*iface_file].path.clone(),
                    EdgeData {
                        relation: self.relation,
                        confidence,
                        rationale: format!(
                            "`{ty}` satisfies the interface `{iface}` (methods {}) (rule {})",
                            names.join(", "),
                            self.name
                        ),
                    },
                ));
            }
        }
    }
}

/// The receiver type of a Go method signature line: `func (m *MemoryStore) Save(…`
/// → `MemoryStore`; generic receivers `(l *List[T])` → `List`.
fn go_receiver(signature: &str) -> Option<&str> {
    let rest = signature
        .strip_prefix("func")?
        .trim_start()
        .strip_prefix('(')?;
    let inside = &rest[..rest.find(')')?];
    let ty = inside.split_whitespace().last()?.trim_start_matches('*');
    let ty = ty.split('[').next()?;
    (!ty.is_empty() && ty.chars().all(|c| c.is_alphanumeric() || c == '_')).then_some(ty)
}

#[cfg(test)]
mod tests {
    use super::go_receiver;

    #[test]
    fn go_receivers_are_read_from_signatures() {
        assert_eq!(
            go_receiver("func (m *MemoryStore) SaveOrder(o *Order) error {"),
            Some("MemoryStore")
        );
        assert_eq!(
            go_receiver("func (e errNotFound) Error() string { return string(e) }"),
            Some("errNotFound")
        );
        assert_eq!(go_receiver("func (l *List[T]) Len() int {"), Some("List"));
        assert_eq!(go_receiver("func Plain() {"), None);
    }
}
