//! Adaptive repository compression (paper §III.C): a repository view whose
//! granularity follows repository size and the budget Γ_loc.
//!
//! - **File cards** when every file fits: one line per file with its role, its key
//!   definitions and its doc summary.
//! - **Module cards** otherwise: a directory tree collapsed to the directories that
//!   matter for the task, each with its size, languages and representative files
//!   (the best-scored ones, with their key definitions).
//!
//! The rendering is deterministic and never exceeds the token budget it is given.

use std::collections::BTreeMap;
use std::sync::Arc;

use serde::Serialize;

use crate::artifact::Language;
use crate::facts::Facts;
use crate::resolve::DirGroups;
use crate::session::ArtifactInfo;
use crate::task::estimate_tokens;

/// How detailed the view is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
#[non_exhaustive]
pub enum Granularity {
    /// One card per file.
    FileCards,
    /// One card per directory that matters, with representative files.
    ModuleCards,
    /// A flat list of the best-scored paths, whatever the repository's size: the
    /// non-adaptive summary of the "w/o adaptive compression" ablation.
    PathList,
}

/// The compressed repository view.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct RepoView {
    /// The granularity chosen.
    pub granularity: Granularity,
    /// The rendered view (plain text, one card per line).
    pub text: String,
    /// Estimated tokens of `text`.
    pub tokens: usize,
    /// Cards left out to stay within the budget.
    pub omitted: usize,
}

/// Key definitions shown per file.
const DEFS_PER_CARD: usize = 6;
/// Representative files shown per directory card.
const FILES_PER_MODULE: usize = 3;
/// Estimated tokens of one file card, to decide whether file cards fit.
const TOKENS_PER_FILE_CARD: usize = 30;

/// Builds the view. `scores` ranks files for the task (same order as `artifacts`;
/// equal scores keep the artifacts' order, path order as a session lists them);
/// `facts` holds the facts known so far (candidates at least).
pub fn build(
    artifacts: &[ArtifactInfo],
    scores: &[f32],
    facts: &BTreeMap<&str, Arc<Facts>>,
    budget_tokens: usize,
) -> RepoView {
    let groups = || Box::new(DirGroups::of(artifacts.iter().map(|a| a.path.as_str())));
    build_grouped(artifacts, scores, facts, budget_tokens, groups)
}

/// [`build`] with the artifacts' directory groups, asked for only when module
/// cards are needed.
pub(crate) fn build_grouped<G: std::ops::Deref<Target = DirGroups>>(
    artifacts: &[ArtifactInfo],
    scores: &[f32],
    facts: &BTreeMap<&str, Arc<Facts>>,
    budget_tokens: usize,
    groups: impl FnOnce() -> G,
) -> RepoView {
    let fits = artifacts.len() * TOKENS_PER_FILE_CARD <= budget_tokens;
    if fits {
        let cards: Vec<(f32, String)> = artifacts
            .iter()
            .enumerate()
            .map(|(i, a)| (scores[i], file_card(a, facts.get(a.path.as_str()))))
            .collect();
        render(Granularity::FileCards, cards, budget_tokens)
    } else {
        render(
            Granularity::ModuleCards,
            module_cards(artifacts, &groups(), scores, facts),
            budget_tokens,
        )
    }
}

/// The non-adaptive view: the best-scored paths, one per line, within the budget.
pub fn path_list(artifacts: &[ArtifactInfo], scores: &[f32], budget_tokens: usize) -> RepoView {
    let cards: Vec<(f32, String)> = artifacts
        .iter()
        .enumerate()
        .map(|(i, a)| (scores[i], a.path.clone()))
        .collect();
    render(Granularity::PathList, cards, budget_tokens)
}

fn file_card(a: &ArtifactInfo, facts: Option<&Arc<Facts>>) -> String {
    let mut card = format!("{} [{}]", a.path, a.role);
    if let Some(f) = facts {
        let defs: Vec<&str> = f
            .definitions
            .iter()
            .map(|d| d.name.as_str())
            .take(DEFS_PER_CARD)
            .collect();
        if !defs.is_empty() {
            card.push_str(" defs: ");
            card.push_str(&defs.join(", "));
        }
        if let Some(doc) = &f.doc {
            card.push_str(" — ");
            card.push_str(doc);
        }
    }
    card
}

