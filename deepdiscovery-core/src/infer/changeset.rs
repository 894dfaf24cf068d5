//! Change-set completion: the other files of a multi-file change, from the
//! repository's own history (ancestors of HEAD only).
//!
//! After expansion (Eq. 7), two habits of the project complete the context:
//!
//! - **Partners of a confident anchor.** A file that changed together with an
//!   anchor the task is surely about, in a large share of the anchor's past changes,
//!   joins when the task's words also point at it (it is among Location's best
//!   candidates). The strength is `w_a · P(b | a)`, the anchor's normalized Location
//!   score times the age- and size-weighted share of the anchor's commits that also
//!   changed `b` (the same counts as the graph's `CoChange` edges, without their
//!   rarity factor: here the lexical evidence plays that part).
//! - **Conventions.** A file outside the code that a large share of all recent
//!   commits changes (a changelog, a release-notes file, a manifest) is part of most
//!   changes; it joins with that share as its strength.
//!
//! Measured on the mined multi-file tasks (`benches/mine_tasks.py`): a pool
//! candidate with `w_a · P(b | a) ≥ 0.3` is a file of the fix 15% of the time (29%
//! from 0.5), a non-code file changed by 20% of the commits 27% of the time, against
//! 2–5% for other candidates outside the context.

use std::collections::HashMap;

use crate::artifact::Role;
use crate::graph::cochange::{MIN_CO_CHANGE_SUPPORT, commit_weight, pair_weight};
use crate::source::History;

/// Anchors from this normalized Location score on lend their partners.
pub(super) const CONFIDENT_ANCHOR: f32 = 0.5;
/// A partner joins from this strength (`w_a · P(b | a)`).
pub(super) const MIN_PARTNER: f32 = 0.3;
/// A partner must be among this many best Location candidates.
pub(super) const PARTNER_POOL: usize = 32;
/// A non-code file joins as a convention from this share of the commits read.
pub(super) const MIN_CONVENTION_SHARE: f32 = 0.2;
/// Conventions need at least this many commits to be told from chance.
pub(super) const MIN_COMMITS: usize = crate::source::History::DEEP_COMMITS;

/// One file the history adds, with why.
#[derive(Debug, Clone, PartialEq)]
pub(super) struct Completion {
    /// The file to add.
    pub path: String,
    /// The context file it is tied to (the anchor, or the best anchor for a
    /// convention).
    pub from: String,
    /// Its strength in [0, 1].
    pub strength: f32,
    /// One line a person can read.
    pub rationale: String,
}

/// Age-weighted commit counts of the files of a history (the weights of the graph's
/// `CoChange` edges, `graph::cochange`).
struct Counts<'h> {
    /// Commits read.
    commits: usize,
    /// Per path: (commits, weight).
    files: HashMap<&'h str, (usize, f32)>,
}

