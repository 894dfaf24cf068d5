//! The features of a candidate file that the learned scorer reads: Eq. 6's terms
//! taken apart (BM25 per field, every channel of s_rule, the role prior) together
//! with what describes the file and the query (size, depth, how peaked the evidence
//! is).
//!
//! Computed for the candidates only, after the Location stage has gathered all its
//! evidence. The same table is what `eval_tasks --features` writes for training.

use std::collections::{HashMap, HashSet};

use serde::Serialize;

use super::Terms;
use super::cues::{CueKind, ResolvedCue};
use super::definitions::FileDefinitions;
use super::evidence::{self, Channel, Signal};
use super::history::CoChanges;
use super::lexical::{FIELDS, Field, LexicalView, Query};
use crate::artifact::Role;
use crate::facts::Facts;
use crate::hashing::ContentMap;
use crate::resolve::{file_name, parent_dir};
use crate::session::ArtifactInfo;

/// The names of the features, in the order of every row.
pub const FEATURE_NAMES: [&str; FEATURE_COUNT] = [
    // Eq. 6's terms and its hand-weighted combination.
    "sem",
    "sum",
    "rule",
    "prior",
    "eq6",
    "eq6_ratio",
    "eq6_rank",
    "sem_rank",
    // BM25 per field, relative to the best candidate, and the query's weight covered.
    "bm25_name",
    "bm25_dir",
    "bm25_defs",
    "bm25_body",
    "cover_name",
    "cover_dir",
    "cover_defs",
    "cover_body",
    // The share of the title's query weight found in the name and directories, the
    // definitions, the body.
    "title_path",
    "title_defs",
    "title_body",
    // s_rule per channel (see `evidence::Channel::SCORED`).
    "ev_path",
    "ev_trace",
    "ev_defines",
    "ev_uses",
    "ev_other_cue",
    "ev_package",
    "ev_stem",
    "ev_name_term",
    "ev_co_change",
    "ev_test_lend",
    "ev_counterpart",
    "channels",
    "rule_rank",
    // The query's named symbols and phrases this file defines, mentions, contains.
    "symbols_defined",
    "symbols_mentioned",
    "phrases_found",
    // The file.
    "role_source",
    "role_test",
    "role_config",
    "role_build",
    "role_docs",
    "role_schema",
    "role_script",
    "role_example",
    "role_other",
    "depth",
    "log_size",
    "language_share",
    "name_shared",
    // The neighbourhood among the candidates: in the best candidate's directory, how
    // many candidates share the file's directory.
    "same_dir_as_best",
    "dir_candidates",
    // Code links among the candidates (their tree-sitter facts): the strongest s_rule
    // of a candidate that uses what this file defines, of one whose definitions this
    // file uses, and how many candidates use what it defines.
    "used_by_strong",
    "uses_strong",
    "used_by_candidates",
    // The file defines what the body of a symbol the task names calls (the callees of
    // the named function or class, where the fix often lies), weighted by the s_rule
    // of the file that defines the named symbol.
    "callee_of_named",
    // The history (0 without one): how surely the file changes when one of the three
    // best candidates by Eq. 6 does.
    "co_change_best",
    // Definitions as documents (`locate::definitions`): the file's best definition's
    // BM25 over the best of all candidates' definitions, how many of its definitions
    // match (ln 1+n), the share of the title's query weight its best one holds.
    "def_best",
    "def_matching",
    "def_title",
    // A past commit whose message matches the task changed the file (history; not
    // part of s_rule, see `evidence::Channel::PastChange`).
    "ev_past_change",
    // The query.
    "ambiguity",
    "log_files",
    "query_terms",
    "query_symbols",
    "has_trace",
    // The vocabulary bridge (`locate::bridge`): the file's BM25 of the task's expansion
    // into code terms over the best file's, and its rank by it among the candidates.
    "bridge",
    "bridge_rank",
    // An embedder's similarity (`semantic`; all 0 without one): the cosine of the
    // file's best definition with the task, the mean of its three best, and its rank
    // among the candidates by the best (ln 1+rank; the files not embedded rank last).
    "emb_best",
    "emb_top3",
    "emb_rank",
    // The static table's similarity (`semantic::static_table`, issue 47; in the default
    // path): the same three, over the candidates with facts.
    "tab_best",
    "tab_top3",
    "tab_rank",
    // The past changes whose messages the static table finds close to the task
    // (`past_changes::semantic`; 0 without a history): the best standard score of a
    // commit that changed the file, and what the best commits lend it.
    "tab_past_best",
    "tab_past",
];

