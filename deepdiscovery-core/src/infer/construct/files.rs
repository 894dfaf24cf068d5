//! One package file: its view, the path it was reached by, and why it is there.

use super::*;

/// One file of the package with its Eq. 8 features; its view is the metadata card
/// until the budget pass decides.
pub(super) fn build_file(
    session: &Session,
    cards: &CardCache<'_>,
    artifacts: &Listed,
    by_path: &HashMap<&str, &Selected>,
    s: &Selected,
    score: f32,
    role_prior: f32,
) -> PackageFile {
    let mut card = cards.card(&s.path);
    if let Some(text) = session.read_text(&s.path) {
        card.lines = text.lines().count();
    }
    let language = artifacts
        .get(&s.path)
        .map_or(Language::Unknown, |a| a.language);
    let size = artifacts.get(&s.path).map_or(0, |a| a.size as usize);
    let path_from_anchor = trace(s, by_path);
    let anchor_of_cluster = path_from_anchor
        .first()
        .map_or_else(|| s.path.clone(), |h| h.from.clone());
    let path_confidence = if s.anchor {
        s.location
    } else {
        path_from_anchor
            .iter()
            .map(|h| h.confidence)
            .product::<f32>()
            .max(s.weight)
    };
    let mut supporters: BTreeSet<String> = BTreeSet::new();
    for link in &s.support {
        if let Some(from) = by_path.get(link.from.as_str())
            && from.anchor
        {
            supporters.insert(format!("anchor {}", from.path));
        }
        if let Via::Edge { relation, .. } = link.via {
            supporters.insert(format!("{relation:?}"));
        }
    }
    let features = PromotionFeatures::new(
        score,
        role_prior,
        path_confidence,
        supporters.len(),
        card.tokens(),
        size.div_ceil(4),
        card.definitions.len() + card.more_definitions,
    );
    PackageFile {
        path: s.path.clone(),
        score,
        role: s.role,
        language,
        anchor: s.anchor,
        anchor_of_cluster,
        rationale: rationale(s, &path_from_anchor),
        path_from_anchor,
        priority: s.priority,
        promotion_score: features.score(),
        promotion: features,
        view: FileView::Metadata { card },
        tokens: 0,
    }
}

/// The hops from an anchor to `s`, following the links that reached each file.
pub(super) fn trace(s: &Selected, by_path: &HashMap<&str, &Selected>) -> Vec<Hop> {
    let mut hops = Vec::new();
    let mut current = s;
    let mut seen = HashSet::new();
    while let Some(link) = &current.reached {
        if !seen.insert(current.path.as_str()) {
            break;
        }
        hops.push(Hop {
            from: link.from.clone(),
            to: current.path.clone(),
            via: link.via,
            confidence: link.confidence,
            rationale: link.rationale.clone(),
        });
        match by_path.get(link.from.as_str()) {
            Some(parent) => current = parent,
            None => break,
        }
    }
    hops.reverse();
    hops
}

/// Why a file is in the package, in a few lines a person can read.
pub(super) fn rationale(s: &Selected, hops: &[Hop]) -> Vec<String> {
    let mut out = Vec::new();
    if s.anchor {
        out.push(format!(
            "anchor: Location score {:.2} of the best (Eq. 6)",
            s.location
        ));
    }
    for hop in hops {
        out.push(format!(
            "reached: {} ({})",
            describe_link(hop.via, &hop.from, &hop.to),
            hop.rationale
        ));
    }
    if let Some(p) = s.priority {
        out.push(format!(
            "added at step {} with priority {:.2} = gain {:.2} (relevance {:.2}, bridge {:.1}, new role {:.2}) / cost {:.2}",
            s.step, p.value, p.gain, p.relevance, p.bridge, p.new_role, p.cost
        ));
    }
    let others: Vec<String> = s
        .support
        .iter()
        .filter(|l| Some(*l) != s.reached.as_ref())
        .take(3)
        .map(|l| describe_link(l.via, &l.from, &s.path))
        .collect();
    if !others.is_empty() {
        out.push(format!("also linked: {}", others.join("; ")));
    }
    out
}

/// A link written as the relation it follows: `a.py —imports→ b.py`, whichever end
/// the expansion came from.
pub(super) fn describe_link(via: Via, from: &str, to: &str) -> String {
    match via {
        Via::Edge { relation, forward } => {
            let name = relation.name();
            let (a, b) = if forward { (from, to) } else { (to, from) };
            format!("`{a}` —{name}→ `{b}`")
        }
        Via::LocalSearch => format!("`{to}` matches the task beside `{from}`"),
    }
}
