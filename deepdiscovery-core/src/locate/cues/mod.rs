//! Explicit cues in the task text (paper §III.C, environment-aware analysis): file
//! paths, dotted module paths, identifiers in backticks or code blocks, CamelCase and
//! snake_case identifiers, stack-trace frames, exception names and error messages,
//! config keys, URLs/routes, CLI flags and test ids. Each cue is then resolved
//! against the repository through a [`CueResolver`], or dropped.
//!
//! # Approach
//!
//! Extraction is a single pass over the lines of the text, after HTML comments (issue
//! templates) are removed:
//!
//! 1. A pre-pass recognises stack-trace frames line by line, for Python, Java/Kotlin,
//!    JavaScript/Node, Go, Rust, Ruby, PHP, C# and C/C++ (gdb and sanitizers). Frames
//!    that follow each other (allowing a few code or marker lines between them) form a
//!    trace; a header such as `Traceback (most recent call last)` or `Caused by:` starts
//!    a new one. Depth 0 is the innermost frame: the last printed one for Python, the
//!    first for every other format. Frame lines are not scanned again, so the
//!    qualified names in a Java frame do not reappear as dotted-path cues.
//! 2. Every other line is scanned in one of three contexts: prose, inline code (a
//!    backtick span on the line) or a fenced code block. Each scan takes the most
//!    specific shapes first and blanks what it took — URLs (a code-host `blob/<ref>/`
//!    URL still yields its path), test ids, file paths, CLI flags, `${placeholders}`,
//!    routes, qualified names — and finally looks at the remaining identifiers.
//! 3. Exception names, and the messages that follow them (or follow `error:`/`panic:`),
//!    are taken from whole lines; a message keeps only its stable fragments (runs of at
//!    least three words between quoted values, numbers, addresses and paths), because
//!    the repository holds the format string, not the rendered message.
//!
//! Cues are keyed by (kind, text); a repeated cue keeps its strongest occurrence. The
//! output is sorted by kind, then text, and capped at [`MAX_CUES`] (strongest kept).
//!
//! # Weights
//!
//! A weight in (0, 1] says how sure we are that the cue names something in the
//! repository that the task is about, before resolution:
//!
//! | weight | cue |
//! |-------:|-----|
//! | 1.0  | a path with a directory; the innermost stack frame; a test id with a file |
//! | 0.9  | a bare file name; a backticked identifier or dotted path; a path in a code-host URL; a test id; an exception heading a trace |
//! | 0.85ᵈ | the stack frame at depth d (never below 0.4) |
//! | 0.8  | a dotted path in prose or code; an exception name in prose; a name after `new`/`import`/`from`; a message from a trace |
//! | 0.7  | a code-looking identifier in a code block; a part of a qualified name; a config key; a long CLI flag |
//! | 0.6  | snake_case or a call `f(` in prose; a name declared in a code block (often the reporter's own code); a route; a lower-case dotted key that may also be a module path; an error message in prose |
//! | 0.5  | CamelCase in prose |
//! | 0.4  | a short CLI flag on a command line |
//!
//! [`resolve`] keeps only cues that name between 1 and [`MAX_FILES_PER_CUE`] files, and
//! renumbers the depths of the surviving frames so that the innermost frame *in the
//! repository* (library frames resolve to nothing) gets depth 0 and weight 1.0.

use std::collections::BTreeMap;
use std::collections::BTreeSet;
use std::sync::LazyLock;

use regex::Regex;
use serde::Serialize;

mod message;
mod resolve;
mod scan;
mod trace;
mod vocabulary;

use message::*;
use scan::*;
use trace::*;
use vocabulary::*;

pub use resolve::*;

/// What a cue is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
#[non_exhaustive]
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

/// A cue that resolves to more files than this names nothing in particular and is
/// dropped by [`resolve`].
pub const MAX_FILES_PER_CUE: usize = 30;

/// At most this many cues come out of [`extract`] (the strongest ones), so that a
/// pasted log of megabytes cannot make resolution expensive.
pub const MAX_CUES: usize = 256;

/// Longest cue text kept; longer matches are noise (minified code, base64).
const MAX_CUE_LEN: usize = 300;

/// The weight scale documented in the module docs.
mod weight {
    pub const PATH: f32 = 1.0;
    pub const FILE_NAME: f32 = 0.9;
    pub const URL_PATH: f32 = 0.9;
    pub const INLINE: f32 = 0.9;
    pub const TEST_ID: f32 = 0.9;
    pub const TRACE_EXCEPTION: f32 = 0.9;
    pub const DOTTED: f32 = 0.8;
    pub const EXCEPTION: f32 = 0.8;
    pub const CODE_REFERENCE: f32 = 0.8;
    pub const TRACE_MESSAGE: f32 = 0.8;
    pub const CODE_IDENT: f32 = 0.7;
    pub const PART: f32 = 0.7;
    pub const CONFIG_KEY: f32 = 0.7;
    pub const LONG_FLAG: f32 = 0.7;
    pub const PROSE_SNAKE: f32 = 0.6;
    pub const PROSE_CALL: f32 = 0.6;
    pub const CODE_DECLARATION: f32 = 0.6;
    pub const ROUTE: f32 = 0.6;
    pub const LOWER_DOTTED_KEY: f32 = 0.6;
    pub const PROSE_MESSAGE: f32 = 0.6;
    pub const PROSE_CAMEL: f32 = 0.5;
    pub const SHORT_FLAG: f32 = 0.4;
    pub const FRAME_DECAY: f32 = 0.85;
    pub const FRAME_FLOOR: f32 = 0.4;
    /// Applied when a path resolved only by its bare file name.
    pub const FILE_NAME_ONLY_FACTOR: f32 = 0.7;
}

/// Weight of the stack frame at `depth` from the innermost one.
fn frame_weight(depth: u32) -> f32 {
    weight::FRAME_DECAY
        .powi(depth.min(64) as i32)
        .max(weight::FRAME_FLOOR)
}

// ---------------------------------------------------------------------------------
// Collection
// ---------------------------------------------------------------------------------

/// Cues keyed by (kind, text); the strongest occurrence wins.
#[derive(Default)]
struct Collector {
    cues: BTreeMap<(CueKind, String), Cue>,
}

