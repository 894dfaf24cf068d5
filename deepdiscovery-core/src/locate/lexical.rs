//! The cheap lexical view of the Location stage: a code-aware tokenizer and a
//! single streaming pass over every text file that counts only what the query needs.
//!
//! No index is built: the task's terms and cue strings are known before the pass, so
//! each file is tokenized once and only the counts of query terms (per field), the
//! field lengths, the identifiers written on definition-like lines that the task
//! names, and the cue strings the file contains are kept. That is everything BM25F
//! (s_sem of Eq. 6) and cue resolution need, in memory proportional to
//! files × query terms.
//!
//! BM25F rather than the `bm25` crate: Eq. 6 scores the *metadata view* of a file, so
//! the file name, its directory and its definition names must weigh more than its
//! body; the crate scores one flat text per document, keeps a copy of every document
//! and needs the whole corpus indexed first, which is what this pass avoids.

use std::collections::{HashMap, HashSet};
use std::sync::Arc;

use aho_corasick::{AhoCorasick, MatchKind};

use crate::hashing::ContentMap;
use crate::hashing::word_hash_bytes;
pub use crate::hashing::{WordMap, word_hash};

use super::index_codec::IndexView;
use super::path_words::PathWords;
use super::tokens::{Token, is_identifier, tokenize_into, tokenize_word, word_runs};
pub(crate) use super::tokens::{tokenize, words};

/// Fields of a file's lexical view.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Field {
    /// The file name without extension (`separable` of `modeling/separable.py`).
    Name = 0,
    /// The directories of the path.
    Dir = 1,
    /// Identifiers on definition-like lines (`def x`, `class X`, `func X`…).
    Defs = 2,
    /// Everything in the file.
    Body = 3,
}

/// How many fields a file has.
pub const FIELDS: usize = 4;
/// BM25F field weights: a match in the file name or a definition says more than one
/// in the body.
const FIELD_WEIGHT: [f32; FIELDS] = [4.0, 2.0, 3.0, 1.0];
/// BM25F length normalization per field.
const FIELD_B: [f32; FIELDS] = [0.3, 0.3, 0.5, 0.9];
const K1: f32 = 1.2;
/// Only the first bytes of a file are tokenized for the body (generated or data
/// files can be huge; their head says what they are).
pub const MAX_BODY_BYTES: usize = 512 * 1024;

/// The identifiers of `phrase` that any text containing the phrase holds whole, as
/// [`identifiers`] cuts that text: those with a separator on both sides inside the
/// phrase (a word at either end may continue in the text around it).
fn whole_identifiers(phrase: &str) -> Vec<&str> {
    let is_word = |b: u8| b.is_ascii_alphanumeric() || b == b'_';
    let bytes = phrase.as_bytes();
    let mut out = Vec::new();
    let mut start = None;
    for (i, &b) in bytes.iter().enumerate() {
        match (is_word(b), start) {
            (true, None) => start = Some(i),
            (false, Some(s)) => {
                // `s > 0`: a separator precedes the word inside the phrase.
                if s > 0 && !bytes[s].is_ascii_digit() {
                    out.push(&phrase[s..i]);
                }
                start = None;
            }
            _ => {}
        }
    }
    out
}

/// Keywords after which a line defines the next identifier.
const DEF_KEYWORDS: &[&str] = &[
    "def",
    "class",
    "function",
    "func",
    "fn",
    "struct",
    "interface",
    "enum",
    "trait",
    "type",
    "module",
    "object",
    "record",
    "union",
    "typedef",
    "namespace",
    "impl",
    "macro_rules",
];
/// Modifiers skipped before a definition keyword or name.
const MODIFIERS: &[&str] = &[
    "pub",
    "public",
    "private",
    "protected",
    "internal",
    "static",
    "final",
    "abstract",
    "async",
    "export",
    "default",
    "const",
    "let",
    "var",
    "val",
    "open",
    "override",
    "sealed",
    "data",
    "inline",
    "virtual",
    "extern",
    "unsafe",
    "crate",
    "partial",
    "readonly",
    "declare",
    "suspend",
];

/// The identifier a line defines, read lexically: `def name(`, `class Name`,
/// `func (r *T) Name(`, `export const name =`, `NAME = …` at column 0.
pub fn defined_name(line: &str) -> Option<&str> {
    let at_column_zero = !line.starts_with([' ', '\t']);
    let trimmed = line.trim_start();
    let mut rest = trimmed;
    let mut saw_keyword = false;
    let mut after_modifier = false;
    loop {
        let word_end = rest
            .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
            .unwrap_or(rest.len());
        let word = &rest[..word_end];
        if word.is_empty() {
            // Go method receivers `func (r *T) Name(` and Rust `pub(crate) fn`.
            if (saw_keyword || after_modifier) && rest.starts_with('(') {
                let close = rest.find(')')?;
                rest = rest[close + 1..].trim_start();
                continue;
            }
            return None;
        }
        let after = rest[word_end..].trim_start();
        after_modifier = false;
        if MODIFIERS.contains(&word) {
            rest = after;
            after_modifier = true;
            continue;
        }
        if DEF_KEYWORDS.contains(&word) {
            saw_keyword = true;
            rest = after;
            continue;
        }
        if saw_keyword {
            return Some(word);
        }
        // `NAME = …` / `name := …` at column zero: a module-level binding.
        if at_column_zero
            && (after.starts_with('=') && !after.starts_with("==") || after.starts_with(":="))
        {
            return Some(word);
        }
        return None;
    }
}

