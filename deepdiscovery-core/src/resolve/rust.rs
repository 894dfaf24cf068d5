//! Rust: `mod`, `use crate::`, `super::`, `self::` and workspace crates.
//!
//! The query (`facts/queries/rust.scm`) gives:
//! - `use a::b::C;` → target `a::b::C`; `use a::b::*;` and `use a::b as c;` → `a::b`;
//! - `use a::{b, c::D};` → ONE import, target `a`, names `b` and `c::D` as written
//!   (nested lists and `x as y` included); each name is expanded to its leaf paths
//!   (`a::b`, `a::c::D`) and every leaf is resolved;
//! - `mod x;` → target `x`, the only form without `::`.
//!
//! Module files follow the compiler's rules: a crate root (`src/lib.rs`,
//! `src/main.rs`, `src/bin/x.rs`, `tests/x.rs`…) and `mod.rs` keep their child
//! modules beside them; any other `a.rs` keeps them in `a/`. `mod x;` is `x.rs` or
//! `x/mod.rs` in that directory. A `use` path resolves to the longest prefix that is
//! a module file (`crate::a::b::C` → `src/a/b.rs`, else `src/a.rs`, else the crate
//! root), starting from the crate root (`crate::`), the current module (`self::`, and
//! a first segment that is a child module), its parent (`super::`), or the root of a
//! workspace crate (`other_crate::`; crates are found from each `Cargo.toml`'s
//! `[package] name`, `-` read as `_`, or `[lib] name`). `std`, `core`, `alloc` and
//! crates outside the repository resolve to nothing. Inside inline `mod x { … }`
//! blocks (found from the file's facts), `self::` and the `super::` segments that
//! stay within the file name nothing outside it (`use super::*;` in `mod tests`).

use std::collections::HashMap;

use super::{RepoIndex, Resolved, file_name, join, normalize, parent_dir};
use crate::facts::{DefKind, Facts, Import};

/// Crate roots by name (underscored) and the directories of every crate.
#[derive(Debug, Default)]
pub(super) struct RustContext {
    /// Crate name (`shop_core`) → its library root (`src/lib.rs` or `[lib] path`),
    /// else its `src/main.rs`.
    crates: HashMap<String, String>,
    /// Directories holding a package `Cargo.toml`, deepest first.
    crate_dirs: Vec<String>,
}

/// Where the crate root of a file lives.
struct RootDir {
    /// The directory of the crate root (`src`, `src/bin`, `tests/it`…).
    dir: String,
    /// True when every `.rs` file directly in `dir` is a crate root of its own
    /// (`src/bin/`, `tests/`, `examples/`, `benches/`, the package directory).
    flat: bool,
}

impl RustContext {
    /// Reads `[package] name` and `[lib]` of every `Cargo.toml`.
    pub(super) fn build(index: &RepoIndex, read: &dyn Fn(&str) -> Option<String>) -> RustContext {
        let mut context = RustContext::default();
        for manifest in index.with_name("Cargo.toml") {
            let Some(table) = read(manifest).and_then(|t| t.parse::<toml::Table>().ok()) else {
                continue;
            };
            let Some(package) = table
                .get("package")
                .and_then(|p| p.get("name"))
                .and_then(toml::Value::as_str)
            else {
                continue;
            };
            let dir = parent_dir(manifest).to_string();
            let lib = table.get("lib");
            let name = lib
                .and_then(|l| l.get("name"))
                .and_then(toml::Value::as_str)
                .unwrap_or(package)
                .replace('-', "_");
            let lib_path = lib
                .and_then(|l| l.get("path"))
                .and_then(toml::Value::as_str)
                .map(|p| normalize(&join(&dir, p)));
            let root = lib_path
                .into_iter()
                .chain(["src/lib.rs", "src/main.rs"].map(|r| join(&dir, r)))
                .find(|p| index.contains(p));
            if let Some(root) = root {
                context.crates.insert(name, root);
            }
            context.crate_dirs.push(dir);
        }
        context
            .crate_dirs
            .sort_by(|a, b| b.len().cmp(&a.len()).then_with(|| a.cmp(b)));
        context
    }

