//! Budgeted implementation-path recovery (paper Eq. 7, Algorithm 1 lines 3–12).
//!
//! The context starts as the anchors Ĥ. Each candidate action follows one relation
//! edge (explicit, implicit or organizational, in either direction) or one local
//! lexical-search hit from a file in the context to a file outside it. Actions are
//! ranked by `Priority(d) = Gain(d) / Cost(d)`; the best is taken while budget
//! remains and its priority is at least τ, and expansion stops early after two
//! consecutive actions that add neither a new artifact role nor a bridge.

use std::collections::{BTreeMap, BTreeSet, HashMap};

use serde::Serialize;

use super::DiscoverAblation;
use crate::artifact::Role;
use crate::graph::{Relation, RelationFamily, RepoGraph};
use crate::resolve::parent_dir;

/// Links below this confidence are followed only when a semantic cue (the target
/// matches the task lexically) or an organizational one (same directory or build
/// module as the file it is reached from) supports them (paper §III.B).
pub const LOW_CONFIDENCE: f32 = 0.5;
/// Share of an edge's confidence (times the source's weight) that counts as
/// relevance of the file it reaches.
const STRUCTURAL_SHARE: f32 = 0.35;
/// Gain weights: relevance, bridge, new role (they sum to 1 so Gain is in [0, 1]).
const GAIN_RELEVANCE: f32 = 0.5;
const GAIN_BRIDGE: f32 = 0.25;
const GAIN_ROLE: f32 = 0.25;
/// Cost is clamped to this range (1 is an action of average size).
const COST_RANGE: (f32, f32) = (0.25, 4.0);
/// Links followed from one file per relation and direction at most (its best by
/// Location score).
const MAX_FAN_OUT: usize = 32;
/// Local search looks at this many of the best Location candidates per anchor.
const LOCAL_SEARCH_DEPTH: usize = 4;
/// A file used by more than this many others (explicit or implicit links) bridges
/// less in proportion.
const HUB_FAN_IN: f32 = 12.0;
/// A new aspect counts as coverage for the stopping rule when the task's role prior
/// gives it at least this (documentation is no new coverage for a bug fix).
const MIN_NEW_ROLE: f32 = 0.3;
/// A bridge counts for the stopping rule from this value (hubs bridge less).
const MIN_BRIDGE: f32 = 0.5;

/// What an action follows.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
#[non_exhaustive]
pub enum Via {
    /// A relation edge of the graph; `forward` when it leaves the context file.
    Edge {
        /// The relation kind.
        relation: Relation,
        /// True when the edge goes from the context file to the new one.
        forward: bool,
    },
    /// A local lexical search: a file near the context that matches the task.
    LocalSearch,
}

/// The aspects of an implementation path the expansion tries to cover (the paper's
/// "artifact roles such as configuration, registration, tests, or
/// interface-to-implementation links").
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
#[non_exhaustive]
pub enum Aspect {
    /// Implementation code.
    Source,
    /// Tests.
    Test,
    /// Configuration and what binds to it.
    Config,
    /// Registration sites and registries.
    Registration,
    /// Dependency-injection wiring.
    Injection,
    /// Event emitters and handlers.
    Event,
    /// Interfaces and their implementations.
    Interface,
    /// Build manifests.
    Build,
    /// Documentation.
    Docs,
    /// Schemas.
    Schema,
    /// Anything else.
    Other,
}

impl Aspect {
    /// The aspects an implementation path is made of (paper §III.D: configuration,
    /// registration, tests, interface-to-implementation links, and the code itself).
    pub fn is_path_aspect(self) -> bool {
        !matches!(
            self,
            Aspect::Build | Aspect::Docs | Aspect::Schema | Aspect::Other
        )
    }

