//! Algorithm 1, lines 1–2: environment-aware analysis, the lexical narrowing pass,
//! Eq. 6 over every file, full facts for the best candidates only, and the top K_a
//! anchors with the signals that made them.

use std::collections::{BTreeMap, HashMap};
use std::sync::Arc;
use std::time::Instant;

use super::archive;
use super::assist;
use super::bridge;
use super::counterparts;
use super::cues::{self, Cue, CueKind, CueResolver, ResolvedCue};
use super::definitions;
use super::environment::{Environment, ListedFile};
use super::evidence::{self, Channel, Signal};
use super::features::{self, FeatureTable};
use super::history;
use super::index_codec::IndexView;
use super::lexical::{self, LexicalView, Query};
use super::past_changes;
use super::path_words::PathWords;
use super::ranker;
use super::report;
use super::score;
use super::task_type;
use super::template;
use super::view;
use super::{LocateConfig, LocateCost, Location, Preset, ScoredFile, Scorer, Terms};
use crate::Result;
use crate::artifact::{Role, is_test_file_name};
use crate::hashing::{IndexOf, ListingIndex};
use crate::plugins::LlmCaller;
use crate::resolve::{DirGroups, file_name, parent_dir};
use crate::session::{ArtifactInfo, Session};
use crate::source::Content;
use crate::task::Task;
use crate::term_store::FileTerms;

mod cue_evidence;
mod lending;
mod query;
mod reading;
mod semantic;

pub(crate) use cue_evidence::cue_symbol;
use cue_evidence::*;
use lending::*;
use query::*;
use reading::*;

/// The session's name for the lexical pass's per-file results.
const LEXICAL_PASS: &str = "lexical";
/// The on-disk cache's kind of the lexical index of a file.
const LEXICAL_INDEX: &str = "lexical-index";
/// The session's name for the candidates' definitions as documents.
const DEFINITIONS_PASS: &str = "definitions";
/// The on-disk cache's kind of a file's definitions as documents.
const DEFINITION_TERMS: &str = "definition-terms";
/// How many of the best lexical candidates get full tree-sitter facts.
const MIN_CANDIDATES: usize = 64;
/// How many of the files the vocabulary bridge scores best are candidates whatever
/// their Eq. 6 score.
const BRIDGE_CANDIDATES: usize = 8;
/// s_sum scope given to a module the language model named.
const JUDGED_MODULE_SCOPE: f32 = 0.8;
/// Evidence of a file that defines a symbol the task names, at least.
const DEFINED_SYMBOL: f32 = 0.85;
/// A file name written in the task is evidence when at most this many files have it.
const MAX_STEM_FILES: usize = 30;

/// A test lends weight to its implementation only when it matches the task this well
/// (normalized s_sem).
const MIN_TEST_MATCH: f32 = 0.3;
/// The share of a named package's evidence its modules get (divided among them).
const PACKAGE_SHARE: f32 = 0.5;
/// Cue resolution: a cue that names more files than this names nothing.
const MAX_CUE_FILES: usize = 30;
/// Query terms of the task's title weigh this many times more (s_sem, Eq. 6). On the
/// development sets 1.5, 2, 3, 4 and 6 all helped; from 3 on the gain is flat
/// (multilingual FRR@10 61.5% → 66.7%, Lite FRR@1 50.9% → 55.7% at 3).
const TITLE_EMPHASIS: f32 = 3.0;

/// Runs the Location stage, phase by phase as Algorithm 1 reads: the task read
/// against the repository (§III.C.1), the lexical pass and Eq. 6's terms over every
/// file, the evidence behind s_rule, a first Eq. 6 score, full facts for the best
/// candidates (§III.C.2), the plug-ins' judgments, evidence lent between files, the
/// learned re-ranking, and the stage's answer (§III.C.3).
pub(crate) fn run(
    session: &Session,
    task: &Task,
    config: &LocateConfig,
    llm: Option<&LlmCaller<'_>>,
) -> Result<Location> {
    config.validate()?;
    let start = Instant::now();
    let (artifacts, version) = session.listing()?;
    // The narrowing below parses the best candidates: their grammars compile
    // meanwhile.
    session.prepare_grammars();
    let files = Files::new(session, &artifacts, version);
    let reading = read_task(session, task, &files, config, llm);
    let lexical = lexical_terms(session, &reading, &files, config);
    let (evidence, co_changes) = rule_evidence(session, config, &files, &reading, &lexical);
    let (mut board, wordless) = first_scores(session, config, &files, &reading, &lexical, evidence);
    let narrowed = narrow(session, config, &files, &board, &wordless, &lexical);
    let described = read_candidates(session, &files, &reading, &lexical, &narrowed, &mut board);
    let notes = consult_plugins(
        session, config, llm, &files, &reading, &lexical, &narrowed, &described, &mut board,
    );
    semantic::read_table(session, config, &reading, &files, &narrowed, &mut board);
    lend_and_rescore(config, &files, &narrowed.candidates, &mut board);
    let learned = learned_ranking(
        config,
        &files,
        &reading,
        &lexical,
        &narrowed,
        &co_changes,
        &described,
        &wordless,
        &mut board,
    );
    Ok(answer(
        session,
        task,
        config,
        &files,
        Phases {
            reading,
            lexical,
            narrowed,
            described,
            board,
            learned,
            notes,
        },
        start.elapsed().as_secs_f64() * 1e3,
    ))
}