    /// Where the crate root of `path` lives, from the Cargo layout of its package;
    /// outside one, the nearest directory above with a `lib.rs` or `main.rs`.
    fn root_dir(&self, index: &RepoIndex, path: &str) -> RootDir {
        let crate_dir = self
            .crate_dirs
            .iter()
            .find(|dir| super::is_in_dir(path, dir))
            .map(String::as_str);
        if let Some(crate_dir) = crate_dir {
            let rel = path
                .get(crate_dir.len()..)
                .unwrap_or("")
                .trim_start_matches('/');
            let parts: Vec<&str> = rel.split('/').collect();
            let (depth, flat) = match parts.as_slice() {
                [_] => (0, true),
                ["src", "bin", _] => (2, true),
                ["src", "bin", _, _, ..] => (3, false),
                ["src", ..] => (1, false),
                ["tests" | "examples" | "benches", _] => (1, true),
                ["tests" | "examples" | "benches", _, _, ..] => (2, false),
                _ => (usize::MAX, false),
            };
            if depth != usize::MAX {
                return RootDir {
                    dir: join(crate_dir, &parts[..depth].join("/")),
                    flat,
                };
            }
        }
        let mut dir = parent_dir(path);
        loop {
            if index
                .first_file(["lib.rs", "main.rs"].map(|f| join(dir, f)))
                .is_some()
                || dir.is_empty()
            {
                break;
            }
            dir = parent_dir(dir);
        }
        RootDir {
            dir: dir.to_string(),
            flat: false,
        }
    }

    /// True when `path` is a crate root (its child modules live beside it).
    fn is_root(&self, index: &RepoIndex, path: &str) -> bool {
        let root = self.root_dir(index, path);
        parent_dir(path) == root.dir
            && (root.flat || matches!(file_name(path), "lib.rs" | "main.rs"))
    }
}

/// The directory holding the child modules of the module file `path`.
fn module_dir(index: &RepoIndex, path: &str) -> String {
    let dir = parent_dir(path);
    if file_name(path) == "mod.rs" || index.rust.is_root(index, path) {
        dir.to_string()
    } else {
        join(dir, file_name(path).trim_end_matches(".rs"))
    }
}

/// The file of the module whose children live in `dir` (as seen from `from`):
/// `dir.rs`, `dir/mod.rs`, or the crate root when `dir` is its directory.
fn module_owner(index: &RepoIndex, dir: &str, from: &str) -> Option<String> {
    let root = index.rust.root_dir(index, from);
    if dir == root.dir {
        if index.rust.is_root(index, from) {
            return Some(from.to_string());
        }
        // Several roots share a flat directory: which one declared `from` is unknown.
        return (!root.flat)
            .then(|| index.first_file(["lib.rs", "main.rs"].map(|f| join(dir, f))))
            .flatten();
    }
    if dir.is_empty() || !dir.starts_with(&root.dir) {
        return None;
    }
    index.first_file([format!("{dir}.rs"), join(dir, "mod.rs")])
}

/// The child module `name` of the module whose children live in `dir`.
fn child_module(index: &RepoIndex, dir: &str, name: &str) -> Option<String> {
    let stem = join(dir, name);
    index.first_file([format!("{stem}.rs"), join(&stem, "mod.rs")])
}

/// Walks `segments` down from the module directory `dir`; the deepest module file
/// reached, else `owner` (the module that `dir` belongs to).
fn walk(index: &RepoIndex, dir: &str, segments: &[&str], owner: Option<String>) -> Option<String> {
    let mut deepest = owner;
    let mut dir = dir.to_string();
    for segment in segments {
        match child_module(index, &dir, segment) {
            Some(file) => {
                dir = join(&dir, segment);
                deepest = Some(file);
            }
            None => break,
        }
    }
    deepest
}

/// Expands a `use` list item as written (`c::D`, `e as f`, `g::{h, i}`, `self`) into
/// leaf paths relative to the list's prefix (`c::D`, `e`, `g::h`, `g::i`, ``).
fn expand(item: &str) -> Vec<String> {
    expand_nested(item, 0)
}

/// Nested `use` lists deeper than this give their prefix only (real code nests two or
/// three levels; a crafted file must not recurse as deep as it likes).
const MAX_USE_NESTING: usize = 16;

/// [`expand`] at a nesting level.
fn expand_nested(item: &str, level: usize) -> Vec<String> {
    let item: String = item.split_whitespace().collect::<Vec<_>>().join(" ");
    let item = item.trim();
    let Some(open) = item.find('{') else {
        let path = item.split(" as ").next().unwrap_or("").trim();
        let path = path.trim_end_matches("::*").trim_end_matches('*');
        let path = if path == "self" { "" } else { path };
        return vec![path.trim_end_matches("::").to_string()];
    };
    let prefix = item[..open].trim().trim_end_matches("::");
    if level >= MAX_USE_NESTING {
        return vec![prefix.to_string()];
    }
    let inner = item[open + 1..].trim_end().trim_end_matches('}');
    let mut out = Vec::new();
    for part in split_top_level(inner) {
        for leaf in expand_nested(part, level + 1) {
            out.push(match (prefix.is_empty(), leaf.is_empty()) {
                (true, _) => leaf,
                (false, true) => prefix.to_string(),
                (false, false) => format!("{prefix}::{leaf}"),
            });
        }
    }
    out
}

