//! Sweeps of a shared contract (issue 33, item 2): when a change touches a contract
//! (a base class, an interface, a trait, a header), the files that implement it often
//! change with it, and so do the contract's other implementations when one of them
//! changes. A signature named in the task is swept the same way: the files that
//! define the same name as a context file are the other sides of that signature.
//!
//! This module reads those ties from the query's graph (type relations: inherits,
//! implements, interface implementation) and from the facts the graph was built with,
//! for the learned completion ([`super::completion`]): the implementers and sibling
//! implementations of the context join its candidate pool, and each candidate gets
//! the sweep features below. What joins is still the model's choice; a sweep only
//! says which files are the contract's.
//!
//! Hostile input: a base class with thousands of subclasses is read through at most
//! [`MAX_EDGES`] edges per contract and gives at most [`MAX_CANDIDATES`] candidates.

use std::collections::{BTreeSet, HashMap, HashSet};
use std::sync::Arc;

use crate::facts::{DefKind, Facts};
use crate::graph::{Relation, RepoGraph};

/// At most this many files of the context are read as contracts or implementations.
const MAX_CONTEXT: usize = 16;
/// At most this many type edges are read into or out of one file.
const MAX_EDGES: usize = 256;
/// At most this many sweep candidates join the completion's pool.
pub(super) const MAX_CANDIDATES: usize = 24;
/// Counts in the features stop here.
const MAX_COUNT: usize = 10;

/// What ties a candidate to the context's contracts (the completion's sweep features).
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub(super) struct SweepTies {
    /// Context files whose types the candidate's types extend or implement.
    pub implements_context: f32,
    /// Context files whose types extend or implement the candidate's.
    pub implemented_by_context: f32,
    /// Contracts the candidate implements that a context file implements too (the
    /// contract itself need not be in the context).
    pub sibling: f32,
    /// 1 when the candidate defines a function, method or type the task names that a
    /// context file defines too: the other side of a named signature.
    pub shared_symbol: f32,
}

/// The context's contracts, read once per query.
pub(super) struct Contracts<'a> {
    graph: &'a RepoGraph,
    context: HashSet<&'a str>,
    /// The files a context file's types extend or implement (in the context or not).
    implemented: BTreeSet<&'a str>,
    /// The names the task mentions that a context file defines.
    symbols: HashSet<String>,
}

/// Whether a relation says a type of one file extends or implements one of the other.
fn is_type_relation(relation: Relation) -> bool {
    matches!(
        relation,
        Relation::Inherits | Relation::Implements | Relation::InterfaceImpl
    )
}

/// Whether a definition is a signature a change can sweep: a function, method or type.
fn is_signature(kind: DefKind) -> bool {
    !matches!(kind, DefKind::Module | DefKind::Constant)
}

impl<'a> Contracts<'a> {
    /// The contracts of `context` (best first; the first [`MAX_CONTEXT`] are read), with
    /// the task's named symbols (`symbols`) that the context defines, read from
    /// `facts`.
    pub fn new(
        graph: &'a RepoGraph,
        context: &'a [String],
        symbols: &HashSet<&str>,
        facts: &dyn Fn(&str) -> Option<Arc<Facts>>,
    ) -> Self {
        let read = &context[..context.len().min(MAX_CONTEXT)];
        let mut implemented = BTreeSet::new();
        for file in read {
            for edge in graph.edges_from(file).into_iter().take(MAX_EDGES) {
                if is_type_relation(edge.relation) && edge.to != file {
                    implemented.insert(edge.to);
                }
            }
        }
        let mut defined = HashSet::new();
        if !symbols.is_empty() {
            for file in read {
                if let Some(f) = facts(file) {
                    defined.extend(
                        f.definitions
                            .iter()
                            .filter(|d| is_signature(d.kind) && symbols.contains(d.name.as_str()))
                            .map(|d| d.name.clone()),
                    );
                }
            }
        }
        Contracts {
            graph,
            context: read.iter().map(String::as_str).collect(),
            implemented,
            symbols: defined,
        }
    }