impl Collector {
    fn add(&mut self, kind: CueKind, text: &str, weight: f32) {
        self.push(Cue {
            kind,
            text: text.to_string(),
            line: None,
            function: None,
            depth: 0,
            weight,
        });
    }

    fn push(&mut self, mut cue: Cue) {
        let trimmed = cue.text.trim();
        if trimmed.is_empty() || trimmed.len() > MAX_CUE_LEN {
            return;
        }
        if trimmed.len() != cue.text.len() {
            cue.text = trimmed.to_string();
        }
        cue.weight = cue.weight.clamp(f32::MIN_POSITIVE, 1.0);
        let key = (cue.kind, cue.text.clone());
        match self.cues.get_mut(&key) {
            Some(old) => {
                let stronger =
                    cue.weight > old.weight || (cue.weight == old.weight && cue.depth < old.depth);
                if stronger {
                    *old = cue;
                }
            }
            None => {
                self.cues.insert(key, cue);
            }
        }
    }

    fn finish(self) -> Vec<Cue> {
        let mut cues: Vec<Cue> = self.cues.into_values().collect();
        if cues.len() > MAX_CUES {
            // Keep the strongest; ties broken by (kind, text) through the stable sort of
            // an already (kind, text)-ordered vector.
            cues.sort_by(|a, b| b.weight.total_cmp(&a.weight));
            cues.truncate(MAX_CUES);
        }
        cues.sort_by(|a, b| (a.kind, &a.text).cmp(&(b.kind, &b.text)));
        cues
    }
}

/// Where a piece of text was found; it sets how much an identifier there is trusted.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Context {
    /// Ordinary sentences.
    Prose,
    /// A backtick span; `whole` when the span is a single identifier.
    Inline { whole: bool },
    /// A fenced code block; `shell` when it holds command lines.
    Code { shell: bool },
}

/// Splits a prose line into the line with its backtick spans blanked and the spans.
/// An unbalanced run of backticks is left as text.
fn split_inline(line: &str) -> (String, Vec<&str>) {
    let bytes = line.as_bytes();
    let mut prose = String::with_capacity(line.len());
    let mut spans = Vec::new();
    let mut i = 0;
    let mut copied = 0;
    while i < bytes.len() {
        if bytes[i] != b'`' {
            i += 1;
            continue;
        }
        let run_start = i;
        while i < bytes.len() && bytes[i] == b'`' {
            i += 1;
        }
        let run = i - run_start;
        // Find a closing run of exactly the same length.
        let mut j = i;
        let mut close = None;
        while j < bytes.len() {
            if bytes[j] == b'`' {
                let s = j;
                while j < bytes.len() && bytes[j] == b'`' {
                    j += 1;
                }
                if j - s == run {
                    close = Some((s, j));
                    break;
                }
            } else {
                j += 1;
            }
        }
        if let Some((s, e)) = close {
            prose.push_str(&line[copied..run_start]);
            prose.push(' ');
            spans.push(line[i..s].trim());
            copied = e;
            i = e;
        }
    }
    prose.push_str(&line[copied..]);
    (prose, spans)
}

/// Removes `<!-- … -->` comments (issue templates); an unclosed `<!--` is dropped alone.
pub fn strip_html_comments(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(start) = rest.find("<!--") {
        out.push_str(&rest[..start]);
        match rest[start + 4..].find("-->") {
            Some(end) => {
                // Keep the line structure so traces are not glued together.
                let comment = &rest[start..start + 4 + end + 3];
                out.extend(comment.chars().filter(|&c| c == '\n'));
                rest = &rest[start + 4 + end + 3..];
            }
            None => rest = &rest[start + 4..],
        }
    }
    out.push_str(rest);
    out
}

fn fence_of(line: &str) -> Option<&str> {
    let t = line.trim_start();
    let t = t.trim_start_matches(['>', ' ']);
    if t.starts_with("```") || t.starts_with("~~~") {
        Some(t.trim_start_matches(['`', '~']).trim())
    } else {
        None
    }
}

fn is_shell_language(tag: &str) -> bool {
    let tag = tag
        .split_whitespace()
        .next()
        .unwrap_or("")
        .to_ascii_lowercase();
    matches!(
        tag.as_str(),
        "sh" | "bash"
            | "zsh"
            | "shell"
            | "console"
            | "shell-session"
            | "shellsession"
            | "powershell"
            | "ps1"
            | "cmd"
            | "bat"
            | "fish"
            | "terminal"
    )
}

