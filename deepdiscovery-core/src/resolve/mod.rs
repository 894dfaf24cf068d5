//! Import resolution: from an [`Import`] as written to the repository files it names.
//!
//! One module per language family. Each gets the [`RepoIndex`] (every path, the
//! directory listing, file-name lookup, declared packages and types, and the project
//! settings read from manifests such as `go.mod`, `tsconfig.json`, `composer.json` and
//! `Cargo.toml`) and answers with zero or more [`Resolved`] targets.

mod c_family;
mod csharp;
mod go;
mod js;
mod jvm;
mod php;
mod python;
mod ruby;
mod rust;

use std::collections::{BTreeMap, HashMap, HashSet};

use crate::artifact::Language;
use crate::facts::{DefKind, Facts, Import};

/// How sure a resolution is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Certainty {
    /// The language's own resolution rules found exactly this file.
    Exact,
    /// Found by a looser match (a unique path suffix, a namespace's files).
    Likely,
}

impl Certainty {
    /// The edge confidence of a resolution of this certainty.
    pub fn confidence(self) -> f32 {
        match self {
            Certainty::Exact => 1.0,
            Certainty::Likely => 0.6,
        }
    }
}

/// One file an import resolves to.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub struct Resolved {
    /// Repository-relative path of the target.
    pub path: String,
    /// How sure the resolution is.
    pub certainty: Certainty,
}

impl Resolved {
    fn exact(path: impl Into<String>) -> Self {
        Resolved {
            path: path.into(),
            certainty: Certainty::Exact,
        }
    }

    fn likely(path: impl Into<String>) -> Self {
        Resolved {
            path: path.into(),
            certainty: Certainty::Likely,
        }
    }
}

/// What the resolver knows about one artifact.
#[derive(Debug, Clone, Copy)]
pub struct IndexedFile<'a> {
    /// Repository-relative path.
    pub path: &'a str,
    /// Detected language.
    pub language: Language,
    /// Extracted facts (empty for files whose facts were not computed).
    pub facts: &'a Facts,
}

/// Everything import resolution needs to know about the repository.
#[derive(Debug, Default)]
pub struct RepoIndex {
    files: HashSet<String>,
    /// Directory → files directly in it, sorted.
    dir_files: HashMap<String, Vec<String>>,
    /// File name → paths with that name, sorted.
    by_name: HashMap<String, Vec<String>>,
    /// Declared package/namespace → files declaring it, sorted (Java, Kotlin, C#, PHP, Go).
    packages: HashMap<String, Vec<String>>,
    /// `package.TypeName` → files defining it, sorted (Java, Kotlin, C#, PHP).
    qualified_types: HashMap<String, Vec<String>>,
    python: python::PythonContext,
    go: go::GoContext,
    js: js::JsContext,
    php: php::PhpContext,
    rust: rust::RustContext,
    c_family: c_family::CContext,
}

