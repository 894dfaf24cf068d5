//! The past-change cue of the Location stage: similar past changes point at the same
//! files (BugLocator's "similar bug reports" component, Zhou, Zhang and Lo, ICSE
//! 2012), with the repository's own commit messages as the past reports.
//!
//! Each ancestor commit's message (subject and body) is a short text about the files
//! it changed. The task and every message become TF-IDF vectors over the tokens of
//! the lexical pass (idf from the messages); a commit whose message is close to the
//! task (cosine similarity) lends evidence to the files it changed:
//!
//! `past(f) = rarity(f) · Σ_c sim(task, c) · age(c) / √|files(c)|` over the
//! best-matching commits that changed `f`,
//!
//! where `age(c) = 1 / (1 + days before HEAD / 365)`, a commit of many files says
//! less of each of them, and `rarity(f) = ln(1 + N / n_f) / ln(1 + N)` (`n_f` of the
//! history's `N` commits changed `f`): a changelog or a registry that every change
//! touches is no sign of this one. The strength of the signal is [`PAST_CHANGE_CUE`] times
//! `past(f)`, at most 1 (a term of s_rule in Eq. 6). Like the co-change cue, it
//! reads only the ancestors of HEAD.

use std::collections::HashMap;

use super::evidence::{Channel, Signal};
use super::lexical::Query;
use super::tokens::{Token, tokenize_into};
use crate::source::History;

/// Share of `past(f)` lent to the file as rule evidence.
pub const PAST_CHANGE_CUE: f32 = 0.5;
/// Commits whose message matches the task less than this lend nothing.
const MIN_MATCH: f32 = 0.15;
/// At most this many of the best-matching commits lend evidence.
const MAX_COMMITS: usize = 24;
/// Days of age that halve a commit's say (`age(c)` above).
const AGE_DAYS: f32 = 365.0;

/// A commit message as a sparse vector: `(term id, weight)`, sorted by term id, with
/// its norm.
struct MessageVector {
    terms: Vec<(u32, f32)>,
    norm: f32,
}

/// The messages of a history as TF-IDF vectors.
struct Messages {
    /// Term → id.
    vocabulary: HashMap<String, u32>,
    /// Inverse document frequency by term id.
    idf: Vec<f32>,
    /// One vector per commit of the history (empty for commits without paths).
    vectors: Vec<MessageVector>,
}

impl Messages {
    fn of(history: &History) -> Messages {
        let mut vocabulary: HashMap<String, u32> = HashMap::new();
        let mut df: Vec<u32> = Vec::new();
        let mut counts: Vec<Vec<(u32, u32)>> = Vec::with_capacity(history.commits.len());
        let mut token = Token::default();
        let mut local: HashMap<u32, u32> = HashMap::new();
        for commit in &history.commits {
            local.clear();
            if !commit.paths.is_empty() {
                for text in [commit.subject.as_str(), commit.message.as_str()] {
                    tokenize_into(text, &mut token, &mut |t: &Token| {
                        let next = vocabulary.len() as u32;
                        let id = *vocabulary.entry(t.as_str().to_string()).or_insert(next);
                        if id as usize == df.len() {
                            df.push(0);
                        }
                        *local.entry(id).or_default() += 1;
                    });
                }
            }
            let mut terms: Vec<(u32, u32)> = local.iter().map(|(&t, &n)| (t, n)).collect();
            terms.sort_unstable();
            for &(t, _) in &terms {
                df[t as usize] += 1;
            }
            counts.push(terms);
        }
        let documents = counts.iter().filter(|c| !c.is_empty()).count().max(1) as f32;
        let idf: Vec<f32> = df
            .iter()
            .map(|&n| (1.0 + documents / n.max(1) as f32).ln())
            .collect();
        let vectors = counts
            .into_iter()
            .map(|terms| {
                let terms: Vec<(u32, f32)> = terms
                    .into_iter()
                    .map(|(t, n)| (t, (1.0 + (n as f32).ln()) * idf[t as usize]))
                    .collect();
                let norm = terms.iter().map(|(_, w)| w * w).sum::<f32>().sqrt();
                MessageVector { terms, norm }
            })
            .collect();
        Messages {
            vocabulary,
            idf,
            vectors,
        }
    }

