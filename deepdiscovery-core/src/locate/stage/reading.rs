//! Algorithm 1, line 1 (§III.C.1): the task read against the repository (its
//! environment, its own words, its type, cues and query) and the lexical pass over
//! every file, with the terms of Eq. 6 it gives.

use super::*;

/// What [`read_task`] keeps per listing (see [`Session::per_listing`]).
const LISTING_READ: &str = "environment and issue templates";

/// The listing a query reads: every artifact, its path, and its index by path.
pub(super) struct Files<'a> {
    pub(super) artifacts: &'a [ArtifactInfo],
    /// The listing's version ([`Session::listing`]).
    pub(super) version: u64,
    pub(super) paths: Vec<&'a str>,
    pub(super) by_path: ByPath<'a>,
}

/// The index of a listing's files by path, kept per listing, read with it.
pub(super) struct ByPath<'a> {
    index: Arc<ListingIndex>,
    artifacts: &'a [ArtifactInfo],
}

impl IndexOf for ByPath<'_> {
    fn index_of(&self, path: &str) -> Option<usize> {
        self.index.find(path, |i| &self.artifacts[i].path)
    }
}

impl<'a> Files<'a> {
    /// The listing of `artifacts`, `version` of the session's listing.
    pub(super) fn new(session: &Session, artifacts: &'a [ArtifactInfo], version: u64) -> Self {
        let index = session.per_listing(BY_PATH, version, |_| {
            Arc::new(ListingIndex::of(artifacts.len(), |i| &artifacts[i].path))
        });
        Files {
            artifacts,
            version,
            paths: artifacts.iter().map(|a| a.path.as_str()).collect(),
            by_path: ByPath { index, artifacts },
        }
    }

    /// How many files are listed.
    pub(super) fn len(&self) -> usize {
        self.artifacts.len()
    }

    /// The files grouped by directory, kept per listing.
    pub(super) fn groups(&self, session: &Session) -> Arc<DirGroups> {
        session.per_listing(DIR_GROUPS, self.version, |_| {
            Arc::new(DirGroups::of(self.paths.iter().copied()))
        })
    }
}

/// What [`Files::new`] keeps per listing: the files by path.
const BY_PATH: &str = "files by path";

/// What the path-only pass keeps per listing ([`PathWords`]).
const PATH_WORDS: &str = "the words of every path";

/// What [`Files::groups`] keeps per listing.
const DIR_GROUPS: &str = "files by directory";

/// The task as read against the repository (§III.C.1): its environment, the text
/// its author wrote, its type, what a language model judged, its cues and its query.
pub(super) struct Reading {
    pub(super) environment: Environment,
    pub(super) text: String,
    pub(super) task_type: (task_type::TaskType, f32),
    pub(super) judgment: assist::EnvironmentJudgment,
    pub(super) cues: Vec<Cue>,
    pub(super) query: Query,
}

/// Environment-aware analysis: the repository's environment, the task's own words
/// (without issue-template comments, pasted environments and echoed templates), its
/// type (the model's when it judged one), its cues and its query (expanded with the
/// vocabulary bridge).
pub(super) fn read_task(
    session: &Session,
    task: &Task,
    files: &Files<'_>,
    config: &LocateConfig,
    llm: Option<&LlmCaller<'_>>,
) -> Reading {
    // The environment and the issue templates are the listing's: kept for the next
    // query while the listing stands.
    let (environment, templates) = session.per_listing(LISTING_READ, files.version, |read| {
        let listed: Vec<ListedFile<'_>> = (files.artifacts.iter())
            .map(|a| ListedFile {
                path: &a.path,
                language: a.language,
                role: a.role,
            })
            .collect();
        let environment = Environment::infer(&listed, read);
        let templates: Vec<String> = (files.artifacts.iter())
            .filter(|a| template::is_issue_template(&a.path))
            .filter_map(|a| read(&a.path))
            .collect();
        (Arc::new(environment), Arc::new(templates))
    });
    let environment = Environment::clone(&environment);
    // What the author wrote: issue templates' HTML comments ("this template applies to
    // bug reports, feature proposals and documentation requests…") are not the task.
    // Nor is the environment the reporter pasted (versions of everything installed).
    let text = report::strip(&cues::strip_html_comments(&task.text));
    // Nor are the lines it repeats from the repository's issue templates.
    let text = template::TemplateEcho::new(templates.iter().map(String::as_str)).strip(&text);
    let mut task_type = task_type::classify(&text);
    // With a language model: its reading of the task type, modules and constraints.
    let judgment = llm.and_then(|llm| assist::environment(llm, &text, &environment));
    let judgment = judgment.unwrap_or_default();
    if let Some(judged) = judgment.task_type {
        task_type = (judged, assist::JUDGED_TYPE_CONFIDENCE);
    }
    // Cues from the text and from the caller's hints.
    let mut cues = cues::extract(&text);
    cues.extend(hint_cues(task));
    let mut query = build_query(&text, &cues);
    if !config.ablation.no_bridge
        && let Some(bridge) = session.bridge()
    {
        query.expand(bridge);
    }
    Reading {
        environment,
        text,
        task_type,
        judgment,
        cues,
        query,
    }
}