/// The evidence behind s_rule (Eq. 6): the resolved cues, the packages and file
/// names the task writes, the rule templates, and the repository's past (co-change
/// with strongly cued files, then past changes like the task). Per file, with every
/// co-change link (for the learned scorer).
fn rule_evidence(
    session: &Session,
    config: &LocateConfig,
    files: &Files<'_>,
    reading: &Reading,
    lexical: &Lexical,
) -> (Vec<Vec<Signal>>, history::CoChanges) {
    let (artifacts, query) = (files.artifacts, &reading.query);
    let (mut evidence, package_modules) = cue_signals(
        &lexical.resolved,
        query,
        &lexical.view,
        &files.by_path,
        files.len(),
    );
    // A package the task names (`sphinx.ext.napoleon`) is its modules as much as its
    // `__init__.py`: they share the evidence.
    spread_to_modules(artifacts, &package_modules, &mut evidence);
    let named = stems_in_task(artifacts, &reading.text, &reading.cues, &mut evidence);
    name_templates(session, files, query, &named, &mut evidence);
    let mut co_changes = history::CoChanges::new();
    if !config.ablation.no_history
        && let Some(past) = session.history_listed()
    {
        co_changes = history::apply(&past, &files.paths, &files.by_path, &mut evidence);
        // After co-change: a file the past lends to seeds no co-change of its own.
        if !config.ablation.no_past_changes {
            past_changes::apply(&past, query, &files.by_path, &mut evidence);
        }
    }
    (evidence, co_changes)
}

/// Eq. 6 over every file: the weights, each file's terms and the evidence behind its
/// s_rule, and the scores they combine to.
struct Board {
    weights: super::Weights,
    terms: Vec<Terms>,
    evidence: Vec<Vec<Signal>>,
    scores: Vec<f32>,
    /// What an embedder says of the best candidates (empty without one).
    semantic: HashMap<usize, crate::semantic::FileSimilarity>,
    /// What the static table says of the candidates with facts (issue 47), and of
    /// each of their definitions.
    table: HashMap<usize, crate::semantic::FileSimilarity>,
    table_definitions: HashMap<usize, Vec<crate::semantic::DefinitionCosine>>,
    /// What the past changes whose messages the static table finds close to the task
    /// say of the files they changed (empty without a history).
    table_past: HashMap<usize, past_changes::SemanticPast>,
    /// Whether the models trained with an embedder present score this query and
    /// complete its change set: its evidence is there, and the repository's history
    /// is as deep as in their training (without one, the change-set completion's plain
    /// model reads the scorer it was trained with).
    semantic_models: bool,
    /// Whether the repository's history is as deep as the scorer's training rows
    /// had it (`History::is_deep`, and not ablated): without, the scorer trained on
    /// rows without a history ranks.
    deep_history: bool,
}

impl Board {
    /// Scores file `i` again from its evidence and its terms.
    fn rescore(&mut self, i: usize, config: &LocateConfig) {
        self.terms[i].rule = evidence::rule_term(&self.evidence[i]);
        self.scores[i] = score::combine(&self.weights, &self.terms[i], &config.ablation);
    }
}

