//! Learned change-set completion: which of Location's remaining candidates change
//! together with the context.
//!
//! Expansion (Eq. 7) follows relations and the history's completion
//! ([`super::changeset`]) adds strong partners, but most files a multi-file fix
//! misses are still among Location's best candidates, just below the anchors
//! (`benches/results/learned-ranking-2026-12-04.md`). What tells the second file of
//! a change from its neighbours is a mix of weak signals: its own Location
//! probability, how the history couples it to the context, whether it sits beside
//! the best file or shares its stem, how peaked the task's evidence is. This module
//! reads those signals for each remaining candidate ([`COMPLETION_FEATURES`]) and a
//! tree ensemble ([`crate::trees`], trained by `make train` on mined multi- and
//! single-file changes) gives the probability that the candidate is a file of the
//! change. Candidates from [`MIN_PROBABILITY`] join, at most [`MAX_ADDED`] per
//! task, so a single-file task whose evidence is peaked gains nothing.
//!
//! Two models are committed, each trained as it is used: one on work trees with
//! their history (`completion.json`), one on the same tasks without it
//! (`completion_plain.json`: a shallow clone, a tarball, a plain directory), whose
//! history features are all zero. A model trained with history adds files that are
//! seldom the fix's when the history is missing, so a history of fewer than
//! [`MIN_COMMITS`](super::changeset::MIN_COMMITS) commits takes the plain one.

use std::collections::{HashMap, HashSet};
use std::sync::OnceLock;

use super::changeset::{Coupling, couplings};
use crate::artifact::Role;
use crate::graph::{Relation, RelationFamily, RepoGraph};
use crate::hashing::{ContentSet, PathIndex};
use crate::locate::features::FeatureTable;
use crate::locate::{Location, Scorer};
use crate::resolve::{file_name, parent_dir};
use crate::source::History;
use crate::trees::Trees;

/// The committed model for work trees with history.
const BUILTIN: &str = include_str!("completion.json");
/// The committed model for repositories without history.
const BUILTIN_PLAIN: &str = include_str!("completion_plain.json");
/// The committed model for work trees with history, trained with an embedder present
/// (it reads `emb_best`, which the other two never saw).
const BUILTIN_SEMANTIC: &str = include_str!("completion_semantic.json");

/// Location's best candidates that are considered.
pub(super) const POOL: usize = 48;
/// Files the history ties to the anchors are considered from this partner strength
/// (or this share of all commits), wherever Location ranked them.
const MIN_HISTORY_TIE: f32 = 0.1;
/// At most this many candidates come from the history beyond Location's pool.
const MAX_HISTORY_CANDIDATES: usize = 24;
/// The graph neighbours of this many best context files are considered.
const NEIGHBOURED: usize = 3;
/// At most this many candidates come from those neighbours beyond Location's pool.
const MAX_NEIGHBOUR_CANDIDATES: usize = 24;
/// A candidate joins from this probability. The base rate is about 1% (a fix's
/// other files among some 40 candidates), so 0.05 is five times it. Chosen on the
/// training sets' grouped cross-validation and checked on the held-out sets
/// (`benches/results/completion-cv.md`): from 0.05 with at most 3 files, the mined
/// sample's set FRR rises by about 5 points for one point of micro precision.
pub(super) const MIN_PROBABILITY: f32 = 0.05;
/// At most this many candidates join one context.
pub(super) const MAX_ADDED: usize = 3;
/// Location candidates counted as strong from this probability.
const STRONG: f32 = 0.3;
/// The columns the rationale reads: `loc_prob`, `loc_rank` and `same_dir_top`.
const LOC_PROB: usize = 0;
const LOC_RANK: usize = 2;
const SAME_DIR_TOP: usize = 21;
/// Counts in the features stop here (a hub's hundred links say no more than ten).
const MAX_COUNT: f32 = 10.0;