/// What the task asks the pass to look for.
#[derive(Debug, Default)]
pub struct Query {
    /// Normalized query terms with their weights (1 + ln of their count in the task,
    /// times any emphasis, see [`Query::emphasize`]).
    pub terms: Vec<(String, f32)>,
    /// Identifiers whose definitions and mentions are wanted (exact, case-sensitive).
    pub symbols: Vec<String>,
    /// Strings whose presence is wanted (config keys, routes, messages), exact.
    pub phrases: Vec<String>,
    /// Code terms the task's terms translate to (the vocabulary bridge,
    /// [`super::bridge`]), sorted by term, none of them one of `terms`: counted by the
    /// pass after the terms (`FileStats::counts.get(terms.len() + j)`), scored apart
    /// ([`LexicalView::bridge`]).
    pub expansion: Vec<crate::bridge::Expansion>,
}

impl Query {
    /// A hash of everything the pass looks for: equal fingerprints, equal per-file
    /// results.
    pub fn fingerprint(&self) -> u64 {
        let mut hasher = xxhash_rust::xxh3::Xxh3::new();
        for (term, _) in &self.terms {
            hasher.update(term.as_bytes());
            hasher.update(&[0]);
        }
        for e in &self.expansion {
            hasher.update(&[2]);
            hasher.update(e.term.as_bytes());
        }
        for list in [&self.symbols, &self.phrases] {
            hasher.update(&[1]);
            for s in list {
                hasher.update(s.as_bytes());
                hasher.update(&[0]);
            }
        }
        hasher.digest()
    }

    /// The query of a task text plus the cue strings to look for.
    pub fn new(text: &str, symbols: Vec<String>, phrases: Vec<String>) -> Query {
        let mut counts: HashMap<String, usize> = HashMap::new();
        tokenize(text, |t| *counts.entry(t).or_default() += 1);
        let mut terms: Vec<(String, f32)> = counts
            .into_iter()
            .map(|(t, n)| (t, 1.0 + (n as f32).ln()))
            .collect();
        terms.sort_by(|a, b| a.0.cmp(&b.0));
        let mut symbols = symbols;
        symbols.sort();
        symbols.dedup();
        let mut phrases = phrases;
        phrases.retain(|p| p.len() >= 3);
        phrases.sort();
        phrases.dedup();
        Query {
            terms,
            symbols,
            phrases,
            expansion: Vec::new(),
        }
    }

    /// Expands the query with the code terms its terms translate to (after any
    /// emphasis: a title's words lend more).
    pub fn expand(&mut self, bridge: &crate::bridge::Bridge) {
        self.expansion = bridge.expand(&self.terms);
    }

    /// How many terms the pass counts: the task's and the expansion's.
    pub fn counted_terms(&self) -> usize {
        self.terms.len() + self.expansion.len()
    }

    /// Multiplies the weight of every term that `text` contains by `factor` (the
    /// terms of a task's title).
    pub fn emphasize(&mut self, text: &str, factor: f32) {
        let mut wanted: HashSet<String> = HashSet::new();
        tokenize(text, |t| {
            wanted.insert(t);
        });
        for (term, weight) in &mut self.terms {
            if wanted.contains(term.as_str()) {
                *weight *= factor;
            }
        }
    }
}

/// The query-term counts of one file per field, sparse: only the terms the file
/// holds, sorted by term. A file holds a few of a query's terms, and a dense table
/// of every term for every file grew with the repository times the query (the
/// bridge's expansion made that 40 MiB at 25k files).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct TermCounts(Vec<(u32, [u16; FIELDS])>);

impl TermCounts {
    /// Term `t`'s counts per field (zeros when the file does not hold it).
    pub fn get(&self, t: usize) -> [u16; FIELDS] {
        match self.0.binary_search_by_key(&t, |(term, _)| *term as usize) {
            Ok(k) => self.0[k].1,
            Err(_) => [0; FIELDS],
        }
    }

    /// The terms the file holds, with their counts, by term.
    pub fn iter(&self) -> impl Iterator<Item = (usize, &[u16; FIELDS])> {
        self.0.iter().map(|(t, c)| (*t as usize, c))
    }

    /// Term `t`'s counts, to be written (zeros when new).
    pub(super) fn entry(&mut self, t: u32) -> &mut [u16; FIELDS] {
        let k = match self.0.binary_search_by_key(&t, |(term, _)| *term) {
            Ok(k) => k,
            Err(k) => {
                self.0.insert(k, (t, [0; FIELDS]));
                k
            }
        };
        &mut self.0[k].1
    }
}

/// What the pass kept of one file.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct FileStats {
    /// Query-term counts per field: `counts.get(term)[field]`.
    pub counts: TermCounts,
    /// Token count of each field.
    pub lengths: [u32; FIELDS],
    /// Indexes (into `Query::symbols`) of symbols this file defines lexically.
    pub defines: Vec<u32>,
    /// The part of `defines` defined at column zero: module-level functions, classes
    /// and bindings, not the methods nested in a class.
    pub defines_top: Vec<u32>,
    /// Indexes (into `Query::symbols`) of symbols this file mentions.
    pub mentions: Vec<u32>,
    /// Indexes (into `Query::phrases`) of phrases this file contains.
    pub phrases: Vec<u32>,
    /// [`word_hash`] of every identifier the file writes (case-sensitive), sorted and
    /// deduplicated: which names a file mentions, without its text (the graph's
    /// scope is grown from it).
    pub words: Arc<[u32]>,
}

