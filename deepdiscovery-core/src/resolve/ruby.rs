//! Ruby: `require_relative` next to the file, `require` and `load` through the
//! conventional load path.
//!
//! The query marks `require_relative` as a local import and `require`/`load` as
//! load-path (`system`) imports. `require 'a/b'` names `<dir>/a/b.rb` for a directory
//! on a conventional load path: `lib` (also a gem's `…/lib` in a monorepo), the root,
//! `app/*` (Rails autoload), `spec` and `test`; failing that, a unique path suffix
//! (Likely). Rails constants resolved by autoloading are linked by name, not here.

use super::{RepoIndex, Resolved, join, normalize, parent_dir};
use crate::facts::Import;

/// Appends `.rb` unless the path already names a Ruby (or compiled extension) file.
fn with_extension(path: &str) -> String {
    if path.ends_with(".rb") || path.ends_with(".so") || path.ends_with(".bundle") {
        path.to_string()
    } else {
        format!("{path}.rb")
    }
}

/// Rank of `dir` as a load path (lower is searched first), `None` when it is not one.
fn load_path_rank(dir: &str) -> Option<u8> {
    match dir {
        "lib" => Some(0),
        "" => Some(1),
        "spec" | "test" => Some(3),
        _ if dir.starts_with("app/") && !dir[4..].contains('/') => Some(2),
        _ if dir.ends_with("/lib") => Some(4),
        _ => None,
    }
}

/// Resolves one `require`, `require_relative` or `load` of `from`.
pub(super) fn resolve(index: &RepoIndex, from: &str, import: &Import) -> Vec<Resolved> {
    let target = import.target.trim();
    if target.is_empty() {
        return Vec::new();
    }
    let file = with_extension(target);
    let own_dir = parent_dir(from);
    if !import.system {
        // `require_relative`: only relative to the requiring file.
        return index
            .first_file([join(own_dir, &file)])
            .map(Resolved::exact)
            .into_iter()
            .collect();
    }
    if target.starts_with("./") || target.starts_with("../") {
        // Relative to the working directory: the file's own directory or the root.
        return index
            .first_file([join(own_dir, &file), file])
            .map(Resolved::likely)
            .into_iter()
            .collect();
    }
    let suffix = normalize(&file);
    if suffix.starts_with('\0') || suffix.is_empty() {
        return Vec::new();
    }
    let candidates = index.with_suffix(&suffix);
    let on_load_path: Vec<(u8, &str)> = candidates
        .iter()
        .filter_map(|path| {
            let dir = path[..path.len() - suffix.len()].trim_end_matches('/');
            load_path_rank(dir).map(|rank| (rank, *path))
        })
        .collect();
    if let Some(best) = on_load_path.iter().map(|(rank, _)| *rank).min() {
        let chosen: Vec<&str> = on_load_path
            .iter()
            .filter(|(rank, _)| *rank == best)
            .map(|(_, path)| *path)
            .collect();
        return match chosen.as_slice() {
            [only] => vec![Resolved::exact(*only)],
            several => several.iter().map(|p| Resolved::likely(*p)).collect(),
        };
    }
    // Anywhere else, a path (`shop/cart`) found once is likely it; a bare name
    // (`json`, `set`) is most likely a gem or the standard library.
    match candidates.as_slice() {
        [only] if suffix.contains('/') => vec![Resolved::likely(*only)],
        _ => Vec::new(),
    }
}
