//! A `Session`: one repository, its facts cached across queries and revalidated on
//! every query, so answers are fast on the second call and never stale.

use std::collections::{BTreeMap, HashMap};
use std::sync::{Arc, Mutex};
use std::time::{SystemTime, UNIX_EPOCH};

use rayon::prelude::*;
use serde::Serialize;

use crate::artifact::{Language, Role};
use crate::cache::DiskCache;
use crate::facts::{self, Facts};
use crate::graph::{GraphInput, InputArtifact, RelationRule, RepoGraph, build_graph};
use crate::resolve::{IndexedFile, RepoIndex};
use crate::source::{
    Entry, History, HistoryOptions, RepoSource, SkipReason, SkipStats, Stamp, looks_binary,
};
use crate::sync::lock;
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
    /// Detected language (by name alone until the file has been read).
    pub language: Language,
    /// Artifact role.
    pub role: Role,
    /// Facts, when they have been computed and are current.
    pub facts: Option<Arc<Facts>>,
}

/// What reading and parsing one file gave.
#[derive(Debug, Clone)]
struct Parsed {
    content_hash: u64,
    read_at_ns: u128,
    language: Language,
    role: Role,
    facts: Arc<Facts>,
}

/// One listed artifact: its listing entry and, once read, its parsed facts.
#[derive(Debug, Clone)]
struct Slot {
    entry: Entry,
    language: Language,
    role: Role,
    parsed: Option<Parsed>,
    /// True when `parsed` is known to match the current content; false when the
    /// listing says the file may have changed (its old facts are kept only to be
    /// reused if the content hash turns out unchanged).
    verified: bool,
}

impl Slot {
    fn current(&self) -> Option<&Parsed> {
        self.parsed.as_ref().filter(|_| self.verified)
    }
}

#[derive(Debug, Default)]
struct State {
    slots: BTreeMap<String, Slot>,
    /// Files found unreadable or binary when read, with the entry they had then: not
    /// read again until their listing entry changes.
    rejected: HashMap<String, (Entry, SkipReason)>,
    graph: Option<(u64, Arc<RepoGraph>)>,
    /// The history of the HEAD it was read at (`None` when that read found none).
    history: Option<(String, Option<Arc<History>>)>,
    /// Per-file results of the passes over every file, by kind of pass.
    memos: HashMap<&'static str, Memo>,
    stats: SessionStats,
}

/// What one kind of pass over every file gave each file, for the last key it ran
/// with: a query that repeats the key (the same task asked again after edits)
/// re-reads only the files that changed.
#[derive(Default)]
struct Memo {
    key: u64,
    files: HashMap<String, MemoEntry>,
}

struct MemoEntry {
    entry: Entry,
    read_at_ns: u128,
    value: Arc<dyn std::any::Any + Send + Sync>,
}

impl std::fmt::Debug for Memo {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Memo")
            .field("key", &self.key)
            .field("files", &self.files.len())
            .finish()
    }
}

/// What the session did since its last listing: how much was listed, parsed, reused
/// and skipped.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct SessionStats {
    /// Artifacts listed by the source.
    pub listed: usize,
    /// Artifacts read and parsed since the last listing.
    pub parsed: usize,
    /// Artifacts whose cached facts were reused (unchanged stamp or content).
    pub reused: usize,
    /// Of `parsed`, the artifacts whose facts were read from the on-disk cache
    /// instead of being computed (see [`crate::cache`]).
    pub from_disk: usize,
    /// Artifacts dropped because they were deleted since the previous query.
    pub removed: usize,
    /// Parsed files with recovered problems (syntax errors, config that did not parse).
    pub with_problems: usize,
    /// Files that had invalid UTF-8, read lossily.
    pub lossy_utf8: usize,
    /// Files left out, by reason (from listing and from reading).
    pub skipped: SkipStats,
    /// Whether the last graph request was answered from the cache.
    pub graph_reused: bool,
    /// Whether the last history request was answered from the cache (HEAD had not
    /// moved), without reading the history again.
    pub history_reused: bool,
}

