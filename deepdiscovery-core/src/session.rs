//! A `Session`: one repository, its facts cached across queries and revalidated on
//! every query, so answers are fast on the second call and never stale.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::{SystemTime, UNIX_EPOCH};

use rayon::prelude::*;
use serde::Serialize;

use crate::artifact::{Language, Role};
use crate::facts::{self, Facts};
use crate::graph::{GraphInput, InputArtifact, RelationRule, RepoGraph, build_graph};
use crate::resolve::{IndexedFile, RepoIndex, file_name};
use crate::source::{Entry, RepoSource, SkipReason, SkipStats, Stamp, looks_binary};
use crate::{Error, Result};

/// A modification time this close (ns) to the moment the file was read cannot prove
/// that the content is unchanged (a second write within the clock's granularity
/// keeps the mtime): such files are re-hashed on the next query (git's "racy" rule).
const RACY_WINDOW_NS: u128 = 2_000_000_000;

/// One artifact as the session knows it.
#[derive(Debug, Clone)]
pub struct ArtifactInfo {
    /// Repository-relative path.
    pub path: String,
    /// Size in bytes.
    pub size: u64,
    /// Detected language.
    pub language: Language,
    /// Artifact role.
    pub role: Role,
    /// Facts, once computed.
    pub facts: Option<Arc<Facts>>,
}

#[derive(Debug, Clone)]
struct Cached {
    entry: Entry,
    content_hash: u64,
    read_at_ns: u128,
    language: Language,
    role: Role,
    facts: Arc<Facts>,
}

#[derive(Debug, Default)]
struct State {
    cache: HashMap<String, Cached>,
    graph: Option<(u64, Arc<RepoGraph>)>,
}

/// What the last refresh did: how much was listed, re-read, reused and skipped.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct SessionStats {
    /// Artifacts listed by the source.
    pub listed: usize,
    /// Artifacts whose facts were (re)computed by the last refresh.
    pub parsed: usize,
    /// Artifacts whose cached facts were reused.
    pub reused: usize,
    /// Artifacts dropped because they were deleted since the previous query.
    pub removed: usize,
    /// Files with recovered parse problems (syntax errors, config that did not parse).
    pub with_problems: usize,
    /// Files that had invalid UTF-8, read lossily.
    pub lossy_utf8: usize,
    /// Files left out, by reason (from listing and from reading).
    pub skipped: SkipStats,
    /// Whether the last graph request was answered from the cache.
    pub graph_reused: bool,
}

/// A repository session: holds the source, caches facts and the graph, revalidates
/// both on every query.
///
/// A `Session` is `Send + Sync`; concurrent queries serialize on the cache.
pub struct Session {
    source: Box<dyn RepoSource>,
    rules: Vec<Box<dyn RelationRule>>,
    state: Mutex<State>,
    stats: Mutex<SessionStats>,
}

impl std::fmt::Debug for Session {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Session")
            .field("source", &self.source.label())
            .field("rules", &self.rules.len())
            .finish()
    }
}

impl Session {
    /// A session over any source.
    pub fn new(source: impl RepoSource + 'static) -> Session {
        Session {
            source: Box::new(source),
            rules: Vec::new(),
            state: Mutex::new(State::default()),
            stats: Mutex::new(SessionStats::default()),
        }
    }

    /// A session over a directory on disk with default settings.
    ///
    /// # Errors
    /// See [`crate::source::FsSourceBuilder::build`].
    pub fn open(root: impl Into<std::path::PathBuf>) -> Result<Session> {
        Ok(Session::new(crate::source::FsSource::new(root)?))
    }

    /// Adds a relation rule applied on every graph build (the implicit-relation hook).
    pub fn with_rule(mut self, rule: impl RelationRule + 'static) -> Session {
        self.rules.push(Box::new(rule));
        self
    }

    /// The source this session reads.
    pub fn source(&self) -> &dyn RepoSource {
        self.source.as_ref()
    }

    /// What the last refresh did.
    pub fn stats(&self) -> SessionStats {
        lock(&self.stats).clone()
    }