/// The first Eq. 6 score of every file. Files whose words say nothing of the task
/// are scored without their words, and marked (the learned scorer, which reads words
/// in many ways, does not rank them at all).
fn first_scores(
    session: &Session,
    config: &LocateConfig,
    files: &Files<'_>,
    reading: &Reading,
    lexical: &Lexical,
    evidence: Vec<Vec<Signal>>,
) -> (Board, Vec<bool>) {
    let n = files.len();
    let mut terms: Vec<Terms> = (0..n)
        .map(|i| Terms {
            sem: lexical.sem[i],
            sum: lexical.sum[i],
            rule: evidence::rule_term(&evidence[i]),
            prior: task_type::blended_prior(reading.task_type, files.artifacts[i].role),
        })
        .collect();
    let wordless = silence_wordless(session, files, &mut terms);
    let weights = score::weights(config.preset, n, lexical.ambiguity);
    let scores: Vec<f32> = terms
        .iter()
        .map(|t| score::combine(&weights, t, &config.ablation))
        .collect();
    let board = Board {
        weights,
        terms,
        evidence,
        scores,
        semantic: HashMap::new(),
        table: HashMap::new(),
        table_definitions: HashMap::new(),
        table_past: HashMap::new(),
        semantic_models: false,
        deep_history: !config.ablation.no_history
            && session.history_listed().is_some_and(|h| h.is_deep()),
    };
    (board, wordless)
}

/// The candidates that get full facts (§III.C.2, adaptive compression).
struct Narrowed {
    /// How many candidates the scores choose.
    wanted: usize,
    /// The best files by the first scores, then the bridge's picks.
    candidates: Vec<usize>,
    /// The files the vocabulary bridge finds best: candidates whatever their score.
    bridge_picks: Vec<usize>,
    /// The candidates' facts, by path.
    facts: Vec<(String, Arc<crate::facts::Facts>)>,
}

/// Narrowing: full tree-sitter facts only for the best candidates by the first
/// scores, and for the files the bridge finds best (their words may not be the
/// task's at all).
fn narrow(
    session: &Session,
    config: &LocateConfig,
    files: &Files<'_>,
    board: &Board,
    wordless: &[bool],
    lexical: &Lexical,
) -> Narrowed {
    let n = files.len();
    let wanted = MIN_CANDIDATES.max(config.anchors * 8).min(n);
    let order = by_score(files, &board.scores, 0..n);
    let mut candidates: Vec<usize> = order.into_iter().take(wanted).collect();
    let bridge_picks = bridge::best_files(&lexical.bridged, wordless, BRIDGE_CANDIDATES);
    for &i in &bridge_picks {
        if !candidates.contains(&i) {
            candidates.push(i);
        }
    }
    let candidate_paths: Vec<&str> = candidates.iter().map(|&i| files.paths[i]).collect();
    let facts = session.facts_listed(&candidate_paths);
    Narrowed {
        wanted,
        candidates,
        bridge_picks,
        facts,
    }
}

/// `indexes` by score, best first; ties by path.
fn by_score(files: &Files<'_>, scores: &[f32], indexes: impl Iterator<Item = usize>) -> Vec<usize> {
    let mut order: Vec<usize> = indexes.collect();
    order.sort_by(|&a, &b| {
        scores[b]
            .total_cmp(&scores[a])
            .then(files.paths[a].cmp(files.paths[b]))
    });
    order
}

/// What the candidates' facts add to the evidence: definitions of the task's
/// symbols the lexical pass could not see (decorated, nested, multi-line
/// signatures), the bridge's explanation, and the candidates' definitions scored as
/// documents of their own (so a file is not diluted by its size). Returns those
/// scores, with the task's title terms they were scored with.
fn read_candidates(
    session: &Session,
    files: &Files<'_>,
    reading: &Reading,
    lexical: &Lexical,
    narrowed: &Narrowed,
    board: &mut Board,
) -> Described {
    let (query, view) = (&reading.query, &lexical.view);
    // Weighted like the lexical definitions.
    let symbols: HashMap<&str, (f32, u32)> = lexical
        .resolved
        .iter()
        .filter_map(|r| {
            let name = cue_symbol(&r.cue)?;
            let index = query.symbols.iter().position(|s| s == name)? as u32;
            let weight = r.cue.weight.max(DEFINED_SYMBOL) * symbol_rarity(&r.cue, query, view);
            Some((name, (weight, index)))
        })
        .collect();
    for (path, f) in &narrowed.facts {
        let Some(i) = files.by_path.index_of(path) else {
            continue;
        };
        for def in &f.definitions {
            if let Some(&(w, index)) = symbols.get(def.name.as_str())
                && !view.files[i].defines.contains(&index)
            {
                board.evidence[i].push(Signal::new(
                    Channel::Defines,
                    w,
                    format!("defines `{}` (line {})", def.name, def.span.start),
                ));
            }
        }
    }
    for &i in &narrowed.candidates {
        if lexical.bridged[i] >= bridge::EXPLAINED {
            board.evidence[i].push(Signal::new(
                Channel::Bridge,
                lexical.bridged[i],
                bridge::explain(query, &lexical.bridge_terms[i]),
            ));
        }
    }
    let title = title_terms(query, &reading.text);
    let documents = definition_documents(session, &narrowed.facts);
    let scored: Vec<(usize, &[definitions::DefinitionTerms])> = narrowed
        .facts
        .iter()
        .zip(&documents)
        .filter_map(|((path, _), docs)| Some((files.by_path.index_of(path)?, docs.as_slice())))
        .collect();
    let (definitions, shares) = definitions::score(&scored, query, &title);
    for (&i, d) in &definitions {
        if d.best >= definitions::MATCHING_SHARE {
            board.evidence[i].push(Signal::remark(format!(
                "its definition `{}` (lines {}-{}) matches the task ({:.2} of the best \
                 match among the candidates' definitions)",
                d.name, d.span.start, d.span.end, d.best
            )));
        }
    }
    // Each parsed file's documents' shares, in the order of `Narrowed::facts` (a file
    // whose path left the listing has none).
    let mut shares = shares.into_iter();
    let shares = narrowed
        .facts
        .iter()
        .map(|(path, _)| match files.by_path.index_of(path) {
            Some(_) => shares.next().unwrap_or_default(),
            None => Vec::new(),
        })
        .collect();
    Described {
        by_file: definitions,
        title,
        documents,
        shares,
    }
}

