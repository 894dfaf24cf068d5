//! PHP: `use` statements through PSR-4 (composer.json) and declared namespaces;
//! `require`/`include` of literal paths.
//!
//! `use A\B\C` maps through every `composer.json` of the repository (`autoload` and
//! `autoload-dev`, `psr-4` and `psr-0`, directories relative to the manifest) to a
//! file, longest prefix first; failing that, to the files that declare namespace
//! `A\B` and define a type `C`. An import whose target looks like a path
//! (`require_once __DIR__ . '/x.php'` gives `/x.php`) is a file relative to the
//! requiring file, then to the root, then a unique path suffix (Likely).

use serde_json::Value;

use super::{RepoIndex, Resolved, join, normalize, normalize_namespace, parent_dir};
use crate::facts::Import;

/// One autoload rule of a composer.json.
#[derive(Debug, Clone, PartialEq, Eq)]
struct AutoloadRule {
    /// Namespace prefix with dots as separators (`App.Models`), `""` for any.
    prefix: String,
    /// Directory, repository-relative.
    dir: String,
    /// PSR-0 keeps the prefix as directories under `dir`; PSR-4 drops it.
    psr0: bool,
}

/// Autoload rules of every composer.json, longest prefix first.
#[derive(Debug, Default)]
pub(super) struct PhpContext {
    rules: Vec<AutoloadRule>,
}

impl PhpContext {
    /// Reads the autoload sections of every `composer.json` with `read`.
    pub(super) fn build(index: &RepoIndex, read: &dyn Fn(&str) -> Option<String>) -> PhpContext {
        let mut rules = Vec::new();
        for manifest in index.with_name("composer.json") {
            let Some(json) = read(manifest).and_then(|t| serde_json::from_str::<Value>(&t).ok())
            else {
                continue;
            };
            let base = parent_dir(manifest);
            for section in ["autoload", "autoload-dev"] {
                for (standard, psr0) in [("psr-4", false), ("psr-0", true)] {
                    let Some(map) = json
                        .get(section)
                        .and_then(|s| s.get(standard))
                        .and_then(Value::as_object)
                    else {
                        continue;
                    };
                    for (prefix, dirs) in map {
                        let dirs: Vec<&str> = match dirs {
                            Value::String(d) => vec![d.as_str()],
                            Value::Array(list) => list.iter().filter_map(Value::as_str).collect(),
                            _ => Vec::new(),
                        };
                        for dir in dirs {
                            rules.push(AutoloadRule {
                                prefix: normalize_namespace(prefix),
                                dir: normalize(&join(base, dir)),
                                psr0,
                            });
                        }
                    }
                }
            }
        }
        rules.sort_by(|a, b| {
            b.prefix
                .len()
                .cmp(&a.prefix.len())
                .then_with(|| (&a.prefix, &a.dir).cmp(&(&b.prefix, &b.dir)))
        });
        rules.dedup();
        PhpContext { rules }
    }
}

/// True when an import target is a file path (`x.php`, `../lib/x.php`) rather than a
/// namespace (`App\Models\User`).
fn is_path(target: &str) -> bool {
    target.contains('/') || target.contains('.')
}

/// The file a fully qualified class name (`App.Models.User`) autoloads from.
fn autoload(index: &RepoIndex, qualified: &str) -> Option<String> {
    index.php.rules.iter().find_map(|rule| {
        let rest = if rule.psr0 {
            qualified.starts_with(&rule.prefix).then_some(qualified)?
        } else if rule.prefix.is_empty() {
            qualified
        } else {
            qualified.strip_prefix(&rule.prefix)?.strip_prefix('.')?
        };
        index.first_file([join(&rule.dir, &format!("{}.php", rest.replace('.', "/")))])
    })
}

/// Resolves a class, interface, trait or enum name to its file(s).
fn resolve_name(index: &RepoIndex, name: &str) -> Vec<Resolved> {
    let qualified = normalize_namespace(name);
    if qualified.is_empty() {
        return Vec::new();
    }
    if let Some(path) = autoload(index, &qualified) {
        return vec![Resolved::exact(path)];
    }
    match index.defining_type(&qualified) {
        [only] => vec![Resolved::exact(only.clone())],
        several => several
            .iter()
            .map(|p| Resolved::likely(p.clone()))
            .collect(),
    }
}

/// Resolves a `require`/`include` path.
fn resolve_path(index: &RepoIndex, from: &str, target: &str) -> Vec<Resolved> {
    // `__DIR__ . '/x.php'` leaves `/x.php`: relative to the requiring file.
    let relative = target.trim_start_matches('/');
    if relative.is_empty() {
        return Vec::new();
    }
    if let Some(path) = index.first_file([join(parent_dir(from), relative), relative.to_string()]) {
        return vec![Resolved::exact(path)];
    }
    let suffix = normalize(relative.trim_start_matches("./").trim_start_matches("../"));
    if suffix.starts_with('\0') || suffix.is_empty() {
        return Vec::new();
    }
    match index.with_suffix(&suffix).as_slice() {
        [only] => vec![Resolved::likely(*only)],
        _ => Vec::new(),
    }
}

/// Resolves one `use`, `require` or `include` of `from`.
pub(super) fn resolve(index: &RepoIndex, from: &str, import: &Import) -> Vec<Resolved> {
    let target = import.target.trim();
    if is_path(target) {
        return resolve_path(index, from, target);
    }
    if import.names.is_empty() {
        return resolve_name(index, target);
    }
    // A grouped use: `use App\Models\{User, Order};`.
    import
        .names
        .iter()
        .flat_map(|name| resolve_name(index, &format!("{target}\\{name}")))
        .collect()
}