/// The result of the pass over all files.
#[derive(Debug, Default)]
pub struct LexicalView {
    /// Per file, in the order given.
    pub files: Vec<Arc<FileStats>>,
    /// Document frequency of each query term.
    pub df: Vec<u32>,
    /// Average length of each field over the files.
    pub avg_len: [f32; FIELDS],
}

/// Scans files: `paths` in a fixed order, each read with `read` inside the parallel
/// pass (no file's text outlives its scan); the result does not depend on the thread
/// count. A file `read` cannot give is scanned by its path alone. (The Location
/// stage runs the same pass through the session, which keeps per-file results.)
#[cfg(test)]
pub fn scan(
    query: &Query,
    paths: &[&str],
    read: &(dyn Fn(&str) -> Option<String> + Sync),
) -> LexicalView {
    use rayon::prelude::*;
    let scanner = Scanner::new(query);
    let stats: Vec<Arc<FileStats>> = paths
        .par_iter()
        .map(|path| Arc::new(scanner.scan_file(path, read(path).as_deref().unwrap_or(""))))
        .collect();
    aggregate(query, stats)
}

/// The per-file part of the pass, prepared once per query: what one file's text
/// gives depends on the query and that text alone (so it can be kept per file).
pub struct Scanner<'q> {
    pub(super) term_index: WordMap<&'q [u8], u32>,
    pub(super) symbol_index: WordMap<&'q [u8], u32>,
    pub(super) phrases: Option<AhoCorasick>,
    /// Per phrase, the identifiers it holds whole (see [`whole_identifiers`]).
    pub(super) phrase_identifiers: Vec<Vec<&'q str>>,
}

impl<'q> Scanner<'q> {
    /// A scanner for `query`.
    pub fn new(query: &'q Query) -> Self {
        Scanner {
            term_index: query
                .terms
                .iter()
                .map(|(t, _)| t.as_bytes())
                .chain(query.expansion.iter().map(|e| e.term.as_bytes()))
                .enumerate()
                .map(|(i, t)| (t, i as u32))
                .collect(),
            symbol_index: query
                .symbols
                .iter()
                .enumerate()
                .map(|(i, s)| (s.as_bytes(), i as u32))
                .collect(),
            phrases: AhoCorasick::builder()
                .match_kind(MatchKind::Standard)
                .build(&query.phrases)
                .ok(),
            phrase_identifiers: query.phrases.iter().map(|p| whole_identifiers(p)).collect(),
        }
    }

    /// Whether a file with this index may contain one of the query's phrases: false
    /// only when each phrase holds an identifier whole that the file never writes
    /// (an occurrence of the phrase would write it, whole, in the file). Lets a pass
    /// with a cached index skip reading the file for the phrases.
    pub fn may_find_phrases(&self, index: &IndexView<'_>) -> bool {
        self.phrases.is_some()
            && self
                .phrase_identifiers
                .iter()
                .any(|needed| needed.iter().all(|w| index.idents.binary_search(w).is_ok()))
    }

    /// [`Scanner::scan_file`] from the file's [`FileIndex`] (its tokens counted
    /// once, for any query) and its text (for the phrases alone): equal to
    /// `scan_file(path, text)` when `index` is `FileIndex::of(text)`.
    pub fn scan_indexed(&self, path: &str, index: &IndexView<'_>, text: &str) -> FileStats {
        let mut stats = FileStats::default();
        let filter = TermFilter::new(self.term_index.keys());
        let symbol_filter = TermFilter::new(self.symbol_index.keys());
        count_path(path, &filter, &self.term_index, &mut stats);
        stats.lengths[Field::Defs as usize] += index.defs_len;
        stats.lengths[Field::Body as usize] += index.body_len;
        for (token, defs, body) in &index.tokens {
            if filter.may_contain(token.as_bytes())
                && let Some(&t) = self.term_index.get(token.as_bytes())
            {
                // Counting one by one saturates at u16::MAX: the same as the minimum.
                let c = stats.counts.entry(t);
                c[Field::Defs as usize] = (*defs).min(u16::MAX as u32) as u16;
                c[Field::Body as usize] = (*body).min(u16::MAX as u32) as u16;
            }
        }
        let mut defines: HashSet<u32> = HashSet::new();
        let mut defines_top: HashSet<u32> = HashSet::new();
        for (name, top) in &index.defs {
            if let Some(&s) = self.symbol_index.get(name.as_bytes()) {
                defines.insert(s);
                if *top {
                    defines_top.insert(s);
                }
            }
        }
        let mut mentions: HashSet<u32> = HashSet::new();
        let mut words: Vec<u32> = Vec::with_capacity(index.idents.len());
        for ident in &index.idents {
            words.push(word_hash(ident));
            if symbol_filter.may_contain(ident.as_bytes())
                && let Some(&s) = self.symbol_index.get(ident.as_bytes())
            {
                mentions.insert(s);
            }
        }
        if let Some(matcher) = &self.phrases {
            stats.phrases = find_phrases(matcher, body_of(text));
        }
        stats.defines = sorted(defines);
        stats.defines_top = sorted(defines_top);
        stats.mentions = sorted(mentions);
        words.sort_unstable();
        words.dedup();
        stats.words = words.into();
        stats
    }

