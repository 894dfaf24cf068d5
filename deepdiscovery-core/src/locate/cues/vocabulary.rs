//! The words and shapes cues are told by: extensions and file names that make a
//! token a path, keywords and stop words, and the regexes (compiled once).

use super::*;

// ---------------------------------------------------------------------------------
// Vocabulary
// ---------------------------------------------------------------------------------

/// Extensions of code, config, build and doc files that make a token a path.
pub(super) const EXTENSIONS: &str = "py|pyi|pyx|ipynb|java|kt|kts|scala|sc|groovy|gradle|clj|cljs|js|jsx|mjs|cjs|ts|tsx|mts|cts|vue|svelte|go|rs|c|h|cc|cpp|cxx|hpp|hh|hxx|cu|m|mm|cs|csproj|fs|vb|swift|rb|erb|rake|gemspec|php|phtml|sh|bash|zsh|ps1|bat|cmd|sql|proto|graphql|gql|thrift|avsc|json|json5|jsonc|yaml|yml|toml|ini|cfg|conf|properties|xml|html|htm|css|scss|sass|less|md|mdx|rst|txt|lock|tf|hcl|lua|pl|pm|r|jl|ex|exs|erl|hrl|hs|ml|mli|dart|zig|nim|cmake|mk|twig|jinja|jinja2|j2|tpl|sbt|sln|cshtml|razor|xaml|pro|bzl|nix|dockerfile|s|asm";

/// File names without an extension (or with an ambiguous one) that are still paths.
pub(super) const KNOWN_NAMES: &str = "Makefile|GNUmakefile|Dockerfile|Containerfile|Gemfile|Rakefile|Jenkinsfile|Vagrantfile|Procfile|Podfile|Brewfile|Justfile|CODEOWNERS|BUILD|WORKSPACE|go\\.mod|go\\.sum|go\\.work";

/// Dot files (only recognised with their leading dot).
pub(super) const DOT_FILES: &str = "env|gitignore|gitattributes|dockerignore|editorconfig|babelrc|eslintrc|prettierrc|npmrc|nvmrc|flake8|pylintrc|coveragerc|clang-format|clang-tidy|rubocop\\.yml";

/// Last labels that make a lower-case dotted name a domain, not a module.
pub(super) const TLDS: &[&str] = &[
    "com", "org", "net", "io", "dev", "edu", "gov", "co", "uk", "de", "fr", "jp", "cn", "ru",
    "info", "biz", "app", "ai", "me", "us", "ca", "au", "eu", "xyz", "ly", "gg", "tv", "cc", "nl",
    "se", "ch", "es", "pl", "br", "kr", "tw", "hk", "in", "it",
];

/// Keywords of the supported languages: never informative cues, but only as
/// written, in lower case. A capitalized `Mod`, `Match` or `Template` is a class a
/// task may be about (sympy's `Mod`), never a keyword.
pub(super) const KEYWORDS_TEXT: &str = "
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
pub(super) const STOP_WORDS_TEXT: &str = "
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

pub(super) static KEYWORDS: LazyLock<BTreeSet<&'static str>> =
    LazyLock::new(|| KEYWORDS_TEXT.split_whitespace().collect());
pub(super) static STOP_WORDS: LazyLock<BTreeSet<&'static str>> =
    LazyLock::new(|| STOP_WORDS_TEXT.split_whitespace().collect());

pub(super) fn is_stop(word: &str) -> bool {
    KEYWORDS.contains(word) || is_builtin(word)
}

/// A builtin, constant or product name: never a cue, even as a called member (a
/// keyword is a name there: `$date->is()`, `re.match()`).
pub(super) fn is_builtin(word: &str) -> bool {
    word.len() > 64 || STOP_WORDS.contains(word.to_ascii_lowercase().as_str())
}

/// Capitalised English words that end a sentence-joined "dotted path" (`works.The`).
pub(super) const SENTENCE_STARTS: &[&str] = &[
    "the", "this", "that", "it", "i", "a", "an", "and", "but", "so", "we", "you", "if", "in", "on",
    "to", "is", "there", "when", "then", "also", "however", "thanks",
];

// ---------------------------------------------------------------------------------
// Regexes (compiled once)
// ---------------------------------------------------------------------------------

pub(super) fn re(pattern: &str) -> Regex {
    // The patterns are constants; a failure is a programming error caught by the tests.
    Regex::new(pattern).expect("valid built-in regex")
}

