//! Counterpart files: the files a fix of one file so often has to repeat.
//!
//! - **Parallel implementations**: the same file in a sibling directory, with the
//!   directory's name substituted in the file name too
//!   (`javac/handlers/HandleBuilder.java` ↔ `eclipse/handlers/HandleBuilder.java`,
//!   `javac/JavacNode.java` ↔ `eclipse/EclipseNode.java`,
//!   `backends/mysql/operations.py` ↔ `backends/postgresql/operations.py`).
//! - **Siblings of one stem**: the same stem beside it with another extension
//!   (`parser.y` ↔ `parser.c` ↔ `parser.h`, `index.js` ↔ `index.d.ts`, `x.py` ↔
//!   `x.pyi`): a grammar and its generated code, a header and its source, code and
//!   its type declarations.
//!
//! A rule template of s_rule (Eq. 6): a counterpart of a strong candidate shares part
//! of its evidence, so the second file of such a fix ranks beside the first.

use std::collections::BTreeSet;

use super::evidence::{Channel, Signal};
use crate::artifact::Role;
use crate::hashing::{ContentMap, ContentSet};
use crate::resolve::{file_name, parent_dir};
use crate::session::ArtifactInfo;

/// How many of the best files lend evidence to their counterparts.
const SOURCES: usize = 24;
/// The evidence a counterpart gets from the best file (scaled by its source's score
/// relative to the best's).
const SHARE: f32 = 0.9;
/// A file name shared by more files than this is generic (`__init__.py`,
/// `index.js`, `utils.go`): being named alike says nothing.
const MAX_SAME_NAME: usize = 10;
/// A directory name shorter than this is not looked for inside file names.
const MIN_DIR_TOKEN: usize = 3;
/// Parallel directories share at least this many file names.
const MIN_SHARED_NAMES: usize = 3;

/// The rule template: the counterparts of the [`SOURCES`] best files (by `scores`)
/// get evidence in proportion to their source's score, divided among all the
/// counterparts of that source (`artifacts` in path order, as a session lists them).
/// Returns the files that got some, in index order.
///
/// A counterpart may end above its source: when a task about lombok's javac
/// handlers ranks `eclipse/handlers/HandleBuilder.java` first, its javac twin, which
/// also matches the task's words, overtakes it. Holding counterparts below their
/// source lost most of the gain on the multilingual development set (set FRR 63.5%
/// → 61.5%).
pub(crate) fn share_evidence(
    artifacts: &[ArtifactInfo],
    scores: &[f32],
    evidence: &mut [Vec<Signal>],
) -> Vec<usize> {
    let mut order: Vec<usize> = (0..scores.len()).filter(|&i| scores[i] > 0.0).collect();
    // Equal scores in path order, the listing's: by index, no path compared.
    debug_assert!(artifacts.is_sorted_by(|a, b| a.path < b.path));
    let by_score = |&a: &usize, &b: &usize| scores[b].total_cmp(&scores[a]).then(a.cmp(&b));
    // Only the best SOURCES are read: selected, then sorted (a total order, so the
    // same files in the same order as sorting them all).
    if order.len() > SOURCES {
        order.select_nth_unstable_by(SOURCES, by_score);
        order.truncate(SOURCES);
    }
    order.sort_by(by_score);
    let Some(&best) = order.first() else {
        return Vec::new();
    };
    let top = scores[best];
    let sources: Vec<usize> = order.iter().copied().take(SOURCES).collect();
    let index = Counterparts::new(artifacts, &sources);
    let mut changed = Vec::new();
    for &i in &sources {
        let found = index.of(i);
        let share = SHARE * scores[i] / top / (found.len().max(1) as f32).sqrt();
        for (j, kind) in found {
            evidence[j].push(Signal::new(
                Channel::Counterpart,
                share,
                format!("{} as `{}`", kind.describe(), artifacts[i].path),
            ));
            changed.push(j);
        }
    }
    changed.sort_unstable();
    changed.dedup();
    changed
}

/// How two files are counterparts.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Kind {
    /// The same file in a sibling directory.
    Parallel,
    /// The same stem beside it.
    SameStem,
}

impl Kind {
    /// How the relation reads in a file's signals.
    pub(crate) fn describe(self) -> &'static str {
        match self {
            Kind::Parallel => "the same file in a parallel directory",
            Kind::SameStem => "the same stem beside it",
        }
    }
}