    /// Every artifact with facts computed, after revalidating against the source.
    ///
    /// # Errors
    /// An error of the source's listing (a root that disappeared, say).
    pub fn artifacts(&self) -> Result<Vec<ArtifactInfo>> {
        let mut state = lock(&self.state);
        self.refresh(&mut state)?;
        let mut out: Vec<ArtifactInfo> = state
            .cache
            .values()
            .map(|c| ArtifactInfo {
                path: c.entry.path.clone(),
                size: c.entry.size,
                language: c.language,
                role: c.role,
                facts: Some(Arc::clone(&c.facts)),
            })
            .collect();
        out.sort_by(|a, b| a.path.cmp(&b.path));
        Ok(out)
    }

    /// The facts of one artifact, fresh.
    ///
    /// # Errors
    /// [`Error::NoSuchArtifact`] when `path` is not an artifact of the repository.
    pub fn facts(&self, path: &str) -> Result<Arc<Facts>> {
        let mut state = lock(&self.state);
        self.refresh(&mut state)?;
        state
            .cache
            .get(path)
            .map(|c| Arc::clone(&c.facts))
            .ok_or_else(|| Error::NoSuchArtifact(path.to_string()))
    }

    /// The repository graph, rebuilt when any artifact changed since the last call.
    ///
    /// # Errors
    /// An error of the source's listing.
    pub fn graph(&self) -> Result<Arc<RepoGraph>> {
        let mut state = lock(&self.state);
        self.refresh(&mut state)?;
        let fingerprint = fingerprint(&state.cache);
        if let Some((fp, graph)) = &state.graph
            && *fp == fingerprint
        {
            lock(&self.stats).graph_reused = true;
            return Ok(Arc::clone(graph));
        }
        let mut artifacts: Vec<InputArtifact> = state
            .cache
            .values()
            .map(|c| InputArtifact {
                path: c.entry.path.clone(),
                language: c.language,
                role: c.role,
                facts: Arc::clone(&c.facts),
            })
            .collect();
        artifacts.sort_by(|a, b| a.path.cmp(&b.path));
        let indexed: Vec<IndexedFile<'_>> = artifacts
            .iter()
            .map(|a| IndexedFile {
                path: &a.path,
                language: a.language,
                facts: &a.facts,
            })
            .collect();
        let read = |path: &str| self.read_text(path);
        let index = RepoIndex::build(&indexed, &read);
        let codeowners = ["CODEOWNERS", ".github/CODEOWNERS", "docs/CODEOWNERS", ".gitlab/CODEOWNERS"]
            .iter()
            .filter(|p| state.cache.contains_key(**p))
            .find_map(|p| self.read_text(p).map(|t| (p.to_string(), t)));
        let input = GraphInput {
            artifacts,
            index,
            codeowners,
        };
        let rules: Vec<&dyn RelationRule> = self.rules.iter().map(|r| r.as_ref()).collect();
        let graph = Arc::new(build_graph(&input, &rules));
        state.graph = Some((fingerprint, Arc::clone(&graph)));
        lock(&self.stats).graph_reused = false;
        Ok(graph)
    }

    fn read_text(&self, path: &str) -> Option<String> {
        let bytes = self.source.read(path).ok()?;
        Some(String::from_utf8_lossy(&bytes).into_owned())
    }

    /// Lists the source and brings the cache up to date: new and changed files are
    /// read and parsed in parallel, deleted ones dropped.
    fn refresh(&self, state: &mut State) -> Result<()> {
        let listing = self.source.list()?;
        let mut stats = SessionStats {
            listed: listing.entries.len(),
            skipped: listing.skipped.clone(),
            ..SessionStats::default()
        };
        let now = now_ns();
        let mut to_read: Vec<(Entry, Option<Cached>)> = Vec::new();
        let mut keep: HashMap<String, Cached> = HashMap::with_capacity(listing.entries.len());
        let mut previous = std::mem::take(&mut state.cache);
        for entry in &listing.entries {
            match previous.remove(&entry.path) {
                Some(cached) if is_fresh(&cached, entry) => {
                    keep.insert(entry.path.clone(), cached);
                }
                other => to_read.push((entry.clone(), other)),
            }
        }
        stats.removed = previous.len();
        let results: Vec<(String, std::result::Result<Cached, SkipReason>, bool)> = to_read
            .into_par_iter()
            .map(|(entry, old)| {
                let path = entry.path.clone();
                let (result, reused) = self.load(entry, old, now);
                (path, result, reused)
            })
            .collect();
        for (path, result, reused) in results {
            match result {
                Ok(cached) => {
                    if reused {
                        stats.reused += 1;
                    } else {
                        stats.parsed += 1;
                    }
                    keep.insert(path, cached);
                }
                Err(reason) => stats.skipped.record(reason, path),
            }
        }
        stats.reused += keep.len() - stats.parsed - stats.reused;
        for cached in keep.values() {
            if !cached.facts.problems.is_empty() {
                stats.with_problems += 1;
            }
            if cached.facts.problems.iter().any(|p| p.starts_with(LOSSY)) {
                stats.lossy_utf8 += 1;
            }
        }
        state.cache = keep;
        *lock(&self.stats) = stats;
        Ok(())
    }

