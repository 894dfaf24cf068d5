//! Eq. 8 and the budget: views chosen metadata-first within Γ_max, the relations
//! among the files and the recent history.

use super::*;

/// Eq. 8 and the budget: walks the files in rank order, promoting those with u ≥ κ
/// (or every file without metadata-first) to full text or spans while they fit, and
/// leaves out what does not fit at all. The rendered Markdown never exceeds Γ_max.
pub(super) fn fit_to_budget(
    package: &mut ContextPackage,
    candidates: Vec<PackageFile>,
    graph: &RepoGraph,
    config: &DiscoverConfig,
    cards: &CardCache<'_>,
    session: &Session,
    past: Option<&History>,
) {
    let max = config.budget.max_tokens;
    // The view is capped at Γ_loc already; the head also carries the task excerpt.
    let head = estimate_tokens(&package.render_head());
    if head > max {
        package.repository_view.text.clear();
        package.repository_view.tokens = 0;
    }
    let head = estimate_tokens(&package.render_head());
    // Room for the relations and the tail.
    let reserve = (max / 20).max(32);
    let mut used = head + reserve;
    for mut file in candidates {
        let rank = package.files.len() + 1;
        let promote = config.ablation.no_metadata_first || file.promotion_score >= config.kappa;
        file.tokens = file_tokens(rank, &file);
        if used + file.tokens > max {
            package.skipped.over_budget.push(file.path);
            continue;
        }
        if promote && let Some(text) = session.read_text(&file.path) {
            // The card's line count is exact already (`build_file` read the text).
            let card = file.view.card().clone();
            let free = max - used;
            let full = PackageFile {
                view: FileView::FullText {
                    card: card.clone(),
                    text: text.clone(),
                },
                ..file.clone()
            };
            let full_tokens = file_tokens(rank, &full);
            let share = if config.ablation.no_metadata_first {
                1.0
            } else {
                FULL_TEXT_SHARE
            };
            if full_tokens as f32 <= share * free as f32 {
                file = full;
                file.tokens = full_tokens;
            } else {
                let facts = cards.facts(&file.path);
                let spans = promoted_spans(
                    &text,
                    facts.as_deref(),
                    &|n| cards.relevant(&file.path, n),
                    cards.described(&file.path),
                );
                if !spans.is_empty() {
                    let spanned = PackageFile {
                        view: FileView::Spans { card, spans },
                        ..file.clone()
                    };
                    let tokens = file_tokens(rank, &spanned);
                    if tokens as f32 <= share * free as f32 {
                        file = spanned;
                        file.tokens = tokens;
                    }
                }
            }
        }
        used += file.tokens;
        package.files.push(file);
    }
    package.relations = relations_among(&package.files, graph, &config.ablation);
    package.recent_history = past.map_or_else(Vec::new, |p| recent_history(&package.files, p));
    // The guarantee: drop history, relations, then the last files, until the
    // rendering fits.
    loop {
        let tokens = estimate_tokens(&package.to_markdown());
        package.budget.used_tokens = tokens;
        if tokens <= max {
            break;
        }
        if !package.recent_history.is_empty() {
            let keep = package.recent_history.len() / 2;
            package.recent_history.truncate(keep);
        } else if package.relations.len() > 8 {
            let keep = package.relations.len() / 2;
            package.relations.truncate(keep);
        } else if let Some(last) = package.files.pop() {
            package.skipped.over_budget.insert(0, last.path);
            package.relations = relations_among(&package.files, graph, &config.ablation);
            package.relations.truncate(8);
        } else {
            package.relations.clear();
            package.definitions.clear();
            package.repository_view.text.clear();
            package.repository_view.tokens = 0;
            package.task = package.task.chars().take(200).collect();
            if estimate_tokens(&package.to_markdown()) > max {
                package.task.clear();
            }
            package.budget.used_tokens = estimate_tokens(&package.to_markdown());
            break;
        }
    }
}

/// The paper's historical description: the latest commits that changed selected
/// files, newest first, at most [`MAX_HISTORY_ENTRIES`].
pub(super) fn recent_history(files: &[PackageFile], past: &History) -> Vec<HistoryEntry> {
    let rank: HashMap<&str, usize> = files
        .iter()
        .enumerate()
        .map(|(i, f)| (f.path.as_str(), i))
        .collect();
    past.commits
        .iter()
        .filter_map(|commit| {
            let mut touched: Vec<(usize, &str)> = commit
                .paths
                .iter()
                .filter_map(|p| rank.get(p.as_str()).map(|&r| (r, p.as_str())))
                .collect();
            if touched.is_empty() {
                return None;
            }
            touched.sort_unstable();
            let seconds = past.head_time.saturating_sub(commit.time).max(0);
            Some(HistoryEntry {
                commit: commit.id.chars().take(12).collect(),
                days_before_head: seconds as f32 / 86_400.0,
                author: commit.author.clone(),
                subject: commit.subject.clone(),
                files: touched.into_iter().map(|(_, p)| p.to_string()).collect(),
            })
        })
        .take(MAX_HISTORY_ENTRIES)
        .collect()
}

/// Relations among the selected files (organizational ones left out: every file of a
/// directory is a SameDir of every other), strongest first, at most [`MAX_RELATIONS`].
pub(super) fn relations_among(
    files: &[PackageFile],
    graph: &RepoGraph,
    ablation: &DiscoverAblation,
) -> Vec<PackageRelation> {
    let chosen: HashSet<&str> = files.iter().map(|f| f.path.as_str()).collect();
    let mut out: Vec<PackageRelation> = files
        .iter()
        .flat_map(|f| graph.edges_from(&f.path))
        .filter(|e| {
            chosen.contains(e.to)
                && e.from != e.to
                && e.relation.family() != RelationFamily::Organizational
                && ablation.follows(e.relation.family())
        })
        .map(|e| PackageRelation {
            from: e.from.to_string(),
            to: e.to.to_string(),
            relation: e.relation,
            confidence: e.confidence,
            rationale: e.rationale.to_string(),
        })
        .collect();
    out.sort_by(|a, b| {
        b.confidence
            .total_cmp(&a.confidence)
            .then_with(|| (&a.from, &a.to, a.relation).cmp(&(&b.from, &b.to, b.relation)))
    });
    out.truncate(MAX_RELATIONS);
    out
}
