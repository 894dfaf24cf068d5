//! C and C++: `#include` relative to the file and through include directories;
//! header ↔ source pairing.
//!
//! A quoted include (`#include "x.h"`) is looked up next to the including file first,
//! then in the include directories (every directory named `include` or `inc`, each
//! top-level directory, the repository root), then by a unique path suffix (Likely).
//! A system include (`#include <x.h>`) skips the including file's directory and is never
//! resolved when it names a standard library header.

use std::collections::BTreeSet;

use super::{RepoIndex, Resolved, file_name, join, normalize, parent_dir};
use crate::facts::Import;

/// Header file extensions.
const HEADER_EXTENSIONS: [&str; 5] = ["h", "hh", "hpp", "hxx", "h++"];
/// Source file extensions a header's implementation may have.
const SOURCE_EXTENSIONS: [&str; 5] = ["c", "cc", "cpp", "cxx", "c++"];
/// Names of directories that hold public headers.
const INCLUDE_DIR_NAMES: [&str; 2] = ["include", "inc"];
/// Names of directories that mirror an `include/` directory with the sources.
const SOURCE_DIR_NAMES: [&str; 3] = ["src", "source", "lib"];

/// Headers of the C and C++ standard libraries (and POSIX's most common ones): a
/// `#include <…>` of one of these names the toolchain's file, not the repository's.
const STANDARD_HEADERS: &[&str] = &[
    "assert.h",
    "complex.h",
    "ctype.h",
    "errno.h",
    "fenv.h",
    "float.h",
    "inttypes.h",
    "iso646.h",
    "limits.h",
    "locale.h",
    "math.h",
    "setjmp.h",
    "signal.h",
    "stdalign.h",
    "stdarg.h",
    "stdatomic.h",
    "stdbool.h",
    "stddef.h",
    "stdint.h",
    "stdio.h",
    "stdlib.h",
    "stdnoreturn.h",
    "string.h",
    "tgmath.h",
    "threads.h",
    "time.h",
    "uchar.h",
    "wchar.h",
    "wctype.h",
    "unistd.h",
    "fcntl.h",
    "pthread.h",
    "dirent.h",
    "dlfcn.h",
    "poll.h",
    "sys/types.h",
    "sys/stat.h",
    "sys/socket.h",
    "sys/time.h",
    "sys/mman.h",
    "sys/wait.h",
    "netinet/in.h",
    "arpa/inet.h",
    "netdb.h",
    "algorithm",
    "any",
    "array",
    "atomic",
    "bitset",
    "cassert",
    "cctype",
    "cerrno",
    "cfloat",
    "chrono",
    "cinttypes",
    "climits",
    "cmath",
    "complex",
    "condition_variable",
    "cstddef",
    "cstdint",
    "cstdio",
    "cstdlib",
    "cstring",
    "ctime",
    "deque",
    "exception",
    "filesystem",
    "fstream",
    "functional",
    "future",
    "initializer_list",
    "iomanip",
    "ios",
    "iosfwd",
    "iostream",
    "istream",
    "iterator",
    "limits",
    "list",
    "locale",
    "map",
    "memory",
    "mutex",
    "new",
    "numeric",
    "optional",
    "ostream",
    "queue",
    "random",
    "ratio",
    "regex",
    "set",
    "span",
    "sstream",
    "stack",
    "stdexcept",
    "streambuf",
    "string",
    "string_view",
    "system_error",
    "thread",
    "tuple",
    "type_traits",
    "typeindex",
    "typeinfo",
    "unordered_map",
    "unordered_set",
    "utility",
    "variant",
    "vector",
];

/// Include directories of the repository.
#[derive(Debug, Default)]
pub(super) struct CContext {
    /// Directories searched for includes, in order: `include`/`inc` directories
    /// (shallowest first), then top-level directories, then the root (`""`).
    include_dirs: Vec<String>,
}

