//! The evaluation metrics of the paper (§IV.C), defined once.
//!
//! A task is scored by where its gold files land ([`TaskScore`]): their rank in the
//! ranking, whether they are among the anchors, whether they are in the returned set.
//! [`Totals`] adds tasks up into the reported metrics ([`Metrics`]):
//!
//! - **FRR** (Full Recall Rate): the share of tasks whose every gold file is in the
//!   returned set; FRR@k, every gold file within the first k of the ranking;
//! - **micro recall and precision** of the returned sets (gold files found over gold
//!   files, over files returned), and recall@k of the ranking;
//! - **MRR**: the mean reciprocal rank of each task's best-ranked gold file (0 when
//!   none is ranked).
//!
//! The Rust benchmark (`examples/eval_tasks.rs`), the Python `deepdiscovery.evaluate`
//! and the CLI's `eval` all call this module, so every quality claim rests on one
//! definition: they read task files with [`tasks`], check out a task's commit with
//! [`checkout`], run it with [`run`] and score it here.

use std::collections::{HashMap, HashSet};

pub mod checkout;
pub mod run;
pub mod tasks;

pub use checkout::{CHECKOUTS_ENV, MIRRORS_ENV, ensure_checkout, find_mirror, remove_dir};
pub use run::{
    Checkouts, Mode, Outcome, RunEmbedder, RunOptions, TaskResult, TaskRun, run_at, run_in,
};
pub use tasks::{EvalTask, TaskFileError, load_tasks, parse_tasks};

use serde::{Deserialize, Serialize};

/// Where one task's gold files landed.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct TaskScore {
    /// The 1-based rank of each gold file's first occurrence in the ranking, `None`
    /// when it is not ranked.
    pub gold_ranks: Vec<Option<usize>>,
    /// Whether each gold file is among the anchors (empty when not scored).
    #[serde(default)]
    pub in_anchors: Vec<bool>,
    /// Whether each gold file is in the returned set; `None` when no set was returned
    /// (a Location-only run).
    #[serde(default)]
    pub in_set: Option<Vec<bool>>,
    /// How many distinct files the returned set holds.
    #[serde(default)]
    pub set_size: usize,
}

impl TaskScore {
    /// Scores a task: its `gold` files against a `ranking`, the `anchors` and the
    /// `returned` set (`None` when there is none).
    pub fn new(
        gold: &[&str],
        ranking: &[&str],
        anchors: &[&str],
        returned: Option<&[&str]>,
    ) -> TaskScore {
        let mut rank: HashMap<&str, usize> = HashMap::new();
        for (i, path) in ranking.iter().enumerate() {
            rank.entry(path).or_insert(i + 1);
        }
        let anchors: HashSet<&str> = anchors.iter().copied().collect();
        let set: Option<HashSet<&str>> = returned.map(|r| r.iter().copied().collect());
        TaskScore {
            gold_ranks: gold.iter().map(|g| rank.get(g).copied()).collect(),
            in_anchors: gold.iter().map(|g| anchors.contains(g)).collect(),
            in_set: set
                .as_ref()
                .map(|s| gold.iter().map(|g| s.contains(g)).collect()),
            set_size: set.as_ref().map_or(0, HashSet::len),
        }
    }

    /// The score of a task that failed: nothing ranked, and an empty set when
    /// `with_set`.
    pub fn failed(gold: usize, with_set: bool) -> TaskScore {
        TaskScore {
            gold_ranks: vec![None; gold],
            in_anchors: vec![false; gold],
            in_set: with_set.then(|| vec![false; gold]),
            set_size: 0,
        }
    }

    /// The score of the gold files at `kept` only (the set's size unchanged): for
    /// scoring without the files a fix creates.
    pub fn keep(&self, kept: &[usize]) -> TaskScore {
        let pick = |v: &[bool]| kept.iter().filter_map(|i| v.get(*i).copied()).collect();
        TaskScore {
            gold_ranks: kept
                .iter()
                .filter_map(|i| self.gold_ranks.get(*i).copied())
                .collect(),
            in_anchors: pick(&self.in_anchors),
            in_set: self.in_set.as_deref().map(pick),
            set_size: self.set_size,
        }
    }

