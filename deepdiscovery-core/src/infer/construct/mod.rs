//! Algorithm 1 end to end: Location, path recovery, clustering and re-ranking, then
//! metadata-first construction of the package within Γ_max (lines 13–17).

use std::cell::RefCell;
use std::collections::{BTreeSet, HashMap, HashSet};
use std::sync::Arc;
use std::time::Instant;

use super::card::{MetadataCard, promoted_spans};
use super::completion;
use super::expand::{self, ExpandInput, Expansion, Link, Selected, Via};
use super::package::{
    AnchorEntry, BudgetReport, ContextPackage, FileView, HistoryEntry, Hop, PackageFile,
    PackageRelation, RankedFile, SCHEMA_VERSION, Skipped, StageCost, file_tokens,
};
use super::promote::PromotionFeatures;
use super::scope;
use super::{DiscoverAblation, DiscoverConfig};
use crate::Result;
use crate::artifact::{Language, Role};
use crate::facts::Facts;
use crate::graph::{Relation, RelationFamily, RepoGraph};
use crate::locate::features::FeatureTable;
use crate::locate::{CueKind, Location, cue_symbol, task_type, view};
use crate::plugins::LlmCaller;
use crate::session::{ArtifactInfo, Session};
use crate::source::History;
use crate::source::SkipStats;
use crate::task::{Budget, Task, estimate_tokens};

mod budget;
mod completing;
mod files;
mod ranking;

use budget::*;
use completing::*;
use files::*;
use ranking::*;

/// The candidate pool whose last score is the floor of the normalized Location score.
const POOL: usize = 64;
/// Best Location candidates the query's graph grows from (besides the anchors).
const SEEDS: usize = 32;
/// Anchors ranked beyond this many may be filtered out when weak and unconnected.
const FILTER_KEEP: usize = 3;
/// An unconnected anchor below this normalized Location score is filtered out.
const FILTER_MIN_LOCATION: f32 = 0.3;
/// Each supporting link raises a file's final score by this share of its strength.
const SUPPORT_SHARE: f32 = 0.1;
/// A promoted file gets its full text only when it takes at most this share of the
/// tokens still free.
const FULL_TEXT_SHARE: f32 = 0.5;
/// An expanded file that added no coverage stays when its own relevance is at least
/// this (Location ranked it just below the anchors and an anchor uses it).
const IDLE_MIN_RELEVANCE: f32 = 0.85;
/// Relations listed in the package at most.
const MAX_RELATIONS: usize = 200;
/// Commits in the package's historical description at most.
const MAX_HISTORY_ENTRIES: usize = 8;

/// Runs Algorithm 1 for one task: Location, the graph of the task's neighbourhood,
/// the expansion from the anchors, and the construction of the package; with the
/// milliseconds of each stage, and the completion's feature rows.
pub(super) fn run(
    session: &Session,
    task: &Task,
    config: &DiscoverConfig,
) -> Result<(ContextPackage, FeatureTable)> {
    let started = Instant::now();
    // One language-model caller for the query: its cap counts both stages' calls.
    let llm = session
        .language_model()
        .map(|model| LlmCaller::new(model, config.llm));
    let mut location = crate::locate::locate_with(session, task, &config.locate(), llm.as_ref())?;
    let location_ms = ms(started);
    let (neighbourhood, scope_ms, graph_ms) = graph_of_task(session, config, &location)?;
    if config.ablation.no_compression {
        // A flat, non-adaptive path list in place of the adaptive view.
        let listed: Vec<ArtifactInfo> = location
            .ranked
            .iter()
            .filter_map(|r| neighbourhood.artifacts.get(&r.path).cloned())
            .collect();
        let scores: Vec<f32> = location.ranked.iter().map(|r| r.score).collect();
        location.view = view::path_list(&listed, &scores, config.budget.location_tokens());
    }
    let scores = LocationScores::new(&location);

    let t = Instant::now();
    let relevant = TaskWords::new(task, &location);
    let cards = CardCache::new(
        session,
        &neighbourhood.artifacts,
        &relevant,
        &location.described,
    );
    let expansion = expand_anchors(config, &location, &neighbourhood.graph, &scores, &cards);
    let expansion_ms = ms(t);

    let t = Instant::now();
    let stage = Construction {
        session,
        task,
        config,
        llm: llm.as_ref(),
        location: &location,
        neighbourhood: &neighbourhood,
        scores: &scores,
        cards: &cards,
        expansion: &expansion,
    };
    let (mut package, rows) = stage.construct();
    package.budget.llm = llm.map(|c| c.usage());
    package.budget.stages = [
        ("location", location_ms),
        ("scope", scope_ms),
        ("graph", graph_ms),
        ("expansion", expansion_ms),
        ("construction", ms(t)),
    ]
    .into_iter()
    .map(|(stage, millis)| StageCost {
        stage: stage.into(),
        millis,
    })
    .collect();
    Ok((package, rows))
}