    /// The cosine similarity of the task's query with every commit message.
    fn similarities(&self, query: &Query) -> Vec<f32> {
        let absent = (1.0 + self.vectors.len().max(1) as f32).ln();
        let mut wanted: Vec<(u32, f32)> = Vec::new();
        let mut norm = 0.0f32;
        for (term, weight) in &query.terms {
            let (id, idf) = match self.vocabulary.get(term) {
                Some(&id) => (Some(id), self.idf[id as usize]),
                None => (None, absent),
            };
            let w = weight * idf;
            norm += w * w;
            if let Some(id) = id {
                wanted.push((id, w));
            }
        }
        let norm = norm.sqrt();
        wanted.sort_unstable_by_key(|&(id, _)| id);
        self.vectors
            .iter()
            .map(|v| {
                if v.norm == 0.0 || norm == 0.0 {
                    return 0.0;
                }
                let dot: f32 = wanted
                    .iter()
                    .filter_map(|&(id, w)| {
                        let k = v.terms.binary_search_by_key(&id, |&(t, _)| t).ok()?;
                        Some(w * v.terms[k].1)
                    })
                    .sum();
                dot / (norm * v.norm)
            })
            .collect()
    }
}

/// Adds past-change evidence to `evidence` (indexed like the listing; `by_path`
/// maps a path to its index).
pub(super) fn apply(
    history: &History,
    query: &Query,
    by_path: &impl crate::hashing::IndexOf,
    evidence: &mut [Vec<Signal>],
) {
    if history.commits.is_empty() || query.terms.is_empty() {
        return;
    }
    let messages = Messages::of(history);
    let similarity = messages.similarities(query);
    let mut best: Vec<usize> = (0..similarity.len())
        .filter(|&k| similarity[k] >= MIN_MATCH)
        .collect();
    // Best match first; among equals the newer commit (history order).
    best.sort_by(|&a, &b| similarity[b].total_cmp(&similarity[a]).then(a.cmp(&b)));
    best.truncate(MAX_COMMITS);
    let rarity = Rarity::of(history);
    // Per file: the summed say of its commits, and the commit that said most.
    let mut lent: HashMap<usize, (f32, usize, f32, usize)> = HashMap::new();
    for &k in &best {
        let commit = &history.commits[k];
        let say = similarity[k] * age(history, commit) / (commit.paths.len() as f32).sqrt();
        for path in &commit.paths {
            let Some(i) = by_path.index_of(path) else {
                continue;
            };
            let say = say * rarity.of_path(path);
            let entry = lent.entry(i).or_insert((0.0, k, 0.0, 0));
            entry.0 += say;
            entry.3 += 1;
            if say > entry.2 {
                (entry.1, entry.2) = (k, say);
            }
        }
    }
    let mut files: Vec<(usize, (f32, usize, f32, usize))> = lent.into_iter().collect();
    files.sort_unstable_by_key(|&(i, _)| i);
    for (i, (sum, k, _, count)) in files {
        let commit = &history.commits[k];
        let others = match count {
            1 => String::new(),
            2 => " and 1 other similar past change".to_string(),
            n => format!(" and {} other similar past changes", n - 1),
        };
        evidence[i].push(Signal::new(
            Channel::PastChange,
            (PAST_CHANGE_CUE * sum).min(1.0),
            format!(
                "commit {} '{}' changed this file (match {:.2}){others}",
                &commit.id[..commit.id.len().min(7)],
                short(&commit.subject),
                similarity[k]
            ),
        ));
    }
}

/// `rarity(f) = ln(1 + N / n_f) / ln(1 + N)`: how little a file's change says of
/// the change it is in (`n_f` of the history's `N` commits changed it).
struct Rarity<'h> {
    changed: HashMap<&'h str, u32>,
    commits: f32,
}

impl<'h> Rarity<'h> {
    fn of(history: &'h History) -> Self {
        let mut changed: HashMap<&str, u32> = HashMap::new();
        for commit in &history.commits {
            for path in &commit.paths {
                *changed.entry(path.as_str()).or_default() += 1;
            }
        }
        Rarity {
            changed,
            commits: history.commits.len() as f32,
        }
    }

