//! Resolution: each cue against the repository, through a [`CueResolver`].

use super::*;

// ---------------------------------------------------------------------------------
// Resolution
// ---------------------------------------------------------------------------------

pub(super) fn sorted_unique(mut files: Vec<String>) -> Vec<String> {
    files.sort();
    files.dedup();
    files
}

/// Resolves a path by its longest suffix that names a file: `/usr/lib/…/django/x.py`
/// tries the whole path, then drops leading components while at least two remain. The
/// bare file name is accepted only when it names exactly one file (and then the cue
/// is weakened) and the path does not go through a package install directory,
/// because a lone `utils.py` from a library frame would otherwise land on an
/// unrelated file. Returns the files and whether only the file name matched.
pub(super) fn match_path(resolver: &dyn CueResolver, path: &str) -> (Vec<String>, bool) {
    let normalized = path.replace('\\', "/");
    let mut components: Vec<&str> = normalized
        .split('/')
        .filter(|c| !c.is_empty() && *c != "." && *c != "~")
        .collect();
    if components
        .first()
        .is_some_and(|c| c.len() == 2 && c.ends_with(':'))
    {
        components.remove(0); // a Windows drive
    }
    if components.is_empty() {
        return (Vec::new(), false);
    }
    // Only the last components can matter; a pathological path stays cheap.
    let start_at = components.len().saturating_sub(12);
    let n = components.len();
    for start in start_at..n {
        if n - start < 2 && n >= 2 {
            break;
        }
        let files = resolver.files_matching_path(&components[start..].join("/"));
        if !files.is_empty() {
            return (sorted_unique(files), false);
        }
    }
    let installed = components
        .iter()
        .any(|c| INSTALL_DIRS.split_whitespace().any(|d| d == *c));
    if n >= 2 && !installed {
        let files = sorted_unique(resolver.files_matching_path(components[n - 1]));
        if files.len() == 1 {
            return (files, true);
        }
    }
    (Vec::new(), false)
}

/// Directories where package managers install third-party code: a path under one of
/// them that did not match by suffix is a library file, whatever its name.
pub(super) const INSTALL_DIRS: &str = "
    site-packages dist-packages node_modules vendor gems registry pkg mod rustc .cargo
    .m2 .gradle jdk lib64 python3 Frameworks Pods bower_components third_party external
";

/// File forms a module path can take, per ecosystem.
pub(super) const MODULE_FILE_FORMS: &[&str] = &[
    ".py",
    "/__init__.py",
    ".pyi",
    ".java",
    ".kt",
    ".scala",
    ".groovy",
    ".ts",
    ".tsx",
    ".js",
    ".jsx",
    "/index.ts",
    "/index.js",
    ".rb",
    ".php",
    ".cs",
    ".rs",
    "/mod.rs",
    ".go",
];

pub(super) fn non_empty_small(files: Vec<String>) -> Option<Vec<String>> {
    let files = sorted_unique(files);
    (!files.is_empty() && files.len() <= MAX_FILES_PER_CUE).then_some(files)
}

/// A dotted path: first as a module file (longest prefix first), then as a definition
/// of its last segment, then of the type segment before it (`Type.member`).
pub(super) fn resolve_dotted(resolver: &dyn CueResolver, text: &str) -> Vec<String> {
    let mut segments = qualified_segments(text);
    while segments.len() > 1 && matches!(segments[0], "crate" | "self" | "super") {
        segments.remove(0);
    }
    let n = segments.len().min(8);
    let segments = &segments[..n];
    for k in (2..=n).rev() {
        let base = segments[..k].join("/");
        let mut files = Vec::new();
        for form in MODULE_FILE_FORMS {
            files.extend(resolver.files_matching_path(&format!("{base}{form}")));
        }
        if !files.is_empty() {
            return sorted_unique(files);
        }
    }
    if let Some(last) = segments.last()
        && let Some(files) = non_empty_small(resolver.files_defining(last))
    {
        return files;
    }
    if n >= 2 {
        let owner = segments[n - 2];
        if owner.chars().next().is_some_and(|c| c.is_ascii_uppercase()) {
            return sorted_unique(resolver.files_defining(owner));
        }
    }
    Vec::new()
}