/// Whether the learned scorer re-ranks: the `auto` preset with no term of Eq. 6
/// ablated. Otherwise Eq. 6 alone ranks, with its fixed or preset coefficients.
fn learns(config: &LocateConfig) -> bool {
    let a = &config.ablation;
    matches!(config.preset, Preset::Auto) && !(a.no_sem || a.no_sum || a.no_rule || a.no_prior)
}

/// The candidates' definitions scored as documents, and the task's title terms they
/// were scored with.
struct Described {
    by_file: HashMap<usize, definitions::FileDefinitions>,
    title: Vec<bool>,
    /// The candidates' definitions as documents, in the order of `Narrowed::facts`.
    documents: Vec<Arc<Vec<definitions::DefinitionTerms>>>,
    /// How each document scored, in the same order.
    shares: Vec<Vec<definitions::DocumentScore>>,
}

/// The plug-ins' judgments, with the notes of the stage (history cut short, files
/// ranked by their path alone, an embedder that failed). With an embedder, the best
/// candidates' definitions are embedded, and their similarity with the task becomes
/// evidence of its own ([`semantic`]). Under the learned scorer s_sem stays the
/// lexical score it was trained with, and the similarity is features of its own (a
/// plug-in never changes what a feature means); under Eq. 6 alone (the `paper`
/// preset, fixed weights, ablations) s_sem fuses BM25F with the best definition's
/// similarity, as Eq. 6 reads. With a language model, s_sum
/// of the best candidates is its judgment of their alignment with the task, and β
/// grows to match.
#[allow(clippy::too_many_arguments)]
fn consult_plugins(
    session: &Session,
    config: &LocateConfig,
    llm: Option<&LlmCaller<'_>>,
    files: &Files<'_>,
    reading: &Reading,
    lexical: &Lexical,
    narrowed: &Narrowed,
    described: &Described,
    board: &mut Board,
) -> Vec<String> {
    let text = reading.text.as_str();
    // The metadata view of a candidate: what the embedder and the model see.
    let view_of = |i: usize| {
        let facts = narrowed.facts.iter().find(|(p, _)| p == files.paths[i]);
        metadata_view(&files.artifacts[i], facts.map(|(_, f)| f.as_ref()))
    };
    let mut notes = Vec::new();
    if let Some(note) = session
        .history_listed()
        .and_then(|past| past.cut_note(session.history_options()))
    {
        notes.push(note);
    }
    if lexical.by_path_alone > 0 {
        notes.push(format!(
            "the repository has {} files, more than budget.max_files ({}): the {} whose \
             paths match the task least were ranked by their path alone",
            files.len(),
            config.budget.max_files,
            lexical.by_path_alone
        ));
    }
    if let Some(embedder) = session.embedder()
        && !config.ablation.no_sem
    {
        match semantic::semantic_evidence(session, embedder, reading, files, narrowed, described) {
            Ok(by_file) => {
                for (&i, similarity) in &by_file {
                    board.evidence[i].extend(semantic::explain(similarity));
                    // Eq. 6 alone: s_sem "combines embedding similarity and BM25".
                    // The learned scorer reads the similarity as features instead.
                    if !learns(config) {
                        let embedded = (similarity.best + 1.0) / 2.0;
                        board.terms[i].sem = 0.5 * board.terms[i].sem + 0.5 * embedded;
                    }
                }
                board.semantic_models = board.deep_history && !by_file.is_empty();
                board.semantic = by_file;
            }
            Err(note) => notes.push(note),
        }
    }
    if let Some(llm) = llm
        && !config.ablation.no_sum
    {
        let top: Vec<(usize, String)> = narrowed
            .candidates
            .iter()
            .take(assist::SUMMARY_CANDIDATES)
            .map(|&i| (i, view_of(i)))
            .collect();
        let judged = assist::summary(llm, text, &top);
        if !judged.is_empty() {
            for (i, alignment) in judged {
                board.terms[i].sum = alignment;
                board.evidence[i].push(Signal::remark(format!(
                    "the model judged its alignment with the task {alignment:.2} (s_sum)"
                )));
            }
            board.weights = score::with_judged_summary(board.weights);
        }
    }
    notes
}