    /// [`Scanner::scan_file`] of each path whose words `words` holds (tokenized once
    /// per listing) with no text (the path alone), each directory run's words
    /// counted once for its files: the ranking by path of a listing of a million
    /// files.
    pub(crate) fn scan_path_words(&self, words: &PathWords) -> Vec<Arc<FileStats>> {
        let filter = TermFilter::new(self.term_index.keys());
        let d = Field::Dir as usize;
        let mut last_run: Option<(u32, FileStats)> = None;
        let mut out = Vec::with_capacity(words.len());
        for i in 0..words.len() {
            let mut stats = FileStats::default();
            for word in words.stem(i) {
                count_token(Field::Name, word, &filter, &self.term_index, &mut stats);
            }
            let run = words.run_of(i);
            let dir_stats = match &last_run {
                Some((seen, counted)) if *seen == run => counted,
                _ => {
                    let mut counted = FileStats::default();
                    for word in words.dir(run) {
                        count_token(Field::Dir, word, &filter, &self.term_index, &mut counted);
                    }
                    &last_run.insert((run, counted)).1
                }
            };
            stats.lengths[d] += dir_stats.lengths[d];
            for (t, counts) in dir_stats.counts.iter() {
                stats.counts.entry(t as u32)[d] = counts[d];
            }
            out.push(Arc::new(stats));
        }
        out
    }

    /// What the pass keeps of one file (`text` empty: the path alone).
    pub fn scan_file(&self, path: &str, text: &str) -> FileStats {
        scan_one(
            path,
            text,
            &self.term_index,
            &self.symbol_index,
            self.phrases.as_ref(),
        )
    }
}

/// The query-independent part of a file's lexical statistics: every token of its
/// definition lines and body with its counts, the names it defines, the identifiers it
/// writes. Built once per content and kept in the on-disk cache; a query's
/// [`FileStats`] then come from it without tokenizing the file again
/// ([`Scanner::scan_indexed`]).
#[derive(Debug, Clone, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct FileIndex {
    /// Tokens in the definitions field.
    pub defs_len: u32,
    /// Tokens in the body field.
    pub body_len: u32,
    /// Every token (normalized as the query's terms are), sorted, with its count in
    /// the definitions and in the body.
    pub tokens: Vec<(String, u32, u32)>,
    /// The names written on definition-like lines, sorted, each with whether one of
    /// those lines starts at column zero.
    pub defs: Vec<(String, bool)>,
    /// Every identifier written, sorted and deduplicated.
    pub idents: Vec<String>,
}

impl FileIndex {
    /// The index of a file's text (its first [`MAX_BODY_BYTES`], as the pass reads).
    pub fn of(text: &str) -> FileIndex {
        let body = body_of(text);
        let mut index = FileIndex::default();
        // Per token, its count in the definitions and in the body. The sets are keyed
        // by the file's words: the keyed word hasher, cheaper than SipHash (a first
        // process indexes every file), and its collisions unknown to the file.
        let mut tokens: ContentMap<String, [u32; 2]> = ContentMap::default();
        let mut count = |t: &str, field: usize| match tokens.get_mut(t) {
            Some(c) => c[field] += 1,
            None => {
                let mut c = [0, 0];
                c[field] = 1;
                tokens.insert(t.to_string(), c);
            }
        };
        let mut defs: ContentMap<&str, bool> = ContentMap::default();
        let mut idents: ContentMap<&[u8], ()> = ContentMap::default();
        let mut token = Token::default();
        for line in body.lines() {
            if let Some(def) = defined_name(line) {
                tokenize_into(def, &mut token, &mut |t| {
                    index.defs_len += 1;
                    count(t.as_str(), 0);
                });
                *defs.entry(def).or_default() |= !line.starts_with([' ', '\t']);
            }
            // One pass over the line's words: identifiers and tokens.
            for word in word_runs(line.as_bytes()) {
                if is_identifier(word) {
                    idents.insert(word, ());
                }
                tokenize_word(word, &mut token, &mut |t| {
                    index.body_len += 1;
                    count(t.as_str(), 1);
                });
            }
        }
        index.tokens = tokens.into_iter().map(|(t, [d, b])| (t, d, b)).collect();
        index.tokens.sort_unstable();
        index.defs = defs
            .into_iter()
            .map(|(d, top)| (d.to_string(), top))
            .collect();
        index.defs.sort_unstable();
        index.idents = idents
            .into_keys()
            .map(|w| String::from_utf8_lossy(w).into_owned())
            .collect();
        index.idents.sort_unstable();
        index
    }
}

/// The part of a file's text the pass reads: its first [`MAX_BODY_BYTES`], cut at a
/// character boundary.
pub(super) fn body_of(text: &str) -> &str {
    crate::text::prefix(text, MAX_BODY_BYTES)
}

/// Counts the tokens of the file name (without extension) and of its directories.
pub(super) fn count_path(
    path: &str,
    filter: &TermFilter,
    term_index: &WordMap<&[u8], u32>,
    stats: &mut FileStats,
) {
    let (dir, name) = crate::resolve::split_path(path);
    let stem = name.split('.').next().unwrap_or(name);
    let mut token = Token::default();
    for (field, text) in [(Field::Name, stem), (Field::Dir, dir)] {
        tokenize_into(text, &mut token, &mut |t| {
            count_token(field, t.as_bytes(), filter, term_index, stats);
        });
    }
}

