//! Go: import paths through the module path of each `go.mod` to package directories.
//!
//! Every `go.mod` declares a module path (`module example.com/shop`) for its
//! directory. An import path that equals a module path or continues it
//! (`example.com/shop/internal/orders`) names the directory below that `go.mod`
//! (the longest module path wins, so nested modules are honoured), and the import
//! resolves to every non-test `.go` file directly in it. Local `replace` directives
//! (`replace example.com/lib => ../lib`) add the replaced module's directory, and a
//! module's `vendor/` directory is searched for other paths. The standard library
//! and other third-party packages resolve to nothing.

use super::{RepoIndex, Resolved, join, normalize, parent_dir};
use crate::facts::Import;

/// Module paths and their directories, from every `go.mod`.
#[derive(Debug, Default)]
pub(super) struct GoContext {
    /// (module path, repository-relative directory), longest module path first.
    modules: Vec<(String, String)>,
    /// Directories of every `go.mod` (for `vendor/` lookups), deepest first.
    module_dirs: Vec<String>,
}

impl GoContext {
    /// Reads the `module` and local `replace` lines of every `go.mod`.
    pub(super) fn build(index: &RepoIndex, read: &dyn Fn(&str) -> Option<String>) -> GoContext {
        let mut context = GoContext::default();
        for manifest in index.with_name("go.mod") {
            let Some(text) = read(manifest) else { continue };
            let dir = parent_dir(manifest);
            context.module_dirs.push(dir.to_string());
            let mut in_replace_block = false;
            for line in text.lines() {
                let line = line.split("//").next().unwrap_or("").trim();
                if let Some(path) = line.strip_prefix("module ") {
                    context
                        .modules
                        .push((unquote(path).to_string(), dir.to_string()));
                } else if line.starts_with("replace (") {
                    in_replace_block = true;
                } else if in_replace_block && line == ")" {
                    in_replace_block = false;
                } else if let Some(rule) = line
                    .strip_prefix("replace ")
                    .or(in_replace_block.then_some(line))
                    && let Some((old, new)) = rule.split_once("=>")
                {
                    let old = old.split_whitespace().next().unwrap_or("");
                    let new = new.split_whitespace().next().unwrap_or("");
                    if !old.is_empty() && (new.starts_with("./") || new.starts_with("../")) {
                        context
                            .modules
                            .push((old.to_string(), normalize(&join(dir, new))));
                    }
                }
            }
        }
        context
            .modules
            .sort_by(|a, b| b.0.len().cmp(&a.0.len()).then_with(|| a.cmp(b)));
        context
            .module_dirs
            .sort_by(|a, b| b.len().cmp(&a.len()).then_with(|| a.cmp(b)));
        context
    }

    /// The repository directory an import path names, if any.
    fn directory(&self, index: &RepoIndex, from: &str, path: &str) -> Option<String> {
        for (module, dir) in &self.modules {
            if let Some(rest) = path.strip_prefix(module.as_str())
                && (rest.is_empty() || rest.starts_with('/'))
            {
                return Some(normalize(&join(dir, rest.trim_start_matches('/'))));
            }
        }
        // Vendored dependencies of the module that contains `from`.
        let own = self
            .module_dirs
            .iter()
            .find(|dir| super::is_in_dir(from, dir))?;
        let vendored = join(own, &join("vendor", path));
        (!index.files_in(&vendored).is_empty()).then_some(vendored)
    }
}

fn unquote(s: &str) -> &str {
    s.trim().trim_matches('"').trim_matches('`')
}

/// Non-test Go files directly in `dir`.
fn package_files(index: &RepoIndex, dir: &str) -> Vec<Resolved> {
    index
        .files_in(dir)
        .iter()
        .filter(|p| p.ends_with(".go") && !p.ends_with("_test.go"))
        .map(|p| Resolved::exact(p.clone()))
        .collect()
}

pub(super) fn resolve(index: &RepoIndex, from: &str, import: &Import) -> Vec<Resolved> {
    let path = import.target.as_str();
    if path.is_empty() || path.starts_with('.') {
        // Relative import paths (GOPATH-era `./x`): relative to the importing file.
        if path.starts_with("./") || path.starts_with("../") {
            return package_files(index, &normalize(&join(parent_dir(from), path)));
        }
        return Vec::new();
    }
    match index.go.directory(index, from, path) {
        Some(dir) => package_files(index, &dir),
        None => Vec::new(),
    }
}
