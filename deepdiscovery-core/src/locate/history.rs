//! History cues of the Location stage: what the repository's own past says about
//! where a task lands.
//!
//! From the ancestors of HEAD only (`Session::history`):
//!
//! - **Co-change cue** (a rule-based term of s_rule in Eq. 6): a file that a cue of
//!   the task resolves to strongly (a named path, a stack frame, a defined symbol)
//!   lends evidence to the files that changed together with it before — the second
//!   file of a multi-file fix. The strength is the co-change confidence (rarity-
//!   normalized, `graph::cochange`) times the seed's own evidence times
//!   [`CO_CHANGE_CUE`]; seeds lend only what they got from the task, never what
//!   they got from another seed.
//! - **Activity** is shown, not scored: a file that changed often and lately says so
//!   in its explanation. Scaling π by recency and churn (the defect-prediction
//!   finding: files that changed lately change again) was measured and left out: on
//!   the multilingual development tasks with history it lowered set FRR from 56.2%
//!   to 54.2% and FRR@10 from 54.2% to 52.1% (η = 0.25), because the files a task
//!   names are often long-stable ones.

use std::collections::HashMap;

use super::evidence::{Channel, Signal, rule_term};
use crate::graph::cochange::analyze;
use crate::source::History;

/// Evidence (noisy-or of the task's cues) from which a file seeds co-change cues.
pub const SEED_EVIDENCE: f32 = 0.6;
/// Share of a co-change link's confidence, times the seed's evidence, lent to the
/// partner.
pub const CO_CHANGE_CUE: f32 = 0.5;
/// Activity (mean of recency and churn) from which a file's explanation mentions
/// its history.
const NOTABLE_ACTIVITY: f32 = 0.5;

/// The co-change links of the history: `(from, to)` (indexes of `paths`) to the
/// confidence that `to` changes when `from` does.
pub(super) type CoChanges = HashMap<(u32, u32), f32>;

/// Adds co-change evidence, and activity remarks of strength 0, to `evidence`
/// (indexed like `paths`). Returns every co-change link, for the learned scorer.
pub(super) fn apply(
    history: &History,
    paths: &[&str],
    by_path: &impl crate::hashing::IndexOf,
    evidence: &mut [Vec<Signal>],
) -> CoChanges {
    let (edges, signals) = analyze(history, paths, |p| by_path.index_of(p).map(|i| i as u32));
    let strength: Vec<f32> = evidence.iter().map(|e| rule_term(e)).collect();
    let mut links = CoChanges::with_capacity(edges.len());
    for (from, to, data) in edges {
        links.insert((from, to), data.confidence);
        let seed = strength[from as usize];
        if seed < SEED_EVIDENCE {
            continue;
        }
        evidence[to as usize].push(Signal::new(
            Channel::CoChange,
            CO_CHANGE_CUE * data.confidence * seed,
            data.rationale,
        ));
    }
    for (signal, evidence) in signals.iter().zip(evidence.iter_mut()) {
        if let Some(s) = signal
            && 0.5 * (s.recency + s.churn) >= NOTABLE_ACTIVITY
        {
            evidence.push(Signal::remark(format!(
                "changed in {} recent commits, last {:.0} days before HEAD",
                s.commits, s.days_since_change
            )));
        }
    }
    links
}
