//! The static table (issue 47): a pretrained sentence model's semantics with no ML
//! runtime. Every WordPiece token of the model's vocabulary has a row, distilled from
//! the model (`benches/distill_table.py`: each token through the transformer, PCA,
//! frequency weighting); a text's vector is the sum of its tokens' rows, and two
//! texts are as close as the cosine of their vectors. A table lookup per token, so it
//! runs in the default path, deterministic and offline.
//!
//! The file (`static_table.bin`, all numbers little-endian) is read by a checked
//! reader like the bridge's: [`StaticTable::parse`] refuses anything but
//! - the magic `DDSTATIC` and [`VERSION`];
//! - the dimension (1..=[`MAX_DIMS`]), the token count (1..=[`MAX_TOKENS`]) and the
//!   flags (bit 0: split camelCase words before tokenizing; no other bit);
//! - the vocabulary: per token a length byte and its UTF-8 bytes, strictly ascending;
//! - the `[UNK]` token's index, or `u32::MAX` for none;
//! - per token its row's scale (f32, finite, at least 0), then the rows (i8): a row's
//!   value is `row[c] * scale` (the frequency weight is folded into the scale);
//! - the xxh3-64 of every byte before it.

use std::collections::HashMap;
use std::sync::OnceLock;

use super::wordpiece::{self, Vocabulary};
use crate::model_bytes::Reader;

/// The first bytes of a table file.
const MAGIC: &[u8; 8] = b"DDSTATIC";
/// The format version this build reads.
pub const VERSION: u32 = 1;
/// The largest dimension a table may have.
pub const MAX_DIMS: u32 = 1024;
/// The most tokens a table may hold (a foreign file is refused before it allocates).
pub const MAX_TOKENS: u32 = 1 << 17;
/// Flag: split camelCase words (`readCsv` → `read Csv`) before tokenizing.
pub const SPLIT_CAMEL: u32 = 1;
/// At most this many tokens of a text count (a task or a definition).
pub const MAX_TEXT_TOKENS: usize = 2_048;

/// A static token table: a text's vector is the weighted sum of its tokens' rows.
#[derive(Debug, Clone, PartialEq)]
pub struct StaticTable {
    dims: usize,
    flags: u32,
    /// The tokens, sorted.
    tokens: Vec<Box<str>>,
    unk: Option<u32>,
    scales: Vec<f32>,
    rows: Vec<i8>,
    /// The checksum of the file: what shapes every vector.
    hash: u64,
}

/// The token lookup of a table, built once per table.
struct Index<'a>(HashMap<&'a str, u32>);

impl Vocabulary for Index<'_> {
    fn id(&self, token: &str) -> Option<u32> {
        self.0.get(token).copied()
    }
}

impl StaticTable {
    /// The committed table, read once; `None` when it does not parse (then no query
    /// has static semantic evidence).
    pub fn builtin() -> Option<&'static StaticTable> {
        static TABLE: OnceLock<Option<StaticTable>> = OnceLock::new();
        TABLE
            .get_or_init(|| StaticTable::parse(include_bytes!("static_table.bin")).ok())
            .as_ref()
    }

    /// An embedder with the committed table, its token lookup built once.
    pub fn builtin_embedder() -> Option<&'static TableEmbedder<'static>> {
        static EMBEDDER: OnceLock<Option<TableEmbedder<'static>>> = OnceLock::new();
        EMBEDDER
            .get_or_init(|| StaticTable::builtin().map(StaticTable::embedder))
            .as_ref()
    }

    /// Reads a table file, checking all of it (see the module's documentation).
    pub fn parse(bytes: &[u8]) -> Result<StaticTable, String> {
        let body_len = bytes
            .len()
            .checked_sub(8)
            .ok_or("a static table file is at least 8 bytes")?;
        let (body, sum) = bytes.split_at(body_len);
        let hash = xxhash_rust::xxh3::xxh3_64(body);
        if sum != hash.to_le_bytes() {
            return Err("the static table's checksum differs: truncated or altered".into());
        }
        let mut r = Reader::new(body, "the static table file");
        if r.take(MAGIC.len())? != MAGIC {
            return Err("not a static table (magic)".into());
        }
        let version = r.u32()?;
        if version != VERSION {
            return Err(format!(
                "static table version {version}; this build reads {VERSION}"
            ));
        }
        let (dims, count, flags) = (r.u32()?, r.u32()?, r.u32()?);
        if !(1..=MAX_DIMS).contains(&dims) || !(1..=MAX_TOKENS).contains(&count) {
            return Err(format!(
                "a static table of {count} tokens × {dims} is out of bounds"
            ));
        }
        if flags & !SPLIT_CAMEL != 0 {
            return Err(format!("unknown static table flags {flags:#x}"));
        }
        let mut tokens: Vec<Box<str>> = Vec::with_capacity(count as usize);
        for _ in 0..count {
            let len = r.take(1)?[0] as usize;
            let token = std::str::from_utf8(r.take(len)?)
                .map_err(|_| "a static table token is not UTF-8")?;
            if token.is_empty() || tokens.last().is_some_and(|last| **last >= *token) {
                return Err("the static table's tokens are not strictly sorted".into());
            }
            tokens.push(token.into());
        }
        let unk = match r.u32()? {
            u32::MAX => None,
            k if k < count => Some(k),
            k => {
                return Err(format!(
                    "the static table's [UNK] index {k} is out of range"
                ));
            }
        };
        let scales: Vec<f32> = r
            .take(count as usize * 4)?
            .chunks_exact(4)
            .map(|b| f32::from_le_bytes([b[0], b[1], b[2], b[3]]))
            .collect();
        if scales.iter().any(|s| !s.is_finite() || *s < 0.0) {
            return Err("a static table scale is negative or not finite".into());
        }
        let rows: Vec<i8> = r
            .take(count as usize * dims as usize)?
            .iter()
            .map(|&b| b as i8)
            .collect();
        if !r.at_end() {
            return Err("bytes after the static table's rows".into());
        }
        Ok(StaticTable {
            dims: dims as usize,
            flags,
            tokens,
            unk,
            scales,
            rows,
            hash,
        })
    }

    /// The dimension of its vectors.
    pub fn dims(&self) -> usize {
        self.dims
    }

    /// How many tokens it has rows for.
    pub fn len(&self) -> usize {
        self.tokens.len()
    }

    /// Whether it has no token (never, for a table [`StaticTable::parse`] accepts).
    pub fn is_empty(&self) -> bool {
        self.tokens.is_empty()
    }

    /// The checksum of its file: equal tables give equal vectors.
    pub fn hash(&self) -> u64 {
        self.hash
    }

    /// An embedder of texts with this table: its token lookup is built once.
    pub fn embedder(&self) -> TableEmbedder<'_> {
        let index = self
            .tokens
            .iter()
            .enumerate()
            .map(|(k, t)| (&**t, k as u32))
            .collect();
        TableEmbedder {
            table: self,
            index: Index(index),
        }
    }
}