/// A repository session: holds the source, caches facts and the graph, revalidates
/// both on every query.
///
/// Facts are computed on demand: listing is cheap (paths, sizes, stamps), and only the
/// files a query needs are read and parsed, in parallel. A `Session` is
/// `Send + Sync`; concurrent queries serialize on the cache.
pub struct Session {
    source: Box<dyn RepoSource>,
    rules: Vec<Box<dyn RelationRule>>,
    builtin_rules: bool,
    history_enabled: bool,
    history_options: HistoryOptions,
    embedder: Option<Arc<dyn crate::plugins::Embedder>>,
    language_model: Option<Arc<dyn crate::plugins::LanguageModel>>,
    embeddings: crate::plugins::EmbeddingCache,
    disk: Option<Arc<DiskCache>>,
    state: Mutex<State>,
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
            builtin_rules: true,
            history_enabled: true,
            history_options: HistoryOptions::default(),
            embedder: None,
            language_model: None,
            embeddings: crate::plugins::EmbeddingCache::default(),
            disk: None,
            state: Mutex::new(State::default()),
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

    /// Adds rules written as data, in the format of the built-in
    /// `rules/builtin.toml` (`[[rule]]` tables naming a relation, a confidence, a
    /// primitive `kind` and its `params`).
    ///
    /// # Errors
    /// [`crate::Error::InvalidRule`] naming the rule that does not parse or compile;
    /// no rule of the text is added then.
    pub fn with_rule_specs(mut self, text: &str) -> Result<Session> {
        let rules = crate::rules::parse_specs(text)?
            .iter()
            .map(crate::rules::compile)
            .collect::<Result<Vec<_>>>()?;
        self.rules.extend(rules);
        Ok(self)
    }

    /// Whether the built-in implicit-relation rules (`rules/builtin.toml`) apply
    /// (default true); turning them off is the paper's "without implicit relations"
    /// ablation at graph level.
    pub fn with_builtin_rules(mut self, on: bool) -> Session {
        self.builtin_rules = on;
        self
    }

    /// Whether the source's history is read and used (default true): `CoChange`
    /// edges and [`RepoGraph::file_history`] come from it. Off, the session never asks
    /// the source for history.
    pub fn with_history(mut self, on: bool) -> Session {
        self.history_enabled = on;
        self
    }

    /// How much history to read (default [`HistoryOptions::default`]: 500 commits,
    /// 300 ms, commits of more than 50 files skipped).
    pub fn with_history_options(mut self, options: HistoryOptions) -> Session {
        self.history_options = options;
        self
    }

    /// Adds an embedding model: s_sem of Eq. 6 then fuses BM25F with the similarity
    /// of the task and each candidate's metadata view.
    pub fn with_embedder(mut self, embedder: Arc<dyn crate::plugins::Embedder>) -> Session {
        self.embedder = Some(embedder);
        self
    }

    /// Adds a language model for the LLM-assisted terms (used by the stages that
    /// support it; without one they run deterministically).
    pub fn with_language_model(mut self, model: Arc<dyn crate::plugins::LanguageModel>) -> Session {
        self.language_model = Some(model);
        self
    }

    /// Reads and writes facts through an on-disk cache shared with other processes
    /// (none by default): a file whose facts another process computed (same bytes,
    /// path and build) is not parsed again. Answers are the same with or without it.
    pub fn with_disk_cache(mut self, cache: Arc<DiskCache>) -> Session {
        self.disk = Some(cache);
        self
    }

    /// The on-disk cache, if one was given.
    pub fn disk_cache(&self) -> Option<&DiskCache> {
        self.disk.as_deref()
    }

    /// A value that depends on `bytes` alone, read from the on-disk cache when it
    /// holds one for this `kind` and these bytes, else computed (and stored). Without
    /// a cache, or for inputs under 4 KiB (cheaper to compute than to look up: they
    /// were a third of the entries of a cold run, whose cost is mostly file creation),
    /// computed.
    pub(crate) fn through_disk<T>(&self, kind: &str, bytes: &[u8], compute: impl FnOnce() -> T) -> T
    where
        T: Serialize + serde::de::DeserializeOwned,
    {
        const WORTH_CACHING: usize = 4096;
        let Some(disk) = self.disk.as_ref().filter(|_| bytes.len() >= WORTH_CACHING) else {
            return compute();
        };
        let key = DiskCache::bytes_key(kind, bytes);
        if let Some(value) = disk.load(key) {
            return value;
        }
        let value = compute();
        disk.store(key, &value);
        value
    }

