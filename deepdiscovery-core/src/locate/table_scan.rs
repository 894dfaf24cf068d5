//! The lexical pass from a file's term table ([`crate::term_store`]): the query's
//! words get ids in the session's vocabulary once, and a file's statistics come from
//! merging two sorted lists of ids, without its text (but for the phrases). Equal to
//! scanning the text ([`Scanner::scan_file`]).

use super::lexical::{Field, FileStats, Scanner, TermFilter, body_of, count_path, find_phrases};
use crate::term_store::{FileTerms, TOP, TermStore};

impl Scanner<'_> {
    /// The query's words by id in `store`'s vocabulary, for [`Scanner::scan_table`]
    /// (`None` when the store keeps nothing, or its ids are spent).
    pub fn table_query(&self, store: &TermStore) -> Option<TableQuery> {
        if !store.enabled() {
            return None;
        }
        let terms: Vec<(&[u8], u32)> = self.term_index.iter().map(|(t, &i)| (*t, i)).collect();
        let symbols: Vec<(&[u8], u32)> = self.symbol_index.iter().map(|(s, &i)| (*s, i)).collect();
        let words = terms
            .iter()
            .chain(&symbols)
            .map(|(w, _)| *w)
            .chain(
                self.phrase_identifiers
                    .iter()
                    .flatten()
                    .map(|w| w.as_bytes()),
            )
            .map(|w| std::str::from_utf8(w).unwrap_or_default());
        let interned = store.intern_query(words)?;
        let mut ids = interned.ids.into_iter();
        let mut by_id = |list: &[(&[u8], u32)]| {
            let mut out: Vec<(u32, u32)> = list
                .iter()
                .zip(&mut ids)
                .map(|((_, i), id)| (id, *i))
                .collect();
            out.sort_unstable();
            out
        };
        let terms = by_id(&terms);
        let symbols = by_id(&symbols);
        let phrase_identifiers = self
            .phrase_identifiers
            .iter()
            .map(|words| words.iter().zip(&mut ids).map(|(_, id)| id).collect())
            .collect();
        Some(TableQuery {
            generation: interned.generation,
            terms,
            symbols,
            phrase_identifiers,
        })
    }

    /// Whether a file with this table may contain one of the query's phrases (as
    /// [`Scanner::may_find_phrases`]).
    pub fn table_may_find_phrases(&self, query: &TableQuery, table: &FileTerms) -> bool {
        self.phrases.is_some()
            && query.phrase_identifiers.iter().any(|needed| {
                needed
                    .iter()
                    .all(|id| table.idents.binary_search(id).is_ok())
            })
    }

    /// [`Scanner::scan_indexed`] from the file's table in a session's term store
    /// (the index with ids for strings: the query's terms are found by merging two
    /// sorted lists of ids) and its text (for the phrases alone). `None` when the
    /// table's ids are of another generation than the query's.
    pub fn scan_table(
        &self,
        path: &str,
        query: &TableQuery,
        table: &FileTerms,
        text: &str,
    ) -> Option<FileStats> {
        if table.generation != query.generation {
            return None;
        }
        let mut stats = FileStats::default();
        let filter = TermFilter::new(self.term_index.keys());
        count_path(path, &filter, &self.term_index, &mut stats);
        stats.lengths[Field::Defs as usize] += table.defs_len;
        stats.lengths[Field::Body as usize] += table.body_len;
        for_matches(
            &table.tokens,
            |t| t.0,
            &query.terms,
            |token, &(_, t)| {
                let c = stats.counts.entry(t);
                c[Field::Defs as usize] = token.1;
                c[Field::Body as usize] = token.2;
            },
        );
        let mut defines = Vec::new();
        let mut defines_top = Vec::new();
        for_matches(
            &table.defs,
            |d| d & !TOP,
            &query.symbols,
            |def, &(_, s)| {
                defines.push(s);
                if def & TOP != 0 {
                    defines_top.push(s);
                }
            },
        );
        let mut mentions = Vec::new();
        for_matches(
            &table.idents,
            |id| *id,
            &query.symbols,
            |_, &(_, s)| mentions.push(s),
        );
        if let Some(matcher) = &self.phrases {
            stats.phrases = find_phrases(matcher, body_of(text));
        }
        for list in [&mut defines, &mut defines_top, &mut mentions] {
            list.sort_unstable();
        }
        stats.defines = defines;
        stats.defines_top = defines_top;
        stats.mentions = mentions;
        stats.words = table.words.clone();
        Some(stats)
    }
}

/// A query's words by id in one generation of a session's term store
/// ([`Scanner::table_query`]).
#[derive(Debug, Clone)]
pub struct TableQuery {
    generation: u32,
    /// (id, index into the query's terms), sorted by id.
    terms: Vec<(u32, u32)>,
    /// (id, index into the query's symbols), sorted by id.
    symbols: Vec<(u32, u32)>,
    /// Per phrase, the ids of the identifiers it holds whole.
    phrase_identifiers: Vec<Vec<u32>>,
}

/// Calls `found` for each item of `items` whose id (`id_of`, ascending) is in
/// `wanted` (sorted by id): one merge of two sorted lists.
fn for_matches<T>(
    items: &[T],
    id_of: impl Fn(&T) -> u32,
    wanted: &[(u32, u32)],
    mut found: impl FnMut(&T, &(u32, u32)),
) {
    let (mut i, mut j) = (0, 0);
    while i < items.len() && j < wanted.len() {
        let id = id_of(&items[i]);
        match id.cmp(&wanted[j].0) {
            std::cmp::Ordering::Less => i += 1,
            std::cmp::Ordering::Greater => j += 1,
            std::cmp::Ordering::Equal => {
                found(&items[i], &wanted[j]);
                i += 1;
                j += 1;
            }
        }
    }
}
