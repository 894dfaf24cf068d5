//! The multi-relational repository graph G = (V, A) of paper §III.B.
//!
//! Nodes are artifacts; edges are typed [`Relation`]s, each with a confidence in
//! [0, 1] and a one-line rationale a person can read. Explicit relations (imports,
//! calls and references, inheritance) come from facts and import resolution;
//! organizational ones from the file tree, build manifests and CODEOWNERS; implicit
//! ones from rules ([`RelationRule`]), added by the rule library; historical ones
//! (co-change) from the repository's own history, when the source has one.

mod build;
pub(crate) mod cochange;
mod explicit;
mod organization;

pub use build::{GraphInput, InputArtifact, RelationRule, RuleContext, build_graph};
pub use cochange::{
    CO_CHANGE_HALF_LIFE_COMMITS, FileHistory, MAX_CO_CHANGE_PARTNERS, MIN_CO_CHANGE_SUPPORT,
    RECENCY_HALF_LIFE_DAYS,
};
pub use organization::is_module_manifest;

use std::collections::{BTreeMap, HashMap};
use std::sync::Arc;

use petgraph::Direction;
use petgraph::graph::{DiGraph, NodeIndex};
use petgraph::visit::EdgeRef;
use serde::Serialize;

use crate::artifact::{Language, Role};
use crate::source::History;

/// The kind of a relation between two artifacts.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
#[non_exhaustive]
pub enum Relation {
    /// `from` imports, includes or requires `to`.
    Imports,
    /// `from` calls a function or method defined in `to`.
    Calls,
    /// `from` uses a type or name defined in `to`.
    References,
    /// A type in `from` extends a type in `to`.
    Inherits,
    /// A type in `from` implements an interface or trait of `to` (or a source file
    /// implements its header).
    Implements,
    /// A config key in one file is read by code in the other (implicit).
    ConfigBinding,
    /// A registration site registers or looks up what the other file defines (implicit).
    Registration,
    /// Dependency-injection wiring (implicit).
    Injection,
    /// An event emitted in one file is handled in the other (implicit).
    EventBinding,
    /// `from` tests `to` (implicit).
    TestOf,
    /// `from` implements the interface, ABC or header `to` (implicit).
    InterfaceImpl,
    /// Both files are in the same directory.
    SameDir,
    /// `from` belongs to the build module whose manifest is `to`.
    SameModule,
    /// `from` is owned through the CODEOWNERS file `to`.
    Owner,
    /// Files with the same name stem in sibling directories.
    Proximity,
    /// Both files changed together in commits that are ancestors of HEAD, often and
    /// recently enough to count (historical; see [`FileHistory`] for the per-file
    /// signals of the same history).
    CoChange,
}

impl Relation {
    /// Every relation kind, in declaration order.
    pub const ALL: [Relation; 16] = [
        Relation::Imports,
        Relation::Calls,
        Relation::References,
        Relation::Inherits,
        Relation::Implements,
        Relation::ConfigBinding,
        Relation::Registration,
        Relation::Injection,
        Relation::EventBinding,
        Relation::TestOf,
        Relation::InterfaceImpl,
        Relation::SameDir,
        Relation::SameModule,
        Relation::Owner,
        Relation::Proximity,
        Relation::CoChange,
    ];

