//! JavaScript and TypeScript: relative paths, index files, tsconfig paths, workspace
//! packages.
//!
//! A specifier is resolved like TypeScript's `bundler`/`node` resolution, within the
//! repository:
//! - `./x` and `../x` relative to the importing file: the file itself, then with an
//!   extension ([`EXTENSIONS`], and `.ts` for a written `.js`), then `x/index.*`;
//! - anything else first through the nearest `tsconfig.json` / `jsconfig.json` above
//!   the importing file (`extends` followed): `compilerOptions.paths` (longest
//!   matching pattern, `*` wildcards, targets relative to `baseUrl`, else to the
//!   config's directory), then `baseUrl` itself;
//! - then a workspace package: a directory whose `package.json` has that `name`
//!   (`@scope/name/sub/path` resolves `sub/path` inside it), to its `types`,
//!   `module` or `main` entry, else `index.*` or `src/index.*`;
//! - anything else (a package from `node_modules`, a Node builtin) resolves to nothing.
//!
//! Every resolution is [`Certainty::Exact`](super::Certainty::Exact): it follows the
//! module resolution rules.

use std::collections::HashMap;

use serde_json::Value;

use super::{RepoIndex, Resolved, join, normalize, parent_dir};
use crate::facts::Import;
use crate::facts::config::strip_jsonc;

/// Extensions tried, in order, after a specifier without one.
const EXTENSIONS: [&str; 9] = [
    ".ts", ".tsx", ".d.ts", ".js", ".jsx", ".mjs", ".cjs", ".mts", ".cts",
];

/// At most this many `extends` links are followed from one tsconfig.
const MAX_EXTENDS: usize = 8;

/// The module-resolution settings of one tsconfig/jsconfig.
#[derive(Debug, Default, Clone)]
struct TsConfig {
    /// `compilerOptions.baseUrl`, repository-relative.
    base_url: Option<String>,
    /// `compilerOptions.paths`: pattern → targets, targets already relative to the
    /// repository root.
    paths: Vec<(String, Vec<String>)>,
}

/// A workspace package: a `package.json` with a `name`.
#[derive(Debug, Clone)]
struct Package {
    /// Directory of the package.json.
    dir: String,
    /// Entry files named by `types`, `typings`, `module`, `main` (relative to `dir`).
    entries: Vec<String>,
}

/// tsconfig settings by directory and workspace packages by name.
#[derive(Debug, Default)]
pub(super) struct JsContext {
    /// Directory → the settings of the tsconfig.json (or jsconfig.json) in it.
    configs: HashMap<String, TsConfig>,
    /// Package name → package.
    packages: HashMap<String, Package>,
}

impl JsContext {
    /// Reads every tsconfig.json, jsconfig.json and package.json outside `node_modules`.
    pub(super) fn build(index: &RepoIndex, read: &dyn Fn(&str) -> Option<String>) -> JsContext {
        // Twice: a trailing comma followed by a comment is only seen once the
        // comment is gone.
        let read_json = |path: &str| {
            read(path).and_then(|t| serde_json::from_str::<Value>(&strip_jsonc(&t)).ok())
        };
        let mut context = JsContext::default();
        for name in ["jsconfig.json", "tsconfig.json"] {
            for path in index.with_name(name) {
                if in_node_modules(path) {
                    continue;
                }
                let config = load_tsconfig(index, path, &read_json);
                context.configs.insert(parent_dir(path).to_string(), config);
            }
        }
        for path in index.with_name("package.json") {
            if in_node_modules(path) {
                continue;
            }
            let Some(json) = read_json(path) else {
                continue;
            };
            let Some(name) = json.get("name").and_then(Value::as_str) else {
                continue;
            };
            let entries = ["types", "typings", "module", "main"]
                .iter()
                .filter_map(|field| json.get(*field).and_then(Value::as_str))
                .map(str::to_string)
                .collect();
            context.packages.insert(
                name.to_string(),
                Package {
                    dir: parent_dir(path).to_string(),
                    entries,
                },
            );
        }
        context
    }

    /// The settings of the nearest config at or above `dir`.
    fn config_for(&self, dir: &str) -> Option<&TsConfig> {
        let mut dir = dir;
        loop {
            if let Some(config) = self.configs.get(dir) {
                return Some(config);
            }
            if dir.is_empty() {
                return None;
            }
            dir = parent_dir(dir);
        }
    }
}

fn in_node_modules(path: &str) -> bool {
    path.split('/').any(|part| part == "node_modules")
}