/// Counts one token in a field: its length always, its count when it is a term.
fn count_token(
    field: Field,
    token: &[u8],
    filter: &TermFilter,
    term_index: &WordMap<&[u8], u32>,
    stats: &mut FileStats,
) {
    stats.lengths[field as usize] += 1;
    if filter.may_contain(token)
        && let Some(&t) = term_index.get(token)
    {
        let c = &mut stats.counts.entry(t)[field as usize];
        *c = c.saturating_add(1);
    }
}

pub(super) fn find_phrases(matcher: &AhoCorasick, body: &str) -> Vec<u32> {
    let found: HashSet<u32> = matcher
        .find_overlapping_iter(body)
        .map(|m| m.pattern().as_u32())
        .collect();
    sorted(found)
}

fn sorted(set: HashSet<u32>) -> Vec<u32> {
    let mut out: Vec<u32> = set.into_iter().collect();
    out.sort_unstable();
    out
}

/// The `k` strongest of a score's parts, strongest first (ties by index).
fn strongest(mut parts: Vec<(usize, f32)>, k: usize) -> Vec<(usize, f32)> {
    parts.sort_by(|a, b| b.1.total_cmp(&a.1).then(a.0.cmp(&b.0)));
    parts.truncate(k);
    parts
}

/// The view over all files from their per-file stats (document frequencies and
/// average field lengths).
pub fn aggregate(query: &Query, stats: Vec<Arc<FileStats>>) -> LexicalView {
    let mut df = vec![0u32; query.counted_terms()];
    let mut total = [0f64; FIELDS];
    for s in &stats {
        for (t, c) in s.counts.iter() {
            if let Some(df) = df.get_mut(t)
                && c.iter().any(|&x| x > 0)
            {
                *df += 1;
            }
        }
        for (sum, len) in total.iter_mut().zip(s.lengths) {
            *sum += len as f64;
        }
    }
    let n = stats.len().max(1) as f64;
    let avg_len = [0, 1, 2, 3].map(|f| ((total[f] / n) as f32).max(1.0));
    LexicalView {
        files: stats,
        df,
        avg_len,
    }
}

fn scan_one(
    path: &str,
    text: &str,
    term_index: &WordMap<&[u8], u32>,
    symbol_index: &WordMap<&[u8], u32>,
    phrases: Option<&AhoCorasick>,
) -> FileStats {
    let mut stats = FileStats::default();
    let filter = TermFilter::new(term_index.keys());
    let symbol_filter = TermFilter::new(symbol_index.keys());
    let count = |field: Field, token: &[u8], stats: &mut FileStats| {
        count_token(field, token, &filter, term_index, stats);
    };
    count_path(path, &filter, term_index, &mut stats);
    let mut token = Token::default();
    let body = body_of(text);
    let mut defines: HashSet<u32> = HashSet::new();
    let mut defines_top: HashSet<u32> = HashSet::new();
    let mut mentions: HashSet<u32> = HashSet::new();
    let mut words: Vec<u32> = Vec::new();
    for line in body.lines() {
        if let Some(def) = defined_name(line) {
            tokenize_into(def, &mut token, &mut |t| {
                count(Field::Defs, t.as_bytes(), &mut stats)
            });
            if let Some(&s) = symbol_index.get(def.as_bytes()) {
                defines.insert(s);
                if !line.starts_with([' ', '\t']) {
                    defines_top.insert(s);
                }
            }
        }
        // One pass over the line's words: identifiers (hashed, and looked up among
        // the task's symbols) and tokens.
        for word in word_runs(line.as_bytes()) {
            if is_identifier(word) {
                words.push(word_hash_bytes(word));
                if symbol_filter.may_contain(word)
                    && let Some(&s) = symbol_index.get(word)
                {
                    mentions.insert(s);
                }
            }
            tokenize_word(word, &mut token, &mut |t| {
                count(Field::Body, t.as_bytes(), &mut stats)
            });
        }
    }
    if let Some(matcher) = phrases {
        let found: HashSet<u32> = matcher
            .find_overlapping_iter(body)
            .map(|m| m.pattern().as_u32())
            .collect();
        stats.phrases = found.into_iter().collect();
        stats.phrases.sort_unstable();
    }
    stats.defines = defines.into_iter().collect();
    stats.defines.sort_unstable();
    stats.defines_top = defines_top.into_iter().collect();
    stats.defines_top.sort_unstable();
    stats.mentions = mentions.into_iter().collect();
    stats.mentions.sort_unstable();
    words.sort_unstable();
    words.dedup();
    stats.words = words.into();
    stats
}

/// A cheap pre-check before the hash lookup of a token among the query terms: the
/// (first byte, length) pairs of the terms. Most tokens of a file are no query term
/// and fail here.
pub(super) struct TermFilter([u64; 256]);

impl TermFilter {
    pub(super) fn new<'a>(terms: impl Iterator<Item = &'a &'a [u8]>) -> Self {
        let mut table = [0u64; 256];
        for term in terms {
            if let Some(&first) = term.first() {
                table[first as usize] |= 1 << term.len().min(63);
            }
        }
        TermFilter(table)
    }

    fn may_contain(&self, token: &[u8]) -> bool {
        token
            .first()
            .is_some_and(|&b| self.0[b as usize] & (1 << token.len().min(63)) != 0)
    }
}