impl RepoIndex {
    /// Builds the index from every artifact; `read` gives the text of manifests
    /// (`go.mod`, `tsconfig.json`, `composer.json`, `Cargo.toml`, `package.json`).
    pub fn build(files: &[IndexedFile<'_>], read: &dyn Fn(&str) -> Option<String>) -> RepoIndex {
        let mut index = RepoIndex::default();
        let mut dir_files: BTreeMap<String, Vec<String>> = BTreeMap::new();
        for file in files {
            index.files.insert(file.path.to_string());
            dir_files
                .entry(parent_dir(file.path).to_string())
                .or_default()
                .push(file.path.to_string());
            index
                .by_name
                .entry(file_name(file.path).to_string())
                .or_default()
                .push(file.path.to_string());
            if let Some(package) = &file.facts.package {
                let package = normalize_namespace(package);
                index
                    .packages
                    .entry(package.clone())
                    .or_default()
                    .push(file.path.to_string());
                if matches!(
                    file.language,
                    Language::Java | Language::Kotlin | Language::CSharp | Language::Php
                ) {
                    // Types, and Kotlin's top-level functions and properties, which
                    // are imported by package-qualified name too.
                    let top_level = |d: &crate::facts::Definition| {
                        file.language == Language::Kotlin
                            && matches!(d.kind, DefKind::Function | DefKind::Constant)
                            && d.qualified.as_deref() == Some(&format!("{package}.{}", d.name))
                    };
                    for def in file
                        .facts
                        .definitions
                        .iter()
                        .filter(|d| d.kind.is_type() || top_level(d))
                    {
                        let key = format!("{package}.{}", def.name);
                        index
                            .qualified_types
                            .entry(key)
                            .or_default()
                            .push(file.path.to_string());
                    }
                }
            }
        }
        for paths in index
            .by_name
            .values_mut()
            .chain(index.packages.values_mut())
            .chain(index.qualified_types.values_mut())
        {
            paths.sort();
            paths.dedup();
        }
        index.dir_files = dir_files.into_iter().collect();
        index.python = python::PythonContext::build(&index);
        index.go = go::GoContext::build(&index, read);
        index.js = js::JsContext::build(&index, read);
        index.php = php::PhpContext::build(&index, read);
        index.rust = rust::RustContext::build(&index, read);
        index.c_family = c_family::CContext::build(&index);
        index
    }

    /// Resolves one import of `from` (written in `language`, with `facts` its facts)
    /// to repository files, sorted and without `from` itself.
    pub fn resolve(
        &self,
        from: &str,
        language: Language,
        facts: &Facts,
        import: &Import,
    ) -> Vec<Resolved> {
        let mut out = match language {
            Language::Python => python::resolve(self, from, import),
            Language::Java | Language::Kotlin => jvm::resolve(self, from, import),
            Language::JavaScript | Language::TypeScript | Language::Tsx => {
                js::resolve(self, from, import)
            }
            Language::Go => go::resolve(self, from, import),
            Language::Rust => rust::resolve(self, from, facts, import),
            Language::C | Language::Cpp => c_family::resolve(self, from, import),
            Language::CSharp => csharp::resolve(self, from, import),
            Language::Ruby => ruby::resolve(self, from, import),
            Language::Php => php::resolve(self, from, import),
            _ => Vec::new(),
        };
        out.retain(|r| r.path != from);
        out.sort();
        out.dedup_by(|a, b| a.path == b.path);
        out
    }

    /// Header ↔ source pairs for C and C++ (`x.h` ↔ `x.c`/`x.cpp`, also across
    /// `include/` and `src/` mirrors), as (source, header).
    pub fn header_pairs(&self) -> Vec<(String, String)> {
        c_family::header_pairs(self)
    }

    /// True when `path` is a file of the repository.
    pub fn contains(&self, path: &str) -> bool {
        self.files.contains(path)
    }

    /// Files directly in `dir` (`""` for the root), sorted.
    pub fn files_in(&self, dir: &str) -> &[String] {
        self.dir_files.get(dir).map_or(&[], Vec::as_slice)
    }

    /// Paths whose file name is `name`, sorted.
    pub fn with_name(&self, name: &str) -> &[String] {
        self.by_name.get(name).map_or(&[], Vec::as_slice)
    }

    /// Files that declare `package` (dots as separators), sorted.
    pub fn in_package(&self, package: &str) -> &[String] {
        self.packages.get(package).map_or(&[], Vec::as_slice)
    }

    /// Files defining the type `package.Name`, sorted.
    pub fn defining_type(&self, qualified: &str) -> &[String] {
        self.qualified_types
            .get(qualified)
            .map_or(&[], Vec::as_slice)
    }

    /// Paths ending with `/suffix` (or equal to it), sorted.
    pub fn with_suffix(&self, suffix: &str) -> Vec<&str> {
        let name = file_name(suffix);
        self.with_name(name)
            .iter()
            .filter(|p| *p == suffix || p.ends_with(&format!("/{suffix}")))
            .map(String::as_str)
            .collect()
    }

    /// The first of `candidates` that is a file.
    fn first_file<I, S>(&self, candidates: I) -> Option<String>
    where
        I: IntoIterator<Item = S>,
        S: AsRef<str>,
    {
        candidates
            .into_iter()
            .map(|c| normalize(c.as_ref()))
            .find(|c| self.files.contains(c))
    }
}

/// The directory part of a path (`""` at the root).
pub fn parent_dir(path: &str) -> &str {
    last_slash(path).map_or("", |i| &path[..i])
}

/// The byte offset of the last `/` of `path`. `memrchr` directly: the per-file passes
/// split a million paths a query, and `str::rfind`'s searcher costs several times
/// more on short strings (`/` is ASCII, so no UTF-8 sequence holds its byte).
fn last_slash(path: &str) -> Option<usize> {
    memchr::memrchr(b'/', path.as_bytes())
}

/// Paths grouped by their directory ([`parent_dir`]): each group's directory and
/// members (indexes into the paths, ascending), in order of first appearance, and
/// each path's group.
#[derive(Debug, Default, PartialEq)]
pub(crate) struct DirGroups {
    /// Each group's directory.
    pub(crate) dirs: Vec<String>,
    /// Each group's paths, as indexes.
    pub(crate) members: Vec<Vec<usize>>,
    /// Each path's group.
    pub(crate) group_of: Vec<usize>,
}

impl DirGroups {
    /// Groups `paths` by directory. Files of one directory are mostly neighbours in
    /// a sorted listing: the last directory is checked before the map (a million
    /// paths into a map of their directories cost a query 100 ms).
    pub(crate) fn of<'a>(paths: impl IntoIterator<Item = &'a str>) -> Self {
        let mut index: crate::hashing::ContentMap<&str, usize> = Default::default();
        let mut groups = DirGroups::default();
        let mut last: Option<(&str, usize)> = None;
        for (i, path) in paths.into_iter().enumerate() {
            let dir = parent_dir(path);
            let g = match last {
                Some((seen, g)) if seen == dir => g,
                _ => {
                    let g = *index.entry(dir).or_insert_with(|| {
                        groups.dirs.push(dir.to_string());
                        groups.members.push(Vec::new());
                        groups.members.len() - 1
                    });
                    last = Some((dir, g));
                    g
                }
            };
            groups.members[g].push(i);
            groups.group_of.push(g);
        }
        groups
    }
}

