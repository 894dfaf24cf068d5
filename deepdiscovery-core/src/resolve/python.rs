//! Python: absolute and relative imports, packages and `__init__.py`, `src/` layouts
//! and any other package root (a directory whose top-level packages live in it).

use std::collections::BTreeSet;

use super::{RepoIndex, Resolved, file_name, join, parent_dir};
use crate::facts::Import;

/// The package roots of the repository.
#[derive(Debug, Default)]
pub(super) struct PythonContext {
    /// Directories that act as `sys.path` entries, `""` (the root) first.
    roots: Vec<String>,
}

impl PythonContext {
    pub(super) fn build(index: &RepoIndex) -> PythonContext {
        let mut roots: BTreeSet<String> = BTreeSet::new();
        for init in index.with_name("__init__.py") {
            let package = parent_dir(init);
            let root = parent_dir(package);
            let parent_init = join(root, "__init__.py");
            if !package.is_empty() && !index.contains(&parent_init) {
                roots.insert(root.to_string());
            }
        }
        for conventional in ["src", "lib", "python"] {
            if !index.files_in(conventional).is_empty()
                || index
                    .dir_files
                    .keys()
                    .any(|d| super::is_in_dir(d, conventional))
            {
                roots.insert(conventional.to_string());
            }
        }
        roots.remove("");
        let mut ordered = vec![String::new()];
        ordered.extend(roots);
        PythonContext { roots: ordered }
    }
}

/// The files a module path names under `base`: `base/a/b.py` or `base/a/b/__init__.py`.
fn module_files(index: &RepoIndex, base: &str, module: &str) -> Option<String> {
    let rel = module.replace('.', "/");
    let stem = join(base, &rel);
    if rel.is_empty() {
        return index.first_file([join(&stem, "__init__.py")]);
    }
    index.first_file([
        format!("{stem}.py"),
        format!("{stem}.pyi"),
        join(&stem, "__init__.py"),
    ])
}

pub(super) fn resolve(index: &RepoIndex, from: &str, import: &Import) -> Vec<Resolved> {
    let mut bases: Vec<String> = Vec::new();
    if import.level > 0 {
        let mut dir = parent_dir(from).to_string();
        for _ in 1..import.level {
            if dir.is_empty() {
                return Vec::new();
            }
            dir = parent_dir(&dir).to_string();
        }
        bases.push(dir);
    } else {
        bases.extend(index.python.roots.iter().cloned());
        // A script importing a sibling module (`import helpers` next to it).
        let own = parent_dir(from).to_string();
        if !bases.contains(&own) {
            bases.push(own);
        }
    }
    let mut out = Vec::new();
    for base in &bases {
        let module = module_files(index, base, &import.target);
        let Some(module) = module else { continue };
        out.push(Resolved::exact(module.clone()));
        // `from pkg import sub`: `sub` may be a submodule as well as a name.
        if file_name(&module) == "__init__.py" || import.target.is_empty() {
            for name in &import.names {
                let sub = if import.target.is_empty() {
                    name.clone()
                } else {
                    format!("{}.{name}", import.target)
                };
                if let Some(path) = module_files(index, base, &sub) {
                    out.push(Resolved::exact(path));
                }
            }
        }
        break;
    }
    if out.is_empty() && import.level == 0 {
        // `from a.b.c import X` where `a.b.c` is not a module (an attribute, a
        // re-export): fall back to the longest prefix that is a module of the repo.
        let parts: Vec<&str> = import.target.split('.').collect();
        for cut in (2..parts.len()).rev() {
            let prefix = parts[..cut].join(".");
            if let Some(path) = bases.iter().find_map(|b| module_files(index, b, &prefix)) {
                out.push(Resolved::likely(path));
                break;
            }
        }
    }
    out
}