/// The features of a remaining candidate, in the model's order.
pub const COMPLETION_FEATURES: [&str; COMPLETION_FEATURE_COUNT] = [
    // The candidate's Location evidence.
    "loc_prob",
    "loc_prob_ratio",
    "loc_rank",
    "loc_norm",
    // The task's: how peaked the evidence is.
    "top_prob",
    "second_prob",
    "strong_candidates",
    "context_size",
    "anchor_dirs",
    "query_terms",
    "uncovered_terms",
    // The task's words the candidate explains that the context does not.
    "new_terms",
    "new_term_share",
    "cued",
    // History (ancestors of HEAD).
    "partner",
    "with_top",
    "commit_share",
    "log_commits",
    "history_commits",
    // Code and structure.
    "links_to_context",
    "linked_to_top",
    "same_dir_top",
    "shared_dirs_top",
    "context_in_dir",
    "same_ext_top",
    "same_stem_context",
    "is_source",
    "is_docs",
    "is_build",
    "is_config",
    "log_size",
    "depth",
    // Evidence beyond the task's words: the candidate's best definition's match, a
    // past commit whose message matches the task changed it, the vocabulary bridge,
    // and an embedder's cosine of its best definition (0 without one).
    "def_best",
    "past_change",
    "bridge",
    "emb_best",
    // The static table's cosine of its best definition (issue 47; the default path).
    "tab_best",
    // What the past changes the static table finds close to the task lend it.
    "tab_past",
];

/// How many features a completion row has.
pub const COMPLETION_FEATURE_COUNT: usize = 38;

/// A candidate's row and what ties it to the context.
#[derive(Debug, Clone)]
pub(super) struct Candidate {
    /// Its path.
    pub path: String,
    /// Its features (see [`COMPLETION_FEATURES`]).
    pub row: Vec<f32>,
    /// The context file it is most tied to.
    pub from: String,
    /// The history's tie to the context, when it has one.
    pub coupling: Coupling,
    /// An explicit or implicit relation to a context file, when it has one: the
    /// file, the relation and whether the edge leaves the candidate.
    pub linked: Option<(String, Relation, bool)>,
}

/// What the completion reads.
pub(super) struct Inputs<'a> {
    /// The Location stage's result.
    pub location: &'a Location,
    /// The context so far, best first.
    pub context: &'a [String],
    /// The query's graph.
    pub graph: &'a RepoGraph,
    /// The history the graph was built with, if any.
    pub history: Option<&'a History>,
    /// Normalized Location scores.
    pub normalized: &'a HashMap<String, f32>,
    /// Role and size in bytes of a listed file (`None`: not in the repository).
    pub artifact: &'a dyn Fn(&str) -> Option<(Role, u64)>,
    /// Whether implicit relations count as links (not under the `no_implicit`
    /// ablation: the completion sees the relations the expansion follows).
    pub implicit: bool,
}

/// The committed model for a query, read once; `None` when it does not fit this
/// build. With history, a query whose Location read an embedder's evidence gets the
/// model trained with one (the others when it does not fit); without history, the
/// plain model.
pub(super) fn builtin(with_history: bool, semantic: bool) -> Option<&'static Trees> {
    static MODEL: OnceLock<Option<Trees>> = OnceLock::new();
    static PLAIN: OnceLock<Option<Trees>> = OnceLock::new();
    static SEMANTIC: OnceLock<Option<Trees>> = OnceLock::new();
    let read = |cell: &'static OnceLock<Option<Trees>>, text: &str| {
        cell.get_or_init(|| Trees::parse(text, &COMPLETION_FEATURES).ok())
            .as_ref()
    };
    match (with_history, semantic) {
        (false, _) => read(&PLAIN, BUILTIN_PLAIN),
        (true, true) => read(&SEMANTIC, BUILTIN_SEMANTIC).or_else(|| read(&MODEL, BUILTIN)),
        (true, false) => read(&MODEL, BUILTIN),
    }
}

/// The rows of Location's best remaining candidates (none when Location did not run
/// the learned scorer: the rows read its probabilities).
pub(super) fn candidates(inputs: &Inputs) -> Vec<Candidate> {
    let location = inputs.location;
    if location.scorer != Scorer::Learned || inputs.context.is_empty() {
        return Vec::new();
    }
    let mut context = Context::new(inputs);
    let pool = pool(inputs, &context.coupled);
    context.rank_of = ranks_of(location, pool.iter().map(String::as_str));
    pool.iter()
        .filter_map(|path| context.candidate(path))
        .collect()
}

/// The ranks of `paths` in Location's ranking (absent: not ranked), by one pass
/// over the ranking that looks each ranked path up among the few wanted: the
/// ranking holds every file, a million in a monorepo, to index in full.
fn ranks_of<'a, 'p>(location: &'a Location, paths: impl Iterator<Item = &'p str>) -> PathIndex<'a> {
    let wanted: ContentSet<&str> = paths.collect();
    (location.ranked.iter().enumerate())
        .filter(|(_, r)| wanted.contains(r.path.as_str()))
        .map(|(k, r)| (r.path.as_str(), k))
        .collect()
}