/// Embeds texts with a [`StaticTable`].
pub struct TableEmbedder<'a> {
    table: &'a StaticTable,
    index: Index<'a>,
}

impl TableEmbedder<'_> {
    /// The checksum of its table's file (see [`StaticTable::hash`]).
    pub fn table_hash(&self) -> u64 {
        self.table.hash
    }

    /// The text's token ids: WordPiece over the table's vocabulary (camelCase words
    /// split first when the table says so), at most [`MAX_TEXT_TOKENS`].
    pub fn token_ids(&self, text: &str) -> Vec<u32> {
        let split;
        let text = if self.table.flags & SPLIT_CAMEL != 0 {
            split = split_camel(text);
            split.as_str()
        } else {
            text
        };
        wordpiece::token_ids(text, &self.index, self.table.unk, MAX_TEXT_TOKENS)
    }

    /// The text's vector: the sum of its tokens' rows; `None` for a text with no
    /// token, or whose rows sum to zero.
    pub fn embed(&self, text: &str) -> Option<Vec<f32>> {
        let dims = self.table.dims;
        let mut sum = vec![0.0f32; dims];
        for id in self.token_ids(text) {
            let k = id as usize;
            let scale = self.table.scales[k];
            let row = &self.table.rows[k * dims..(k + 1) * dims];
            for (s, &v) in sum.iter_mut().zip(row) {
                *s += f32::from(v) * scale;
            }
        }
        sum.iter().any(|&v| v != 0.0).then_some(sum)
    }
}

/// `readCsv` → `read Csv`, `HTTPServer` → `HTTP Server`: a space where a lowercase
/// letter or digit meets an uppercase one, and before the last capital of a run
/// followed by a lowercase letter.
pub fn split_camel(text: &str) -> String {
    let chars: Vec<char> = text.chars().collect();
    let mut out = String::with_capacity(text.len() + text.len() / 8);
    for (k, &c) in chars.iter().enumerate() {
        if k > 0 && c.is_uppercase() {
            let prev = chars[k - 1];
            let next_lower = chars.get(k + 1).is_some_and(|n| n.is_lowercase());
            if prev.is_lowercase() || prev.is_ascii_digit() || (prev.is_uppercase() && next_lower) {
                out.push(' ');
            }
        }
        out.push(c);
    }
    out
}

/// Writes a table file (the format [`StaticTable::parse`] reads): for the tests and
/// the fuzz target; `benches/distill_table.py` writes the shipped one.
#[doc(hidden)]
pub fn write_table(
    dims: u32,
    flags: u32,
    tokens: &[&str],
    unk: Option<u32>,
    scales: &[f32],
    rows: &[i8],
) -> Vec<u8> {
    let mut out = MAGIC.to_vec();
    for v in [VERSION, dims, tokens.len() as u32, flags] {
        out.extend(v.to_le_bytes());
    }
    for t in tokens {
        out.push(t.len() as u8);
        out.extend(t.as_bytes());
    }
    out.extend(unk.unwrap_or(u32::MAX).to_le_bytes());
    for s in scales {
        out.extend(s.to_le_bytes());
    }
    out.extend(rows.iter().map(|&v| v as u8));
    let hash = xxhash_rust::xxh3::xxh3_64(&out);
    out.extend(hash.to_le_bytes());
    out
}

