//! Definitions as documents (issue 32, item 2; DESIGN, "Evidence the task's words
//! miss"): every function, method and class of the candidates is scored against the
//! task on its own, over its name, signature, doc comment and body, and each file is
//! described by its best definition and by how many of its definitions match.
//!
//! The lexical pass scores a file as one document (BM25F over its fields), so a long
//! module whose one method the task describes is diluted by everything else in it.
//! Here a definition is a document, and the corpus is the candidates' definitions,
//! built per query: BM25 (k1 = 1.2, b = 0.75) with the inverse document frequency and
//! the average length of this corpus.
//!
//! A definition's text is its own lines: a class keeps its header, docstring and
//! attributes, its methods are documents of their own. The contiguous lines right
//! above a definition (its doc comment, decorators, annotations) belong to it.
//!
//! What a file gives ([`documents`]: each definition's token counts) depends on its
//! content alone, so the session keeps it per file and in the on-disk cache, and a
//! query reads no text the lexical pass did not. That is why this is a small BM25 of
//! our own rather than the `bm25` crate of the design: the crate embeds each
//! document from its text, with the corpus' average length fixed when it is built,
//! so every query would re-read and re-tokenize every candidate.

use std::collections::HashMap;

use serde::{Deserialize, Serialize};

use super::lexical::{Query, tokenize};
use crate::facts::units::{MAX_DEFINITIONS, MAX_DOCUMENT_BYTES, MAX_LINES, units};
use crate::facts::{Facts, Span};

/// BM25's term-frequency saturation.
const K1: f32 = 1.2;
/// BM25's length normalization.
const B: f32 = 0.75;
/// A definition matches the task when it scores at least this share of the best
/// definition's score among all candidates.
pub(crate) const MATCHING_SHARE: f32 = 0.5;

/// What a file's definitions say of the task.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct FileDefinitions {
    /// The best definition's score over the best among all candidates' definitions
    /// (0..=1).
    pub best: f32,
    /// How many of the file's definitions score at least [`MATCHING_SHARE`] of that.
    pub matching: u32,
    /// The share of the title's query weight the best definition's text holds.
    pub title_cover: f32,
    /// The best definition's name.
    pub name: String,
    /// The best definition's lines, with its doc comment and decorators.
    pub span: Span,
}

/// How one definition scored as a document.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub(crate) struct DocumentScore {
    /// Its BM25 over the best of all the candidates' definitions (0 when it matched
    /// nothing).
    pub share: f32,
    /// The share of the title's query weight its text holds.
    pub title: f32,
}

/// One definition as a document: what BM25 needs of it, with no text.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub(crate) struct DefinitionTerms {
    /// Its name. (Kept rather than its index in the facts: the on-disk cache keys
    /// this by content, and a content is parsed alike under any path of its
    /// language, not under every path.)
    pub name: String,
    /// Its lines, doc comment and decorators included.
    pub span: Span,
    /// How many tokens its text has.
    pub length: u32,
    /// Each token of its text, as its [`term_hash`], with its count, sorted by
    /// hash: ten bytes a term (a file's documents stay a fraction of its text).
    pub terms: Vec<(u64, u16)>,
}

/// The 64-bit hash a document keeps of a token (xxh3: two tokens of one corpus
/// share one with a probability of about 2⁻⁴⁰ or less).
fn term_hash(token: &str) -> u64 {
    xxhash_rust::xxh3::xxh3_64(token.as_bytes())
}

/// The documents of one file: each of its [`units`], its name and own lines, as token
/// counts. A function of the file's content (its text and the facts of it).
pub(crate) fn documents(text: &str, facts: &Facts) -> Vec<DefinitionTerms> {
    units(text, facts)
        .into_iter()
        .map(|unit| {
            let name = &facts.definitions[unit.index].name;
            let mut counts: HashMap<u64, u16> = HashMap::new();
            let mut length = 0u32;
            let mut count = |t: String| {
                length += 1;
                let count = counts.entry(term_hash(&t)).or_default();
                *count = count.saturating_add(1);
            };
            // The name, then the lines, cut as one text of MAX_DOCUMENT_BYTES was.
            tokenize(name, &mut count);
            let room = MAX_DOCUMENT_BYTES.saturating_sub(name.len() + 1);
            tokenize(crate::text::prefix(&unit.text, room), &mut count);
            let mut terms: Vec<(u64, u16)> = counts.into_iter().collect();
            terms.sort_unstable();
            DefinitionTerms {
                name: name.clone(),
                span: unit.span,
                length,
                terms,
            }
        })
        .collect()
}