    /// The snake_case name, the same as the serialized form (`config_binding`).
    pub fn name(self) -> &'static str {
        match self {
            Relation::Imports => "imports",
            Relation::Calls => "calls",
            Relation::References => "references",
            Relation::Inherits => "inherits",
            Relation::Implements => "implements",
            Relation::ConfigBinding => "config_binding",
            Relation::Registration => "registration",
            Relation::Injection => "injection",
            Relation::EventBinding => "event_binding",
            Relation::TestOf => "test_of",
            Relation::InterfaceImpl => "interface_impl",
            Relation::SameDir => "same_dir",
            Relation::SameModule => "same_module",
            Relation::Owner => "owner",
            Relation::Proximity => "proximity",
            Relation::CoChange => "co_change",
        }
    }

    /// The family of the relation: explicit, implicit, organizational or historical.
    pub fn family(self) -> RelationFamily {
        match self {
            Relation::Imports
            | Relation::Calls
            | Relation::References
            | Relation::Inherits
            | Relation::Implements => RelationFamily::Explicit,
            Relation::ConfigBinding
            | Relation::Registration
            | Relation::Injection
            | Relation::EventBinding
            | Relation::TestOf
            | Relation::InterfaceImpl => RelationFamily::Implicit,
            Relation::SameDir | Relation::SameModule | Relation::Owner | Relation::Proximity => {
                RelationFamily::Organizational
            }
            Relation::CoChange => RelationFamily::Historical,
        }
    }
}

/// The sources of structure: the three of paper §III.B, and the repository's
/// evolution (paper Figure 1, "Repo Evolution").
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
#[non_exhaustive]
pub enum RelationFamily {
    /// Imports, calls, references, inheritance.
    Explicit,
    /// Rule-derived task-relevant links.
    Implicit,
    /// Folder, module, ownership and proximity.
    Organizational,
    /// Co-change in the history of HEAD.
    Historical,
}

/// A node: one artifact.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Node {
    /// Repository-relative path.
    pub path: String,
    /// Detected language.
    pub language: Language,
    /// Artifact role.
    pub role: Role,
}

/// What an edge carries.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct EdgeData {
    /// The relation kind.
    pub relation: Relation,
    /// Confidence in [0, 1].
    pub confidence: f32,
    /// One line a person can read: `imports payments.gateway (line 3)`.
    pub rationale: String,
}

/// A view of one edge.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct Edge<'g> {
    /// Source artifact path.
    pub from: &'g str,
    /// Target artifact path.
    pub to: &'g str,
    /// The relation kind.
    pub relation: Relation,
    /// Confidence in [0, 1].
    pub confidence: f32,
    /// Why the edge exists.
    pub rationale: &'g str,
}

/// The repository graph. Immutable once built; cheap to share behind an `Arc`.
#[derive(Debug, Default)]
pub struct RepoGraph {
    graph: DiGraph<Node, EdgeData>,
    by_path: HashMap<String, NodeIndex>,
    modules: HashMap<String, String>,
    /// Per node (same index), its history signals, when the history touched it.
    history: Vec<Option<FileHistory>>,
    /// The history the graph was built with, when there was one.
    commits: Option<Arc<History>>,
}

impl RepoGraph {
    pub(crate) fn from_parts(
        nodes: Vec<Node>,
        edges: Vec<(u32, u32, EdgeData)>,
        modules: HashMap<String, String>,
    ) -> RepoGraph {
        let mut graph = DiGraph::with_capacity(nodes.len(), edges.len());
        let mut by_path = HashMap::with_capacity(nodes.len());
        for node in nodes {
            let path = node.path.clone();
            let index = graph.add_node(node);
            by_path.insert(path, index);
        }
        let count = graph.node_count();
        for (from, to, data) in edges {
            let (a, b) = (from as usize, to as usize);
            if a < count && b < count {
                graph.add_edge(NodeIndex::new(a), NodeIndex::new(b), data);
            }
        }
        RepoGraph {
            graph,
            by_path,
            modules,
            history: Vec::new(),
            commits: None,
        }
    }

    /// Attaches the history the graph was built with and its per-file signals
    /// (indexed like the nodes).
    pub(crate) fn with_history(
        mut self,
        history: Arc<History>,
        per_file: Vec<Option<FileHistory>>,
    ) -> RepoGraph {
        self.history = per_file;
        self.commits = Some(history);
        self
    }

    /// Number of artifacts.
    pub fn node_count(&self) -> usize {
        self.graph.node_count()
    }

    /// Number of edges.
    pub fn edge_count(&self) -> usize {
        self.graph.edge_count()
    }

