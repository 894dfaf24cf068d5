//! Per-file term tables kept between queries: what the lexical pass needs of a file
//! for any query (its distinct tokens with their counts, the names it defines, the
//! identifiers it writes), with every string replaced by its id in one vocabulary
//! shared by the session's files. A new query then finds its terms in a file by
//! merging two sorted lists of ids, without the file's text. Ids are exact (a string
//! has one id, two strings never share one), so a table gives the statistics the
//! text gives.
//!
//! Bounded by bytes: the tables and the vocabulary together stay under the store's
//! budget. A table that does not fit is not kept and its file is read as before, so
//! the budget changes the speed of a query, never its answer. Tables are keyed by the
//! file's content hash: an edited file gets a new table, a renamed one keeps its own.

use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, AtomicU32, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, RwLock};

use crate::hashing::{ContentMap, word_hash};
use crate::sync::{lock, read, write};

/// The default budget of a session's store: enough for about 100,000 files of
/// source (a table is about a third of its file's text).
pub const DEFAULT_BUDGET_BYTES: usize = 256 << 20;
/// Vocabulary shards: interning runs on every thread of the pass.
const SHARDS: usize = 32;
/// The highest bit of an id in [`FileTerms::defs`]: the name is defined on a line
/// at column zero. Ids stay below it.
pub(crate) const TOP: u32 = 1 << 31;
/// What a vocabulary entry costs beyond its bytes (the box, the id, the map's slot).
const ENTRY_OVERHEAD: usize = 40;
/// What a table costs beyond its lists.
const TABLE_OVERHEAD: usize = 96;

/// Every string the session's tables hold, each with one id.
struct Vocabulary {
    shards: Vec<Mutex<ContentMap<Box<str>, u32>>>,
    next: AtomicU32,
}

impl Default for Vocabulary {
    fn default() -> Self {
        Vocabulary {
            shards: (0..SHARDS).map(|_| Mutex::default()).collect(),
            next: AtomicU32::new(0),
        }
    }
}

impl Vocabulary {
    fn shard(&self, word: &str) -> &Mutex<ContentMap<Box<str>, u32>> {
        use std::hash::{BuildHasher, BuildHasherDefault};
        let h = BuildHasherDefault::<crate::hashing::WordHasher>::default().hash_one(word);
        &self.shards[(h >> 59) as usize % SHARDS]
    }

    /// The id of `word`, and the bytes its entry added (0 when it had one). `None`
    /// when the ids are spent.
    fn intern(&self, word: &str) -> Option<(u32, usize)> {
        let mut shard = lock(self.shard(word));
        if let Some(&id) = shard.get(word) {
            return Some((id, 0));
        }
        let id = self
            .next
            .fetch_update(Ordering::Relaxed, Ordering::Relaxed, |n| {
                (n < TOP - 1).then_some(n + 1)
            })
            .ok()?;
        shard.insert(word.into(), id);
        Some((id, word.len() + ENTRY_OVERHEAD))
    }
}

/// One file's table: its lexical index ([`crate::locate`]'s `FileIndex`) with ids
/// for strings.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct FileTerms {
    /// The vocabulary generation its ids belong to ([`TermStore::generation`]).
    pub generation: u32,
    /// Tokens in the definitions field.
    pub defs_len: u32,
    /// Tokens in the body field.
    pub body_len: u32,
    /// Every distinct token's id, sorted, with its counts in the definitions and in
    /// the body (saturated at `u16::MAX`, as the pass counts).
    pub tokens: Box<[(u32, u16, u16)]>,
    /// The ids of the names written on definition-like lines, sorted, [`TOP`] set
    /// when one of those lines starts at column zero.
    pub defs: Box<[u32]>,
    /// The ids of the identifiers written, sorted.
    pub idents: Box<[u32]>,
    /// The file's identifier hashes as the pass keeps them (`FileStats::words`).
    pub words: Arc<[u32]>,
}