/// Evidence lent between files, and every file scored again: a test that matches the
/// task points at what it tests (the implementation named like it), and the
/// counterparts of the best candidates share their evidence (a fix of one often has
/// to be repeated in the other).
fn lend_and_rescore(
    config: &LocateConfig,
    files: &Files<'_>,
    candidates: &[usize],
    board: &mut Board,
) {
    transfer_from_tests(
        files.artifacts,
        candidates,
        &board.terms,
        &mut board.evidence,
    );
    // Evidence and s_sem changed for candidates and test subjects.
    for i in 0..files.len() {
        board.rescore(i, config);
    }
    for i in counterparts::share_evidence(files.artifacts, &board.scores, &mut board.evidence) {
        board.rescore(i, config);
    }
}

/// What the learned scorer made of the candidates.
struct Learned {
    /// Whether it ranked them (else Eq. 6 did).
    used: bool,
    /// Per file it moved, why.
    explained: HashMap<usize, String>,
    /// Per candidate, its probability of being a file of the fix.
    probability: HashMap<usize, f32>,
    /// The candidates' features, by path.
    table: FeatureTable,
}

/// The candidates again, by the final Eq. 6 scores, with their features; the learned
/// scorer re-ranks them (the Auto preset). The paper's presets and fixed weights
/// keep Eq. 6, and so does an ablated term of Eq. 6 (the learned scorer reads every
/// term).
#[allow(clippy::too_many_arguments)]
fn learned_ranking(
    config: &LocateConfig,
    files: &Files<'_>,
    reading: &Reading,
    lexical: &Lexical,
    narrowed: &Narrowed,
    co_changes: &history::CoChanges,
    described: &Described,
    wordless: &[bool],
    board: &mut Board,
) -> Learned {
    let candidates = (0..files.len()).filter(|&i| board.scores[i] > 0.0 && !wordless[i]);
    let mut order = by_score(files, &board.scores, candidates);
    order.truncate(narrowed.wanted);
    for &i in &narrowed.bridge_picks {
        if !order.contains(&i) && board.scores[i] > 0.0 {
            order.push(i);
        }
    }
    let facts_of: HashMap<usize, &crate::facts::Facts> = narrowed
        .facts
        .iter()
        .filter_map(|(path, f)| Some((files.by_path.index_of(path)?, f.as_ref())))
        .collect();
    let inputs = features::Inputs {
        artifacts: files.artifacts,
        view: &lexical.view,
        query: &reading.query,
        terms: &board.terms,
        scores: &board.scores,
        evidence: &board.evidence,
        cues: &lexical.resolved,
        ambiguity: lexical.ambiguity,
        title: &described.title,
        facts: &facts_of,
        co_changes,
        definitions: &described.by_file,
        bridge: &lexical.bridged,
        semantic: &board.semantic,
        table: &board.table,
        table_past: &board.table_past,
    };
    let rows = features::compute(&inputs, &order);
    // The model trained with an embedder scores candidates that have its evidence.
    // Each model as it was trained: with an embedder's evidence, with the history,
    // or without one.
    let ranker = match (learns(config), board.semantic_models, board.deep_history) {
        (false, _, _) => None,
        (true, true, _) => ranker::semantic().or_else(ranker::builtin),
        (true, false, true) => ranker::builtin(),
        (true, false, false) => ranker::plain().or_else(ranker::builtin),
    };
    let (explained, probability) = match ranker {
        Some(ranker) => rerank(ranker, &order, &rows, &mut board.scores),
        None => Default::default(),
    };
    let table = FeatureTable {
        rows: order
            .iter()
            .zip(rows)
            .map(|(&i, row)| (files.artifacts[i].path.clone(), row))
            .collect(),
    };
    Learned {
        used: ranker.is_some(),
        explained,
        probability,
        table,
    }
}

