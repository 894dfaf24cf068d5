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
// Vocabulary
// ---------------------------------------------------------------------------------

/// Extensions of code, config, build and doc files that make a token a path.
const EXTENSIONS: &str = "py|pyi|pyx|ipynb|java|kt|kts|scala|sc|groovy|gradle|clj|cljs|js|jsx|mjs|cjs|ts|tsx|mts|cts|vue|svelte|go|rs|c|h|cc|cpp|cxx|hpp|hh|hxx|cu|m|mm|cs|csproj|fs|vb|swift|rb|erb|rake|gemspec|php|phtml|sh|bash|zsh|ps1|bat|cmd|sql|proto|graphql|gql|thrift|avsc|json|json5|jsonc|yaml|yml|toml|ini|cfg|conf|properties|xml|html|htm|css|scss|sass|less|md|mdx|rst|txt|lock|tf|hcl|lua|pl|pm|r|jl|ex|exs|erl|hrl|hs|ml|mli|dart|zig|nim|cmake|mk|twig|jinja|jinja2|j2|tpl|sbt|sln|cshtml|razor|xaml|pro|bzl|nix|dockerfile|s|asm";

/// File names without an extension (or with an ambiguous one) that are still paths.
const KNOWN_NAMES: &str = "Makefile|GNUmakefile|Dockerfile|Containerfile|Gemfile|Rakefile|Jenkinsfile|Vagrantfile|Procfile|Podfile|Brewfile|Justfile|CODEOWNERS|BUILD|WORKSPACE|go\\.mod|go\\.sum|go\\.work";

/// Dot files (only recognised with their leading dot).
const DOT_FILES: &str = "env|gitignore|gitattributes|dockerignore|editorconfig|babelrc|eslintrc|prettierrc|npmrc|nvmrc|flake8|pylintrc|coveragerc|clang-format|clang-tidy|rubocop\\.yml";

/// Last labels that make a lower-case dotted name a domain, not a module.
const TLDS: &[&str] = &[
    "com", "org", "net", "io", "dev", "edu", "gov", "co", "uk", "de", "fr", "jp", "cn", "ru",
    "info", "biz", "app", "ai", "me", "us", "ca", "au", "eu", "xyz", "ly", "gg", "tv", "cc", "nl",
    "se", "ch", "es", "pl", "br", "kr", "tw", "hk", "in", "it",
];

/// Keywords of the supported languages: never informative cues, but only as
/// written, in lower case. A capitalized `Mod`, `Match` or `Template` is a class a
/// task may be about (sympy's `Mod`), never a keyword.
const KEYWORDS_TEXT: &str = "
    abstract and as assert async await break case catch class const continue crate def
    default del delete do dyn elif else enum except export extends extern final
    finally fn for from func function global go if impl implements import in instanceof
    interface internal is lambda let loop match mod module move mut namespace new
    nonlocal not or override package pass private protected pub public raise readonly
    ref return sealed static struct switch throw throws trait try type
    typeof unsafe use var virtual void where while with yield end begin then
    elsif unless require require_once include echo defer chan select goto sizeof template
    typename using volatile register signed unsigned
";

/// Builtin names, constants and very common words that are never informative cues
/// in any case (compared in lower case). Two groups: builtin types, functions and
/// constants; product names and acronyms that look like code.
const STOP_WORDS_TEXT: &str = "
    false true none null nil undefined self super this cls
    string str int integer long short float double bool boolean char byte bytes object list
    dict map set tuple array vec option result some ok err box rc arc any number symbol
    bigint promise print println printf console log len range isinstance getattr setattr
    hasattr tostring equals hashcode main init __init__ __main__ __name__ __file__ __dict__
    __class__ usize isize u8 u16 u32 u64 i32 i64 f32 f64 uint int32 int64 float64 nullptr
    std args kwargs argv foo bar baz qux todo fixme etc e_g i_e
    github gitlab javascript typescript postgresql mysql sqlite macos ios ipados iphone
    ipad youtube linkedin powershell vscode intellij pycharm webstorm jetbrains nodejs
    openai chatgpt stackoverflow pypi npm devtools graphql mongodb mariadb dynamodb graalvm
    openjdk ubuntu debian fedora centos windows linux darwin wsl docker kubernetes eslint
    webpack pytest unittest junit testng mockito rspec phpunit jest mocha vitest cargo
    rustc gcc clang msvc xcode gradle maven readme changelog faq api apis url urls json xml
    html http https sql css utf8 ascii error exception warning throwable constructor puts
    test tests on off println! fmt sprintf
";

static KEYWORDS: LazyLock<BTreeSet<&'static str>> =
    LazyLock::new(|| KEYWORDS_TEXT.split_whitespace().collect());
static STOP_WORDS: LazyLock<BTreeSet<&'static str>> =
    LazyLock::new(|| STOP_WORDS_TEXT.split_whitespace().collect());

fn is_stop(word: &str) -> bool {
    KEYWORDS.contains(word) || is_builtin(word)
}

/// A builtin, constant or product name: never a cue, even as a called member (a
/// keyword is a name there: `$date->is()`, `re.match()`).
fn is_builtin(word: &str) -> bool {
    word.len() > 64 || STOP_WORDS.contains(word.to_ascii_lowercase().as_str())
}

/// Capitalised English words that end a sentence-joined "dotted path" (`works.The`).
const SENTENCE_STARTS: &[&str] = &[
    "the", "this", "that", "it", "i", "a", "an", "and", "but", "so", "we", "you", "if", "in", "on",
    "to", "is", "there", "when", "then", "also", "however", "thanks",
];

// ---------------------------------------------------------------------------------
// Regexes (compiled once)
// ---------------------------------------------------------------------------------

fn re(pattern: &str) -> Regex {
    // The patterns are constants; a failure is a programming error caught by the tests.
    Regex::new(pattern).expect("valid built-in regex")
}