/// The fuzz target's check of the reader on any bytes: it never panics, the same
/// bytes read the same, and a table it accepts embeds text (any text) to vectors of
/// its dimension with finite values, the same twice.
#[doc(hidden)]
pub fn check_table(bytes: &[u8], text: &str) {
    let first = StaticTable::parse(bytes);
    assert_eq!(first, StaticTable::parse(bytes));
    let read;
    let embedder = match &first {
        Ok(table) => {
            read = table.embedder();
            &read
        }
        Err(_) => match StaticTable::builtin_embedder() {
            Some(embedder) => embedder,
            None => return,
        },
    };
    let once = embedder.embed(text);
    assert_eq!(once, embedder.embed(text));
    if let Some(v) = once {
        assert_eq!(v.len(), embedder.table.dims());
        assert!(v.iter().all(|x| x.is_finite()));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tiny() -> Vec<u8> {
        // Three dimensions; "slow" and "perf" point the same way, "crash" apart.
        let tokens = ["##s", "[UNK]", "crash", "perf", "slow"];
        let rows: [i8; 15] = [0, 0, 1, 0, 0, 1, 0, 127, 0, 127, 0, 0, 127, 10, 0];
        write_table(
            3,
            SPLIT_CAMEL,
            &tokens,
            Some(1),
            &[1.0, 0.0, 1.0, 0.5, 1.0],
            &rows,
        )
    }

    #[test]
    fn reads_and_embeds() {
        let table = StaticTable::parse(&tiny()).unwrap();
        assert_eq!((table.dims(), table.len()), (3, 5));
        let e = table.embedder();
        let slow = e.embed("Slow").unwrap();
        let perf = e.embed("perf").unwrap();
        let crash = e.embed("crashs").unwrap();
        assert!(super::super::cosine(&slow, &perf) > 0.99);
        assert!(super::super::cosine(&slow, &crash) < 0.1);
        // [UNK]'s row is zero: a text of unknown words has no vector.
        assert_eq!(e.embed("zzz qqq"), None);
        assert_eq!(e.embed(""), None);
        // camelCase is split: "slowPerf" is slow + perf.
        assert_eq!(e.token_ids("slowPerf"), vec![4, 3]);
    }

    #[test]
    fn refuses_every_truncation_and_flipped_byte() {
        let bytes = tiny();
        for n in 0..bytes.len() {
            assert!(StaticTable::parse(&bytes[..n]).is_err(), "truncated at {n}");
        }
        for k in 0..bytes.len() {
            let mut flipped = bytes.clone();
            flipped[k] ^= 0x10;
            assert!(StaticTable::parse(&flipped).is_err(), "flipped byte {k}");
        }
    }

    #[test]
    fn refuses_what_the_checksum_cannot_see() {
        let rows = [1i8; 6];
        let bad = [
            write_table(3, 0, &["b", "a"], None, &[1.0, 1.0], &rows),
            write_table(3, 0, &["a", "a"], None, &[1.0, 1.0], &rows),
            write_table(3, 4, &["a", "b"], None, &[1.0, 1.0], &rows),
            write_table(3, 0, &["a", "b"], Some(2), &[1.0, 1.0], &rows),
            write_table(3, 0, &["a", "b"], None, &[f32::NAN, 1.0], &rows),
            write_table(3, 0, &["a", "b"], None, &[-1.0, 1.0], &rows),
            write_table(0, 0, &["a", "b"], None, &[1.0, 1.0], &[]),
            write_table(3, 0, &["a", "b"], None, &[1.0, 1.0], &rows[..5]),
        ];
        for (k, bytes) in bad.iter().enumerate() {
            assert!(StaticTable::parse(bytes).is_err(), "case {k}");
        }
        assert!(
            StaticTable::parse(&write_table(3, 0, &["a", "b"], None, &[1.0, 1.0], &rows)).is_ok()
        );
    }

    #[test]
    fn splits_camel_case() {
        assert_eq!(split_camel("readCsv"), "read Csv");
        assert_eq!(split_camel("HTTPServer"), "HTTP Server");
        assert_eq!(split_camel("parse2Json"), "parse2 Json");
        assert_eq!(split_camel("snake_case ALLCAPS"), "snake_case ALLCAPS");
    }

    #[test]
    fn the_builtin_table_reads_and_is_small() {
        let table = StaticTable::builtin().expect("static_table.bin must parse");
        assert!(table.len() > 20_000 && table.dims() <= 256);
        let e = table.embedder();
        let task = e
            .embed("slow performance when a dataframe has many columns")
            .unwrap();
        let near = e
            .embed("def _reindex_columns(self, columns): reindex the frame's columns")
            .unwrap();
        let far = e
            .embed("def send_email(to, subject): send a message over smtp")
            .unwrap();
        assert!(super::super::cosine(&task, &near) > super::super::cosine(&task, &far));
    }
}
