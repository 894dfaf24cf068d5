//! C#: a `using` names a namespace or (with `static` or an alias `using X = A.B.C;`) a
//! type; the syntax does not say which, so the declared types are asked first. A type
//! (`A.B.C`, or the outer type of `A.B.Outer.Inner`) names the files defining it, all
//! of them for a `partial` class. A namespace names its files loosely, and only while
//! it is small: `using` a namespace of many files says little about which one is used.
//! Namespaces of libraries (`System.Text`) name no file.

use super::{RepoIndex, Resolved};
use crate::facts::Import;

/// A namespace with more files than this is too broad to link.
const MAX_NAMESPACE_FILES: usize = 8;

/// The files one `using` directive names (see the module doc).
pub(super) fn resolve(index: &RepoIndex, _from: &str, import: &Import) -> Vec<Resolved> {
    // `using Ids = Acme.Ids<int>;`: the generic type's name.
    let target = import
        .target
        .split('<')
        .next()
        .unwrap_or_default()
        .trim_start_matches("global::")
        .trim_matches('.');
    if target.is_empty() {
        return Vec::new();
    }
    let types = index.defining_type(target);
    if !types.is_empty() {
        return types.iter().map(Resolved::exact).collect();
    }
    let namespace = index.in_package(target);
    if !namespace.is_empty() {
        if namespace.len() > MAX_NAMESPACE_FILES {
            return Vec::new();
        }
        return namespace.iter().map(Resolved::likely).collect();
    }
    // A nested type: `using static Acme.Orders.Outer.Inner;` names the file of `Outer`.
    let mut prefix = target;
    while let Some((outer, _)) = prefix.rsplit_once('.') {
        if !outer.contains('.') {
            break;
        }
        let types = index.defining_type(outer);
        if !types.is_empty() {
            return types.iter().map(Resolved::exact).collect();
        }
        prefix = outer;
    }
    Vec::new()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::artifact::Language;
    use crate::facts::Facts;
    use crate::resolve::{Certainty, IndexedFile};

    fn using(target: &str) -> Import {
        Import {
            target: target.to_string(),
            names: Vec::new(),
            line: 1,
            level: 0,
            system: false,
        }
    }

    /// An index of `count` files declaring namespace `Acme.Models`.
    fn namespace_of(count: usize) -> RepoIndex {
        let facts = Facts {
            package: Some("Acme.Models".to_string()),
            ..Facts::default()
        };
        let paths: Vec<String> = (0..count).map(|i| format!("Models/M{i}.cs")).collect();
        let files: Vec<IndexedFile<'_>> = paths
            .iter()
            .map(|path| IndexedFile {
                path,
                language: Language::CSharp,
                facts: &facts,
            })
            .collect();
        RepoIndex::build(&files, &|_| None)
    }

    #[test]
    fn a_small_namespace_names_its_files_loosely() {
        let index = namespace_of(MAX_NAMESPACE_FILES);
        let out = resolve(&index, "Program.cs", &using("Acme.Models"));
        assert_eq!(out.len(), MAX_NAMESPACE_FILES);
        assert!(out.iter().all(|r| r.certainty == Certainty::Likely));
    }

    #[test]
    fn a_broad_namespace_names_nothing() {
        let index = namespace_of(MAX_NAMESPACE_FILES + 1);
        assert!(resolve(&index, "Program.cs", &using("Acme.Models")).is_empty());
        assert!(resolve(&index, "Program.cs", &using("System.Text")).is_empty());
    }
}
