//! Where to look inside the files (issue 48): the functions, methods and classes the
//! task most likely concerns, ranked across the best files, each with why.
//!
//! A package ranks files; a coding agent given a 3,000-line module still has to find
//! the method. The evidence is definition-level already:
//! - a stack frame's file and line fall in one definition (the innermost holding it),
//!   or the frame names its function;
//! - the task names a definition (a symbol cue);
//! - a definition is a document of its own ([`super::definitions`]): its BM25 against
//!   the task over the best of all candidates' definitions, its rank in its file, the
//!   share of the title's words it holds;
//! - its body calls a name the task writes, or a definition the task names calls it;
//! - an embedder's best definition of the file ([`crate::semantic`]);
//! - its file's rank and Location score, its size and its kind.
//!
//! These are the features of a row per definition ([`DEFINITION_FEATURES`]), ordered
//! by a learned model (`definitions.json`: LambdaMART trees, monotone in every piece
//! of evidence, trained by `benches/train_definitions.py` on the development tasks'
//! fixes, evaluated by [`crate::trees`]); the score is its calibrated probability.
//! Without a model that fits this build, a hand-set noisy-or of the evidence times
//! the file's share of the best file's score ranks them. The explanation lists the
//! evidence either way.
//!
//! Bounded by counts: every definition of the best [`FILES`] parsed files (each file's
//! definitions are capped by its facts), [`LISTED`] listed.

use std::collections::HashMap;

use serde::Serialize;

use super::ScoredFile;
use super::cues::{CueKind, ResolvedCue};
use super::definitions::{DefinitionTerms, DocumentScore, query_terms_in};
use super::lexical::Query;
use crate::facts::{DefKind, Facts, Span};

/// How many of the best ranked files' definitions are ranked.
pub(crate) const FILES: usize = 10;
/// How many definitions the list keeps.
pub const LISTED: usize = 20;
/// The share of its file's weight a definition with no evidence of its own keeps.
const FLOOR: f32 = 0.35;
/// A stack frame whose line falls in the definition, innermost frame (deeper frames
/// count [`FRAME_DECAY`] less per frame).
const IN_TRACE: f32 = 0.95;
/// A stack frame names the definition's function.
const NAMED_IN_TRACE: f32 = 0.85;
/// Each frame further from the innermost counts this much less.
const FRAME_DECAY: f32 = 0.1;
/// The task names the definition (times the cue's own weight).
const NAMED: f32 = 0.8;
/// Its BM25 share over the best definition's (times the share).
const LEXICAL: f32 = 0.7;
/// Its body calls a name the task writes.
const CALLS_NAMED: f32 = 0.3;
/// A definition the task names calls it.
const CALLED_BY_NAMED: f32 = 0.3;
/// The task names a definition enclosing it (times the cue's weight).
const ENCLOSING_NAMED: f32 = 0.2;
/// The embedder's best definition of the file (times its cosine).
const SEMANTIC: f32 = 0.5;

/// One definition the task likely concerns.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct RankedDefinition {
    /// Repository-relative path of its file.
    pub path: String,
    /// Its name within the file: enclosing definitions joined by dots
    /// (`Class.method`, `outer.inner`; a Go method is `Type.Method`).
    pub name: String,
    /// What it is.
    pub kind: DefKind,
    /// Its first and last line (1-based, inclusive).
    pub span: Span,
    /// Its score in [0, 1] (the first is not always 1: it is its file's share times
    /// its own evidence).
    pub score: f32,
    /// Why it is listed, one line per piece of evidence (empty when only its file's
    /// rank lists it).
    pub why: Vec<String>,
}

/// What [`rank`] reads of one candidate file.
pub(crate) struct FileInput<'a> {
    /// Its ranked entry.
    pub ranked: &'a ScoredFile,
    /// Its facts.
    pub facts: &'a Facts,
    /// Its definitions as documents.
    pub documents: &'a [DefinitionTerms],
    /// How each document scored against the task (empty when none was scored).
    pub shares: &'a [DocumentScore],
    /// The embedder's best definition of the file and its cosine, if any.
    pub semantic: Option<(&'a str, f32)>,
    /// The static table's cosine of each of its definitions (empty without one).
    pub table: &'a [crate::semantic::DefinitionCosine],
}