/// What every candidate's row reads of the task, the context and the history.
struct Context<'a> {
    inputs: &'a Inputs<'a>,
    /// Location's best probability, and its second best.
    top_prob: f32,
    second_prob: f32,
    /// How many files Location finds likely.
    strong: f32,
    /// The context's best file.
    top: &'a str,
    /// The anchors with their normalized Location scores.
    anchors: Vec<(String, f32)>,
    anchor_dirs: f32,
    /// Per file, its history coupling with the anchors.
    coupled: HashMap<&'a str, Coupling>,
    history_commits: f32,
    in_context: HashSet<&'a str>,
    per_dir: HashMap<&'a str, usize>,
    stems: HashSet<&'a str>,
    /// The task's terms the context matches.
    explained: HashSet<usize>,
    /// How many of the task's terms only other candidates match.
    uncovered: f32,
    cued: HashSet<&'a str>,
    /// The ranks of the pool's files in Location's ranking ([`ranks_of`]).
    rank_of: PathIndex<'a>,
}

impl<'a> Context<'a> {
    fn new(inputs: &'a Inputs<'a>) -> Self {
        let location = inputs.location;
        let ranked = ranks_of(location, location.probability.keys().map(String::as_str));
        // The ranked files' probabilities, best first: those the learned scorer gave
        // (every other file's is 0, which neither the two best nor the strong count
        // can tell from an absent one).
        let mut by_rank: Vec<f32> = (location.probability.iter())
            .filter(|(path, _)| ranked.contains_key(path.as_str()))
            .map(|(_, p)| *p)
            .collect();
        by_rank.sort_by(|a, b| b.total_cmp(a));
        let anchors: Vec<(String, f32)> = location
            .anchors
            .iter()
            .map(|a| {
                let w = inputs.normalized.get(&a.path).copied().unwrap_or(0.0);
                (a.path.clone(), w)
            })
            .collect();
        let coupled = inputs
            .history
            .map(|h| couplings(h, &anchors))
            .unwrap_or_default();
        let mut per_dir: HashMap<&str, usize> = HashMap::new();
        for path in inputs.context {
            *per_dir.entry(parent_dir(path)).or_default() += 1;
        }
        let explained: HashSet<usize> = inputs
            .context
            .iter()
            .filter_map(|p| location.matched.get(p))
            .flatten()
            .map(|(t, _)| *t)
            .collect();
        let uncovered = location
            .matched
            .values()
            .flatten()
            .map(|(t, _)| *t)
            .filter(|t| !explained.contains(t))
            .collect::<HashSet<_>>()
            .len() as f32;
        Context {
            inputs,
            top_prob: by_rank.first().copied().unwrap_or(0.0),
            second_prob: by_rank.get(1).copied().unwrap_or(0.0),
            strong: by_rank.iter().filter(|&&p| p >= STRONG).count() as f32,
            top: inputs.context[0].as_str(),
            anchor_dirs: location
                .anchors
                .iter()
                .map(|a| parent_dir(&a.path))
                .collect::<HashSet<_>>()
                .len() as f32,
            anchors,
            coupled,
            history_commits: inputs.history.map_or(0, |h| h.commits.len()) as f32,
            in_context: inputs.context.iter().map(String::as_str).collect(),
            per_dir,
            stems: inputs.context.iter().map(|p| stem(p)).collect(),
            explained,
            uncovered,
            cued: location
                .cues
                .iter()
                .flat_map(|c| c.files.iter().map(String::as_str))
                .collect(),
            // Set by `candidates` for its pool.
            rank_of: PathIndex::default(),
        }
    }

