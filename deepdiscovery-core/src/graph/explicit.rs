//! Explicit relations: imports, calls and references, inheritance and implementation.

use std::collections::{BTreeMap, HashMap, HashSet};

use rayon::prelude::*;

use super::build::RuleContext;
use super::{EdgeData, Relation};
use crate::artifact::Language;
use crate::facts::{RefKind, SuperKind};

/// A name defined in more files than this links nothing: it is too ambiguous.
pub const MAX_DEFINERS: usize = 8;
/// Name-based edges weaker than this are dropped.
const MIN_NAME_CONFIDENCE: f32 = 0.08;
/// Names shorter than this link nothing.
const MIN_NAME_LEN: usize = 3;

type RawEdge = (String, String, EdgeData);

/// One name that links a file to a definer: (confidence, name, line).
type NameHit<'a> = (f32, &'a str, u32);

/// Languages whose names can refer to each other.
fn family(language: Language) -> Option<u8> {
    Some(match language {
        Language::Python => 0,
        Language::Java | Language::Kotlin => 1,
        Language::JavaScript | Language::TypeScript | Language::Tsx => 2,
        Language::Go => 3,
        Language::Rust => 4,
        Language::C | Language::Cpp => 5,
        Language::CSharp => 6,
        Language::Ruby => 7,
        Language::Php => 8,
        _ => return None,
    })
}

/// Who defines and who uses each name, per language family.
struct NameTable {
    /// (family, name) → indexes of artifacts defining it (sorted, distinct).
    definers: HashMap<(u8, String), Vec<usize>>,
    /// (family, name) → number of artifacts referencing it.
    users: HashMap<(u8, String), usize>,
    /// family → number of code artifacts.
    family_size: HashMap<u8, usize>,
    /// (family, type name) → indexes of artifacts defining a type of that name.
    type_definers: HashMap<(u8, String), Vec<usize>>,
}

impl NameTable {
    fn build(context: &RuleContext<'_>) -> NameTable {
        let mut table = NameTable {
            definers: HashMap::new(),
            users: HashMap::new(),
            family_size: HashMap::new(),
            type_definers: HashMap::new(),
        };
        for (i, artifact) in context.artifacts.iter().enumerate() {
            let Some(fam) = family(artifact.language) else {
                continue;
            };
            *table.family_size.entry(fam).or_default() += 1;
            let mut defined: HashSet<&str> = HashSet::new();
            for def in &artifact.facts.definitions {
                if defined.insert(&def.name) {
                    table
                        .definers
                        .entry((fam, def.name.clone()))
                        .or_default()
                        .push(i);
                }
                if def.kind.is_type() {
                    let list = table
                        .type_definers
                        .entry((fam, def.name.clone()))
                        .or_default();
                    if list.last() != Some(&i) {
                        list.push(i);
                    }
                }
            }
            let mut used: HashSet<&str> = HashSet::new();
            for r in &artifact.facts.references {
                if used.insert(&r.name) {
                    *table.users.entry((fam, r.name.clone())).or_default() += 1;
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
        let uses = self
            .users
            .get(&(fam, name.to_string()))
            .copied()
            .unwrap_or(1)
            .max(1) as f32;
        if n < 3.0 {
            return 1.0;
        }
        let idf = ((n / uses).ln() / n.ln()).clamp(0.0, 1.0);
        // Squared, so that a name most files use (`get`, `run`) fades to nothing
        // while a name two files share keeps most of its weight.
        idf * idf
    }
}

/// All explicit edges of the repository.
pub(super) fn edges(context: &RuleContext<'_>) -> Vec<RawEdge> {
    let table = NameTable::build(context);
    let per_file: Vec<Vec<RawEdge>> = (0..context.artifacts.len())
        .into_par_iter()
        .map(|i| {
            let mut out = Vec::new();
            import_edges(context, i, &mut out);
            let imported: HashSet<&str> = out.iter().map(|e| e.1.as_str()).collect();
            let mut named = supertype_edges(context, &table, i, &imported);
            named.extend(reference_edges(context, &table, i, &imported));
            out.extend(named);
            out
        })
        .collect();
    let mut edges: Vec<RawEdge> = per_file.into_iter().flatten().collect();
    for (source, header) in context.index.header_pairs() {
        edges.push((
            source.clone(),
            header.clone(),
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

fn import_edges(context: &RuleContext<'_>, i: usize, out: &mut Vec<RawEdge>) {
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
            out.push((
                artifact.path.clone(),
                resolved.path,
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
    table: &NameTable,
    i: usize,
    imported: &HashSet<&str>,
) -> Vec<RawEdge> {
    let artifact = &context.artifacts[i];
    let Some(fam) = family(artifact.language) else {
        return Vec::new();
    };
    let mut out = Vec::new();
    for sup in &artifact.facts.supertypes {
        // A mixin (`include Comparable` in Ruby) is a module, not a type: for
        // Implements, fall back to any definer of the name.
        let key = (fam, sup.parent.clone());
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
            .filter(|&d| imported.contains(context.artifacts[d].path.as_str()))
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
                artifact.path.clone(),
                context.artifacts[d].path.clone(),
                EdgeData {
                    relation,
                    confidence,
                    rationale: format!("{who}{verb} `{}` (line {})", sup.parent, sup.line),
                },
            ));
        }
    }
    out
}

/// Calls and references by name, weighted by the name's rarity and ambiguity, and
/// aggregated per target file (noisy-or), with the strongest names in the rationale.
fn reference_edges(
    context: &RuleContext<'_>,
    table: &NameTable,
    i: usize,
    imported: &HashSet<&str>,
) -> Vec<RawEdge> {
    let artifact = &context.artifacts[i];
    let Some(fam) = family(artifact.language) else {
        return Vec::new();
    };
    let own: HashSet<&str> = artifact
        .facts
        .definitions
        .iter()
        .map(|d| d.name.as_str())
        .collect();
    let mut hits: BTreeMap<(usize, Relation), Vec<NameHit<'_>>> = BTreeMap::new();
    for r in &artifact.facts.references {
        if r.name.chars().count() < MIN_NAME_LEN || own.contains(r.name.as_str()) {
            continue;
        }
        let Some(definers) = table.definers.get(&(fam, r.name.clone())) else {
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
            let boost = if imported.contains(context.artifacts[d].path.as_str()) {
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
    let mut out = Vec::new();
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
            artifact.path.clone(),
            context.artifacts[d].path.clone(),
            EdgeData {
                relation,
                confidence: confidence.clamp(0.0, 1.0),
                rationale: format!("{verb} {}", shown.join(", ")),
            },
        ));
    }
    out
}