/// Splits on commas that are not inside braces.
fn split_top_level(s: &str) -> Vec<&str> {
    let mut parts = Vec::new();
    let mut depth = 0usize;
    let mut start = 0;
    for (i, c) in s.char_indices() {
        match c {
            '{' => depth += 1,
            '}' => depth = depth.saturating_sub(1),
            ',' if depth == 0 => {
                parts.push(&s[start..i]);
                start = i + 1;
            }
            _ => {}
        }
    }
    parts.push(&s[start..]);
    parts.into_iter().filter(|p| !p.trim().is_empty()).collect()
}

/// Resolves one full `use` path (or a `mod x;` name) written in `from`.
fn resolve_path(index: &RepoIndex, from: &str, path: &str) -> Option<Resolved> {
    let context = &index.rust;
    let path = path.trim_start_matches("::");
    let segments: Vec<&str> = path.split("::").filter(|s| !s.is_empty()).collect();
    let (&first, rest) = segments.split_first()?;
    let own_dir = module_dir(index, from);
    match first {
        "crate" => {
            let root_dir = context.root_dir(index, from).dir;
            let owner = module_owner(index, &root_dir, from);
            walk(index, &root_dir, rest, owner).map(Resolved::exact)
        }
        "self" => walk(index, &own_dir, rest, Some(from.to_string())).map(Resolved::exact),
        "super" => {
            let root_dir = context.root_dir(index, from).dir;
            let mut dir = own_dir.as_str();
            let mut rest = segments.as_slice();
            while let Some((&"super", tail)) = rest.split_first() {
                if dir == root_dir {
                    return None;
                }
                dir = parent_dir(dir);
                rest = tail;
            }
            let owner = module_owner(index, dir, from);
            walk(index, dir, rest, owner).map(Resolved::exact)
        }
        "std" | "core" | "alloc" => None,
        _ => {
            // A child module of the current one (`mod x;` or a 2018 relative path).
            if let Some(file) = child_module(index, &own_dir, first) {
                let dir = join(&own_dir, first);
                return walk(index, &dir, rest, Some(file)).map(Resolved::exact);
            }
            // Another crate of the workspace.
            if let Some(root) = context.crates.get(first) {
                return walk(index, parent_dir(root), rest, Some(root.clone()))
                    .map(Resolved::exact);
            }
            // A 2015-edition path from the crate root.
            let root_dir = context.root_dir(index, from).dir;
            let file = child_module(index, &root_dir, first)?;
            let dir = join(&root_dir, first);
            walk(index, &dir, rest, Some(file)).map(Resolved::likely)
        }
    }
}

/// How many inline modules (`mod tests { … }`) enclose `line` of a file.
fn inline_depth(facts: &Facts, line: u32) -> usize {
    facts
        .definitions
        .iter()
        .filter(|d| d.kind == DefKind::Module && d.span.start < line && line <= d.span.end)
        .count()
}

/// Drops the part of a path that stays inside the file: inside `depth` inline
/// modules, `self::` and the first `depth` `super::` segments name modules of this
/// very file. `None` when the whole path stays inside it.
fn outside_inline(path: &str, depth: usize) -> Option<String> {
    if depth == 0 {
        return Some(path.to_string());
    }
    let segments: Vec<&str> = path.split("::").collect();
    match segments.first() {
        Some(&"self") => None,
        Some(&"super") => {
            let supers = segments.iter().take_while(|s| **s == "super").count();
            if supers <= depth {
                return None;
            }
            Some(segments[depth..].join("::"))
        }
        _ => Some(path.to_string()),
    }
}

pub(super) fn resolve(
    index: &RepoIndex,
    from: &str,
    facts: &Facts,
    import: &Import,
) -> Vec<Resolved> {
    let depth = inline_depth(facts, import.line);
    let resolve_path = |index: &RepoIndex, from: &str, path: &str| {
        outside_inline(path, depth).and_then(|p| resolve_path(index, from, &p))
    };
    if import.names.is_empty() {
        return resolve_path(index, from, &import.target)
            .into_iter()
            .collect();
    }
    let mut out: Vec<Resolved> = Vec::new();
    for name in &import.names {
        for leaf in expand(name) {
            let path = if leaf.is_empty() {
                import.target.clone()
            } else {
                format!("{}::{leaf}", import.target)
            };
            out.extend(resolve_path(index, from, &path));
        }
    }
    out
}
