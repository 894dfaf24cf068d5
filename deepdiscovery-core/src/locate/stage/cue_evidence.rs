//! Cues as evidence: their resolution against the lexical pass, how each is described
//! and which channel of s_rule it counts in, and how rare a named symbol is.

use super::*;

/// Resolves cues with the listing and the lexical pass (no parsing needed).
pub(super) struct LexicalResolver<'a> {
    pub(super) artifacts: &'a [ArtifactInfo],
    pub(super) view: &'a LexicalView,
    pub(super) query: &'a Query,
}

impl CueResolver for LexicalResolver<'_> {
    fn files_matching_path(&self, path: &str) -> Vec<String> {
        // Exact or `/`-suffix only: `cues::resolve` walks the suffixes itself.
        let path = path.trim_start_matches("./");
        let tail = format!("/{path}");
        self.artifacts
            .iter()
            .filter(|a| a.path == path || a.path.ends_with(&tail))
            .map(|a| a.path.clone())
            .collect()
    }

    fn files_defining(&self, symbol: &str) -> Vec<String> {
        let Some(index) = self.query.symbols.iter().position(|s| s == symbol) else {
            return Vec::new();
        };
        let index = index as u32;
        let defining: Vec<String> = self
            .view
            .files
            .iter()
            .zip(self.artifacts)
            .filter(|(f, _)| f.defines.contains(&index))
            .map(|(_, a)| a.path.clone())
            .collect();
        if !defining.is_empty() {
            return defining;
        }
        self.view
            .files
            .iter()
            .zip(self.artifacts)
            .filter(|(f, _)| f.mentions.contains(&index))
            .map(|(_, a)| a.path.clone())
            .collect()
    }

    fn files_mentioning(&self, text: &str) -> Vec<String> {
        let Some(index) = self.query.phrases.iter().position(|s| s == text) else {
            return Vec::new();
        };
        let index = index as u32;
        let mentioning: Vec<&ArtifactInfo> = self
            .view
            .files
            .iter()
            .zip(self.artifacts)
            .filter(|(f, _)| f.phrases.contains(&index))
            .map(|(_, a)| a)
            .collect();
        // A message is emitted by code and repeated by translation catalogs and
        // docs: when the copies are too many for the cue to count, the code's count.
        // A command-line flag is defined by the code that parses it and repeated by
        // docs, changelogs and tests: the code's count whenever code mentions it.
        let code: Vec<&ArtifactInfo> = mentioning
            .iter()
            .copied()
            .filter(|a| a.role == Role::Source)
            .collect();
        let flag = text.starts_with('-');
        let chosen = if (flag || mentioning.len() > MAX_CUE_FILES) && !code.is_empty() {
            code
        } else {
            mentioning
        };
        chosen.into_iter().map(|a| a.path.clone()).collect()
    }
}

pub(super) fn describe_cue(cue: &Cue) -> String {
    match cue.kind {
        CueKind::StackFrame => {
            let at = cue.line.map(|l| format!(" line {l}")).unwrap_or_default();
            let f = cue
                .function
                .as_deref()
                .map(|f| format!(" in `{f}`"))
                .unwrap_or_default();
            format!(
                "stack frame {} of the task: `{}`{at}{f}",
                cue.depth, cue.text
            )
        }
        CueKind::Path => format!("named in the task: `{}`", cue.text),
        kind => {
            let kind = serde_json::to_value(kind)
                .ok()
                .and_then(|v| v.as_str().map(str::to_string))
                .unwrap_or_default()
                .replace('_', " ");
            format!("{kind} of the task: `{}`", cue.text)
        }
    }
}

/// The channel of a cue's evidence where no file defines what it names.
pub(super) fn cue_channel(cue: &Cue) -> Channel {
    match cue.kind {
        CueKind::Path => Channel::Path,
        CueKind::StackFrame => Channel::Trace,
        _ => Channel::OtherCue,
    }
}

/// Whether a cue names the package whose `__init__.py` it resolved to: a module path
/// (`sphinx.ext.napoleon`, `sphinx/ext/napoleon`) that ends with the package's name,
/// not a word that happens to occur in it.
pub(super) fn names_package(cue: &Cue, file: &str) -> bool {
    let package = parent_dir(file).rsplit('/').next().unwrap_or_default();
    file_name(file) == "__init__.py"
        && !package.is_empty()
        && matches!(
            cue.kind,
            CueKind::DottedPath | CueKind::ConfigKey | CueKind::Path
        )
        && cue.text.rsplit(['.', '/']).next() == Some(package)
}

