//! Explicit cues in the task text (paper §III.C, environment-aware analysis): file
//! paths, dotted module paths, identifiers in backticks or code blocks, CamelCase and
//! snake_case identifiers, stack-trace frames, exception names and error messages,
//! config keys, URLs/routes, CLI flags and test ids. Each cue is then resolved
//! against the repository through a [`CueResolver`], or dropped.

use serde::Serialize;

/// What a cue is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum CueKind {
    /// A file path (`django/db/models/fields/__init__.py`, `src/app.ts`).
    Path,
    /// A dotted module or class path (`django.db.models.Field`, `com.acme.Foo`).
    DottedPath,
    /// An identifier (in backticks, a code block, or CamelCase/snake_case prose).
    Symbol,
    /// One frame of a stack trace (file, line, function).
    StackFrame,
    /// An exception or error type name (`ValueError`, `NullPointerException`).
    Exception,
    /// The text of an error message.
    ErrorMessage,
    /// A configuration key (`spring.datasource.url`, `DEFAULT_AUTO_FIELD`).
    ConfigKey,
    /// A URL path or route (`/api/orders/{id}`).
    Route,
    /// A command-line flag (`--no-cache`).
    CliFlag,
    /// A test id (`tests/test_x.py::test_y`, `FooTest#bar`).
    TestId,
}

/// One cue found in the task text.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Cue {
    /// What it is.
    pub kind: CueKind,
    /// The cue as it should be looked up (a path, a name, a key…).
    pub text: String,
    /// For stack frames: the line number in the file, when given.
    pub line: Option<u32>,
    /// For stack frames: the function name, when given.
    pub function: Option<String>,
    /// For stack frames: position from the innermost frame (0 = innermost).
    pub depth: u32,
    /// Strength of the cue before resolution, in (0, 1]: a backticked symbol or an
    /// innermost frame is strong; a CamelCase word in prose is weaker.
    pub weight: f32,
}

/// Answers questions about the repository so that cues can be resolved.
pub trait CueResolver {
    /// Files whose path equals `path` or ends with `/path` (a path written relative to
    /// some other root, or absolute on the reporter's machine, still resolves by its
    /// longest matching suffix).
    fn files_matching_path(&self, path: &str) -> Vec<String>;
    /// Files that define `symbol` (or contain it as a whole identifier when definitions
    /// are not known yet).
    fn files_defining(&self, symbol: &str) -> Vec<String>;
    /// Files that contain `text` as a whole token sequence (config keys, routes, flags,
    /// error messages).
    fn files_mentioning(&self, text: &str) -> Vec<String>;
}

/// A cue with the repository files it resolved to (never empty).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ResolvedCue {
    /// The cue.
    pub cue: Cue,
    /// Repository-relative paths, sorted.
    pub files: Vec<String>,
}

/// Extracts every cue from a task text, deterministically (same text, same cues in
/// the same order), without duplicates.
pub fn extract(_text: &str) -> Vec<Cue> {
    Vec::new()
}

/// Resolves cues against the repository; cues that name nothing in it are dropped.
pub fn resolve(_cues: &[Cue], _resolver: &dyn CueResolver) -> Vec<ResolvedCue> {
    Vec::new()
}