impl FileTerms {
    /// What the table costs in memory.
    fn bytes(&self) -> usize {
        TABLE_OVERHEAD
            + 8 * self.tokens.len()
            + 4 * (self.defs.len() + self.idents.len() + self.words.len())
    }
}

/// A file's lexical index with strings, as [`TermStore::insert`] takes it.
#[derive(Debug, Clone, Copy)]
pub struct TableInput<'a> {
    /// Tokens in the definitions field.
    pub defs_len: u32,
    /// Tokens in the body field.
    pub body_len: u32,
    /// Every distinct token with its counts in the definitions and in the body.
    pub tokens: &'a [(&'a str, u32, u32)],
    /// The names written on definition-like lines, each with its column-zero flag.
    pub defs: &'a [(&'a str, bool)],
    /// Every distinct identifier written.
    pub idents: &'a [&'a str],
}

/// The tables of a session's files, by content hash, and their vocabulary.
pub struct TermStore {
    /// Behind a lock that interning takes shared and clearing takes alone, so no
    /// id is given while the vocabulary is emptied.
    vocabulary: RwLock<Vocabulary>,
    /// Bumped when the vocabulary is emptied: ids of another generation mean
    /// nothing now.
    generation: AtomicU32,
    tables: RwLock<HashMap<u128, Arc<FileTerms>>>,
    /// Bytes held by the tables.
    table_bytes: AtomicUsize,
    /// Bytes held by the vocabulary.
    vocabulary_bytes: AtomicUsize,
    budget: usize,
    /// Whether tables are built: from the session's second lexical pass on.
    armed: AtomicBool,
}

impl std::fmt::Debug for TermStore {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("TermStore")
            .field("tables", &read(&self.tables).len())
            .field("bytes", &self.bytes())
            .field("budget", &self.budget)
            .finish()
    }
}

/// A query's words with their ids in one generation of a store's vocabulary.
#[derive(Debug, Clone, Default)]
pub struct Interned {
    /// The generation the ids belong to.
    pub generation: u32,
    /// The ids, in the order the words were given.
    pub ids: Vec<u32>,
}

impl TermStore {
    /// An empty store that keeps at most `budget` bytes (0: keeps nothing).
    pub fn new(budget: usize) -> TermStore {
        TermStore {
            vocabulary: RwLock::default(),
            generation: AtomicU32::new(0),
            tables: RwLock::default(),
            table_bytes: AtomicUsize::new(0),
            vocabulary_bytes: AtomicUsize::new(0),
            budget,
            armed: AtomicBool::new(false),
        }
    }

    /// Whether the store keeps anything at all.
    pub fn enabled(&self) -> bool {
        self.budget > 0
    }

    /// Whether a pass has run that could have used tables: the lexical pass builds
    /// them from the second on.
    pub fn armed(&self) -> bool {
        self.enabled() && self.armed.load(Ordering::Relaxed)
    }

    /// Marks a lexical pass done.
    pub fn arm(&self) {
        self.armed.store(true, Ordering::Relaxed);
    }

    /// The most bytes it keeps.
    pub fn budget(&self) -> usize {
        self.budget
    }

    /// Bytes held now.
    pub fn bytes(&self) -> usize {
        self.table_bytes.load(Ordering::Relaxed) + self.vocabulary_bytes.load(Ordering::Relaxed)
    }

    /// How many tables are kept.
    #[cfg(test)]
    pub fn len(&self) -> usize {
        read(&self.tables).len()
    }

    /// Whether no table is kept.
    #[cfg(test)]
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Whether the store has room for `more` bytes.
    fn has_room(&self, more: usize) -> bool {
        self.bytes().saturating_add(more) <= self.budget
    }

    /// The table kept for this content.
    pub fn get(&self, hash: u128) -> Option<Arc<FileTerms>> {
        read(&self.tables).get(&hash).cloned()
    }

