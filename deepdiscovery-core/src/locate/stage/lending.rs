//! Evidence lent between files: to a package's modules, along name templates and
//! module alignment (s_sum), from tests to their subjects, to the files that define
//! a named symbol, and to files whose stem the task writes.

use super::*;
use crate::hashing::ContentSet;
use crate::locate::tokens::Token;
use crate::resolve::{DirGroups, is_in_dir};
use std::collections::{BTreeSet, HashSet};

/// Gives the source modules beside each named package's `__init__.py` a share of
/// its evidence, divided among them.
pub(super) fn spread_to_modules(
    artifacts: &[ArtifactInfo],
    packages: &[(&str, f32, String)],
    evidence: &mut [Vec<Signal>],
) {
    for (dir, strength, name) in packages {
        let modules: Vec<usize> = artifacts
            .iter()
            .enumerate()
            .filter(|(_, a)| {
                a.role == Role::Source
                    && parent_dir(&a.path) == *dir
                    && file_name(&a.path) != "__init__.py"
            })
            .map(|(i, _)| i)
            .collect();
        let each = PACKAGE_SHARE * strength / (modules.len().max(1) as f32).sqrt();
        for i in modules {
            evidence[i].push(Signal::new(
                Channel::Package,
                each,
                format!("a module of the package `{name}` the task names"),
            ));
        }
    }
}

/// What [`name_templates`] keeps per listing (see [`Session::per_listing`]).
const NAME_INDEX: &str = "files by the first word of their name and directory";

/// The shortest name or directory word a name template matches.
const MIN_TEMPLATE_WORD: usize = 4;

/// The listing's files by the first word of their stem and by the first word of
/// their directory's last part (only words a template can match), so that a query
/// looks up its terms instead of tokenizing a million names.
#[derive(Debug, Default)]
pub(super) struct NameIndex {
    by_stem: HashMap<String, Vec<usize>>,
    by_dir: HashMap<String, Vec<usize>>,
}

impl NameIndex {
    /// Indexes `artifacts`: every file but those of a generic stem (`__init__`,
    /// `index`, `mod`, `main`, `lib`), which no template matches.
    pub(super) fn of(artifacts: &[ArtifactInfo]) -> NameIndex {
        let mut index = NameIndex::default();
        let mut token = Token::default();
        let mut first = String::new();
        // The files of one directory are neighbours in path order: its last part is
        // tokenized once for them all.
        let mut last_dir: Option<(&str, Option<String>)> = None;
        for (i, a) in artifacts.iter().enumerate() {
            let name = file_name(&a.path);
            let stem = name.split('.').next().unwrap_or(name);
            if matches!(stem, "__init__" | "index" | "mod" | "main" | "lib" | "") {
                continue;
            }
            first_token(stem, &mut token, &mut first);
            if first.len() >= MIN_TEMPLATE_WORD {
                index.by_stem.entry(first.clone()).or_default().push(i);
            }
            let dir = parent_dir(&a.path);
            let word = match &last_dir {
                Some((seen, word)) if *seen == dir => word.clone(),
                _ => {
                    let last = dir.rsplit('/').next().unwrap_or_default();
                    first_token(last, &mut token, &mut first);
                    let word = (first.len() >= MIN_TEMPLATE_WORD).then(|| first.clone());
                    last_dir = Some((dir, word.clone()));
                    word
                }
            };
            if let Some(word) = word {
                index.by_dir.entry(word).or_default().push(i);
            }
        }
        index
    }
}

