//! Historical relations: files that changed together in the ancestors of HEAD, and
//! per-file recency and churn.
//!
//! A pair of files is linked when they changed together in at least
//! [`MIN_CO_CHANGE_SUPPORT`] commits. Each commit counts with a weight that halves
//! every [`CO_CHANGE_HALF_LIFE_COMMITS`] commits back from HEAD, so recent co-changes
//! weigh more than old ones; in a pair's count, a commit of `m` files also counts
//! `1 / sqrt(m − 1)` (1 for a commit of two files, ⅓ for one of ten), so that two
//! broad sweeps that happen to overlap say less than two focused fixes. The
//! confidence of `a → b` is
//!
//! ```text
//! P(b | a) · rarity(a) · rarity(b),   P(b | a) = W(a, b) / (W(a) + 1)
//! ```
//!
//! where `W(a, b)` is the weighted (by age and size) number of commits changing both, `W(a)` those
//! changing `a`, and the `+ 1` a one-commit prior that keeps two lone co-changes, or
//! old ones, from looking certain. `rarity(x) = ln(N / n_x) / ln N` is the normalized
//! inverse document frequency of the commits touching `x` among the `N` commits read:
//! the same logic as name references (`explicit.rs`), with the commits as documents.
//! A file changed in every commit has rarity 0 and links nothing; the product of the
//! two rarities plays the role of the squared IDF of a name. Each file keeps its
//! [`MAX_CO_CHANGE_PARTNERS`] strongest partners; the edge in the other direction has
//! its own confidence (`P(a | b)`) and its own cap.

use std::collections::HashMap;

use serde::Serialize;

use super::build::{Positions, RawEdge};
use super::{EdgeData, InputArtifact, Relation};
use crate::resolve::file_name;
use crate::source::History;

/// Commits back from HEAD after which a commit's weight has halved.
pub const CO_CHANGE_HALF_LIFE_COMMITS: f32 = 100.0;
/// Days between a file's last change and HEAD after which its recency has halved.
pub const RECENCY_HALF_LIFE_DAYS: f32 = 30.0;
/// A pair must have changed together at least this often to be linked.
pub const MIN_CO_CHANGE_SUPPORT: usize = 2;
/// Each file links at most this many co-change partners, the strongest.
pub const MAX_CO_CHANGE_PARTNERS: usize = 8;
/// Co-change edges weaker than this are dropped.
const MIN_CO_CHANGE_CONFIDENCE: f32 = 0.05;
const SECONDS_PER_DAY: f32 = 86_400.0;

/// What the history says about one file: signals for the role prior and for Gain in
/// Eq. 7.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct FileHistory {
    /// Commits of the history read that changed the file.
    pub commits: usize,
    /// Days from the file's latest change to HEAD (committer times; 0 when changed
    /// in HEAD or later than it by the clock).
    pub days_since_change: f32,
    /// `0.5^(days_since_change / RECENCY_HALF_LIFE_DAYS)`, in [0, 1]: 1 when changed
    /// in HEAD, ½ a month earlier.
    pub recency: f32,
    /// `ln(1 + commits) / ln(1 + the most commits of any file)`, in [0, 1]: 1 for the
    /// file changed most often.
    pub churn: f32,
}

/// What the history says about one file, as it is counted.
#[derive(Debug, Clone, Copy, Default)]
struct FileCount {
    commits: usize,
    weight: f32,
    /// Index of the newest commit changing the file (commits are newest first).
    newest: Option<usize>,
}

/// What the history says about one pair.
#[derive(Debug, Clone, Copy)]
struct PairCount {
    commits: usize,
    weight: f32,
    newest: usize,
}

/// Co-change edges between artifact indexes, and the history signals of each
/// artifact (indexed like the artifacts).
pub(super) fn edges(
    history: &History,
    artifacts: &[InputArtifact],
    positions: &Positions<'_>,
) -> (Vec<RawEdge>, Vec<Option<FileHistory>>) {
    let paths: Vec<&str> = artifacts.iter().map(|a| a.path.as_str()).collect();
    analyze(history, &paths, |p| positions.get(p))
}