    /// Reads and parses one artifact; reuses the old facts when the content hash is
    /// unchanged (a touched but unmodified file).
    fn load(
        &self,
        entry: Entry,
        old: Option<Cached>,
        now: u128,
    ) -> (std::result::Result<Cached, SkipReason>, bool) {
        let bytes = match self.source.read(&entry.path) {
            Ok(bytes) => bytes,
            Err(_) => return (Err(SkipReason::Unreadable), false),
        };
        if looks_binary(&bytes) {
            return (Err(SkipReason::Binary), false);
        }
        let content_hash = xxhash_rust::xxh3::xxh3_64(&bytes);
        if let Some(old) = old
            && old.content_hash == content_hash
        {
            return (
                Ok(Cached {
                    entry,
                    read_at_ns: now,
                    ..old
                }),
                true,
            );
        }
        let language = Language::detect(&entry.path, Some(&bytes[..bytes.len().min(256)]));
        let role = Role::classify(&entry.path, language);
        let (text, lossy) = match String::from_utf8_lossy(&bytes) {
            std::borrow::Cow::Borrowed(s) => (std::borrow::Cow::Borrowed(s), false),
            owned => (owned, true),
        };
        let mut facts = facts::extract(language, &entry.path, &text);
        if lossy {
            facts
                .problems
                .insert(0, format!("{LOSSY}: invalid UTF-8 replaced"));
        }
        (
            Ok(Cached {
                entry,
                content_hash,
                read_at_ns: now,
                language,
                role,
                facts: Arc::new(facts),
            }),
            false,
        )
    }
}

const LOSSY: &str = "lossy utf-8";

/// Whether a cached artifact is certainly unchanged, judging by the listing alone.
fn is_fresh(cached: &Cached, entry: &Entry) -> bool {
    if cached.entry.size != entry.size || cached.entry.stamp != entry.stamp {
        return false;
    }
    match entry.stamp {
        Stamp::Content(_) => true,
        // Unknown mtime, or one too close to when we read the file: hash again.
        Stamp::Modified(0) => false,
        Stamp::Modified(mtime) => cached.read_at_ns.saturating_sub(mtime) > RACY_WINDOW_NS,
    }
}

/// A hash of every (path, content hash): equal fingerprints mean an equal graph.
fn fingerprint(cache: &HashMap<String, Cached>) -> u64 {
    let mut items: Vec<(&str, u64)> = cache
        .values()
        .map(|c| (c.entry.path.as_str(), c.content_hash))
        .collect();
    items.sort_unstable();
    let mut hasher = xxhash_rust::xxh3::Xxh3::new();
    for (path, hash) in items {
        hasher.update(path.as_bytes());
        hasher.update(&[0]);
        hasher.update(&hash.to_le_bytes());
    }
    hasher.digest()
}

fn now_ns() -> u128 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|d| d.as_nanos())
        .unwrap_or(0)
}

/// Locks a mutex, recovering from poisoning (a panicked query leaves no half state:
/// every update is done on locals and swapped in at the end).
fn lock<T>(mutex: &Mutex<T>) -> MutexGuard<'_, T> {
    mutex.lock().unwrap_or_else(|e| e.into_inner())
}

#[allow(dead_code)]
fn is_manifest(path: &str) -> bool {
    crate::graph::is_module_manifest(file_name(path))
}