impl LexicalView {
    /// BM25F score of file `i` for the query, with the terms that contributed most.
    pub fn bm25f(&self, query: &Query, i: usize) -> (f32, Vec<(usize, f32)>) {
        let n = self.files.len() as f32;
        let file = &self.files[i];
        let mut score = 0.0;
        let mut parts = Vec::new();
        // The file's own terms, in term order (as many as it holds, not the query's).
        for (t, counts) in file.counts.iter() {
            let Some((_, qw)) = query.terms.get(t) else {
                break;
            };
            if let Some(s) = self.term_score(file, counts, t, *qw, n) {
                score += s;
                parts.push((t, s));
            }
        }
        (score, strongest(parts, 5))
    }

    /// BM25F's part of term `t` (an index into the counted terms, whose counts in
    /// `file` are `counts`) weighted `weight` in `file` of `n` documents; `None` when
    /// the file does not hold it.
    fn term_score(
        &self,
        file: &FileStats,
        counts: &[u16; FIELDS],
        t: usize,
        weight: f32,
        n: f32,
    ) -> Option<f32> {
        if counts.iter().all(|&c| c == 0) {
            return None;
        }
        let mut tf = 0.0;
        for f in 0..FIELDS {
            if counts[f] == 0 {
                continue;
            }
            tf += FIELD_WEIGHT[f] * counts[f] as f32 / self.length_norm(file, f);
        }
        Some(weight * self.idf(t, n) * tf / (K1 + tf))
    }

    /// The vocabulary bridge's score of file `i`: BM25F of the query's expansion
    /// (each code term weighted by what the task's terms lend it, see
    /// [`crate::bridge::Bridge::expand`]), with the expansion terms that contributed
    /// most (indexes into `query.expansion`).
    pub fn bridge(&self, query: &Query, i: usize) -> (f32, Vec<(usize, f32)>) {
        let n = self.files.len() as f32;
        let file = &self.files[i];
        let first = query.terms.len();
        let mut score = 0.0;
        let mut parts = Vec::new();
        for (t, counts) in file.counts.iter().filter(|(t, _)| *t >= first) {
            let j = t - first;
            let Some(e) = query.expansion.get(j) else {
                break;
            };
            if let Some(s) = self.term_score(file, counts, t, e.weight, n) {
                score += s;
                parts.push((j, s));
            }
        }
        (score, strongest(parts, 3))
    }

    /// Per field, the BM25 score of file `i` with that field alone (same idf and
    /// saturation as [`LexicalView::bm25f`]) and the share of the query's weight whose
    /// terms occur in it: the learned scorer weighs a match in a name apart from one
    /// in a body.
    pub fn field_match(&self, query: &Query, i: usize) -> ([f32; FIELDS], [f32; FIELDS]) {
        let n = self.files.len() as f32;
        let file = &self.files[i];
        let mut score = [0.0f32; FIELDS];
        let mut covered = [0.0f32; FIELDS];
        let total: f32 = query.terms.iter().map(|(_, w)| *w).sum();
        for (t, (_, qw)) in query.terms.iter().enumerate() {
            let idf = self.idf(t, n);
            let counts = file.counts.get(t);
            for f in 0..FIELDS {
                let count = counts[f];
                if count == 0 {
                    continue;
                }
                let tf = count as f32 / self.length_norm(file, f);
                score[f] += qw * idf * tf / (K1 + tf);
                covered[f] += qw;
            }
        }
        if total > 0.0 {
            for c in &mut covered {
                *c /= total;
            }
        }
        (score, covered)
    }

    /// The idf of query term `t` over `n` documents (BM25's, kept positive).
    fn idf(&self, t: usize, n: f32) -> f32 {
        let df = self.df[t] as f32;
        (1.0 + (n - df + 0.5) / (df + 0.5)).ln()
    }

    /// BM25's length normalization of field `f` of `file` (never below 1e-3).
    fn length_norm(&self, file: &FileStats, f: usize) -> f32 {
        let norm = 1.0 - FIELD_B[f] + FIELD_B[f] * file.lengths[f] as f32 / self.avg_len[f];
        norm.max(1e-3)
    }