/// Co-change edges between the indexes of `paths`, and the history signals of each
/// path (indexed like `paths`). `index_of` maps a path of the history to its index
/// in `paths` (`None` for paths that are no longer there).
pub(crate) fn analyze(
    history: &History,
    paths: &[&str],
    index_of: impl Fn(&str) -> Option<u32>,
) -> (Vec<RawEdge>, Vec<Option<FileHistory>>) {
    let mut files = vec![FileCount::default(); paths.len()];
    let mut pairs: HashMap<(u32, u32), PairCount> = HashMap::new();
    let mut considered = 0usize;
    for (k, commit) in history.commits.iter().enumerate() {
        let mut touched: Vec<u32> = commit.paths.iter().filter_map(|p| index_of(p)).collect();
        touched.sort_unstable();
        touched.dedup();
        if touched.is_empty() {
            continue;
        }
        considered += 1;
        let weight = commit_weight(k);
        let pair_weight = pair_weight(k, touched.len());
        for &f in &touched {
            let count = &mut files[f as usize];
            count.commits += 1;
            count.weight += weight;
            count.newest.get_or_insert(k);
        }
        for (i, &a) in touched.iter().enumerate() {
            for &b in &touched[i + 1..] {
                let pair = pairs.entry((a, b)).or_insert(PairCount {
                    commits: 0,
                    weight: 0.0,
                    newest: k,
                });
                pair.commits += 1;
                pair.weight += pair_weight;
            }
        }
    }
    let signals = signals(history, &files);
    let rarity = |f: u32| rarity(files[f as usize].commits, considered);
    let mut candidates: Vec<Vec<(f32, u32, PairCount)>> = vec![Vec::new(); paths.len()];
    for (&(a, b), pair) in &pairs {
        if pair.commits < MIN_CO_CHANGE_SUPPORT {
            continue;
        }
        let shared = rarity(a) * rarity(b);
        for (from, to) in [(a, b), (b, a)] {
            let given = pair.weight / (files[from as usize].weight + 1.0);
            let confidence = (given * shared).clamp(0.0, 1.0);
            if confidence >= MIN_CO_CHANGE_CONFIDENCE {
                candidates[from as usize].push((confidence, to, *pair));
            }
        }
    }
    let mut out = Vec::new();
    for (from, mut list) in candidates.into_iter().enumerate() {
        // Strongest first; ties by target index so that the cut is deterministic.
        list.sort_by(|x, y| y.0.total_cmp(&x.0).then(x.1.cmp(&y.1)));
        list.truncate(MAX_CO_CHANGE_PARTNERS);
        for (confidence, to, pair) in list {
            let rationale = rationale(history, paths[from], files[from], pair);
            out.push((
                from as u32,
                to,
                EdgeData {
                    relation: Relation::CoChange,
                    confidence,
                    rationale,
                },
            ));
        }
    }
    (out, signals)
}

/// The weight of the `k`-th commit back from HEAD: it halves every
/// [`CO_CHANGE_HALF_LIFE_COMMITS`] commits.
pub(crate) fn commit_weight(k: usize) -> f32 {
    0.5f32.powf(k as f32 / CO_CHANGE_HALF_LIFE_COMMITS)
}

/// The weight the `k`-th commit back gives each pair of the `m` files it changed:
/// its [`commit_weight`] over `sqrt(m − 1)`, so that broad sweeps say less than
/// focused fixes.
pub(crate) fn pair_weight(k: usize, m: usize) -> f32 {
    commit_weight(k) / ((m.max(2) - 1) as f32).sqrt()
}

/// Normalized IDF of a file changed in `n` of `total` commits, in [0, 1].
fn rarity(n: usize, total: usize) -> f32 {
    if total < 2 || n == 0 {
        return 1.0;
    }
    let (n, total) = (n as f32, total as f32);
    ((total / n).ln() / total.ln()).clamp(0.0, 1.0)
}

/// Days from a commit to HEAD, never negative.
fn days_before_head(history: &History, index: usize) -> f32 {
    let time = history
        .commits
        .get(index)
        .map_or(history.head_time, |c| c.time);
    (history.head_time.saturating_sub(time).max(0) as f32) / SECONDS_PER_DAY
}

fn signals(history: &History, files: &[FileCount]) -> Vec<Option<FileHistory>> {
    let most = files.iter().map(|f| f.commits).max().unwrap_or(0);
    files
        .iter()
        .map(|f| {
            let newest = f.newest?;
            let days = days_before_head(history, newest);
            let churn = if most == 0 {
                0.0
            } else {
                ((1.0 + f.commits as f32).ln() / (1.0 + most as f32).ln()).clamp(0.0, 1.0)
            };
            Some(FileHistory {
                commits: f.commits,
                days_since_change: days,
                recency: 0.5f32.powf(days / RECENCY_HALF_LIFE_DAYS).clamp(0.0, 1.0),
                churn,
            })
        })
        .collect()
}

/// "changed together in 7 of the last 9 commits touching `query.py`, most recently
/// 12 days before HEAD".
fn rationale(history: &History, from: &str, file: FileCount, pair: PairCount) -> String {
    let when = match history.commits.get(pair.newest) {
        Some(c) if c.id == history.head => "in HEAD".to_string(),
        _ => match days_before_head(history, pair.newest).floor() as u64 {
            0 => "less than a day before HEAD".to_string(),
            1 => "1 day before HEAD".to_string(),
            days => format!("{days} days before HEAD"),
        },
    };
    format!(
        "changed together in {} of the last {} commits touching `{}`, most recently {when}",
        pair.commits,
        file.commits,
        file_name(from)
    )
}
