//! A `Session`: one repository, its facts cached across queries and revalidated on
//! every query, so answers are fast on the second call and never stale.

use std::collections::{BTreeMap, HashMap};
use std::sync::{Arc, Mutex};
use std::time::{SystemTime, UNIX_EPOCH};

mod loading;
mod passes;
mod per_listing;

use passes::Memo;

use serde::Serialize;

use crate::artifact::{Language, Role};
use crate::cache::{DiskCache, KnownFile};
use crate::facts::Facts;
use crate::graph::{GraphInput, InputArtifact, RelationRule, RepoGraph, build_graph};
use crate::resolve::{IndexedFile, RepoIndex};
use crate::source::{
    Entry, History, HistoryCut, HistoryOptions, RepoSource, SkipReason, SkipStats, Stamp,
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
    content_hash: u128,
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
    /// The content hash of the file when it was last read (in this process or, with
    /// an on-disk cache, an earlier one), kept only while the listing proves the
    /// file unchanged since.
    known: Option<KnownFile>,
}

impl Slot {
    /// The content hash, when the listing proves the file unchanged since it was
    /// read.
    fn known_hash(&self) -> Option<u128> {
        self.known
            .as_ref()
            .filter(|k| unchanged(&k.entry, k.read_at_ns, &self.entry))
            .map(|k| k.hash)
    }
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
    /// The known-files table of an earlier process, until the first listing has
    /// taken what it proves (see [`crate::cache`]).
    inherited: Option<HashMap<String, KnownFile>>,
    /// Whether the table was looked for (once per session).
    inherited_loaded: bool,
    /// Whether files were read since the table was last written.
    known_dirty: bool,
    /// HEAD as the source gave it since the last listing (`Some(None)`: no history).
    head: Option<Option<String>>,
    /// Whether the repository's `.h` headers are read as C (its C sources outnumber
    /// its C++ sources; see [`Language::for_headers`]) rather than C++.
    c_headers: bool,
    /// Counts the changes of the listing: a path came or went, a file's entry
    /// changed, or reading it changed its language or role or rejected it.
    listing_version: u64,
    /// Values computed from the listing, by kind (see [`Session::per_listing`]).
    per_listing: HashMap<&'static str, per_listing::Kept>,
    /// The source's mark of the listing the slots hold, when it gave one (see
    /// [`RepoSource::list_changes`]).
    listing_mark: Option<u64>,
    /// Counts the changes of the slots: listed, renewed, read or dropped.
    slots_touched: u64,
    /// The slots' counts for the stats, as of `slots_touched`.
    slot_counts: Option<(u64, loading::SlotCounts)>,
    /// The listing as the queries read it, and its version (see [`Session::listing`]).
    snapshot: Option<(u64, Arc<[ArtifactInfo]>)>,
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
    /// The vocabulary bridge the queries are expanded with (`None`: the built-in one).
    bridge: Option<Arc<crate::bridge::Bridge>>,
    language_model: Option<Arc<dyn crate::plugins::LanguageModel>>,
    embeddings: crate::plugins::EmbeddingCache,
    disk: Option<Arc<DiskCache>>,
    /// Small files' cached values, by kind (see [`crate::cache`]'s packs).
    packs: std::sync::RwLock<HashMap<&'static str, passes::Pack>>,
    /// The files' term tables kept between queries (the lexical pass's warm path).
    terms: crate::term_store::TermStore,
    state: Mutex<State>,
}

impl Drop for Session {
    /// Keeps what the session learned of the files for later processes.
    fn drop(&mut self) {
        self.persist();
    }
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
            bridge: None,
            language_model: None,
            embeddings: crate::plugins::EmbeddingCache::default(),
            disk: None,
            packs: std::sync::RwLock::default(),
            terms: crate::term_store::TermStore::new(crate::term_store::DEFAULT_BUDGET_BYTES),
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

    /// How much history to read (default [`HistoryOptions::default`]: 2,000 commits
    /// or 16 MiB of log, commits of more than 50 files skipped).
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

    /// Expands queries with this vocabulary bridge instead of the built-in one (a
    /// model trained on the user's own history by `benches/train_bridge.py`, read
    /// with [`Bridge::parse`](crate::bridge::Bridge::parse)).
    pub fn with_bridge(mut self, bridge: Arc<crate::bridge::Bridge>) -> Session {
        self.bridge = Some(bridge);
        self
    }