pub(super) static URL: LazyLock<Regex> =
    LazyLock::new(|| re(r#"(?:\b[A-Za-z][A-Za-z0-9+.-]*://|\bwww\.)[^\s<>"'`\])]+"#));
pub(super) static URL_BLOB: LazyLock<Regex> =
    LazyLock::new(|| re(r"/(?:-/)?(?:blob|tree|raw|src/branch)/[^/]+/([^#?\s]+)(?:#L(\d+))?"));
pub(super) static EMAIL: LazyLock<Regex> =
    LazyLock::new(|| re(r"\b[\w.+-]+@[\w-]+(?:\.[\w-]+)+\b"));
pub(super) static PATH: LazyLock<Regex> = LazyLock::new(|| {
    re(&format!(
        r"(?:[A-Za-z]:)?[\\/~]?(?:[\w.@+-]+[\\/])*(?:[\w.@+-]*[\w-]\.(?:{EXTENSIONS})\b|(?:{KNOWN_NAMES})\b|\.(?:{DOT_FILES})\b)"
    ))
});
pub(super) static TEST_ID_PATH: LazyLock<Regex> =
    LazyLock::new(|| re(r"(?:[\w.@+-]*[\\/])*[\w.@+-]+\.py::[\w:.\[\]-]*[\w\]]"));
pub(super) static TEST_ID_CLASS: LazyLock<Regex> = LazyLock::new(|| {
    re(
        r"\b((?:[a-z_][\w]*\.)*(?:[A-Z]\w*(?:Test|Tests|TestCase|Spec|IT)|Test[A-Z]\w*))[#.]([a-z_]\w*)\b",
    )
});
pub(super) static LONG_FLAG: LazyLock<Regex> =
    LazyLock::new(|| re(r#"(?:^|[\s`'"(\[])(--[A-Za-z0-9][\w-]*)(?:=\S*)?"#));
pub(super) static SHORT_FLAG: LazyLock<Regex> =
    LazyLock::new(|| re(r"(?:^|\s)(-[A-Za-z])(?:\s|$)"));
pub(super) static SYSTEM_PROPERTY: LazyLock<Regex> =
    LazyLock::new(|| re(r"(?:^|\s)-D([A-Za-z_][\w.-]*)(?:=\S*)?"));
pub(super) static PLACEHOLDER: LazyLock<Regex> = LazyLock::new(|| re(r"\$\{([^}\s]{1,100})\}"));
pub(super) static ROUTE: LazyLock<Regex> =
    LazyLock::new(|| re(r#"(?:^|[\s`'"(\[=])((?:/[\w.~%:{}<>*-]+)+/?)"#));
pub(super) static DOTTED_KEY: LazyLock<Regex> = LazyLock::new(|| {
    re(r"\b[a-z][a-z0-9_]*(?:-[a-z0-9_]+)*(?:\.[a-z][a-z0-9_]*(?:-[a-z0-9_]+)*){1,}\b")
});
pub(super) static QUALIFIED: LazyLock<Regex> =
    LazyLock::new(|| re(r"[A-Za-z_$][\w$]*(?:(?:\.|::|\\|#)[A-Za-z_][\w$]*)+(?::[A-Za-z_]\w*)?"));
pub(super) static IDENT: LazyLock<Regex> = LazyLock::new(|| re(r"[A-Za-z_][A-Za-z0-9_]*"));
pub(super) static EXCEPTION_NAME: LazyLock<Regex> =
    LazyLock::new(|| re(r"^[A-Z][A-Za-z0-9]*(?:Error|Exception|Fault|Panic)$"));

/// A line that names an exception, optionally followed by its message:
/// `ValueError: bad`, `java.lang.IllegalStateException: x`, `Caused by: …`.
pub(super) static EXCEPTION_LINE: LazyLock<Regex> = LazyLock::new(|| {
    re(
        r#"^(?:\s|>|\||E\s)*(?:Exception in thread "[^"]*"\s+|Caused by:\s+|(?:PHP )?Fatal error:\s+Uncaught\s+|Uncaught\s+|Unhandled [Ee]xception\.?\s+|raise\s+|Error:\s+)?((?:[A-Za-z_][\w$]*(?:\.|\\|::))*[A-Za-z_][\w$]*)(?:\(.*?\))?(?::\s+(.*?))?\s*$"#,
    )
});
/// A generic error or warning line: `error: …`, `jq: error: …`, `panic: …`,
/// `FATAL: …`, `WARNING: …` (also quoted as inline code).
pub(super) static ERROR_LINE: LazyLock<Regex> = LazyLock::new(|| {
    re(
        r"(?i)^[\s>|`]*(?:[\w.-]+:\s+)?(?:error|fatal|fatal error|panic|warning|warn)(?:\[[\w-]+\])?:\s+(.+)$",
    )
});

// Stack-frame formats.
pub(super) static PY_FRAME: LazyLock<Regex> =
    LazyLock::new(|| re(r#"\bFile "([^"]+)", line (\d+)(?:, in ([^\s,]+))?"#));
/// Source lines a Python trace may echo under one frame (IPython prints a few lines
/// of context around the call).
pub(super) const MAX_ECHO_LINES: usize = 12;
/// IPython and Jupyter print `File ~/src/pkg/mod.py:41, in Class.method(self, x)`.
pub(super) static IPYTHON_FRAME: LazyLock<Regex> =
    LazyLock::new(|| re(r"^\s*File\s+([^\s\x22<>][^\x22<>]*?\.pyx?):(\d+), in ([\w.]+)"));
pub(super) static PYTEST_FRAME: LazyLock<Regex> =
    LazyLock::new(|| re(r"^(?:\s|>|E\s)*([\w./\\-]+\.pyx?):(\d+):\s(?:in\s+(\w+))?"));
pub(super) static JAVA_FRAME: LazyLock<Regex> = LazyLock::new(|| {
    re(r"\bat\s+(?:[\w.$@-]+/+)?([\w$.<>-]+)\(([\w$-]+\.(?:java|kt|kts|scala|groovy|clj)):(\d+)\)")
});
pub(super) static CSHARP_FRAME: LazyLock<Regex> =
    LazyLock::new(|| re(r"\bat\s+([\w.$`<>\[\],+]+?)\s*\([^)]*\)\s+in\s+(.+?):line\s+(\d+)"));
pub(super) static JS_FRAME: LazyLock<Regex> = LazyLock::new(|| {
    re(
        r"\bat\s+(?:async\s+)?(?:(\S.*?)\s+\()?((?:file://|webpack-internal:///|webpack:///)?[^\s()]+?\.(?:js|mjs|cjs|jsx|ts|tsx|mts|cts|vue|svelte|coffee|rs))(?:\?[^\s:()]*)?:(\d+)(?::\d+)?\)?",
    )
});
pub(super) static GO_FILE_LINE: LazyLock<Regex> =
    LazyLock::new(|| re(r"^[\s>|]*((?:[A-Za-z]:)?[^\s:]+\.go):(\d+)(?:\s+\+0x[0-9a-fA-F]+)?\s*$"));
pub(super) static GO_FUNC_LINE: LazyLock<Regex> =
    LazyLock::new(|| re(r"^[\s>|]*([\w./*()@%-]+)\((?:[^)]*)\)\s*$"));
pub(super) static RUST_FUNC_LINE: LazyLock<Regex> =
    LazyLock::new(|| re(r"^\s*\d+:\s+(?:0x[0-9a-f]+ - )?(\S+)\s*$"));
pub(super) static RUST_PANIC: LazyLock<Regex> =
    LazyLock::new(|| re(r"panicked at (?:'(.*?)',\s*)?([^\s:']+\.rs):(\d+)(?::\d+)?:?"));
pub(super) static RUBY_FRAME: LazyLock<Regex> = LazyLock::new(|| {
    re(r"(?:^|\s)((?:[A-Za-z]:)?[^\s:]*\.(?:rb|rake|erb|ru)):(\d+):in\s+[`']([^'`]+)'")
});
pub(super) static PHP_FRAME: LazyLock<Regex> = LazyLock::new(|| {
    re(r"^\s*#(\d+)\s+((?:[A-Za-z]:)?[^\s(]+\.(?:php|phtml|inc))\((\d+)\):\s*([^\s(]+)")
});
pub(super) static NATIVE_FRAME: LazyLock<Regex> = LazyLock::new(|| {
    re(
        r"^\s*#(\d+)\s+(?:0x[0-9a-fA-F]+\s+in\s+)?([^\s(]+)\s*(?:\([^)]*\))?\s+(?:at\s+)?((?:[A-Za-z]:)?[^\s:()]+\.[A-Za-z0-9+]{1,6}):(\d+)",
    )
});
pub(super) static TRACE_HEADER: LazyLock<Regex> = LazyLock::new(|| {
    re(
        r"Traceback \(most recent call last\)|^\s*Caused by:|During handling of the above exception|The above exception was the direct cause|Exception in thread|^\s*goroutine \d+ \[|panicked at|stack backtrace:|^\s*Stack trace:|^\s*Backtrace:",
    )
});