/// What the semantic evidence says of a file's definitions: the embedder's best
/// definition and its cosine, if any, and the static table's cosine of each.
pub(crate) type FileSemantics<'a> = (
    Option<(&'a str, f32)>,
    &'a [crate::semantic::DefinitionCosine],
);

/// The ranked definitions of a Location: the best [`FILES`] of `ranked` that were
/// parsed (`facts`, with their `documents` and `shares` in the same order), each
/// file's embedder match and its definitions' static-table cosines by `semantic`.
pub(crate) fn of_ranking<'a>(
    ranked: &'a [ScoredFile],
    facts: &'a [(String, std::sync::Arc<Facts>)],
    documents: &'a [std::sync::Arc<Vec<DefinitionTerms>>],
    shares: &'a [Vec<DocumentScore>],
    semantic: impl Fn(&str) -> FileSemantics<'a>,
    query: &Query,
    cues: &[ResolvedCue],
) -> (Vec<RankedDefinition>, Vec<DefinitionRow>) {
    let by_path: HashMap<&str, usize> = facts
        .iter()
        .enumerate()
        .map(|(k, (path, _))| (path.as_str(), k))
        .collect();
    let files: Vec<FileInput<'_>> = ranked
        .iter()
        .filter_map(|r| {
            let k = *by_path.get(r.path.as_str())?;
            let (embedded, table) = semantic(&r.path);
            Some(FileInput {
                ranked: r,
                facts: &facts[k].1,
                documents: documents.get(k).map_or(&[], |d| d.as_slice()),
                shares: shares.get(k).map_or(&[], Vec::as_slice),
                semantic: embedded,
                table,
            })
        })
        .take(FILES)
        .collect();
    rank(&files, query, cues)
}

/// Per file, the definition its view starts with: the first of the file's in the
/// ranked list, else the one its BM25 described best (`lexical`, by plain name).
pub(crate) fn described(
    mut lexical: HashMap<String, String>,
    ranked: &[RankedDefinition],
) -> HashMap<String, String> {
    let mut seen = std::collections::HashSet::new();
    for d in ranked {
        if seen.insert(d.path.as_str()) {
            let plain = d.name.rsplit('.').next().unwrap_or(&d.name);
            lexical.insert(d.path.clone(), plain.to_string());
        }
    }
    lexical
}

/// The features of a definition that the learned model reads, in the order of its
/// rows ([`DefinitionRow::row`]).
pub const DEFINITION_FEATURES: [&str; 22] = [
    // Its file: rank among the files whose definitions are ranked (0 = best), score
    // over the best's, and how many definitions it has.
    "file_rank",
    "file_share",
    "file_definitions",
    // The trace: a frame's line in it (by the frame's depth), a frame naming it.
    "in_trace",
    "named_in_trace",
    // The task names it (the cue's weight).
    "named",
    // Its BM25 over the best of all candidates' definitions, over the best of its
    // file's, and its rank in its file by BM25 (0 = best; the file's count when it
    // matched nothing).
    "lexical",
    "lexical_in_file",
    "lexical_rank",
    // Its body calls a name the task writes; the share of the title's words its text
    // has; a definition the task names calls it (in the same file).
    "calls_named",
    "title",
    "called_by_named",
    // The share of the words of its name that the task writes; the strongest weight
    // with which the task names a definition enclosing it (its class, its outer
    // function).
    "name_words",
    "enclosing_named",
    // An embedder's cosine, when it is the file's best definition by the embedder.
    "semantic",
    // The static table's cosine (0 without one), its difference to the file's best
    // (-1 without one), and its rank in its file by it (0 = best; the file's count
    // without one).
    "table",
    "table_in_file",
    "table_rank",
    // Its lines, its nesting depth, and whether it is a function or method, or a
    // class-like container.
    "lines",
    "depth",
    "callable",
    "container",
];

/// One definition's feature row, for training (`eval_tasks --locate --features`).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct DefinitionRow {
    /// Its file.
    pub path: String,
    /// Its name within the file ([`definition_names`]).
    pub name: String,
    /// What it is.
    pub kind: DefKind,
    /// Its lines.
    pub span: Span,
    /// Its features, in the order of [`DEFINITION_FEATURES`].
    pub row: Vec<f32>,
}