    /// The aspect a file adds when reached through `via`.
    pub fn of(role: Role, via: Option<Via>) -> Aspect {
        if let Some(Via::Edge { relation, .. }) = via {
            match relation {
                Relation::ConfigBinding => return Aspect::Config,
                Relation::Registration => return Aspect::Registration,
                Relation::Injection => return Aspect::Injection,
                Relation::EventBinding => return Aspect::Event,
                Relation::TestOf => return Aspect::Test,
                Relation::InterfaceImpl | Relation::Implements => return Aspect::Interface,
                _ => {}
            }
        }
        match role {
            Role::Source | Role::Script => Aspect::Source,
            Role::Test => Aspect::Test,
            Role::Config => Aspect::Config,
            Role::Build => Aspect::Build,
            Role::Docs => Aspect::Docs,
            Role::Schema => Aspect::Schema,
            _ => Aspect::Other,
        }
    }
}

/// One link from a file in the context to a file outside it (or between two context
/// files, kept for bridges and support).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Link {
    /// The context file the link starts from.
    pub from: String,
    /// What it follows.
    pub via: Via,
    /// Confidence of the edge (or normalized lexical score for local search).
    pub confidence: f32,
    /// The edge's rationale.
    pub rationale: String,
}

/// The parts of one action's priority, for the rationale.
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize)]
pub struct Priority {
    /// Relevance of the reached file: noisy-or of its Location score and the
    /// structural evidence of its links.
    pub relevance: f32,
    /// 1 when the file connects separate clusters of the context, else 0.
    pub bridge: f32,
    /// The still-missing aspect the file adds, else 0: a path aspect (source,
    /// configuration, registration, injection, events, tests, interfaces) counts the
    /// confidence of the link that brings it; other roles their role prior.
    pub new_role: f32,
    /// Gain = 0.5·relevance + 0.25·bridge + 0.25·new_role.
    pub gain: f32,
    /// Normalized cost (1 = an action of average size).
    pub cost: f32,
    /// Gain / Cost.
    pub value: f32,
}

impl Priority {
    /// True when the action added coverage to the implementation path: a
    /// still-missing aspect or a bridge between separate parts of the context. Two
    /// consecutive actions without it stop the expansion (paper §III.D).
    pub fn adds_coverage(&self) -> bool {
        self.new_role >= MIN_NEW_ROLE || self.bridge >= MIN_BRIDGE
    }
}

/// One file of the recovered context.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Selected {
    /// Repository-relative path.
    pub path: String,
    /// Artifact role.
    pub role: Role,
    /// Normalized Location score (Score_loc / best Score_loc), 0 when unscored.
    pub location: f32,
    /// Weight in the context: the Location score for anchors, the relevance of the
    /// action that reached it otherwise.
    pub weight: f32,
    /// True for anchors.
    pub anchor: bool,
    /// The expansion step that added it (0 for anchors).
    pub step: usize,
    /// The link it was reached by (the best of them), none for anchors.
    pub reached: Option<Link>,
    /// Every link from other context files to it.
    pub support: Vec<Link>,
    /// The priority of the action that added it.
    pub priority: Option<Priority>,
    /// Cluster id: the anchor it grew from (clusters merge through bridges).
    pub cluster: usize,
}

/// Why expansion stopped.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
#[non_exhaustive]
pub enum StopReason {
    /// No candidate action was left.
    NoCandidates,
    /// The best action's priority was below τ.
    BelowThreshold,
    /// Two consecutive actions added neither a new role nor a bridge.
    NoNewCoverage,
    /// The step budget was spent.
    StepBudget,
    /// The token budget was spent.
    TokenBudget,
    /// Expansion was switched off (Location-only ablation).
    Disabled,
}

/// What expansion produced.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Expansion {
    /// The context: anchors first, then files in the order they were added.
    pub selected: Vec<Selected>,
    /// Actions taken.
    pub steps: usize,
    /// Estimated tokens of the selected files' cards.
    pub tokens: usize,
    /// Why it stopped.
    pub stop: StopReason,
    /// Priority of the best action not taken (when it stopped on the threshold).
    pub best_rejected: Option<f32>,
}