    /// The embedder, if one was given.
    pub fn embedder(&self) -> Option<&dyn crate::plugins::Embedder> {
        self.embedder.as_deref()
    }

    /// The session's cache of metadata-view embeddings.
    pub(crate) fn embeddings(&self) -> &crate::plugins::EmbeddingCache {
        &self.embeddings
    }

    /// The language model, if one was given.
    pub fn language_model(&self) -> Option<&dyn crate::plugins::LanguageModel> {
        self.language_model.as_deref()
    }

    /// The source this session reads.
    pub fn source(&self) -> &dyn RepoSource {
        self.source.as_ref()
    }

    /// The history of the checked-out commit, read once per HEAD: the first call on a
    /// commit reads it from the source, later calls on the same HEAD reuse it (one
    /// cheap check of HEAD per call), and a new commit or a checkout is read at the
    /// next call. `None` when history is off, or the source has none (a source in
    /// memory, a directory outside a git work tree, no `git` on PATH). A source that
    /// fails to give its history is treated as having none.
    ///
    /// # Errors
    /// None today; the `Result` leaves room for sources whose failures must surface.
    pub fn history(&self) -> Result<Option<Arc<History>>> {
        let mut state = lock(&self.state);
        Ok(self.current_history(&mut state))
    }

    /// What the session did since its last listing. A query lists the repository
    /// once, when it starts: after `discover` or `locate`, these are that query's
    /// numbers (files parsed for it, facts reused from earlier queries).
    pub fn stats(&self) -> SessionStats {
        lock(&self.state).stats.clone()
    }

    /// Every artifact, after revalidating the listing against the source. Cheap: no
    /// file is read; `facts` is set only for files already parsed and unchanged.
    ///
    /// # Errors
    /// An error of the source's listing (a root that disappeared, say).
    pub fn artifacts(&self) -> Result<Vec<ArtifactInfo>> {
        let mut state = lock(&self.state);
        self.refresh(&mut state)?;
        Ok(state.slots.values().map(info).collect())
    }

    /// The facts of one artifact, fresh; reads and parses only that file if needed.
    ///
    /// # Errors
    /// [`Error::NoSuchArtifact`] when `path` is not an artifact of the repository (or
    /// turned out binary or unreadable).
    pub fn facts(&self, path: &str) -> Result<Arc<Facts>> {
        let mut found = self.facts_for(&[path])?;
        found
            .pop()
            .map(|(_, facts)| facts)
            .ok_or_else(|| Error::NoSuchArtifact(path.to_string()))
    }

    /// The facts of several artifacts, fresh, parsed in parallel where needed. Paths
    /// that are not artifacts are left out of the answer.
    ///
    /// # Errors
    /// An error of the source's listing.
    pub fn facts_for(&self, paths: &[&str]) -> Result<Vec<(String, Arc<Facts>)>> {
        let mut state = lock(&self.state);
        self.refresh(&mut state)?;
        Ok(self.facts_in(&mut state, paths))
    }

    /// [`Session::facts_for`] against the listing the query started with (no new
    /// listing): for the later stages of one query.
    pub(crate) fn facts_listed(&self, paths: &[&str]) -> Vec<(String, Arc<Facts>)> {
        let mut state = lock(&self.state);
        self.facts_in(&mut state, paths)
    }