/// Rule templates on names: the first word of a file's name, or of its directory's
/// last part, equals a task term.
pub(super) fn name_templates(
    session: &Session,
    files: &Files<'_>,
    query: &Query,
    named: &std::collections::HashSet<usize>,
    evidence: &mut [Vec<Signal>],
) {
    let index = session.per_listing(NAME_INDEX, files.version, |_| {
        Arc::new(NameIndex::of(files.artifacts))
    });
    let terms: BTreeSet<&str> = (query.terms.iter())
        .map(|(t, _)| t.as_str())
        .filter(|t| t.len() >= MIN_TEMPLATE_WORD)
        .collect();
    let artifacts = files.artifacts;
    // Each file's name signal before its directory's, as one pass over the files
    // would push them.
    for &term in &terms {
        for &i in index.by_stem.get(term).into_iter().flatten() {
            if !named.contains(&i) {
                let name = file_name(&artifacts[i].path);
                evidence[i].push(Signal::new(
                    Channel::NameTerm,
                    0.35,
                    format!("file name `{name}` matches the task term `{term}`"),
                ));
            }
        }
    }
    for &term in &terms {
        for &i in index.by_dir.get(term).into_iter().flatten() {
            if !named.contains(&i) {
                let dir = parent_dir(&artifacts[i].path);
                let last = dir.rsplit('/').next().unwrap_or_default();
                evidence[i].push(Signal::new(
                    Channel::NameTerm,
                    0.15,
                    format!("directory `{last}` matches the task term `{term}`"),
                ));
            }
        }
    }
}

/// The first token of `text` ([`lexical::tokenize`]'s), written into `first` (empty
/// when there is none), without a string per token.
fn first_token(text: &str, token: &mut Token, first: &mut String) {
    first.clear();
    let mut seen = false;
    crate::locate::tokens::tokenize_into(text, token, &mut |t| {
        if !seen {
            seen = true;
            first.push_str(t.as_str());
        }
    });
}

/// s_sum: alignment of the task with the compressed view of each file's module,
/// read at directory granularity (the directory cards of the repository view), and
/// raised for modules the task names.
pub(super) fn module_alignment(
    artifacts: &[ArtifactInfo],
    groups: &DirGroups,
    view: &LexicalView,
    query: &Query,
    environment: &Environment,
    scope: &[(usize, f32)],
) -> Vec<f32> {
    let DirGroups {
        members, group_of, ..
    } = groups;
    let count = members.len();
    let mut by_group: Vec<f32> = (members.iter())
        .map(|members| view.bm25_group(query, members, count))
        .collect();
    let max = by_group.iter().copied().fold(0.0f32, f32::max);
    if max > 0.0 {
        for v in &mut by_group {
            *v /= max;
        }
    }
    artifacts
        .iter()
        .zip(group_of)
        .map(|(a, &g)| {
            let base = by_group[g];
            let scoped = scope
                .iter()
                .filter_map(|&(m, s)| {
                    let module = environment.modules.get(m)?;
                    is_in_dir(&a.path, &module.root).then_some(s)
                })
                .fold(0.0f32, f32::max);
            base.max(scoped * 0.8)
        })
        .collect()
}

/// Test files among the candidates that match the task's words lend part of that
/// match to the implementation named like them (`test_x.py` → `x.py`, `XTest.java` →
/// `X.java`, `x.spec.ts` → `x.ts`): the task's words often match the test better
/// than the code it exercises.
pub(super) fn transfer_from_tests(
    artifacts: &[ArtifactInfo],
    candidates: &[usize],
    terms: &[Terms],
    evidence: &mut [Vec<Signal>],
) {
    // The tests among the candidates that match the task, with the names of what
    // they test; then the files of those names (not every file's name: a listing of
    // a million files made that most of a second a query).
    let tests: Vec<(usize, Vec<String>)> = candidates
        .iter()
        .filter_map(|&t| {
            let name = file_name(&artifacts[t].path);
            let lends = artifacts[t].role == Role::Test
                && is_test_file_name(name)
                && terms[t].sem >= MIN_TEST_MATCH;
            lends.then(|| (t, subject_names(name)))
        })
        .collect();
    if tests.is_empty() {
        return;
    }
    let wanted: HashSet<&str> = tests
        .iter()
        .flat_map(|(_, s)| s.iter().map(String::as_str))
        .collect();
    let mut by_name: HashMap<&str, Vec<usize>> = HashMap::new();
    for (i, a) in artifacts.iter().enumerate() {
        let name = file_name(&a.path);
        if a.role != Role::Test && wanted.contains(name) {
            by_name.entry(name).or_default().push(i);
        }
    }
    for (t, subjects) in &tests {
        let test = &artifacts[*t];
        for subject in subjects {
            let Some(targets) = by_name.get(subject.as_str()) else {
                continue;
            };
            if targets.len() > 3 {
                continue;
            }
            for &i in targets {
                let strength = 0.6 * terms[*t].sem / (targets.len() as f32).sqrt();
                evidence[i].push(Signal::new(
                    Channel::TestLend,
                    strength,
                    format!("tested by `{}`, which matches the task", test.path),
                ));
            }
        }
    }
}