/// Inputs of the expansion.
pub struct ExpandInput<'a> {
    /// The repository graph.
    pub graph: &'a RepoGraph,
    /// Anchors (path, normalized Location score), best first.
    pub anchors: Vec<(String, f32)>,
    /// Normalized Location score of every scored file.
    pub location: &'a HashMap<String, f32>,
    /// Location's ranking (paths, best first), for local search.
    pub ranked: &'a [&'a str],
    /// Estimated tokens of a file's metadata card.
    pub card_tokens: &'a dyn Fn(&str) -> usize,
    /// The role prior π(role | q).
    pub prior: &'a dyn Fn(Role) -> f32,
    /// τ.
    pub tau: f32,
    /// Consecutive actions without a new role or bridge that stop the expansion.
    pub patience: usize,
    /// Step budget.
    pub max_steps: usize,
    /// Token budget of the Inference stage (Γ_max − Γ_loc).
    pub max_tokens: usize,
    /// The Table III variant: whether to expand at all (not for Location-only) and
    /// which relation families to follow (see [`DiscoverAblation::follows`]).
    pub ablation: DiscoverAblation,
}

/// Runs Algorithm 1, lines 3–12.
pub fn expand(input: &ExpandInput<'_>) -> Expansion {
    let mut state = State::from_anchors(input);
    if input.ablation.location_only {
        return state.finish(0, StopReason::Disabled, None);
    }
    // The frontier: every file linked from the context, with its links (ordered map
    // for deterministic ties).
    for file in &state.selected {
        add_links(input, file, &state.index, &mut state.frontier);
    }
    // Links among anchors are support too (bridges between anchors).
    link_context(
        input,
        &mut state.selected,
        &state.index,
        &mut state.clusters,
    );
    let mut steps = 0usize;
    let mut idle = 0usize;
    let (stop, best_rejected) = loop {
        if steps >= input.max_steps {
            break (StopReason::StepBudget, None);
        }
        if state.tokens >= input.max_tokens {
            break (StopReason::TokenBudget, None);
        }
        let Some((path, priority, best_link)) = state.best_action(input) else {
            break (StopReason::NoCandidates, None);
        };
        if priority.value < input.tau {
            break (StopReason::BelowThreshold, Some(priority.value));
        }
        steps += 1;
        state.select(input, path, priority, best_link, steps);
        if priority.adds_coverage() {
            idle = 0;
        } else {
            idle += 1;
            if idle >= input.patience {
                break (StopReason::NoNewCoverage, None);
            }
        }
    };
    state.finish(steps, stop, best_rejected)
}

/// The expansion as it goes: the context selected so far, its clusters, the aspects
/// it covers, its tokens, and the frontier of files linked from it.
struct State {
    selected: Vec<Selected>,
    index: HashMap<String, usize>,
    covered: BTreeSet<Aspect>,
    tokens: usize,
    clusters: UnionFind,
    frontier: BTreeMap<String, Vec<Link>>,
    /// Per frontier file, its structural fan-in (computed once).
    fan_in: HashMap<String, usize>,
}

impl State {
    /// The context of the anchors alone (each once, in their order).
    fn from_anchors(input: &ExpandInput<'_>) -> State {
        let graph = input.graph;
        let mut selected: Vec<Selected> = Vec::new();
        let mut index: HashMap<String, usize> = HashMap::new();
        let mut covered: BTreeSet<Aspect> = BTreeSet::new();
        let mut tokens = 0usize;
        for (path, score) in &input.anchors {
            if index.contains_key(path) {
                continue;
            }
            let role = graph.node(path).map_or(Role::Other, |n| n.role);
            covered.insert(Aspect::of(role, None));
            tokens += (input.card_tokens)(path);
            index.insert(path.clone(), selected.len());
            selected.push(Selected {
                path: path.clone(),
                role,
                location: *score,
                weight: *score,
                anchor: true,
                step: 0,
                reached: None,
                support: Vec::new(),
                priority: None,
                cluster: selected.len(),
            });
        }
        State {
            clusters: UnionFind::new(selected.len()),
            selected,
            index,
            covered,
            tokens,
            frontier: BTreeMap::new(),
            fan_in: HashMap::new(),
        }
    }