    fn of_path(&self, path: &str) -> f32 {
        let n = self.changed.get(path).copied().unwrap_or(1).max(1) as f32;
        (1.0 + self.commits / n).ln() / (1.0 + self.commits).ln()
    }
}

/// `age(c) = 1 / (1 + days before HEAD / 365)`.
fn age(history: &History, commit: &crate::source::Commit) -> f32 {
    let days = ((history.head_time - commit.time).max(0) as f32) / 86_400.0;
    1.0 / (1.0 + days / AGE_DAYS)
}

/// What the past changes whose messages mean what the task means say of a file
/// (issue 47; the static table's cosines in place of the words').
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub(crate) struct SemanticPast {
    /// The best standard score (cosine over the history's mean, in its standard
    /// deviations; at least 0) of a commit that changed the file.
    pub best: f32,
    /// `past(f)` with those standard scores as `sim`, over the [`MAX_COMMITS`]
    /// commits that score best.
    pub lent: f32,
    /// The commit of the best standard score (its index in the history).
    pub commit: usize,
}

/// The explanation of a file's best semantic past change: its commit and how far
/// above the history's mean it lies.
pub(crate) fn explain_semantic(history: &History, past: &SemanticPast) -> Option<String> {
    let commit = history.commits.get(past.commit)?;
    Some(format!(
        "semantic match (static): commit {} '{}' changed this file (+{:.1} sd)",
        &commit.id[..commit.id.len().min(7)],
        short(&commit.subject),
        past.best
    ))
}

/// A commit message's bytes read by the static table at most: its subject and the
/// head of its body (a long body is a changelog more than a summary).
const MESSAGE_BYTES: usize = 600;

/// The past changes' semantic say of every file they changed (indexed like the
/// listing): each commit's message (subject and body head) embedded by `embed`, its
/// cosine with `task` (a unit vector) made a standard score over the history, since
/// a static table's cosines crowd in a narrow band. The commits of a history are
/// bounded by its options, so this is bounded too.
pub(crate) fn semantic(
    history: &History,
    task: &[f32],
    embed: impl Fn(&str) -> Option<Vec<f32>> + Sync,
    by_path: &impl crate::hashing::IndexOf,
) -> HashMap<usize, SemanticPast> {
    use rayon::prelude::*;
    // Each message alone, in parallel, collected in the history's order: the same
    // cosines whatever the threads.
    let cosines: Vec<(usize, f32)> = history
        .commits
        .par_iter()
        .enumerate()
        .filter(|(_, commit)| !commit.paths.is_empty())
        .filter_map(|(k, commit)| {
            let body = crate::text::prefix(&commit.message, MESSAGE_BYTES);
            let text = format!("{}\n{body}", commit.subject);
            Some((k, crate::semantic::cosine(task, &embed(&text)?)))
        })
        .collect();
    if cosines.len() < 2 {
        return HashMap::new();
    }
    let n = cosines.len() as f32;
    let mean = cosines.iter().map(|c| c.1).sum::<f32>() / n;
    let sd = (cosines.iter().map(|c| (c.1 - mean).powi(2)).sum::<f32>() / n).sqrt();
    if sd <= f32::EPSILON {
        return HashMap::new();
    }
    // On the grid of the cosines, so that the last bits of a sum do not move a
    // learned threshold.
    let z: Vec<(usize, f32)> = cosines
        .iter()
        .map(|&(k, c)| (k, crate::semantic::on_grid(((c - mean) / sd).max(0.0))))
        .collect();
    let rarity = Rarity::of(history);
    let mut out: HashMap<usize, SemanticPast> = HashMap::new();
    for &(k, score) in &z {
        for path in &history.commits[k].paths {
            if let Some(i) = by_path.index_of(path) {
                let entry = out.entry(i).or_default();
                // The first commit (the newest) of the best score names it.
                if score > entry.best {
                    (entry.best, entry.commit) = (score, k);
                }
            }
        }
    }
    let mut best = z;
    // Best first; among equals the newer commit (history order).
    best.sort_by(|a, b| b.1.total_cmp(&a.1).then(a.0.cmp(&b.0)));
    best.truncate(MAX_COMMITS);
    for (k, score) in best {
        let commit = &history.commits[k];
        let say = score * age(history, commit) / (commit.paths.len() as f32).sqrt();
        for path in &commit.paths {
            if let Some(i) = by_path.index_of(path) {
                out.entry(i).or_default().lent += say * rarity.of_path(path);
            }
        }
    }
    for past in out.values_mut() {
        past.lent = crate::semantic::on_grid(past.lent);
    }
    out
}