/// The graph a query expands in, and the listing it was built from.
struct Neighbourhood {
    graph: Arc<RepoGraph>,
    /// Every artifact, by path (with the facts parsed so far).
    artifacts: Listed,
    /// Files parsed for the query: the graph's scope and Location's candidates.
    files_parsed: usize,
}

/// The graph's scope (the whole repository, or the query's neighbourhood grown from
/// Location's seeds) and its graph; with the milliseconds of each.
fn graph_of_task(
    session: &Session,
    config: &DiscoverConfig,
    location: &Location,
) -> Result<(Neighbourhood, f64, f64)> {
    let t = Instant::now();
    let (listed, _) = session.listing_as_read();
    let scope = if config.full_graph {
        listed.iter().map(|a| a.path.clone()).collect()
    } else {
        scope::neighbourhood(
            session,
            &listed,
            &location.words,
            &seeds(location, &config.scope.large_files(&listed)),
            config.scope,
        )
    };
    let scope_ms = ms(t);
    let t = Instant::now();
    let graph = if config.full_graph {
        session.graph()?
    } else {
        session.graph_of_listed(&scope)
    };
    // Listed again: parsing the scope may have changed a language or role.
    let artifacts = Listed::new(session.listing_as_read().0);
    let graph_ms = ms(t);
    let files_parsed = scope
        .iter()
        .filter(|p| session.parsed_facts(p).is_some())
        .chain(&location.parsed)
        .collect::<BTreeSet<_>>()
        .len();
    let neighbourhood = Neighbourhood {
        graph,
        artifacts,
        files_parsed,
    };
    Ok((neighbourhood, scope_ms, graph_ms))
}

/// Every artifact of the listing (without facts), sorted by path, found by path (a
/// binary search: no second copy of a million paths to hash).
pub(super) struct Listed(Arc<[ArtifactInfo]>);

impl Listed {
    /// The listing of `artifacts` (the session lists them in path order; sorted here
    /// when not).
    fn new(artifacts: Arc<[ArtifactInfo]>) -> Listed {
        if artifacts.is_sorted_by(|a, b| a.path <= b.path) {
            return Listed(artifacts);
        }
        let mut sorted = artifacts.to_vec();
        sorted.sort_by(|a, b| a.path.cmp(&b.path));
        Listed(sorted.into())
    }

    /// The artifact at `path`.
    pub(super) fn get(&self, path: &str) -> Option<&ArtifactInfo> {
        let i = (self.0)
            .binary_search_by(|a| a.path.as_str().cmp(path))
            .ok()?;
        self.0.get(i)
    }
}

/// Location's scores as the later steps read them.
struct LocationScores<'a> {
    /// Normalized, min-max over the candidate pool: 1 for the best file, 0 from the
    /// pool's last candidate down (the role prior alone gives every source file a
    /// floor that says nothing about the task). Only the files above 0 are kept:
    /// every reader takes an absent file for 0, and a large repository's ranking
    /// holds every file.
    normalized: HashMap<String, f32>,
    /// Every path, as Location ranked them.
    ranked: Vec<&'a str>,
    /// The anchors with their normalized scores.
    anchors: Vec<(String, f32)>,
}

impl<'a> LocationScores<'a> {
    fn new(location: &'a Location) -> Self {
        let top = location.ranked.first().map_or(1.0, |r| r.score);
        let floor = location
            .ranked
            .get(POOL.min(location.ranked.len()).saturating_sub(1))
            .filter(|_| location.ranked.len() > 1)
            .map_or(0.0, |r| r.score);
        let spread = (top - floor).max(1e-6);
        let normalized: HashMap<String, f32> = location
            .ranked
            .iter()
            .map(|r| (r, ((r.score - floor) / spread).clamp(0.0, 1.0)))
            .filter(|(_, score)| *score > 0.0)
            .map(|(r, score)| (r.path.clone(), score))
            .collect();
        let anchors = location
            .anchors
            .iter()
            .map(|a| {
                let score = normalized.get(&a.path).copied().unwrap_or(0.0);
                (a.path.clone(), score)
            })
            .collect();
        LocationScores {
            normalized,
            ranked: location.ranked.iter().map(|r| r.path.as_str()).collect(),
            anchors,
        }
    }
}

