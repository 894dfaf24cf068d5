//! What the site-based rules (registration, injection, events) share: who defines a
//! name, which files a file imports, the type a line sits in, vocabularies.

use std::collections::{BTreeSet, HashMap, HashSet};

use crate::Result;
use crate::facts::{ArgKind, Facts};
use crate::graph::{InputArtifact, RuleContext};

use super::{RuleSpec, string_list};

/// A name defined in more files than this links nothing: it is too ambiguous (the
/// rarity cut of the explicit references, stricter because a rule's edge says more).
pub(super) const MAX_DEFINERS: usize = 4;
/// Names shorter than this link nothing.
pub(super) const MIN_NAME_LEN: usize = 3;

/// Who defines each name, per language family.
pub(super) struct Definers<'a> {
    /// family → name → artifacts defining it, sorted, distinct.
    any: HashMap<u8, HashMap<&'a str, Vec<usize>>>,
    /// family → name → artifacts defining a type of that name, sorted, distinct.
    types: HashMap<u8, HashMap<&'a str, Vec<usize>>>,
}

impl<'a> Definers<'a> {
    /// Reads every artifact's definitions.
    pub(super) fn build(artifacts: &'a [InputArtifact]) -> Definers<'a> {
        let mut definers = Definers {
            any: HashMap::new(),
            types: HashMap::new(),
        };
        for (i, artifact) in artifacts.iter().enumerate() {
            let Some(fam) = artifact.language.name_family() else {
                continue;
            };
            for def in &artifact.facts.definitions {
                let name = def.name.as_str();
                let any = definers.any.entry(fam).or_default();
                push_distinct(any.entry(name).or_default(), i);
                if def.kind.is_type() {
                    let types = definers.types.entry(fam).or_default();
                    push_distinct(types.entry(name).or_default(), i);
                }
            }
        }
        definers
    }

    /// Artifacts defining `name` (anything).
    pub(super) fn any(&self, fam: u8, name: &str) -> &[usize] {
        self.any
            .get(&fam)
            .and_then(|names| names.get(name))
            .map_or(&[], Vec::as_slice)
    }

    /// Artifacts defining a type named `name`.
    pub(super) fn types(&self, fam: u8, name: &str) -> &[usize] {
        self.types
            .get(&fam)
            .and_then(|names| names.get(name))
            .map_or(&[], Vec::as_slice)
    }
}

fn push_distinct(list: &mut Vec<usize>, i: usize) {
    if list.last() != Some(&i) {
        list.push(i);
    }
}

/// The definers of a name that file `from` can mean: none when `from` defines it
/// itself (its own definition is the one meant); only those `from` imports when it
/// imports any; else all of them, unless the name is short or defined in more than
/// `max` files. Returns the targets and whether they were narrowed by an import.
pub(super) fn pick(
    definers: &[usize],
    from: usize,
    name: &str,
    imported: &BTreeSet<usize>,
    max: usize,
) -> (Vec<usize>, bool) {
    if name.chars().count() < MIN_NAME_LEN || definers.contains(&from) {
        return (Vec::new(), false);
    }
    let others: Vec<usize> = definers.iter().copied().filter(|&d| d != from).collect();
    let via_import: Vec<usize> = others
        .iter()
        .copied()
        .filter(|d| imported.contains(d))
        .collect();
    if !via_import.is_empty() {
        return (via_import, true);
    }
    if others.len() > max || definers.len() > max {
        return (Vec::new(), false);
    }
    (others, false)
}

/// The artifacts file `i` imports, resolved by the repository index.
pub(super) fn imported(context: &RuleContext<'_>, i: usize) -> BTreeSet<usize> {
    let artifact = &context.artifacts[i];
    let mut out = BTreeSet::new();
    for import in &artifact.facts.imports {
        for resolved in
            context
                .index
                .resolve(&artifact.path, artifact.language, &artifact.facts, import)
        {
            if let Ok(j) = context
                .artifacts
                .binary_search_by(|a| a.path.as_str().cmp(&resolved.path))
            {
                out.insert(j);
            }
        }
    }
    out
}

/// The innermost type declared around `line` (the class a field or parameter is in).
pub(super) fn enclosing_type(facts: &Facts, line: u32) -> Option<&str> {
    facts
        .definitions
        .iter()
        .filter(|d| d.kind.is_type() && d.span.start <= line && line <= d.span.end)
        .min_by_key(|d| (d.span.end - d.span.start, d.span.start))
        .map(|d| d.name.as_str())
}

/// The first argument written as `kind`.
pub(super) fn first_arg<'f>(
    args: &'f [String],
    kinds: &[ArgKind],
    kind: ArgKind,
) -> Option<&'f str> {
    args.iter()
        .zip(kinds)
        .find(|(_, k)| **k == kind)
        .map(|(a, _)| a.as_str())
}

/// Arguments written as `kind`.
pub(super) fn args_of<'f>(
    args: &'f [String],
    kinds: &'f [ArgKind],
    kind: ArgKind,
) -> impl Iterator<Item = &'f str> {
    args.iter()
        .zip(kinds)
        .filter(move |(_, k)| **k == kind)
        .map(|(a, _)| a.as_str())
}

/// A vocabulary parameter: a required list of names, as a set.
pub(super) fn vocabulary(spec: &RuleSpec, key: &str) -> Result<HashSet<String>> {
    Ok(string_list(spec, key)?.into_iter().collect())
}

#[cfg(test)]
pub(super) mod testing {
    //! Builds the graph of an in-memory repository with one built-in rule kind.

    use std::sync::Arc;

    use crate::graph::{EdgeData, RelationRule, RepoGraph, RuleContext};
    use crate::{MemorySource, Session};

    /// A compiled rule, owned.
    struct Owned(Box<dyn RelationRule>);

    impl RelationRule for Owned {
        fn name(&self) -> &str {
            self.0.name()
        }

        fn apply(&self, context: &RuleContext<'_>, out: &mut Vec<(String, String, EdgeData)>) {
            self.0.apply(context, out);
        }
    }

    /// The graph of `files` with only the built-in rules of primitive `kind`.
    pub(crate) fn graph_with(kind: &str, files: &[(&str, &str)]) -> Arc<RepoGraph> {
        let source = MemorySource::from_files(files.iter().copied()).expect("files");
        let mut session = Session::new(source).with_builtin_rules(false);
        for spec in super::super::builtin_specs()
            .iter()
            .filter(|s| s.kind == kind)
        {
            let rule = super::super::compile(spec).expect("builtin rule compiles");
            session = session.with_rule(Owned(rule));
        }
        session.graph().expect("graph")
    }
}