    /// Runs `scan` over the bytes of every file of `paths` (an unreadable file gives
    /// empty bytes), in parallel, in the order given. Results are kept per file for
    /// the last `key` of this `kind`: with the same key, a file whose listing entry
    /// proves it unchanged is not read again. `scan` must depend on the path, the
    /// bytes and the key alone.
    pub(crate) fn scan_files<V>(
        &self,
        kind: &'static str,
        key: u64,
        paths: &[&str],
        scan: &(dyn Fn(&str, &[u8]) -> V + Sync),
    ) -> Vec<V>
    where
        V: Clone + Send + Sync + 'static,
    {
        let mut state = lock(&self.state);
        let memo = state.memos.remove(kind).filter(|m| m.key == key);
        let previous = memo.map(|m| m.files).unwrap_or_default();
        let now = now_ns();
        let results: Vec<(V, Option<(Entry, bool)>)> = paths
            .par_iter()
            .map(|path| {
                let current = state.slots.get(*path).map(|slot| &slot.entry);
                if let (Some(current), Some(kept)) = (current, previous.get(*path))
                    && unchanged(&kept.entry, kept.read_at_ns, current)
                    && let Some(value) = kept.value.downcast_ref::<V>()
                {
                    return (value.clone(), Some((current.clone(), true)));
                }
                let bytes = self.source.read(path).unwrap_or_default();
                (scan(path, &bytes), current.map(|c| (c.clone(), false)))
            })
            .collect();
        if let Some(disk) = &self.disk {
            disk.housekeep();
        }
        let mut files = HashMap::with_capacity(paths.len());
        let mut out = Vec::with_capacity(paths.len());
        for (path, (value, entry)) in paths.iter().zip(results) {
            if let Some((entry, reused)) = entry {
                let read_at_ns = match (reused, previous.get(*path)) {
                    (true, Some(kept)) => kept.read_at_ns,
                    _ => now,
                };
                files.insert(
                    path.to_string(),
                    MemoEntry {
                        entry,
                        read_at_ns,
                        value: Arc::new(value.clone()),
                    },
                );
            }
            out.push(value);
        }
        state.memos.insert(kind, Memo { key, files });
        out
    }

    /// [`Session::artifacts`] as of the listing the query started with.
    pub(crate) fn artifacts_listed(&self) -> Vec<ArtifactInfo> {
        lock(&self.state).slots.values().map(info).collect()
    }

    fn facts_in(&self, state: &mut State, paths: &[&str]) -> Vec<(String, Arc<Facts>)> {
        let wanted: Vec<String> = paths.iter().map(|p| p.to_string()).collect();
        self.ensure(state, &wanted);
        let mut out: Vec<(String, Arc<Facts>)> = wanted
            .into_iter()
            .filter_map(|p| {
                let facts = state.slots.get(&p)?.current()?.facts.clone();
                Some((p, facts))
            })
            .collect();
        out.sort_by(|a, b| a.0.cmp(&b.0));
        out.dedup_by(|a, b| a.0 == b.0);
        out
    }

    /// The repository graph over every artifact, rebuilt when any artifact changed
    /// or HEAD moved since the last call. With a history ([`Session::history`]) it
    /// has `CoChange` edges and [`RepoGraph::file_history`] signals.
    ///
    /// # Errors
    /// An error of the source's listing.
    pub fn graph(&self) -> Result<Arc<RepoGraph>> {
        crate::error::guarded("graph", || {
            let mut state = lock(&self.state);
            self.refresh(&mut state)?;
            let all: Vec<String> = state.slots.keys().cloned().collect();
            self.ensure(&mut state, &all);
            Ok(self.cached_graph(&mut state, |_| true))
        })
    }

    /// The repository graph with the facts of the files of `scope` only: every
    /// artifact is a node with its path-based relations, explicit links from the
    /// scope resolve to any file, but only files of the scope contribute their own
    /// facts (definitions, imports, keys…). Reads and parses the scope's files alone,
    /// so its cost follows the scope, not the repository; the answer does not depend
    /// on what earlier queries parsed.
    ///
    /// # Errors
    /// An error of the source's listing.
    pub fn graph_of(&self, scope: &[String]) -> Result<Arc<RepoGraph>> {
        crate::error::guarded("graph", || {
            let mut state = lock(&self.state);
            self.refresh(&mut state)?;
            Ok(self.scoped_graph(&mut state, scope))
        })
    }

    /// [`Session::graph_of`] against the listing the query started with.
    pub(crate) fn graph_of_listed(&self, scope: &[String]) -> Arc<RepoGraph> {
        self.scoped_graph(&mut lock(&self.state), scope)
    }