/// How many features a row has.
pub const FEATURE_COUNT: usize = 74;

/// The feature rows of the candidates of one query.
#[derive(Debug, Clone, Default, Serialize)]
pub struct FeatureTable {
    /// Per candidate, in the order scored: its path and its row (see
    /// [`FEATURE_NAMES`]).
    pub rows: Vec<(String, Vec<f32>)>,
}

/// What the Location stage knows when the features are computed, indexed like the
/// artifacts.
pub(crate) struct Inputs<'a> {
    pub artifacts: &'a [ArtifactInfo],
    pub view: &'a LexicalView,
    pub query: &'a Query,
    pub terms: &'a [Terms],
    pub scores: &'a [f32],
    pub evidence: &'a [Vec<Signal>],
    pub cues: &'a [ResolvedCue],
    pub ambiguity: f32,
    /// Per query term, whether it is a term of the task's title.
    pub title: &'a [bool],
    /// The tree-sitter facts of the files that have them, by artifact index.
    pub facts: &'a HashMap<usize, &'a Facts>,
    /// The history's co-change links (empty without a history).
    pub co_changes: &'a CoChanges,
    /// What the candidates' definitions say of the task, by artifact index.
    pub definitions: &'a HashMap<usize, FileDefinitions>,
    /// Per file, the bridge's score over the best file's (all 0 without a bridge).
    pub bridge: &'a [f32],
    /// What an embedder says of the best candidates, by artifact index (empty
    /// without one).
    pub semantic: &'a HashMap<usize, crate::semantic::FileSimilarity>,
    /// What the static table says of the candidates with facts, by artifact index.
    pub table: &'a HashMap<usize, crate::semantic::FileSimilarity>,
    /// What the static table says of the past changes, by artifact index (empty
    /// without a history).
    pub table_past: &'a HashMap<usize, super::past_changes::SemanticPast>,
}

/// How many of the best candidates the co-change feature looks from.
const CO_CHANGE_FROM: usize = 3;

/// The rows of `candidates` (artifact indexes, best first by Eq. 6).
pub(crate) fn compute(inputs: &Inputs<'_>, candidates: &[usize]) -> Vec<Vec<f32>> {
    let context = RowContext::new(inputs, candidates);
    candidates
        .iter()
        .zip(&context.fields)
        .map(|(&i, (score, covered))| {
            let mut row = Vec::with_capacity(FEATURE_COUNT);
            context.scores(&mut row, i, score, covered);
            context.evidence(&mut row, i);
            context.file(&mut row, i);
            context.beyond_words(&mut row, i);
            debug_assert_eq!(row.len(), FEATURE_COUNT);
            row
        })
        .collect()
}

/// `ln(1 + x)`.
fn ln1(x: f32) -> f32 {
    (1.0 + x).ln()
}

/// `found` of `of`, 0 of nothing.
fn share(found: usize, of: usize) -> f32 {
    if of == 0 {
        0.0
    } else {
        found as f32 / of as f32
    }
}

/// What every row of one query reads: the candidates' ranks, their directories,
/// their links, the best field matches, the repository's languages and names.
struct RowContext<'a> {
    inputs: &'a Inputs<'a>,
    eq6_rank: HashMap<usize, usize>,
    sem_rank: HashMap<usize, usize>,
    rule_rank: HashMap<usize, usize>,
    bridge_rank: HashMap<usize, usize>,
    emb_rank: HashMap<usize, usize>,
    tab_rank: HashMap<usize, usize>,
    title_weight: f32,
    per_dir: HashMap<&'a str, usize>,
    best_dir: Option<&'a str>,
    links: HashMap<usize, Links>,
    /// The best candidates, whose co-change with a candidate counts.
    best: Vec<usize>,
    top: f32,
    /// Per candidate, its field match scores and coverage.
    fields: Vec<([f32; FIELDS], [f32; FIELDS])>,
    best_field: [f32; FIELDS],
    languages: HashMap<crate::artifact::Language, usize>,
    /// Per candidate's file name, how many listed files have it.
    names: ContentMap<&'a str, usize>,
    has_trace: bool,
}