/// The committed model of the definitions' order (`definitions.json`, trained by
/// `benches/train_definitions.py`), read once; `None` when it does not fit this
/// build's features (then the hand-set weights above rank).
fn model() -> Option<&'static crate::trees::Trees> {
    static MODEL: std::sync::OnceLock<Option<crate::trees::Trees>> = std::sync::OnceLock::new();
    MODEL
        .get_or_init(|| {
            crate::trees::Trees::parse(include_str!("definitions.json"), &DEFINITION_FEATURES).ok()
        })
        .as_ref()
}

/// Ranks the definitions of `files` (best file first, as Location ranked them) by
/// the task's evidence: the learned model's probability, or the hand-set
/// combination when no model fits. Returns the best [`LISTED`] and every candidate's
/// feature row. Deterministic: ties go to the better file, then the earlier line.
pub(crate) fn rank(
    files: &[FileInput<'_>],
    query: &Query,
    cues: &[ResolvedCue],
) -> (Vec<RankedDefinition>, Vec<DefinitionRow>) {
    let top = files.iter().map(|f| f.ranked.score).fold(0.0f32, f32::max);
    if top <= 0.0 {
        return (Vec::new(), Vec::new());
    }
    let named = named_symbols(query, cues);
    let terms: std::collections::HashSet<&str> =
        query.terms.iter().map(|(t, _)| t.as_str()).collect();
    let model = model();
    let mut out: Vec<(usize, RankedDefinition)> = Vec::new();
    let mut rows = Vec::new();
    for (rank, file) in files.iter().take(FILES).enumerate() {
        let weight = (file.ranked.score / top).clamp(0.0, 1.0);
        let names = names_and_depths(file.facts);
        let frames = frames_of(&file.ranked.path, cues);
        let docs = documents_of(file.documents, file.facts);
        let scores: Vec<DocumentScore> = docs
            .iter()
            .map(|d| {
                d.and_then(|k| file.shares.get(k).copied())
                    .unwrap_or_default()
            })
            .collect();
        let shares = FileShares::of(scores.iter().map(|s| s.share));
        let frames = owners_of(&frames, file.facts);
        let refs = ByLine::of(file.facts);
        let called = called_by_named(file.facts, &refs, &named);
        let table = TableCosines::of(file.table);
        for (k, def) in file.facts.definitions.iter().enumerate() {
            let mut evidence = Evidence::default();
            let (in_trace, named_in_trace) = trace_evidence(&mut evidence, def, k, &frames);
            let named_weight = named.get(def.name.as_str()).copied().unwrap_or(0.0);
            if named_weight > 0.0 {
                evidence.add(
                    NAMED * named_weight,
                    format!("the task names `{}`", def.name),
                );
            }
            if let Some(doc) = docs[k].map(|d| &file.documents[d]) {
                lexical_evidence(&mut evidence, doc, scores[k].share, query);
            }
            let callee = calls_named(def, &refs, &named);
            if let Some(callee) = callee {
                evidence.add(
                    CALLS_NAMED,
                    format!("its body calls `{callee}`, which the task names"),
                );
            }
            let enclosing = enclosing_evidence(&mut evidence, &names[k].0, &named);
            let caller = called.get(def.name.as_str()).copied();
            if let Some(caller) = caller {
                evidence.add(
                    CALLED_BY_NAMED,
                    format!("`{caller}`, which the task names, calls it"),
                );
            }
            let (cosine, table_features) = semantic_evidence(&mut evidence, file, def, &table);
            let row = row_of(&Row {
                file: rank,
                weight,
                share: scores[k].share,
                shares: &shares,
                trace: (in_trace, named_in_trace),
                named: named_weight,
                calls_named: callee.is_some(),
                cosine,
                def,
                depth: names[k].1,
                title: scores[k].title,
                called_by_named: caller.is_some(),
                name_words: name_words(&def.name, &terms),
                enclosing_named: enclosing,
                table: table_features,
            });
            let score = match model {
                Some(m) => m.score(&row).0,
                None => weight * (FLOOR + (1.0 - FLOOR) * evidence.strength),
            };
            rows.push(DefinitionRow {
                path: file.ranked.path.clone(),
                name: names[k].0.clone(),
                kind: def.kind,
                span: def.span,
                row,
            });
            out.push((
                rank,
                RankedDefinition {
                    path: file.ranked.path.clone(),
                    name: names[k].0.clone(),
                    kind: def.kind,
                    span: def.span,
                    score,
                    why: evidence.why,
                },
            ));
        }
    }
    out.sort_by(|(ra, a), (rb, b)| {
        b.score
            .total_cmp(&a.score)
            .then(ra.cmp(rb))
            .then(a.span.start.cmp(&b.span.start))
            .then(a.name.cmp(&b.name))
    });
    (out.into_iter().take(LISTED).map(|(_, d)| d).collect(), rows)
}

/// What [`row_of`] reads of one definition.
struct Row<'a> {
    file: usize,
    weight: f32,
    share: f32,
    shares: &'a FileShares,
    trace: (f32, f32),
    named: f32,
    calls_named: bool,
    cosine: f32,
    def: &'a crate::facts::Definition,
    depth: u32,
    title: f32,
    called_by_named: bool,
    name_words: f32,
    enclosing_named: f32,
    /// `table`, `table_in_file`, `table_rank`.
    table: [f32; 3],
}