/// Roles whose files can be counterparts: code and what it is generated from or
/// declared by, not tests, docs or manifests.
fn eligible(role: Role) -> bool {
    matches!(role, Role::Source | Role::Schema | Role::Other)
}

/// The repository's files indexed for counterpart lookups, built once per query.
pub(crate) struct Counterparts<'a> {
    artifacts: &'a [ArtifactInfo],
    by_name: ContentMap<&'a str, Vec<usize>>,
    /// `(depth, lowercased name without the directory's name)` → files whose name
    /// contains the name of one of their directories.
    by_stripped: ContentMap<(usize, String), Vec<usize>>,
    by_stem: ContentMap<(&'a str, &'a str), Vec<usize>>,
    /// Directory → names of its eligible files.
    by_dir: ContentMap<&'a str, Vec<&'a str>>,
}

impl<'a> Counterparts<'a> {
    /// Indexes the eligible files for the counterpart lookups of `sources` (the
    /// files [`Counterparts::of`] will be asked about), and only what those lookups
    /// read: the files named like a source or like one of the files found, the
    /// files of the sources' stems, the directories of the sources and of the files
    /// found, and the names with a directory's name taken out of them that a source
    /// has. Two passes over the listing without allocating per file: indexing all of
    /// a million files took 1.7 s a query. A name with a directory's name taken out
    /// of it is computed only for files of a depth and extension some source has,
    /// and only when its length can match a source's.
    pub(crate) fn new(artifacts: &'a [ArtifactInfo], sources: &[usize]) -> Self {
        let depth = |path: &str| memchr::memchr_iter(b'/', path.as_bytes()).count() + 1;
        let wanted: ContentSet<(usize, &str)> = sources
            .iter()
            .map(|&i| (depth(&artifacts[i].path), extension(&artifacts[i].path)))
            .collect();
        let wanted_extensions: ContentSet<&str> = wanted.iter().map(|(_, ext)| *ext).collect();
        let source_path = |i: &usize| artifacts[*i].path.as_str();
        let source_names: ContentSet<&str> =
            sources.iter().map(|i| file_name(source_path(i))).collect();
        let source_stems: ContentSet<(&str, &str)> = sources
            .iter()
            .filter_map(|i| Some((parent_dir(source_path(i)), stem(file_name(source_path(i)))?)))
            .collect();
        let source_stripped: ContentSet<(usize, String)> = sources
            .iter()
            .flat_map(|i| stripped_keys(source_path(i)))
            .collect();
        let stripped_lengths: ContentSet<(usize, usize)> = source_stripped
            .iter()
            .map(|(depth, name)| (*depth, name.len()))
            .collect();
        let mut by_name: ContentMap<&str, Vec<usize>> = ContentMap::default();
        let mut by_stripped: ContentMap<(usize, String), Vec<usize>> = ContentMap::default();
        let mut by_stem: ContentMap<(&str, &str), Vec<usize>> = ContentMap::default();
        for (i, a) in artifacts.iter().enumerate() {
            if !eligible(a.role) {
                continue;
            }
            let name = file_name(&a.path);
            if source_names.contains(name) {
                by_name.entry(name).or_default().push(i);
            }
            if let Some(stem) = stem(name)
                && source_stems.contains(&(parent_dir(&a.path), stem))
            {
                by_stem
                    .entry((parent_dir(&a.path), stem))
                    .or_default()
                    .push(i);
            }
            let ext = extension(&a.path);
            if !wanted_extensions.contains(ext) {
                continue;
            }
            let d = depth(&a.path);
            if wanted.contains(&(d, ext)) && may_strip_to(&a.path, d, &stripped_lengths) {
                for key in stripped_keys(&a.path) {
                    if source_stripped.contains(&key) {
                        by_stripped.entry(key).or_default().push(i);
                    }
                }
            }
        }
        // What the lookups read of the files found: how common their names are, and
        // the names in their directories (and the sources').
        let found = by_name
            .values()
            .chain(by_stem.values())
            .chain(by_stripped.values())
            .flatten()
            .chain(sources);
        let mut more_names: ContentSet<&str> = ContentSet::default();
        let mut dirs: ContentSet<&str> = ContentSet::default();
        for &j in found {
            let path = artifacts[j].path.as_str();
            if !by_name.contains_key(file_name(path)) {
                more_names.insert(file_name(path));
            }
            dirs.insert(parent_dir(path));
        }
        let mut by_dir: ContentMap<&str, Vec<&str>> = ContentMap::default();
        for (i, a) in artifacts.iter().enumerate() {
            if !eligible(a.role) {
                continue;
            }
            let name = file_name(&a.path);
            if more_names.contains(name) {
                by_name.entry(name).or_default().push(i);
            }
            let dir = parent_dir(&a.path);
            if dirs.contains(dir) {
                by_dir.entry(dir).or_default().push(name);
            }
        }
        Counterparts {
            artifacts,
            by_name,
            by_stripped,
            by_stem,
            by_dir,
        }
    }

