//! The context completed after expansion: the history's partners and conventions
//! (`changeset`) and the learned change-set completion (`completion`).

use super::*;

/// Adds the candidates the learned completion chose (see
/// [`completion`](crate::infer::completion)), each scored by the noisy-or of its own
/// Location score and its probability, and re-sorts the context.
pub(super) fn complete_learned(
    ordered: &mut Vec<Scored>,
    chosen: Vec<(completion::Candidate, f32)>,
    graph: &RepoGraph,
    normalized: &HashMap<String, f32>,
) {
    let links = chosen.into_iter().map(|(c, p)| {
        let via = match c.linked {
            Some((_, relation, leaves)) => Via::Edge {
                relation,
                forward: !leaves,
            },
            None if c.coupling.partner > 0.0 => Via::Edge {
                relation: Relation::CoChange,
                forward: true,
            },
            None => Via::LocalSearch,
        };
        let rationale = completion::rationale(&c, p);
        let link = Link {
            from: c.from,
            via,
            confidence: p,
            rationale,
        };
        (c.path, link)
    });
    add_completions(ordered, links, graph, normalized);
}

/// Adds the files the project's history says change with the context (see
/// [`changeset`](crate::infer::changeset)), each scored by the noisy-or of its own Location
/// score and the history's strength, and re-sorts the context.
pub(super) fn complete_change_set(
    ordered: &mut Vec<Scored>,
    history: &History,
    anchors: &[(String, f32)],
    ranked: &[&str],
    graph: &RepoGraph,
    normalized: &HashMap<String, f32>,
) {
    let present: HashSet<String> = ordered.iter().map(|(s, _)| s.path.clone()).collect();
    let completions = crate::infer::changeset::complete(
        history,
        anchors,
        ranked,
        &|p| present.contains(p),
        &|p| graph.node(p).map(|n| n.role),
    );
    let links = completions.into_iter().map(|c| {
        let link = Link {
            from: c.from,
            via: Via::Edge {
                relation: Relation::CoChange,
                forward: true,
            },
            confidence: c.strength,
            rationale: c.rationale,
        };
        (c.path, link)
    });
    add_completions(ordered, links, graph, normalized);
}

/// Adds each `(path, link)` to the context after its last step, in the cluster of the
/// file the link comes from, weighted by the link's confidence and scored by the
/// noisy-or of its own Location score and that confidence; then re-sorts the context.
fn add_completions(
    ordered: &mut Vec<Scored>,
    links: impl Iterator<Item = (String, Link)>,
    graph: &RepoGraph,
    normalized: &HashMap<String, f32>,
) {
    let step = ordered.iter().map(|(s, _)| s.step).max().unwrap_or(0);
    for (k, (path, link)) in links.enumerate() {
        let cluster = ordered
            .iter()
            .find(|(s, _)| s.path == link.from)
            .map_or(0, |(s, _)| s.cluster);
        let location = normalized.get(&path).copied().unwrap_or(0.0);
        let strength = link.confidence;
        let score = 1.0 - (1.0 - location) * (1.0 - strength);
        ordered.push((
            Selected {
                role: graph.node(&path).map_or(Role::Other, |n| n.role),
                path,
                location,
                weight: strength,
                anchor: false,
                step: step + 1 + k,
                reached: Some(link.clone()),
                support: vec![link],
                priority: None,
                cluster,
            },
            score,
        ));
    }
    ordered.sort_by(|a, b| b.1.total_cmp(&a.1).then(a.0.path.cmp(&b.0.path)));
}