/// A definition's features, in the order of [`DEFINITION_FEATURES`].
fn row_of(r: &Row<'_>) -> Vec<f32> {
    let share = r.share;
    let best_in_file = r.shares.descending.first().copied().unwrap_or(0.0);
    let count = r.shares.descending.len();
    // Its rank in its file by BM25: how many of the file's definitions score higher.
    let lexical_rank = if share > 0.0 {
        r.shares.descending.partition_point(|&x| x > share)
    } else {
        count
    };
    let flag = |b: bool| f32::from(u8::from(b));
    vec![
        r.file as f32,
        r.weight,
        count as f32,
        r.trace.0,
        r.trace.1,
        r.named,
        share,
        if best_in_file > 0.0 {
            share / best_in_file
        } else {
            0.0
        },
        lexical_rank as f32,
        flag(r.calls_named),
        r.title,
        flag(r.called_by_named),
        r.name_words,
        r.enclosing_named,
        r.cosine,
        r.table[0],
        r.table[1],
        r.table[2],
        (r.def.span.end.saturating_sub(r.def.span.start) + 1) as f32,
        r.depth as f32,
        flag(matches!(r.def.kind, DefKind::Function | DefKind::Method)),
        flag(r.def.kind.is_type()),
    ]
}

/// A definition's semantic evidence: the embedder's cosine when it is the file's
/// best definition by the embedder (explained), and its static-table features.
fn semantic_evidence(
    evidence: &mut Evidence,
    file: &FileInput<'_>,
    def: &crate::facts::Definition,
    table: &TableCosines<'_>,
) -> (f32, [f32; 3]) {
    let mut cosine = 0.0;
    if let Some((name, c)) = file.semantic
        && crate::facts::code::last_segment(name) == def.name
        && c > 0.0
    {
        cosine = c;
        evidence.add(SEMANTIC * c, format!("semantic match ({c:.2})"));
    }
    // Features only: no learned order reads them yet, and a line for the best of
    // every file would crowd the explanations (the file's own explanation names it).
    (cosine, table.features(table.cosine(def)))
}

/// A file's definitions' static-table cosines, found by name and last line.
struct TableCosines<'a> {
    by_definition: HashMap<(&'a str, u32), f32>,
    /// Descending.
    descending: Vec<f32>,
}

impl<'a> TableCosines<'a> {
    fn of(cosines: &'a [crate::semantic::DefinitionCosine]) -> Self {
        let mut descending: Vec<f32> = cosines.iter().map(|c| c.cosine).collect();
        descending.sort_by(|a, b| b.total_cmp(a));
        TableCosines {
            by_definition: cosines
                .iter()
                .map(|c| ((&*c.name, c.end), c.cosine))
                .collect(),
            descending,
        }
    }

    fn cosine(&self, def: &crate::facts::Definition) -> Option<f32> {
        self.by_definition
            .get(&(def.name.as_str(), def.span.end))
            .copied()
    }

    /// `table`, `table_in_file`, `table_rank` of a definition with this cosine.
    fn features(&self, cosine: Option<f32>) -> [f32; 3] {
        let best = self.descending.first().copied().unwrap_or(0.0);
        match cosine {
            Some(c) => [
                c,
                c - best,
                self.descending.partition_point(|&x| x > c) as f32,
            ],
            None => [0.0, -1.0, self.descending.len() as f32],
        }
    }
}