    /// Gold files in the returned set.
    pub fn hits(&self) -> usize {
        self.in_set
            .as_ref()
            .map_or(0, |s| s.iter().filter(|h| **h).count())
    }

    /// Whether every gold file is in the returned set (FRR's event).
    pub fn full(&self) -> bool {
        self.in_set.as_ref().is_some_and(|s| s.iter().all(|h| *h))
    }

    /// Gold files within the first `k` of the ranking.
    pub fn hits_within(&self, k: usize) -> usize {
        self.gold_ranks
            .iter()
            .filter(|r| r.is_some_and(|r| r <= k))
            .count()
    }

    /// Whether every gold file is within the first `k` (FRR@k's event).
    pub fn full_within(&self, k: usize) -> bool {
        self.hits_within(k) == self.gold_ranks.len()
    }

    /// The reciprocal rank of the best-ranked gold file, 0 when none is ranked.
    pub fn reciprocal_rank(&self) -> f64 {
        self.gold_ranks
            .iter()
            .flatten()
            .min()
            .map_or(0.0, |best| 1.0 / *best as f64)
    }
}

/// Counts over tasks, from which [`Metrics`] are read.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Totals {
    cutoffs: Vec<usize>,
    tasks: usize,
    gold: usize,
    full_at: Vec<usize>,
    hits_at: Vec<usize>,
    full_in_anchors: usize,
    reciprocal_ranks: f64,
    set_tasks: usize,
    set_full: usize,
    set_hits: usize,
    set_gold: usize,
    set_files: usize,
}

/// The metrics of a set of tasks; a share is `None` when undefined (no task, or for
/// precision, no file returned).
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct Metrics {
    /// Tasks scored (with at least one gold file).
    pub tasks: usize,
    /// FRR@k per cutoff: `(k, share)`.
    pub frr_at: Vec<(usize, Option<f64>)>,
    /// Micro recall@k per cutoff: `(k, share)`.
    pub recall_at: Vec<(usize, Option<f64>)>,
    /// The share of tasks with every gold file among the anchors (FRR@K_a).
    pub frr_in_anchors: Option<f64>,
    /// Mean reciprocal rank.
    pub mrr: Option<f64>,
    /// Tasks scored with a returned set.
    pub set_tasks: usize,
    /// FRR of the returned sets.
    pub frr: Option<f64>,
    /// Micro recall of the returned sets.
    pub recall: Option<f64>,
    /// Micro precision of the returned sets.
    pub precision: Option<f64>,
    /// Mean size of the returned sets.
    pub mean_set_size: Option<f64>,
}

impl Totals {
    /// Empty totals for FRR@k and recall@k at `cutoffs`.
    pub fn new(cutoffs: &[usize]) -> Totals {
        Totals {
            cutoffs: cutoffs.to_vec(),
            full_at: vec![0; cutoffs.len()],
            hits_at: vec![0; cutoffs.len()],
            ..Totals::default()
        }
    }

    /// Adds one task; a task without gold files is not scored.
    pub fn add(&mut self, score: &TaskScore) {
        if score.gold_ranks.is_empty() {
            return;
        }
        self.tasks += 1;
        self.gold += score.gold_ranks.len();
        for (i, &k) in self.cutoffs.iter().enumerate() {
            self.full_at[i] += usize::from(score.full_within(k));
            self.hits_at[i] += score.hits_within(k);
        }
        self.full_in_anchors +=
            usize::from(!score.in_anchors.is_empty() && score.in_anchors.iter().all(|a| *a));
        self.reciprocal_ranks += score.reciprocal_rank();
        if let Some(in_set) = &score.in_set {
            self.set_tasks += 1;
            self.set_full += usize::from(score.full());
            self.set_hits += score.hits();
            self.set_gold += in_set.len();
            self.set_files += score.set_size;
        }
    }