    /// The node of `path`, if it is an artifact.
    pub fn node(&self, path: &str) -> Option<&Node> {
        self.by_path.get(path).map(|&i| &self.graph[i])
    }

    /// Every node, in path order.
    pub fn nodes(&self) -> impl Iterator<Item = &Node> {
        self.graph.node_weights()
    }

    /// Edges leaving `path`, in a deterministic order.
    pub fn edges_from(&self, path: &str) -> Vec<Edge<'_>> {
        self.edges_dir(path, Direction::Outgoing)
    }

    /// Edges arriving at `path`, in a deterministic order.
    pub fn edges_to(&self, path: &str) -> Vec<Edge<'_>> {
        self.edges_dir(path, Direction::Incoming)
    }

    /// Every edge, ordered by (from, to, relation).
    pub fn edges(&self) -> Vec<Edge<'_>> {
        let mut out: Vec<Edge<'_>> = self
            .graph
            .edge_references()
            .map(|e| self.view(e.source(), e.target(), e.weight()))
            .collect();
        sort_edges(&mut out);
        out
    }

    /// The edge of `relation` from `from` to `to`, if any.
    pub fn edge(&self, from: &str, to: &str, relation: Relation) -> Option<Edge<'_>> {
        let a = *self.by_path.get(from)?;
        let b = *self.by_path.get(to)?;
        self.graph
            .edges_connecting(a, b)
            .find(|e| e.weight().relation == relation)
            .map(|e| self.view(a, b, e.weight()))
    }

    /// Number of edges of each relation kind.
    pub fn relation_counts(&self) -> BTreeMap<Relation, usize> {
        let mut counts = BTreeMap::new();
        for edge in self.graph.edge_weights() {
            *counts.entry(edge.relation).or_default() += 1;
        }
        counts
    }

    /// The history signals of `path` (recency, churn), when the graph was built with a
    /// history that changed the file; `None` otherwise (no history, or a file no
    /// commit of the window touched).
    pub fn file_history(&self, path: &str) -> Option<FileHistory> {
        let index = self.by_path.get(path)?.index();
        self.history.get(index).copied().flatten()
    }

    /// The HEAD commit whose history the graph was built with, if any.
    pub fn history_head(&self) -> Option<&str> {
        self.commits.as_deref().map(|h| h.head.as_str())
    }

    /// The history (ancestors of HEAD) the graph was built with, if any: the same one
    /// [`crate::Session::history`] gives for that HEAD, without asking git again.
    pub fn history(&self) -> Option<&History> {
        self.commits.as_deref()
    }

    /// The manifest of the build module `path` belongs to (`pkg/go.mod`), if any.
    pub fn module_of(&self, path: &str) -> Option<&str> {
        self.modules.get(path).map(String::as_str)
    }

    fn edges_dir(&self, path: &str, direction: Direction) -> Vec<Edge<'_>> {
        let Some(&index) = self.by_path.get(path) else {
            return Vec::new();
        };
        let mut out: Vec<Edge<'_>> = self
            .graph
            .edges_directed(index, direction)
            .map(|e| self.view(e.source(), e.target(), e.weight()))
            .collect();
        sort_edges(&mut out);
        out
    }

    fn view<'g>(&'g self, a: NodeIndex, b: NodeIndex, data: &'g EdgeData) -> Edge<'g> {
        let (a, b) = (&self.graph[a], &self.graph[b]);
        Edge {
            from: &a.path,
            to: &b.path,
            relation: data.relation,
            confidence: data.confidence,
            rationale: &data.rationale,
        }
    }
}

fn sort_edges(edges: &mut [Edge<'_>]) {
    edges.sort_by(|x, y| (x.from, x.to, x.relation).cmp(&(y.from, y.to, y.relation)));
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn relation_names_are_the_serialized_forms() {
        for relation in Relation::ALL {
            assert_eq!(
                serde_json::to_value(relation).unwrap(),
                serde_json::Value::from(relation.name())
            );
        }
    }
}