    /// BM25F of an aggregate of files (a directory or module), treated as one
    /// document: the module-level alignment s_sum reads it.
    pub fn bm25_group(&self, query: &Query, members: &[usize], groups: usize) -> f32 {
        let n = groups.max(1) as f32;
        let mut score = 0.0;
        let total_len: f32 = members
            .iter()
            .map(|&i| self.files[i].lengths[Field::Body as usize] as f32)
            .sum::<f32>()
            .max(1.0);
        let avg = self.avg_len[Field::Body as usize] * (self.files.len() as f32 / n).max(1.0);
        for (t, (_, qw)) in query.terms.iter().enumerate() {
            let mut tf = 0.0;
            for &i in members {
                let c = self.files[i].counts.get(t);
                tf += FIELD_WEIGHT[0] * c[0] as f32
                    + FIELD_WEIGHT[1] * c[1] as f32 / members.len() as f32
                    + FIELD_WEIGHT[2] * c[2] as f32
                    + c[3] as f32;
            }
            if tf == 0.0 {
                continue;
            }
            let norm = 0.25 + 0.75 * total_len / avg.max(1.0);
            let tf = tf / norm;
            score += qw * self.idf(t, self.files.len() as f32) * tf / (K1 + tf);
        }
        score
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::hashing::{KeyedWordHasher, WordHasher};
    use crate::term_store::TermStore;

    /// Inputs crafted to share the fixed word hash (a second chunk chosen to undo
    /// the first's difference) do not share the keyed one: a file cannot aim its
    /// words at one probe sequence of the keyed maps.
    #[test]
    fn crafted_collisions_of_the_word_hash_do_not_carry_to_the_keyed_hash() {
        use std::hash::Hasher;
        const K: u64 = 0x51_7c_c1_b7_27_22_0a_95;
        let fixed = |bytes: &[u8]| {
            let mut h = WordHasher::default();
            h.write(bytes);
            h.finish()
        };
        let keyed = |bytes: &[u8]| {
            let mut h = KeyedWordHasher::default();
            h.write(bytes);
            h.finish()
        };
        let target = (1u64.wrapping_mul(K)).rotate_left(5) ^ 7;
        let inputs: Vec<Vec<u8>> = (1..=1000u64)
            .map(|w1| {
                let w2 = w1.wrapping_mul(K).rotate_left(5) ^ target;
                [w1.to_le_bytes(), w2.to_le_bytes()].concat()
            })
            .collect();
        let first = fixed(&inputs[0]);
        assert!(inputs.iter().all(|i| fixed(i) == first), "the craft works");
        let distinct: std::collections::HashSet<u64> = inputs.iter().map(|i| keyed(i)).collect();
        assert_eq!(distinct.len(), inputs.len());
    }

    fn scan_texts(query: &Query, files: &[(&str, &str)]) -> LexicalView {
        let map: HashMap<String, String> = files
            .iter()
            .map(|(p, t)| (p.to_string(), t.to_string()))
            .collect();
        let paths: Vec<&str> = files.iter().map(|(p, _)| *p).collect();
        scan(query, &paths, &|p| map.get(p).cloned())
    }

    /// The index path gives exactly the direct pass's statistics, on every fixture
    /// file and on edge cases (counts past u16::MAX, indented and top-level
    /// definitions, a body past the size cut, non-ASCII text).
    #[test]
    fn scanning_the_index_equals_scanning_the_text() {
        fn files(dir: &std::path::Path, out: &mut Vec<(String, String)>) {
            for entry in std::fs::read_dir(dir).unwrap() {
                let path = entry.unwrap().path();
                if path.is_dir() {
                    files(&path, out);
                } else if let Ok(bytes) = std::fs::read(&path) {
                    let text = String::from_utf8_lossy(&bytes).into_owned();
                    out.push((path.display().to_string(), text));
                }
            }
        }
        let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/fixtures");
        let mut all = Vec::new();
        files(&root, &mut all);
        all.push(("big/many.py".into(), "convert ".repeat(70_000)));
        all.push((
            "edge/defs.py".into(),
            "def convert_currency():\n    def convert_currency():\n  class Rate:\nclass Rate:\n\
             é ünïcode convert_currency(x) Rate\n"
                .into(),
        ));
        let mut long = "def head():\n".to_string();
        while long.len() <= MAX_BODY_BYTES {
            long.push_str("x = héad(convert) # é\n");
        }
        long.push_str("def tail_only():\n");
        all.push(("edge/long.py".into(), long));
        let queries = [
            Query::new(
                "Pricing crashes: CurrencyMismatchError in convert_currency of Rate convert",
                vec!["convert_currency".into(), "Rate".into(), "head".into()],
                vec!["cannot convert".into(), "def convert".into(), "héad".into()],
            ),
            Query::new("user settings yaml config", Vec::new(), Vec::new()),
            Query::new("tail_only many", vec!["tail_only".into()], Vec::new()),
        ];
        // One term store for every query: a later query reads the tables an earlier
        // one kept, with the ids they were given then.
        let store = TermStore::new(1 << 30);
        let mut kept = 0;
        for query in &queries {
            let scanner = Scanner::new(query);
            let table_query = scanner.table_query(&store).unwrap();
            for (k, (path, text)) in all.iter().enumerate() {
                let direct = scanner.scan_file(path, text);
                let index = FileIndex::of(text);
                let view = IndexView::of(&index);
                let indexed = scanner.scan_indexed(path, &view, text);
                assert_eq!(indexed, direct, "{path}");
                // As the on-disk cache keeps it.
                let bytes = index.encode();
                let read = IndexView::decode(&bytes).unwrap();
                assert_eq!(scanner.scan_indexed(path, &read, text), direct, "{path}");
                // As the term store keeps it.
                let table = store
                    .get(k as u128)
                    .or_else(|| store.insert(k as u128, view.table()));
                if let Some(table) = table {
                    kept += 1;
                    let from_table = scanner.scan_table(path, &table_query, &table, text);
                    assert_eq!(from_table.as_ref(), Some(&direct), "{path}");
                    assert_eq!(
                        scanner.table_may_find_phrases(&table_query, &table),
                        scanner.may_find_phrases(&view),
                        "{path}"
                    );
                }
            }
        }
        assert_eq!(kept, 3 * all.len());
    }

    fn toks(text: &str) -> Vec<String> {
        let mut out = Vec::new();
        tokenize(text, |t| out.push(t));
        out
    }

    #[test]
    fn identifiers_split_and_keep_their_joined_form() {
        assert_eq!(toks("parseConfig"), ["parseconfig", "parse", "config"]);
        assert_eq!(toks("user_id"), ["userid", "user", "id"]);
        assert_eq!(
            toks("HTTPServer.start"),
            ["httpserver", "http", "server", "start"]
        );
        assert_eq!(
            toks("separability_matrix"),
            ["separabilitymatrix", "separability", "matrix"]
        );
        assert_eq!(toks("the fields are entries"), ["field", "entry"]);
        assert!(toks("a the 12345 _").is_empty());
        assert_eq!(
            toks("0011_update_proxy_permissions"),
            ["0011updateproxypermission", "update", "proxy", "permission"]
        );
    }

    #[test]
    fn definition_lines_are_read_lexically() {
        let cases = [
            (
                "def separability_matrix(transform):",
                Some("separability_matrix"),
            ),
            ("    async def fetch(self):", Some("fetch")),
            ("class Field(RegisterLookupMixin):", Some("Field")),
            (
                "public final class OrderService implements Service {",
                Some("OrderService"),
            ),
            (
                "func (s *Server) ServeHTTP(w http.ResponseWriter) {",
                Some("ServeHTTP"),
            ),
            ("pub(crate) fn parse_args() -> Args {", Some("parse_args")),
            ("pub fn parse_args() -> Args {", Some("parse_args")),
            ("export default function render() {", Some("render")),
            ("DEFAULT_TIMEOUT = 30", Some("DEFAULT_TIMEOUT")),
            ("    x = 3", None),
            ("if x == 3:", None),
            ("return foo", None),
        ];
        for (line, expected) in cases {
            assert_eq!(defined_name(line), expected, "{line}");
        }
    }

    #[test]
    fn bm25f_prefers_name_and_definition_matches() {
        let query = Query::new("separability matrix is wrong", vec![], vec![]);
        let view = scan_texts(
            &query,
            &[
                (
                    "astropy/modeling/separable.py",
                    "def separability_matrix(t):\n    pass\n",
                ),
                ("docs/notes.txt", "matrix matrix wrong wrong"),
                ("other.py", "x = 1\n"),
            ],
        );
        let s0 = view.bm25f(&query, 0).0;
        let s1 = view.bm25f(&query, 1).0;
        let s2 = view.bm25f(&query, 2).0;
        assert!(s0 > s1, "{s0} {s1}");
        assert_eq!(s2, 0.0);
    }

    #[test]
    fn symbols_and_phrases_are_found_exactly() {
        let query = Query::new(
            "x",
            vec!["parse_args".into(), "Missing".into()],
            vec!["spring.datasource.url".into()],
        );
        let view = scan_texts(
            &query,
            &[
                ("a.py", "def parse_args():\n  return 1\n"),
                ("b.py", "parse_args()\nurl = 'spring.datasource.url'\n"),
            ],
        );
        assert_eq!(view.files[0].defines, [1]);
        assert_eq!(view.files[1].defines, Vec::<u32>::new());
        assert_eq!(view.files[1].mentions, [1]);
        assert_eq!(view.files[1].phrases, [0]);
    }

    #[test]
    fn module_level_definitions_are_told_from_nested_ones() {
        let query = Query::new("x", vec!["convert_to".into()], vec![]);
        let view = scan_texts(
            &query,
            &[
                ("util.py", "def convert_to(expr, unit):\n    pass\n"),
                (
                    "quantity.py",
                    "class Quantity:\n    def convert_to(self, other):\n        pass\n",
                ),
            ],
        );
        assert_eq!(view.files[0].defines, [0]);
        assert_eq!(view.files[0].defines_top, [0]);
        assert_eq!(view.files[1].defines, [0]);
        assert_eq!(view.files[1].defines_top, Vec::<u32>::new());
    }

    proptest::proptest! {
        /// Any text gives the same statistics from its term table as from its
        /// text, with words the query shares with it or not.
        #[test]
        fn a_term_table_scans_as_the_text_does(
            text in "(?s)(def |class |[a-zA-Z_]{1,9}|[ .()\n\t]|é){0,80}",
            words in proptest::collection::vec("[a-zA-Z_]{1,6}", 0..6),
        ) {
            let store = TermStore::new(1 << 24);
            let phrase = words.join(" ");
            let query = Query::new(&words.join(" "), words.clone(), vec![phrase]);
            let scanner = Scanner::new(&query);
            let table_query = scanner.table_query(&store).unwrap();
            let index = FileIndex::of(&text);
            let view = IndexView::of(&index);
            let table = store.insert(1, view.table()).unwrap();
            proptest::prop_assert_eq!(
                scanner.scan_table("src/a.py", &table_query, &table, &text),
                Some(scanner.scan_file("src/a.py", &text))
            );
            proptest::prop_assert_eq!(
                scanner.table_may_find_phrases(&table_query, &table),
                scanner.may_find_phrases(&view)
            );
        }

        /// Paths ranked by their words alone, each directory counted once for its
        /// neighbours, give what each path's own scan gives.
        #[test]
        fn paths_scan_together_as_each_scans_alone(
            mut paths in proptest::collection::vec(
                "(src|lib/core|Src/Core|a_b|x)(/(core|util|readMe|io_util|a)){0,3}/[a-zA-Z_.]{1,9}",
                0..40,
            ),
            words in proptest::collection::vec("(core|util|read|me|io|src|[a-z]{1,4})", 0..6),
        ) {
            paths.sort();
            let query = Query::new(&words.join(" "), words.clone(), Vec::new());
            let scanner = Scanner::new(&query);
            let paths: Vec<&str> = paths.iter().map(String::as_str).collect();
            let alone: Vec<Arc<FileStats>> =
                paths.iter().map(|p| Arc::new(scanner.scan_file(p, ""))).collect();
            let words = PathWords::of(&paths).expect("small");
            proptest::prop_assert_eq!(scanner.scan_path_words(&words), alone);
        }
    }
}