/// Extracts every cue from a task text, deterministically (same text, same cues in
/// the same order), without duplicates.
pub fn extract(text: &str) -> Vec<Cue> {
    let text = strip_html_comments(text);
    let lines: Vec<&str> = text.lines().collect();
    let mut out = Collector::default();

    // Pre-pass: frames, and the function lines they consumed.
    let mut frames: Vec<Option<Frame>> = vec![None; lines.len()];
    let mut consumed = vec![false; lines.len()];
    for (i, line) in lines.iter().enumerate() {
        if line.len() > 4000 {
            continue;
        }
        let prev = i.checked_sub(1).map(|p| lines[p]);
        if let Some((frame, used_prev)) = parse_frame(line, prev) {
            frames[i] = Some(frame);
            consumed[i] = true;
            if used_prev && i > 0 && frames[i - 1].is_none() {
                consumed[i - 1] = true;
            }
        }
    }

    // The source a Python trace echoes under each frame (one line, or IPython's
    // numbered context lines) repeats the call that the next frame already names;
    // only the innermost frame's (the failing line) is kept, or every frame's file
    // would also "define a symbol of the task".
    let python = |f: &Option<Frame>| f.as_ref().is_some_and(|f| f.family == "python");
    let echoed = |line: &str| {
        line.trim().is_empty() || line.starts_with(char::is_whitespace) || line.starts_with("-")
    };
    for i in 0..lines.len() {
        if !python(&frames[i]) {
            continue;
        }
        // One line between two frames is an echo whatever it looks like (traces are
        // often prefixed: `INTERNALERROR>     return f(x)`); longer context only
        // when every line has the shape of one.
        let one_line = i + 2 < lines.len() && frames[i + 1].is_none() && python(&frames[i + 2]);
        let gap = if one_line {
            1
        } else {
            (i + 1..lines.len().min(i + 2 + MAX_ECHO_LINES))
                .take_while(|&k| frames[k].is_none() && echoed(lines[k]))
                .count()
        };
        if gap > 0 && lines.get(i + 1 + gap).is_some() && python(&frames[i + 1 + gap]) {
            consumed[i + 1..=i + gap].fill(true);
        }
    }

    let mut traces = TraceBuilder::default();
    let mut fence: Option<bool> = None; // Some(shell?) inside a fenced block
    let mut last_frame: Option<usize> = None;
    let mut panic_message_pending = false;
    for (i, line) in lines.iter().enumerate() {
        if TRACE_HEADER.is_match(line) {
            traces.flush(&mut out);
        }
        if let Some(frame) = frames[i].take() {
            if let Some(c) = RUST_PANIC.captures(line) {
                match c.get(1) {
                    Some(m) => add_message(&mut out, m.as_str(), weight::TRACE_MESSAGE),
                    None => panic_message_pending = true,
                }
            }
            traces.push(frame, i, &mut out);
            last_frame = Some(i);
            continue;
        }
        if consumed[i] {
            // Consumed lines belong to the trace around them (echoed source).
            traces.continue_at(i);
            continue;
        }
        if let Some(tag) = fence_of(line) {
            fence = match fence {
                Some(_) => None,
                None => Some(is_shell_language(tag)),
            };
            continue;
        }
        if panic_message_pending && !line.trim().is_empty() {
            panic_message_pending = false;
            if !line.contains("note:") {
                add_message(&mut out, line.trim(), weight::TRACE_MESSAGE);
            }
        }
        let after_trace = last_frame.is_some_and(|f| i - f <= 3);
        scan_exception_line(line, after_trace, fence.is_some(), &mut out);
        match fence {
            Some(shell) => scan_segment(line, Context::Code { shell }, &mut out),
            None => {
                let (prose, spans) = split_inline(line);
                for span in spans {
                    let whole = IDENT
                        .find(span)
                        .is_some_and(|m| m.as_str().len() == span.len());
                    scan_segment(span, Context::Inline { whole }, &mut out);
                }
                scan_segment(&prose, Context::Prose, &mut out);
            }
        }
    }
    traces.flush(&mut out);
    out.finish()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn find<'a>(cues: &'a [Cue], kind: CueKind, text: &str) -> Option<&'a Cue> {
        cues.iter().find(|c| c.kind == kind && c.text == text)
    }

    fn has(cues: &[Cue], kind: CueKind, text: &str) -> bool {
        find(cues, kind, text).is_some()
    }

    fn texts(cues: &[Cue], kind: CueKind) -> Vec<&str> {
        cues.iter()
            .filter(|c| c.kind == kind)
            .map(|c| c.text.as_str())
            .collect()
    }

    const PYTHON_TASK: &str = "QuerySet.bulk_update() crashes on a deferred field
Description
	
