//! The neighbourhood a query's graph is built over: the Location stage's narrowing
//! bounds what gets parsed (no index, and no full parse of the repository).
//!
//! Relations are found from parsed facts, but a file can only be linked to the task's
//! anchors if it names something they define, or defines something they name. Both
//! leave a trace in the text: an importer writes the module's name, a caller the
//! function's, a subclass the base's, a test the class under test, a configuration
//! file the key the code reads. So the scope grows from the seeds (the anchors and
//! the best Location candidates) in rounds: parse the frontier, collect the names its
//! facts expose and use, find which other files write those names as identifiers
//! (from the identifier hashes the Location stage's lexical pass kept of every file,
//! so nothing is read again), and take the files that share the rarest names with
//! the strongest seeds. Names found in many files (`get`, `Symbol` in sympy) link
//! everything to everything and are left out, as the graph's hub discount would
//! weigh them down anyway.
//!
//! Files outside the scope stay in the graph as nodes with their path-based
//! (organizational) relations, and explicit links from the scope resolve to them by
//! path; only their own outgoing facts are unknown.

use std::collections::{BTreeMap, BTreeSet, HashMap, HashSet};

use std::sync::Arc;

use rayon::prelude::*;

use crate::facts::Facts;
use crate::hashing::ContentMap;
use crate::locate::lexical::{WordMap, word_hash};
use crate::resolve::{file_name, parent_dir};
use crate::session::{ArtifactInfo, Session};

/// Rounds of growth at most.
const MAX_ROUNDS: usize = 4;

/// How far and how wide the scope grows.
#[derive(Debug, Clone, Copy, PartialEq, serde::Serialize)]
pub struct ScopeLimits {
    /// Rounds of growth from the seeds (each parses one frontier).
    pub rounds: usize,
    /// Files added per round at most.
    pub per_round: usize,
    /// A name found in more files than this is too common to link anything.
    pub max_name_files: usize,
    /// Names taken from one file at most (in the order its facts list them).
    pub max_names_per_file: usize,
    /// A file larger than this (in bytes) joins the scope only as an anchor: neither
    /// the best candidates beyond the anchors nor growth parse it. Such files are
    /// mostly generated (rule tables, bundled headers, vendored data), one can cost
    /// seconds and tens of MiB to parse, and a round that reaches several of them
    /// costs more than the rest of the query. An anchor of any size is parsed: the
    /// task pointed at it.
    pub max_file_bytes: u64,
}

impl Default for ScopeLimits {
    fn default() -> Self {
        ScopeLimits {
            rounds: 2,
            per_round: 48,
            max_name_files: 24,
            max_names_per_file: 100,
            max_file_bytes: 256 << 10,
        }
    }
}

impl ScopeLimits {
    /// The files of `artifacts` over [`ScopeLimits::max_file_bytes`]: parsed for
    /// the scope only when they are anchors.
    pub(crate) fn large_files<'a>(&self, artifacts: &'a [ArtifactInfo]) -> HashSet<&'a str> {
        artifacts
            .iter()
            .filter(|a| a.size > self.max_file_bytes)
            .map(|a| a.path.as_str())
            .collect()
    }

    /// Checks the limits: at most four rounds, names shared by one file at least.
    ///
    /// # Errors
    /// [`crate::Error::InvalidConfig`] naming the limit at fault.
    pub fn validate(&self) -> crate::Result<()> {
        if self.rounds > MAX_ROUNDS {
            return Err(crate::Error::InvalidConfig(format!(
                "scope.rounds must be at most {MAX_ROUNDS}, got {}",
                self.rounds
            )));
        }
        if self.max_name_files == 0 {
            return Err(crate::Error::InvalidConfig(
                "scope.max_name_files must be at least 1".into(),
            ));
        }
        Ok(())
    }
}