/// Algorithm 1, lines 3–12: the expansion from the anchors over the graph, within
/// the tokens Location's view leaves.
fn expand_anchors(
    config: &DiscoverConfig,
    location: &Location,
    graph: &RepoGraph,
    scores: &LocationScores<'_>,
    cards: &CardCache<'_>,
) -> Expansion {
    let card_tokens = |path: &str| cards.tokens(path);
    let prior = |role: Role| task_type::blended_prior(location.task_type, role);
    let budget = config.budget;
    let input = ExpandInput {
        graph,
        anchors: scores.anchors.clone(),
        location: &scores.normalized,
        ranked: &scores.ranked,
        card_tokens: &card_tokens,
        prior: &prior,
        tau: config.tau,
        patience: config.patience,
        max_steps: budget.max_steps,
        max_tokens: budget.max_tokens - budget.location_tokens(),
        ablation: config.ablation,
    };
    expand::expand(&input)
}

/// What the construction of the package reads.
struct Construction<'a> {
    session: &'a Session,
    task: &'a Task,
    config: &'a DiscoverConfig,
    llm: Option<&'a LlmCaller<'a>>,
    location: &'a Location,
    neighbourhood: &'a Neighbourhood,
    scores: &'a LocationScores<'a>,
    cards: &'a CardCache<'a>,
    expansion: &'a Expansion,
}

impl Construction<'_> {
    /// Algorithm 1, lines 13–17: the expanded context ordered (clustered, filtered,
    /// re-ranked and completed; Location-only keeps the anchors as Location ranked
    /// them), each file's view chosen metadata first (Eq. 8, with a model's judgment
    /// of the borderline files), fitted to Γ_max. With the completion's feature rows.
    fn construct(&self) -> (ContextPackage, FeatureTable) {
        let (config, location, expansion) = (self.config, self.location, self.expansion);
        let (graph, artifacts) = (&self.neighbourhood.graph, &self.neighbourhood.artifacts);
        let (ordered, weak, filtered, rows) = if config.ablation.location_only {
            let anchors = expansion
                .selected
                .iter()
                .map(|s| (s.clone(), s.location))
                .collect();
            (anchors, Vec::new(), Vec::new(), FeatureTable::default())
        } else {
            order_context(&Ordering {
                expansion,
                cards: self.cards,
                location,
                config,
                graph,
                anchors: &self.scores.anchors,
                ranked: &self.scores.ranked,
                normalized: &self.scores.normalized,
                artifacts,
            })
        };
        let mut package = new_package(
            self.task,
            location,
            expansion,
            config.budget,
            self.session.stats().skipped,
            filtered,
            self.neighbourhood.files_parsed,
        );
        let by_path: HashMap<&str, &Selected> = expansion
            .selected
            .iter()
            .map(|s| (s.path.as_str(), s))
            .collect();
        let prior = |role: Role| task_type::blended_prior(location.task_type, role);
        let mut candidates: Vec<PackageFile> = ordered
            .iter()
            .map(|(s, score)| {
                build_file(
                    self.session,
                    self.cards,
                    artifacts,
                    &by_path,
                    s,
                    *score,
                    prior(s.role),
                )
            })
            .collect();
        // Eq. 8 with a model: its judgment of the borderline entities.
        if let Some(llm) = self.llm
            && !config.ablation.no_metadata_first
        {
            super::judge::promotion(llm, &self.task.text, config.kappa, &mut candidates);
        }
        // The history the graph was built with: no second trip to git.
        let past = if config.ablation.no_history {
            None
        } else {
            graph.history()
        };
        fit_to_budget(
            &mut package,
            candidates,
            graph,
            config,
            self.cards,
            self.session,
            past,
        );
        package.ranked_files =
            ranked_files(&ordered, &weak, &package, location, &self.scores.normalized);
        (package, rows)
    }
}