    fn scoped_graph(&self, state: &mut State, scope: &[String]) -> Arc<RepoGraph> {
        self.ensure(state, scope);
        let wanted: std::collections::HashSet<&str> = scope.iter().map(String::as_str).collect();
        self.cached_graph(state, |path| wanted.contains(path))
    }

    /// The graph over every artifact with the facts of those `in_scope` accepts,
    /// from the cache when neither they nor HEAD changed.
    fn cached_graph(&self, state: &mut State, in_scope: impl Fn(&str) -> bool) -> Arc<RepoGraph> {
        let history = self.current_history(state);
        let fingerprint = fingerprint(&state.slots, history.as_deref(), &in_scope);
        if let Some((fp, graph)) = &state.graph
            && *fp == fingerprint
        {
            let graph = Arc::clone(graph);
            state.stats.graph_reused = true;
            return graph;
        }
        let empty = Arc::new(Facts::default());
        let artifacts: Vec<InputArtifact> = state
            .slots
            .values()
            .map(|slot| {
                let path = &slot.entry.path;
                // Outside the scope (parsed or not): a node without facts. Binary
                // files never get here (listing and reading reject them).
                let facts = match slot.current() {
                    Some(parsed) if in_scope(path) => Arc::clone(&parsed.facts),
                    _ => Arc::clone(&empty),
                };
                let (language, role) = slot
                    .current()
                    .map_or((slot.language, slot.role), |p| (p.language, p.role));
                InputArtifact {
                    path: path.clone(),
                    language,
                    role,
                    facts,
                }
            })
            .collect();
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
        let codeowners = CODEOWNERS
            .iter()
            .filter(|p| state.slots.contains_key(**p))
            .find_map(|p| self.read_text(p).map(|t| (p.to_string(), t)));
        let input = GraphInput {
            artifacts,
            index,
            codeowners,
            history,
        };
        let builtin = if self.builtin_rules {
            crate::rules::builtin_rules()
        } else {
            Vec::new()
        };
        let rules: Vec<&dyn RelationRule> = builtin
            .iter()
            .chain(&self.rules)
            .map(|r| r.as_ref())
            .collect();
        let graph = Arc::new(build_graph(&input, &rules));
        state.graph = Some((fingerprint, Arc::clone(&graph)));
        state.stats.graph_reused = false;
        graph
    }

    /// The history of the current HEAD, from the cache when HEAD has not moved.
    fn current_history(&self, state: &mut State) -> Option<Arc<History>> {
        state.stats.history_reused = false;
        if !self.history_enabled {
            state.history = None;
            return None;
        }
        let Some(head) = self.source.history_head().ok().flatten() else {
            state.history = None;
            return None;
        };
        if let Some((cached, history)) = &state.history
            && *cached == head
        {
            state.stats.history_reused = true;
            return history.clone();
        }
        let history = self
            .source
            .history(&self.history_options)
            .ok()
            .flatten()
            .map(Arc::new);
        // Keyed by the HEAD actually read, should it have moved in between.
        let key = history.as_ref().map_or(head, |h| h.head.clone());
        state.history = Some((key, history.clone()));
        history
    }

    pub(crate) fn read_text(&self, path: &str) -> Option<String> {
        let bytes = self.source.read(path).ok()?;
        Some(String::from_utf8_lossy(&bytes).into_owned())
    }