    /// The ids of a query's `words`, given ids when they have none (before a pass,
    /// so that a table built during the pass shares them). Always given, whatever
    /// the budget: a query's words are few, and [`TermStore::maintain`] empties a
    /// vocabulary that queries have grown too far. `None` when the ids are spent.
    pub fn intern_query<'a>(&self, words: impl Iterator<Item = &'a str>) -> Option<Interned> {
        let vocabulary = read(&self.vocabulary);
        let generation = self.generation.load(Ordering::Acquire);
        let mut added = 0;
        let mut ids = Vec::new();
        for word in words {
            let (id, bytes) = vocabulary.intern(word)?;
            added += bytes;
            ids.push(id);
        }
        self.vocabulary_bytes.fetch_add(added, Ordering::Relaxed);
        Some(Interned { generation, ids })
    }

    /// Builds the table of a file and keeps it under `hash` if it fits. `None`
    /// (nothing kept) when the store has no room for it; the caller then reads the
    /// file as it would without a store.
    pub fn insert(&self, hash: u128, input: TableInput<'_>) -> Option<Arc<FileTerms>> {
        let lists = 8 * input.tokens.len()
            + 4 * (input.defs.len() + 2 * input.idents.len())
            + TABLE_OVERHEAD;
        if !self.enabled() || !self.has_room(lists) {
            return None;
        }
        let vocabulary = read(&self.vocabulary);
        let generation = self.generation.load(Ordering::Acquire);
        let mut added = 0usize;
        let mut id_of = |word: &str| -> Option<u32> {
            let (id, bytes) = vocabulary.intern(word)?;
            added += bytes;
            Some(id)
        };
        let saturate = |n: u32| n.min(u16::MAX as u32) as u16;
        let mut tokens = Vec::with_capacity(input.tokens.len());
        for &(token, defs, body) in input.tokens {
            tokens.push((id_of(token)?, saturate(defs), saturate(body)));
        }
        let mut defs = Vec::with_capacity(input.defs.len());
        for &(name, top) in input.defs {
            defs.push(id_of(name)? | if top { TOP } else { 0 });
        }
        let mut idents = Vec::with_capacity(input.idents.len());
        for &ident in input.idents {
            idents.push(id_of(ident)?);
        }
        drop(vocabulary);
        self.vocabulary_bytes.fetch_add(added, Ordering::Relaxed);
        tokens.sort_unstable();
        defs.sort_unstable_by_key(|id| id & !TOP);
        idents.sort_unstable();
        let mut words: Vec<u32> = input.idents.iter().map(|w| word_hash(w)).collect();
        words.sort_unstable();
        words.dedup();
        let table = Arc::new(FileTerms {
            generation,
            defs_len: input.defs_len,
            body_len: input.body_len,
            tokens: tokens.into(),
            defs: defs.into(),
            idents: idents.into(),
            words: words.into(),
        });
        let mut tables = write(&self.tables);
        if self.generation.load(Ordering::Acquire) != generation || !self.has_room(table.bytes()) {
            return None;
        }
        self.table_bytes.fetch_add(table.bytes(), Ordering::Relaxed);
        if let Some(old) = tables.insert(hash, table.clone()) {
            self.table_bytes.fetch_sub(old.bytes(), Ordering::Relaxed);
        }
        Some(table)
    }

    /// Before a pass: drops the tables of contents not `current` (files edited or
    /// deleted since), and when the vocabulary holds more than half the budget
    /// (grown by queries, or by files since gone), empties the store; its tables are
    /// built again as queries need them.
    pub fn maintain(&self, current: impl Fn(u128) -> bool) {
        if !self.enabled() {
            return;
        }
        let mut tables = write(&self.tables);
        tables.retain(|hash, table| {
            let keep = current(*hash);
            if !keep {
                self.table_bytes.fetch_sub(table.bytes(), Ordering::Relaxed);
            }
            keep
        });
        if self.vocabulary_bytes.load(Ordering::Relaxed) > self.budget / 2 {
            let mut vocabulary = write(&self.vocabulary);
            *vocabulary = Vocabulary::default();
            tables.clear();
            self.generation.fetch_add(1, Ordering::AcqRel);
            self.table_bytes.store(0, Ordering::Relaxed);
            self.vocabulary_bytes.store(0, Ordering::Relaxed);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn input<'a>(
        tokens: &'a [(&'a str, u32, u32)],
        defs: &'a [(&'a str, bool)],
        idents: &'a [&'a str],
    ) -> TableInput<'a> {
        TableInput {
            defs_len: 2,
            body_len: 9,
            tokens,
            defs,
            idents,
        }
    }

    #[test]
    fn a_table_holds_the_index_with_ids_for_its_strings() {
        let store = TermStore::new(1 << 20);
        let query = store.intern_query(["rate", "convert"].into_iter()).unwrap();
        let tokens = [("convert", 1, 3), ("currency", 0, 70_000), ("rate", 0, 1)];
        let table = store
            .insert(
                7,
                input(&tokens, &[("convert", true)], &["convert", "Rate"]),
            )
            .unwrap();
        let (rate, convert) = (query.ids[0], query.ids[1]);
        // The query's words have the ids the file's strings got; counts saturate.
        let mut expected = vec![(convert, 1, 3), (rate, 0, 1)];
        let currency = table.tokens.iter().find(|t| t.0 != rate && t.0 != convert);
        expected.push((currency.unwrap().0, 0, u16::MAX));
        expected.sort_unstable();
        assert_eq!(&*table.tokens, &expected[..]);
        assert_eq!(&*table.defs, &[convert | TOP]);
        assert!(table.idents.contains(&convert));
        assert_eq!((table.defs_len, table.body_len), (2, 9));
        assert_eq!(store.get(7), Some(table.clone()));
        assert_eq!(store.len(), 1);
        // Another file shares the vocabulary.
        let other = store.insert(8, input(&[("rate", 0, 2)], &[], &[])).unwrap();
        assert_eq!(&*other.tokens, &[(rate, 0, 2)]);
    }

    #[test]
    fn nothing_is_kept_beyond_the_budget() {
        let off = TermStore::new(0);
        assert!(!off.enabled());
        assert!(off.insert(1, input(&[("a", 0, 1)], &[], &[])).is_none());
        assert!(off.is_empty());
        let small = TermStore::new(400);
        let words: Vec<String> = (0..64).map(|i| format!("word{i}")).collect();
        let many: Vec<(&str, u32, u32)> = words.iter().map(|w| (w.as_str(), 0, 1)).collect();
        assert!(small.insert(1, input(&many, &[], &[])).is_none());
        assert!(small.insert(2, input(&[("a", 0, 1)], &[], &[])).is_some());
        assert!(small.bytes() <= small.budget(), "{small:?}");
    }

    #[test]
    fn maintenance_drops_gone_contents_and_an_overgrown_vocabulary() {
        let store = TermStore::new(1 << 20);
        store.insert(1, input(&[("kept", 0, 1)], &[], &[])).unwrap();
        store.insert(2, input(&[("gone", 0, 1)], &[], &[])).unwrap();
        let before = store.bytes();
        store.maintain(|hash| hash == 1);
        assert!(store.get(2).is_none() && store.get(1).is_some());
        assert!(store.bytes() < before);
        // Queries grow the vocabulary past half the budget: everything goes, and the
        // ids of the old generation are told apart from the new ones.
        let old = store.intern_query(["kept"].into_iter()).unwrap();
        let words: Vec<String> = (0..20_000).map(|i| format!("query-word-{i}")).collect();
        store
            .intern_query(words.iter().map(String::as_str))
            .unwrap();
        store.maintain(|_| true);
        assert!(store.is_empty());
        assert_eq!(store.bytes(), 0);
        let new = store.intern_query(["kept"].into_iter()).unwrap();
        assert_ne!(old.generation, new.generation);
        let table = store.insert(1, input(&[("kept", 0, 1)], &[], &[])).unwrap();
        assert_eq!(table.generation, new.generation);
    }
}
