//! Token scanning: each line in its context (prose, inline code, a code block), the
//! most specific shapes first, then the remaining identifiers.

use super::*;

// ---------------------------------------------------------------------------------
// Token scanning
// ---------------------------------------------------------------------------------

/// Replaces byte ranges with spaces so that later, less specific patterns do not see
/// what an earlier one took.
pub(super) fn blank(text: &str, ranges: &[(usize, usize)]) -> String {
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

pub(super) fn inner_underscore(word: &str) -> bool {
    let core = word.trim_matches('_');
    core.contains('_') || (word.starts_with("__") && word.ends_with("__") && word.len() > 4)
}

/// `getValue`, `IntervalBuilder`, `URLField`: a lower→upper transition, or an acronym
/// followed by a capitalised word.
pub(super) fn is_camel(word: &str) -> bool {
    let b = word.as_bytes();
    let lower_upper = b
        .windows(2)
        .any(|w| w[0].is_ascii_lowercase() && w[1].is_ascii_uppercase());
    let acronym_word = b.windows(3).any(|w| {
        w[0].is_ascii_uppercase() && w[1].is_ascii_uppercase() && w[2].is_ascii_lowercase()
    });
    lower_upper || (acronym_word && word.len() >= 4)
}

pub(super) fn is_upper_snake(word: &str) -> bool {
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
pub(super) fn is_diagnostic_code(word: &str) -> bool {
    let letters = word.bytes().take_while(u8::is_ascii_uppercase).count();
    let digits = word.len() - letters;
    (1..=4).contains(&letters)
        && (3..=5).contains(&digits)
        && word.bytes().skip(letters).all(|b| b.is_ascii_digit())
}

pub(super) fn looks_like_code(word: &str, called: bool) -> bool {
    inner_underscore(word) || is_camel(word) || is_diagnostic_code(word) || called
}

/// Scans one piece of text (a prose line without its backtick spans, one span, or a
/// code line) for every token cue.
pub(super) fn scan_segment(text: &str, ctx: Context, out: &mut Collector) {
    if text.trim().is_empty() {
        return;
    }
    // Each pass takes its cues and blanks them out of the text the next pass reads.
    let text = urls(text, out);
    let text = test_ids_with_paths(&text, out);
    let text = file_paths(&text, out);
    let text = flags_and_placeholders(&text, ctx, out);
    let text = routes(&text, out);
    let text = test_ids_of_classes(&text, out);
    let text = dotted_keys(&text, out);
    let has_import = text.contains("import");
    let text = qualified_names(&text, ctx, has_import, out);
    identifiers(&text, ctx, has_import, out);
}

/// URLs: code-host file links still name a file; everything else is dropped (and so
/// are e-mail addresses).
fn urls(text: &str, out: &mut Collector) -> String {
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
    blank(text, &ranges)
}

/// Test ids with a file part (`tests/test_x.py::test_y`).
fn test_ids_with_paths(text: &str, out: &mut Collector) -> String {
    let mut ranges = Vec::new();
    for m in TEST_ID_PATH.find_iter(text) {
        let id = strip_params(m.as_str()).replace('\\', "/");
        out.add(CueKind::TestId, &id, weight::PATH);
        ranges.push((m.start(), m.end()));
    }
    blank(text, &ranges)
}

/// File paths (not calls like `response.json()`, not `self.x`).
fn file_paths(text: &str, out: &mut Collector) -> String {
    let start = text.trim_start();
    let diff_header =
        start.starts_with("--- ") || start.starts_with("+++ ") || start.starts_with("diff --git");
    let mut ranges = Vec::new();
    for m in PATH.find_iter(text) {
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
    blank(text, &ranges)
}

/// CLI flags, Java system properties and placeholders (short flags only on a
/// command line).
fn flags_and_placeholders(text: &str, ctx: Context, out: &mut Collector) -> String {
    let mut ranges = Vec::new();
    for c in LONG_FLAG.captures_iter(text) {
        if let Some(m) = c.get(1) {
            out.add(CueKind::CliFlag, m.as_str(), weight::LONG_FLAG);
            ranges.push((m.start(), c.get(0).map_or(m.end(), |a| a.end())));
        }
    }
    for c in SYSTEM_PROPERTY.captures_iter(text) {
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
        for c in SHORT_FLAG.captures_iter(text) {
            if let Some(m) = c.get(1) {
                out.add(CueKind::CliFlag, m.as_str(), weight::SHORT_FLAG);
            }
        }
    }
    for c in PLACEHOLDER.captures_iter(text) {
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
    blank(text, &ranges)
}

/// Routes (`GET /api/users/{id}`).
fn routes(text: &str, out: &mut Collector) -> String {
    let mut ranges = Vec::new();
    for c in ROUTE.captures_iter(text) {
        if let Some(m) = c.get(1) {
            if let Some(route) = route_text(m.as_str()) {
                out.add(CueKind::Route, &route, weight::ROUTE);
            }
            ranges.push((m.start(), m.end()));
        }
    }
    blank(text, &ranges)
}

/// Test ids without a file part (`FooTest#bar`, `TestFoo.testBar`).
fn test_ids_of_classes(text: &str, out: &mut Collector) -> String {
    let mut ranges = Vec::new();
    for m in TEST_ID_CLASS.find_iter(text) {
        out.add(CueKind::TestId, m.as_str(), weight::TEST_ID);
        ranges.push((m.start(), m.end()));
    }
    blank(text, &ranges)
}

/// Dotted keys with dashes (`server.max-http-header-size`): never code names.
fn dotted_keys(text: &str, out: &mut Collector) -> String {
    let mut ranges = Vec::new();
    for m in DOTTED_KEY.find_iter(text) {
        let key = m.as_str();
        if key.contains('-') && !text[m.end()..].starts_with(['.', '(']) {
            let tld = key.rsplit('.').next().is_some_and(|l| TLDS.contains(&l));
            if !tld {
                out.add(CueKind::ConfigKey, key, weight::CONFIG_KEY);
            }
            ranges.push((m.start(), m.end()));
        }
    }
    blank(text, &ranges)
}

/// Qualified names (`django.db.models.Q`, `Foo::bar`), read as modules, classes or
/// members.
fn qualified_names(text: &str, ctx: Context, has_import: bool, out: &mut Collector) -> String {
    let mut ranges = Vec::new();
    for m in QUALIFIED.find_iter(text) {
        let called = text[m.end()..].starts_with('(');
        scan_qualified(m.as_str(), ctx, called || has_import, out);
        ranges.push((m.start(), m.end()));
    }
    blank(text, &ranges)
}

/// The identifiers left: each with the word before it, whether it is called, and
/// whether the segment imports.
fn identifiers(text: &str, ctx: Context, has_import: bool, out: &mut Collector) {
    let mut previous: Option<(String, usize)> = None;
    let whole = matches!(ctx, Context::Inline { whole: true });
    for m in IDENT.find_iter(text) {
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
pub(super) fn strip_params(id: &str) -> String {
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
pub(super) const FS_ROOTS: &str = "
    usr home tmp etc var opt users bin lib lib64 dev proc mnt path some nix private
    root srv library applications volumes system sys rustc go workspace workspaces
    builds app code data media run snap sbin boot cygdrive
";

/// A route from a `/a/b` token, or `None` when it is a filesystem path, a file, or too
/// short to say anything.
pub(super) fn route_text(raw: &str) -> Option<String> {
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
pub(super) fn qualified_segments(name: &str) -> Vec<&str> {
    name.split(['.', '\\', '#', ':'])
        .filter(|s| !s.is_empty())
        .collect()
}

/// A qualified name (`a.b.C`, `a::b`, `A\B`, `Foo#bar`, `pkg.mod:attr`): emits the
/// dotted path, a config key for lower-case dotted keys, and its parts as symbols.
/// `called` says the name is code (a call, or on an import line), not a config key.
pub(super) fn scan_qualified(raw: &str, ctx: Context, called: bool, out: &mut Collector) {
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
pub(super) fn scan_identifier(
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