    /// Eq. 7 for every action; the best one (ties: by path), with the index of the
    /// link that reaches it best.
    fn best_action(&mut self, input: &ExpandInput<'_>) -> Option<(String, Priority, usize)> {
        let graph = input.graph;
        let average_tokens = (input.max_tokens / input.max_steps.max(1)).max(1) as f32;
        let mut best: Option<(&String, Priority, usize)> = None;
        for (path, links) in &self.frontier {
            let fan_in = *self
                .fan_in
                .entry(path.clone())
                .or_insert_with(|| structural_fan_in(graph, path));
            let role = graph.node(path).map_or(Role::Other, |n| n.role);
            let location = input.location.get(path).copied().unwrap_or(0.0);
            let (priority, best_link) = priority(
                input,
                &self.selected,
                &self.index,
                &mut self.clusters,
                &self.covered,
                role,
                location,
                links,
                fan_in,
                (input.card_tokens)(path) as f32 / average_tokens,
            );
            if best.as_ref().is_none_or(|b| priority.value > b.1.value) {
                best = Some((path, priority, best_link));
            }
        }
        best.map(|(path, priority, link)| (path.clone(), priority, link))
    }

    /// Adds the frontier file `path` to the context at `step`: its clusters join
    /// those of the context files it links (a bridge merges them), its aspect is
    /// covered, and its own links join the frontier.
    fn select(
        &mut self,
        input: &ExpandInput<'_>,
        path: String,
        priority: Priority,
        best_link: usize,
        step: usize,
    ) {
        let links = self.frontier.remove(&path).unwrap_or_default();
        let role = input.graph.node(&path).map_or(Role::Other, |n| n.role);
        let reached = links[best_link].clone();
        let parent_cluster = self
            .clusters
            .find(self.selected[self.index[&reached.from]].cluster);
        self.covered.insert(Aspect::of(role, Some(reached.via)));
        self.tokens += (input.card_tokens)(&path);
        let id = self.clusters.push();
        self.clusters.union(id, parent_cluster);
        for link in &links {
            let c = self.selected[self.index[&link.from]].cluster;
            if matches!(link.via, Via::Edge { relation, .. } if relation.family() != RelationFamily::Organizational)
            {
                self.clusters.union(id, c);
            }
        }
        let new = Selected {
            location: input.location.get(&path).copied().unwrap_or(0.0),
            weight: priority.relevance,
            role,
            anchor: false,
            step,
            reached: Some(reached),
            support: links,
            priority: Some(priority),
            cluster: id,
            path: path.clone(),
        };
        self.index.insert(path, self.selected.len());
        self.selected.push(new);
        let last = self.selected.len() - 1;
        add_links(input, &self.selected[last], &self.index, &mut self.frontier);
    }

    /// The expansion, each file in its final cluster.
    fn finish(self, steps: usize, stop: StopReason, best_rejected: Option<f32>) -> Expansion {
        let State {
            mut selected,
            mut clusters,
            tokens,
            ..
        } = self;
        for s in &mut selected {
            s.cluster = clusters.find(s.cluster);
        }
        Expansion {
            selected,
            steps,
            tokens,
            stop,
            best_rejected,
        }
    }
}