impl<'a> RowContext<'a> {
    fn new(inputs: &'a Inputs<'a>, candidates: &[usize]) -> Self {
        let rank_of = |values: &[f32]| -> HashMap<usize, usize> {
            // Rank among the candidates: how many score strictly higher (0 for the
            // best), so that equal files get equal ranks whatever their order.
            let mut sorted: Vec<f32> = candidates.iter().map(|&i| values[i]).collect();
            sorted.sort_by(|a, b| b.total_cmp(a));
            candidates
                .iter()
                .map(|&i| (i, sorted.partition_point(|&v| v > values[i])))
                .collect()
        };
        let sem: Vec<f32> = inputs.terms.iter().map(|t| t.sem).collect();
        let rule: Vec<f32> = inputs.terms.iter().map(|t| t.rule).collect();
        let mut per_dir: HashMap<&str, usize> = HashMap::new();
        for &i in candidates {
            *per_dir
                .entry(parent_dir(&inputs.artifacts[i].path))
                .or_default() += 1;
        }
        let fields: Vec<([f32; FIELDS], [f32; FIELDS])> = candidates
            .iter()
            .map(|&i| inputs.view.field_match(inputs.query, i))
            .collect();
        let mut best_field = [0.0f32; FIELDS];
        for (score, _) in &fields {
            for f in 0..FIELDS {
                best_field[f] = best_field[f].max(score[f]);
            }
        }
        let mut languages: HashMap<_, usize> = HashMap::new();
        // How many files share a candidate's name: counted for the candidates' names
        // only (a row is asked of candidates alone), not a map of every name.
        let mut names: ContentMap<&str, usize> = candidates
            .iter()
            .map(|&i| (file_name(&inputs.artifacts[i].path), 0))
            .collect();
        for a in inputs.artifacts {
            *languages.entry(a.language).or_default() += 1;
            if let Some(count) = names.get_mut(file_name(&a.path)) {
                *count += 1;
            }
        }
        RowContext {
            inputs,
            eq6_rank: rank_of(inputs.scores),
            sem_rank: rank_of(&sem),
            rule_rank: rank_of(&rule),
            bridge_rank: rank_of(inputs.bridge),
            emb_rank: semantic_rank(inputs.semantic, candidates),
            tab_rank: semantic_rank(inputs.table, candidates),
            title_weight: query_weight(inputs.query, inputs.title, |_| true),
            per_dir,
            best_dir: candidates
                .first()
                .map(|&i| parent_dir(&inputs.artifacts[i].path)),
            links: code_links(inputs, candidates),
            best: candidates.iter().copied().take(CO_CHANGE_FROM).collect(),
            top: candidates
                .iter()
                .map(|&i| inputs.scores[i])
                .fold(0.0f32, f32::max)
                .max(1e-6),
            fields,
            best_field,
            languages,
            names,
            has_trace: inputs
                .cues
                .iter()
                .any(|r| r.cue.kind == CueKind::StackFrame),
        }
    }

    /// Eq. 6's terms and score, its ranks, and how the file matches the query per
    /// field and in the task's title.
    fn scores(&self, row: &mut Vec<f32>, i: usize, score: &[f32; FIELDS], covered: &[f32; FIELDS]) {
        let inputs = self.inputs;
        let t = inputs.terms[i];
        row.extend([
            t.sem,
            t.sum,
            t.rule,
            t.prior,
            inputs.scores[i],
            inputs.scores[i] / self.top,
            ln1(self.eq6_rank[&i] as f32),
            ln1(self.sem_rank[&i] as f32),
        ]);
        for (s, best) in score.iter().zip(&self.best_field) {
            row.push(if *best > 0.0 { s / best } else { 0.0 });
        }
        row.extend(covered.iter().copied());
        let stats = &inputs.view.files[i];
        let title_share = |fields: &[usize]| {
            let found = query_weight(inputs.query, inputs.title, |t| {
                fields.iter().any(|&f| stats.counts.get(t)[f] > 0)
            });
            if self.title_weight > 0.0 {
                found / self.title_weight
            } else {
                0.0
            }
        };
        row.extend([
            title_share(&[Field::Name as usize, Field::Dir as usize]),
            title_share(&[Field::Defs as usize]),
            title_share(&[Field::Body as usize]),
        ]);
    }