/// What the phases gave, for the stage's answer.
struct Phases {
    reading: Reading,
    lexical: Lexical,
    narrowed: Narrowed,
    described: Described,
    board: Board,
    learned: Learned,
    notes: Vec<String>,
}

/// The stage's answer: every file ranked (the caller's hinted files first), the
/// anchors, the repository view within the stage's budget, and what the later
/// stages read of the query (its words, its matches, what lies beyond its words).
fn answer(
    session: &Session,
    task: &Task,
    config: &LocateConfig,
    files: &Files<'_>,
    phases: Phases,
    millis: f64,
) -> Location {
    let Phases {
        reading,
        lexical,
        narrowed,
        described,
        board,
        learned,
        notes,
    } = phases;
    let (artifacts, definitions) = (files.artifacts, &described.by_file);
    let mut ranked = scored_files(
        artifacts,
        &board.scores,
        &board.terms,
        &board.evidence,
        &lexical.sem_terms,
        &reading.query,
        learned.explained,
    );
    hinted_first(&mut ranked, &hinted_files(task, &lexical.resolved));
    let known: BTreeMap<&str, Arc<crate::facts::Facts>> = narrowed
        .facts
        .iter()
        .map(|(p, f)| (p.as_str(), Arc::clone(f)))
        .collect();
    let view = view::build_grouped(
        artifacts,
        &board.scores,
        &known,
        config.budget.location_tokens(),
        || files.groups(session),
    );
    let matched: HashMap<String, Vec<(usize, f32)>> = ranked
        .iter()
        .take(super::MATCHED_FILES)
        .filter_map(|r| {
            let i = files.by_path.index_of(&r.path)?;
            Some((r.path.clone(), lexical.sem_terms[i].clone()))
        })
        .collect();
    let anchors = ranked.iter().take(config.anchors).cloned().collect();
    let began = Instant::now();
    let (where_to_look, definition_rows) = where_to_look(
        &ranked, &narrowed, &described, &board, files, &reading, &lexical,
    );
    let definitions_millis = began.elapsed().as_secs_f64() * 1e3;
    let semantic = board.semantic_models;
    let beyond_words = (0..files.len())
        .map(|i| {
            let words = super::BeyondWords {
                definition: definitions.get(&i).map_or(0.0, |d| d.best),
                past_change: evidence::strongest(&board.evidence[i], Channel::PastChange),
                bridge: lexical.bridged[i],
                semantic: board.semantic.get(&i).map_or(0.0, |s| s.best),
                table: board.table.get(&i).map_or(0.0, |s| s.best),
                table_past: board.table_past.get(&i).map_or(0.0, |p| p.lent),
            };
            (artifacts[i].path.clone(), words)
        })
        .filter(|(_, w)| *w != super::BeyondWords::default())
        .collect();
    Location {
        anchors,
        ranked,
        environment: reading.environment,
        task_type: reading.task_type,
        cues: lexical.resolved,
        scorer: if learned.used {
            Scorer::Learned
        } else {
            Scorer::Eq6
        },
        weights: board.weights,
        view,
        definitions: where_to_look.clone(),
        notes,
        constraints: reading.judgment.constraints,
        llm: None,
        parsed: narrowed
            .facts
            .iter()
            .map(|(path, _)| path.clone())
            .collect(),
        features: learned.table,
        definition_rows,
        words: Arc::new(lexical.words),
        matched,
        probability: learned
            .probability
            .into_iter()
            .map(|(i, p)| (artifacts[i].path.clone(), p))
            .collect(),
        query_terms: reading.query.terms.len(),
        beyond_words,
        semantic,
        described: super::where_to_look::described(
            definitions
                .iter()
                .filter(|(_, d)| d.best >= definitions::MATCHING_SHARE)
                .map(|(&i, d)| (artifacts[i].path.clone(), d.name.clone()))
                .collect(),
            &where_to_look,
        ),
        cost: LocateCost {
            files_read: files.len() - lexical.by_path_alone,
            files_parsed: narrowed.facts.len(),
            millis: millis + definitions_millis,
            definitions_millis,
        },
    }
}