/// The lexical pass over every file and the terms of Eq. 6 it gives.
pub(super) struct Lexical {
    pub(super) view: LexicalView,
    /// Files ranked by their path alone (beyond `budget.max_files`).
    pub(super) by_path_alone: usize,
    /// Per path, the identifiers the file writes (for the graph's scope); a file
    /// that writes none (one ranked by its path alone) is left out.
    pub(super) words: crate::hashing::ContentMap<String, Arc<[u32]>>,
    /// The cues, resolved to the files they name.
    pub(super) resolved: Vec<ResolvedCue>,
    /// s_sem: BM25F, normalized to the best file.
    pub(super) sem: Vec<f32>,
    /// The query terms that made each file's BM25F.
    pub(super) sem_terms: Vec<Vec<(usize, f32)>>,
    /// The vocabulary bridge's score of each file, normalized to the best.
    pub(super) bridged: Vec<f32>,
    /// Each file's strongest expansion terms (what explains its bridge score).
    pub(super) bridge_terms: Vec<Vec<(usize, f32)>>,
    /// How flat the best BM25F scores are (it sets Eq. 6's weights).
    pub(super) ambiguity: f32,
    /// s_sum: each file's alignment with the modules the task scopes.
    pub(super) sum: Vec<f32>,
}

/// The lexical pass, the cues resolved against it, and Eq. 6's s_sem and s_sum of
/// every file, with the bridge's scores.
pub(super) fn lexical_terms(
    session: &Session,
    reading: &Reading,
    files: &Files<'_>,
    config: &LocateConfig,
) -> Lexical {
    let query = &reading.query;
    let scanner = lexical::Scanner::new(query);
    let (stats, by_path_alone) = lexical_pass(
        session,
        query,
        &scanner,
        (&files.paths, files.version),
        config,
    );
    let view = lexical::aggregate(query, stats);
    let words: crate::hashing::ContentMap<String, Arc<[u32]>> = (files.paths.iter())
        .zip(&view.files)
        .filter(|(_, stats)| !stats.words.is_empty())
        .map(|(path, stats)| (path.to_string(), Arc::clone(&stats.words)))
        .collect();
    let resolver = LexicalResolver {
        artifacts: files.artifacts,
        view: &view,
        query,
    };
    let resolved: Vec<ResolvedCue> = cues::resolve(&reading.cues, &resolver)
        .into_iter()
        .filter(|r| r.files.len() <= MAX_CUE_FILES)
        .collect();
    let mut scope = reading.environment.module_scope(&reading.text);
    for &module in &reading.judgment.modules {
        match scope.iter_mut().find(|(m, _)| *m == module) {
            Some(entry) => entry.1 = entry.1.max(JUDGED_MODULE_SCOPE),
            None => scope.push((module, JUDGED_MODULE_SCOPE)),
        }
    }
    let n = files.len();
    let mut sem = vec![0.0f32; n];
    let mut sem_terms: Vec<Vec<(usize, f32)>> = vec![Vec::new(); n];
    for i in 0..n {
        (sem[i], sem_terms[i]) = view.bm25f(query, i);
    }
    // The vocabulary bridge: the words of the code the task's words translate to.
    let mut bridged = vec![0.0f32; n];
    let mut bridge_terms: Vec<Vec<(usize, f32)>> = vec![Vec::new(); n];
    if !query.expansion.is_empty() {
        for i in 0..n {
            (bridged[i], bridge_terms[i]) = view.bridge(query, i);
        }
        score::normalize_max(&mut bridged);
    }
    let mut sorted = sem.clone();
    sorted.sort_by(|a, b| b.total_cmp(a));
    let ambiguity = score::ambiguity(&sorted);
    score::normalize_max(&mut sem);
    let groups = files.groups(session);
    let sum = module_alignment(
        files.artifacts,
        &groups,
        &view,
        query,
        &reading.environment,
        &scope,
    );
    Lexical {
        view,
        by_path_alone,
        words,
        resolved,
        sem,
        sem_terms,
        bridged,
        bridge_terms,
        ambiguity,
        sum,
    }
}

