//! Building the graph from artifacts, their facts and the resolver's index.

use std::collections::BTreeMap;
use std::sync::Arc;

use rayon::prelude::*;

use super::{EdgeData, Node, Relation, RepoGraph, explicit, organization};
use crate::artifact::{Language, Role};
use crate::facts::Facts;
use crate::resolve::RepoIndex;

/// One artifact as the graph builder sees it.
#[derive(Debug, Clone)]
pub struct InputArtifact {
    /// Repository-relative path.
    pub path: String,
    /// Detected language.
    pub language: Language,
    /// Artifact role.
    pub role: Role,
    /// Extracted facts.
    pub facts: Arc<Facts>,
}

/// Everything the graph is built from.
#[derive(Debug)]
pub struct GraphInput {
    /// Every artifact, sorted by path.
    pub artifacts: Vec<InputArtifact>,
    /// The resolver index over the same artifacts.
    pub index: RepoIndex,
    /// `(path, text)` of the CODEOWNERS file, if the repository has one.
    pub codeowners: Option<(String, String)>,
}

/// What a rule sees: the artifacts, their facts and the resolver index.
#[derive(Debug, Clone, Copy)]
pub struct RuleContext<'a> {
    /// Every artifact, sorted by path.
    pub artifacts: &'a [InputArtifact],
    /// The resolver index.
    pub index: &'a RepoIndex,
}

/// A source of edges beyond the explicit and organizational ones: the hook through
/// which the implicit-relation rule library (config bindings, registrations,
/// injection, events, tests, interface↔implementation) adds its links.
pub trait RelationRule: Send + Sync {
    /// A stable name, shown in rationales and errors.
    fn name(&self) -> &str;
    /// Appends `(from, to, edge)` triples. Paths must be artifacts of the context.
    fn apply(&self, context: &RuleContext<'_>, out: &mut Vec<(String, String, EdgeData)>);
}

/// Builds the graph: explicit relations, organizational relations, then every rule.
///
/// Deterministic: edges are merged per (from, to, relation) and inserted in sorted
/// order, whatever the thread count.
pub fn build_graph(input: &GraphInput, rules: &[&dyn RelationRule]) -> RepoGraph {
    let context = RuleContext {
        artifacts: &input.artifacts,
        index: &input.index,
    };
    let mut edges = explicit::edges(&context);
    let (organizational, modules) = organization::edges(&context, input.codeowners.as_ref());
    edges.extend(organizational);
    let from_rules: Vec<Vec<(String, String, EdgeData)>> = rules
        .par_iter()
        .map(|rule| {
            let mut out = Vec::new();
            rule.apply(&context, &mut out);
            out
        })
        .collect();
    for list in from_rules {
        edges.extend(list);
    }
    let nodes = input
        .artifacts
        .iter()
        .map(|a| Node {
            path: a.path.clone(),
            language: a.language,
            role: a.role,
        })
        .collect();
    RepoGraph::from_parts(nodes, merge(edges), modules)
}

/// Merges parallel edges of one relation: noisy-or of confidences, the rationale of
/// the strongest, and a count of the others.
pub(super) fn merge(edges: Vec<(String, String, EdgeData)>) -> Vec<(String, String, EdgeData)> {
    let mut merged: BTreeMap<(String, String, Relation), (EdgeData, usize)> = BTreeMap::new();
    for (from, to, data) in edges {
        if from == to {
            continue;
        }
        let key = (from, to, data.relation);
        match merged.get_mut(&key) {
            None => {
                merged.insert(key, (data, 0));
            }
            Some((current, extra)) => {
                let combined = 1.0 - (1.0 - current.confidence) * (1.0 - data.confidence);
                let better = (data.confidence, std::cmp::Reverse(&data.rationale))
                    > (current.confidence, std::cmp::Reverse(&current.rationale));
                if better {
                    current.rationale = data.rationale;
                }
                current.confidence = combined.clamp(0.0, 1.0);
                *extra += 1;
            }
        }
    }
    merged
        .into_iter()
        .map(|((from, to, _), (mut data, extra))| {
            if extra > 0 {
                data.rationale = format!("{} (+{extra} more)", data.rationale);
            }
            (from, to, data)
        })
        .collect()
}