    /// The strongest signal of each channel of s_rule, how many channels speak, the
    /// rank by s_rule, and the share of the task's symbols and phrases the file has.
    fn evidence(&self, row: &mut Vec<f32>, i: usize) {
        let (query, stats) = (self.inputs.query, &self.inputs.view.files[i]);
        let signals = &self.inputs.evidence[i];
        let channels: Vec<f32> = Channel::SCORED
            .iter()
            .map(|&c| evidence::strongest(signals, c))
            .collect();
        let present = channels.iter().filter(|&&s| s > 0.0).count();
        row.extend(channels);
        row.push(present as f32);
        row.push(ln1(self.rule_rank[&i] as f32));
        row.extend([
            share(stats.defines.len(), query.symbols.len()),
            share(stats.mentions.len(), query.symbols.len()),
            share(stats.phrases.len(), query.phrases.len()),
        ]);
    }

    /// The file itself: its role, depth, size, language and name's frequency, its
    /// directory among the candidates', its code links and its co-change with the
    /// best candidates.
    fn file(&self, row: &mut Vec<f32>, i: usize) {
        let a = &self.inputs.artifacts[i];
        let n = self.inputs.artifacts.len();
        let co_change_best = self
            .best
            .iter()
            .filter(|&&b| b != i)
            .filter_map(|&b| self.inputs.co_changes.get(&(b as u32, i as u32)))
            .copied()
            .fold(0.0f32, f32::max);
        let links = &self.links[&i];
        row.extend(Role::ALL.iter().map(|&r| f32::from(u8::from(a.role == r))));
        row.extend([
            a.path.matches('/').count() as f32,
            ln1(a.size as f32),
            share(self.languages[&a.language], n),
            ln1(self.names[file_name(&a.path)] as f32 - 1.0),
            f32::from(u8::from(self.best_dir == Some(parent_dir(&a.path)))),
            ln1(self.per_dir[parent_dir(&a.path)] as f32 - 1.0),
            links.used_by_strong,
            links.uses_strong,
            ln1(links.used_by as f32),
            links.callee_of_named,
            co_change_best,
        ]);
    }

    /// Evidence beyond the task's words (definitions as documents, past changes, the
    /// vocabulary bridge) and the query's own shape.
    fn beyond_words(&self, row: &mut Vec<f32>, i: usize) {
        let inputs = self.inputs;
        let (query, n) = (inputs.query, inputs.artifacts.len());
        let defs = inputs.definitions.get(&i);
        row.extend([
            defs.map_or(0.0, |d| d.best),
            ln1(defs.map_or(0, |d| d.matching) as f32),
            defs.map_or(0.0, |d| d.title_cover),
            evidence::strongest(&inputs.evidence[i], Channel::PastChange),
            inputs.ambiguity,
            ln1(n as f32),
            ln1(query.terms.len() as f32),
            ln1(query.symbols.len() as f32),
            f32::from(u8::from(self.has_trace)),
            inputs.bridge[i],
            ln1(self.bridge_rank[&i] as f32),
        ]);
        for (by_file, ranks) in [
            (inputs.semantic, &self.emb_rank),
            (inputs.table, &self.tab_rank),
        ] {
            let similarity = by_file.get(&i);
            row.extend([
                similarity.map_or(0.0, |s| s.best),
                similarity.map_or(0.0, |s| s.top3),
                match similarity {
                    Some(_) => ln1(ranks[&i] as f32),
                    None if by_file.is_empty() => 0.0,
                    None => ln1(by_file.len() as f32),
                },
            ]);
        }
        let past = inputs.table_past.get(&i).copied().unwrap_or_default();
        row.extend([past.best, past.lent]);
    }
}

/// Rank among the embedded candidates (by an embedder or the table) by their best
/// definition's cosine: how many
/// score strictly higher (0 for the best), equal files equal ranks.
fn semantic_rank(
    semantic: &HashMap<usize, crate::semantic::FileSimilarity>,
    candidates: &[usize],
) -> HashMap<usize, usize> {
    let mut sorted: Vec<f32> = candidates
        .iter()
        .filter_map(|i| semantic.get(i).map(|s| s.best))
        .collect();
    sorted.sort_by(|a, b| b.total_cmp(a));
    candidates
        .iter()
        .filter_map(|i| {
            let best = semantic.get(i)?.best;
            Some((*i, sorted.partition_point(|&v| v > best)))
        })
        .collect()
}