/// The explanation of a definition's BM25 as a document of its own, with the task's
/// heaviest words it holds.
fn lexical_evidence(evidence: &mut Evidence, doc: &DefinitionTerms, share: f32, query: &Query) {
    if share > 0.0 {
        let words = query_terms_in(doc, query, 3);
        evidence.add(
            LEXICAL * share,
            format!(
                "its text matches the task ({share:.2} of the best definition's BM25): {}",
                words.join(", ")
            ),
        );
    }
}

/// A definition's evidence: the noisy-or of its pieces (the hand-set score), and
/// their explanations.
#[derive(Default)]
struct Evidence {
    strength: f32,
    why: Vec<String>,
}

impl Evidence {
    fn add(&mut self, strength: f32, why: String) {
        let strength = strength.clamp(0.0, 1.0);
        self.strength = 1.0 - (1.0 - self.strength) * (1.0 - strength);
        self.why.push(why);
    }
}

/// The names the task writes, with their strength: its symbols, and the cues that
/// name a definition (symbols, dotted paths by their last segment, exceptions).
fn named_symbols<'q>(query: &'q Query, cues: &'q [ResolvedCue]) -> HashMap<&'q str, f32> {
    let mut named: HashMap<&str, f32> = HashMap::new();
    for r in cues {
        let text = match r.cue.kind {
            CueKind::Symbol | CueKind::Exception => r.cue.text.as_str(),
            CueKind::DottedPath => r.cue.text.rsplit('.').next().unwrap_or(""),
            _ => continue,
        };
        if !text.is_empty() {
            let w = named.entry(text).or_default();
            *w = w.max(r.cue.weight);
        }
    }
    for s in &query.symbols {
        named.entry(s.as_str()).or_insert(0.5);
    }
    named
}

/// The stack frames that resolved to `path`: (line, function, depth).
fn frames_of<'c>(path: &str, cues: &'c [ResolvedCue]) -> Vec<(Option<u32>, Option<&'c str>, u32)> {
    cues.iter()
        .filter(|r| r.cue.kind == CueKind::StackFrame && r.files.iter().any(|f| f == path))
        .map(|r| (r.cue.line, r.cue.function.as_deref(), r.cue.depth))
        .collect()
}

/// The trace's evidence for definition `k`: a frame's line in it (when it is the
/// innermost definition holding that line), or a frame naming its function.
fn trace_evidence(
    evidence: &mut Evidence,
    def: &crate::facts::Definition,
    k: usize,
    frames: &[Frame<'_>],
) -> (f32, f32) {
    let decay = |depth: u32| (1.0 - FRAME_DECAY * depth as f32).max(0.3);
    let by_line = frames.iter().find(|f| f.owner == Some(k));
    if let Some(&Frame {
        line: Some(line),
        depth,
        ..
    }) = by_line
    {
        evidence.add(
            IN_TRACE * decay(depth),
            format!("named in the trace at line {line}"),
        );
        return (decay(depth), 0.0);
    }
    if let Some(&Frame { depth, .. }) = frames
        .iter()
        .find(|f| f.line.is_none() && f.function == Some(def.name.as_str()))
    {
        evidence.add(
            NAMED_IN_TRACE * decay(depth),
            format!("its function `{}` is a frame of the trace", def.name),
        );
        return (0.0, decay(depth));
    }
    (0.0, 0.0)
}

/// The innermost definition of `facts` holding `line` (the shortest span; the later
/// one on a tie).
fn innermost(facts: &Facts, line: u32) -> Option<usize> {
    facts
        .definitions
        .iter()
        .enumerate()
        .filter(|(_, d)| d.span.start <= line && line <= d.span.end)
        .min_by(|(a, x), (b, y)| {
            (x.span.end - x.span.start)
                .cmp(&(y.span.end - y.span.start))
                .then(b.cmp(a))
        })
        .map(|(k, _)| k)
}

/// Per definition of `facts`, the index of its document among `documents`: the first
/// of its name whose lines end where its own do (a document's lines start at its doc
/// comment).
fn documents_of(documents: &[DefinitionTerms], facts: &Facts) -> Vec<Option<usize>> {
    let mut by_key: HashMap<(&str, u32), usize> = HashMap::new();
    for (k, doc) in documents.iter().enumerate() {
        by_key.entry((doc.name.as_str(), doc.span.end)).or_insert(k);
    }
    facts
        .definitions
        .iter()
        .map(|d| by_key.get(&(d.name.as_str(), d.span.end)).copied())
        .collect()
}

/// A file's definitions' BM25 shares, best first: its best, and each one's rank by a
/// binary search.
struct FileShares {
    descending: Vec<f32>,
}

impl FileShares {
    fn of(shares: impl Iterator<Item = f32>) -> Self {
        let mut descending: Vec<f32> = shares.collect();
        descending.sort_by(|a, b| b.total_cmp(a));
        FileShares { descending }
    }
}

/// One stack frame of a file, with the definition its line falls in.
struct Frame<'c> {
    line: Option<u32>,
    function: Option<&'c str>,
    depth: u32,
    /// The innermost definition holding `line` (once per frame, not per definition).
    owner: Option<usize>,
}