/// Eq. 7 for one frontier file: Gain from relevance, bridging and a new aspect,
/// divided by its normalized cost. Returns the priority and the index of the link
/// that reaches it best.
#[allow(clippy::too_many_arguments)]
fn priority(
    input: &ExpandInput<'_>,
    selected: &[Selected],
    index: &HashMap<String, usize>,
    clusters: &mut UnionFind,
    covered: &BTreeSet<Aspect>,
    role: Role,
    location: f32,
    links: &[Link],
    fan_in: usize,
    relative_cost: f32,
) -> (Priority, usize) {
    let mut best_link = 0;
    let mut best_strength = -1.0f32;
    let mut miss = 1.0 - location;
    // Organizational links say "nearby", however many there are: only the strongest
    // counts (a build manifest is in the same module as every anchor).
    let mut organizational = 0.0f32;
    let mut groups: BTreeSet<usize> = BTreeSet::new();
    let mut by_source: BTreeMap<&str, f32> = BTreeMap::new();
    // Being used by the context says less of a file the whole repository uses.
    let hub = (HUB_FAN_IN / fan_in.max(1) as f32).min(1.0);
    for (k, link) in links.iter().enumerate() {
        let source = &selected[index[&link.from]];
        let strength = link.confidence * source.weight;
        if strength > best_strength {
            best_strength = strength;
            best_link = k;
        }
        match link.via {
            Via::Edge { relation, .. } if relation.family() != RelationFamily::Organizational => {
                let best = by_source.entry(link.from.as_str()).or_insert(0.0);
                *best = best.max(strength);
                groups.insert(clusters.find(source.cluster));
            }
            _ => organizational = organizational.max(strength),
        }
    }
    // Each context file that links to it is one piece of evidence (however many
    // relations it has to it): noisy-or over distinct sources.
    for strength in by_source.values() {
        miss *= 1.0 - STRUCTURAL_SHARE * strength * hub.sqrt();
    }
    miss *= 1.0 - STRUCTURAL_SHARE * organizational;
    let relevance = 1.0 - miss;
    // A bridge joins parts of the context that are otherwise separate; two links
    // into one cluster are support (they raise relevance), not a bridge. A hub that
    // half the repository uses joins everything, so it bridges nothing in particular.
    let bridge = if groups.len() >= 2 { hub } else { 0.0 };
    // The still-missing aspect any link adds; that link is then the one that
    // reached the file (the path is told by the relation that completes it).
    let mut new_role = 0.0f32;
    for (k, link) in links.iter().enumerate() {
        let aspect = Aspect::of(role, Some(link.via));
        if covered.contains(&aspect) {
            continue;
        }
        let value = match link.via {
            // Proximity alone recovers no role: a file is near every file of its
            // module. It counts only as far as the task supports it lexically.
            Via::LocalSearch => location * (input.prior)(role),
            Via::Edge { relation, .. } if relation.family() == RelationFamily::Organizational => {
                location * (input.prior)(role)
            }
            _ if aspect.is_path_aspect() => link.confidence,
            _ => (input.prior)(role),
        };
        if value > new_role {
            new_role = value;
            best_link = k;
        }
    }
    // Eq. 7: Priority = Gain / Cost.
    let gain = GAIN_RELEVANCE * relevance + GAIN_BRIDGE * bridge + GAIN_ROLE * new_role;
    let cost = (0.5 + 0.5 * relative_cost).clamp(COST_RANGE.0, COST_RANGE.1);
    (
        Priority {
            relevance,
            bridge,
            new_role,
            gain,
            cost,
            value: gain / cost,
        },
        best_link,
    )
}

/// Adds the links of a newly selected file to the frontier: its graph edges in both
/// directions (implicit ones only when enabled, low-confidence ones only with a
/// supporting cue) and local-search hits near it.
fn add_links(
    input: &ExpandInput<'_>,
    file: &Selected,
    index: &HashMap<String, usize>,
    frontier: &mut BTreeMap<String, Vec<Link>>,
) {
    let graph = input.graph;
    let mut edges: Vec<_> = graph
        .edges_from(&file.path)
        .into_iter()
        .map(|e| (e, true))
        .chain(graph.edges_to(&file.path).into_iter().map(|e| (e, false)))
        .collect();
    // A hub (the manifest of a module of thousands of files, a base class everything
    // extends) offers its links by the best Location score first, MAX_FAN_OUT of them
    // per relation and direction: the rest say nothing of the task, and costing each
    // of them would read thousands of files.
    let score = |path: &str| input.location.get(path).copied().unwrap_or(0.0);
    edges.sort_by(|a, b| {
        (a.0.relation, a.1)
            .cmp(&(b.0.relation, b.1))
            .then_with(|| score(far_end(b)).total_cmp(&score(far_end(a))))
            .then_with(|| far_end(a).cmp(far_end(b)))
    });
    let mut taken: HashMap<(Relation, bool), usize> = HashMap::new();
    edges.retain(|(edge, forward)| {
        let n = taken.entry((edge.relation, *forward)).or_default();
        *n += 1;
        *n <= MAX_FAN_OUT
    });
    for (edge, forward) in edges {
        let other = if forward { edge.to } else { edge.from };
        if index.contains_key(other) || other == file.path {
            continue;
        }
        if !input.ablation.follows(edge.relation.family()) {
            continue;
        }
        if edge.confidence < LOW_CONFIDENCE && !supported(input, &file.path, other) {
            continue;
        }
        frontier.entry(other.to_string()).or_default().push(Link {
            from: file.path.clone(),
            via: Via::Edge {
                relation: edge.relation,
                forward,
            },
            confidence: edge.confidence,
            rationale: edge.rationale.to_string(),
        });
    }
    // Local search: the best Location candidates in the same directory.
    let dir = parent_dir(&file.path);
    for path in input
        .ranked
        .iter()
        .filter(|p| parent_dir(p) == dir && !index.contains_key(**p) && **p != file.path)
        .take(LOCAL_SEARCH_DEPTH)
    {
        let score = input.location.get(*path).copied().unwrap_or(0.0);
        if score <= 0.0 {
            continue;
        }
        frontier.entry(path.to_string()).or_default().push(Link {
            from: file.path.clone(),
            via: Via::LocalSearch,
            confidence: score,
            rationale: format!("matches the task and sits beside `{}`", file.path),
        });
    }
}