    /// The counterparts of file `i`, in index order, each once. Files with a
    /// generic name have none.
    pub(crate) fn of(&self, i: usize) -> Vec<(usize, Kind)> {
        let a = &self.artifacts[i];
        let name = file_name(&a.path);
        let same_name = self.by_name.get(name).map_or(&[][..], Vec::as_slice);
        if !eligible(a.role) || same_name.len() > MAX_SAME_NAME {
            return Vec::new();
        }
        let generic = |j: usize| {
            let name = file_name(&self.artifacts[j].path);
            self.by_name.get(name).map_or(0, Vec::len) > MAX_SAME_NAME
        };
        let mut out: Vec<(usize, Kind)> = Vec::new();
        if let Some(stem) = stem(name) {
            for &j in self
                .by_stem
                .get(&(parent_dir(&a.path), stem))
                .into_iter()
                .flatten()
            {
                if j != i && !generic(j) {
                    out.push((j, Kind::SameStem));
                }
            }
        }
        let dir = parent_dir(&a.path);
        for &j in same_name {
            if j != i && self.parallel_directories(dir, parent_dir(&self.artifacts[j].path)) {
                out.push((j, Kind::Parallel));
            }
        }
        for key in stripped_keys(&a.path) {
            let files = self.by_stripped.get(&key).map_or(&[][..], Vec::as_slice);
            if files.len() > MAX_SAME_NAME {
                continue;
            }
            for &j in files {
                let other = &self.artifacts[j].path;
                if j != i
                    && file_name(other) != name
                    && !generic(j)
                    && self.parallel_directories(dir, parent_dir(other))
                {
                    out.push((j, Kind::Parallel));
                }
            }
        }
        out.sort_by_key(|&(j, _)| j);
        out.dedup_by_key(|&mut (j, _)| j);
        out
    }

    /// Whether two directories hold parallel implementations: their paths differ in
    /// one segment, and most of the smaller one's file names (with that segment's
    /// name taken out of them: `JavacNode.java` ~ `EclipseNode.java`) are in the
    /// other. `lombok/javac/handlers` and `lombok/eclipse/handlers` are;
    /// `sympy/calculus` and `sympy/geometry`, which share `util.py`, are not.
    fn parallel_directories(&self, a: &str, b: &str) -> bool {
        let Some(k) = differ_in_one_segment(a, b) else {
            return false;
        };
        let names = |dir: &str| -> BTreeSet<String> {
            let segment = dir
                .split('/')
                .nth(k)
                .unwrap_or_default()
                .to_ascii_lowercase();
            self.by_dir
                .get(dir)
                .into_iter()
                .flatten()
                .map(|name| {
                    let name = name.to_ascii_lowercase();
                    if segment.len() >= MIN_DIR_TOKEN {
                        name.replacen(&segment, "", 1)
                    } else {
                        name
                    }
                })
                .collect()
        };
        let (a, b) = (names(a), names(b));
        let shared = a.intersection(&b).count();
        shared >= MIN_SHARED_NAMES && 2 * shared >= a.len().min(b.len())
    }
}

/// Whether a name of `path` (at `depth`) with one of its directories' names taken
/// out of it can have a length in `lengths` (`(depth, length)` pairs): taking out a
/// directory's name shortens the name by that many bytes (lowercasing keeps the
/// length). A cheap test before [`stripped_keys`] allocates.
fn may_strip_to(path: &str, depth: usize, lengths: &ContentSet<(usize, usize)>) -> bool {
    let (dirs, name) = match path.rfind('/') {
        Some(k) => (&path[..k], &path[k + 1..]),
        None => return false,
    };
    dirs.split('/').any(|dir| {
        dir.len() >= MIN_DIR_TOKEN
            && name.len() >= dir.len()
            && lengths.contains(&(depth, name.len() - dir.len()))
    })
}

/// The part of a path's file name after its last dot (the whole name without one).
fn extension(path: &str) -> &str {
    let name = file_name(path);
    memchr::memrchr(b'.', name.as_bytes()).map_or(name, |i| &name[i + 1..])
}

