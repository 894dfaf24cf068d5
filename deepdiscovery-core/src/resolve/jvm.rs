//! Java and Kotlin: `import a.b.C` names the file that defines type `a.b.C` (found by
//! declared package and type, so a file whose directory does not match its package is
//! found too), else the conventional path `a/b/C.java` or `a/b/C.kt`. Static imports
//! and nested types (`a.b.C.m`, `a.b.Outer.Inner`) name the file of the outer type; a
//! wildcard `a.b.*` names the files of the package. A Kotlin top-level function
//! (`import a.b.slugify`) is indexed like a type; when it is not found, it loosely
//! names the files of a small package `a.b`. Imports of
//! libraries (`java.util.List`) name no file.

use super::{Certainty, RepoIndex, Resolved};
use crate::facts::Import;

/// A wildcard import of a package with more files than this is resolved loosely.
const FEW_FILES: usize = 4;
/// A Kotlin top-level function or property import falls back to its package's files
/// only when the package has at most this many files.
const MEMBER_PACKAGE_FILES: usize = 3;

/// The files one Java or Kotlin import names (see the module doc).
pub(super) fn resolve(index: &RepoIndex, _from: &str, import: &Import) -> Vec<Resolved> {
    let target = import.target.trim_matches('.');
    if target.is_empty() {
        return Vec::new();
    }
    if import.names.iter().any(|n| n == "*") {
        return wildcard(index, target);
    }
    // The type itself, then the outer type of a member or nested type.
    for prefix in type_prefixes(target) {
        let files = index.defining_type(prefix);
        if !files.is_empty() {
            let certainty = if files.len() == 1 {
                Certainty::Exact
            } else {
                Certainty::Likely
            };
            return files.iter().map(|p| with(certainty, p)).collect();
        }
    }
    // The conventional source path of the type.
    for prefix in type_prefixes(target) {
        let stem = prefix.replace('.', "/");
        let found: Vec<Resolved> = ["java", "kt"]
            .iter()
            .flat_map(|ext| index.with_suffix(&format!("{stem}.{ext}")))
            .map(Resolved::likely)
            .collect();
        if !found.is_empty() {
            return found;
        }
    }
    // A Kotlin top-level function or property (`import a.b.slugify`): one of the few
    // files of its package.
    if let Some((package, member)) = target.rsplit_once('.')
        && member.starts_with(|c: char| c.is_lowercase())
    {
        let files = index.in_package(package);
        if files.len() <= MEMBER_PACKAGE_FILES {
            return files.iter().map(Resolved::likely).collect();
        }
    }
    Vec::new()
}

/// `a.b.*`: the files of package `a.b`, or the file of type `a.b` (static and Kotlin
/// member imports `import static a.b.C.*`).
fn wildcard(index: &RepoIndex, target: &str) -> Vec<Resolved> {
    let types = index.defining_type(target);
    if !types.is_empty() {
        return types.iter().map(Resolved::exact).collect();
    }
    let files = index.in_package(target);
    let certainty = if files.len() > FEW_FILES {
        Certainty::Likely
    } else {
        Certainty::Exact
    };
    files.iter().map(|p| with(certainty, p)).collect()
}

/// The qualified names an import may name a type by, longest first: the whole target,
/// then each shorter prefix whose last segment looks like a type (`a.b.Outer.Inner.m`
/// → `a.b.Outer.Inner.m`, `a.b.Outer.Inner`, `a.b.Outer`). Never a bare name.
fn type_prefixes(target: &str) -> impl Iterator<Item = &str> {
    let shorter = target
        .match_indices('.')
        .map(|(i, _)| &target[..i])
        .filter(|prefix| {
            prefix.contains('.')
                && prefix
                    .rsplit('.')
                    .next()
                    .is_some_and(|last| last.starts_with(|c: char| c.is_uppercase()))
        })
        .collect::<Vec<_>>();
    std::iter::once(target)
        .filter(|t| t.contains('.'))
        .chain(shorter.into_iter().rev())
}

/// A resolution of `path` with the given certainty.
fn with(certainty: Certainty, path: &str) -> Resolved {
    match certainty {
        Certainty::Exact => Resolved::exact(path),
        Certainty::Likely => Resolved::likely(path),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::artifact::Language;
    use crate::facts::Facts;
    use crate::resolve::IndexedFile;

    #[test]
    fn type_prefixes_go_from_the_member_to_the_outer_type() {
        let prefixes: Vec<&str> = type_prefixes("a.b.Outer.Inner.m").collect();
        assert_eq!(
            prefixes,
            ["a.b.Outer.Inner.m", "a.b.Outer.Inner", "a.b.Outer"]
        );
        assert_eq!(
            type_prefixes("Foo").count(),
            0,
            "a bare name is no qualified type"
        );
    }

    #[test]
    fn a_wildcard_of_a_large_package_is_loose() {
        let facts = Facts {
            package: Some("com.acme.model".to_string()),
            ..Facts::default()
        };
        let paths: Vec<String> = (0..=FEW_FILES)
            .map(|i| format!("src/com/acme/model/M{i}.java"))
            .collect();
        let files: Vec<IndexedFile<'_>> = paths
            .iter()
            .map(|path| IndexedFile {
                path,
                language: Language::Java,
                facts: &facts,
            })
            .collect();
        let index = RepoIndex::build(&files, &|_| None);
        let import = Import {
            target: "com.acme.model".to_string(),
            names: vec!["*".to_string()],
            line: 3,
            level: 0,
            system: false,
        };
        let out = resolve(&index, "src/com/acme/App.java", &import);
        assert_eq!(out.len(), FEW_FILES + 1);
        assert!(out.iter().all(|r| r.certainty == Certainty::Likely));
    }
}