/// The file's frames with their owners.
fn owners_of<'c>(frames: &[(Option<u32>, Option<&'c str>, u32)], facts: &Facts) -> Vec<Frame<'c>> {
    frames
        .iter()
        .map(|&(line, function, depth)| Frame {
            line,
            function,
            depth,
            owner: line.and_then(|l| innermost(facts, l)),
        })
        .collect()
}

/// The share of the words of `name` (as the lexical pass splits identifiers) that
/// are terms of the task's query.
fn name_words(name: &str, terms: &std::collections::HashSet<&str>) -> f32 {
    let (mut words, mut found) = (0u32, 0u32);
    super::lexical::tokenize(name, |t| {
        words += 1;
        found += u32::from(terms.contains(t.as_str()));
    });
    if words == 0 {
        0.0
    } else {
        found as f32 / words as f32
    }
}

/// The strongest weight with which the task names one of the enclosing definitions
/// of the definition named `in_file` ([`definition_names`]: all its segments but the
/// last), 0 when it names none; the evidence names the innermost one named.
fn enclosing_evidence(evidence: &mut Evidence, in_file: &str, named: &HashMap<&str, f32>) -> f32 {
    let mut segments: Vec<&str> = in_file.split('.').collect();
    segments.pop();
    let weight = segments
        .iter()
        .filter_map(|s| named.get(s).copied())
        .fold(0.0, f32::max);
    if let Some(outer) = segments.iter().rev().find(|s| named.contains_key(*s)) {
        evidence.add(
            ENCLOSING_NAMED * weight,
            format!("it is in `{outer}`, which the task names"),
        );
    }
    weight
}

/// A file's references by line: what a definition's lines reference is a slice.
struct ByLine<'f>(Vec<(u32, &'f str)>);

impl<'f> ByLine<'f> {
    fn of(facts: &'f Facts) -> Self {
        let mut refs: Vec<(u32, &str)> = facts
            .references
            .iter()
            .map(|r| (r.line, r.name.as_str()))
            .collect();
        refs.sort_unstable();
        ByLine(refs)
    }

    /// The references on the lines after `def`'s first, through its last.
    fn within(&self, def: &crate::facts::Definition) -> &[(u32, &'f str)] {
        let from = self.0.partition_point(|(l, _)| *l <= def.span.start);
        let to = self.0.partition_point(|(l, _)| *l <= def.span.end);
        &self.0[from..to.max(from)]
    }
}

/// A name the task writes that `def`'s lines reference, other than its own name: the
/// first by line (then by name).
fn calls_named<'f>(
    def: &crate::facts::Definition,
    refs: &ByLine<'f>,
    named: &HashMap<&str, f32>,
) -> Option<&'f str> {
    refs.within(def)
        .iter()
        .map(|(_, name)| *name)
        .find(|name| *name != def.name && named.contains_key(name))
}

/// The names the file's named definitions call (referenced within their lines), each
/// with the first such caller: a callee of what the task names.
fn called_by_named<'f>(
    facts: &'f Facts,
    refs: &ByLine<'f>,
    named: &HashMap<&str, f32>,
) -> HashMap<&'f str, &'f str> {
    let mut called: HashMap<&str, &str> = HashMap::new();
    for caller in facts
        .definitions
        .iter()
        .filter(|d| named.contains_key(d.name.as_str()))
    {
        for (_, name) in refs.within(caller) {
            if *name != caller.name {
                called.entry(name).or_insert(caller.name.as_str());
            }
        }
    }
    called
}