/// Where to look inside the best files: their definitions ranked
/// ([`super::where_to_look`]), with every candidate's feature row.
fn where_to_look(
    ranked: &[ScoredFile],
    narrowed: &Narrowed,
    described: &Described,
    board: &Board,
    files: &Files<'_>,
    reading: &Reading,
    lexical: &Lexical,
) -> (
    Vec<super::RankedDefinition>,
    Vec<super::where_to_look::DefinitionRow>,
) {
    super::where_to_look::of_ranking(
        ranked,
        &narrowed.facts,
        &described.documents,
        &described.shares,
        |path| {
            let i = files.by_path.index_of(path);
            let embedded = i.and_then(|i| board.semantic.get(&i));
            let table = i.and_then(|i| board.table_definitions.get(&i));
            (
                embedded.map(|s| (s.name.as_str(), s.best)),
                table.map_or(&[], Vec::as_slice),
            )
        },
        &reading.query,
        &lexical.resolved,
    )
}

/// The definitions of the files of `facts` as documents ([`definitions::documents`]),
/// in the same order: per file, kept by the session while the file is unchanged and
/// in the on-disk cache by content, so a query reads no text for them that it did not
/// read already.
fn definition_documents(
    session: &Session,
    facts: &[(String, Arc<crate::facts::Facts>)],
) -> Vec<Arc<Vec<definitions::DefinitionTerms>>> {
    let of: HashMap<&str, &crate::facts::Facts> = facts
        .iter()
        .map(|(p, f)| (p.as_str(), f.as_ref()))
        .collect();
    let paths: Vec<&str> = facts.iter().map(|(p, _)| p.as_str()).collect();
    let scan = |path: &str, content: &Content<'_>| {
        let Some(&f) = of.get(path) else {
            return Arc::default();
        };
        let compute = |bytes: &[u8]| definitions::documents(&String::from_utf8_lossy(bytes), f);
        let stored = session.disk_cache().and_then(|_| {
            session.through_disk(DEFINITION_TERMS, content, |bytes| {
                serde_json::to_vec(&compute(bytes)).unwrap_or_default()
            })
        });
        // A stored entry that does not decode is computed again.
        Arc::new(
            stored
                .and_then(|bytes| serde_json::from_slice(&bytes).ok())
                .unwrap_or_else(|| compute(content.bytes())),
        )
    };
    session.scan_files(DEFINITIONS_PASS, 0, &paths, &scan)
}

/// Marks the files whose words say nothing of the task and takes their words out of
/// their terms: issue templates (the task was written from them, not about them) and
/// the copies kept per released version (they keep their prior and any cue that names
/// them, not the words they share with the current file). Both are the listing's,
/// found once per listing.
fn silence_wordless(session: &Session, files: &Files<'_>, terms: &mut [Terms]) -> Vec<bool> {
    let (templates, archived) = session.per_listing(WORDLESS, files.version, |_| {
        let templates: Vec<usize> = (files.paths.iter().enumerate())
            .filter(|(_, p)| template::is_issue_template(p))
            .map(|(i, _)| i)
            .collect();
        (
            Arc::new(templates),
            Arc::new(archive::archived_copies(&files.paths)),
        )
    });
    let mut wordless = vec![false; files.len()];
    // The task was written from the issue templates, not about them.
    for &i in templates.iter() {
        wordless[i] = true;
        terms[i] = Terms {
            sem: 0.0,
            sum: 0.0,
            rule: 0.0,
            ..terms[i]
        };
    }
    // Nor about the copies kept per released version: they keep their prior and
    // any cue that names them, not the words they share with the current file.
    for &i in archived.iter() {
        wordless[i] = true;
        terms[i] = Terms {
            sem: 0.0,
            sum: 0.0,
            ..terms[i]
        };
    }
    wordless
}

/// What [`silence_wordless`] keeps per listing.
const WORDLESS: &str = "issue templates and archived copies";

