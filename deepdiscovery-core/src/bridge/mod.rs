//! The vocabulary bridge's model: a translation table from the words of a task to
//! the words of the code that fixes it, learned from public history.
//!
//! Issue reports and code use different words: "slow" is fixed in a file that says
//! `cache`, "crashes when empty" in one that says `len` and `is_empty`. The bridge is
//! a translation table in the manner of a translation language model (Berger and
//! Lafferty, 1999): per task term `q`, the code terms `w` with their probability
//! `p(w | q)`, estimated by `benches/train_bridge.py` from task -> changed-file pairs
//! mined from the public history of repositories none of which is a benchmark's.
//!
//! A query is *expanded* with the code terms its words translate to
//! ([`Bridge::expand`]); the Location stage (`locate::bridge`) counts and scores
//! them. The model is a compact binary file ([`Bridge::parse`] refuses anything
//! else), committed as `bridge.bin` and evaluated here, with no ML runtime. It is
//! its own module, apart from the Location stage, because a [`Session`] holds one
//! (the user's, or the built-in one) and the stage reads it from the session.
//!
//! [`Session`]: crate::Session

use std::collections::{HashMap, HashSet};
use std::sync::OnceLock;

use crate::model_bytes::Reader;

/// The first bytes of a bridge file.
const MAGIC: &[u8; 8] = b"DDBRIDGE";
/// The format version this build reads.
const VERSION: u32 = 1;
/// The most terms a model may hold on either side (a foreign file is refused before
/// it allocates much).
const MAX_TERMS: u32 = 1 << 20;
/// The most translations a model may hold.
const MAX_ENTRIES: u32 = 1 << 24;
/// The longest term (the tokenizer keeps no longer word).
const MAX_TERM_LEN: usize = 64;

/// How many code terms an expanded query keeps (the heaviest).
pub const MAX_EXPANSION: usize = 192;
/// How many task terms an expansion term names as its sources.
const MAX_SOURCES: usize = 3;

/// A translation table from task terms to code terms.
#[derive(Debug, Clone, PartialEq)]
pub struct Bridge {
    /// Task terms, sorted; `offsets[i]..offsets[i + 1]` are term `i`'s translations.
    task: Vec<Box<str>>,
    offsets: Vec<u32>,
    /// Code terms, sorted.
    code: Vec<Box<str>>,
    /// Per translation: the code term and `p(code term | task term)`.
    entries: Vec<(u32, f32)>,
}

/// What the task's terms lend one code term: the sum, and each term's share.
type Lent = (f32, Vec<(u32, f32)>);

/// One code term of an expanded query.
#[derive(Debug, Clone, PartialEq)]
pub struct Expansion {
    /// The code term (normalized as the lexical pass normalizes tokens).
    pub term: String,
    /// Its weight: the sum over the task's terms of their weight times
    /// `p(term | task term)`.
    pub weight: f32,
    /// The task terms it came from (their indexes into the query's terms), heaviest
    /// first, with what each lent.
    pub sources: Vec<(u32, f32)>,
}