/// One card per directory holding files, ordered by the best score in it.
fn module_cards(
    artifacts: &[ArtifactInfo],
    groups: &DirGroups,
    scores: &[f32],
    facts: &BTreeMap<&str, Arc<Facts>>,
) -> Vec<(f32, String)> {
    let mut dirs: Vec<(&str, &Vec<usize>)> = (groups.dirs.iter().map(String::as_str))
        .zip(&groups.members)
        .collect();
    dirs.sort_unstable_by(|a, b| a.0.cmp(b.0));
    dirs.into_iter()
        .map(|(dir, members)| {
            let mut members = members.clone();
            // A stable sort by score leaves equals in the artifacts' order.
            members.sort_by(|&a, &b| scores[b].total_cmp(&scores[a]));
            let best = members.first().map(|&i| scores[i]).unwrap_or(0.0);
            let mut languages: BTreeMap<Language, usize> = BTreeMap::new();
            for &i in &members {
                if artifacts[i].language.is_code() {
                    *languages.entry(artifacts[i].language).or_default() += 1;
                }
            }
            let langs: Vec<String> = languages.keys().map(|l| l.to_string()).collect();
            let shown = if dir.is_empty() { "." } else { dir };
            let mut card = format!("{shown}/ ({} files", members.len());
            if !langs.is_empty() {
                card.push_str("; ");
                card.push_str(&langs.join(", "));
            }
            card.push(')');
            let reps: Vec<String> = members
                .iter()
                .take(FILES_PER_MODULE)
                .filter(|&&i| scores[i] > 0.0)
                .map(|&i| {
                    let a = &artifacts[i];
                    let name = a.path.rsplit('/').next().unwrap_or(&a.path);
                    match facts.get(a.path.as_str()) {
                        Some(f) if !f.definitions.is_empty() => {
                            let defs: Vec<&str> = f
                                .definitions
                                .iter()
                                .map(|d| d.name.as_str())
                                .take(3)
                                .collect();
                            format!("{name} ({})", defs.join(", "))
                        }
                        _ => name.to_string(),
                    }
                })
                .collect();
            if !reps.is_empty() {
                card.push_str(" e.g. ");
                card.push_str(&reps.join("; "));
            }
            (best, card)
        })
        .collect()
}

/// Keeps the best cards that fit the budget, then prints them in path order.
fn render(granularity: Granularity, mut cards: Vec<(f32, String)>, budget: usize) -> RepoView {
    let total = cards.len();
    cards.sort_by(|a, b| b.0.total_cmp(&a.0).then(a.1.cmp(&b.1)));
    let mut kept: Vec<String> = Vec::new();
    let mut tokens = 0;
    for (_, card) in cards {
        let cost = estimate_tokens(&card) + 1;
        if tokens + cost > budget {
            continue;
        }
        tokens += cost;
        kept.push(card);
    }
    kept.sort();
    let omitted = total - kept.len();
    let mut text = kept.join("\n");
    if omitted > 0 {
        let note = format!("\n… {omitted} more");
        if estimate_tokens(&text) + estimate_tokens(&note) <= budget {
            text.push_str(&note);
        }
    }
    RepoView {
        granularity,
        tokens: estimate_tokens(&text),
        text,
        omitted,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::artifact::Role;

    fn info(path: &str) -> ArtifactInfo {
        ArtifactInfo {
            path: path.to_string(),
            size: 10,
            language: Language::detect(path, None),
            role: Role::classify(path, Language::detect(path, None)),
            facts: None,
        }
    }

    #[test]
    fn small_repositories_get_file_cards_and_large_ones_module_cards() {
        let files: Vec<ArtifactInfo> = ["a/x.py", "a/y.py", "b/z.go"]
            .iter()
            .map(|p| info(p))
            .collect();
        let scores = [0.9, 0.1, 0.5];
        let view = build(&files, &scores, &BTreeMap::new(), 1000);
        assert_eq!(view.granularity, Granularity::FileCards);
        assert_eq!(
            view.text,
            "a/x.py [source]\na/y.py [source]\nb/z.go [source]"
        );
        let view = build(&files, &scores, &BTreeMap::new(), 40);
        assert_eq!(view.granularity, Granularity::ModuleCards);
        assert!(
            view.text
                .starts_with("a/ (2 files; python) e.g. x.py; y.py"),
            "{}",
            view.text
        );
    }

    #[test]
    fn the_view_never_exceeds_its_budget() {
        let files: Vec<ArtifactInfo> = (0..500)
            .map(|i| info(&format!("d{}/f{i}.py", i % 50)))
            .collect();
        let scores: Vec<f32> = (0..500).map(|i| (i % 7) as f32).collect();
        for budget in [5, 50, 200, 2000] {
            let view = build(&files, &scores, &BTreeMap::new(), budget);
            assert!(view.tokens <= budget, "{} > {budget}", view.tokens);
            assert_eq!(
                view.text,
                build(&files, &scores, &BTreeMap::new(), budget).text
            );
        }
    }
}