/// The identifier a cue asks the lexical pass to find: the symbol itself, the last
/// segment of a dotted path, a stack frame's function, a test's name.
pub(super) fn cue_name(cue: &Cue) -> Option<&str> {
    let last =
        |s: &'_ str, separators: &[char]| -> usize { s.rfind(separators).map_or(0, |i| i + 1) };
    match cue.kind {
        CueKind::Symbol | CueKind::Exception => Some(cue.text.as_str()),
        CueKind::DottedPath => Some(&cue.text[last(&cue.text, &['.', ':'])..]),
        CueKind::StackFrame => cue.function.as_deref().map(|f| &f[last(f, &['.', ':'])..]),
        CueKind::TestId => Some(&cue.text[last(&cue.text, &[':', '#', '.'])..]),
        _ => None,
    }
}

/// The symbol a cue names (symbols, exceptions and dotted paths, not frames or tests).
pub(crate) fn cue_symbol(cue: &Cue) -> Option<&str> {
    match cue.kind {
        CueKind::Symbol | CueKind::Exception | CueKind::DottedPath => cue_name(cue),
        _ => None,
    }
}

/// How rare the symbol of a cue is in the repository, in [0.1, 1]: normalized inverse
/// document frequency of the files that mention it. A task naming `subs` or `render`
/// (used all over) says less than one naming `separability_matrix`. 1 for cues that
/// are not symbols.
pub(super) fn symbol_rarity(cue: &Cue, query: &Query, view: &LexicalView) -> f32 {
    let Some(name) = cue_symbol(cue) else {
        return 1.0;
    };
    let Some(index) = query.symbols.iter().position(|s| s == name) else {
        return 1.0;
    };
    let index = index as u32;
    let n = view.files.len().max(2) as f32;
    let users = view
        .files
        .iter()
        .filter(|f| f.mentions.contains(&index) || f.defines.contains(&index))
        .count()
        .max(1) as f32;
    ((n / users).ln() / n.ln()).clamp(0.1, 1.0)
}

/// A package a cue names: its folder, the cue's strength and text.
pub(super) type PackageCue<'r> = (&'r str, f32, String);

/// The evidence of the resolved cues, per file (indexed like the artifacts), and the
/// packages they name with the strength to spread to their modules. A symbol the task
/// names is strong evidence where it is defined, weak where it is only used.
pub(super) fn cue_signals<'r>(
    resolved: &'r [ResolvedCue],
    query: &Query,
    view: &LexicalView,
    by_path: &impl IndexOf,
    n: usize,
) -> (Vec<Vec<Signal>>, Vec<PackageCue<'r>>) {
    let mut evidence: Vec<Vec<Signal>> = vec![Vec::new(); n];
    let mut package_modules: Vec<(&str, f32, String)> = Vec::new();
    for r in resolved {
        let definers = defining_files(&r.cue, query, view, &r.files, by_path);
        let rarity = symbol_rarity(&r.cue, query, view);
        for f in &r.files {
            let Some(i) = by_path.index_of(f) else {
                continue;
            };
            // A symbol the task names is strong evidence where it is defined, weak
            // where it is only used.
            let (strength, channel, what) = if definers.is_empty() {
                (
                    r.cue.weight / (r.files.len() as f32).sqrt(),
                    cue_channel(&r.cue),
                    describe_cue(&r.cue),
                )
            } else if definers.contains(&i) {
                (
                    r.cue.weight.max(DEFINED_SYMBOL) * rarity / (definers.len() as f32).sqrt(),
                    Channel::Defines,
                    format!("defines {}", describe_cue(&r.cue)),
                )
            } else {
                (
                    0.5 * r.cue.weight * rarity / (r.files.len() as f32).sqrt(),
                    Channel::Uses,
                    format!("uses {}", describe_cue(&r.cue)),
                )
            };
            if names_package(&r.cue, f) {
                package_modules.push((parent_dir(f), strength, r.cue.text.clone()));
            }
            evidence[i].push(Signal::new(channel, strength, what));
        }
    }
    (evidence, package_modules)
}
