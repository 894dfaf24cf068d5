//! A file's lexical index ([`FileIndex`]) as the on-disk cache stores it, and the
//! view a query reads it through ([`IndexView`]) without copying its strings: a
//! second process decodes some thousand indexes per query, and allocating every
//! token was most of its cost with JSON.
//!
//! The format (little-endian): the two field lengths, the three counts, then every
//! string of the index (tokens, definitions, identifiers, in that order) in one
//! UTF-8 blob checked once, then per string its end offset in the blob and its
//! numbers. A payload that breaks any rule (a count beyond the bytes, an offset out
//! of order, past the blob or inside a character, bytes left over) is no index.

use super::lexical::FileIndex;

/// The format's first byte; another value is no index of this build.
const VERSION: u8 = 1;
/// The most strings an index may hold (far above what `MAX_BODY_BYTES` of text gives).
const MAX_STRINGS: usize = 1 << 22;

/// A [`FileIndex`] whose strings borrow from the bytes it was decoded from (or
/// from the index it views).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct IndexView<'a> {
    /// Tokens in the definitions field.
    pub defs_len: u32,
    /// Tokens in the body field.
    pub body_len: u32,
    /// Every token, sorted, with its count in the definitions and in the body.
    pub tokens: Vec<(&'a str, u32, u32)>,
    /// The names written on definition-like lines, sorted, each with whether one of
    /// those lines starts at column zero.
    pub defs: Vec<(&'a str, bool)>,
    /// Every identifier written, sorted and deduplicated.
    pub idents: Vec<&'a str>,
}

impl FileIndex {
    /// The index in the cache's format ([`IndexView::decode`] reads it back).
    pub fn encode(&self) -> Vec<u8> {
        let strings = self
            .tokens
            .iter()
            .map(|t| t.0.as_str())
            .chain(self.defs.iter().map(|d| d.0.as_str()))
            .chain(self.idents.iter().map(String::as_str));
        let blob: String = strings.clone().collect();
        let mut out = Vec::with_capacity(24 + blob.len() + 12 * self.tokens.len());
        out.push(VERSION);
        for n in [
            self.defs_len,
            self.body_len,
            self.tokens.len() as u32,
            self.defs.len() as u32,
            self.idents.len() as u32,
            blob.len() as u32,
        ] {
            out.extend_from_slice(&n.to_le_bytes());
        }
        out.extend_from_slice(blob.as_bytes());
        let mut end = 0u32;
        let mut ends: Vec<u32> = strings
            .map(|s| {
                end += s.len() as u32;
                end
            })
            .collect();
        ends.reverse();
        for (_, defs, body) in &self.tokens {
            out.extend_from_slice(&ends.pop().unwrap_or(end).to_le_bytes());
            out.extend_from_slice(&defs.to_le_bytes());
            out.extend_from_slice(&body.to_le_bytes());
        }
        for (_, top) in &self.defs {
            out.extend_from_slice(&ends.pop().unwrap_or(end).to_le_bytes());
            out.push(u8::from(*top));
        }
        for end in ends.into_iter().rev() {
            out.extend_from_slice(&end.to_le_bytes());
        }
        out
    }
}

impl<'a> IndexView<'a> {
    /// The view of an index held in memory.
    pub fn of(index: &'a FileIndex) -> IndexView<'a> {
        IndexView {
            defs_len: index.defs_len,
            body_len: index.body_len,
            tokens: index
                .tokens
                .iter()
                .map(|(t, d, b)| (t.as_str(), *d, *b))
                .collect(),
            defs: index.defs.iter().map(|(d, t)| (d.as_str(), *t)).collect(),
            idents: index.idents.iter().map(String::as_str).collect(),
        }
    }

    /// The index as a session's term store takes it.
    pub fn table(&self) -> crate::term_store::TableInput<'_> {
        crate::term_store::TableInput {
            defs_len: self.defs_len,
            body_len: self.body_len,
            tokens: &self.tokens,
            defs: &self.defs,
            idents: &self.idents,
        }
    }

    /// The index encoded in `bytes` ([`FileIndex::encode`]), or `None` when they
    /// are not one.
    pub fn decode(bytes: &'a [u8]) -> Option<IndexView<'a>> {
        let (&version, mut rest) = bytes.split_first()?;
        if version != VERSION {
            return None;
        }
        let mut u32_at = || {
            let (n, tail) = rest.split_first_chunk::<4>()?;
            rest = tail;
            Some(u32::from_le_bytes(*n))
        };
        let defs_len = u32_at()?;
        let body_len = u32_at()?;
        let counts = [u32_at()?, u32_at()?, u32_at()?].map(|n| n as usize);
        let blob_len = u32_at()? as usize;
        if counts.iter().sum::<usize>() > MAX_STRINGS {
            return None;
        }
        let (blob, mut rest) = rest.split_at_checked(blob_len)?;
        let blob = std::str::from_utf8(blob).ok()?;
        // Each record is at least 4 bytes: a count the bytes cannot hold is refused
        // before anything is allocated for it.
        if counts.iter().sum::<usize>() > rest.len() / 4 {
            return None;
        }
        let mut start = 0usize;
        let mut next = |rest: &mut &'a [u8], extra: usize| -> Option<(&'a str, &'a [u8])> {
            let (end, tail) = rest.split_first_chunk::<4>()?;
            let (more, tail) = tail.split_at_checked(extra)?;
            *rest = tail;
            let end = u32::from_le_bytes(*end) as usize;
            let text = blob.get(start..end)?;
            start = end;
            Some((text, more))
        };
        let mut view = IndexView {
            defs_len,
            body_len,
            tokens: Vec::with_capacity(counts[0]),
            defs: Vec::with_capacity(counts[1]),
            idents: Vec::with_capacity(counts[2]),
        };
        for _ in 0..counts[0] {
            let (token, numbers) = next(&mut rest, 8)?;
            let defs = u32::from_le_bytes(numbers[..4].try_into().ok()?);
            let body = u32::from_le_bytes(numbers[4..].try_into().ok()?);
            view.tokens.push((token, defs, body));
        }
        for _ in 0..counts[1] {
            let (name, top) = next(&mut rest, 1)?;
            view.defs.push((name, top[0] != 0));
        }
        for _ in 0..counts[2] {
            view.idents.push(next(&mut rest, 0)?.0);
        }
        (rest.is_empty() && start == blob.len()).then_some(view)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn an_index_reads_back_as_its_view() {
        let texts = [
            "",
            "def convert_currency(amount):\n    return amount * RATE  # héllo\n",
            "class Rate:\n  pass\nfn main() {}\n\u{1F600} naïve",
        ];
        for text in texts {
            let index = FileIndex::of(text);
            let bytes = index.encode();
            assert_eq!(
                IndexView::decode(&bytes),
                Some(IndexView::of(&index)),
                "{text}"
            );
            // Any strict prefix, or a byte more, is no index.
            for cut in 0..bytes.len() {
                assert!(IndexView::decode(&bytes[..cut]).is_none(), "cut at {cut}");
            }
            let mut longer = bytes.clone();
            longer.push(0);
            assert!(IndexView::decode(&longer).is_none());
        }
    }

    proptest! {
        #[test]
        fn any_bytes_decode_without_panic(bytes in proptest::collection::vec(any::<u8>(), 0..256)) {
            let _ = IndexView::decode(&bytes);
        }

        #[test]
        fn damaged_indexes_decode_without_panic(text in "(?s).{0,200}", at in any::<usize>(), bit in 0u8..8) {
            let mut bytes = FileIndex::of(&text).encode();
            let at = at % bytes.len();
            bytes[at] ^= 1 << bit;
            let _ = IndexView::decode(&bytes);
        }

        #[test]
        fn every_text_round_trips(text in "(?s).{0,400}") {
            let index = FileIndex::of(&text);
            let bytes = index.encode();
            prop_assert_eq!(IndexView::decode(&bytes), Some(IndexView::of(&index)));
        }
    }
}