Calling `bulk_update()` with a field loaded through `only()` fails:
Traceback (most recent call last):
  File \"/usr/lib/python3.10/site-packages/django/db/models/query.py\", line 570, in bulk_update
    self._for_write = True
  File \"/usr/lib/python3.10/site-packages/django/db/models/expressions.py\", line 812, in resolve_expression
    raise FieldError(\"Cannot resolve keyword %r\" % name)
django.core.exceptions.FieldError: Cannot resolve keyword 'pk' into field. Choices are: id, name
The setting DEFAULT_AUTO_FIELD is not involved. See https://docs.djangoproject.com/en/4.0/ref/models/querysets/ for docs.
";

    #[test]
    fn ipython_frames_are_frames_and_their_context_is_echo() {
        let text = "PolyFit fails
```python-traceback
LinAlgError                               Traceback (most recent call last)
File ~/code/plots/plots/core/plot.py:1110, in Plotter._compute_stats(self, spec)
   1109 groupby = GroupBy(grouper)
-> 1110 res = stat_fit_all(df, groupby)
   1112 if pair_vars:

File ~/code/plots/plots/stats/regression.py:30, in PolyFit._fit_predict(self, data)
     29 else:
---> 30     p = np.polyfit(x, y, self.order_of_fit)
     31     xx = np.linspace(x.min(), x.max(), self.gridsize)

File <__array_function__ internals>:180, in polyfit(*args, **kwargs)

LinAlgError: SVD did not converge in Linear Least Squares
```
";
        let cues = extract(text);
        let frames: Vec<&Cue> = cues
            .iter()
            .filter(|c| c.kind == CueKind::StackFrame)
            .collect();
        assert_eq!(frames.len(), 2, "{frames:?}");
        let inner = frames
            .iter()
            .find(|c| c.depth == 0)
            .expect("an innermost frame");
        assert_eq!(inner.text, "~/code/plots/plots/stats/regression.py");
        assert_eq!(inner.line, Some(30));
        assert_eq!(inner.function.as_deref(), Some("_fit_predict"));
        // The outer frame's context repeats what the next frame names; the innermost
        // frame's is the failing line.
        assert!(!has(&cues, CueKind::Symbol, "stat_fit_all"));
        assert!(has(&cues, CueKind::Symbol, "order_of_fit"));
    }

    #[test]
    fn a_python_trace_echo_counts_only_under_the_innermost_frame() {
        let text = "Crash\n\nTraceback (most recent call last):\n  \
                    File \"/srv/app/orders/views.py\", line 3, in checkout\n    \
                    total = compute_invoice_total(cart)\n  \
                    File \"/srv/app/orders/billing.py\", line 9, in compute_invoice_total\n    \
                    return apply_currency_rate(amount)\nValueError: bad rate\n";
        let cues = extract(text);
        // The call echoed under the outer frame is what the next frame names.
        assert!(!has(&cues, CueKind::Symbol, "compute_invoice_total"));
        assert!(has(&cues, CueKind::Symbol, "apply_currency_rate"));
        let frames = texts(&cues, CueKind::StackFrame);
        assert_eq!(frames.len(), 2, "{frames:?}");
    }

    #[test]
    fn python_traceback_gives_frames_exception_and_message() {
        let cues = extract(PYTHON_TASK);
        let inner = find(
            &cues,
            CueKind::StackFrame,
            "/usr/lib/python3.10/site-packages/django/db/models/expressions.py",
        )
        .expect("innermost frame");
        assert_eq!(inner.depth, 0);
        assert_eq!(inner.line, Some(812));
        assert_eq!(inner.function.as_deref(), Some("resolve_expression"));
        assert_eq!(inner.weight, 1.0);
        let outer = find(
            &cues,
            CueKind::StackFrame,
            "/usr/lib/python3.10/site-packages/django/db/models/query.py",
        )
        .expect("outer frame");
        assert_eq!(outer.depth, 1);
        assert!(outer.weight < inner.weight);
        assert!(has(&cues, CueKind::Exception, "FieldError"));
        assert!(has(&cues, CueKind::ErrorMessage, "Cannot resolve keyword"));
        assert!(has(
            &cues,
            CueKind::DottedPath,
            "django.core.exceptions.FieldError"
        ));
        assert!(has(&cues, CueKind::ConfigKey, "DEFAULT_AUTO_FIELD"));
        assert!(has(&cues, CueKind::Symbol, "bulk_update"));
        assert!(has(&cues, CueKind::DottedPath, "QuerySet.bulk_update"));
        // Frame lines are not re-read as plain paths, and URLs are dropped.
        assert!(
            texts(&cues, CueKind::Path).is_empty(),
            "{:?}",
            texts(&cues, CueKind::Path)
        );
        assert!(!cues.iter().any(|c| c.text.contains("djangoproject")));
    }

    #[test]
    fn python_chained_tracebacks_restart_depth() {
        let text = "Traceback (most recent call last):
  File \"app/a.py\", line 1, in outer
  File \"app/b.py\", line 2, in inner
KeyError: 'x'
During handling of the above exception, another exception occurred:
Traceback (most recent call last):
  File \"app/c.py\", line 3, in handler
  File \"app/d.py\", line 4, in fail
RuntimeError: could not load the configuration file
";
        let cues = extract(text);
        let depth = |p: &str| find(&cues, CueKind::StackFrame, p).map(|c| c.depth);
        assert_eq!(depth("app/b.py"), Some(0));
        assert_eq!(depth("app/a.py"), Some(1));
        assert_eq!(depth("app/d.py"), Some(0));
        assert_eq!(depth("app/c.py"), Some(1));
        assert!(has(&cues, CueKind::Exception, "RuntimeError"));
        assert!(has(
            &cues,
            CueKind::ErrorMessage,
            "could not load the configuration file"
        ));
    }

    #[test]
    fn java_trace_maps_frames_to_package_paths() {
        let text = "```
java.lang.IllegalStateException: Connection pool shut down before the request completed
    at org.apache.http.Pool.lease(Pool.java:189)
    at com.acme.orders.OrderService$1.run(OrderService.java:42)
    at java.base/java.lang.Thread.run(Thread.java:833)
Caused by: java.io.IOException: Broken pipe
    at com.acme.net.Channel.write(Channel.kt:17)
```
";
        let cues = extract(text);
        let pool = find(&cues, CueKind::StackFrame, "org/apache/http/Pool.java").unwrap();
        assert_eq!((pool.depth, pool.line), (0, Some(189)));
        let service = find(
            &cues,
            CueKind::StackFrame,
            "com/acme/orders/OrderService.java",
        )
        .unwrap();
        assert_eq!(service.depth, 1);
        assert_eq!(service.function.as_deref(), Some("run"));
        let thread = find(&cues, CueKind::StackFrame, "java/lang/Thread.java").unwrap();
        assert_eq!(thread.depth, 2);
        // `Caused by:` starts a new trace.
        let channel = find(&cues, CueKind::StackFrame, "com/acme/net/Channel.kt").unwrap();
        assert_eq!(channel.depth, 0);
        assert!(has(&cues, CueKind::Exception, "IllegalStateException"));
        assert!(has(&cues, CueKind::Exception, "IOException"));
        assert!(has(
            &cues,
            CueKind::ErrorMessage,
            "Connection pool shut down before the request completed"
        ));
        // Qualified names inside frames are not dotted-path cues.
        assert!(!has(
            &cues,
            CueKind::DottedPath,
            "org.apache.http.Pool.lease"
        ));
    }

    #[test]
    fn javascript_go_and_rust_traces() {
        let js = "TypeError: Cannot read properties of undefined (reading 'map')
    at renderList (/home/me/app/src/components/List.tsx:14:22)
    at Object.<anonymous> (file:///home/me/app/src/index.js:3:1)
    at node:internal/main/run_main_module:23:47
";
        let cues = extract(js);
        let list = find(
            &cues,
            CueKind::StackFrame,
            "/home/me/app/src/components/List.tsx",
        )
        .unwrap();
        assert_eq!(
            (list.depth, list.function.as_deref()),
            (0, Some("renderList"))
        );
        let index = find(&cues, CueKind::StackFrame, "/home/me/app/src/index.js").unwrap();
        assert_eq!((index.depth, index.function.as_deref()), (1, None));
        assert!(!cues.iter().any(|c| c.text.contains("node:internal")));
        assert!(has(&cues, CueKind::Exception, "TypeError"));
        assert!(has(
            &cues,
            CueKind::ErrorMessage,
            "Cannot read properties of undefined"
        ));

        let go = "panic: runtime error: invalid memory address or nil pointer dereference

goroutine 1 [running]:
github.com/acme/shop/internal/cart.(*Cart).Total(0x0)
	/home/ci/shop/internal/cart/cart.go:58 +0x1d
main.main()
	/home/ci/shop/cmd/shop/main.go:12 +0x25
";
        let cues = extract(go);
        let cart = find(
            &cues,
            CueKind::StackFrame,
            "/home/ci/shop/internal/cart/cart.go",
        )
        .unwrap();
        assert_eq!((cart.depth, cart.line), (0, Some(58)));
        assert_eq!(cart.function.as_deref(), Some("Total"));
        let main = find(&cues, CueKind::StackFrame, "/home/ci/shop/cmd/shop/main.go").unwrap();
        assert_eq!((main.depth, main.function.as_deref()), (1, Some("main")));
        assert!(has(
            &cues,
            CueKind::ErrorMessage,
            "invalid memory address or nil pointer dereference"
        ));
        // The function lines were consumed by the frames.
        assert!(!has(&cues, CueKind::DottedPath, "main.main"));

        let rust = "thread 'main' panicked at src/parser/lexer.rs:88:14:
unexpected end of input while reading a string
stack backtrace:
   0: rust_begin_unwind
             at /rustc/90b35a/library/std/src/panicking.rs:645:5
   1: mylang::parser::lexer::Lexer::next_token
             at ./src/parser/lexer.rs:88:14
   2: mylang::main
             at ./src/main.rs:5:3
";
        let cues = extract(rust);
        let lexer = find(&cues, CueKind::StackFrame, "src/parser/lexer.rs").unwrap();
        assert_eq!((lexer.depth, lexer.line), (0, Some(88)));
        let main = find(&cues, CueKind::StackFrame, "src/main.rs").unwrap();
        assert_eq!(main.function.as_deref(), Some("main"));
        assert!(main.depth > 0);
        assert!(has(
            &cues,
            CueKind::ErrorMessage,
            "unexpected end of input while reading a string"
        ));
    }

    #[test]
    fn ruby_php_csharp_and_native_frames() {
        let ruby = "NoMethodError: undefined method `name' for nil
/app/lib/shop/cart.rb:12:in `total'
	from /app/lib/shop/checkout.rb:30:in `block in run'
";
        let cues = extract(ruby);
        let cart = find(&cues, CueKind::StackFrame, "/app/lib/shop/cart.rb").unwrap();
        assert_eq!((cart.depth, cart.function.as_deref()), (0, Some("total")));
        let checkout = find(&cues, CueKind::StackFrame, "/app/lib/shop/checkout.rb").unwrap();
        assert_eq!(
            (checkout.depth, checkout.function.as_deref()),
            (1, Some("run"))
        );
        assert!(has(&cues, CueKind::Exception, "NoMethodError"));

        let php = "PHP Fatal error:  Uncaught TypeError: Argument 1 passed to foo() must be of the type int
#0 /var/www/src/Carbon/Carbon.php(120): Carbon\\Carbon->setTime()
#1 /var/www/src/Carbon/Traits/Date.php(45): Carbon\\Carbon::parse()
#2 {main}
";
        let cues = extract(php);
        let carbon = find(&cues, CueKind::StackFrame, "/var/www/src/Carbon/Carbon.php").unwrap();
        assert_eq!(
            (carbon.depth, carbon.function.as_deref()),
            (0, Some("setTime"))
        );
        let date = find(
            &cues,
            CueKind::StackFrame,
            "/var/www/src/Carbon/Traits/Date.php",
        )
        .unwrap();
        assert_eq!((date.depth, date.function.as_deref()), (1, Some("parse")));

        let csharp = "System.NullReferenceException: Object reference not set to an instance of an object.
   at Acme.Billing.InvoiceService.Send(Invoice invoice) in C:\\src\\Acme.Billing\\InvoiceService.cs:line 77
   at Acme.Web.Program.Main(String[] args) in C:\\src\\Acme.Web\\Program.cs:line 12
";
        let cues = extract(csharp);
        let invoice = find(
            &cues,
            CueKind::StackFrame,
            "C:/src/Acme.Billing/InvoiceService.cs",
        )
        .unwrap();
        assert_eq!((invoice.depth, invoice.line), (0, Some(77)));
        assert_eq!(invoice.function.as_deref(), Some("Send"));
        assert!(has(&cues, CueKind::Exception, "NullReferenceException"));
        assert!(has(
            &cues,
            CueKind::ErrorMessage,
            "Object reference not set to an instance of an object"
        ));

        let asan = "==1==ERROR: AddressSanitizer: heap-use-after-free on address 0x602000000010
    #0 0x4f3b2c in jv_free src/jv.c:120:3
    #1 0x4f3c10 in parse_value src/parser.y:88
    #2 0x7f00 in __libc_start_main (/usr/lib/libc.so.6+0x2384f)
    #3 0x4f3d00 in main src/main.c:42:10
";
        let cues = extract(asan);
        assert_eq!(
            find(&cues, CueKind::StackFrame, "src/jv.c").unwrap().depth,
            0
        );
        assert_eq!(
            find(&cues, CueKind::StackFrame, "src/parser.y")
                .unwrap()
                .depth,
            1
        );
        // Frame numbers are kept across a frame without a source location.
        let main = find(&cues, CueKind::StackFrame, "src/main.c").unwrap();
        assert_eq!((main.depth, main.function.as_deref()), (3, Some("main")));
    }

    #[test]
    fn paths_in_prose_backticks_urls_and_diffs() {
        let text = "The bug is in `src\\app\\routes.ts` and in lib/core/engine.py, see also \
                    [this line](https://github.com/acme/shop/blob/main/pkg/cart/cart.go#L42) \
                    and https://example.com/download/setup.py which is unrelated.
Edit the Dockerfile and `config/settings.yaml`; run it with `curl -d @body.json`.
```diff
--- a/lib/rubocop/cop/style/foo.rb
+++ b/lib/rubocop/cop/style/foo.rb
```
";
        let cues = extract(text);
        let paths = texts(&cues, CueKind::Path);
        for expected in [
            "src/app/routes.ts",
            "lib/core/engine.py",
            "pkg/cart/cart.go",
            "Dockerfile",
            "config/settings.yaml",
            "body.json",
            "lib/rubocop/cop/style/foo.rb",
        ] {
            assert!(paths.contains(&expected), "missing {expected} in {paths:?}");
        }
        assert!(!paths.iter().any(|p| p.contains("setup.py")), "{paths:?}");
        assert_eq!(
            find(&cues, CueKind::Path, "lib/core/engine.py")
                .unwrap()
                .weight,
            1.0
        );
        assert_eq!(
            find(&cues, CueKind::Path, "Dockerfile").unwrap().weight,
            0.9
        );
    }

    #[test]
    fn dotted_paths_skip_versions_domains_files_and_sentences() {
        let text = "Since django 4.2.1 the `django.db.models.Field` check fails (see example.com \
                    and docs.python.org). Use pkg.module:create_app, e.g. settings.py.\
                    It works.The other `com.acme.Foo` works; i.e. not v2.8.0-beta.";
        let cues = extract(text);
        let dotted = texts(&cues, CueKind::DottedPath);
        assert!(dotted.contains(&"django.db.models.Field"), "{dotted:?}");
        assert!(dotted.contains(&"com.acme.Foo"), "{dotted:?}");
        assert!(dotted.contains(&"pkg.module:create_app"), "{dotted:?}");
        for bad in [
            "example.com",
            "docs.python.org",
            "e.g",
            "i.e",
            "works.The",
            "settings.py",
        ] {
            assert!(!dotted.contains(&bad), "{bad} in {dotted:?}");
        }
        assert!(
            !dotted
                .iter()
                .any(|d| d.chars().next().unwrap().is_ascii_digit())
        );
        // Parts of a backticked qualified name are strong symbols.
        assert_eq!(
            find(&cues, CueKind::Symbol, "Field").unwrap().weight,
            weight::INLINE
        );
        assert!(has(&cues, CueKind::Path, "settings.py"));
        // Rust and PHP qualified names.
        let cues = extract(
            "Calling `tokio::runtime::Builder::enable_all` or `Psr\\Clock\\ClockInterface`.",
        );
        assert!(has(
            &cues,
            CueKind::DottedPath,
            "tokio::runtime::Builder::enable_all"
        ));
        assert!(has(
            &cues,
            CueKind::DottedPath,
            "Psr\\Clock\\ClockInterface"
        ));
        assert!(has(&cues, CueKind::Symbol, "ClockInterface"));
        assert!(has(&cues, CueKind::Symbol, "enable_all"));
    }

    #[test]
    fn a_capitalized_keyword_is_a_name() {
        let text = "Mod(x**2, x) is not 0 in Mod's eval logic
```
>>> Mod(x**2, x)
0
>>> match(x)
```
";
        let cues = extract(text);
        let w = |t: &str| find(&cues, CueKind::Symbol, t).map(|c| c.weight);
        assert_eq!(w("Mod"), Some(weight::CODE_IDENT));
        assert_eq!(w("match"), None);
        // A called member is a name even when it is spelled like a keyword.
        let cues = extract("Bug in method `->is()`: `$date->is('May')` and `pattern.match(x)`");
        assert!(has(&cues, CueKind::Symbol, "is"));
        assert!(has(&cues, CueKind::Symbol, "match"));
    }

    #[test]
    fn diagnostic_codes_are_symbols() {
        let cues = extract(
            "Error E108 does not cover some cases; pylint reports W0611 and tsc TS2322.\n\
             Version 3.0 and ISSUE1 are no codes, nor is L9 or ABCDE12345.",
        );
        let w = |t: &str| find(&cues, CueKind::Symbol, t).map(|c| c.weight);
        for code in ["E108", "W0611", "TS2322"] {
            assert_eq!(w(code), Some(weight::PROSE_CALL), "{code}");
        }
        for word in ["ISSUE1", "L9", "ABCDE12345", "Version"] {
            assert_eq!(w(word), None, "{word}");
        }
    }

    #[test]
    fn symbols_are_weighted_by_context_and_stop_words_are_dropped() {
        let text = "The `IntervalBuilder` returns a wrong docId; `replace` is not in place and \
                    list_display is ignored. True, None and self do not matter, nor does String.
```python
from django.template.defaultfilters import escape
class MyModel(models.Model):
    def save(self, *args):
        value = compute_total(self.items)
        print(None)
```
";
        let cues = extract(text);
        let w = |t: &str| find(&cues, CueKind::Symbol, t).map(|c| c.weight);
        assert_eq!(w("IntervalBuilder"), Some(weight::INLINE));
        assert_eq!(w("replace"), Some(weight::INLINE)); // a lone backticked identifier
        assert_eq!(w("docId"), Some(weight::PROSE_CAMEL));
        assert_eq!(w("list_display"), Some(weight::PROSE_SNAKE));
        assert_eq!(w("escape"), Some(weight::CODE_REFERENCE));
        assert_eq!(w("MyModel"), Some(weight::CODE_DECLARATION));
        assert_eq!(w("save"), Some(weight::CODE_DECLARATION));
        assert_eq!(w("compute_total"), Some(weight::CODE_IDENT));
        for stop in ["True", "None", "self", "String", "print", "value", "args"] {
            assert_eq!(w(stop), None, "{stop}");
        }
        assert!(has(
            &cues,
            CueKind::DottedPath,
            "django.template.defaultfilters"
        ));
        assert!(has(&cues, CueKind::DottedPath, "models.Model"));
        // An import line names a module, not a config key.
        assert!(!has(
            &cues,
            CueKind::ConfigKey,
            "django.template.defaultfilters"
        ));
    }

    #[test]
    fn config_keys_routes_flags_and_test_ids() {
        let text = "Setting spring.datasource.hikari.maximum-pool-size or ${server.port:8080} \
                    has no effect, and DEFAULT_AUTO_FIELD is ignored for GET /api/orders/{id} \
                    and /admin/polls/question/ (but not /usr/local/bin/python3).
Run `pytest tests/test_orders.py::TestCart::test_total[eur]` or `./gradlew test --tests \
FooTest.testBar` and see OrderServiceTest#cancel.
```sh
$ mytool build --no-cache -v -Dapp.mode=dev
```
";
        let cues = extract(text);
        for key in [
            "spring.datasource.hikari.maximum-pool-size",
            "server.port",
            "DEFAULT_AUTO_FIELD",
            "app.mode",
        ] {
            assert!(
                has(&cues, CueKind::ConfigKey, key),
                "{key}: {:?}",
                texts(&cues, CueKind::ConfigKey)
            );
        }
        let routes = texts(&cues, CueKind::Route);
        assert!(routes.contains(&"/api/orders/{id}"), "{routes:?}");
        assert!(routes.contains(&"/admin/polls/question/"), "{routes:?}");
        assert!(!routes.iter().any(|r| r.starts_with("/usr")), "{routes:?}");
        let flags = texts(&cues, CueKind::CliFlag);
        for flag in ["--no-cache", "--tests", "-v"] {
            assert!(flags.contains(&flag), "{flag}: {flags:?}");
        }
        let ids = texts(&cues, CueKind::TestId);
        for id in [
            "tests/test_orders.py::TestCart::test_total",
            "FooTest.testBar",
            "OrderServiceTest#cancel",
        ] {
            assert!(ids.contains(&id), "{id}: {ids:?}");
        }
        // A dash in prose is not a flag.
        let cues = extract("It fails - sometimes - when x is -1.");
        assert!(texts(&cues, CueKind::CliFlag).is_empty());
    }

    #[test]
    fn error_messages_keep_stable_fragments() {
        assert_eq!(
            message_fragments("'SessionStore' object has no attribute '_session_cache'"),
            vec!["object has no attribute".to_string()]
        );
        assert_eq!(
            message_fragments(
                "adapting config using caddyfile: wrong argument count or unexpected line \
                 ending after 'expression', at /path/to/config"
            ),
            vec![
                "wrong argument count or unexpected line ending after".to_string(),
                "adapting config using caddyfile".to_string(),
            ]
        );
        assert!(message_fragments("expected:<2139095030> but was:<-8388618>").is_empty());
        assert!(message_fragments("bad value").is_empty());
        let cues = extract("jq: error: syntax error, unexpected INVALID_CHARACTER at line 1");
        assert!(has(
            &cues,
            CueKind::ErrorMessage,
            "syntax error, unexpected INVALID_CHARACTER at line"
        ));
        // Warnings too, and the head of a message that ends with its value.
        let cues = extract("Since 3.3:\n\n`WARNING: no number is assigned for table:`\n");
        assert!(has(
            &cues,
            CueKind::ErrorMessage,
            "no number is assigned for"
        ));
    }

    #[test]
    fn duplicates_keep_the_strongest_and_output_is_sorted_and_deterministic() {
        let text = "OrderService fails. See `OrderService` and OrderService again.";
        let cues = extract(text);
        let hits: Vec<&Cue> = cues
            .iter()
            .filter(|c| c.text == "OrderService" && c.kind == CueKind::Symbol)
            .collect();
        assert_eq!(hits.len(), 1);
        assert_eq!(hits[0].weight, weight::INLINE);
        for pair in cues.windows(2) {
            assert!((pair[0].kind, &pair[0].text) < (pair[1].kind, &pair[1].text));
        }
        assert_eq!(extract(PYTHON_TASK), extract(PYTHON_TASK));
        for cue in extract(PYTHON_TASK) {
            assert!(cue.weight > 0.0 && cue.weight <= 1.0, "{cue:?}");
        }
    }

    #[test]
    fn odd_input_does_not_panic() {
        let huge_line = "x".repeat(200_000);
        let many = "`FooBar_baz` /a/b/c.py ValueError: bad thing happened here\n".repeat(5_000);
        let inputs = [
            String::new(),
            "   \n\n\t".to_string(),
            "`".to_string(),
            "``` unclosed fence\nfoo_bar()\n".to_string(),
            "unbalanced `backtick and ``double` and ```".to_string(),
            "ünïcödé `naïve_ß` Ошибка: что-то пошло не так совсем\n日本語のテキスト.py".to_string(),
            "File \"\", line 99999999999999999999, in \n  at (:1:1)\n#0 x.c:".to_string(),
            "<!-- unclosed comment\n<!-- a --> b".to_string(),
            "${}${a:b}${".to_string(),
            "a.b.c.d.e.f.g.h.i.j.k.l.m.n.o.p::q::r\\s#t:u".to_string(),
            huge_line,
            many,
        ];
        for input in &inputs {
            let cues = extract(input);
            assert!(cues.len() <= MAX_CUES);
            let _ = resolve(&cues, &FakeRepo::default());
        }
    }

    #[test]
    fn html_comments_are_ignored() {
        let cues =
            extract("<!-- Please describe the TemplateHelper issue -->\nReal text about FooBar.");
        assert!(!has(&cues, CueKind::Symbol, "TemplateHelper"));
        assert!(has(&cues, CueKind::Symbol, "FooBar"));
    }

    /// An in-memory repository: paths, definitions and file contents.
    #[derive(Default)]
    struct FakeRepo {
        files: Vec<&'static str>,
        defs: Vec<(&'static str, &'static str)>,
        contents: Vec<(&'static str, &'static str)>,
    }

    impl CueResolver for FakeRepo {
        fn files_matching_path(&self, path: &str) -> Vec<String> {
            let suffix = format!("/{path}");
            self.files
                .iter()
                .filter(|f| **f == path || f.ends_with(&suffix))
                .map(|f| f.to_string())
                .collect()
        }
        fn files_defining(&self, symbol: &str) -> Vec<String> {
            self.defs
                .iter()
                .filter(|(s, _)| *s == symbol)
                .map(|(_, f)| f.to_string())
                .collect()
        }
        fn files_mentioning(&self, text: &str) -> Vec<String> {
            self.contents
                .iter()
                .filter(|(_, c)| c.contains(text))
                .map(|(f, _)| f.to_string())
                .collect()
        }
    }

    fn repo() -> FakeRepo {
        let mut many: Vec<(&'static str, &'static str)> = Vec::new();
        for i in 0..40 {
            let file: &'static str = Box::leak(format!("pkg/m{i}.py").into_boxed_str());
            many.push(("get", file));
        }
        let mut defs = vec![
            ("FieldError", "django/core/exceptions.py"),
            ("resolve_expression", "django/db/models/expressions.py"),
            ("Field", "django/db/models/fields/__init__.py"),
            ("TestCart", "tests/test_orders.py"),
            (
                "OrderServiceTest",
                "src/test/java/com/acme/OrderServiceTest.java",
            ),
            ("Builder", "tokio/src/runtime/builder.rs"),
        ];
        defs.extend(many);
        FakeRepo {
            files: vec![
                "django/db/models/query.py",
                "django/db/models/expressions.py",
                "django/db/models/__init__.py",
                "django/db/models/fields/__init__.py",
                "django/core/exceptions.py",
                "django/utils/utils.py",
                "tests/test_orders.py",
                "src/main/java/com/acme/Foo.java",
                "src/test/java/com/acme/OrderServiceTest.java",
                "docs/settings.rst",
                "lib/unique_helper.rb",
            ],
            defs,
            contents: vec![
                ("django/conf/global_settings.py", "DEFAULT_AUTO_FIELD = 'x'"),
                (
                    "django/db/models/expressions.py",
                    "Cannot resolve keyword %r into field",
                ),
            ],
        }
    }

    #[test]
    fn resolve_maps_each_kind_and_drops_unresolved_and_vague_cues() {
        let repo = repo();
        let mut cues = extract(PYTHON_TASK);
        cues.push(Cue {
            kind: CueKind::Symbol,
            text: "get".into(),
            line: None,
            function: None,
            depth: 0,
            weight: 0.9,
        });
        let resolved = resolve(&cues, &repo);
        let files = |kind: CueKind, text: &str| {
            resolved
                .iter()
                .find(|r| r.cue.kind == kind && r.cue.text == text)
                .map(|r| r.files.clone())
        };
        assert_eq!(
            files(
                CueKind::StackFrame,
                "/usr/lib/python3.10/site-packages/django/db/models/expressions.py"
            ),
            Some(vec!["django/db/models/expressions.py".to_string()])
        );
        assert_eq!(
            files(CueKind::Exception, "FieldError"),
            Some(vec!["django/core/exceptions.py".to_string()])
        );
        assert_eq!(
            files(CueKind::ConfigKey, "DEFAULT_AUTO_FIELD"),
            Some(vec!["django/conf/global_settings.py".to_string()])
        );
        assert_eq!(
            files(CueKind::ErrorMessage, "Cannot resolve keyword"),
            Some(vec!["django/db/models/expressions.py".to_string()])
        );
        // `django.core.exceptions.FieldError` resolves as a module path.
        assert_eq!(
            files(CueKind::DottedPath, "django.core.exceptions.FieldError"),
            Some(vec!["django/core/exceptions.py".to_string()])
        );
        // 40 definitions: too vague to keep.
        assert_eq!(files(CueKind::Symbol, "get"), None);
        assert!(
            resolved
                .iter()
                .all(|r| !r.files.is_empty() && r.files.len() <= MAX_FILES_PER_CUE)
        );
        for pair in resolved.windows(2) {
            assert!((pair[0].cue.kind, &pair[0].cue.text) <= (pair[1].cue.kind, &pair[1].cue.text));
        }
    }

    #[test]
    fn resolve_dotted_paths_test_ids_and_path_suffixes() {
        let repo = repo();
        let cues = extract(
            "See `django.db.models`, `com.acme.Foo`, `django.db.models.Field.clean` and \
             `tokio::runtime::Builder`; run tests/test_orders.py::TestCart::test_total and \
             OrderServiceTest#cancel. Files: /opt/venv/lib/site-packages/other/utils.py, \
             C:\\work\\src\\unique_helper.rb",
        );
        let resolved = resolve(&cues, &repo);
        let files = |kind: CueKind, text: &str| {
            resolved
                .iter()
                .find(|r| r.cue.kind == kind && r.cue.text == text)
                .map(|r| r.files.clone())
        };
        assert_eq!(
            files(CueKind::DottedPath, "django.db.models"),
            Some(vec!["django/db/models/__init__.py".to_string()])
        );
        assert_eq!(
            files(CueKind::DottedPath, "com.acme.Foo"),
            Some(vec!["src/main/java/com/acme/Foo.java".to_string()])
        );
        assert_eq!(
            files(CueKind::DottedPath, "django.db.models.Field.clean"),
            Some(vec!["django/db/models/__init__.py".to_string()])
        );
        assert_eq!(
            files(CueKind::DottedPath, "tokio::runtime::Builder"),
            Some(vec!["tokio/src/runtime/builder.rs".to_string()])
        );
        assert_eq!(
            files(
                CueKind::TestId,
                "tests/test_orders.py::TestCart::test_total"
            ),
            Some(vec!["tests/test_orders.py".to_string()])
        );
        assert_eq!(
            files(CueKind::TestId, "OrderServiceTest#cancel"),
            Some(vec![
                "src/test/java/com/acme/OrderServiceTest.java".to_string()
            ])
        );
        // A library's utils.py does not land on the repository's own utils.py…
        assert_eq!(
            files(CueKind::Path, "/opt/venv/lib/site-packages/other/utils.py"),
            None
        );
        // …but a unique file name does, with a weaker weight.
        let helper = resolved
            .iter()
            .find(|r| r.cue.text == "C:/work/src/unique_helper.rb")
            .expect("unique helper");
        assert_eq!(helper.files, vec!["lib/unique_helper.rb".to_string()]);
        assert!(helper.cue.weight < 1.0);
    }

    #[test]
    fn resolve_renumbers_frames_from_the_innermost_repository_frame() {
        let repo = repo();
        let text = "Traceback (most recent call last):
  File \"/srv/app/django/db/models/query.py\", line 10, in get
  File \"/srv/app/django/db/models/expressions.py\", line 20, in resolve_expression
  File \"/usr/lib/python3.10/json/decoder.py\", line 30, in decode
  File \"/usr/lib/python3.10/json/scanner.py\", line 40, in scan
ValueError: Expecting value at the start of the document
";
        let cues = extract(text);
        assert_eq!(
            find(
                &cues,
                CueKind::StackFrame,
                "/srv/app/django/db/models/expressions.py"
            )
            .unwrap()
            .depth,
            2
        );
        let resolved = resolve(&cues, &repo);
        let frames: Vec<&ResolvedCue> = resolved
            .iter()
            .filter(|r| r.cue.kind == CueKind::StackFrame)
            .collect();
        assert_eq!(frames.len(), 2);
        let inner = frames.iter().find(|r| r.cue.depth == 0).unwrap();
        assert_eq!(
            inner.files,
            vec!["django/db/models/expressions.py".to_string()]
        );
        assert_eq!(inner.cue.weight, 1.0);
        let outer = frames.iter().find(|r| r.cue.depth == 1).unwrap();
        assert_eq!(outer.files, vec!["django/db/models/query.py".to_string()]);
        assert!(outer.cue.weight < 1.0);
    }
}