/// What ordering the context reads (see [`order_context`]).
struct Ordering<'a> {
    expansion: &'a Expansion,
    cards: &'a CardCache<'a>,
    location: &'a Location,
    config: &'a DiscoverConfig,
    graph: &'a RepoGraph,
    anchors: &'a [(String, f32)],
    ranked: &'a [&'a str],
    normalized: &'a HashMap<String, f32>,
    artifacts: &'a Listed,
}

/// Cluster, filter and re-rank the expanded context (§III.D), then complete it from
/// the history and the learned completion: the context best first, the weak files
/// cut, the paths filtered out, and the completion's feature rows.
fn order_context(o: &Ordering) -> (Vec<Scored>, Vec<Scored>, Vec<String>, FeatureTable) {
    let symbols = task_symbols(o.location);
    // `user` refers to a symbol of the task that `used` defines.
    let uses_task_symbol = |user: &str, used: &str| {
        let (Some(user), Some(used)) = (o.cards.facts(user), o.cards.facts(used)) else {
            return false;
        };
        user.references.iter().any(|r| {
            symbols.contains(r.name.as_str()) && used.definitions.iter().any(|d| d.name == r.name)
        })
    };
    let (ordered, mut filtered) = rerank(o.expansion, &uses_task_symbol);
    let (mut ordered, weak) = cut_weak(ordered, o.config.min_score_ratio, &named_files(o.location));
    filtered.extend(weak.iter().map(|(s, _)| s.path.clone()));
    let history = if o.config.ablation.no_history {
        None
    } else {
        o.graph.history()
    };
    // A shallow clone's few commits say nothing of what changes together: the
    // completion reads such a history as none, as its plain model was trained.
    let deep_history = history.filter(|h| h.commits.len() >= super::changeset::MIN_COMMITS);
    if let Some(history) = history {
        complete_change_set(
            &mut ordered,
            history,
            o.anchors,
            o.ranked,
            o.graph,
            o.normalized,
        );
    }
    let context: Vec<String> = ordered.iter().map(|(s, _)| s.path.clone()).collect();
    let artifact = |p: &str| o.artifacts.get(p).map(|a| (a.role, a.size));
    let inputs = completion::Inputs {
        location: o.location,
        context: &context,
        graph: o.graph,
        history: deep_history,
        normalized: o.normalized,
        artifact: &artifact,
        implicit: o.config.ablation.follows(RelationFamily::Implicit),
    };
    let candidates = completion::candidates(&inputs);
    let rows = completion::table(&candidates);
    // Each model as it was trained: with the history, or without one.
    if let Some(model) = completion::builtin(deep_history.is_some(), o.location.semantic) {
        let chosen = completion::select(model, candidates);
        complete_learned(&mut ordered, chosen, o.graph, o.normalized);
    }
    (ordered, weak, filtered, rows)
}

/// The package before its files: the task, the Location stage's findings and the
/// budget's frame.
fn new_package(
    task: &Task,
    location: &Location,
    expansion: &Expansion,
    budget: Budget,
    unreadable: SkipStats,
    filtered: Vec<String>,
    files_parsed: usize,
) -> ContextPackage {
    ContextPackage {
        schema_version: SCHEMA_VERSION,
        library_version: crate::VERSION.to_string(),
        task: task.text.clone(),
        task_type: location.task_type.0,
        task_type_confidence: location.task_type.1,
        environment: location.environment.clone(),
        constraints: location.constraints.clone(),
        definitions: location.definitions.clone(),
        files: Vec::new(),
        anchors: location
            .anchors
            .iter()
            .map(|a| AnchorEntry {
                path: a.path.clone(),
                score: a.score,
                signals: a.signals.clone(),
            })
            .collect(),
        relations: Vec::new(),
        repository_view: location.view.clone(),
        ranked_files: Vec::new(),
        skipped: Skipped {
            unreadable,
            over_budget: Vec::new(),
            filtered,
        },
        budget: BudgetReport {
            max_tokens: budget.max_tokens,
            used_tokens: 0,
            location_tokens: budget.location_tokens(),
            max_steps: budget.max_steps,
            steps: expansion.steps,
            stop: expansion.stop,
            files_read: location.cost.files_read,
            files_parsed,
            stages: Vec::new(),
            llm: None,
        },
        recent_history: Vec::new(),
        notes: location.notes.clone(),
    }
}

