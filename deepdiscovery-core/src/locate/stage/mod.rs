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
use super::ranker;
use super::report;
use super::score;
use super::task_type;
use super::template;
use super::view;
use super::{LocateConfig, LocateCost, Location, Preset, ScoredFile, Scorer, Terms};
use crate::Result;
use crate::artifact::{Role, is_test_file_name};
use crate::plugins::LlmCaller;
use crate::resolve::{file_name, parent_dir};
use crate::session::{ArtifactInfo, Session};
use crate::source::Content;
use crate::task::Task;
use crate::term_store::FileTerms;

mod cue_evidence;
mod lending;
mod query;

pub(crate) use cue_evidence::cue_symbol;
use cue_evidence::*;
use lending::*;
use query::*;

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

/// Runs the Location stage.
pub(crate) fn run(
    session: &Session,
    task: &Task,
    config: &LocateConfig,
    llm: Option<&LlmCaller<'_>>,
) -> Result<Location> {
    config.validate()?;
    let start = Instant::now();
    let artifacts = session.artifacts()?;
    // The narrowing below parses the best candidates: their grammars compile
    // meanwhile.
    session.prepare_grammars();
    let listed: Vec<ListedFile<'_>> = artifacts
        .iter()
        .map(|a| ListedFile {
            path: &a.path,
            language: a.language,
            role: a.role,
        })
        .collect();
    let read = |path: &str| session.read_text(path);
    let environment = Environment::infer(&listed, &read);
    // What the author wrote: issue templates' HTML comments ("this template applies to
    // bug reports, feature proposals and documentation requests…") are not the task.
    // Nor is the environment the reporter pasted (versions of everything installed).
    let text = report::strip(&cues::strip_html_comments(&task.text));
    // Nor are the lines it repeats from the repository's issue templates.
    let templates: Vec<String> = artifacts
        .iter()
        .filter(|a| template::is_issue_template(&a.path))
        .filter_map(|a| session.read_text(&a.path))
        .collect();
    let text = template::TemplateEcho::new(templates.iter().map(String::as_str)).strip(&text);
    let text = text.as_str();
    let mut task_type = task_type::classify(text);
    // With a language model: its reading of the task type, modules and constraints.
    let judgment = llm.and_then(|llm| assist::environment(llm, text, &environment));
    let judgment = judgment.unwrap_or_default();
    if let Some(judged) = judgment.task_type {
        task_type = (judged, assist::JUDGED_TYPE_CONFIDENCE);
    }

    // Cues from the text and from the caller's hints.
    let mut all_cues = cues::extract(text);
    all_cues.extend(hint_cues(task));
    let mut query = build_query(text, &all_cues);
    if !config.ablation.no_bridge
        && let Some(bridge) = session.bridge()
    {
        query.expand(bridge);
    }
    let paths: Vec<&str> = artifacts.iter().map(|a| a.path.as_str()).collect();
    let scanner = lexical::Scanner::new(&query);
    let (stats, by_path_alone) = lexical_pass(session, &query, &scanner, &paths, config);
    let view = lexical::aggregate(&query, stats);
    let words: HashMap<String, Arc<[u32]>> = paths
        .iter()
        .zip(&view.files)
        .map(|(path, stats)| (path.to_string(), Arc::clone(&stats.words)))
        .collect();

    let resolver = LexicalResolver {
        artifacts: &artifacts,
        view: &view,
        query: &query,
    };
    let resolved: Vec<ResolvedCue> = cues::resolve(&all_cues, &resolver)
        .into_iter()
        .filter(|r| r.files.len() <= MAX_CUE_FILES)
        .collect();

    let mut scope = environment.module_scope(text);
    for &module in &judgment.modules {
        match scope.iter_mut().find(|(m, _)| *m == module) {
            Some(entry) => entry.1 = entry.1.max(JUDGED_MODULE_SCOPE),
            None => scope.push((module, JUDGED_MODULE_SCOPE)),
        }
    }
    let n = artifacts.len();
    let mut sem = vec![0.0f32; n];
    let mut sem_terms: Vec<Vec<(usize, f32)>> = vec![Vec::new(); n];
    for i in 0..n {
        let (s, parts) = view.bm25f(&query, i);
        sem[i] = s;
        sem_terms[i] = parts;
    }
    // The vocabulary bridge: the words of the code the task's words translate to.
    // Each file's score and its strongest expansion terms (what explains it).
    let mut bridged = vec![0.0f32; n];
    let mut bridge_terms: Vec<Vec<(usize, f32)>> = vec![Vec::new(); n];
    if !query.expansion.is_empty() {
        for i in 0..n {
            (bridged[i], bridge_terms[i]) = view.bridge(&query, i);
        }
        score::normalize_max(&mut bridged);
    }
    let mut sorted = sem.clone();
    sorted.sort_by(|a, b| b.total_cmp(a));
    let ambiguity = score::ambiguity(&sorted);
    let mut weights = score::weights(config.preset, n, ambiguity);
    score::normalize_max(&mut sem);
    let sum = module_alignment(&artifacts, &view, &query, &environment, &scope);

    let by_path: HashMap<&str, usize> = artifacts
        .iter()
        .enumerate()
        .map(|(i, a)| (a.path.as_str(), i))
        .collect();
    let (mut evidence, package_modules) = cue_signals(&resolved, &query, &view, &by_path, n);
    // A package the task names (`sphinx.ext.napoleon`) is its modules as much as its
    // `__init__.py`: they share the evidence.
    spread_to_modules(&artifacts, &package_modules, &mut evidence);
    let named = stems_in_task(&artifacts, text, &all_cues, &mut evidence);
    name_templates(&artifacts, &query, &named, &mut evidence);
    // The repository's past: co-change with strongly cued files.
    let mut co_changes = history::CoChanges::new();
    if !config.ablation.no_history
        && let Some(past) = session.history_listed()
    {
        co_changes = history::apply(&past, &paths, &by_path, &mut evidence);
        // After co-change: a file the past lends to seeds no co-change of its own.
        if !config.ablation.no_past_changes {
            past_changes::apply(&past, &query, &by_path, &mut evidence);
        }
    }

    let mut terms: Vec<Terms> = (0..n)
        .map(|i| Terms {
            sem: sem[i],
            sum: sum[i],
            rule: evidence::rule_term(&evidence[i]),
            prior: task_type::blended_prior(task_type, artifacts[i].role),
        })
        .collect();
    // Files whose words say nothing of the task: Eq. 6 scores them without their
    // words, and the learned scorer, which reads words in many ways, not at all.
    let wordless = silence_wordless(&artifacts, &paths, &mut terms);
    let mut scores: Vec<f32> = terms
        .iter()
        .map(|t| score::combine(&weights, t, &config.ablation))
        .collect();

    // Narrowing: full facts only for the best candidates.
    let wanted = MIN_CANDIDATES.max(config.anchors * 8).min(n);
    let mut order: Vec<usize> = (0..n).collect();
    order.sort_by(|&a, &b| {
        scores[b]
            .total_cmp(&scores[a])
            .then(artifacts[a].path.cmp(&artifacts[b].path))
    });
    let mut candidates: Vec<usize> = order.iter().copied().take(wanted).collect();
    // The files the bridge finds best are candidates too: their words may not be the
    // task's at all.
    let bridge_picks = bridge::best_files(&bridged, &wordless, BRIDGE_CANDIDATES);
    for &i in &bridge_picks {
        if !candidates.contains(&i) {
            candidates.push(i);
        }
    }
    let candidate_paths: Vec<&str> = candidates
        .iter()
        .map(|&i| artifacts[i].path.as_str())
        .collect();
    let facts = session.facts_listed(&candidate_paths);
    // Definitions the lexical pass could not see (decorated, nested, multi-line
    // signatures) count too, weighted like the lexical ones.
    let symbols: HashMap<&str, (f32, u32)> = resolved
        .iter()
        .filter_map(|r| {
            let name = cue_symbol(&r.cue)?;
            let index = query.symbols.iter().position(|s| s == name)? as u32;
            let weight = r.cue.weight.max(DEFINED_SYMBOL) * symbol_rarity(&r.cue, &query, &view);
            Some((name, (weight, index)))
        })
        .collect();
    for (path, f) in &facts {
        let Some(&i) = by_path.get(path.as_str()) else {
            continue;
        };
        for def in &f.definitions {
            if let Some(&(w, index)) = symbols.get(def.name.as_str())
                && !view.files[i].defines.contains(&index)
            {
                evidence[i].push(Signal::new(
                    Channel::Defines,
                    w,
                    format!("defines `{}` (line {})", def.name, def.span.start),
                ));
            }
        }
    }
    for &i in &candidates {
        if bridged[i] >= bridge::EXPLAINED {
            evidence[i].push(Signal::new(
                Channel::Bridge,
                bridged[i],
                bridge::explain(&query, &bridge_terms[i]),
            ));
        }
    }
    // Definitions as documents: the candidates' functions, methods and classes scored
    // on their own, so a file is not diluted by its size.
    let title = title_terms(&query, text);
    let definitions = {
        let documents = definition_documents(session, &facts);
        let files: Vec<(usize, &[definitions::DefinitionTerms])> = facts
            .iter()
            .zip(&documents)
            .filter_map(|((path, _), docs)| Some((*by_path.get(path.as_str())?, docs.as_slice())))
            .collect();
        definitions::score(&files, &query, &title)
    };
    for (&i, d) in &definitions {
        if d.best >= definitions::MATCHING_SHARE {
            evidence[i].push(Signal::remark(format!(
                "its definition `{}` (lines {}-{}) matches the task ({:.2} of the best \
                 match among the candidates' definitions)",
                d.name, d.span.start, d.span.end, d.best
            )));
        }
    }
    // The metadata view of a candidate: what the embedder and the model see.
    let view_of = |i: usize| {
        metadata_view(
            &artifacts[i],
            facts
                .iter()
                .find(|(p, _)| *p == artifacts[i].path)
                .map(|(_, f)| f.as_ref()),
        )
    };
    // With an embedder, s_sem fuses BM25F with the similarity of the task and each
    // candidate's metadata view (Eq. 6: "combines embedding similarity and BM25").
    let mut notes = Vec::new();
    if let Some(note) = session
        .history_listed()
        .and_then(|past| past.cut_note(session.history_options()))
    {
        notes.push(note);
    }
    if by_path_alone > 0 {
        notes.push(format!(
            "the repository has {n} files, more than budget.max_files ({}): the {by_path_alone} \
             whose paths match the task least were ranked by their path alone",
            config.budget.max_files
        ));
    }
    if let Some(embedder) = session.embedder()
        && !config.ablation.no_sem
    {
        let views: Vec<String> = candidates.iter().map(|&i| view_of(i)).collect();
        let views: Vec<&str> = views.iter().map(String::as_str).collect();
        match session.embeddings().embed(embedder, text, &views) {
            Some((task_vector, vectors)) => {
                for (k, &i) in candidates.iter().enumerate() {
                    let similarity = crate::plugins::cosine01(&task_vector, &vectors[k]);
                    terms[i].sem = 0.5 * terms[i].sem + 0.5 * similarity;
                    evidence[i].push(Signal::remark(format!(
                        "embedding similarity {similarity:.2}"
                    )));
                }
            }
            None => notes
                .push("the embedder failed or answered garbage: s_sem is lexical only".to_string()),
        }
    }
    // With a language model, s_sum of the best candidates is its judgment of their
    // alignment with the task (Eq. 6), and β grows to match.
    if let Some(llm) = llm
        && !config.ablation.no_sum
    {
        let top: Vec<(usize, String)> = candidates
            .iter()
            .take(assist::SUMMARY_CANDIDATES)
            .map(|&i| (i, view_of(i)))
            .collect();
        let judged = assist::summary(llm, text, &top);
        if !judged.is_empty() {
            for (i, alignment) in judged {
                terms[i].sum = alignment;
                evidence[i].push(Signal::remark(format!(
                    "the model judged its alignment with the task {alignment:.2} (s_sum)"
                )));
            }
            weights = score::with_judged_summary(weights);
        }
    }
    // A test that matches the task points at what it tests: lend it to the
    // implementation named like it.
    transfer_from_tests(&artifacts, &candidates, &terms, &mut evidence);
    // Evidence and s_sem changed for candidates and test subjects: score again.
    for i in 0..n {
        terms[i].rule = evidence::rule_term(&evidence[i]);
        scores[i] = score::combine(&weights, &terms[i], &config.ablation);
    }
    // The counterparts of the best candidates share their evidence: a fix of one
    // often has to be repeated in the other.
    for i in counterparts::share_evidence(&artifacts, &scores, &mut evidence) {
        terms[i].rule = evidence::rule_term(&evidence[i]);
        scores[i] = score::combine(&weights, &terms[i], &config.ablation);
    }

    // The candidates again, by the final Eq. 6 scores, and their features.
    let mut order: Vec<usize> = (0..n)
        .filter(|&i| scores[i] > 0.0 && !wordless[i])
        .collect();
    order.sort_by(|&a, &b| {
        scores[b]
            .total_cmp(&scores[a])
            .then(artifacts[a].path.cmp(&artifacts[b].path))
    });
    order.truncate(wanted);
    for &i in &bridge_picks {
        if !order.contains(&i) && scores[i] > 0.0 {
            order.push(i);
        }
    }
    let facts_of: HashMap<usize, &crate::facts::Facts> = facts
        .iter()
        .filter_map(|(path, f)| Some((*by_path.get(path.as_str())?, f.as_ref())))
        .collect();
    let inputs = features::Inputs {
        artifacts: &artifacts,
        view: &view,
        query: &query,
        terms: &terms,
        scores: &scores,
        evidence: &evidence,
        cues: &resolved,
        ambiguity,
        title: &title,
        facts: &facts_of,
        co_changes: &co_changes,
        definitions: &definitions,
        bridge: &bridged,
    };
    let rows = features::compute(&inputs, &order);
    // The learned scorer re-ranks the candidates (Auto); the paper's presets and
    // fixed weights keep Eq. 6.
    // An ablated term of Eq. 6 measures Eq. 6: the learned scorer reads every term.
    let ablated = {
        let a = &config.ablation;
        a.no_sem || a.no_sum || a.no_rule || a.no_prior
    };
    let ranker = match config.preset {
        Preset::Auto if !ablated => ranker::builtin(),
        _ => None,
    };
    let (learned, probability) = match ranker {
        Some(ranker) => rerank(ranker, &order, &rows, &mut scores),
        None => Default::default(),
    };
    let table = FeatureTable {
        rows: order
            .iter()
            .zip(rows)
            .map(|(&i, row)| (artifacts[i].path.clone(), row))
            .collect(),
    };

    let mut ranked = scored_files(
        &artifacts, &scores, &terms, &evidence, &sem_terms, &query, learned,
    );
    ranked.sort_by(|a, b| b.score.total_cmp(&a.score).then(a.path.cmp(&b.path)));
    hinted_first(&mut ranked, &hinted_files(task, &resolved));
    let known: BTreeMap<&str, std::sync::Arc<crate::facts::Facts>> = facts
        .iter()
        .map(|(p, f)| (p.as_str(), std::sync::Arc::clone(f)))
        .collect();
    let view = view::build(&artifacts, &scores, &known, config.budget.location_tokens());
    let matched: HashMap<String, Vec<(usize, f32)>> = ranked
        .iter()
        .take(super::MATCHED_FILES)
        .filter_map(|r| {
            let i = *by_path.get(r.path.as_str())?;
            Some((r.path.clone(), sem_terms[i].clone()))
        })
        .collect();
    let anchors = ranked.iter().take(config.anchors).cloned().collect();
    Ok(Location {
        anchors,
        ranked,
        environment,
        task_type,
        cues: resolved,
        scorer: if ranker.is_some() {
            Scorer::Learned
        } else {
            Scorer::Eq6
        },
        weights,
        view,
        notes,
        constraints: judgment.constraints,
        llm: None,
        parsed: facts.iter().map(|(path, _)| path.clone()).collect(),
        features: table,
        words: Arc::new(words),
        matched,
        probability: probability
            .into_iter()
            .map(|(i, p)| (artifacts[i].path.clone(), p))
            .collect(),
        query_terms: query.terms.len(),
        beyond_words: (0..n)
            .map(|i| {
                let words = super::BeyondWords {
                    definition: definitions.get(&i).map_or(0.0, |d| d.best),
                    past_change: evidence::strongest(&evidence[i], Channel::PastChange),
                    bridge: bridged[i],
                };
                (artifacts[i].path.clone(), words)
            })
            .filter(|(_, w)| *w != super::BeyondWords::default())
            .collect(),
        described: definitions
            .iter()
            .filter(|(_, d)| d.best >= definitions::MATCHING_SHARE)
            .map(|(&i, d)| (artifacts[i].path.clone(), d.name.clone()))
            .collect(),
        cost: LocateCost {
            files_read: n - by_path_alone,
            files_parsed: facts.len(),
            millis: start.elapsed().as_secs_f64() * 1e3,
        },
    })
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
/// them, not the words they share with the current file).
fn silence_wordless(artifacts: &[ArtifactInfo], paths: &[&str], terms: &mut [Terms]) -> Vec<bool> {
    let mut wordless = vec![false; artifacts.len()];
    // The task was written from the issue templates, not about them.
    for (i, a) in artifacts.iter().enumerate() {
        if template::is_issue_template(&a.path) {
            wordless[i] = true;
            terms[i] = Terms {
                sem: 0.0,
                sum: 0.0,
                rule: 0.0,
                ..terms[i]
            };
        }
    }
    // Nor about the copies kept per released version: they keep their prior and
    // any cue that names them, not the words they share with the current file.
    for i in archive::archived_copies(paths) {
        wordless[i] = true;
        terms[i] = Terms {
            sem: 0.0,
            sum: 0.0,
            ..terms[i]
        };
    }
    wordless
}

/// The files with a positive score, each with its strongest signals (the learned
/// scorer's explanation first, then up to five, then the task's words it matches).
fn scored_files(
    artifacts: &[ArtifactInfo],
    scores: &[f32],
    terms: &[Terms],
    evidence: &[Vec<Signal>],
    sem_terms: &[Vec<(usize, f32)>],
    query: &Query,
    mut learned: HashMap<usize, String>,
) -> Vec<ScoredFile> {
    let n = artifacts.len();
    (0..n)
        .filter(|&i| scores[i] > 0.0)
        .map(|i| {
            let mut signals: Vec<Signal> = evidence[i].clone();
            signals.sort_by(|a, b| b.strength.total_cmp(&a.strength).then(a.what.cmp(&b.what)));
            signals.dedup_by(|a, b| a.what == b.what);
            let mut shown: Vec<String> = learned.remove(&i).into_iter().collect();
            shown.extend(signals.into_iter().take(5).map(|s| s.what));
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

/// The lexical pass over every file; in a repository of more than
/// `budget.max_files` files, only the files whose path matches the task best are
/// read, the others keep the statistics of their path alone (their number is
/// returned). Equal inputs, equal result: ties go to the earlier path.
fn lexical_pass(
    session: &Session,
    query: &Query,
    scanner: &lexical::Scanner<'_>,
    paths: &[&str],
    config: &LocateConfig,
) -> (Vec<Arc<lexical::FileStats>>, usize) {
    // A file's query-independent index is kept between queries as a table of ids
    // in the session's term store: a new query counts its terms from the table
    // without reading the file. Else the index comes from the on-disk cache (no
    // tokenizing), or is computed, and is kept as a table for the next query. The
    // statistics are the same every way. The file is read for the phrases only when
    // one may occur in it (the index has every identifier the phrase holds). A file
    // whose index would outgrow it (base64 in a notebook) is scanned directly.
    // Term tables pay where there is no on-disk cache (its indexes already spare the
    // tokenizing, at about the tables' speed), and from the session's second pass on:
    // building them costs a first query as much again, which a session that answers
    // one question should not pay.
    let store = session.term_store();
    let table_query = if session.disk_cache().is_none() && store.armed() {
        session.maintain_terms();
        scanner.table_query(store)
    } else {
        None
    };
    let text_if = |needed: bool, content: &Content<'_>| {
        if needed {
            String::from_utf8_lossy(content.bytes()).into_owned()
        } else {
            String::new()
        }
    };
    let from_table = |path: &str, content: &Content<'_>, table: &FileTerms| {
        let query = table_query.as_ref()?;
        let text = text_if(scanner.table_may_find_phrases(query, table), content);
        scanner.scan_table(path, query, table, &text)
    };
    let scan = |path: &str, content: &Content<'_>| {
        if table_query.is_some()
            && let Some(table) = store.get(content.hash())
            && let Some(stats) = from_table(path, content, &table)
        {
            return Arc::new(stats);
        }
        let index_of =
            |bytes: &[u8]| lexical::FileIndex::of(&String::from_utf8_lossy(bytes)).encode();
        let (computed, stored);
        let index = if session.disk_cache().is_some() {
            let Some(bytes) = session.through_disk(LEXICAL_INDEX, content, index_of) else {
                let text = String::from_utf8_lossy(content.bytes());
                return Arc::new(scanner.scan_file(path, &text));
            };
            stored = bytes;
            match IndexView::decode(&stored) {
                Some(index) => index,
                // A valid entry whose payload is no index: computed again.
                None => {
                    computed = lexical::FileIndex::of(&String::from_utf8_lossy(content.bytes()));
                    IndexView::of(&computed)
                }
            }
        } else if table_query.is_some() {
            computed = lexical::FileIndex::of(&String::from_utf8_lossy(content.bytes()));
            IndexView::of(&computed)
        } else {
            let text = String::from_utf8_lossy(content.bytes());
            return Arc::new(scanner.scan_file(path, &text));
        };
        if table_query.is_some()
            && let Some(table) = store.insert(content.hash(), index.table())
            && let Some(stats) = from_table(path, content, &table)
        {
            return Arc::new(stats);
        }
        let text = text_if(scanner.may_find_phrases(&index), content);
        Arc::new(scanner.scan_indexed(path, &index, &text))
    };
    let limit = config.budget.max_files;
    if paths.len() <= limit {
        let stats = session.scan_files(LEXICAL_PASS, query.fingerprint(), paths, &scan);
        store.arm();
        return (stats, 0);
    }
    let mut stats: Vec<Arc<lexical::FileStats>> = paths
        .iter()
        .map(|p| Arc::new(scanner.scan_file(p, "")))
        .collect();
    let by_path = lexical::aggregate(query, stats.clone());
    let mut order: Vec<usize> = (0..paths.len()).collect();
    let score: Vec<f32> = (0..paths.len())
        .map(|i| by_path.bm25f(query, i).0)
        .collect();
    order.sort_by(|&a, &b| score[b].total_cmp(&score[a]).then(a.cmp(&b)));
    order.truncate(limit);
    order.sort_unstable();
    let chosen: Vec<&str> = order.iter().map(|&i| paths[i]).collect();
    let read = session.scan_files(LEXICAL_PASS, query.fingerprint(), &chosen, &scan);
    store.arm();
    for (i, s) in order.into_iter().zip(read) {
        stats[i] = s;
    }
    (stats, paths.len() - limit)
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