/// A subject cut to 72 characters for an explanation.
fn short(subject: &str) -> String {
    let mut out: String = subject.chars().take(72).collect();
    if out.len() < subject.len() {
        out.push('…');
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::source::Commit;

    fn commit(id: char, days: i64, subject: &str, paths: &[&str]) -> Commit {
        Commit {
            id: id.to_string().repeat(40),
            time: 1_700_000_000 - days * 86_400,
            author: "a".into(),
            subject: subject.into(),
            message: String::new(),
            paths: paths.iter().map(|p| p.to_string()).collect(),
        }
    }

    #[test]
    fn a_similar_past_message_lends_to_the_files_it_changed() {
        let history = History::new(
            "h".repeat(40),
            1_700_000_000,
            vec![
                commit('a', 10, "Fix copy of unicode indexes", &["core/index.py"]),
                commit('b', 20, "Add a logo to the docs", &["docs/logo.md"]),
                commit(
                    'c',
                    900,
                    "Unicode indexes lose their names on copy",
                    &["core/index.py", "core/names.py"],
                ),
                commit('d', 30, "Bump version", &["setup.py"]),
            ],
        );
        let paths = ["core/index.py", "core/names.py", "docs/logo.md", "setup.py"];
        let by_path: crate::hashing::PathIndex<'_> =
            paths.iter().enumerate().map(|(i, p)| (*p, i)).collect();
        let query = Query::new("Copying a unicode index drops it", Vec::new(), Vec::new());
        let mut evidence = vec![Vec::new(); paths.len()];
        apply(&history, &query, &by_path, &mut evidence);
        let strength = |i: usize| evidence[i].first().map_or(0.0, |s| s.strength);
        assert!(strength(0) > strength(1), "{evidence:?}");
        assert!(strength(1) > 0.0);
        assert_eq!((strength(2), strength(3)), (0.0, 0.0));
        let what = &evidence[0][0].what;
        assert!(
            what.starts_with(
                "commit aaaaaaa 'Fix copy of unicode indexes' changed this file (match"
            ),
            "{what}"
        );
        assert!(what.ends_with("and 1 other similar past change"), "{what}");
    }

    #[test]
    fn a_file_every_commit_changes_is_no_sign() {
        let mut commits = vec![commit(
            'a',
            1,
            "Fix copy of unicode indexes",
            &["core/index.py", "CHANGES"],
        )];
        for (k, id) in ['b', 'c', 'd', 'e', 'f'].into_iter().enumerate() {
            let subject = format!("Release {k}");
            commits.push(commit(id, 2 + k as i64, &subject, &["CHANGES", "setup.py"]));
        }
        let history = History::new("h".repeat(40), 1_700_000_000, commits);
        let paths = ["core/index.py", "CHANGES"];
        let by_path: crate::hashing::PathIndex<'_> =
            paths.iter().enumerate().map(|(i, p)| (*p, i)).collect();
        let query = Query::new("Copying a unicode index drops it", Vec::new(), Vec::new());
        let mut evidence = vec![Vec::new(); paths.len()];
        apply(&history, &query, &by_path, &mut evidence);
        let (index, changes) = (evidence[0][0].strength, evidence[1][0].strength);
        assert!(index > 2.5 * changes, "{index} {changes}");
    }

    /// A toy embedder: one dimension per word of a small vocabulary.
    fn toy_embed(text: &str) -> Option<Vec<f32>> {
        const WORDS: [&str; 6] = ["slow", "fast", "logo", "docs", "bump", "cache"];
        let lower = text.to_lowercase();
        let v: Vec<f32> = WORDS
            .iter()
            .map(|w| lower.matches(w).count() as f32)
            .collect();
        v.iter().any(|&x| x > 0.0).then_some(v)
    }

    #[test]
    fn past_changes_close_in_meaning_lend_to_their_files() {
        let history = History::new(
            "h".repeat(40),
            1_700_000_000,
            vec![
                commit('a', 10, "Make the cache fast again", &["core/cache.py"]),
                commit('b', 20, "Add a logo to the docs", &["docs/logo.md"]),
                commit('c', 30, "Bump version", &["setup.py"]),
                commit(
                    'd',
                    40,
                    "Docs: bump the logo",
                    &["docs/logo.md", "setup.py"],
                ),
                commit('e', 50, "No vector for this one", &["core/other.py"]),
            ],
        );
        let paths = ["core/cache.py", "docs/logo.md", "setup.py", "core/other.py"];
        let by_path: crate::hashing::PathIndex<'_> =
            paths.iter().enumerate().map(|(i, p)| (*p, i)).collect();
        let task = toy_embed("the cache is slow, make it fast").unwrap();
        let past = semantic(&history, &task, toy_embed, &by_path);
        let cache = past[&0];
        assert!(cache.best > 1.0 && cache.lent > 0.0, "{past:?}");
        let said = explain_semantic(&history, &cache).unwrap();
        assert!(
            said.starts_with("semantic match (static): commit aaaaaaa 'Make the cache fast again'"),
            "{said}"
        );
        // A commit no closer than the history's mean says nothing; a file no embedded
        // commit changed is absent.
        assert_eq!(past.get(&1).map_or(0.0, |p| p.best), 0.0, "{past:?}");
        assert!(!past.contains_key(&3), "{past:?}");
        // Deterministic, and nothing without a history to compare with.
        assert_eq!(semantic(&history, &task, toy_embed, &by_path), past);
        let one = History::new("h".repeat(40), 0, history.commits[..1].to_vec());
        assert!(semantic(&one, &task, toy_embed, &by_path).is_empty());
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(64))]
        /// Any messages (any text, of any length) and paths: no panic, finite
        /// non-negative scores, the same answer twice.
        #[test]
        fn any_history_gives_finite_scores_deterministically(
            commits in proptest::collection::vec(
                (".{0,40}", "(?s).{0,900}", proptest::collection::vec("[a-c]/[a-d]", 0..4)),
                0..24,
            ),
            task in ".{0,60}",
        ) {
            let Some(table) = crate::semantic::StaticTable::builtin_embedder() else {
                return Ok(());
            };
            let commits: Vec<Commit> = commits
                .into_iter()
                .enumerate()
                .map(|(k, (subject, message, paths))| Commit {
                    id: format!("{k:040}"),
                    time: 1_700_000_000 - k as i64 * 3_600,
                    author: "a".into(),
                    subject,
                    message,
                    paths,
                })
                .collect();
            let history = History::new("h".repeat(40), 1_700_000_000, commits);
            let paths = ["a/a", "a/b", "b/c", "c/d"];
            let by_path: crate::hashing::PathIndex<'_> =
                paths.iter().enumerate().map(|(i, p)| (*p, i)).collect();
            let Some(task) = table.embed(&task) else {
                return Ok(());
            };
            let first = semantic(&history, &task, |t| table.embed(t), &by_path);
            for past in first.values() {
                proptest::prop_assert!(past.best.is_finite() && past.best >= 0.0);
                proptest::prop_assert!(past.lent.is_finite() && past.lent >= 0.0);
                proptest::prop_assert!(explain_semantic(&history, past).is_some());
            }
            let again = semantic(&history, &task, |t| table.embed(t), &by_path);
            proptest::prop_assert_eq!(first, again);
        }
    }

    #[test]
    fn no_history_or_no_words_lend_nothing() {
        let by_path = crate::hashing::PathIndex::default();
        let mut evidence: Vec<Vec<Signal>> = Vec::new();
        let empty = History::new("h".repeat(40), 0, Vec::new());
        apply(
            &empty,
            &Query::new("anything", Vec::new(), Vec::new()),
            &by_path,
            &mut evidence,
        );
        let history = History::new("h".repeat(40), 0, vec![commit('a', 0, "the of", &["x.py"])]);
        apply(
            &history,
            &Query::new("the of", Vec::new(), Vec::new()),
            &by_path,
            &mut evidence,
        );
        assert!(evidence.is_empty());
    }
}