/// The part of a file name before its first dot, when there is one and it is not
/// empty (`.eslintrc` has none).
fn stem(name: &str) -> Option<&str> {
    let (stem, _) = name.split_once('.')?;
    (!stem.is_empty()).then_some(stem)
}

/// The index of the one segment two paths of equal depth differ in, or `None`.
fn differ_in_one_segment(a: &str, b: &str) -> Option<usize> {
    let a: Vec<&str> = a.split('/').collect();
    let b: Vec<&str> = b.split('/').collect();
    if a.len() != b.len() {
        return None;
    }
    let mut differing = (0..a.len()).filter(|&k| a[k] != b[k]);
    let k = differing.next()?;
    differing.next().is_none().then_some(k)
}

/// `(depth, name without the directory's name)` for each directory of the path
/// whose name (at least [`MIN_DIR_TOKEN`] long) the file name contains,
/// case-insensitively: `lombok/javac/JavacNode.java` → `(3, "node.java")`.
fn stripped_keys(path: &str) -> Vec<(usize, String)> {
    let segments: Vec<&str> = path.split('/').collect();
    let Some((name, dirs)) = segments.split_last() else {
        return Vec::new();
    };
    let name = name.to_ascii_lowercase();
    let mut keys = Vec::new();
    for dir in dirs {
        let dir = dir.to_ascii_lowercase();
        if dir.len() < MIN_DIR_TOKEN || !name.contains(&dir) {
            continue;
        }
        let stripped = name.replacen(&dir, "", 1);
        // The directory must be a part of the stem, not all of it.
        if stripped.starts_with('.') {
            continue;
        }
        keys.push((segments.len(), stripped));
    }
    keys.sort();
    keys.dedup();
    keys
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::artifact::Language;

    fn artifact(path: &str, role: Role) -> ArtifactInfo {
        ArtifactInfo {
            path: path.to_string(),
            size: 1,
            language: Language::Unknown,
            role,
            facts: None,
        }
    }

    fn names(c: &Counterparts<'_>, files: &[ArtifactInfo], i: usize) -> Vec<String> {
        c.of(i)
            .into_iter()
            .map(|(j, k)| format!("{}:{k:?}", files[j].path))
            .collect()
    }

    #[test]
    fn parallel_implementations_and_stems_are_counterparts() {
        let mut files = vec![
            artifact("src/javac/handlers/HandleBuilder.java", Role::Source),
            artifact("src/eclipse/handlers/HandleBuilder.java", Role::Source),
            artifact("src/javac/JavacNode.java", Role::Source),
            artifact("src/eclipse/EclipseNode.java", Role::Source),
            artifact("src/parser.y", Role::Other),
            artifact("src/parser.c", Role::Source),
            artifact("src/parser.h", Role::Source),
            artifact("src/lexer.c", Role::Source),
            artifact("test/javac/handlers/HandleBuilder.java", Role::Test),
            artifact("pkg/calculus/util.py", Role::Source),
            artifact("pkg/geometry/util.py", Role::Source),
        ];
        for (dir, prefix) in [("javac", "Javac"), ("eclipse", "Eclipse")] {
            for name in ["HandleGetter", "HandleSetter"] {
                files.push(artifact(
                    &format!("src/{dir}/handlers/{name}.java"),
                    Role::Source,
                ));
            }
            for name in ["AST", "Util"] {
                files.push(artifact(
                    &format!("src/{dir}/{prefix}{name}.java"),
                    Role::Source,
                ));
            }
        }
        for name in ["limits.py", "euler.py"] {
            files.push(artifact(&format!("pkg/calculus/{name}"), Role::Source));
        }
        let c = Counterparts::new(&files, &(0..files.len()).collect::<Vec<_>>());
        assert_eq!(
            names(&c, &files, 0),
            ["src/eclipse/handlers/HandleBuilder.java:Parallel"]
        );
        assert_eq!(
            names(&c, &files, 2),
            ["src/eclipse/EclipseNode.java:Parallel"]
        );
        assert_eq!(
            names(&c, &files, 5),
            ["src/parser.y:SameStem", "src/parser.h:SameStem"]
        );
        assert!(c.of(7).is_empty());
        // Tests are not counterparts of code, nor code of tests.
        assert!(c.of(8).is_empty());
        // Two directories that share one name are not parallel.
        assert!(c.of(9).is_empty());
    }

    #[test]
    fn generic_names_are_not_counterparts() {
        let package = |count: usize| -> Vec<ArtifactInfo> {
            (0..count)
                .flat_map(|k| {
                    ["__init__.py", "base.py", "operations.py"]
                        .map(|name| artifact(&format!("pkg/m{k}/{name}"), Role::Source))
                })
                .collect()
        };
        let files = package(MAX_SAME_NAME + 1);
        assert!(Counterparts::new(&files, &[0]).of(0).is_empty());
        let files = package(3);
        assert_eq!(Counterparts::new(&files, &[0]).of(0).len(), 2);
    }

    #[test]
    fn a_counterpart_with_a_generic_name_is_none() {
        // `parser.c` is beside `parser.y`, but a dozen directories have one.
        let mut files = vec![artifact("src/core/parser.y", Role::Other)];
        files.extend(
            (0..=MAX_SAME_NAME).map(|k| artifact(&format!("src/m{k}/parser.c"), Role::Source)),
        );
        files.push(artifact("src/core/parser.c", Role::Source));
        assert!(Counterparts::new(&files, &[0]).of(0).is_empty());
        files.truncate(3);
        files.push(artifact("src/core/parser.c", Role::Source));
        assert_eq!(Counterparts::new(&files, &[0]).of(0), [(3, Kind::SameStem)]);
    }

    #[test]
    fn paths_differing_in_one_segment() {
        assert_eq!(differ_in_one_segment("a/b/c.rs", "a/x/c.rs"), Some(1));
        assert_eq!(differ_in_one_segment("a/b/c.rs", "x/y/c.rs"), None);
        assert_eq!(differ_in_one_segment("a/b/c.rs", "a/b/d.rs"), Some(2));
        assert_eq!(differ_in_one_segment("a/b/c.rs", "a/b/c.rs"), None);
        assert_eq!(differ_in_one_segment("a/c.rs", "a/b/c.rs"), None);
    }

    /// Every file indexed, as the index was built before it read only what the
    /// sources' lookups need: the reference the property test compares with.
    fn full_index<'a>(artifacts: &'a [ArtifactInfo]) -> Counterparts<'a> {
        let mut c = Counterparts {
            artifacts,
            by_name: ContentMap::default(),
            by_stripped: ContentMap::default(),
            by_stem: ContentMap::default(),
            by_dir: ContentMap::default(),
        };
        for (i, a) in artifacts.iter().enumerate() {
            if !eligible(a.role) {
                continue;
            }
            let name = file_name(&a.path);
            c.by_name.entry(name).or_default().push(i);
            c.by_dir.entry(parent_dir(&a.path)).or_default().push(name);
            if let Some(stem) = stem(name) {
                c.by_stem
                    .entry((parent_dir(&a.path), stem))
                    .or_default()
                    .push(i);
            }
            for key in stripped_keys(&a.path) {
                c.by_stripped.entry(key).or_default().push(i);
            }
        }
        c
    }

    proptest::proptest! {
        /// The index of the sources' lookups finds what the index of every file
        /// finds, on listings dense in parallel directories, shared stems and names
        /// that hold their directory's name.
        #[test]
        fn the_sources_index_finds_what_the_full_index_finds(
            picks in proptest::collection::vec(
                (0usize..3, 0usize..4, 0usize..4, 0usize..6, 0usize..4, proptest::bool::ANY),
                1..200,
            ),
            sources in proptest::collection::vec(0usize..200, 1..24),
        ) {
            let tops = ["src", "lib", "javac"];
            let mids = ["javac", "eclipse", "core", "ab"];
            let stems = ["Node", "JavacNode", "EclipseNode", "parser", "core", "CoreUtil"];
            let exts = ["java", "py", "h", "c"];
            let files: Vec<ArtifactInfo> = picks
                .iter()
                .map(|&(t, m, depth, st, e, test)| {
                    let dirs = [tops[t], mids[m], mids[(m + depth) % 4]];
                    let path = format!(
                        "{}/{}.{}",
                        dirs[..1 + depth % 3].join("/"),
                        stems[st],
                        exts[e]
                    );
                    artifact(&path, if test { Role::Test } else { Role::Source })
                })
                .collect();
            let sources: Vec<usize> = sources.into_iter().map(|k| k % files.len()).collect();
            let lazy = Counterparts::new(&files, &sources);
            let full = full_index(&files);
            for &i in &sources {
                proptest::prop_assert_eq!(lazy.of(i), full.of(i), "source {}", files[i].path);
            }
        }
    }
}