    /// The vocabulary bridge queries are expanded with: the one given, else the
    /// built-in one.
    pub fn bridge(&self) -> Option<&crate::bridge::Bridge> {
        match &self.bridge {
            Some(bridge) => Some(bridge),
            None => crate::bridge::Bridge::builtin(),
        }
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

    /// How much memory the session may keep of its files' terms between queries
    /// (default 256 MiB; 0 keeps none). A new query counts its words in a kept table
    /// instead of reading and tokenizing the file again; answers are the same with
    /// any amount, only the time of a new query changes.
    pub fn with_term_memory(mut self, bytes: usize) -> Session {
        self.terms = crate::term_store::TermStore::new(bytes);
        self
    }

    /// The files' term tables kept between queries.
    pub(crate) fn term_store(&self) -> &crate::term_store::TermStore {
        &self.terms
    }

    /// Before a lexical pass: when the term store is three-quarters full, drops the
    /// tables of contents no listed file has now (edited or deleted since).
    pub(crate) fn maintain_terms(&self) {
        if self.terms.bytes() <= self.terms.budget() / 4 * 3 {
            return;
        }
        let current: std::collections::HashSet<u128> = crate::sync::lock(&self.state)
            .slots
            .values()
            .filter_map(|slot| slot.known.as_ref().map(|k| k.hash))
            .collect();
        self.terms.maintain(|hash| current.contains(&hash));
    }

    /// The bounds its history is read with.
    pub fn history_options(&self) -> &HistoryOptions {
        &self.history_options
    }

    /// The on-disk cache, if one was given.
    pub fn disk_cache(&self) -> Option<&DiskCache> {
        self.disk.as_deref()
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
        state.head = None;
        Ok(self.current_history(&mut state))
    }

    /// [`Session::history`] as of the HEAD checked since the query's listing (one
    /// check of HEAD per query): for the stages of one query.
    pub(crate) fn history_listed(&self) -> Option<Arc<History>> {
        self.current_history(&mut lock(&self.state))
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

    /// The facts of the file at `path` if they were parsed and it is unchanged since
    /// (reads nothing).
    pub(crate) fn parsed_facts(&self, path: &str) -> Option<Arc<Facts>> {
        let state = lock(&self.state);
        Some(Arc::clone(&state.slots.get(path)?.current()?.facts))
    }

    /// The listing after revalidating it against the source, as the stages of a
    /// query read it: every artifact in path order, with its version (for
    /// [`Session::per_listing`]). The artifacts carry no facts (ask
    /// [`Session::parsed_facts`]): so the same listing is shared by every query
    /// until it changes, instead of a million paths copied three times a query.
    pub(crate) fn listing(&self) -> Result<(Arc<[ArtifactInfo]>, u64)> {
        let mut state = lock(&self.state);
        self.refresh(&mut state)?;
        Ok(snapshot(&mut state))
    }

    /// [`Session::listing`] without listing the source again: for the later stages of
    /// one query (the files read since may have changed a language or role).
    pub(crate) fn listing_as_read(&self) -> (Arc<[ArtifactInfo]>, u64) {
        snapshot(&mut lock(&self.state))
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

    /// The history of the current HEAD, from the cache when HEAD has not moved,
    /// else from the on-disk cache when another process read it, else from the
    /// source. HEAD is asked of the source once per listing.
    fn current_history(&self, state: &mut State) -> Option<Arc<History>> {
        state.stats.history_reused = false;
        if !self.history_enabled {
            state.history = None;
            return None;
        }
        let head = match &state.head {
            Some(head) => head.clone(),
            None => {
                let head = self.source.history_head().ok().flatten();
                state.head = Some(head.clone());
                head
            }
        };
        let Some(head) = head else {
            state.history = None;
            return None;
        };
        if let Some((cached, history)) = &state.history
            && *cached == head
        {
            state.stats.history_reused = true;
            return history.clone();
        }
        let identity = self.source.identity();
        let disk = self.disk.as_ref().zip(identity.as_deref());
        let from_disk = disk
            .and_then(|(disk, identity)| {
                disk.load::<History>(DiskCache::history_key(
                    identity,
                    &head,
                    &self.history_options,
                ))
            })
            .filter(|h| h.head == head);
        let history = match from_disk {
            Some(history) => Some(history),
            None => {
                // A history of an earlier HEAD, this session's or another process's:
                // the source may read only the commits added on top of it.
                let known = match &state.history {
                    Some((_, Some(known))) => Some(known.clone()),
                    _ => disk.and_then(|(disk, identity)| {
                        let latest = DiskCache::latest_history_key(identity, &self.history_options);
                        let known_head = disk.load::<String>(latest)?;
                        let key =
                            DiskCache::history_key(identity, &known_head, &self.history_options);
                        disk.load::<History>(key)
                            .filter(|h| h.head == known_head)
                            .map(Arc::new)
                    }),
                };
                let read = match &known {
                    Some(known) => self.source.history_after(&self.history_options, known),
                    None => self.source.history(&self.history_options),
                }
                .ok()
                .flatten();
                // A history cut by the time guard depends on this machine's speed:
                // never kept for others, so that the cache changes no answer.
                if let (Some((disk, identity)), Some(history)) = (disk, &read)
                    && history.cut != Some(HistoryCut::Time)
                {
                    let opts = &self.history_options;
                    disk.store(
                        DiskCache::history_key(identity, &history.head, opts),
                        history,
                    );
                    disk.store(DiskCache::latest_history_key(identity, opts), &history.head);
                }
                read
            }
        }
        .map(Arc::new);
        // Keyed by the HEAD actually read, should it have moved in between.
        let key = history.as_ref().map_or(head, |h| h.head.clone());
        state.history = Some((key, history.clone()));
        history
    }

    /// Starts compiling the fact queries of the code languages this query will
    /// likely parse (see [`crate::facts::prepare_grammars`]), as of the listing the
    /// query started with: those of at least one code file in fifty, unless the
    /// on-disk cache proves most code files unchanged since an earlier process,
    /// whose facts it then holds (nothing would be parsed).
    pub(crate) fn prepare_grammars(&self) {
        let mut counts: Vec<(Language, usize)> = Vec::new();
        let (mut code, mut known) = (0usize, 0usize);
        {
            let state = lock(&self.state);
            for slot in state.slots.values() {
                let language = slot.language;
                if !crate::facts::CODE_LANGUAGES.contains(&language) {
                    continue;
                }
                code += 1;
                known += usize::from(slot.known_hash().is_some());
                match counts.iter_mut().find(|(l, _)| *l == language) {
                    Some((_, n)) => *n += 1,
                    None => counts.push((language, 1)),
                }
            }
        }
        if self.disk.is_some() && known * 2 > code {
            return;
        }
        let languages = counts
            .into_iter()
            .filter(|&(_, n)| n * 50 >= code)
            .map(|(l, _)| l)
            .collect();
        crate::facts::prepare_grammars(languages);
    }

    pub(crate) fn read_text(&self, path: &str) -> Option<String> {
        let bytes = self.source.read(path).ok()?;
        Some(String::from_utf8_lossy(&bytes).into_owned())
    }
}

/// Where a CODEOWNERS file may live, in GitHub's order of precedence.
const CODEOWNERS: [&str; 4] = [
    ".github/CODEOWNERS",
    "CODEOWNERS",
    "docs/CODEOWNERS",
    ".gitlab/CODEOWNERS",
];

/// The listing of `state` without facts, built once per listing version.
fn snapshot(state: &mut State) -> (Arc<[ArtifactInfo]>, u64) {
    let version = state.listing_version;
    if let Some((kept, artifacts)) = &state.snapshot
        && *kept == version
    {
        return (Arc::clone(artifacts), version);
    }
    let artifacts: Arc<[ArtifactInfo]> = (state.slots.values())
        .map(|slot| ArtifactInfo {
            facts: None,
            ..info(slot)
        })
        .collect();
    state.snapshot = Some((version, Arc::clone(&artifacts)));
    (artifacts, version)
}

fn info(slot: &Slot) -> ArtifactInfo {
    ArtifactInfo {
        path: slot.entry.path.clone(),
        size: slot.entry.size,
        language: slot.language,
        role: slot.role,
        facts: slot.current().map(|p| Arc::clone(&p.facts)),
    }
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
        Stamp::Modified { nanos: 0, .. } => false,
        Stamp::Modified { nanos, .. } => read_at_ns.saturating_sub(nanos) > RACY_WINDOW_NS,
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