/// Each definition's name within its file, in the order of `facts.definitions`: its
/// enclosing definitions' names and its own, joined by dots (`Class.method`,
/// `outer.inner`). A Go method is named by its receiver's type (`Type.Method`). The
/// names the package's `definitions` list gives.
pub fn definition_names(facts: &Facts) -> Vec<String> {
    names_and_depths(facts)
        .into_iter()
        .map(|(n, _)| n)
        .collect()
}

/// [`definition_names`] with each definition's nesting depth (0 at the top level).
fn names_and_depths(facts: &Facts) -> Vec<(String, u32)> {
    let defs = &facts.definitions;
    let mut order: Vec<usize> = (0..defs.len()).collect();
    order.sort_by(|&a, &b| {
        defs[a]
            .span
            .start
            .cmp(&defs[b].span.start)
            .then(defs[b].span.end.cmp(&defs[a].span.end))
            .then(a.cmp(&b))
    });
    let mut names = vec![(String::new(), 0); defs.len()];
    // (last line, name) of the enclosing definitions: a stack whose depth is bounded
    // by the file's definitions, which are bounded by the facts' own caps.
    let mut stack: Vec<(u32, String)> = Vec::new();
    for k in order {
        let d = &defs[k];
        while stack
            .last()
            .is_some_and(|(end, _)| *end < d.span.start || *end < d.span.end)
        {
            stack.pop();
        }
        let own = match receiver_type(d) {
            Some(t) => format!("{t}.{}", d.name),
            None => d.name.clone(),
        };
        let name = match stack.last() {
            Some((_, outer)) => format!("{outer}.{own}"),
            None => own,
        };
        names[k] = (name.clone(), stack.len() as u32);
        stack.push((d.span.end, name));
    }
    names
}

/// The receiver's type of a Go method, read from its signature line
/// (`func (s *Server[T]) Serve(` → `Server`); `None` for anything else.
fn receiver_type(d: &crate::facts::Definition) -> Option<&str> {
    if d.kind != DefKind::Method {
        return None;
    }
    let rest = d
        .signature
        .strip_prefix("func")?
        .trim_start()
        .strip_prefix('(')?;
    let receiver = &rest[..rest.find(')')?];
    let ty = receiver.split_whitespace().last()?.trim_start_matches('*');
    let ty = ty.split('[').next()?;
    (!ty.is_empty() && ty.chars().all(|c| c.is_alphanumeric() || c == '_')).then_some(ty)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::facts::Definition;

    fn def(kind: DefKind, name: &str, signature: &str, start: u32, end: u32) -> Definition {
        Definition {
            kind,
            name: name.to_string(),
            qualified: None,
            signature: signature.to_string(),
            span: Span { start, end },
        }
    }

    #[test]
    fn names_join_the_enclosing_definitions_and_a_go_method_its_receiver() {
        let facts = Facts {
            definitions: vec![
                def(DefKind::Class, "Dataset", "class Dataset:", 1, 20),
                def(DefKind::Method, "copy", "def copy(self):", 2, 10),
                def(DefKind::Function, "helper", "def helper():", 4, 6),
                def(DefKind::Method, "merge", "def merge(self):", 12, 20),
                def(DefKind::Function, "free", "def free():", 22, 23),
                def(
                    DefKind::Method,
                    "Serve",
                    "func (s *Server[T]) Serve(l net.Listener) error {",
                    25,
                    30,
                ),
            ],
            ..Facts::default()
        };
        assert_eq!(
            definition_names(&facts),
            [
                "Dataset",
                "Dataset.copy",
                "Dataset.copy.helper",
                "Dataset.merge",
                "free",
                "Server.Serve"
            ]
        );
    }

    #[test]
    fn the_committed_model_fits_this_build() {
        let model = super::model().expect("definitions.json must match DEFINITION_FEATURES");
        crate::trees::tests::assert_faithful(model);
    }

    #[test]
    fn a_trace_line_points_at_the_innermost_definition_holding_it() {
        let facts = Facts {
            definitions: vec![
                def(DefKind::Class, "A", "class A:", 1, 20),
                def(DefKind::Method, "m", "def m(self):", 5, 9),
            ],
            ..Facts::default()
        };
        assert_eq!(innermost(&facts, 7), Some(1));
        assert_eq!(innermost(&facts, 12), Some(0));
        assert_eq!(innermost(&facts, 30), None);
    }
}