    /// Lists the source and reconciles the slots: unchanged files keep their facts,
    /// changed ones are marked for re-reading, deleted ones dropped. Reads nothing.
    fn refresh(&self, state: &mut State) -> Result<()> {
        let listing = self.source.list()?;
        let mut stats = SessionStats {
            listed: listing.entries.len(),
            skipped: listing.skipped.clone(),
            ..SessionStats::default()
        };
        let mut previous = std::mem::take(&mut state.slots);
        let mut slots = BTreeMap::new();
        let mut rejected = HashMap::new();
        for entry in listing.entries {
            if let Some((old, reason)) = state.rejected.remove(&entry.path)
                && old == entry
            {
                stats.skipped.record(reason, entry.path.clone());
                rejected.insert(entry.path.clone(), (entry, reason));
                continue;
            }
            let slot = match previous.remove(&entry.path) {
                Some(mut slot) => {
                    slot.verified = slot.verified
                        && slot
                            .parsed
                            .as_ref()
                            .is_some_and(|p| is_fresh(&slot.entry, p, &entry));
                    slot.entry = entry;
                    slot
                }
                None => {
                    let language = Language::detect(&entry.path, None);
                    Slot {
                        role: Role::classify(&entry.path, language),
                        language,
                        entry,
                        parsed: None,
                        verified: false,
                    }
                }
            };
            slots.insert(slot.entry.path.clone(), slot);
        }
        stats.removed = previous.len();
        state.slots = slots;
        state.rejected = rejected;
        stats.with_problems = state
            .slots
            .values()
            .filter_map(Slot::current)
            .filter(|p| !p.facts.problems.is_empty())
            .count();
        stats.lossy_utf8 = state
            .slots
            .values()
            .filter_map(Slot::current)
            .filter(|p| p.facts.problems.iter().any(|m| m.starts_with(LOSSY)))
            .count();
        for slot in state.slots.values() {
            if slot.current().is_some_and(|p| p.facts.limited.is_some()) {
                stats
                    .skipped
                    .record(SkipReason::WorkLimit, slot.entry.path.clone());
            }
        }
        stats.reused = state.slots.values().filter(|s| s.verified).count();
        state.stats = stats;
        Ok(())
    }

    /// Makes the facts of `paths` current: reads and parses (in parallel) those that
    /// are new or may have changed. Binary and unreadable files leave the slots.
    fn ensure(&self, state: &mut State, paths: &[String]) {
        let mut work: Vec<Slot> = Vec::new();
        for path in paths {
            if let Some(slot) = state.slots.get(path)
                && !slot.verified
                && let Some(slot) = state.slots.remove(path)
            {
                work.push(slot);
            }
        }
        if work.is_empty() {
            return;
        }
        let now = now_ns();
        let loaded: Vec<(Slot, std::result::Result<Loaded, SkipReason>)> = work
            .into_par_iter()
            .map(|mut slot| {
                let outcome = self.load(&mut slot, now);
                (slot, outcome)
            })
            .collect();
        if let Some(disk) = &self.disk {
            disk.housekeep();
        }
        for (slot, outcome) in loaded {
            match outcome {
                Ok(how) => {
                    match how {
                        Loaded::Reused => state.stats.reused += 1,
                        Loaded::Parsed => state.stats.parsed += 1,
                        Loaded::FromDisk => {
                            state.stats.parsed += 1;
                            state.stats.from_disk += 1;
                        }
                    }
                    if let Some(parsed) = slot.current() {
                        if !parsed.facts.problems.is_empty() {
                            state.stats.with_problems += 1;
                        }
                        if parsed.facts.problems.iter().any(|m| m.starts_with(LOSSY)) {
                            state.stats.lossy_utf8 += 1;
                        }
                        if parsed.facts.limited.is_some() {
                            state
                                .stats
                                .skipped
                                .record(SkipReason::WorkLimit, slot.entry.path.clone());
                        }
                    }
                    state.slots.insert(slot.entry.path.clone(), slot);
                }
                Err(reason) => {
                    state.stats.skipped.record(reason, slot.entry.path.clone());
                    state
                        .rejected
                        .insert(slot.entry.path.clone(), (slot.entry, reason));
                }
            }
        }
    }