/// The implementation file names a test file name points at.
pub(super) fn subject_names(test: &str) -> Vec<String> {
    let (stem, ext) = match test.split_once('.') {
        Some((s, e)) => (s, e),
        None => (test, ""),
    };
    let ext = ext.trim_start_matches("test.").trim_start_matches("spec.");
    let mut out = Vec::new();
    if let Some(rest) = stem.strip_prefix("test_") {
        out.push(format!("{rest}.{ext}"));
    }
    for suffix in ["_test", "_tests", "_spec", "Test", "Tests", "IT", "Spec"] {
        if let Some(rest) = stem.strip_suffix(suffix)
            && !rest.is_empty()
        {
            out.push(format!("{rest}.{ext}"));
        }
    }
    if test.contains(".test.") || test.contains(".spec.") {
        out.push(format!("{stem}.{ext}"));
    }
    out
}

/// Which of a symbol cue's files define it (lexically), as artifact indexes.
pub(super) fn defining_files(
    cue: &Cue,
    query: &Query,
    view: &LexicalView,
    files: &[String],
    by_path: &impl IndexOf,
) -> Vec<usize> {
    let name = match cue.kind {
        CueKind::TestId => None,
        _ => cue_name(cue),
    };
    let Some(name) = name else {
        return Vec::new();
    };
    let Some(symbol) = query.symbols.iter().position(|s| s == name) else {
        return Vec::new();
    };
    let symbol = symbol as u32;
    let definers: Vec<usize> = files
        .iter()
        .filter_map(|f| by_path.index_of(f))
        .filter(|&i| view.files[i].defines.contains(&symbol))
        .collect();
    // A bare name (`convert_to`, `cse()`) is the module-level function or class of that
    // name; methods of the same name in some class (`Quantity.convert_to`) only use it
    // or stand beside it. A qualified name keeps every definer.
    if cue.kind == CueKind::Symbol {
        let top: Vec<usize> = definers
            .iter()
            .copied()
            .filter(|&i| view.files[i].defines_top.contains(&symbol))
            .collect();
        if !top.is_empty() {
            return top;
        }
    }
    definers
}