/// Grows the scope of one query's graph from `seeds` (path, weight in [0, 1]):
/// every file whose facts the graph uses, sorted.
pub(crate) fn neighbourhood(
    session: &Session,
    artifacts: &[ArtifactInfo],
    words: &ContentMap<String, Arc<[u32]>>,
    seeds: &[(String, f32)],
    limits: ScopeLimits,
) -> Vec<String> {
    let mut scope: BTreeSet<String> = seeds.iter().map(|(p, _)| p.clone()).collect();
    let mut frontier: Vec<(String, f32)> = seeds.to_vec();
    let large = limits.large_files(artifacts);
    for _ in 0..limits.rounds {
        if frontier.is_empty() {
            break;
        }
        let weights: HashMap<&str, f32> = frontier.iter().map(|(p, w)| (p.as_str(), *w)).collect();
        let paths: Vec<&str> = frontier.iter().map(|(p, _)| p.as_str()).collect();
        let mut names: BTreeMap<String, f32> = BTreeMap::new();
        let mut by_path: BTreeMap<String, f32> = BTreeMap::new();
        let listed = session.facts_listed(&paths);
        let stems = StemIndex::new(artifacts, listed.iter().map(|(_, facts)| facts.as_ref()));
        for (path, facts) in listed {
            let weight = weights.get(path.as_str()).copied().unwrap_or(0.0);
            for name in names_of(&path, &facts, limits.max_names_per_file) {
                let entry = names.entry(name).or_insert(0.0);
                *entry = entry.max(weight);
            }
            for target in stems.import_targets(&facts, limits.max_name_files) {
                let entry = by_path.entry(target.to_string()).or_insert(0.0);
                *entry = entry.max(weight);
            }
        }
        let outside: Vec<&str> = artifacts
            .iter()
            .map(|a| a.path.as_str())
            .filter(|p| !scope.contains(*p) && !large.contains(p))
            .collect();
        let mut score = mention_scores(words, &outside, &names, limits.max_name_files);
        for (path, weight) in by_path {
            if !scope.contains(&path) && !large.contains(path.as_str()) {
                *score.entry(path).or_insert(0.0) += weight;
            }
        }
        let mut ranked: Vec<(String, f32)> = score.into_iter().filter(|(_, s)| *s > 0.0).collect();
        ranked.sort_by(|a, b| b.1.total_cmp(&a.1).then_with(|| a.0.cmp(&b.0)));
        ranked.truncate(limits.per_round);
        // The next round's weights: one hop further, the best file of this round is
        // half as strong as the frontier's strongest, the others in proportion.
        let top = ranked.first().map_or(1.0, |r| r.1).max(1e-6);
        let strongest = frontier.iter().map(|f| f.1).fold(0.0f32, f32::max);
        frontier = ranked
            .into_iter()
            .map(|(p, s)| (p, 0.5 * strongest * (s / top).min(1.0)))
            .collect();
        scope.extend(frontier.iter().map(|(p, _)| p.clone()));
    }
    scope.into_iter().collect()
}

/// The names a file's facts expose (its module name, its definitions, its keys) and
/// use (imports, references, supertypes, decorations, string arguments): whatever
/// another file must write to be linked to it.
fn names_of(path: &str, facts: &Facts, cap: usize) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    let mut push = |raw: &str| {
        let name = last_segment(raw);
        if is_searchable(name) {
            out.push(name.to_string());
        }
    };
    let name = file_name(path);
    let stem = name.split('.').next().unwrap_or(name);
    if stem.starts_with("__") || matches!(stem, "index" | "mod" | "lib" | "main") {
        push(file_name(parent_dir(path)));
    } else {
        push(stem);
    }
    if let Some(package) = &facts.package {
        push(package);
    }
    for d in &facts.definitions {
        push(&d.name);
    }
    for key in &facts.string_keys {
        push(&key.key);
    }
    for s in &facts.supertypes {
        push(&s.parent);
    }
    for i in &facts.imports {
        push(&i.target);
        for n in &i.names {
            push(n);
        }
    }
    for d in &facts.decorations {
        push(&d.name);
        for a in &d.args {
            push(a);
        }
    }
    for c in &facts.calls_with_args {
        for a in &c.args {
            push(a);
        }
    }
    for r in &facts.references {
        push(&r.name);
    }
    let mut seen = std::collections::HashSet::new();
    out.retain(|n| seen.insert(n.clone()));
    out.truncate(cap);
    out
}

/// The last part of a qualified name (`a.b.C`, `a::b::C`, `a/b/c`, `pkg\\C`).
fn last_segment(raw: &str) -> &str {
    let raw = raw.trim_matches(|c: char| c == '"' || c == '\'' || c.is_whitespace());
    raw.rsplit(['.', ':', '/', '\\'])
        .find(|s| !s.is_empty())
        .unwrap_or("")
}

/// Worth searching for: an identifier (`[A-Za-z_][A-Za-z0-9_]*`, as the lexical
/// pass reads them) of three characters or more, with a letter.
fn is_searchable(name: &str) -> bool {
    name.len() >= 3
        && name.len() <= 80
        && name.starts_with(|c: char| c.is_ascii_alphabetic() || c == '_')
        && name.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_')
        && name.bytes().any(|b| b.is_ascii_alphabetic())
}