/// Reads the `compilerOptions` of a tsconfig and of the configs it `extends` (the
/// nearer one wins per setting).
fn load_tsconfig(
    index: &RepoIndex,
    path: &str,
    read_json: &dyn Fn(&str) -> Option<Value>,
) -> TsConfig {
    let mut config = TsConfig::default();
    let mut have_paths = false;
    let mut current = Some(path.to_string());
    for _ in 0..MAX_EXTENDS {
        let Some(path) = current.take() else { break };
        let Some(json) = read_json(&path) else { break };
        let dir = parent_dir(&path);
        let options = json.get("compilerOptions");
        let base_url = options
            .and_then(|o| o.get("baseUrl"))
            .and_then(Value::as_str)
            .map(|b| normalize(&join(dir, b)));
        if config.base_url.is_none() {
            config.base_url = base_url.clone();
        }
        if !have_paths
            && let Some(paths) = options
                .and_then(|o| o.get("paths"))
                .and_then(Value::as_object)
        {
            have_paths = true;
            // Targets are relative to the baseUrl of the config that declares them,
            // else to its directory.
            let base = base_url.unwrap_or_else(|| dir.to_string());
            config.paths = paths
                .iter()
                .map(|(pattern, targets)| {
                    let targets = targets
                        .as_array()
                        .map(|list| {
                            list.iter()
                                .filter_map(Value::as_str)
                                .map(|t| normalize(&join(&base, t)))
                                .collect()
                        })
                        .unwrap_or_default();
                    (pattern.clone(), targets)
                })
                .collect();
        }
        current = json
            .get("extends")
            .and_then(Value::as_str)
            .filter(|e| e.starts_with('.'))
            .map(|e| {
                let target = normalize(&join(dir, e));
                if target.ends_with(".json") || index.contains(&target) {
                    target
                } else {
                    format!("{target}.json")
                }
            });
    }
    config
}

/// The file a path names: itself, with an extension, or its `index.*`.
fn resolve_file(index: &RepoIndex, path: &str) -> Option<String> {
    let path = normalize(path);
    if index.contains(&path) {
        return Some(path);
    }
    // ESM TypeScript writes `./x.js` for `./x.ts`.
    for (written, source) in [
        (".js", ".ts"),
        (".jsx", ".tsx"),
        (".mjs", ".mts"),
        (".cjs", ".cts"),
    ] {
        if let Some(stem) = path.strip_suffix(written)
            && let Some(found) = index.first_file([format!("{stem}{source}")])
        {
            return Some(found);
        }
    }
    index
        .first_file(EXTENSIONS.iter().map(|ext| format!("{path}{ext}")))
        .or_else(|| {
            index.first_file(
                EXTENSIONS
                    .iter()
                    .map(|ext| join(&path, &format!("index{ext}"))),
            )
        })
}

/// Matches a tsconfig `paths` pattern (at most one `*`); returns what `*` matched.
fn match_pattern<'a>(pattern: &str, specifier: &'a str) -> Option<&'a str> {
    match pattern.split_once('*') {
        None => (pattern == specifier).then_some(""),
        Some((prefix, suffix)) => specifier
            .strip_prefix(prefix)
            .and_then(|rest| rest.strip_suffix(suffix)),
    }
}

/// Resolves through tsconfig `paths` (longest prefix first), then `baseUrl`.
fn resolve_configured(config: &TsConfig, index: &RepoIndex, specifier: &str) -> Option<String> {
    let mut matching: Vec<(&str, &[String], &str)> = config
        .paths
        .iter()
        .filter_map(|(pattern, targets)| {
            match_pattern(pattern, specifier)
                .map(|star| (pattern.as_str(), targets.as_slice(), star))
        })
        .collect();
    matching.sort_by_key(|(pattern, _, _)| {
        std::cmp::Reverse(pattern.find('*').unwrap_or(pattern.len()))
    });
    for (_, targets, star) in matching {
        if let Some(found) = targets
            .iter()
            .find_map(|target| resolve_file(index, &target.replacen('*', star, 1)))
        {
            return Some(found);
        }
    }
    let base = config.base_url.as_deref()?;
    resolve_file(index, &join(base, specifier))
}

/// Resolves a bare specifier naming a workspace package (`name` or `name/sub/path`).
fn resolve_package(context: &JsContext, index: &RepoIndex, specifier: &str) -> Option<String> {
    let segments = if specifier.starts_with('@') { 2 } else { 1 };
    let mut parts = specifier.splitn(segments + 1, '/');
    let name: Vec<&str> = parts.by_ref().take(segments).collect();
    let package = context.packages.get(&name.join("/"))?;
    match parts.next() {
        Some(sub) if !sub.is_empty() => resolve_file(index, &join(&package.dir, sub))
            .or_else(|| resolve_file(index, &join(&package.dir, &join("src", sub)))),
        _ => package
            .entries
            .iter()
            .find_map(|entry| resolve_file(index, &join(&package.dir, entry)))
            .or_else(|| resolve_file(index, &join(&package.dir, "index")))
            .or_else(|| resolve_file(index, &join(&package.dir, "src/index"))),
    }
}

pub(super) fn resolve(index: &RepoIndex, from: &str, import: &Import) -> Vec<Resolved> {
    let specifier = import.target.split(['?', '#']).next().unwrap_or("");
    if specifier.is_empty() {
        return Vec::new();
    }
    let dir = parent_dir(from);
    let found = if specifier.starts_with("./")
        || specifier.starts_with("../")
        || specifier == "."
        || specifier == ".."
    {
        resolve_file(index, &join(dir, specifier))
    } else if specifier.starts_with('/') {
        None
    } else {
        let context = &index.js;
        context
            .config_for(dir)
            .and_then(|config| resolve_configured(config, index, specifier))
            .or_else(|| resolve_package(context, index, specifier))
    };
    found.map(Resolved::exact).into_iter().collect()
}