    /// The candidate `path` with its row, or `None` when it is not one (not listed,
    /// in the context already, or a test).
    fn candidate(&self, path: &str) -> Option<Candidate> {
        let (inputs, location, top) = (self.inputs, self.inputs.location, self.top);
        let (role, size) = (inputs.artifact)(path)?;
        if self.in_context.contains(path) || role == Role::Test {
            return None;
        }
        let rank = self
            .rank_of
            .get(path)
            .copied()
            .unwrap_or(location.ranked.len());
        let coupling = self.coupled.get(path).copied().unwrap_or_default();
        let (links, linked, to_top) =
            links_to(inputs.graph, path, &self.in_context, top, inputs.implicit);
        let p = probability(location, path);
        let (new_terms, new_share) = new_terms(location.matched.get(path), &self.explained);
        let beyond = location.beyond_words.get(path).copied().unwrap_or_default();
        let row = vec![
            p,
            p / self.top_prob.max(1e-6),
            rank as f32,
            inputs.normalized.get(path).copied().unwrap_or(0.0),
            self.top_prob,
            self.second_prob,
            self.strong.min(MAX_COUNT),
            inputs.context.len() as f32,
            self.anchor_dirs,
            location.query_terms as f32,
            self.uncovered,
            new_terms,
            new_share,
            flag(self.cued.contains(path)),
            coupling.partner,
            coupling.with_top,
            coupling.share,
            (coupling.commits as f32).ln_1p(),
            self.history_commits.ln_1p(),
            links.min(MAX_COUNT as usize) as f32,
            flag(to_top),
            flag(parent_dir(path) == parent_dir(top)),
            shared_dirs(path, top),
            (self.per_dir.get(parent_dir(path)).copied().unwrap_or(0) as f32).min(MAX_COUNT),
            flag(extension(path) == extension(top)),
            flag(self.stems.contains(stem(path))),
            flag(role == Role::Source),
            flag(role == Role::Docs),
            flag(role == Role::Build),
            flag(role == Role::Config),
            (size as f32).ln_1p(),
            path.matches('/').count() as f32,
            beyond.definition,
            beyond.past_change,
            beyond.bridge,
            beyond.semantic,
            beyond.table,
            beyond.table_past,
        ];
        debug_assert_eq!(row.len(), COMPLETION_FEATURE_COUNT);
        let from = match (&linked, self.anchors.get(coupling.anchor)) {
            (Some((file, _, _)), _) => file.clone(),
            (None, Some((anchor, _))) if coupling.partner > 0.0 => anchor.clone(),
            _ => top.to_string(),
        };
        Some(Candidate {
            path: path.to_string(),
            row,
            from,
            coupling,
            linked,
        })
    }
}

/// Location's probability that `path` is a file of the fix.
fn probability(location: &Location, path: &str) -> f32 {
    location.probability.get(path).copied().unwrap_or(0.0)
}

/// The paths considered, each once, in a fixed order: Location's best
/// [`POOL`], then the files the history ties to the anchors (strongest first), then
/// the graph neighbours of the best context files (by path).
fn pool(inputs: &Inputs, coupled: &HashMap<&str, Coupling>) -> Vec<String> {
    let mut seen: HashSet<String> = HashSet::new();
    let mut out: Vec<String> = Vec::new();
    let mut push = |path: &str, out: &mut Vec<String>| {
        if seen.insert(path.to_string()) {
            out.push(path.to_string());
        }
    };
    for r in inputs.location.ranked.iter().take(POOL) {
        push(&r.path, &mut out);
    }
    let mut tied: Vec<(&str, f32)> = coupled
        .iter()
        .map(|(&p, c)| (p, c.partner.max(c.share)))
        .filter(|(_, tie)| *tie >= MIN_HISTORY_TIE)
        .collect();
    tied.sort_by(|a, b| b.1.total_cmp(&a.1).then_with(|| a.0.cmp(b.0)));
    for (path, _) in tied.into_iter().take(MAX_HISTORY_CANDIDATES) {
        push(path, &mut out);
    }
    let mut near: Vec<&str> = Vec::new();
    for file in inputs.context.iter().take(NEIGHBOURED) {
        let from = inputs
            .graph
            .edges_from(file)
            .into_iter()
            .map(|e| (e.to, e.relation));
        let to = inputs
            .graph
            .edges_to(file)
            .into_iter()
            .map(|e| (e.from, e.relation));
        near.extend(from.chain(to).filter_map(|(p, relation)| {
            matches!(
                relation.family(),
                RelationFamily::Explicit | RelationFamily::Implicit
            )
            .then_some(p)
        }));
    }
    near.sort_unstable();
    near.dedup();
    for path in near.into_iter().take(MAX_NEIGHBOUR_CANDIDATES) {
        push(path, &mut out);
    }
    out
}

/// The candidates that join, with their probability: from [`MIN_PROBABILITY`], the
/// most probable first, at most [`MAX_ADDED`].
pub(super) fn select(model: &Trees, candidates: Vec<Candidate>) -> Vec<(Candidate, f32)> {
    let mut scored: Vec<(Candidate, f32)> = candidates
        .into_iter()
        .map(|c| {
            let p = model.score(&c.row).0;
            (c, p)
        })
        .filter(|(_, p)| *p >= MIN_PROBABILITY)
        .collect();
    scored.sort_by(|a, b| b.1.total_cmp(&a.1).then_with(|| a.0.path.cmp(&b.0.path)));
    scored.truncate(MAX_ADDED);
    scored
}

