//! Building the graph from artifacts, their facts and the resolver's index.

use std::collections::HashMap;
use std::sync::Arc;

use rayon::prelude::*;

use super::{EdgeData, Node, RepoGraph, cochange, explicit, organization};
use crate::artifact::{Language, Role};
use crate::facts::Facts;
use crate::resolve::RepoIndex;
use crate::source::History;

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
    /// The history of HEAD, if the source has one: `CoChange` edges and the
    /// per-file signals of [`RepoGraph::file_history`] come from it.
    pub history: Option<Arc<History>>,
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

/// An edge between artifact indexes (positions in [`GraphInput::artifacts`]).
pub(super) type RawEdge = (u32, u32, EdgeData);

/// Path → artifact index.
pub(super) struct Positions<'a>(HashMap<&'a str, u32>);

impl<'a> Positions<'a> {
    fn new(artifacts: &'a [InputArtifact]) -> Self {
        Positions(
            artifacts
                .iter()
                .enumerate()
                .map(|(i, a)| (a.path.as_str(), i as u32))
                .collect(),
        )
    }

    /// The index of `path`, if it is an artifact.
    pub(super) fn get(&self, path: &str) -> Option<u32> {
        self.0.get(path).copied()
    }
}

/// Builds the graph: explicit relations, organizational relations, every rule, then
/// co-change relations when the input has a history.
///
/// Deterministic: edges are merged per (from, to, relation) in an order that does not
/// depend on how they were produced, whatever the thread count.
pub fn build_graph(input: &GraphInput, rules: &[&dyn RelationRule]) -> RepoGraph {
    let context = RuleContext {
        artifacts: &input.artifacts,
        index: &input.index,
    };
    let positions = Positions::new(&input.artifacts);
    let mut edges = explicit::edges(&context, &positions);
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
    for (from, to, data) in from_rules.into_iter().flatten() {
        if let (Some(a), Some(b)) = (positions.get(&from), positions.get(&to)) {
            edges.push((a, b, data));
        }
    }
    let history = input.history.as_ref().map(|history| {
        let (co_change, per_file) = cochange::edges(history, &input.artifacts, &positions);
        edges.extend(co_change);
        (Arc::clone(history), per_file)
    });
    let nodes = input
        .artifacts
        .iter()
        .map(|a| Node {
            path: a.path.clone(),
            language: a.language,
            role: a.role,
        })
        .collect();
    let graph = RepoGraph::from_parts(nodes, merge(edges), modules);
    match history {
        Some((history, per_file)) => graph.with_history(history, per_file),
        None => graph,
    }
}

/// Merges parallel edges of one relation: noisy-or of confidences, the rationale of
/// the strongest, and a count of the others. Sorting first on the whole edge makes
/// the result independent of the input order.
pub(super) fn merge(mut edges: Vec<RawEdge>) -> Vec<RawEdge> {
    edges.retain(|e| e.0 != e.1);
    edges.par_sort_unstable_by(|x, y| {
        (x.0, x.1, x.2.relation)
            .cmp(&(y.0, y.1, y.2.relation))
            .then(y.2.confidence.total_cmp(&x.2.confidence))
            .then_with(|| x.2.rationale.cmp(&y.2.rationale))
    });
    let mut out: Vec<RawEdge> = Vec::with_capacity(edges.len());
    let mut extra = 0usize;
    for edge in edges {
        match out.last_mut() {
            Some(last)
                if (last.0, last.1, last.2.relation) == (edge.0, edge.1, edge.2.relation) =>
            {
                // The first of a run is the strongest: it keeps its rationale.
                last.2.confidence =
                    (1.0 - (1.0 - last.2.confidence) * (1.0 - edge.2.confidence)).clamp(0.0, 1.0);
                extra += 1;
            }
            _ => {
                annotate(out.last_mut(), extra);
                extra = 0;
                out.push(edge);
            }
        }
    }
    annotate(out.last_mut(), extra);
    out
}

fn annotate(edge: Option<&mut RawEdge>, extra: usize) {
    if let Some(edge) = edge
        && extra > 0
    {
        edge.2.rationale = format!("{} (+{extra} more)", edge.2.rationale);
    }
}