/// The query weight a definition's text holds: the sum of the weights of the query
/// terms it has (a cheap order of a file's definitions by the task, before any
/// corpus statistics).
pub(crate) fn query_weight(doc: &DefinitionTerms, query: &Query) -> f32 {
    query
        .terms
        .iter()
        .filter(|(term, _)| {
            let hash = term_hash(term);
            doc.terms.binary_search_by(|(t, _)| t.cmp(&hash)).is_ok()
        })
        .map(|(_, weight)| weight)
        .sum()
}

/// Scores the definitions of `files` (caller's index, the file's [`documents`])
/// against `query`, BM25 over all their definitions, and describes each file
/// that has a definition matching any term. `title` says per query term whether the
/// task's title has it. The documents' order decides ties (files in the order given,
/// then definitions in order of their start): deterministic.
///
/// Also returns each document's [`DocumentScore`], per file of `files` in order:
/// what ranks the definitions themselves (`locate::where_to_look`).
pub(crate) fn score(
    files: &[(usize, &[DefinitionTerms])],
    query: &Query,
    title: &[bool],
) -> (HashMap<usize, FileDefinitions>, Vec<Vec<DocumentScore>>) {
    let documents: Vec<(usize, &DefinitionTerms)> = files
        .iter()
        .flat_map(|&(file, docs)| docs.iter().map(move |d| (file, d)))
        .collect();
    let mut shares: Vec<Vec<DocumentScore>> = files
        .iter()
        .map(|(_, d)| vec![DocumentScore::default(); d.len()])
        .collect();
    if documents.is_empty() || query.terms.is_empty() {
        return (HashMap::new(), shares);
    }
    let count = |doc: &DefinitionTerms, term: u64| -> u16 {
        doc.terms
            .binary_search_by(|(t, _)| t.cmp(&term))
            .map_or(0, |k| doc.terms[k].1)
    };
    let n = documents.len() as f32;
    let average = (documents.iter().map(|d| d.1.length as f32).sum::<f32>() / n).max(1.0);
    let mut raw = vec![0.0f32; documents.len()];
    let mut title_found = vec![0.0f32; documents.len()];
    let mut found: Vec<u16> = vec![0; documents.len()];
    for (t, (term, weight)) in query.terms.iter().enumerate() {
        let term = term_hash(term);
        let mut df = 0usize;
        for (k, (_, doc)) in documents.iter().enumerate() {
            found[k] = count(doc, term);
            df += usize::from(found[k] > 0);
        }
        if df == 0 {
            continue;
        }
        // BM25's idf over the candidates' definitions (the +1 keeps it positive).
        let idf = (1.0 + (n - df as f32 + 0.5) / (df as f32 + 0.5)).ln();
        let in_title = title.get(t).copied().unwrap_or(false);
        for (k, (_, doc)) in documents.iter().enumerate() {
            if found[k] == 0 {
                continue;
            }
            let tf = f32::from(found[k]);
            let norm = K1 * (1.0 - B + B * doc.length as f32 / average);
            raw[k] += weight * idf * tf * (K1 + 1.0) / (tf + norm);
            if in_title {
                title_found[k] += weight;
            }
        }
    }
    let top = raw.iter().copied().fold(0.0f32, f32::max);
    if top <= 0.0 {
        return (HashMap::new(), shares);
    }
    let title_weight: f32 = query
        .terms
        .iter()
        .enumerate()
        .filter(|(t, _)| title.get(*t).copied().unwrap_or(false))
        .map(|(_, (_, w))| w)
        .sum();
    let mut k = 0;
    for file in &mut shares {
        for score in file.iter_mut() {
            *score = DocumentScore {
                share: raw[k] / top,
                title: if title_weight > 0.0 {
                    title_found[k] / title_weight
                } else {
                    0.0
                },
            };
            k += 1;
        }
    }
    let mut by_file: HashMap<usize, FileDefinitions> = HashMap::new();
    for (k, &(file, doc)) in documents.iter().enumerate() {
        if raw[k] <= 0.0 {
            continue;
        }
        let share = raw[k] / top;
        let entry = by_file.entry(file).or_insert_with(|| FileDefinitions {
            best: 0.0,
            matching: 0,
            title_cover: 0.0,
            name: String::new(),
            span: doc.span,
        });
        if share >= MATCHING_SHARE {
            entry.matching += 1;
        }
        if share > entry.best {
            entry.best = share;
            entry.title_cover = if title_weight > 0.0 {
                title_found[k] / title_weight
            } else {
                0.0
            };
            entry.name = doc.name.clone();
            entry.span = doc.span;
        }
    }
    (by_file, shares)
}