/// The candidates' rows as a table (the training data of `make train`).
pub(super) fn table(candidates: &[Candidate]) -> FeatureTable {
    FeatureTable {
        rows: candidates
            .iter()
            .map(|c| (c.path.clone(), c.row.clone()))
            .collect(),
    }
}

/// One line a person can read: why the candidate joined.
pub(super) fn rationale(candidate: &Candidate, probability: f32) -> String {
    let mut why = vec![format!(
        "Location probability {:.2}, rank {}",
        candidate.row[LOC_PROB],
        candidate.row[LOC_RANK] as usize + 1
    )];
    if candidate.coupling.partner > 0.0 {
        why.push(format!(
            "changed with the anchors ({:.2})",
            candidate.coupling.partner
        ));
    }
    if let Some((file, relation, _)) = &candidate.linked {
        why.push(format!("{} `{file}`", relation.name()));
    }
    if candidate.row[SAME_DIR_TOP] > 0.0 {
        why.push("beside the best file".into());
    }
    format!(
        "learned change-set completion: probability {probability:.2} that it changes with the context ({})",
        why.join("; ")
    )
}

/// Explicit and implicit relations between `path` and the context: with how many
/// context files, the first of them (by path) with its relation and direction, and
/// whether one is `top`.
type Links = (usize, Option<(String, Relation, bool)>, bool);

fn links_to(
    graph: &RepoGraph,
    path: &str,
    context: &HashSet<&str>,
    top: &str,
    implicit: bool,
) -> Links {
    let mut count = 0;
    let mut first: Option<(String, Relation, bool)> = None;
    let mut to_top = false;
    let out = graph
        .edges_from(path)
        .into_iter()
        .map(|e| (e.to, e.relation, true));
    let back = graph
        .edges_to(path)
        .into_iter()
        .map(|e| (e.from, e.relation, false));
    let mut seen: HashSet<&str> = HashSet::new();
    for (other, relation, leaves) in out.chain(back) {
        let family = relation.family();
        let followed = match family {
            RelationFamily::Explicit => true,
            RelationFamily::Implicit => implicit,
            _ => false,
        };
        if !followed || !context.contains(other) || !seen.insert(other) {
            continue;
        }
        count += 1;
        to_top |= other == top;
        if first.as_ref().is_none_or(|(f, _, _)| other < f.as_str()) {
            first = Some((other.to_string(), relation, leaves));
        }
    }
    (count, first, to_top)
}

/// How many of the task's terms a file matches that the context does not, and their
/// share of the file's lexical match.
fn new_terms(matched: Option<&Vec<(usize, f32)>>, explained: &HashSet<usize>) -> (f32, f32) {
    let Some(matched) = matched else {
        return (0.0, 0.0);
    };
    let total: f32 = matched.iter().map(|(_, w)| w).sum();
    let new: Vec<f32> = matched
        .iter()
        .filter(|(t, _)| !explained.contains(t))
        .map(|(_, w)| *w)
        .collect();
    let share = if total > 0.0 {
        new.iter().sum::<f32>() / total
    } else {
        0.0
    };
    (new.len() as f32, share)
}

fn flag(b: bool) -> f32 {
    if b { 1.0 } else { 0.0 }
}

/// The file name without folders and without every extension.
fn stem(path: &str) -> &str {
    let name = file_name(path);
    name.split('.').next().unwrap_or(name)
}

/// The last extension, lower-case comparisons aside ("" when none).
fn extension(path: &str) -> &str {
    let name = file_name(path);
    name.rsplit_once('.').map_or("", |(_, e)| e)
}