/// A test id: its file when it has one, else the test class, else the test name.
pub(super) fn resolve_test_id(resolver: &dyn CueResolver, text: &str) -> Vec<String> {
    let (file, names) = match text.split_once("::") {
        Some((file, rest)) => (Some(file), rest),
        None => (None, text),
    };
    if let Some(file) = file {
        let (files, _) = match_path(resolver, file);
        if !files.is_empty() {
            return files;
        }
    }
    let names: Vec<&str> = qualified_segments(names);
    let class = names
        .iter()
        .rev()
        .find(|n| n.chars().next().is_some_and(|c| c.is_ascii_uppercase()));
    if let Some(class) = class
        && let Some(files) = non_empty_small(resolver.files_defining(class))
    {
        return files;
    }
    names
        .last()
        .map(|n| sorted_unique(resolver.files_defining(n)))
        .unwrap_or_default()
}

/// Resolves cues against the repository; cues that name nothing in it are dropped.
///
/// Cues that name more than [`MAX_FILES_PER_CUE`] files are dropped too: a cue that
/// names everything names nothing. Stack frames that survive are renumbered so that
/// the innermost frame found in the repository has depth 0 (frames of the same
/// original depth share a new depth), and their weights follow the new depth. The
/// output is sorted by kind, then text.
pub fn resolve(cues: &[Cue], resolver: &dyn CueResolver) -> Vec<ResolvedCue> {
    let mut out: Vec<(ResolvedCue, bool)> = Vec::new();
    for cue in cues {
        let (files, name_only) = match cue.kind {
            CueKind::Path | CueKind::StackFrame => match_path(resolver, &cue.text),
            CueKind::DottedPath => (resolve_dotted(resolver, &cue.text), false),
            CueKind::Symbol | CueKind::Exception => {
                (sorted_unique(resolver.files_defining(&cue.text)), false)
            }
            CueKind::ConfigKey | CueKind::Route | CueKind::CliFlag | CueKind::ErrorMessage => {
                (sorted_unique(resolver.files_mentioning(&cue.text)), false)
            }
            CueKind::TestId => (resolve_test_id(resolver, &cue.text), false),
        };
        if files.is_empty() || files.len() > MAX_FILES_PER_CUE {
            continue;
        }
        let mut cue = cue.clone();
        if name_only && cue.kind == CueKind::Path {
            cue.weight *= weight::FILE_NAME_ONLY_FACTOR;
        }
        out.push((ResolvedCue { cue, files }, name_only));
    }

    // Dense ranks of the surviving frames' depths.
    let depths: BTreeSet<u32> = out
        .iter()
        .filter(|(r, _)| r.cue.kind == CueKind::StackFrame)
        .map(|(r, _)| r.cue.depth)
        .collect();
    let rank: BTreeMap<u32, u32> = depths.into_iter().zip(0u32..).collect();
    for (r, name_only) in &mut out {
        if r.cue.kind == CueKind::StackFrame {
            let depth = rank.get(&r.cue.depth).copied().unwrap_or(r.cue.depth);
            r.cue.depth = depth;
            r.cue.weight = frame_weight(depth);
            if *name_only {
                r.cue.weight *= weight::FILE_NAME_ONLY_FACTOR;
            }
        }
    }

    let mut out: Vec<ResolvedCue> = out.into_iter().map(|(r, _)| r).collect();
    out.sort_by(|a, b| {
        (a.cue.kind, &a.cue.text)
            .cmp(&(b.cue.kind, &b.cue.text))
            .then(b.cue.weight.total_cmp(&a.cue.weight))
            .then(a.cue.depth.cmp(&b.cue.depth))
    });
    out
}