impl<'h> Counts<'h> {
    fn new(history: &'h History) -> Counts<'h> {
        let mut files: HashMap<&str, (usize, f32)> = HashMap::new();
        for (k, commit) in history.commits.iter().enumerate() {
            let weight = commit_weight(k);
            for path in &commit.paths {
                let entry = files.entry(path.as_str()).or_insert((0, 0.0));
                entry.0 += 1;
                entry.1 += weight;
            }
        }
        Counts {
            commits: history.commits.len(),
            files,
        }
    }

    /// P(b | a) for every b changed with `a` at least [`MIN_CO_CHANGE_SUPPORT`] times.
    fn partners(&self, history: &'h History, a: &str) -> Vec<(String, f32, usize)> {
        let Some(&(_, weight_a)) = self.files.get(a) else {
            return Vec::new();
        };
        let mut pairs: HashMap<&str, (usize, f32)> = HashMap::new();
        for (k, commit) in history.commits.iter().enumerate() {
            if !commit.paths.iter().any(|p| p == a) {
                continue;
            }
            let weight = pair_weight(k, commit.paths.len());
            for b in &commit.paths {
                if b != a {
                    let entry = pairs.entry(b.as_str()).or_insert((0, 0.0));
                    entry.0 += 1;
                    entry.1 += weight;
                }
            }
        }
        let mut out: Vec<(String, f32, usize)> = pairs
            .into_iter()
            .filter(|(_, (n, _))| *n >= MIN_CO_CHANGE_SUPPORT)
            .map(|(b, (n, w))| (b.to_string(), w / (weight_a + 1.0), n))
            .collect();
        out.sort_by(|x, y| y.1.total_cmp(&x.1).then_with(|| x.0.cmp(&y.0)));
        out
    }
}

/// The files the history adds to a context of `context` paths, from the anchors
/// (path, normalized Location score) and Location's ranking; `role` gives a path's
/// role (`None`: not in the repository any more). Strongest first, each path once.
pub(super) fn complete(
    history: &History,
    anchors: &[(String, f32)],
    ranked: &[&str],
    context: &dyn Fn(&str) -> bool,
    role: &dyn Fn(&str) -> Option<Role>,
) -> Vec<Completion> {
    let counts = Counts::new(history);
    let pool: HashMap<&str, usize> = ranked
        .iter()
        .take(PARTNER_POOL)
        .enumerate()
        .map(|(i, p)| (*p, i))
        .collect();
    let mut out: HashMap<String, Completion> = HashMap::new();
    let mut offer = |c: Completion| {
        if context(&c.path) || role(&c.path).is_none_or(|r| r == Role::Test) {
            return;
        }
        match out.get(&c.path) {
            Some(old) if old.strength >= c.strength => {}
            _ => {
                out.insert(c.path.clone(), c);
            }
        }
    };
    for (anchor, w) in anchors.iter().filter(|(_, w)| *w >= CONFIDENT_ANCHOR) {
        let Some(&(changes, _)) = counts.files.get(anchor.as_str()) else {
            continue;
        };
        for (partner, given, together) in counts.partners(history, anchor) {
            let strength = w * given;
            if strength < MIN_PARTNER {
                break;
            }
            if !pool.contains_key(partner.as_str()) {
                continue;
            }
            offer(Completion {
                rationale: format!(
                    "changed together with `{anchor}` in {together} of its last {changes} commits"
                ),
                path: partner,
                from: anchor.clone(),
                strength,
            });
        }
    }
    if counts.commits >= MIN_COMMITS
        && let Some((best, _)) = anchors.first()
    {
        for (&path, &(n, _)) in &counts.files {
            let share = n as f32 / counts.commits as f32;
            let outside_code = role(path).is_some_and(|r| !matches!(r, Role::Source | Role::Test));
            if share >= MIN_CONVENTION_SHARE && outside_code {
                offer(Completion {
                    path: path.to_string(),
                    from: best.clone(),
                    strength: share,
                    rationale: format!(
                        "changed by {n} of the last {} commits: part of most changes here",
                        counts.commits
                    ),
                });
            }
        }
    }
    let mut out: Vec<Completion> = out.into_values().collect();
    out.sort_by(|a, b| {
        b.strength
            .total_cmp(&a.strength)
            .then_with(|| a.path.cmp(&b.path))
    });
    out
}

/// How a candidate's history ties it to the context, for the learned completion
/// ([`super::completion`]).
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub(super) struct Coupling {
    /// The strongest `w_a · P(b | a)` over the anchors (as for partners above).
    pub partner: f32,
    /// The anchor (its index) that gives [`Coupling::partner`].
    pub anchor: usize,
    /// `P(b | top)`: the share of the best file's past changes that also changed it.
    pub with_top: f32,
    /// The share of all commits read that changed it (a convention's strength), 0
    /// below [`MIN_COMMITS`] commits.
    pub share: f32,
    /// How many commits read changed it.
    pub commits: usize,
}

/// The history's ties of every file the history touched to the anchors (path,
/// normalized Location score), the best first.
pub(super) fn couplings<'h>(
    history: &'h History,
    anchors: &[(String, f32)],
) -> HashMap<&'h str, Coupling> {
    let counts = Counts::new(history);
    let mut out: HashMap<&'h str, Coupling> = HashMap::new();
    for (&path, &(n, _)) in &counts.files {
        out.insert(
            path,
            Coupling {
                share: if counts.commits >= MIN_COMMITS {
                    n as f32 / counts.commits as f32
                } else {
                    0.0
                },
                commits: n,
                ..Coupling::default()
            },
        );
    }
    for (k, (anchor, w)) in anchors.iter().enumerate() {
        for (partner, given, _) in counts.partners(history, anchor) {
            let Some(entry) = history_path(&counts, &partner).and_then(|p| out.get_mut(p)) else {
                continue;
            };
            if w * given > entry.partner {
                entry.partner = w * given;
                entry.anchor = k;
            }
            if k == 0 {
                entry.with_top = given;
            }
        }
    }
    out
}