/// The share of `top`'s folders that `path` shares from the root, in [0, 1].
fn shared_dirs(path: &str, top: &str) -> f32 {
    let a: Vec<&str> = parent_dir(path)
        .split('/')
        .filter(|s| !s.is_empty())
        .collect();
    let b: Vec<&str> = parent_dir(top)
        .split('/')
        .filter(|s| !s.is_empty())
        .collect();
    if b.is_empty() {
        return flag(a.is_empty());
    }
    let shared = a.iter().zip(&b).take_while(|(x, y)| x == y).count();
    shared as f32 / b.len() as f32
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn path_helpers() {
        assert_eq!(parent_dir("a/b/c.py"), "a/b");
        assert_eq!(parent_dir("c.py"), "");
        assert_eq!(stem("a/b/index.d.ts"), "index");
        assert_eq!(extension("a/b/index.d.ts"), "ts");
        assert_eq!(extension("Makefile"), "");
        assert!((shared_dirs("a/b/x.py", "a/c/y.py") - 0.5).abs() < 1e-6);
        assert_eq!(shared_dirs("a/b/x.py", "a/b/y.py"), 1.0);
        assert_eq!(shared_dirs("x.py", "y.py"), 1.0);
        assert_eq!(shared_dirs("a/x.py", "y.py"), 0.0);
    }

    /// A model whose log-odds is `low` below `loc_prob` 0.5 and `high` from it.
    fn step_model(low: f64, high: f64) -> Trees {
        let names: Vec<String> = COMPLETION_FEATURES
            .iter()
            .map(|n| format!("{n:?}"))
            .collect();
        let tree = format!(
            r#"{{"feature":[0,-2,-2],"threshold":[0.5,-2,-2],"left":[1,-1,-1],"right":[2,-1,-1],"value":[0.0,{low},{high}]}}"#
        );
        let text = format!(
            r#"{{"kind":"trees","features":[{}],"init":0.0,"learning_rate":1.0,"trees":[{tree}]}}"#,
            names.join(",")
        );
        Trees::parse(&text, &COMPLETION_FEATURES).unwrap()
    }

    fn candidate(path: &str, loc_prob: f32) -> Candidate {
        let mut row = vec![0.0; COMPLETION_FEATURE_COUNT];
        row[LOC_PROB] = loc_prob;
        Candidate {
            path: path.into(),
            row,
            from: "a.py".into(),
            coupling: Coupling::default(),
            linked: None,
        }
    }

    #[test]
    fn selection_keeps_the_probable_the_most_probable_first_within_the_cap() {
        // σ(2) = 0.88 joins, σ(-5) = 0.007 does not.
        let model = step_model(-5.0, 2.0);
        let many: Vec<Candidate> = ["e.py", "d.py", "c.py", "b.py", "x.py"]
            .iter()
            .enumerate()
            .map(|(k, p)| candidate(p, if k < 4 { 0.9 } else { 0.1 }))
            .collect();
        let chosen = select(&model, many);
        let paths: Vec<&str> = chosen.iter().map(|(c, _)| c.path.as_str()).collect();
        // Equal probabilities: by path, and no more than the cap.
        assert_eq!(paths, ["b.py", "c.py", "d.py"]);
        assert!(chosen.iter().all(|(_, p)| (*p - 0.8808).abs() < 1e-3));
        // A model that finds nothing probable adds nothing.
        let none = select(&step_model(-6.0, -4.0), vec![candidate("a.py", 0.9)]);
        assert!(none.is_empty());
        let why = rationale(&candidate("b.py", 0.9), 0.88);
        assert!(
            why.contains("probability 0.88") && why.contains("rank 1"),
            "{why}"
        );
    }

    #[test]
    fn the_committed_models_fit_this_build() {
        let model = builtin(true, false).expect("completion.json must match COMPLETION_FEATURES");
        crate::trees::tests::assert_faithful(model);
        let plain =
            builtin(false, false).expect("completion_plain.json must match COMPLETION_FEATURES");
        crate::trees::tests::assert_faithful(plain);
        let semantic = Trees::parse(BUILTIN_SEMANTIC, &COMPLETION_FEATURES)
            .expect("completion_semantic.json must match COMPLETION_FEATURES");
        crate::trees::tests::assert_faithful(&semantic);
    }

    #[test]
    fn the_feature_names_are_the_rows_length() {
        assert_eq!(COMPLETION_FEATURES.len(), COMPLETION_FEATURE_COUNT);
        let unique: HashSet<&str> = COMPLETION_FEATURES.iter().copied().collect();
        assert_eq!(unique.len(), COMPLETION_FEATURE_COUNT);
        assert_eq!(COMPLETION_FEATURES[SAME_DIR_TOP], "same_dir_top");
        assert_eq!(COMPLETION_FEATURES[LOC_PROB], "loc_prob");
        assert_eq!(COMPLETION_FEATURES[LOC_RANK], "loc_rank");
    }
}