impl CContext {
    /// Collects the include directories from the directory listing.
    pub(super) fn build(index: &RepoIndex) -> CContext {
        let mut named: BTreeSet<(usize, String)> = BTreeSet::new();
        let mut top: BTreeSet<String> = BTreeSet::new();
        for dir in index.dir_files.keys() {
            // Every ancestor of a directory with files is a directory too.
            let mut current = dir.as_str();
            while !current.is_empty() {
                if INCLUDE_DIR_NAMES.contains(&file_name(current)) {
                    named.insert((current.matches('/').count(), current.to_string()));
                }
                if !current.contains('/') {
                    top.insert(current.to_string());
                }
                current = parent_dir(current);
            }
        }
        let mut include_dirs: Vec<String> = named.into_iter().map(|(_, d)| d).collect();
        let top: Vec<String> = top
            .into_iter()
            .filter(|d| !include_dirs.contains(d))
            .collect();
        include_dirs.extend(top);
        include_dirs.push(String::new());
        CContext { include_dirs }
    }
}

/// Resolves one `#include` of `from`.
pub(super) fn resolve(index: &RepoIndex, from: &str, import: &Import) -> Vec<Resolved> {
    let target = import.target.trim();
    if target.is_empty() {
        return Vec::new();
    }
    if import.system && STANDARD_HEADERS.contains(&target) {
        return Vec::new();
    }
    if !import.system
        && let Some(path) = index.first_file([join(parent_dir(from), target)])
    {
        return vec![Resolved::exact(path)];
    }
    let hits: Vec<String> = index
        .c_family
        .include_dirs
        .iter()
        .filter_map(|dir| index.first_file([join(dir, target)]))
        .collect();
    if let Some(first) = hits.first() {
        // Compilers take the first directory of the `-I` list; which one comes first
        // is not known here, so several candidates are all only likely.
        return if hits.len() == 1 {
            vec![Resolved::exact(first.clone())]
        } else {
            hits.into_iter().map(Resolved::likely).collect()
        };
    }
    let suffix = normalize(target.trim_start_matches("./"));
    if suffix.starts_with('\0') || suffix.is_empty() {
        return Vec::new();
    }
    // A bare system header name found somewhere in the tree is most likely a
    // vendored copy of something else: only a path (`proj/x.h`) is matched loosely.
    if import.system && !suffix.contains('/') {
        return Vec::new();
    }
    match index.with_suffix(&suffix).as_slice() {
        [only] => vec![Resolved::likely(*only)],
        _ => Vec::new(),
    }
}

/// Splits `dir/name.ext` into (`dir/name`, `ext`).
fn split_extension(path: &str) -> Option<(&str, &str)> {
    let dot = path.rfind('.')?;
    (dot > path.rfind('/').map_or(0, |i| i + 1)).then(|| (&path[..dot], &path[dot + 1..]))
}

/// The source directories that mirror the directory of a header under `include/`:
/// `include/a/b` → `src/a/b`, and `include/proj/a` → `src/a` (the common layout where
/// public headers sit in a directory named after the project).
fn mirrored_dirs(header_dir: &str) -> Vec<String> {
    let segments: Vec<&str> = header_dir.split('/').collect();
    let Some(at) = segments.iter().rposition(|s| INCLUDE_DIR_NAMES.contains(s)) else {
        return Vec::new();
    };
    let before = segments[..at].join("/");
    let after = &segments[at + 1..];
    let mut out = Vec::new();
    for source_dir in SOURCE_DIR_NAMES {
        let base = join(&before, source_dir);
        out.push(join(&base, &after.join("/")));
        if !after.is_empty() {
            out.push(join(&base, &after[1..].join("/")));
        }
    }
    out
}

/// Header ↔ source pairs, as (source, header): `x.h` and `x.c` (or `.cc`, `.cpp`,
/// `.cxx`) in the same directory, or a header under `include/` and the source in the
/// mirroring `src/` directory.
pub(super) fn header_pairs(index: &RepoIndex) -> Vec<(String, String)> {
    let mut pairs = BTreeSet::new();
    for (dir, files) in &index.dir_files {
        for header in files {
            let Some((stem, ext)) = split_extension(header) else {
                continue;
            };
            if !HEADER_EXTENSIONS.contains(&ext) {
                continue;
            }
            let name = file_name(stem);
            let mut dirs = vec![dir.clone()];
            dirs.extend(mirrored_dirs(dir));
            for source_dir in &dirs {
                for source_ext in SOURCE_EXTENSIONS {
                    let source = join(source_dir, &format!("{name}.{source_ext}"));
                    if index.contains(&source) {
                        pairs.insert((source, header.clone()));
                    }
                }
            }
        }
    }
    pairs.into_iter().collect()
}