/// Scores the files of `paths` by the names of `names` they write (as whole
/// identifiers, from the lexical pass's word hashes, so no file is read again):
/// Σ weight(name) / (files writing the name), names found in more than `max_files`
/// files left out. A file the lexical pass did not read (beyond `budget.max_files`)
/// is found by no name. The hashes are 32-bit: a chance collision (about one file in
/// three thousand per round, for a few thousand names) adds one weak, wrong hit.
fn mention_scores(
    words: &ContentMap<String, Arc<[u32]>>,
    paths: &[&str],
    names: &BTreeMap<String, f32>,
    max_files: usize,
) -> HashMap<String, f32> {
    let weights: Vec<f32> = names.values().copied().collect();
    // Two names with one hash would share their files: the first (in name order) wins.
    let mut by_hash: WordMap<u32, u32> = WordMap::default();
    for (i, name) in names.keys().enumerate() {
        by_hash.entry(word_hash(name)).or_insert(i as u32);
    }
    if by_hash.is_empty() {
        return HashMap::new();
    }
    let names_seen = HashBits::of(by_hash.keys().copied());
    let found: Vec<(usize, Vec<u32>)> = paths
        .par_iter()
        .enumerate()
        .filter_map(|(i, path)| {
            let hits: Vec<u32> = words
                .get(*path)?
                .iter()
                .filter(|&&h| names_seen.may_hold(h))
                .filter_map(|h| by_hash.get(h).copied())
                .collect();
            (!hits.is_empty()).then_some((i, hits))
        })
        .collect();
    let mut files_per_name = vec![0usize; names.len()];
    for (_, hits) in &found {
        for &h in hits {
            files_per_name[h as usize] += 1;
        }
    }
    let mut scores = HashMap::new();
    for (i, hits) in found {
        let score: f32 = hits
            .iter()
            .map(|&h| h as usize)
            .filter(|&h| files_per_name[h] <= max_files)
            .map(|h| weights[h] / files_per_name[h] as f32)
            .sum();
        if score > 0.0 {
            scores.insert(paths[i].to_string(), score);
        }
    }
    scores
}

/// A 65,536-bit filter of word hashes (8 KiB, in L1 cache): a word whose bit is clear
/// is none of the names, and most words of a file are none. A warm query at 25,000
/// files probes some five million words against a few thousand names; the filter
/// spares most of them the hash-map probe.
struct HashBits(Vec<u64>);

impl HashBits {
    fn of(hashes: impl Iterator<Item = u32>) -> HashBits {
        let mut bits = vec![0u64; 1024];
        for h in hashes {
            let at = Self::slot(h);
            bits[at >> 6] |= 1 << (at & 63);
        }
        HashBits(bits)
    }

    fn may_hold(&self, h: u32) -> bool {
        let at = Self::slot(h);
        self.0[at >> 6] >> (at & 63) & 1 != 0
    }

    /// 16 well-mixed bits of the hash.
    fn slot(h: u32) -> usize {
        (h.wrapping_mul(0x9E37_79B1) >> 16) as usize
    }
}

/// File stems → paths, to follow imports by name before anything is resolved: the
/// stems the imports of one round's files can ask for, each with every file that has
/// it (a listing of a million files has as many stems; a round asks for a few
/// hundred).
struct StemIndex<'a>(ContentMap<String, Vec<&'a str>>);

impl<'a> StemIndex<'a> {
    fn new<'f>(artifacts: &'a [ArtifactInfo], importers: impl Iterator<Item = &'f Facts>) -> Self {
        let mut map: ContentMap<String, Vec<&str>> = ContentMap::default();
        for facts in importers {
            for import in &facts.imports {
                for segment in import_segments(&import.target) {
                    if !map.contains_key(segment) {
                        map.insert(segment.to_string(), Vec::new());
                    }
                }
            }
        }
        for a in artifacts {
            let name = file_name(&a.path);
            let stem = name.split('.').next().unwrap_or(name);
            if let Some(paths) = map.get_mut(stem) {
                paths.push(&a.path);
            }
        }
        StemIndex(map)
    }

    /// Files whose stem is a segment of an import target (`a.b.c` → files named
    /// `b.*` or `c.*`), names shared by more than `max_files` files left out.
    fn import_targets(&self, facts: &Facts, max_files: usize) -> Vec<&'a str> {
        let mut out = Vec::new();
        for import in &facts.imports {
            for segment in import_segments(&import.target) {
                if let Some(paths) = self.0.get(segment)
                    && paths.len() <= max_files
                {
                    out.extend(paths.iter().copied());
                }
            }
        }
        out
    }
}

/// The segments of an import target a file's stem may match (`a.b.c` → `a`, `b`, `c`),
/// of two characters at least.
fn import_segments(target: &str) -> impl Iterator<Item = &str> {
    target
        .split(['.', ':', '/', '\\'])
        .filter(|segment| segment.len() >= 2)
}