impl Bridge {
    /// The committed model, read once; `None` when it does not parse (then no query
    /// is expanded).
    pub fn builtin() -> Option<&'static Bridge> {
        static MODEL: OnceLock<Option<Bridge>> = OnceLock::new();
        MODEL
            .get_or_init(|| Bridge::parse(include_bytes!("bridge.bin")).ok())
            .as_ref()
    }

    /// Reads a model file, checking all of it: magic, version, sizes, sorted ASCII
    /// terms, translations in range with probabilities in (0, 1], the checksum.
    pub fn parse(bytes: &[u8]) -> Result<Bridge, String> {
        let body_len = bytes
            .len()
            .checked_sub(8)
            .ok_or("not a bridge model: too short")?;
        let (body, sum) = bytes.split_at(body_len);
        let mut r = Reader::new(body, "bridge model");
        if r.take(8)? != MAGIC {
            return Err("not a bridge model: bad magic".into());
        }
        let version = r.u32()?;
        if version != VERSION {
            return Err(format!(
                "bridge model version {version}, this build reads {VERSION}"
            ));
        }
        let expected = u64::from_le_bytes(sum.try_into().map_err(|_| "truncated")?);
        if xxhash_rust::xxh3::xxh3_64(body) != expected {
            return Err("bridge model checksum mismatch".into());
        }
        let task_count = r.u32()?;
        let code_count = r.u32()?;
        let entry_count = r.u32()?;
        if task_count > MAX_TERMS || code_count > MAX_TERMS || entry_count > MAX_ENTRIES {
            return Err("bridge model too large".into());
        }
        let code = terms(&mut r, code_count)?;
        let task = terms(&mut r, task_count)?;
        let mut offsets = Vec::with_capacity(task.len() + 1);
        offsets.push(0u32);
        for _ in 0..task_count {
            let n = r.u32()?;
            let last = *offsets.last().unwrap_or(&0);
            let next = last.checked_add(n).filter(|&e| e <= entry_count);
            offsets.push(next.ok_or("bridge model: translation counts overflow")?);
        }
        if offsets.last().copied() != Some(entry_count) {
            return Err("bridge model: translation counts do not add up".into());
        }
        let mut entries = Vec::with_capacity(entry_count as usize);
        for _ in 0..entry_count {
            let id = r.u32()?;
            let p = f32::from(r.u16()?) / f32::from(u16::MAX);
            if id >= code_count || p <= 0.0 {
                return Err("bridge model: a translation is out of range".into());
            }
            entries.push((id, p));
        }
        if !r.at_end() {
            return Err("bridge model: trailing bytes".into());
        }
        Ok(Bridge {
            task,
            offsets,
            code,
            entries,
        })
    }

    /// How many task terms the model translates.
    pub fn len(&self) -> usize {
        self.task.len()
    }

    /// The task terms the model translates, sorted.
    pub fn known_terms(&self) -> impl Iterator<Item = &str> {
        self.task.iter().map(|t| &**t)
    }

    /// Whether the model translates nothing.
    pub fn is_empty(&self) -> bool {
        self.task.is_empty()
    }

    /// The code terms a task term translates to, with `p(code term | task term)`,
    /// most probable first (empty for a term the model does not know).
    pub fn translations(&self, task_term: &str) -> impl Iterator<Item = (&str, f32)> {
        let range = match self.task.binary_search_by(|t| (**t).cmp(task_term)) {
            Ok(i) => self.offsets[i] as usize..self.offsets[i + 1] as usize,
            Err(_) => 0..0,
        };
        self.entries[range]
            .iter()
            .map(|&(id, p)| (&*self.code[id as usize], p))
    }

    /// The query's terms (with their weights) expanded into code terms: each code
    /// term weighted by `Σ_q w_q · p(term | q)` (the translation model's expected
    /// count), the task's own terms left out, the [`MAX_EXPANSION`] heaviest kept,
    /// sorted by term.
    pub fn expand(&self, terms: &[(String, f32)]) -> Vec<Expansion> {
        let own: HashSet<&str> = terms.iter().map(|(t, _)| t.as_str()).collect();
        let mut by_term: HashMap<&str, Lent> = HashMap::new();
        for (q, (term, weight)) in terms.iter().enumerate() {
            for (code, p) in self.translations(term) {
                if own.contains(code) {
                    continue;
                }
                let entry = by_term.entry(code).or_default();
                entry.0 += weight * p;
                entry.1.push((q as u32, weight * p));
            }
        }
        let mut out: Vec<Expansion> = by_term
            .into_iter()
            .map(|(term, (weight, mut sources))| {
                sources.sort_by(|a, b| b.1.total_cmp(&a.1).then(a.0.cmp(&b.0)));
                sources.truncate(MAX_SOURCES);
                Expansion {
                    term: term.to_string(),
                    weight,
                    sources,
                }
            })
            .collect();
        out.sort_by(|a, b| b.weight.total_cmp(&a.weight).then(a.term.cmp(&b.term)));
        out.truncate(MAX_EXPANSION);
        out.sort_by(|a, b| a.term.cmp(&b.term));
        out
    }
}

/// `n` terms, each a length byte and that many bytes of `[a-z0-9]`, strictly
/// increasing.
fn terms(r: &mut Reader<'_>, n: u32) -> Result<Vec<Box<str>>, String> {
    let mut out: Vec<Box<str>> = Vec::with_capacity(n.min(1 << 16) as usize);
    for _ in 0..n {
        let len = r.take(1)?[0] as usize;
        let bytes = r.take(len)?;
        let ok = (1..=MAX_TERM_LEN).contains(&len)
            && bytes
                .iter()
                .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit());
        if !ok {
            return Err("bridge model: a term is not a normalized token".into());
        }
        let term = std::str::from_utf8(bytes).map_err(|e| e.to_string())?;
        if out.last().is_some_and(|last| **last >= *term) {
            return Err("bridge model: terms are not sorted".into());
        }
        out.push(term.into());
    }
    Ok(out)
}