    /// The files the sweep proposes, outside the context: the contracts the context
    /// implements, and the implementers of those and of the context's files; the best by
    /// `score` (Location's normalized score) first, then by path; at most
    /// [`MAX_CANDIDATES`].
    pub fn candidates(&self, score: &HashMap<String, f32>) -> Vec<&'a str> {
        let mut found: BTreeSet<&'a str> = BTreeSet::new();
        let contracts = self
            .context
            .iter()
            .copied()
            .chain(self.implemented.iter().copied());
        for contract in contracts.collect::<BTreeSet<_>>() {
            for edge in self.graph.edges_to(contract).into_iter().take(MAX_EDGES) {
                if is_type_relation(edge.relation) && !self.context.contains(edge.from) {
                    found.insert(edge.from);
                }
            }
            if !self.context.contains(contract) {
                found.insert(contract);
            }
        }
        let mut out: Vec<&'a str> = found.into_iter().collect();
        let of = |p: &str| score.get(p).copied().unwrap_or(0.0);
        out.sort_by(|a, b| of(b).total_cmp(&of(a)).then_with(|| a.cmp(b)));
        out.truncate(MAX_CANDIDATES);
        out
    }

    /// What ties `path` to the context's contracts; `facts` gives its definitions.
    pub fn ties(&self, path: &str, facts: Option<&Facts>) -> SweepTies {
        let mut implements = HashSet::new();
        let mut siblings = HashSet::new();
        for edge in self.graph.edges_from(path).into_iter().take(MAX_EDGES) {
            if !is_type_relation(edge.relation) || edge.to == path {
                continue;
            }
            if self.context.contains(edge.to) {
                implements.insert(edge.to);
            } else if self.implemented.contains(edge.to) {
                siblings.insert(edge.to);
            }
        }
        let implemented_by: HashSet<&str> = self
            .graph
            .edges_to(path)
            .into_iter()
            .take(MAX_EDGES)
            .filter(|e| is_type_relation(e.relation) && self.context.contains(e.from))
            .map(|e| e.from)
            .collect();
        let shared_symbol = facts.is_some_and(|f| {
            f.definitions
                .iter()
                .any(|d| is_signature(d.kind) && self.symbols.contains(&d.name))
        });
        let count = |n: usize| n.min(MAX_COUNT) as f32;
        SweepTies {
            implements_context: count(implements.len()),
            implemented_by_context: count(implemented_by.len()),
            sibling: count(siblings.len()),
            shared_symbol: if shared_symbol { 1.0 } else { 0.0 },
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::artifact::{Language, Role};
    use crate::facts::{Definition, Span};
    use crate::graph::{EdgeData, Node};

    /// A graph of `paths` with `(from, to, relation)` edges.
    fn graph(paths: &[&str], edges: &[(&str, &str, Relation)]) -> RepoGraph {
        let at = |p: &str| paths.iter().position(|q| *q == p).unwrap() as u32;
        let nodes = paths
            .iter()
            .map(|p| Node {
                path: p.to_string(),
                language: Language::Python,
                role: Role::Source,
            })
            .collect();
        let edges = edges
            .iter()
            .map(|(a, b, relation)| {
                let data = EdgeData {
                    relation: *relation,
                    confidence: 1.0,
                    rationale: String::new(),
                };
                (at(a), at(b), data)
            })
            .collect();
        RepoGraph::from_parts(nodes, edges, HashMap::new())
    }

    fn defining(names: &[&str]) -> Arc<Facts> {
        Arc::new(Facts {
            definitions: names
                .iter()
                .map(|n| Definition {
                    kind: DefKind::Method,
                    name: n.to_string(),
                    qualified: None,
                    signature: format!("def {n}(self):"),
                    span: Span { start: 1, end: 2 },
                })
                .collect(),
            ..Facts::default()
        })
    }

    /// A contract `base.py`, three implementations, a user that only imports it.
    fn shapes() -> RepoGraph {
        graph(
            &["a.py", "b.py", "base.py", "c.py", "user.py"],
            &[
                ("a.py", "base.py", Relation::Inherits),
                ("b.py", "base.py", Relation::Inherits),
                ("c.py", "base.py", Relation::InterfaceImpl),
                ("user.py", "base.py", Relation::Imports),
            ],
        )
    }

    #[test]
    fn an_implementation_in_the_context_sweeps_its_contract_and_its_siblings() {
        let g = shapes();
        let context = vec!["a.py".to_string()];
        let none = |_: &str| None;
        let c = Contracts::new(&g, &context, &HashSet::new(), &none);
        assert_eq!(c.candidates(&HashMap::new()), ["b.py", "base.py", "c.py"]);
        let sibling = c.ties("b.py", None);
        assert_eq!(sibling.sibling, 1.0);
        assert_eq!(sibling.implements_context, 0.0);
        let contract = c.ties("base.py", None);
        assert_eq!(contract.implemented_by_context, 1.0);
        assert_eq!(contract.sibling, 0.0);
        // An import is no contract.
        assert_eq!(c.ties("user.py", None), SweepTies::default());
    }

    #[test]
    fn a_contract_in_the_context_sweeps_its_implementations_best_first() {
        let g = shapes();
        let context = vec!["base.py".to_string()];
        let none = |_: &str| None;
        let c = Contracts::new(&g, &context, &HashSet::new(), &none);
        let score: HashMap<String, f32> = [("c.py".to_string(), 0.9)].into_iter().collect();
        assert_eq!(c.candidates(&score), ["c.py", "a.py", "b.py"]);
        assert_eq!(c.ties("a.py", None).implements_context, 1.0);
        assert_eq!(c.ties("c.py", None).implements_context, 1.0);
        assert_eq!(c.ties("user.py", None), SweepTies::default());
    }

    #[test]
    fn a_named_signature_ties_the_files_that_define_it_too() {
        let g = shapes();
        let context = vec!["base.py".to_string()];
        let facts = |p: &str| match p {
            "base.py" => Some(defining(&["render", "size"])),
            _ => None,
        };
        let symbols: HashSet<&str> = ["render", "missing"].into_iter().collect();
        let c = Contracts::new(&g, &context, &symbols, &facts);
        assert_eq!(
            c.ties("a.py", Some(&defining(&["render"]))).shared_symbol,
            1.0
        );
        // A name the task does not mention, or one the context does not define.
        assert_eq!(
            c.ties("b.py", Some(&defining(&["size"]))).shared_symbol,
            0.0
        );
        assert_eq!(
            c.ties("c.py", Some(&defining(&["missing"]))).shared_symbol,
            0.0
        );
    }

    #[test]
    fn a_hub_contract_gives_a_bounded_sweep() {
        let names: Vec<String> = (0..2000).map(|k| format!("impl_{k:04}.py")).collect();
        let mut paths: Vec<&str> = names.iter().map(String::as_str).collect();
        paths.push("base.py");
        let edges: Vec<(&str, &str, Relation)> = names
            .iter()
            .map(|n| (n.as_str(), "base.py", Relation::Inherits))
            .collect();
        let g = graph(&paths, &edges);
        let context = vec!["base.py".to_string()];
        let none = |_: &str| None;
        let c = Contracts::new(&g, &context, &HashSet::new(), &none);
        let found = c.candidates(&HashMap::new());
        assert_eq!(found.len(), MAX_CANDIDATES);
        assert!(
            found.windows(2).all(|w| w[0] < w[1]),
            "by path when unscored"
        );
    }
}