/// The files the query's graph grows from: the anchors, then the best Location
/// candidates, weighted by their normalized Location score. A `large` candidate
/// ([`crate::infer::ScopeLimits::large_files`]) is no seed unless it is an anchor.
fn seeds(location: &Location, large: &HashSet<&str>) -> Vec<(String, f32)> {
    let top = location.ranked.first().map_or(1.0, |r| r.score).max(1e-6);
    let mut out: Vec<(String, f32)> = location
        .anchors
        .iter()
        .map(|a| (a.path.clone(), 1.0))
        .collect();
    for r in location.ranked.iter().take(SEEDS) {
        if !out.iter().any(|(p, _)| *p == r.path) && !large.contains(r.path.as_str()) {
            out.push((r.path.clone(), (r.score / top).clamp(0.0, 1.0)));
        }
    }
    out
}

fn ms(since: Instant) -> f64 {
    since.elapsed().as_secs_f64() * 1e3
}

/// Which definition names the task points at: its symbols and words, lower-cased.
struct TaskWords {
    words: HashSet<String>,
}

impl TaskWords {
    fn new(task: &Task, location: &Location) -> TaskWords {
        let mut words: HashSet<String> = task
            .text
            .split(|c: char| !(c.is_alphanumeric() || c == '_'))
            .filter(|w| w.len() >= 3)
            .map(str::to_lowercase)
            .collect();
        for r in &location.cues {
            let last = r
                .cue
                .text
                .rsplit(['.', ':', '/', '#'])
                .next()
                .unwrap_or(&r.cue.text);
            words.insert(last.to_lowercase());
            if let Some(f) = &r.cue.function {
                words.insert(f.rsplit(['.', ':']).next().unwrap_or(f).to_lowercase());
            }
        }
        for s in &task.hints.symbols {
            words.insert(s.to_lowercase());
        }
        TaskWords { words }
    }

    fn contains(&self, name: &str) -> bool {
        self.words.contains(&name.to_lowercase())
    }
}

/// Metadata cards computed once per file per query.
struct CardCache<'a> {
    session: &'a Session,
    artifacts: &'a Listed,
    words: &'a TaskWords,
    /// Per file, the definition the task describes ([`Location`]'s `described`).
    described: &'a HashMap<String, String>,
    cards: RefCell<HashMap<String, MetadataCard>>,
    tokens: RefCell<HashMap<String, usize>>,
}