/// Whether `path` is inside the directory `dir`, at any depth (`""`, the root,
/// holds everything). Without allocating: it runs per file of the repository.
pub fn is_in_dir(path: &str, dir: &str) -> bool {
    dir.is_empty()
        || path.len() > dir.len() && path.starts_with(dir) && path.as_bytes()[dir.len()] == b'/'
}

/// A path's directory and file name (`""` and the path at the top), split at one
/// search.
pub fn split_path(path: &str) -> (&str, &str) {
    last_slash(path).map_or(("", path), |i| (&path[..i], &path[i + 1..]))
}

/// The file-name part of a path.
pub fn file_name(path: &str) -> &str {
    last_slash(path).map_or(path, |i| &path[i + 1..])
}

/// Joins a directory and a relative path.
pub fn join(dir: &str, rel: &str) -> String {
    if dir.is_empty() {
        rel.to_string()
    } else if rel.is_empty() {
        dir.to_string()
    } else {
        format!("{dir}/{rel}")
    }
}

/// Resolves `.` and `..` segments; a path that climbs above the root keeps no `..`
/// (it then names nothing in the index).
pub fn normalize(path: &str) -> String {
    let mut parts: Vec<&str> = Vec::new();
    for part in path.split('/') {
        match part {
            "" | "." => {}
            ".." => {
                if parts.pop().is_none() {
                    return String::from("\0outside");
                }
            }
            p => parts.push(p),
        }
    }
    parts.join("/")
}

/// `A\B\C` and `A::B` → `A.B.C`, without leading/trailing separators.
fn normalize_namespace(ns: &str) -> String {
    ns.replace("::", ".")
        .replace('\\', ".")
        .trim_matches('.')
        .to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dir_groups_gather_each_directory_wherever_its_files_are() {
        // `a`'s files are split by `a/b`'s in path order.
        let paths = ["a/x.py", "a/b/y.py", "a/z.py", "top.py", "a/b/w.py"];
        let groups = DirGroups::of(paths);
        assert_eq!(groups.dirs, ["a", "a/b", ""]);
        assert_eq!(groups.members, [vec![0, 2], vec![1, 4], vec![3]]);
        assert_eq!(groups.group_of, [0, 1, 0, 2, 1]);
        assert_eq!(DirGroups::of([]), DirGroups::default());
    }

    #[test]
    fn is_in_dir_reads_whole_segments() {
        assert!(is_in_dir("src/app.py", "src"));
        assert!(is_in_dir("src/a/b.py", "src/a"));
        assert!(is_in_dir("anything", ""));
        assert!(!is_in_dir("srcx/app.py", "src"));
        assert!(!is_in_dir("src", "src"));
        assert!(!is_in_dir("sr", "src"));
    }
}