/// A name shorter than this links nothing (`get`, `run`, `id`).
const MIN_LINK_NAME: usize = 4;
/// A name defined by more candidates than this links nothing either.
const MAX_DEFINERS: usize = 2;

/// How one candidate is linked to the others by code.
#[derive(Debug, Default, Clone, Copy)]
struct Links {
    used_by_strong: f32,
    uses_strong: f32,
    used_by: usize,
    callee_of_named: f32,
}

/// Per candidate, its code links with the other candidates: a candidate uses another
/// when it references a name the other defines (a distinctive name: long enough,
/// defined by at most [`MAX_DEFINERS`] candidates).
fn code_links(inputs: &Inputs<'_>, candidates: &[usize]) -> HashMap<usize, Links> {
    let mut definers: HashMap<&str, Vec<usize>> = HashMap::new();
    for &i in candidates {
        let Some(facts) = inputs.facts.get(&i) else {
            continue;
        };
        let mut names: Vec<&str> = facts
            .definitions
            .iter()
            .map(|d| d.name.as_str())
            .filter(|n| n.len() >= MIN_LINK_NAME && !n.starts_with("__"))
            .collect();
        names.sort_unstable();
        names.dedup();
        for name in names {
            definers.entry(name).or_default().push(i);
        }
    }
    let mut links: HashMap<usize, Links> =
        candidates.iter().map(|&i| (i, Links::default())).collect();
    let named: HashSet<&str> = inputs
        .cues
        .iter()
        .filter_map(|r| match r.cue.kind {
            CueKind::StackFrame => r.cue.function.as_deref(),
            _ => super::stage::cue_symbol(&r.cue),
        })
        .map(|name| name.rsplit(['.', ':']).next().unwrap_or(name))
        .collect();
    for &user in candidates {
        let Some(facts) = inputs.facts.get(&user) else {
            continue;
        };
        let defining = |names: &mut dyn Iterator<Item = &str>| -> Vec<usize> {
            let mut found: Vec<usize> = names
                .filter_map(|name| definers.get(name))
                .filter(|d| d.len() <= MAX_DEFINERS)
                .flatten()
                .copied()
                .filter(|&d| d != user)
                .collect();
            found.sort_unstable();
            found.dedup();
            found
        };
        let used = defining(&mut facts.references.iter().map(|r| r.name.as_str()));
        // What the bodies of the named symbols defined here refer to.
        let bodies: Vec<(u32, u32)> = facts
            .definitions
            .iter()
            .filter(|d| named.contains(d.name.as_str()))
            .map(|d| (d.span.start, d.span.end))
            .collect();
        if !bodies.is_empty() {
            let callees = defining(
                &mut facts
                    .references
                    .iter()
                    .filter(|r| bodies.iter().any(|&(a, b)| (a..=b).contains(&r.line)))
                    .map(|r| r.name.as_str()),
            );
            let strength = inputs.terms[user].rule;
            for callee in callees {
                let l = links.entry(callee).or_default();
                l.callee_of_named = l.callee_of_named.max(strength);
            }
        }
        for defined in used {
            let user_rule = inputs.terms[user].rule;
            let defined_rule = inputs.terms[defined].rule;
            let l = links.entry(defined).or_default();
            l.used_by += 1;
            l.used_by_strong = l.used_by_strong.max(user_rule);
            let u = links.entry(user).or_default();
            u.uses_strong = u.uses_strong.max(defined_rule);
        }
    }
    links
}

/// The query weight of the title's terms that pass `found` (term index).
fn query_weight(query: &Query, title: &[bool], found: impl Fn(usize) -> bool) -> f32 {
    query
        .terms
        .iter()
        .enumerate()
        .filter(|&(t, _)| title.get(t).copied().unwrap_or(false) && found(t))
        .map(|(_, (_, w))| *w)
        .sum()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_unique_and_cover_every_channel() {
        let mut names = FEATURE_NAMES.to_vec();
        names.sort_unstable();
        names.dedup();
        assert_eq!(names.len(), FEATURE_COUNT);
        for c in Channel::SCORED {
            let name = format!("ev_{}", c.name());
            assert!(FEATURE_NAMES.contains(&name.as_str()), "{name}");
        }
        assert_eq!(Role::ALL.len(), 9);
    }
}