impl<'a> CardCache<'a> {
    fn new(
        session: &'a Session,
        artifacts: &'a Listed,
        words: &'a TaskWords,
        described: &'a HashMap<String, String>,
    ) -> CardCache<'a> {
        CardCache {
            session,
            artifacts,
            words,
            described,
            cards: RefCell::new(HashMap::new()),
            tokens: RefCell::new(HashMap::new()),
        }
    }

    /// Whether a definition of the file at `path` is worth listing first: the task
    /// names it, or it is the one the task describes.
    fn relevant(&self, path: &str, name: &str) -> bool {
        self.words.contains(name) || self.described(path) == Some(name)
    }

    /// The definition of the file at `path` that the task describes (the Location
    /// stage's best-matching one), if any.
    fn described(&self, path: &str) -> Option<&str> {
        self.described.get(path).map(String::as_str)
    }

    /// The facts of a file: those the session holds already (every file once the
    /// graph is built), else parsed now.
    fn facts(&self, path: &str) -> Option<Arc<Facts>> {
        match self.session.parsed_facts(path) {
            Some(facts) => Some(facts),
            None => self.session.facts_listed(&[path]).pop().map(|(_, f)| f),
        }
    }

    fn card(&self, path: &str) -> MetadataCard {
        if let Some(card) = self.cards.borrow().get(path) {
            return card.clone();
        }
        let (role, language, size) = self
            .artifacts
            .get(path)
            .map_or((Role::Other, Language::Unknown, 0), |a| {
                (a.role, a.language, a.size)
            });
        let facts = self.facts(path);
        // Lines are estimated from the size until the text is read (promotion).
        let lines = (size as usize).div_ceil(40);
        let card = MetadataCard::new(path, role, language, lines, facts.as_deref(), &|n| {
            self.relevant(path, n)
        });
        self.cards
            .borrow_mut()
            .insert(path.to_string(), card.clone());
        card
    }

    /// Estimated tokens of a file's card: Eq. 7's cost, asked for every frontier
    /// file at every step, so rendered once per file.
    fn tokens(&self, path: &str) -> usize {
        if let Some(&tokens) = self.tokens.borrow().get(path) {
            return tokens;
        }
        let tokens = self.card(path).tokens();
        self.tokens.borrow_mut().insert(path.to_string(), tokens);
        tokens
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::infer::expand::{Link, Priority, StopReason};

    fn selected(path: &str) -> Selected {
        Selected {
            path: path.to_string(),
            role: Role::Source,
            location: 0.0,
            weight: 0.0,
            anchor: true,
            step: 0,
            reached: None,
            support: Vec::new(),
            priority: None,
            cluster: 0,
        }
    }

    /// A file expansion added from `from` over `relation`; `covers` says whether the
    /// action added a missing aspect.
    fn expanded(path: &str, from: &str, relation: Relation, covers: bool) -> Selected {
        let link = Link {
            from: from.to_string(),
            via: Via::Edge {
                relation,
                forward: true,
            },
            confidence: 1.0,
            rationale: String::new(),
        };
        Selected {
            anchor: false,
            step: 1,
            reached: Some(link.clone()),
            support: vec![link],
            priority: Some(Priority {
                relevance: 0.6,
                new_role: if covers { 1.0 } else { 0.0 },
                ..Priority::default()
            }),
            ..selected(path)
        }
    }

    #[test]
    fn idle_expansions_are_filtered_unless_something_ties_them_to_the_task() {
        let mut strong = expanded("strong.py", "a.py", Relation::Imports, false);
        if let Some(p) = strong.priority.as_mut() {
            p.relevance = 0.9;
        }
        let expansion = Expansion {
            selected: vec![
                selected("a.py"),
                expanded("dependency.py", "a.py", Relation::Imports, false),
                expanded("caller.py", "a.py", Relation::Imports, false),
                expanded("subclass.py", "a.py", Relation::Inherits, false),
                expanded("test_a.py", "a.py", Relation::TestOf, true),
                strong,
                // A stepping stone to a file that adds coverage stays; one to an idle
                // file does not.
                expanded("stone.py", "a.py", Relation::Imports, false),
                expanded("settings.py", "stone.py", Relation::ConfigBinding, true),
                expanded("dead_end.py", "a.py", Relation::Calls, false),
                expanded("beyond.py", "dead_end.py", Relation::Imports, false),
            ],
            steps: 9,
            tokens: 0,
            stop: StopReason::NoNewCoverage,
            best_rejected: None,
        };
        let uses_task_symbol = |user: &str, used: &str| user == "caller.py" && used == "a.py";
        let mut idle: Vec<&str> = idle_files(&expansion, &uses_task_symbol)
            .into_iter()
            .collect();
        idle.sort_unstable();
        assert_eq!(idle, ["beyond.py", "dead_end.py", "dependency.py"]);
        let (kept, filtered) = rerank(&expansion, &uses_task_symbol);
        assert_eq!(kept.len(), 7);
        assert_eq!(filtered.len(), 3);
    }

    #[test]
    fn expanded_files_rank_by_their_own_location_score() {
        let mut anchor = selected("a.py");
        anchor.location = 0.4;
        assert_eq!(ranking_score(&anchor, 0.9), 0.9);
        let mut test = expanded("test_a.py", "a.py", Relation::TestOf, true);
        test.location = 0.2;
        assert_eq!(ranking_score(&test, 0.7), 0.2);
        assert_eq!(ranking_score(&test, 0.1), 0.1);
    }

    #[test]
    fn the_cut_spares_the_three_best_and_the_named_files() {
        let ordered: Vec<(Selected, f32)> = [1.0, 0.3, 0.2, 0.6, 0.4, 0.1]
            .iter()
            .enumerate()
            .map(|(k, &score)| (selected(&format!("f{k}")), score))
            .collect();
        let named: HashSet<&str> = ["f5"].into_iter().collect();
        let (kept, cut) = cut_weak(ordered.clone(), 0.5, &named);
        let paths = |v: &[(Selected, f32)]| -> Vec<String> {
            v.iter().map(|(s, _)| s.path.clone()).collect()
        };
        assert_eq!(paths(&kept), ["f0", "f1", "f2", "f3", "f5"]);
        assert_eq!(paths(&cut), ["f4"]);
        let (kept, cut) = cut_weak(ordered, 0.0, &HashSet::new());
        assert_eq!(kept.len(), 6);
        assert!(cut.is_empty());
    }
}