/// The lexical pass over every file; in a repository of more than
/// `budget.max_files` files, only the files whose path matches the task best are
/// read, the others keep the statistics of their path alone (their number is
/// returned). Equal inputs, equal result: ties go to the earlier path.
pub(super) fn lexical_pass(
    session: &Session,
    query: &Query,
    scanner: &lexical::Scanner<'_>,
    (paths, version): (&[&str], u64),
    config: &LocateConfig,
) -> (Vec<Arc<lexical::FileStats>>, usize) {
    // A file's query-independent index is kept between queries as a table of ids
    // in the session's term store: a new query counts its terms from the table
    // without reading the file. Else the index comes from the on-disk cache (no
    // tokenizing), or is computed, and is kept as a table for the next query. The
    // statistics are the same every way. The file is read for the phrases only when
    // one may occur in it (the index has every identifier the phrase holds). A file
    // whose index would outgrow it (base64 in a notebook) is scanned directly.
    // Term tables pay where there is no on-disk cache (its indexes already spare the
    // tokenizing, at about the tables' speed), and from the session's second pass on:
    // building them costs a first query as much again, which a session that answers
    // one question should not pay.
    let store = session.term_store();
    let table_query = if session.disk_cache().is_none() && store.armed() {
        session.maintain_terms();
        scanner.table_query(store)
    } else {
        None
    };
    let from_table = |path: &str, content: &Content<'_>, table: &FileTerms| {
        let query = table_query.as_ref()?;
        let text = text_if(scanner.table_may_find_phrases(query, table), content);
        scanner.scan_table(path, query, table, &text)
    };
    let scan = |path: &str, content: &Content<'_>| {
        if table_query.is_some()
            && let Some(table) = store.get(content.hash())
            && let Some(stats) = from_table(path, content, &table)
        {
            return Arc::new(stats);
        }
        let index_of =
            |bytes: &[u8]| lexical::FileIndex::of(&String::from_utf8_lossy(bytes)).encode();
        let (computed, stored);
        let index = if session.disk_cache().is_some() {
            let Some(bytes) = session.through_disk(LEXICAL_INDEX, content, index_of) else {
                let text = String::from_utf8_lossy(content.bytes());
                return Arc::new(scanner.scan_file(path, &text));
            };
            stored = bytes;
            match IndexView::decode(&stored) {
                Some(index) => index,
                // A valid entry whose payload is no index: computed again.
                None => {
                    computed = lexical::FileIndex::of(&String::from_utf8_lossy(content.bytes()));
                    IndexView::of(&computed)
                }
            }
        } else if table_query.is_some() {
            computed = lexical::FileIndex::of(&String::from_utf8_lossy(content.bytes()));
            IndexView::of(&computed)
        } else {
            let text = String::from_utf8_lossy(content.bytes());
            return Arc::new(scanner.scan_file(path, &text));
        };
        if table_query.is_some()
            && let Some(table) = store.insert(content.hash(), index.table())
            && let Some(stats) = from_table(path, content, &table)
        {
            return Arc::new(stats);
        }
        let text = text_if(scanner.may_find_phrases(&index), content);
        Arc::new(scanner.scan_indexed(path, &index, &text))
    };
    let limit = config.budget.max_files;
    if paths.len() <= limit {
        let stats = session.scan_files(LEXICAL_PASS, query.fingerprint(), paths, &scan);
        store.arm();
        return (stats, 0);
    }
    // The paths' words are the listing's: tokenized once while it stands.
    let words = session.per_listing(PATH_WORDS, version, |_| PathWords::of(paths).map(Arc::new));
    let mut stats: Vec<Arc<lexical::FileStats>> = match words {
        Some(words) => scanner.scan_path_words(&words),
        // Words past 32-bit offsets (4 GiB of them): each path scanned alone.
        None => (paths.iter())
            .map(|path| Arc::new(scanner.scan_file(path, "")))
            .collect(),
    };
    let by_path = lexical::aggregate(query, stats.clone());
    let mut order: Vec<usize> = (0..paths.len()).collect();
    let score: Vec<f32> = (0..paths.len())
        .map(|i| by_path.bm25f(query, i).0)
        .collect();
    order.sort_by(|&a, &b| score[b].total_cmp(&score[a]).then(a.cmp(&b)));
    order.truncate(limit);
    order.sort_unstable();
    let chosen: Vec<&str> = order.iter().map(|&i| paths[i]).collect();
    let read = session.scan_files(LEXICAL_PASS, query.fingerprint(), &chosen, &scan);
    store.arm();
    for (i, s) in order.into_iter().zip(read) {
        stats[i] = s;
    }
    (stats, paths.len() - limit)
}

/// The file's text when the phrase search `needed` it (borrowed when it is UTF-8), else
/// nothing.
fn text_if<'c>(needed: bool, content: &'c Content<'_>) -> std::borrow::Cow<'c, str> {
    if needed {
        String::from_utf8_lossy(content.bytes())
    } else {
        std::borrow::Cow::Borrowed("")
    }
}