/// The history's own copy of `path` (the key [`couplings`] is indexed by).
fn history_path<'h>(counts: &Counts<'h>, path: &str) -> Option<&'h str> {
    counts.files.get_key_value(path).map(|(k, _)| *k)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::source::Commit;

    /// A history of `commits` (newest first), each a list of paths.
    fn history(commits: &[&[&str]]) -> History {
        let commits = commits
            .iter()
            .enumerate()
            .map(|(k, paths)| Commit {
                id: format!("c{k}"),
                time: 0,
                author: "a".into(),
                subject: "s".into(),
                message: String::new(),
                paths: paths.iter().map(|p| p.to_string()).collect(),
            })
            .collect();
        History::new("c0".into(), 0, commits)
    }

    fn role(path: &str) -> Option<Role> {
        Some(if path.starts_with("tests/") {
            Role::Test
        } else if path.ends_with(".md") {
            Role::Docs
        } else {
            Role::Source
        })
    }

    fn paths(out: &[Completion]) -> Vec<&str> {
        out.iter().map(|c| c.path.as_str()).collect()
    }

    #[test]
    fn a_confident_anchors_partner_joins_when_the_task_points_at_it() {
        let mut commits: Vec<&[&str]> = vec![&["api.py", "schema.py"]; 6];
        commits.extend([&["api.py", "tests/test_api.py"] as &[&str]; 4]);
        commits.push(&["api.py", "util.py"]);
        commits.push(&["api.py", "util.py"]);
        let h = history(&commits);
        let ranked = ["api.py", "schema.py", "tests/test_api.py", "util.py"];
        let anchors = vec![("api.py".to_string(), 1.0)];
        let out = complete(&h, &anchors, &ranked, &|p| p == "api.py", &role);
        // schema.py: 6 of api's 12 changes; the test file never joins; util.py changed
        // with it twice in twelve, below the threshold.
        assert_eq!(paths(&out), ["schema.py"]);
        assert!(out[0].strength >= MIN_PARTNER && out[0].rationale.contains("6 of its last 12"));

        // Not among Location's candidates: the history alone does not bring it.
        let ranked = ["api.py"];
        assert!(complete(&h, &anchors, &ranked, &|p| p == "api.py", &role).is_empty());
        // A weak anchor lends nothing.
        let weak = vec![("api.py".to_string(), 0.3)];
        let ranked = ["api.py", "schema.py"];
        assert!(complete(&h, &weak, &ranked, &|p| p == "api.py", &role).is_empty());
    }

    #[test]
    fn a_file_outside_the_code_that_most_commits_change_is_a_convention() {
        let mut commits: Vec<Vec<&str>> = Vec::new();
        for k in 0..40 {
            let file = ["a.py", "b.py", "c.py", "d.py"][k % 4];
            if k % 3 == 0 {
                commits.push(vec![file, "CHANGELOG.md"]);
            } else {
                commits.push(vec![file]);
            }
        }
        let slices: Vec<&[&str]> = commits.iter().map(Vec::as_slice).collect();
        let h = history(&slices);
        let anchors = vec![("a.py".to_string(), 1.0)];
        let out = complete(&h, &anchors, &[], &|p| p == "a.py", &role);
        // CHANGELOG.md: 14 of 40 commits; a.py–d.py are code (10 each), never conventions.
        assert_eq!(paths(&out), ["CHANGELOG.md"]);
        assert!((out[0].strength - 14.0 / 40.0).abs() < 1e-6);
        assert_eq!(out[0].from, "a.py");
        // Too little history to tell a habit from chance.
        let short = history(&slices[..20]);
        assert!(complete(&short, &anchors, &[], &|p| p == "a.py", &role).is_empty());
        // Already in the context: nothing to add.
        assert!(complete(&h, &anchors, &[], &|_| true, &role).is_empty());
    }
}