/// The files with a positive score, best first (equal scores in path order), each
/// with its strongest signals (the learned scorer's explanation first, then up to
/// five, its semantic matches, then the task's words it matches).
fn scored_files(
    artifacts: &[ArtifactInfo],
    scores: &[f32],
    terms: &[Terms],
    evidence: &[Vec<Signal>],
    sem_terms: &[Vec<(usize, f32)>],
    query: &Query,
    mut learned: HashMap<usize, String>,
) -> Vec<ScoredFile> {
    // The listing is in path order, so ties go by index: no path is compared (a
    // million paths compared cost a warm query at that size 150 ms).
    debug_assert!(artifacts.is_sorted_by(|a, b| a.path < b.path));
    let mut order: Vec<usize> = (0..artifacts.len()).filter(|&i| scores[i] > 0.0).collect();
    order.sort_unstable_by(|&a, &b| scores[b].total_cmp(&scores[a]).then(a.cmp(&b)));
    order
        .into_iter()
        .map(|i| {
            let mut signals: Vec<Signal> = evidence[i].clone();
            signals.sort_by(|a, b| b.strength.total_cmp(&a.strength).then(a.what.cmp(&b.what)));
            signals.dedup_by(|a, b| a.what == b.what);
            let mut shown: Vec<String> = learned.remove(&i).into_iter().collect();
            // The five strongest, then the semantic matches (never among them: they
            // have no strength).
            let (semantic, signals): (Vec<Signal>, Vec<Signal>) = signals
                .into_iter()
                .partition(|s| s.channel == Channel::Semantic);
            shown.extend(signals.into_iter().take(5).map(|s| s.what));
            shown.extend(semantic.into_iter().map(|s| s.what));
            if !sem_terms[i].is_empty() {
                let words: Vec<&str> = sem_terms[i]
                    .iter()
                    .map(|(t, _)| query.terms[*t].0.as_str())
                    .collect();
                shown.push(format!("lexical match: {}", words.join(", ")));
            }
            ScoredFile {
                path: artifacts[i].path.clone(),
                score: scores[i],
                role: artifacts[i].role,
                terms: terms[i],
                signals: shown,
            }
        })
        .collect()
}

/// How many features an explanation of a learned score names.
const EXPLAINED_FEATURES: usize = 4;

/// Re-orders the candidates (`order`, with their feature `rows`) by the learned
/// scorer. The order is the learned one; the scores stay on Eq. 6's scale: the
/// candidate the scorer puts k-th gets the k-th best Eq. 6 score of the candidates
/// (equal probabilities, equal scores), so that the Inference stage, whose Eq. 7 and
/// Eq. 8 read Location scores against the rest of the repository, sees the scale it
/// was built for, and every file beyond the candidates keeps its score. Returns, per
/// candidate, the sentence that explains its place: its probability and the features
/// that moved it most.
fn rerank(
    ranker: &crate::trees::Trees,
    order: &[usize],
    rows: &[Vec<f32>],
    scores: &mut [f32],
) -> (HashMap<usize, String>, HashMap<usize, f32>) {
    let mut eq6: Vec<f32> = order.iter().map(|&i| scores[i]).collect();
    let mut learned: Vec<(usize, f32)> = Vec::with_capacity(order.len());
    let mut explained = HashMap::new();
    for ((&i, row), &before) in order.iter().zip(rows).zip(&eq6) {
        let (probability, parts) = ranker.score(row);
        learned.push((i, probability));
        let mut named: Vec<(usize, f32)> = parts.into_iter().enumerate().collect();
        named.sort_by(|a, b| b.1.abs().total_cmp(&a.1.abs()).then(a.0.cmp(&b.0)));
        let reasons: Vec<String> = named
            .iter()
            .take(EXPLAINED_FEATURES)
            .filter(|(_, c)| c.abs() >= 0.01)
            .map(|&(f, c)| format!("{} {c:+.2}", features::FEATURE_NAMES[f]))
            .collect();
        let reasons = if reasons.is_empty() {
            "nothing".to_string()
        } else {
            reasons.join(", ")
        };
        explained.insert(
            i,
            format!(
                "learned score {probability:.2} (Eq. 6 {before:.2}); log-odds moved most by \
                 {reasons}"
            ),
        );
    }
    // `order` is by Eq. 6, best first: a stable sort keeps that order among equals.
    learned.sort_by(|a, b| b.1.total_cmp(&a.1));
    eq6.sort_by(|a, b| b.total_cmp(a));
    let mut group_score = 0.0;
    for (k, &(i, probability)) in learned.iter().enumerate() {
        if k == 0 || probability != learned[k - 1].1 {
            group_score = eq6[k];
        }
        scores[i] = group_score;
    }
    (explained, learned.into_iter().collect())
}

/// The metadata view of a file (paper Eq. 6: s_sem reads it, not the whole file):
/// path, role, key definitions and doc summary.
fn metadata_view(a: &ArtifactInfo, facts: Option<&crate::facts::Facts>) -> String {
    let mut view = format!("{} ({})", a.path, a.role);
    if let Some(f) = facts {
        let defs: Vec<&str> = f
            .definitions
            .iter()
            .take(12)
            .map(|d| d.name.as_str())
            .collect();
        if !defs.is_empty() {
            view.push_str(" defines ");
            view.push_str(&defs.join(", "));
        }
        if let Some(doc) = &f.doc {
            view.push_str(". ");
            view.push_str(doc);
        }
    }
    view
}
