//! Explicit relations: imports, calls and references, inheritance and implementation.

use std::collections::{BTreeMap, HashMap, HashSet};

use rayon::prelude::*;

use super::build::{Positions, RawEdge, RuleContext};
use super::{EdgeData, Relation};
use crate::facts::{RefKind, SuperKind};

/// A name defined in more files than this links nothing: it is too ambiguous.
pub const MAX_DEFINERS: usize = 8;
/// Name-based edges weaker than this are dropped.
const MIN_NAME_CONFIDENCE: f32 = 0.08;
/// Names shorter than this link nothing.
const MIN_NAME_LEN: usize = 3;

/// One name that links a file to a definer: (confidence, name, line).
type NameHit<'a> = (f32, &'a str, u32);

/// Who defines and who uses each name, per language family.
struct NameTable<'a> {
    /// (family, name) → indexes of artifacts defining it (sorted, distinct).
    definers: HashMap<(u8, &'a str), Vec<usize>>,
    /// (family, name) → number of artifacts referencing it.
    users: HashMap<(u8, &'a str), usize>,
    /// family → number of code artifacts.
    family_size: HashMap<u8, usize>,
    /// (family, type name) → indexes of artifacts defining a type of that name.
    type_definers: HashMap<(u8, &'a str), Vec<usize>>,
}

impl<'a> NameTable<'a> {
    fn build(context: &RuleContext<'a>) -> NameTable<'a> {
        let mut table = NameTable {
            definers: HashMap::new(),
            users: HashMap::new(),
            family_size: HashMap::new(),
            type_definers: HashMap::new(),
        };
        for (i, artifact) in context.artifacts.iter().enumerate() {
            let Some(fam) = artifact.language.name_family() else {
                continue;
            };
            *table.family_size.entry(fam).or_default() += 1;
            let mut defined: HashSet<&str> = HashSet::new();
            for def in &artifact.facts.definitions {
                if defined.insert(&def.name) {
                    table
                        .definers
                        .entry((fam, def.name.as_str()))
                        .or_default()
                        .push(i);
                }
                if def.kind.is_type() {
                    let list = table
                        .type_definers
                        .entry((fam, def.name.as_str()))
                        .or_default();
                    if list.last() != Some(&i) {
                        list.push(i);
                    }
                }
            }
            let mut used: HashSet<&str> = HashSet::new();
            for r in &artifact.facts.references {
                if used.insert(&r.name) {
                    *table.users.entry((fam, r.name.as_str())).or_default() += 1;
                }
            }
        }
        table
    }

    /// How rare a name is among the files of a family: normalized inverse document
    /// frequency of its uses, in [0, 1]. `get` used everywhere → ~0; a name used in
    /// two files of thousands → close to 1.
    fn rarity(&self, fam: u8, name: &str) -> f32 {
        let n = self.family_size.get(&fam).copied().unwrap_or(1).max(1) as f32;
        let uses = self.users.get(&(fam, name)).copied().unwrap_or(1).max(1) as f32;
        if n < 3.0 {
            return 1.0;
        }
        let idf = ((n / uses).ln() / n.ln()).clamp(0.0, 1.0);
        // Squared, so that a name most files use (`get`, `run`) fades to nothing
        // while a name two files share keeps most of its weight.
        idf * idf
    }
}

/// All explicit edges of the repository, between artifact indexes.
pub(super) fn edges(context: &RuleContext<'_>, positions: &Positions<'_>) -> Vec<RawEdge> {
    let table = NameTable::build(context);
    let per_file: Vec<Vec<RawEdge>> = (0..context.artifacts.len())
        .into_par_iter()
        .map(|i| {
            let mut out = Vec::new();
            import_edges(context, positions, i, &mut out);
            let imported: HashSet<usize> = out.iter().map(|e| e.1 as usize).collect();
            supertype_edges(context, &table, i, &imported, &mut out);
            reference_edges(context, &table, i, &imported, &mut out);
            out
        })
        .collect();
    let mut edges: Vec<RawEdge> = per_file.into_iter().flatten().collect();
    for (source, header) in context.index.header_pairs() {
        let (Some(a), Some(b)) = (positions.get(&source), positions.get(&header)) else {
            continue;
        };
        edges.push((
            a,
            b,
            EdgeData {
                relation: Relation::Implements,
                confidence: 0.9,
                rationale: format!(
                    "implements the declarations of `{}` (same name)",
                    crate::resolve::file_name(&header)
                ),
            },
        ));
    }
    edges
}

fn import_edges(
    context: &RuleContext<'_>,
    positions: &Positions<'_>,
    i: usize,
    out: &mut Vec<RawEdge>,
) {
    let artifact = &context.artifacts[i];
    for import in &artifact.facts.imports {
        for resolved in
            context
                .index
                .resolve(&artifact.path, artifact.language, &artifact.facts, import)
        {
            let shown = if import.level > 0 {
                format!("{}{}", ".".repeat(import.level as usize), import.target)
            } else if import.names == ["*"] && !import.target.ends_with('*') {
                format!("{}.*", import.target)
            } else {
                import.target.clone()
            };
            let how = match resolved.certainty {
                crate::resolve::Certainty::Exact => "",
                crate::resolve::Certainty::Likely => ", resolved loosely",
            };
            let Some(target) = positions.get(&resolved.path) else {
                continue;
            };
            out.push((
                i as u32,
                target,
                EdgeData {
                    relation: Relation::Imports,
                    confidence: resolved.certainty.confidence(),
                    rationale: format!("imports `{shown}` (line {}{how})", import.line),
                },
            ));
        }
    }
}

fn supertype_edges(
    context: &RuleContext<'_>,
    table: &NameTable<'_>,
    i: usize,
    imported: &HashSet<usize>,
    out: &mut Vec<RawEdge>,
) {
    let artifact = &context.artifacts[i];
    let Some(fam) = artifact.language.name_family() else {
        return;
    };
    for sup in &artifact.facts.supertypes {
        // A mixin (`include Comparable` in Ruby) is a module, not a type: for
        // Implements, fall back to any definer of the name.
        let key = (fam, sup.parent.as_str());
        let definers = table.type_definers.get(&key).or_else(|| {
            (sup.kind == SuperKind::Implements)
                .then(|| table.definers.get(&key))
                .flatten()
        });
        let Some(definers) = definers else { continue };
        let candidates: Vec<usize> = definers.iter().copied().filter(|&d| d != i).collect();
        if candidates.is_empty() || candidates.len() > MAX_DEFINERS {
            continue;
        }
        // Prefer the definer this file imports: that is the one the name refers to.
        let via_import: Vec<usize> = candidates
            .iter()
            .copied()
            .filter(|d| imported.contains(d))
            .collect();
        let (targets, confidence) = if via_import.is_empty() {
            let c = 0.9 / (candidates.len() as f32).sqrt();
            (candidates, c)
        } else {
            (via_import, 0.95)
        };
        let (relation, verb) = match sup.kind {
            SuperKind::Extends => (Relation::Inherits, "extends"),
            SuperKind::Implements => (Relation::Implements, "implements"),
        };
        let who = if sup.child.is_empty() {
            String::new()
        } else {
            format!("`{}` ", sup.child)
        };
        for d in targets {
            out.push((
                i as u32,
                d as u32,
                EdgeData {
                    relation,
                    confidence,
                    rationale: format!("{who}{verb} `{}` (line {})", sup.parent, sup.line),
                },
            ));
        }
    }
}

/// Calls and references by name, weighted by the name's rarity and ambiguity, and
/// aggregated per target file (noisy-or), with the strongest names in the rationale.
fn reference_edges(
    context: &RuleContext<'_>,
    table: &NameTable<'_>,
    i: usize,
    imported: &HashSet<usize>,
    out: &mut Vec<RawEdge>,
) {
    let artifact = &context.artifacts[i];
    let Some(fam) = artifact.language.name_family() else {
        return;
    };
    let own: HashSet<&str> = artifact
        .facts
        .definitions
        .iter()
        .map(|d| d.name.as_str())
        .collect();
    let mut hits: BTreeMap<(usize, Relation), Vec<NameHit<'_>>> = BTreeMap::new();
    // A name counts once per file, at its first use (the facts keep its uses in
    // other bodies too).
    let mut seen: HashSet<(&str, RefKind)> = HashSet::new();
    for r in &artifact.facts.references {
        if r.name.chars().count() < MIN_NAME_LEN
            || own.contains(r.name.as_str())
            || !seen.insert((r.name.as_str(), r.kind))
        {
            continue;
        }
        let Some(definers) = table.definers.get(&(fam, r.name.as_str())) else {
            continue;
        };
        let definers: Vec<usize> = definers.iter().copied().filter(|&d| d != i).collect();
        if definers.is_empty() || definers.len() > MAX_DEFINERS {
            continue;
        }
        let (relation, base) = match r.kind {
            RefKind::Call => (Relation::Calls, 0.9),
            RefKind::Type => (Relation::References, 0.8),
            RefKind::Other => (Relation::References, 0.5),
        };
        let rarity = table.rarity(fam, &r.name);
        for &d in &definers {
            let boost = if imported.contains(&d) {
                1.0
            } else {
                1.0 / (definers.len() as f32).sqrt()
            };
            let confidence = base * rarity * boost;
            if confidence >= MIN_NAME_CONFIDENCE {
                hits.entry((d, relation))
                    .or_default()
                    .push((confidence, &r.name, r.line));
            }
        }
    }
    for ((d, relation), mut names) in hits {
        names.sort_by(|a, b| b.0.total_cmp(&a.0).then(a.1.cmp(b.1)));
        let confidence = 1.0 - names.iter().fold(1.0f32, |acc, n| acc * (1.0 - n.0));
        let verb = if relation == Relation::Calls {
            "calls"
        } else {
            "uses"
        };
        let mut shown: Vec<String> = names
            .iter()
            .take(3)
            .map(|(_, name, line)| format!("`{name}` (line {line})"))
            .collect();
        if names.len() > 3 {
            shown.push(format!("{} more", names.len() - 3));
        }
        out.push((
            i as u32,
            d as u32,
            EdgeData {
                relation,
                confidence: confidence.clamp(0.0, 1.0),
                rationale: format!("{verb} {}", shown.join(", ")),
            },
        ));
    }
}