static URL: LazyLock<Regex> =
    LazyLock::new(|| re(r#"(?:\b[A-Za-z][A-Za-z0-9+.-]*://|\bwww\.)[^\s<>"'`\])]+"#));
static URL_BLOB: LazyLock<Regex> =
    LazyLock::new(|| re(r"/(?:-/)?(?:blob|tree|raw|src/branch)/[^/]+/([^#?\s]+)(?:#L(\d+))?"));
static EMAIL: LazyLock<Regex> = LazyLock::new(|| re(r"\b[\w.+-]+@[\w-]+(?:\.[\w-]+)+\b"));
static PATH: LazyLock<Regex> = LazyLock::new(|| {
    re(&format!(
        r"(?:[A-Za-z]:)?[\\/~]?(?:[\w.@+-]+[\\/])*(?:[\w.@+-]*[\w-]\.(?:{EXTENSIONS})\b|(?:{KNOWN_NAMES})\b|\.(?:{DOT_FILES})\b)"
    ))
});
static TEST_ID_PATH: LazyLock<Regex> =
    LazyLock::new(|| re(r"(?:[\w.@+-]*[\\/])*[\w.@+-]+\.py::[\w:.\[\]-]*[\w\]]"));
static TEST_ID_CLASS: LazyLock<Regex> = LazyLock::new(|| {
    re(
        r"\b((?:[a-z_][\w]*\.)*(?:[A-Z]\w*(?:Test|Tests|TestCase|Spec|IT)|Test[A-Z]\w*))[#.]([a-z_]\w*)\b",
    )
});
static LONG_FLAG: LazyLock<Regex> =
    LazyLock::new(|| re(r#"(?:^|[\s`'"(\[])(--[A-Za-z0-9][\w-]*)(?:=\S*)?"#));
static SHORT_FLAG: LazyLock<Regex> = LazyLock::new(|| re(r"(?:^|\s)(-[A-Za-z])(?:\s|$)"));
static SYSTEM_PROPERTY: LazyLock<Regex> =
    LazyLock::new(|| re(r"(?:^|\s)-D([A-Za-z_][\w.-]*)(?:=\S*)?"));
static PLACEHOLDER: LazyLock<Regex> = LazyLock::new(|| re(r"\$\{([^}\s]{1,100})\}"));
static ROUTE: LazyLock<Regex> =
    LazyLock::new(|| re(r#"(?:^|[\s`'"(\[=])((?:/[\w.~%:{}<>*-]+)+/?)"#));
static DOTTED_KEY: LazyLock<Regex> = LazyLock::new(|| {
    re(r"\b[a-z][a-z0-9_]*(?:-[a-z0-9_]+)*(?:\.[a-z][a-z0-9_]*(?:-[a-z0-9_]+)*){1,}\b")
});
static QUALIFIED: LazyLock<Regex> =
    LazyLock::new(|| re(r"[A-Za-z_$][\w$]*(?:(?:\.|::|\\|#)[A-Za-z_][\w$]*)+(?::[A-Za-z_]\w*)?"));
static IDENT: LazyLock<Regex> = LazyLock::new(|| re(r"[A-Za-z_][A-Za-z0-9_]*"));
static EXCEPTION_NAME: LazyLock<Regex> =
    LazyLock::new(|| re(r"^[A-Z][A-Za-z0-9]*(?:Error|Exception|Fault|Panic)$"));

/// A line that names an exception, optionally followed by its message:
/// `ValueError: bad`, `java.lang.IllegalStateException: x`, `Caused by: …`.
static EXCEPTION_LINE: LazyLock<Regex> = LazyLock::new(|| {
    re(
        r#"^(?:\s|>|\||E\s)*(?:Exception in thread "[^"]*"\s+|Caused by:\s+|(?:PHP )?Fatal error:\s+Uncaught\s+|Uncaught\s+|Unhandled [Ee]xception\.?\s+|raise\s+|Error:\s+)?((?:[A-Za-z_][\w$]*(?:\.|\\|::))*[A-Za-z_][\w$]*)(?:\(.*?\))?(?::\s+(.*?))?\s*$"#,
    )
});
/// A generic error or warning line: `error: …`, `jq: error: …`, `panic: …`,
/// `FATAL: …`, `WARNING: …` (also quoted as inline code).
static ERROR_LINE: LazyLock<Regex> = LazyLock::new(|| {
    re(
        r"(?i)^[\s>|`]*(?:[\w.-]+:\s+)?(?:error|fatal|fatal error|panic|warning|warn)(?:\[[\w-]+\])?:\s+(.+)$",
    )
});

// Stack-frame formats.
static PY_FRAME: LazyLock<Regex> =
    LazyLock::new(|| re(r#"\bFile "([^"]+)", line (\d+)(?:, in ([^\s,]+))?"#));
/// Source lines a Python trace may echo under one frame (IPython prints a few lines
/// of context around the call).
const MAX_ECHO_LINES: usize = 12;
/// IPython and Jupyter print `File ~/src/pkg/mod.py:41, in Class.method(self, x)`.
static IPYTHON_FRAME: LazyLock<Regex> =
    LazyLock::new(|| re(r"^\s*File\s+([^\s\x22<>][^\x22<>]*?\.pyx?):(\d+), in ([\w.]+)"));
static PYTEST_FRAME: LazyLock<Regex> =
    LazyLock::new(|| re(r"^(?:\s|>|E\s)*([\w./\\-]+\.pyx?):(\d+):\s(?:in\s+(\w+))?"));
static JAVA_FRAME: LazyLock<Regex> = LazyLock::new(|| {
    re(r"\bat\s+(?:[\w.$@-]+/+)?([\w$.<>-]+)\(([\w$-]+\.(?:java|kt|kts|scala|groovy|clj)):(\d+)\)")
});
static CSHARP_FRAME: LazyLock<Regex> =
    LazyLock::new(|| re(r"\bat\s+([\w.$`<>\[\],+]+?)\s*\([^)]*\)\s+in\s+(.+?):line\s+(\d+)"));
static JS_FRAME: LazyLock<Regex> = LazyLock::new(|| {
    re(
        r"\bat\s+(?:async\s+)?(?:(\S.*?)\s+\()?((?:file://|webpack-internal:///|webpack:///)?[^\s()]+?\.(?:js|mjs|cjs|jsx|ts|tsx|mts|cts|vue|svelte|coffee|rs))(?:\?[^\s:()]*)?:(\d+)(?::\d+)?\)?",
    )
});
static GO_FILE_LINE: LazyLock<Regex> =
    LazyLock::new(|| re(r"^[\s>|]*((?:[A-Za-z]:)?[^\s:]+\.go):(\d+)(?:\s+\+0x[0-9a-fA-F]+)?\s*$"));
static GO_FUNC_LINE: LazyLock<Regex> =
    LazyLock::new(|| re(r"^[\s>|]*([\w./*()@%-]+)\((?:[^)]*)\)\s*$"));
static RUST_FUNC_LINE: LazyLock<Regex> =
    LazyLock::new(|| re(r"^\s*\d+:\s+(?:0x[0-9a-f]+ - )?(\S+)\s*$"));
static RUST_PANIC: LazyLock<Regex> =
    LazyLock::new(|| re(r"panicked at (?:'(.*?)',\s*)?([^\s:']+\.rs):(\d+)(?::\d+)?:?"));
static RUBY_FRAME: LazyLock<Regex> = LazyLock::new(|| {
    re(r"(?:^|\s)((?:[A-Za-z]:)?[^\s:]*\.(?:rb|rake|erb|ru)):(\d+):in\s+[`']([^'`]+)'")
});
static PHP_FRAME: LazyLock<Regex> = LazyLock::new(|| {
    re(r"^\s*#(\d+)\s+((?:[A-Za-z]:)?[^\s(]+\.(?:php|phtml|inc))\((\d+)\):\s*([^\s(]+)")
});
static NATIVE_FRAME: LazyLock<Regex> = LazyLock::new(|| {
    re(
        r"^\s*#(\d+)\s+(?:0x[0-9a-fA-F]+\s+in\s+)?([^\s(]+)\s*(?:\([^)]*\))?\s+(?:at\s+)?((?:[A-Za-z]:)?[^\s:()]+\.[A-Za-z0-9+]{1,6}):(\d+)",
    )
});
static TRACE_HEADER: LazyLock<Regex> = LazyLock::new(|| {
    re(
        r"Traceback \(most recent call last\)|^\s*Caused by:|During handling of the above exception|The above exception was the direct cause|Exception in thread|^\s*goroutine \d+ \[|panicked at|stack backtrace:|^\s*Stack trace:|^\s*Backtrace:",
    )
});

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

// ---------------------------------------------------------------------------------
// Stack traces
// ---------------------------------------------------------------------------------

/// Whether the innermost frame of a format is printed first or last.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Order {
    InnermostFirst,
    InnermostLast,
}

#[derive(Debug, Clone)]
struct Frame {
    file: String,
    line: Option<u32>,
    function: Option<String>,
    order: Order,
    family: &'static str,
    /// The frame number printed by the format (`#3`), when it prints one.
    index: Option<u32>,
}

/// Groups consecutive frames into traces and gives each frame its depth.
#[derive(Default)]
struct TraceBuilder {
    frames: Vec<Frame>,
    last_line: usize,
}

/// A trace continues across at most this many non-frame lines (code lines, `^^^`
/// markers, Go function lines).
const TRACE_GAP: usize = 4;

impl TraceBuilder {
    fn push(&mut self, frame: Frame, line_index: usize, out: &mut Collector) {
        let breaks = self.frames.last().is_some_and(|last| {
            let gap = line_index.saturating_sub(self.last_line) > TRACE_GAP;
            match (last.index, frame.index) {
                // Numbered frames continue while the numbers grow, whatever lies between
                // (frames of formats we do not parse); a smaller number starts a new stack.
                (Some(a), Some(b)) => last.family != frame.family || b <= a,
                _ => last.family != frame.family || gap,
            }
        });
        if breaks {
            self.flush(out);
        }
        self.frames.push(frame);
        self.last_line = line_index;
    }

    /// A line that belongs to the current trace without being a frame.
    fn continue_at(&mut self, line_index: usize) {
        if !self.frames.is_empty() {
            self.last_line = line_index;
        }
    }

    fn flush(&mut self, out: &mut Collector) {
        let n = self.frames.len();
        let numbered = self.frames.iter().all(|f| f.index.is_some());
        let first_index = self.frames.first().and_then(|f| f.index).unwrap_or(0);
        for (i, frame) in self.frames.drain(..).enumerate() {
            let depth = match (frame.order, frame.index) {
                (Order::InnermostFirst, Some(index)) if numbered => index - first_index,
                (Order::InnermostFirst, _) => i as u32,
                (Order::InnermostLast, _) => (n - 1 - i) as u32,
            };
            out.push(Cue {
                kind: CueKind::StackFrame,
                text: frame.file,
                line: frame.line,
                function: frame.function,
                depth,
                weight: frame_weight(depth),
            });
        }
    }
}

/// Cleans a file name from a trace: URL schemes of bundlers, `./`, query strings and
/// Windows separators. `None` for pseudo files (`<string>`, `node:internal/…`).
fn normalize_frame_file(raw: &str) -> Option<String> {
    let mut s = raw
        .trim()
        .trim_matches(|c| c == '"' || c == '\'' || c == '(' || c == ')');
    for prefix in ["file://", "webpack-internal:///", "webpack:///"] {
        if let Some(rest) = s.strip_prefix(prefix) {
            s = rest;
        }
    }
    if let Some(q) = s.find('?') {
        s = &s[..q];
    }
    if s.is_empty() || s.starts_with('<') || s.starts_with("node:") || s.contains("://") {
        return None;
    }
    let mut path = s.replace('\\', "/");
    while path.contains("//") {
        path = path.replace("//", "/");
    }
    let path = path.trim_start_matches("./").to_string();
    let name = path.rsplit('/').next().unwrap_or("");
    if !name.contains('.') || name.len() < 3 {
        return None;
    }
    Some(path)
}

/// The bare function name of a qualified frame function
/// (`lombok.javac.Foo$3.scan` → `scan`, `ns::Foo<T>::bar` → `bar`, `(*T).Run` → `Run`).
fn frame_function(raw: &str) -> Option<String> {
    let mut s = raw.trim();
    for prefix in ["async ", "new ", "block in ", "rescue in ", "ensure in "] {
        if let Some(rest) = s.strip_prefix(prefix) {
            s = rest;
        }
    }
    // Drop generic arguments and trailing hashes before splitting on separators.
    let mut cleaned = String::with_capacity(s.len());
    let mut angle = 0usize;
    for ch in s.chars() {
        match ch {
            '<' => angle += 1,
            '>' if angle > 0 => angle -= 1,
            _ if angle == 0 => cleaned.push(ch),
            _ => {}
        }
    }
    let mut cleaned = cleaned.trim_end_matches("()");
    // Closures name no function of their own: take the enclosing one.
    while let Some(outer) = cleaned.strip_suffix("::{{closure}}") {
        cleaned = outer;
    }
    let last = cleaned
        .rsplit(['.', ':', '#', '/', '\\', ' ', '>', '-'])
        .next()
        .filter(|seg| !seg.is_empty())?;
    let last = last.split('$').next().unwrap_or("");
    // Rust symbol hashes (`::h0123456789abcdef`) are not names.
    let hashed = last.len() == 17
        && last.starts_with('h')
        && last[1..].chars().all(|c| c.is_ascii_hexdigit());
    if hashed {
        let without = cleaned.strip_suffix(last)?.trim_end_matches(':');
        return frame_function(without);
    }
    let last = last.trim_matches(|c: char| !c.is_alphanumeric() && c != '_');
    let ok = !last.is_empty()
        && last
            .chars()
            .next()
            .is_some_and(|c| c.is_alphabetic() || c == '_')
        && last.chars().all(|c| c.is_alphanumeric() || c == '_');
    ok.then(|| last.to_string())
}

/// The repository path of a JVM frame: the package of the qualified method plus the
/// file name (`org.acme.geo.Point.equals` + `Point.java` → `org/acme/geo/Point.java`),
/// which resolves far better by suffix than the bare file name.
fn jvm_frame_path(qualified: &str, file: &str) -> String {
    let segments: Vec<&str> = qualified.split('.').filter(|s| !s.is_empty()).collect();
    let class_at = segments
        .iter()
        .position(|s| s.chars().next().is_some_and(|c| c.is_ascii_uppercase()));
    let package_len = class_at.unwrap_or(segments.len().saturating_sub(2));
    let package = &segments[..package_len.min(segments.len())];
    if package.is_empty() || package.iter().any(|s| s.contains(['<', '>', '$'])) {
        return file.to_string();
    }
    format!("{}/{}", package.join("/"), file)
}

fn parse_u32(s: &str) -> Option<u32> {
    s.parse().ok()
}

/// Recognises a stack-frame line. `prev` is the line before (Go and Rust print the
/// function on its own line above the location); the returned flag says whether that
/// line was used.
fn parse_frame(line: &str, prev: Option<&str>) -> Option<(Frame, bool)> {
    let frame = |file: &str, line_no: Option<u32>, function: Option<String>, order, family| {
        normalize_frame_file(file).map(|file| Frame {
            file,
            line: line_no,
            function,
            order,
            family,
            index: None,
        })
    };
    if let Some(c) = PY_FRAME
        .captures(line)
        .or_else(|| IPYTHON_FRAME.captures(line))
    {
        let function = c.get(3).and_then(|m| frame_function(m.as_str()));
        let f = frame(
            &c[1],
            parse_u32(&c[2]),
            function,
            Order::InnermostLast,
            "python",
        )?;
        return Some((f, false));
    }
    if let Some(c) = CSHARP_FRAME.captures(line) {
        let function = frame_function(&c[1]);
        let f = frame(
            &c[2],
            parse_u32(&c[3]),
            function,
            Order::InnermostFirst,
            "csharp",
        )?;
        return Some((f, false));
    }
    if let Some(c) = JAVA_FRAME.captures(line) {
        let path = jvm_frame_path(&c[1], &c[2]);
        let function = frame_function(&c[1]);
        let f = frame(
            &path,
            parse_u32(&c[3]),
            function,
            Order::InnermostFirst,
            "jvm",
        )?;
        return Some((f, false));
    }
    if let Some(c) = RUST_PANIC.captures(line) {
        let f = frame(&c[2], parse_u32(&c[3]), None, Order::InnermostFirst, "rust")?;
        return Some((f, false));
    }
    if let Some(c) = PHP_FRAME.captures(line) {
        let function = frame_function(&c[4]);
        let mut f = frame(
            &c[2],
            parse_u32(&c[3]),
            function,
            Order::InnermostFirst,
            "php",
        )?;
        f.index = parse_u32(&c[1]);
        return Some((f, false));
    }
    if let Some(c) = NATIVE_FRAME.captures(line) {
        let function = frame_function(&c[2]);
        let mut f = frame(
            &c[3],
            parse_u32(&c[4]),
            function,
            Order::InnermostFirst,
            "native",
        )?;
        f.index = parse_u32(&c[1]);
        return Some((f, false));
    }
    if let Some(c) = RUBY_FRAME.captures(line) {
        let function = frame_function(&c[3]);
        let f = frame(
            &c[1],
            parse_u32(&c[2]),
            function,
            Order::InnermostFirst,
            "ruby",
        )?;
        return Some((f, false));
    }
    if let Some(c) = JS_FRAME.captures(line) {
        let file = &c[2];
        let rust = file.ends_with(".rs");
        // Rust backtraces print `N: path::to::fn` above `at file:line:col`.
        let (function, used_prev) = match c.get(1) {
            Some(m) => (frame_function(m.as_str()), false),
            None if rust => match prev.and_then(|p| RUST_FUNC_LINE.captures(p)) {
                Some(p) => (frame_function(&p[1]), true),
                None => (None, false),
            },
            None => (None, false),
        };
        let family = if rust { "rust" } else { "js" };
        let f = frame(
            file,
            parse_u32(&c[3]),
            function,
            Order::InnermostFirst,
            family,
        )?;
        return Some((f, used_prev));
    }
    if let Some(c) = GO_FILE_LINE.captures(line) {
        let (function, used_prev) = match prev.and_then(|p| GO_FUNC_LINE.captures(p)) {
            Some(p) => (frame_function(&p[1]), true),
            None => (None, false),
        };
        let f = frame(
            &c[1],
            parse_u32(&c[2]),
            function,
            Order::InnermostFirst,
            "go",
        )?;
        return Some((f, used_prev));
    }
    if let Some(c) = PYTEST_FRAME.captures(line) {
        let function = c.get(3).and_then(|m| frame_function(m.as_str()));
        let f = frame(
            &c[1],
            parse_u32(&c[2]),
            function,
            Order::InnermostLast,
            "python",
        )?;
        return Some((f, false));
    }
    None
}

// ---------------------------------------------------------------------------------
// Messages and exceptions
// ---------------------------------------------------------------------------------

/// Whether a message word is a value that varies between runs (numbers, addresses,
/// ids, paths, assignments) rather than part of the fixed message.
fn is_variable_word(word: &str) -> bool {
    word.chars().any(|c| c.is_ascii_digit())
        || word.contains(['/', '\\', '=', '@', '#', '<', '>', '{', '}', '[', ']'])
}

/// The stable fragments of an error message: runs of at least three words between
/// quoted values, variable words and `: ` separators (chained errors), longest first,
/// at most three, each at most 16 words.
fn message_fragments(message: &str) -> Vec<String> {
    const SEP: char = '\u{1}';
    let mut masked = String::with_capacity(message.len());
    let mut quote: Option<char> = None;
    for ch in message.chars() {
        match quote {
            Some(q) if ch == q => {
                quote = None;
                masked.push(SEP);
            }
            Some(_) => {}
            None if matches!(ch, '\'' | '"' | '`' | '«' | '“' | '‘') => {
                let close = match ch {
                    '«' => '»',
                    '“' => '”',
                    '‘' => '’',
                    c => c,
                };
                quote = Some(close);
                masked.push(SEP);
            }
            // A parenthesised aside usually carries a value: `(reading 'map')`.
            None if matches!(ch, '(' | ')') => masked.push(SEP),
            None => masked.push(ch),
        }
    }
    let mut fragments: Vec<(usize, String)> = Vec::new();
    let mut order = 0usize;
    for part in masked
        .split(SEP)
        .flat_map(|p| p.split(": "))
        .flat_map(|p| p.split("; "))
    {
        let mut run: Vec<&str> = Vec::new();
        let words: Vec<&str> = part.split_whitespace().collect();
        for (i, word) in words.iter().enumerate() {
            let variable = is_variable_word(word);
            if !variable {
                run.push(word);
            }
            if variable || i + 1 == words.len() {
                let trimmed = trim_run(&run);
                if trimmed.len() >= 3 {
                    let text = trimmed[..trimmed.len().min(16)].join(" ");
                    fragments.push((order, text));
                    order += 1;
                }
                run.clear();
            }
        }
    }
    // Longest first; the earlier fragment wins a tie.
    fragments.sort_by(|a, b| {
        let wa = a.1.split(' ').count();
        let wb = b.1.split(' ').count();
        wb.cmp(&wa).then(a.0.cmp(&b.0))
    });
    let mut out: Vec<String> = Vec::new();
    for (_, text) in fragments {
        if !out.contains(&text) && out.len() < 3 {
            out.push(text);
        }
    }
    out
}

/// Trims punctuation-only words at both ends of a run and punctuation at its edges.
fn trim_run<'a>(run: &[&'a str]) -> Vec<&'a str> {
    let is_word = |w: &&str| w.chars().any(|c| c.is_alphanumeric());
    let start = run.iter().position(is_word).unwrap_or(run.len());
    let end = run.iter().rposition(is_word).map_or(start, |e| e + 1);
    let mut words: Vec<&str> = run[start..end.max(start)].to_vec();
    let edge = |c: char| matches!(c, '.' | ',' | ';' | ':' | '!' | '?' | '(' | ')' | '*');
    if let Some(first) = words.first_mut() {
        *first = first.trim_start_matches(edge);
    }
    if let Some(last) = words.last_mut() {
        *last = last.trim_end_matches(edge);
    }
    words.retain(|w| !w.is_empty());
    words
}

fn add_message(out: &mut Collector, message: &str, weight: f32) {
    for fragment in message_fragments(message) {
        out.add(CueKind::ErrorMessage, &fragment, weight);
        // A message often ends with the value it reports, written without quotes
        // (`no number is assigned for table` from `… for %s`): its head is a cue too.
        let words: Vec<&str> = fragment.split_whitespace().collect();
        if words.len() > MIN_HEAD_WORDS {
            let head = words[..words.len() - 1].join(" ");
            out.add(CueKind::ErrorMessage, &head, weight * HEAD_SHARE);
        }
    }
}

/// A message fragment's head (all but its last word) is a cue when it keeps this
/// many words.
const MIN_HEAD_WORDS: usize = 4;
/// The weight of that head, as a share of the whole fragment's.
const HEAD_SHARE: f32 = 0.9;

fn is_exception_name(name: &str) -> bool {
    EXCEPTION_NAME.is_match(name)
}

/// Exceptions and messages stated on a whole line. `after_trace` says the line closely
/// follows a stack frame, where a bare `Name: message` is the exception that ended
/// the trace.
fn scan_exception_line(line: &str, after_trace: bool, in_code: bool, out: &mut Collector) {
    if line.len() > 2000 {
        return;
    }
    if let Some(c) = EXCEPTION_LINE.captures(line) {
        let qualified = &c[1];
        let last = qualified
            .rsplit(['.', '\\', ':'])
            .next()
            .unwrap_or(qualified);
        let qualified_type = qualified.contains(['.', '\\'])
            && last
                .chars()
                .next()
                .is_some_and(|ch| ch.is_ascii_uppercase());
        let has_message = c.get(2).is_some();
        let camel = last
            .chars()
            .next()
            .is_some_and(|ch| ch.is_ascii_uppercase())
            && last.len() > 3
            && !is_stop(last);
        let accept = is_exception_name(last)
            || (qualified_type && (has_message || after_trace))
            || (after_trace && camel && has_message);
        if accept && !is_stop(last) {
            let w = if after_trace || in_code {
                weight::TRACE_EXCEPTION
            } else {
                weight::EXCEPTION
            };
            out.add(CueKind::Exception, last, w);
            if let Some(m) = c.get(2) {
                let w = if after_trace || in_code {
                    weight::TRACE_MESSAGE
                } else {
                    weight::PROSE_MESSAGE
                };
                add_message(out, m.as_str(), w);
            }
            return;
        }
    }
    if let Some(c) = ERROR_LINE.captures(line) {
        let w = if after_trace || in_code {
            weight::TRACE_MESSAGE
        } else {
            weight::PROSE_MESSAGE
        };
        add_message(out, &c[1], w);
    }
}

// ---------------------------------------------------------------------------------
// Token scanning
// ---------------------------------------------------------------------------------

/// Replaces byte ranges with spaces so that later, less specific patterns do not see
/// what an earlier one took.
fn blank(text: &str, ranges: &[(usize, usize)]) -> String {
    if ranges.is_empty() {
        return text.to_string();
    }
    let mut out = String::with_capacity(text.len());
    let mut at = 0;
    for &(start, end) in ranges {
        if start < at || end > text.len() {
            continue;
        }
        out.push_str(&text[at..start]);
        out.push(' ');
        at = end;
    }
    out.push_str(&text[at..]);
    out
}

fn inner_underscore(word: &str) -> bool {
    let core = word.trim_matches('_');
    core.contains('_') || (word.starts_with("__") && word.ends_with("__") && word.len() > 4)
}

/// `getValue`, `IntervalBuilder`, `URLField`: a lower→upper transition, or an acronym
/// followed by a capitalised word.
fn is_camel(word: &str) -> bool {
    let b = word.as_bytes();
    let lower_upper = b
        .windows(2)
        .any(|w| w[0].is_ascii_lowercase() && w[1].is_ascii_uppercase());
    let acronym_word = b.windows(3).any(|w| {
        w[0].is_ascii_uppercase() && w[1].is_ascii_uppercase() && w[2].is_ascii_lowercase()
    });
    lower_upper || (acronym_word && word.len() >= 4)
}

fn is_upper_snake(word: &str) -> bool {
    word.contains('_')
        && word
            .chars()
            .all(|c| c.is_ascii_uppercase() || c.is_ascii_digit() || c == '_')
        && word
            .split('_')
            .filter(|p| p.chars().filter(|c| c.is_ascii_uppercase()).count() >= 2)
            .count()
            >= 2
}

/// `E108`, `W0611`, `TS2322`, `SC2086`: the id of a check, lint or compiler
/// diagnostic (one to four capitals, then three to five digits). The code that emits
/// it writes it too, so it names that code as an identifier does.
fn is_diagnostic_code(word: &str) -> bool {
    let letters = word.bytes().take_while(u8::is_ascii_uppercase).count();
    let digits = word.len() - letters;
    (1..=4).contains(&letters)
        && (3..=5).contains(&digits)
        && word.bytes().skip(letters).all(|b| b.is_ascii_digit())
}

fn looks_like_code(word: &str, called: bool) -> bool {
    inner_underscore(word) || is_camel(word) || is_diagnostic_code(word) || called
}

/// Scans one piece of text (a prose line without its backtick spans, one span, or a
/// code line) for every token cue.
fn scan_segment(text: &str, ctx: Context, out: &mut Collector) {
    if text.trim().is_empty() {
        return;
    }
    // URLs: code-host file links still name a file; everything else is dropped.
    let mut ranges = Vec::new();
    for m in URL.find_iter(text) {
        if let Some(c) = URL_BLOB.captures(m.as_str()) {
            let path = c[1].trim_end_matches(['.', ',', ')']);
            if PATH.find(path).is_some_and(|p| p.end() == path.len()) {
                out.add(CueKind::Path, path, weight::URL_PATH);
            }
        }
        ranges.push((m.start(), m.end()));
    }
    for m in EMAIL.find_iter(text) {
        ranges.push((m.start(), m.end()));
    }
    ranges.sort_unstable();
    let text = blank(text, &ranges);

    // Test ids with a file part.
    let mut ranges = Vec::new();
    for m in TEST_ID_PATH.find_iter(&text) {
        let id = strip_params(m.as_str()).replace('\\', "/");
        out.add(CueKind::TestId, &id, weight::PATH);
        ranges.push((m.start(), m.end()));
    }
    let text = blank(&text, &ranges);

    // File paths.
    let start = text.trim_start();
    let diff_header =
        start.starts_with("--- ") || start.starts_with("+++ ") || start.starts_with("diff --git");
    let mut ranges = Vec::new();
    for m in PATH.find_iter(&text) {
        let after = text[m.end()..].chars().next();
        if after == Some('(') {
            // `response.json()` is a call, not a file.
            continue;
        }
        let raw = m.as_str();
        let path = raw.replace('\\', "/");
        // `curl -d @body.json`: the `@` is the tool's, not the file's.
        let path = match path.strip_prefix('@') {
            Some(rest) if !rest.contains('/') => rest.to_string(),
            _ => path,
        };
        let head = path.split(['.', '/']).next().unwrap_or("");
        if matches!(head, "self" | "this" | "cls" | "super" | "obj" | "$this") {
            continue;
        }
        // `--- a/x.rb` / `+++ b/x.rb` in a diff: `a/` and `b/` are not directories.
        let path = match (diff_header, path.get(..2)) {
            (true, Some("a/" | "b/")) => path[2..].to_string(),
            _ => path,
        };
        let has_dir = path.trim_start_matches(['/', '~']).contains('/');
        let w = if has_dir {
            weight::PATH
        } else {
            weight::FILE_NAME
        };
        out.add(CueKind::Path, &path, w);
        ranges.push((m.start(), m.end()));
    }
    let text = blank(&text, &ranges);

    // CLI flags, Java system properties and placeholders.
    let mut ranges = Vec::new();
    for c in LONG_FLAG.captures_iter(&text) {
        if let Some(m) = c.get(1) {
            out.add(CueKind::CliFlag, m.as_str(), weight::LONG_FLAG);
            ranges.push((m.start(), c.get(0).map_or(m.end(), |a| a.end())));
        }
    }
    for c in SYSTEM_PROPERTY.captures_iter(&text) {
        if let (Some(all), Some(key)) = (c.get(0), c.get(1)) {
            out.add(CueKind::ConfigKey, key.as_str(), weight::CONFIG_KEY);
            ranges.push((all.start(), all.end()));
        }
    }
    let trimmed = text.trim_start();
    let command_line = matches!(ctx, Context::Code { shell: true })
        || trimmed.starts_with("$ ")
        || trimmed.starts_with("% ")
        || trimmed.starts_with("> ")
        || !ranges.is_empty();
    if command_line {
        for c in SHORT_FLAG.captures_iter(&text) {
            if let Some(m) = c.get(1) {
                out.add(CueKind::CliFlag, m.as_str(), weight::SHORT_FLAG);
            }
        }
    }
    for c in PLACEHOLDER.captures_iter(&text) {
        if let (Some(all), Some(inner)) = (c.get(0), c.get(1)) {
            // `${a.b:default}` names the key `a.b`; `${this.x}` is a template expression.
            let key = inner.as_str().split(':').next().unwrap_or("");
            let plain = key.starts_with(|c: char| c.is_ascii_alphabetic() || c == '_')
                && key
                    .chars()
                    .all(|c| c.is_alphanumeric() || matches!(c, '_' | '.' | '-'))
                && !key.starts_with("this.")
                && !key.starts_with("self.");
            if plain {
                out.add(CueKind::ConfigKey, key, weight::CONFIG_KEY);
            }
            ranges.push((all.start(), all.end()));
        }
    }
    ranges.sort_unstable();
    let text = blank(&text, &ranges);

    // Routes.
    let mut ranges = Vec::new();
    for c in ROUTE.captures_iter(&text) {
        if let Some(m) = c.get(1) {
            if let Some(route) = route_text(m.as_str()) {
                out.add(CueKind::Route, &route, weight::ROUTE);
            }
            ranges.push((m.start(), m.end()));
        }
    }
    let text = blank(&text, &ranges);

    // Test ids without a file part (`FooTest#bar`, `TestFoo.testBar`).
    let mut ranges = Vec::new();
    for m in TEST_ID_CLASS.find_iter(&text) {
        out.add(CueKind::TestId, m.as_str(), weight::TEST_ID);
        ranges.push((m.start(), m.end()));
    }
    let text = blank(&text, &ranges);

    // Dotted keys with dashes (`server.max-http-header-size`): never code names.
    let mut ranges = Vec::new();
    for m in DOTTED_KEY.find_iter(&text) {
        let key = m.as_str();
        if key.contains('-') && !text[m.end()..].starts_with(['.', '(']) {
            let tld = key.rsplit('.').next().is_some_and(|l| TLDS.contains(&l));
            if !tld {
                out.add(CueKind::ConfigKey, key, weight::CONFIG_KEY);
            }
            ranges.push((m.start(), m.end()));
        }
    }
    let text = blank(&text, &ranges);

    // Qualified names.
    let has_import = text.contains("import");
    let mut ranges = Vec::new();
    for m in QUALIFIED.find_iter(&text) {
        let called = text[m.end()..].starts_with('(');
        scan_qualified(m.as_str(), ctx, called || has_import, out);
        ranges.push((m.start(), m.end()));
    }
    let text = blank(&text, &ranges);

    // Remaining identifiers.
    let mut previous: Option<(String, usize)> = None;
    let whole = matches!(ctx, Context::Inline { whole: true });
    for m in IDENT.find_iter(&text) {
        let word = m.as_str();
        let before = previous
            .take()
            .filter(|(_, end)| text[*end..m.start()].trim().is_empty())
            .map(|(w, _)| w);
        previous = Some((word.to_string(), m.end()));
        let boundary_ok = text[..m.start()]
            .chars()
            .next_back()
            .is_none_or(|c| !c.is_alphanumeric());
        let called = text[m.end()..].starts_with('(');
        let member = called && text[..m.start()].ends_with("->");
        let stop = if member {
            is_builtin(word)
        } else {
            is_stop(word)
        };
        if !boundary_ok || word.len() < 2 || stop {
            continue;
        }
        scan_identifier(word, ctx, called, before.as_deref(), whole, has_import, out);
    }
}

/// Drops pytest parameter ids (`test_x[1-a]` → `test_x`).
fn strip_params(id: &str) -> String {
    let mut out = String::with_capacity(id.len());
    let mut depth = 0usize;
    for ch in id.chars() {
        match ch {
            '[' => depth += 1,
            ']' => depth = depth.saturating_sub(1),
            _ if depth == 0 => out.push(ch),
            _ => {}
        }
    }
    out
}

/// Roots of paths on a reporter's machine; a "route" under them is a filesystem path.
const FS_ROOTS: &str = "
    usr home tmp etc var opt users bin lib lib64 dev proc mnt path some nix private
    root srv library applications volumes system sys rustc go workspace workspaces
    builds app code data media run snap sbin boot cygdrive
";

/// A route from a `/a/b` token, or `None` when it is a filesystem path, a file, or too
/// short to say anything.
fn route_text(raw: &str) -> Option<String> {
    let route = raw.trim_end_matches(['.', ',', ':', ';']);
    let segments: Vec<&str> = route.split('/').filter(|s| !s.is_empty()).collect();
    let first = segments.first()?;
    let first = first.to_ascii_lowercase();
    if FS_ROOTS.split_whitespace().any(|r| r == first) {
        return None;
    }
    let last = segments.last()?;
    if PATH
        .find(last)
        .is_some_and(|m| m.start() == 0 && m.end() == last.len())
    {
        return None;
    }
    let has_param = route.contains(['{', '<', ':', '*']);
    let informative = segments.len() >= 2 || route.ends_with('/') || has_param;
    let wordy = segments.iter().all(|s| {
        s.chars()
            .any(|c| c.is_alphabetic() || matches!(c, '{' | '<' | ':' | '*'))
    });
    (informative && wordy && route.len() >= 3).then(|| route.to_string())
}

/// Splits a qualified name on any of its separators.
fn qualified_segments(name: &str) -> Vec<&str> {
    name.split(['.', '\\', '#', ':'])
        .filter(|s| !s.is_empty())
        .collect()
}

/// A qualified name (`a.b.C`, `a::b`, `A\B`, `Foo#bar`, `pkg.mod:attr`): emits the
/// dotted path, a config key for lower-case dotted keys, and its parts as symbols.
/// `called` says the name is code (a call, or on an import line), not a config key.
fn scan_qualified(raw: &str, ctx: Context, called: bool, out: &mut Collector) {
    let name = raw.trim_start_matches('$');
    let mut segments = qualified_segments(name);
    // A receiver says nothing about where the code lives.
    while segments.len() > 1 && matches!(segments[0], "self" | "this" | "cls" | "super" | "crate") {
        segments.remove(0);
    }
    let dots_only = !name.contains(['\\', '#']) && !name.contains("::");
    if dots_only {
        if segments.iter().all(|s| s.len() <= 1) {
            return; // e.g, i.e
        }
        let lower = segments
            .iter()
            .all(|s| s.chars().all(|c| !c.is_ascii_uppercase()));
        let last_lower = segments
            .last()
            .map(|s| s.to_ascii_lowercase())
            .unwrap_or_default();
        if lower && (TLDS.contains(&last_lower.as_str()) || segments[0] == "www") {
            return; // a domain name
        }
        if segments.len() == 2
            && segments[1]
                .chars()
                .next()
                .is_some_and(|c| c.is_ascii_uppercase())
            && SENTENCE_STARTS.contains(&last_lower.as_str())
        {
            return; // two sentences without a space
        }
    }
    let inline = matches!(ctx, Context::Inline { .. });
    if segments.len() >= 2 {
        let text = if name.starts_with("self.") || name.starts_with("this.") {
            segments.join(".")
        } else {
            name.to_string()
        };
        let w = if inline {
            weight::INLINE
        } else {
            weight::DOTTED
        };
        out.add(CueKind::DottedPath, &text, w);
        // `spring.datasource.url`; not `obj.attr.call(…)` nor `_private.chains`.
        let key_like = segments.iter().all(|s| {
            !s.starts_with('_')
                && s.chars()
                    .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '_' || c == '-')
        });
        if dots_only && segments.len() >= 3 && key_like && !called {
            out.add(CueKind::ConfigKey, &text, weight::LOWER_DOTTED_KEY);
        }
    }
    let part_weight = if inline { weight::INLINE } else { weight::PART };
    let n = segments.len();
    for (i, seg) in segments.iter().enumerate() {
        let last = i + 1 == n;
        let stop = if last && called && i > 0 {
            is_builtin(seg)
        } else {
            is_stop(seg)
        };
        if seg.len() < 2 || stop {
            continue;
        }
        if is_exception_name(seg) {
            out.add(CueKind::Exception, seg, weight::EXCEPTION.max(part_weight));
        } else if is_upper_snake(seg) || looks_like_code(seg, last && called) || last {
            out.add(CueKind::Symbol, seg, part_weight);
        } else if i + 2 == n && seg.chars().next().is_some_and(|c| c.is_ascii_uppercase()) {
            // The type in `Type.member`.
            out.add(CueKind::Symbol, seg, part_weight);
        }
    }
}

/// A single identifier, weighed by where it was found.
fn scan_identifier(
    word: &str,
    ctx: Context,
    called: bool,
    keyword_before: Option<&str>,
    whole_span: bool,
    has_import: bool,
    out: &mut Collector,
) {
    if is_exception_name(word) {
        let w = match ctx {
            Context::Inline { .. } => weight::INLINE,
            _ => weight::EXCEPTION,
        };
        out.add(CueKind::Exception, word, w);
        return;
    }
    if is_upper_snake(word) {
        let w = match ctx {
            Context::Inline { .. } => weight::INLINE,
            Context::Code { .. } => weight::CODE_DECLARATION,
            Context::Prose => weight::CONFIG_KEY,
        };
        out.add(CueKind::ConfigKey, word, w);
        out.add(CueKind::Symbol, word, w - 0.1);
        return;
    }
    let code_like = looks_like_code(word, called);
    let w = match ctx {
        Context::Inline { .. } => {
            // The reporter marked a lone identifier as code: trust it even in lower case.
            (code_like || whole_span).then_some(weight::INLINE)
        }
        Context::Code { .. } => {
            // Code blocks also hold program output in English ("from scratch"), so a
            // keyword counts only when what follows it has the shape of a name.
            let capital = word.starts_with(|c: char| c.is_ascii_uppercase());
            let named = code_like || capital;
            let keyword = keyword_before.map(str::to_ascii_lowercase);
            match keyword.as_deref() {
                Some("import" | "extends" | "implements" | "use") => Some(weight::CODE_REFERENCE),
                Some("from") if has_import => Some(weight::CODE_REFERENCE),
                Some("new") if capital => Some(weight::CODE_REFERENCE),
                Some(
                    "def" | "class" | "function" | "func" | "fn" | "struct" | "interface" | "trait"
                    | "enum" | "type",
                ) if named => Some(weight::CODE_DECLARATION),
                _ => code_like.then_some(weight::CODE_IDENT),
            }
        }
        Context::Prose => {
            if word.len() < 3 {
                None
            } else if inner_underscore(word) {
                Some(weight::PROSE_SNAKE)
            } else if called {
                Some(weight::PROSE_CALL)
            } else if is_camel(word) {
                Some(weight::PROSE_CAMEL)
            } else if is_diagnostic_code(word) {
                Some(weight::PROSE_CALL)
            } else {
                None
            }
        }
    };
    if let Some(w) = w {
        out.add(CueKind::Symbol, word, w);
    }
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

// ---------------------------------------------------------------------------------
// Resolution
// ---------------------------------------------------------------------------------

fn sorted_unique(mut files: Vec<String>) -> Vec<String> {
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
fn match_path(resolver: &dyn CueResolver, path: &str) -> (Vec<String>, bool) {
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
const INSTALL_DIRS: &str = "
    site-packages dist-packages node_modules vendor gems registry pkg mod rustc .cargo
    .m2 .gradle jdk lib64 python3 Frameworks Pods bower_components third_party external
";

/// File forms a module path can take, per ecosystem.
const MODULE_FILE_FORMS: &[&str] = &[
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

fn non_empty_small(files: Vec<String>) -> Option<Vec<String>> {
    let files = sorted_unique(files);
    (!files.is_empty() && files.len() <= MAX_FILES_PER_CUE).then_some(files)
}

/// A dotted path: first as a module file (longest prefix first), then as a definition
/// of its last segment, then of the type segment before it (`Type.member`).
fn resolve_dotted(resolver: &dyn CueResolver, text: &str) -> Vec<String> {
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
fn resolve_test_id(resolver: &dyn CueResolver, text: &str) -> Vec<String> {
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
