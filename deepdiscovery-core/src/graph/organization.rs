//! Organizational relations: folder containment, module boundaries from build
//! manifests, ownership from CODEOWNERS, and physical proximity.

use std::collections::{BTreeMap, HashMap};

use ignore::gitignore::GitignoreBuilder;

use super::build::{RawEdge, RuleContext};
use super::{EdgeData, Relation};
use crate::resolve::{file_name, parent_dir};

/// Directories with more files than this get no `SameDir` edges (they would link
/// everything to everything and say nothing).
pub const MAX_SAME_DIR: usize = 12;
/// Proximity groups larger than this are skipped.
const MAX_PROXIMITY_GROUP: usize = 6;

/// File names that mark the root of a build module.
pub fn is_module_manifest(name: &str) -> bool {
    matches!(
        name,
        "Cargo.toml"
            | "package.json"
            | "pom.xml"
            | "build.gradle"
            | "build.gradle.kts"
            | "go.mod"
            | "pyproject.toml"
            | "setup.py"
            | "setup.cfg"
            | "CMakeLists.txt"
            | "composer.json"
            | "Gemfile"
            | "meson.build"
            | "BUILD"
            | "BUILD.bazel"
    ) || name.ends_with(".csproj")
        || name.ends_with(".gemspec")
}

/// Organizational edges, and the module manifest of every file that has one.
pub(super) fn edges(
    context: &RuleContext<'_>,
    codeowners: Option<&(String, String)>,
) -> (Vec<RawEdge>, HashMap<String, String>) {
    let mut out = Vec::new();
    same_dir(context, &mut out);
    let modules = same_module(context, &mut out);
    if let Some((path, text)) = codeowners {
        owners(context, path, text, &mut out);
    }
    proximity(context, &mut out);
    (out, modules)
}

fn same_dir(context: &RuleContext<'_>, out: &mut Vec<RawEdge>) {
    let mut by_dir: BTreeMap<&str, Vec<u32>> = BTreeMap::new();
    for (i, a) in context.artifacts.iter().enumerate() {
        by_dir
            .entry(parent_dir(&a.path))
            .or_default()
            .push(i as u32);
    }
    for (dir, files) in by_dir {
        if files.len() < 2 || files.len() > MAX_SAME_DIR {
            continue;
        }
        let confidence = 0.5 / (files.len() as f32 - 1.0).sqrt();
        let shown = if dir.is_empty() { "the root" } else { dir };
        for &a in &files {
            for &b in &files {
                if a != b {
                    out.push((
                        a,
                        b,
                        EdgeData {
                            relation: Relation::SameDir,
                            confidence,
                            rationale: format!("in the same directory `{shown}`"),
                        },
                    ));
                }
            }
        }
    }
}

/// Links every file to the manifest of the nearest enclosing build module.
fn same_module(context: &RuleContext<'_>, out: &mut Vec<RawEdge>) -> HashMap<String, String> {
    // Directory → its manifest (the first by name, for a stable choice).
    let mut manifests: BTreeMap<&str, usize> = BTreeMap::new();
    for (i, a) in context.artifacts.iter().enumerate() {
        if is_module_manifest(file_name(&a.path)) {
            manifests.entry(parent_dir(&a.path)).or_insert(i);
        }
    }
    let mut modules = HashMap::new();
    if manifests.is_empty() {
        return modules;
    }
    for (i, a) in context.artifacts.iter().enumerate() {
        let mut dir = parent_dir(&a.path);
        let manifest = loop {
            if let Some(&m) = manifests.get(dir) {
                break Some(m);
            }
            if dir.is_empty() {
                break None;
            }
            dir = parent_dir(dir);
        };
        let Some(manifest) = manifest else { continue };
        let manifest_path = &context.artifacts[manifest].path;
        modules.insert(a.path.clone(), manifest_path.clone());
        if manifest != i {
            out.push((
                i as u32,
                manifest as u32,
                EdgeData {
                    relation: Relation::SameModule,
                    confidence: 0.3,
                    rationale: format!("belongs to the module of `{manifest_path}`"),
                },
            ));
        }
    }
    modules
}

/// CODEOWNERS: gitignore-style patterns, the last matching rule wins.
fn owners(context: &RuleContext<'_>, path: &str, text: &str, out: &mut Vec<RawEdge>) {
    let Some(owner_file) = context.artifacts.iter().position(|a| a.path == path) else {
        return;
    };
    let mut builder = GitignoreBuilder::new("/");
    // Pattern text → (line, owners) of its last occurrence.
    let mut rules: HashMap<String, (usize, String)> = HashMap::new();
    for (index, line) in text.lines().enumerate() {
        let line = line.trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        let mut parts = line.split_whitespace();
        let Some(pattern) = parts.next() else {
            continue;
        };
        let owners: Vec<&str> = parts.take_while(|p| !p.starts_with('#')).collect();
        if owners.is_empty() || builder.add_line(None, pattern).is_err() {
            continue;
        }
        rules.insert(pattern.to_string(), (index + 1, owners.join(" ")));
    }
    let Ok(matcher) = builder.build() else { return };
    for (i, a) in context.artifacts.iter().enumerate() {
        if i == owner_file {
            continue;
        }
        // The last rule that matches the file or any directory above it wins.
        let mut best: Option<&(usize, String)> = None;
        let mut current = a.path.as_str();
        let mut is_dir = false;
        loop {
            if let ignore::Match::Ignore(glob) = matcher.matched(format!("/{current}"), is_dir)
                && let Some(rule) = rules.get(glob.original())
                && best.is_none_or(|b| rule.0 > b.0)
            {
                best = Some(rule);
            }
            if !current.contains('/') {
                break;
            }
            current = parent_dir(current);
            is_dir = true;
        }
        if let Some((line, who)) = best {
            out.push((
                i as u32,
                owner_file as u32,
                EdgeData {
                    relation: Relation::Owner,
                    confidence: 0.3,
                    rationale: format!("owned by {who} ({path} line {line})"),
                },
            ));
        }
    }
}

/// Files sharing a name stem in sibling directories (`models/user.py`,
/// `views/user.py`, `templates/user.html`).
fn proximity(context: &RuleContext<'_>, out: &mut Vec<RawEdge>) {
    let mut groups: BTreeMap<(&str, &str), Vec<u32>> = BTreeMap::new();
    for (i, a) in context.artifacts.iter().enumerate() {
        let dir = parent_dir(&a.path);
        if dir.is_empty() {
            continue;
        }
        let grand = parent_dir(dir);
        let name = file_name(&a.path);
        let stem = name.split('.').next().unwrap_or(name);
        if stem.len() < 3 || matches!(stem, "index" | "mod" | "main" | "__init__" | "lib") {
            continue;
        }
        groups.entry((grand, stem)).or_default().push(i as u32);
    }
    for ((_, stem), files) in groups {
        if files.len() < 2 || files.len() > MAX_PROXIMITY_GROUP {
            continue;
        }
        let dir = |i: u32| parent_dir(&context.artifacts[i as usize].path);
        for &a in &files {
            for &b in &files {
                if a != b && dir(a) != dir(b) {
                    out.push((
                        a,
                        b,
                        EdgeData {
                            relation: Relation::Proximity,
                            confidence: 0.35,
                            rationale: format!("same name `{stem}` in a sibling directory"),
                        },
                    ));
                }
            }
        }
    }
}