    /// Reads and parses one artifact into its slot (or reads its facts from the disk
    /// cache). [`Loaded::Reused`] when the content hash was unchanged and the old
    /// facts were kept (a touched but unmodified file).
    fn load(&self, slot: &mut Slot, now: u128) -> std::result::Result<Loaded, SkipReason> {
        let bytes = self
            .source
            .read(&slot.entry.path)
            .map_err(|_| SkipReason::Unreadable)?;
        if looks_binary(&bytes) {
            return Err(SkipReason::Binary);
        }
        let content_hash = xxhash_rust::xxh3::xxh3_64(&bytes);
        if let Some(parsed) = slot.parsed.as_mut()
            && parsed.content_hash == content_hash
        {
            parsed.read_at_ns = now;
            slot.verified = true;
            return Ok(Loaded::Reused);
        }
        let language = Language::detect(&slot.entry.path, Some(&bytes[..bytes.len().min(256)]));
        let role = Role::classify(&slot.entry.path, language);
        // The key covers all that `extract` reads (language, path, bytes) and the
        // build, so a hit is exactly what extracting would give.
        let key = self
            .disk
            .as_ref()
            .map(|_| DiskCache::facts_key(language, &slot.entry.path, &bytes));
        let stored = self
            .disk
            .as_ref()
            .zip(key)
            .and_then(|(d, k)| d.load_facts(k));
        let how = if stored.is_some() {
            Loaded::FromDisk
        } else {
            Loaded::Parsed
        };
        let facts = stored.unwrap_or_else(|| {
            let facts = extract_facts(language, &slot.entry.path, &bytes);
            if let Some((disk, key)) = self.disk.as_ref().zip(key) {
                disk.store_facts(key, &facts);
            }
            facts
        });
        slot.language = language;
        slot.role = role;
        slot.parsed = Some(Parsed {
            content_hash,
            read_at_ns: now,
            language,
            role,
            facts: Arc::new(facts),
        });
        slot.verified = true;
        Ok(how)
    }
}

/// How [`Session::load`] made a slot's facts current.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Loaded {
    /// The content was unchanged: the facts in memory were kept.
    Reused,
    /// Parsed (or read as config).
    Parsed,
    /// Read from the on-disk cache.
    FromDisk,
}

/// The facts of a file's bytes (read lossily when not UTF-8, which is noted as a
/// problem).
fn extract_facts(language: Language, path: &str, bytes: &[u8]) -> Facts {
    let (text, lossy) = match String::from_utf8_lossy(bytes) {
        std::borrow::Cow::Borrowed(s) => (std::borrow::Cow::Borrowed(s), false),
        owned => (owned, true),
    };
    let mut facts = facts::extract(language, path, &text);
    if lossy {
        facts
            .problems
            .insert(0, format!("{LOSSY}: invalid UTF-8 replaced"));
    }
    facts
}

/// Where a CODEOWNERS file may live, in GitHub's order of precedence.
const CODEOWNERS: [&str; 4] = [
    ".github/CODEOWNERS",
    "CODEOWNERS",
    "docs/CODEOWNERS",
    ".gitlab/CODEOWNERS",
];

fn info(slot: &Slot) -> ArtifactInfo {
    ArtifactInfo {
        path: slot.entry.path.clone(),
        size: slot.entry.size,
        language: slot.language,
        role: slot.role,
        facts: slot.current().map(|p| Arc::clone(&p.facts)),
    }
}

const LOSSY: &str = "lossy utf-8";

/// Whether parsed facts are certainly current, judging by the listing alone.
fn is_fresh(old: &Entry, parsed: &Parsed, entry: &Entry) -> bool {
    unchanged(old, parsed.read_at_ns, entry)
}

/// Whether a file read at `read_at_ns` with listing entry `old` is certainly
/// unchanged now that the listing says `entry`.
fn unchanged(old: &Entry, read_at_ns: u128, entry: &Entry) -> bool {
    if old.size != entry.size || old.stamp != entry.stamp {
        return false;
    }
    match entry.stamp {
        Stamp::Content(_) => true,
        // Unknown mtime, or one too close to when we read the file: read again.
        Stamp::Modified(0) => false,
        Stamp::Modified(mtime) => read_at_ns.saturating_sub(mtime) > RACY_WINDOW_NS,
    }
}

/// A hash of every (path, content hash) and of the HEAD of the history: equal
/// fingerprints mean an equal graph.
fn fingerprint(
    slots: &BTreeMap<String, Slot>,
    history: Option<&History>,
    in_scope: impl Fn(&str) -> bool,
) -> u64 {
    let mut hasher = xxhash_rust::xxh3::Xxh3::new();
    hasher.update(history.map_or("", |h| h.head.as_str()).as_bytes());
    hasher.update(&[0]);
    for (path, slot) in slots {
        let hash = slot
            .current()
            .filter(|_| in_scope(path))
            .map_or(0, |p| p.content_hash);
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