/// The `n` heaviest of the task's terms that a definition's text has, heaviest first
/// (ties in the query's order): what its explanation quotes.
pub(crate) fn query_terms_in<'q>(
    doc: &DefinitionTerms,
    query: &'q Query,
    n: usize,
) -> Vec<&'q str> {
    let mut found: Vec<(usize, &(String, f32))> = query
        .terms
        .iter()
        .enumerate()
        .filter(|(_, (term, _))| {
            let hash = term_hash(term);
            doc.terms.binary_search_by(|(t, _)| t.cmp(&hash)).is_ok()
        })
        .collect();
    found.sort_by(|(a, (_, x)), (b, (_, y))| y.total_cmp(x).then(a.cmp(b)));
    found
        .into_iter()
        .take(n)
        .map(|(_, (t, _))| t.as_str())
        .collect()
}

/// The fuzz targets' check of [`documents`] on any text and its facts: it ends,
/// every document's lines lie in the text, its terms are sorted and distinct and
/// counted within its length, and the same input gives the same documents.
#[doc(hidden)]
pub fn check_documents(text: &str, facts: &Facts) {
    let docs = documents(text, facts);
    let lines = text.lines().take(MAX_LINES).count() as u32;
    assert!(docs.len() <= MAX_DEFINITIONS);
    for doc in &docs {
        assert!(1 <= doc.span.start && doc.span.start <= doc.span.end && doc.span.end <= lines);
        assert!(doc.terms.windows(2).all(|w| w[0].0 < w[1].0));
        let counted: u64 = doc.terms.iter().map(|(_, c)| u64::from(*c)).sum();
        assert!(counted <= u64::from(doc.length));
    }
    assert_eq!(docs, documents(text, facts));
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::facts::{DefKind, Definition};

    fn def(kind: DefKind, name: &str, start: u32, end: u32) -> Definition {
        Definition {
            kind,
            name: name.to_string(),
            qualified: None,
            signature: String::new(),
            span: Span { start, end },
        }
    }

    fn facts(defs: Vec<Definition>) -> Facts {
        Facts {
            definitions: defs,
            ..Facts::default()
        }
    }

    #[test]
    fn a_class_keeps_its_header_and_its_methods_are_their_own_documents() {
        let text = "class Cache:\n    \"\"\"Keeps entries.\"\"\"\n\n    # evicts the oldest\n    def evict(self):\n        drop_oldest()\n\n    size = 3\n";
        let f = facts(vec![
            def(DefKind::Class, "Cache", 1, 8),
            def(DefKind::Method, "evict", 5, 6),
        ]);
        let docs = documents(text, &f);
        assert_eq!(docs.len(), 2);
        let has = |d: &DefinitionTerms, word: &str| {
            let mut token = String::new();
            tokenize(word, |t| token = t);
            d.terms.iter().any(|(x, _)| *x == term_hash(&token))
        };
        assert!(has(&docs[0], "entries"));
        assert!(has(&docs[0], "size"));
        assert!(!has(&docs[0], "drop"));
        assert!(!has(&docs[0], "evicts"));
        assert!(has(&docs[1], "evicts"));
        assert!(has(&docs[1], "drop"));
        assert_eq!(docs[1].span, Span { start: 4, end: 6 });
        assert_eq!(docs[1].name, "evict");
    }

    #[test]
    fn spans_past_the_text_and_overlapping_spans_are_safe() {
        let text = "fn a() {\n}\nfn b() {\n}\n";
        let f = facts(vec![
            def(DefKind::Function, "a", 1, 90),
            def(DefKind::Function, "b", 3, 2),
            def(DefKind::Function, "c", 0, 0),
            def(DefKind::Function, "d", 70, 80),
        ]);
        assert_eq!(documents(text, &f).len(), 2);
    }
}
