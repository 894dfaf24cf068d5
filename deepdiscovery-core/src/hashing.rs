//! Fast word hashers and the maps keyed by words: shared by the lexical pass, the
//! graph's scope and the per-file term tables kept between queries.

use std::collections::HashMap;

/// A fast hash for the short words of the pass (the FxHash of rustc: one multiply
/// per 8 bytes). Not DoS-resistant, which the pass does not need: its keys are the
/// task's terms, looked up with the repository's words.
#[derive(Default, Clone, Copy)]
pub struct WordHasher(u64);

impl std::hash::Hasher for WordHasher {
    fn write(&mut self, bytes: &[u8]) {
        const SEED: u64 = 0x51_7c_c1_b7_27_22_0a_95;
        let mut chunks = bytes.chunks_exact(8);
        for chunk in &mut chunks {
            let word = u64::from_le_bytes(chunk.try_into().unwrap_or_default());
            self.0 = (self.0.rotate_left(5) ^ word).wrapping_mul(SEED);
        }
        for &b in chunks.remainder() {
            self.0 = (self.0.rotate_left(5) ^ b as u64).wrapping_mul(SEED);
        }
    }

    fn finish(&self) -> u64 {
        self.0
    }
}

/// A map keyed by words, with [`WordHasher`].
pub type WordMap<K, V> = HashMap<K, V, std::hash::BuildHasherDefault<WordHasher>>;

/// [`WordHasher`] started from a random state of the process and finished with a
/// mix (MurmurHash3's): for maps whose keys are a file's own words, which a hostile
/// repository chooses. With a fixed, unmixed hash, words crafted to share their low
/// bits would all land in one probe sequence and make indexing the file quadratic;
/// here which words collide depends on a state the file cannot know. Only for maps
/// whose iteration order never reaches an answer (they are sorted after).
#[derive(Clone, Copy)]
pub struct KeyedWordHasher(WordHasher);

impl Default for KeyedWordHasher {
    fn default() -> Self {
        static STATE: std::sync::LazyLock<u64> = std::sync::LazyLock::new(|| {
            use std::hash::BuildHasher;
            std::collections::hash_map::RandomState::new().hash_one(0x5eed_u64)
        });
        KeyedWordHasher(WordHasher(*STATE))
    }
}

impl std::hash::Hasher for KeyedWordHasher {
    fn write(&mut self, bytes: &[u8]) {
        self.0.write(bytes);
    }

    fn finish(&self) -> u64 {
        let mut h = self.0.finish();
        h ^= h >> 33;
        h = h.wrapping_mul(0xff51_afd7_ed55_8ccd);
        h ^= h >> 33;
        h = h.wrapping_mul(0xc4ce_b9fe_1a85_ec53);
        h ^ (h >> 33)
    }
}

/// A map keyed by a file's words, with [`KeyedWordHasher`].
pub(crate) type ContentMap<K, V> = HashMap<K, V, std::hash::BuildHasherDefault<KeyedWordHasher>>;

/// A set of a file's words (or a listing's names), with [`KeyedWordHasher`].
pub(crate) type ContentSet<K> =
    std::collections::HashSet<K, std::hash::BuildHasherDefault<KeyedWordHasher>>;

/// A listing's paths to their index, for lookups only: keyed ([`KeyedWordHasher`]),
/// since a hostile repository chooses its paths, and some four times faster than
/// the standard hasher over the million paths of a large listing.
pub(crate) type PathIndex<'a> = ContentMap<&'a str, usize>;

/// Finds a listing's files by path: a [`PathIndex`], or a [`ListingIndex`] read
/// with its listing.
pub(crate) trait IndexOf {
    /// The index of `path` in the listing, if it is listed.
    fn index_of(&self, path: &str) -> Option<usize>;
}

impl IndexOf for PathIndex<'_> {
    fn index_of(&self, path: &str) -> Option<usize> {
        self.get(path).copied()
    }
}

/// A listing's paths to their index, kept with the listing: a table of indexes
/// hashed by the paths they stand for, compared with the listing's own paths on
/// lookup. No second copy of a million paths, and nothing to rebuild per query
/// while the listing stands. Keyed ([`KeyedWordHasher`]) as [`PathIndex`] is.
#[derive(Debug, Default)]
pub(crate) struct ListingIndex {
    table: hashbrown::HashTable<usize>,
}

impl ListingIndex {
    /// The index of the `count` paths `path_of` gives (`path_of(i)`: the `i`-th); of
    /// a path listed twice, the last.
    pub(crate) fn of<'p>(count: usize, path_of: impl Fn(usize) -> &'p str) -> ListingIndex {
        let mut table = hashbrown::HashTable::with_capacity(count);
        for i in 0..count {
            let path = path_of(i);
            let hash = path_hash(path);
            match table.find_mut(hash, |&j| path_of(j) == path) {
                Some(j) => *j = i,
                None => {
                    table.insert_unique(hash, i, |&j| path_hash(path_of(j)));
                }
            }
        }
        ListingIndex { table }
    }

    /// The index of `path`, with `path_of` the paths the index was made of.
    pub(crate) fn find<'p>(&self, path: &str, path_of: impl Fn(usize) -> &'p str) -> Option<usize> {
        (self.table.find(path_hash(path), |&j| path_of(j) == path)).copied()
    }
}

/// The keyed hash of a path, for [`ListingIndex`].
fn path_hash(path: &str) -> u64 {
    use std::hash::BuildHasher;
    std::hash::BuildHasherDefault::<KeyedWordHasher>::default().hash_one(path)
}

/// The 32-bit hash of an identifier kept in the lexical pass's `FileStats::words`.
pub fn word_hash(word: &str) -> u32 {
    word_hash_bytes(word.as_bytes())
}

/// [`word_hash`] of a word's bytes.
pub(crate) fn word_hash_bytes(word: &[u8]) -> u32 {
    use std::hash::Hasher;
    let mut hasher = WordHasher::default();
    hasher.write(word);
    let h = hasher.finish();
    (h ^ (h >> 32)) as u32
}

#[cfg(test)]
mod tests {
    use super::*;

    proptest::proptest! {
        /// A listing index finds what a map of the paths finds: every listed path
        /// at its index (the last, for a path listed twice), no other.
        #[test]
        fn a_listing_index_finds_as_a_map_does(
            paths in proptest::collection::vec("[ab/]{0,6}", 0..60),
            asked in proptest::collection::vec("[ab/]{0,6}", 0..20),
        ) {
            let paths: Vec<&str> = paths.iter().map(String::as_str).collect();
            let map: PathIndex<'_> = paths.iter().enumerate().map(|(i, p)| (*p, i)).collect();
            let index = ListingIndex::of(paths.len(), |i| paths[i]);
            for path in paths.iter().copied().chain(asked.iter().map(String::as_str)) {
                proptest::prop_assert_eq!(index.find(path, |i| paths[i]), map.index_of(path));
            }
        }
    }
}