/// The file an edge leads to from the one whose links are listed.
fn far_end<'g>((edge, forward): &(crate::graph::Edge<'g>, bool)) -> &'g str {
    if *forward { edge.to } else { edge.from }
}

/// How many files link to `path` by explicit or implicit relations.
fn structural_fan_in(graph: &RepoGraph, path: &str) -> usize {
    graph
        .edges_to(path)
        .iter()
        .filter(|e| e.relation.family() != RelationFamily::Organizational)
        .map(|e| e.from)
        .collect::<BTreeSet<_>>()
        .len()
}

/// A semantic or organizational cue that supports following a low-confidence link.
fn supported(input: &ExpandInput<'_>, from: &str, to: &str) -> bool {
    input.location.get(to).is_some_and(|&s| s > 0.0)
        || parent_dir(from) == parent_dir(to)
        || matches!(
            (input.graph.module_of(from), input.graph.module_of(to)),
            (Some(a), Some(b)) if a == b
        )
}

/// Records links among the anchors as support and merges their clusters.
fn link_context(
    input: &ExpandInput<'_>,
    selected: &mut [Selected],
    index: &HashMap<String, usize>,
    clusters: &mut UnionFind,
) {
    for i in 0..selected.len() {
        for edge in input.graph.edges_from(&selected[i].path) {
            let Some(&j) = index.get(edge.to) else {
                continue;
            };
            if j == i
                || edge.relation.family() == RelationFamily::Organizational
                || !input.ablation.follows(edge.relation.family())
            {
                continue;
            }
            clusters.union(selected[i].cluster, selected[j].cluster);
            selected[j].support.push(Link {
                from: selected[i].path.clone(),
                via: Via::Edge {
                    relation: edge.relation,
                    forward: true,
                },
                confidence: edge.confidence,
                rationale: edge.rationale.to_string(),
            });
        }
    }
}

/// Clusters of the context, merged when a relation joins them.
struct UnionFind {
    parent: Vec<usize>,
}

impl UnionFind {
    fn new(n: usize) -> UnionFind {
        UnionFind {
            parent: (0..n).collect(),
        }
    }

    fn push(&mut self) -> usize {
        self.parent.push(self.parent.len());
        self.parent.len() - 1
    }

    fn find(&mut self, x: usize) -> usize {
        let mut root = x;
        while self.parent[root] != root {
            root = self.parent[root];
        }
        let mut x = x;
        while self.parent[x] != root {
            let next = self.parent[x];
            self.parent[x] = root;
            x = next;
        }
        root
    }

    /// Merges the sets of `a` and `b`; the smaller id becomes the root (determinism).
    fn union(&mut self, a: usize, b: usize) {
        let (a, b) = (self.find(a), self.find(b));
        if a != b {
            let (low, high) = if a < b { (a, b) } else { (b, a) };
            self.parent[high] = low;
        }
    }
}