    /// The metrics of the tasks added.
    pub fn metrics(&self) -> Metrics {
        let share = |n: f64, d: usize| (d > 0).then(|| n / d as f64);
        Metrics {
            tasks: self.tasks,
            frr_at: (self.cutoffs.iter().copied())
                .zip(self.full_at.iter().map(|n| share(*n as f64, self.tasks)))
                .collect(),
            recall_at: (self.cutoffs.iter().copied())
                .zip(self.hits_at.iter().map(|n| share(*n as f64, self.gold)))
                .collect(),
            frr_in_anchors: share(self.full_in_anchors as f64, self.tasks),
            mrr: share(self.reciprocal_ranks, self.tasks),
            set_tasks: self.set_tasks,
            frr: share(self.set_full as f64, self.set_tasks),
            recall: share(self.set_hits as f64, self.set_gold),
            precision: share(self.set_hits as f64, self.set_files),
            mean_set_size: share(self.set_files as f64, self.set_tasks),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_task_is_scored_by_where_its_gold_files_land() {
        let ranking = ["a.py", "b.py", "a.py", "c.py", "d.py"];
        let s = TaskScore::new(
            &["c.py", "a.py", "z.py"],
            &ranking,
            &["a.py", "b.py"],
            Some(&["a.py", "c.py", "c.py", "e.py"]),
        );
        // First occurrences count; z.py is not ranked.
        assert_eq!(s.gold_ranks, [Some(4), Some(1), None]);
        assert_eq!(s.in_anchors, [false, true, false]);
        assert_eq!(s.in_set.as_deref(), Some(&[true, true, false][..]));
        assert_eq!((s.hits(), s.set_size, s.full()), (2, 3, false));
        assert_eq!((s.hits_within(1), s.hits_within(5)), (1, 2));
        assert!(!s.full_within(10));
        assert_eq!(s.reciprocal_rank(), 1.0);
        // Without the file the fix creates, the task is complete.
        let kept = s.keep(&[0, 1]);
        assert!(kept.full() && kept.full_within(4) && !kept.full_within(3));
        assert_eq!(kept.set_size, 3);
    }

    #[test]
    fn totals_give_frr_micro_recall_precision_and_mrr() {
        let mut t = Totals::new(&[1, 5]);
        // Complete at rank 2, set of 4 files.
        t.add(&TaskScore::new(
            &["a"],
            &["x", "a"],
            &["x", "a"],
            Some(&["x", "a", "y", "z"]),
        ));
        // One of two found, nothing ranked: rr 0.
        t.add(&TaskScore::new(&["b", "c"], &[], &[], Some(&["b", "q"])));
        // No gold file: not scored.
        t.add(&TaskScore::new(&[], &["a"], &[], Some(&["a"])));
        let m = t.metrics();
        assert_eq!(m.tasks, 2);
        assert_eq!(m.frr, Some(0.5));
        assert_eq!(m.recall, Some(2.0 / 3.0));
        assert_eq!(m.precision, Some(2.0 / 6.0));
        assert_eq!(m.mean_set_size, Some(3.0));
        assert_eq!(m.frr_at, [(1, Some(0.0)), (5, Some(0.5))]);
        assert_eq!(m.recall_at, [(1, Some(0.0)), (5, Some(1.0 / 3.0))]);
        assert_eq!(m.mrr, Some(0.25));
        assert_eq!(m.frr_in_anchors, Some(0.5));
        // Location only: no set, so no set metrics.
        let mut l = Totals::new(&[1]);
        l.add(&TaskScore::new(&["a"], &["a"], &["a"], None));
        let m = l.metrics();
        assert_eq!((m.set_tasks, m.frr, m.precision), (0, None, None));
        assert_eq!(m.frr_at, [(1, Some(1.0))]);
        assert_eq!(Totals::new(&[1]).metrics().mrr, None);
        let failed = TaskScore::failed(2, true);
        assert!(!failed.full() && failed.reciprocal_rank() == 0.0);
    }
}
