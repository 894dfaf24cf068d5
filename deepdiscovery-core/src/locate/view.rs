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
        module_view(artifacts, &groups(), scores, facts, budget_tokens)
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

/// The cheapest module card: `./ (1 files)` and its line break.
const MIN_MODULE_CARD_TOKENS: usize = 4;

/// The view of one card per directory holding files, as [`render`] of every
/// directory's card would give it, building only the cards it may keep: cards are
/// taken best first, and once the budget has no room for the cheapest card the
/// rest are only counted (a million files have tens of thousands of directories,
/// the budget a few hundred cards). A card's text starts with its directory and
/// `/ (`, so those order equal scores as the texts do, unless a directory's name
/// holds ` (` (then every card is built).
fn module_view(
    artifacts: &[ArtifactInfo],
    groups: &DirGroups,
    scores: &[f32],
    facts: &BTreeMap<&str, Arc<Facts>>,
    budget: usize,
) -> RepoView {
    if groups.dirs.iter().any(|dir| dir.contains(" (")) {
        let cards = (groups.dirs.iter())
            .zip(&groups.members)
            .map(|(dir, members)| module_card(artifacts, dir, members, scores, facts))
            .collect();
        return render(Granularity::ModuleCards, cards, budget);
    }
    let best = |members: &[usize]| {
        (members.iter().map(|&i| scores[i])).fold(f32::NEG_INFINITY, |a, b| match a.total_cmp(&b) {
            std::cmp::Ordering::Less => b,
            _ => a,
        })
    };
    let mut order: Vec<(f32, String, usize)> = (groups.dirs.iter().zip(&groups.members))
        .enumerate()
        .map(|(g, (dir, members))| (best(members), format!("{}/ (", shown(dir)), g))
        .collect();
    order.sort_by(|a, b| b.0.total_cmp(&a.0).then(a.1.cmp(&b.1)));
    let mut kept: Vec<String> = Vec::new();
    let mut tokens = 0;
    for (_, _, g) in order {
        if tokens + MIN_MODULE_CARD_TOKENS > budget {
            break;
        }
        let (dir, members) = (&groups.dirs[g], &groups.members[g]);
        let (_, card) = module_card(artifacts, dir, members, scores, facts);
        let cost = estimate_tokens(&card) + 1;
        debug_assert!(cost >= MIN_MODULE_CARD_TOKENS);
        if tokens + cost > budget {
            continue;
        }
        tokens += cost;
        kept.push(card);
    }
    finish(Granularity::ModuleCards, kept, groups.dirs.len(), budget)
}

/// How a card names the directory `dir` (`.` for the root).
fn shown(dir: &str) -> &str {
    if dir.is_empty() { "." } else { dir }
}

/// The card of the directory `dir` with files `members`, and the best score in it.
fn module_card(
    artifacts: &[ArtifactInfo],
    dir: &str,
    members: &[usize],
    scores: &[f32],
    facts: &BTreeMap<&str, Arc<Facts>>,
) -> (f32, String) {
    let mut members = members.to_vec();
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
    let mut card = format!("{}/ ({} files", shown(dir), members.len());
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
    finish(granularity, kept, total, budget)
}

/// The view of the `kept` cards of `total`, in path order, with a note of how many
/// were left out when it fits.
fn finish(
    granularity: Granularity,
    mut kept: Vec<String>,
    total: usize,
    budget: usize,
) -> RepoView {
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

    proptest::proptest! {
        /// The module view builds only the cards it may keep, and gives what
        /// rendering every directory's card gives: ties of score ordered by the
        /// cards' texts (directories holding ` (` included: `a/ (-e` sorts before
        /// `a/`'s card, though `a/ (` is a prefix of its own), any budget.
        #[test]
        fn the_module_view_is_every_cards_render(
            mut paths in proptest::collection::vec(
                "(a|a-b|a \\(b|ab|b|f|g)(/(c|c \\(d| \\(-e|cd|e|h)){0,2}/[a-z]{1,2}\\.(py|md|md)",
                1..60,
            ),
            levels in proptest::collection::vec(0u8..3, 60),
            budget in 0usize..160,
        ) {
            paths.sort();
            paths.dedup();
            let files: Vec<ArtifactInfo> = paths.iter().map(|p| info(p)).collect();
            let scores: Vec<f32> = (0..files.len()).map(|i| f32::from(levels[i]) / 4.0).collect();
            let groups = DirGroups::of(files.iter().map(|a| a.path.as_str()));
            let facts = BTreeMap::new();
            let cards = (groups.dirs.iter())
                .zip(&groups.members)
                .map(|(dir, members)| module_card(&files, dir, members, &scores, &facts))
                .collect();
            let expected = render(Granularity::ModuleCards, cards, budget);
            let view = module_view(&files, &groups, &scores, &facts, budget);
            proptest::prop_assert_eq!(view.text, expected.text);
            proptest::prop_assert_eq!(view.omitted, expected.omitted);
        }
    }
}