/// Writes a model file (the trainer's format, for tests and tools): `table` maps task
/// terms to `(code term, p)` lists.
pub fn encode(table: &[(&str, Vec<(&str, f32)>)]) -> Vec<u8> {
    let mut task: Vec<&str> = table.iter().map(|(t, _)| *t).collect();
    task.sort_unstable();
    task.dedup();
    let mut code: Vec<&str> = table
        .iter()
        .flat_map(|(_, list)| list.iter().map(|(c, _)| *c))
        .collect();
    code.sort_unstable();
    code.dedup();
    let id = |c: &str| code.binary_search(&c).unwrap_or(0) as u32;
    let mut lists: Vec<Vec<(u32, u16)>> = Vec::with_capacity(task.len());
    for t in &task {
        let mut list: Vec<(u32, u16)> = table
            .iter()
            .filter(|(q, _)| q == t)
            .flat_map(|(_, l)| l.iter())
            .map(|&(c, p)| {
                (
                    id(c),
                    (p.clamp(0.0, 1.0) * f32::from(u16::MAX)).round() as u16,
                )
            })
            .filter(|&(_, q)| q > 0)
            .collect();
        list.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(&b.0)));
        lists.push(list);
    }
    let mut out = Vec::new();
    out.extend_from_slice(MAGIC);
    out.extend_from_slice(&VERSION.to_le_bytes());
    let entries: usize = lists.iter().map(Vec::len).sum();
    for n in [task.len(), code.len(), entries] {
        out.extend_from_slice(&(n as u32).to_le_bytes());
    }
    for term in code.iter().chain(&task) {
        out.push(term.len() as u8);
        out.extend_from_slice(term.as_bytes());
    }
    for list in &lists {
        out.extend_from_slice(&(list.len() as u32).to_le_bytes());
    }
    for list in &lists {
        for &(c, p) in list {
            out.extend_from_slice(&c.to_le_bytes());
            out.extend_from_slice(&p.to_le_bytes());
        }
    }
    let sum = xxhash_rust::xxh3::xxh3_64(&out);
    out.extend_from_slice(&sum.to_le_bytes());
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn model() -> Bridge {
        let bytes = encode(&[
            ("slow", vec![("cache", 0.5), ("memo", 0.25), ("slow", 0.1)]),
            ("empty", vec![("len", 0.6)]),
        ]);
        Bridge::parse(&bytes).expect("a model encode writes parses")
    }

    #[test]
    fn the_committed_model_parses_and_translates() {
        let bridge = Bridge::builtin().expect("bridge.bin must parse");
        assert!(bridge.len() > 1000, "{} task terms", bridge.len());
        assert!(
            bridge
                .known_terms()
                .all(|t| bridge.translations(t).count() > 0)
        );
    }

    #[test]
    fn a_model_reads_back_what_was_written() {
        let bridge = model();
        assert_eq!(bridge.len(), 2);
        let slow: Vec<(&str, f32)> = bridge.translations("slow").collect();
        assert_eq!(
            slow.iter().map(|t| t.0).collect::<Vec<_>>(),
            ["cache", "memo", "slow"]
        );
        assert!((slow[0].1 - 0.5).abs() < 1e-4);
        assert_eq!(bridge.translations("fast").count(), 0);
    }

    #[test]
    fn expansion_weighs_translations_and_leaves_the_tasks_own_terms_out() {
        let bridge = model();
        let terms = vec![
            ("empty".to_string(), 1.0),
            ("memo".to_string(), 1.0),
            ("slow".to_string(), 2.0),
        ];
        let expansion = bridge.expand(&terms);
        let names: Vec<&str> = expansion.iter().map(|e| e.term.as_str()).collect();
        // `memo` is the task's own term and `slow` translates to itself: both out.
        assert_eq!(names, ["cache", "len"]);
        assert!((expansion[0].weight - 1.0).abs() < 1e-3);
        assert_eq!(expansion[0].sources[0].0, 2, "cache came from `slow`");
        assert!((expansion[1].weight - 0.6).abs() < 1e-3);
    }

    #[test]
    fn malformed_or_foreign_models_are_refused() {
        let good = encode(&[("slow", vec![("cache", 0.5)])]);
        assert!(Bridge::parse(&good).is_ok());
        assert!(Bridge::parse(b"").is_err());
        assert!(Bridge::parse(br#"{"kind":"trees"}"#).is_err());
        // Every truncation and every flipped byte is caught (the checksum at least).
        for cut in 0..good.len() {
            assert!(Bridge::parse(&good[..cut]).is_err(), "cut at {cut}");
        }
        for at in 0..good.len() {
            let mut bad = good.clone();
            bad[at] ^= 0x41;
            assert!(Bridge::parse(&bad).is_err(), "flip at {at}");
        }
        // A well-formed file with a term that is no token: refused after the checksum.
        let bad = encode(&[("Slow", vec![("cache", 0.5)])]);
        assert!(Bridge::parse(&bad).unwrap_err().contains("normalized"));
    }
}
