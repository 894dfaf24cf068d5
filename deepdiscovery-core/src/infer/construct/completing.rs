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
    let step = ordered.iter().map(|(s, _)| s.step).max().unwrap_or(0);
    for (k, (c, p)) in chosen.into_iter().enumerate() {
        let cluster = ordered
            .iter()
            .find(|(s, _)| s.path == c.from)
            .map_or(0, |(s, _)| s.cluster);
        let location = normalized.get(&c.path).copied().unwrap_or(0.0);
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
        let link = Link {
            from: c.from.clone(),
            via,
            confidence: p,
            rationale: completion::rationale(&c, p),
        };
        let score = 1.0 - (1.0 - location) * (1.0 - p);
        ordered.push((
            Selected {
                role: graph.node(&c.path).map_or(Role::Other, |n| n.role),
                path: c.path,
                location,
                weight: p,
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

/// Adds the files the project's history says change with the context (see
/// [`changeset`](crate::infer::changeset)), each scored by the noisy-or of its own Location
/// score and the history's strength, and re-sorts the context.
pub(super) fn complete_change_set(
    ordered: &mut Vec<Scored>,
    history: &History,
    anchors: &[(String, f32)],
    ranked: &[String],
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
    let step = ordered.iter().map(|(s, _)| s.step).max().unwrap_or(0);
    for (k, c) in completions.into_iter().enumerate() {
        let cluster = ordered
            .iter()
            .find(|(s, _)| s.path == c.from)
            .map_or(0, |(s, _)| s.cluster);
        let location = normalized.get(&c.path).copied().unwrap_or(0.0);
        let link = Link {
            from: c.from,
            via: Via::Edge {
                relation: Relation::CoChange,
                forward: true,
            },
            confidence: c.strength,
            rationale: c.rationale,
        };
        let score = 1.0 - (1.0 - location) * (1.0 - c.strength);
        ordered.push((
            Selected {
                role: graph.node(&c.path).map_or(Role::Other, |n| n.role),
                path: c.path,
                location,
                weight: c.strength,
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