/// Rule template: a file whose name (without extension) is written in the task as
/// code — an identifier-like word (`autoreload_utils`, `0011_update_proxy`,
/// `QuerySet`) or a symbol or path cue — weighted down by how many files share that
/// name. Returns the files it matched.
pub(super) fn stems_in_task(
    artifacts: &[ArtifactInfo],
    text: &str,
    cues: &[Cue],
    evidence: &mut [Vec<Signal>],
) -> std::collections::HashSet<usize> {
    let code_like = |w: &str| {
        w.contains('_')
            || w.bytes().any(|b| b.is_ascii_digit())
            || w.bytes().skip(1).any(|b| b.is_ascii_uppercase())
    };
    let mut written: ContentSet<String> = lexical::words(text)
        .filter(|w| w.len() >= 5 && code_like(w))
        .map(|w| w.to_ascii_lowercase())
        .collect();
    for cue in cues {
        if matches!(
            cue.kind,
            CueKind::Symbol | CueKind::Path | CueKind::DottedPath
        ) {
            for w in lexical::words(&cue.text).filter(|w| w.len() >= 5) {
                written.insert(w.to_ascii_lowercase());
            }
        }
    }
    // Only stems of a written word's length are lowercased (into one buffer) and
    // looked up: this runs for every file of the listing.
    let lengths: BTreeSet<usize> = written.iter().map(String::len).collect();
    let mut by_stem: BTreeMap<String, Vec<usize>> = BTreeMap::new();
    let mut lower = String::new();
    for (i, a) in artifacts.iter().enumerate() {
        let name = file_name(&a.path);
        let stem = name.split('.').next().unwrap_or(name);
        if !lengths.contains(&stem.len()) {
            continue;
        }
        lower.clear();
        lower.push_str(stem);
        lower.make_ascii_lowercase();
        if written.contains(&lower) {
            by_stem.entry(lower.clone()).or_default().push(i);
        }
    }
    let mut matched = std::collections::HashSet::new();
    for (stem, files) in by_stem {
        if files.len() > MAX_STEM_FILES {
            continue;
        }
        let strength = 0.8 / (files.len() as f32).sqrt();
        for i in files {
            matched.insert(i);
            evidence[i].push(Signal::new(
                Channel::Stem,
                strength,
                format!("file name `{stem}` is written in the task"),
            ));
        }
    }
    matched
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::source::MemorySource;

    /// Name templates lend to files whose name's or directory's first word is a
    /// task term of four letters or more, never to generic stems or to files the
    /// task names; and the index kept for the listing answers a second query alike.
    #[test]
    fn name_templates_match_the_first_word_of_names_and_directories() {
        let paths = [
            "billing/invoice.py",
            "ledger/export.py",
            "ledger/invoice.py",
            "ledger/ledger.py",
            "ledger/main.py",
            "misc/inv.py",
        ];
        let source = MemorySource::from_files(paths.map(|p| (p, "x = 1\n"))).unwrap();
        let session = Session::new(source);
        let (artifacts, version) = session.listing().unwrap();
        let files = Files::new(&session, &artifacts, version);
        let query = Query::new("the invoice ledger is inv", Vec::new(), Vec::new());
        let named: HashSet<usize> = [3].into();
        let signals = || {
            let mut evidence = vec![Vec::new(); files.len()];
            name_templates(&session, &files, &query, &named, &mut evidence);
            let described: Vec<Vec<(f32, String)>> = (evidence.iter())
                .map(|e| e.iter().map(|s| (s.strength, s.what.clone())).collect())
                .collect();
            described
        };
        let first = signals();
        let strengths: Vec<Vec<f32>> = (first.iter())
            .map(|e| e.iter().map(|s| s.0).collect())
            .collect();
        assert_eq!(
            strengths,
            [
                vec![0.35],
                vec![0.15],
                vec![0.35, 0.15],
                vec![],
                vec![],
                vec![]
            ],
            "{first:?}"
        );
        assert_eq!(signals(), first, "the kept index answers alike");
    }

    /// Files whose stem the task writes as code (an underscore, a digit or an inner
    /// capital, five letters or more) are named, whatever the stem's case; a stem of
    /// several files shares the strength.
    #[test]
    fn stems_written_as_code_in_the_task_name_their_files() {
        let artifacts: Vec<ArtifactInfo> = [
            "a/parse_header.c",
            "b/parse_header.h",
            "lib/Util_Core.rs",
            "lib/util.py",
            "lib/utilcore.py",
        ]
        .iter()
        .map(|path| ArtifactInfo {
            path: path.to_string(),
            size: 1,
            language: crate::artifact::Language::Unknown,
            role: Role::Source,
            facts: None,
        })
        .collect();
        let mut evidence = vec![Vec::new(); artifacts.len()];
        let text = "parse_header in util_core fails on util headers";
        let named = stems_in_task(&artifacts, text, &[], &mut evidence);
        assert_eq!(named, HashSet::from([0, 1, 2]));
        let strengths: Vec<Vec<f32>> = (evidence.iter())
            .map(|e| e.iter().map(|s| s.strength).collect())
            .collect();
        let shared = 0.8 / 2f32.sqrt();
        assert_eq!(
            strengths,
            [vec![shared], vec![shared], vec![0.8], vec![], vec![]]
        );
    }
}
