//! Stack traces: frame lines of nine formats, grouped into traces with the innermost
//! frame at depth 0.

use super::*;

// ---------------------------------------------------------------------------------
// Stack traces
// ---------------------------------------------------------------------------------

/// Whether the innermost frame of a format is printed first or last.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(super) enum Order {
    InnermostFirst,
    InnermostLast,
}

#[derive(Debug, Clone)]
pub(super) struct Frame {
    pub(super) file: String,
    pub(super) line: Option<u32>,
    pub(super) function: Option<String>,
    pub(super) order: Order,
    pub(super) family: &'static str,
    /// The frame number printed by the format (`#3`), when it prints one.
    pub(super) index: Option<u32>,
}

/// Groups consecutive frames into traces and gives each frame its depth.
#[derive(Default)]
pub(super) struct TraceBuilder {
    frames: Vec<Frame>,
    last_line: usize,
}

/// A trace continues across at most this many non-frame lines (code lines, `^^^`
/// markers, Go function lines).
pub(super) const TRACE_GAP: usize = 4;

impl TraceBuilder {
    pub(super) fn push(&mut self, frame: Frame, line_index: usize, out: &mut Collector) {
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
    pub(super) fn continue_at(&mut self, line_index: usize) {
        if !self.frames.is_empty() {
            self.last_line = line_index;
        }
    }

    pub(super) fn flush(&mut self, out: &mut Collector) {
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
pub(super) fn normalize_frame_file(raw: &str) -> Option<String> {
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
pub(super) fn frame_function(raw: &str) -> Option<String> {
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
pub(super) fn jvm_frame_path(qualified: &str, file: &str) -> String {
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

pub(super) fn parse_u32(s: &str) -> Option<u32> {
    s.parse().ok()
}

/// Recognises a stack-frame line. `prev` is the line before (Go and Rust print the
/// function on its own line above the location); the returned flag says whether that
/// line was used.
pub(super) fn parse_frame(line: &str, prev: Option<&str>) -> Option<(Frame, bool)> {
    // The first layout that matches decides: a match whose file is no file gives no
    // frame.
    if let Some(found) = single_line_frame(line) {
        return found.map(|f| (f, false));
    }
    if let Some(found) = frame_with_function_above(line, prev) {
        return found;
    }
    let c = PYTEST_FRAME.captures(line)?;
    let function = c.get(3).and_then(|m| frame_function(m.as_str()));
    let f = make_frame(
        &c[1],
        parse_u32(&c[2]),
        function,
        Order::InnermostLast,
        "python",
    )?;
    Some((f, false))
}

/// A frame of a layout that names its file and function on one line (Python, C#,
/// JVM, a Rust panic, PHP, native, Ruby): `Some` when a layout matches, with no
/// frame when its file is no file.
fn single_line_frame(line: &str) -> Option<Option<Frame>> {
    if let Some(c) = PY_FRAME
        .captures(line)
        .or_else(|| IPYTHON_FRAME.captures(line))
    {
        let function = c.get(3).and_then(|m| frame_function(m.as_str()));
        let Some(f) = make_frame(
            &c[1],
            parse_u32(&c[2]),
            function,
            Order::InnermostLast,
            "python",
        ) else {
            return Some(None);
        };
        return Some(Some(f));
    }
    if let Some(c) = CSHARP_FRAME.captures(line) {
        let function = frame_function(&c[1]);
        let Some(f) = make_frame(
            &c[2],
            parse_u32(&c[3]),
            function,
            Order::InnermostFirst,
            "csharp",
        ) else {
            return Some(None);
        };
        return Some(Some(f));
    }
    if let Some(c) = JAVA_FRAME.captures(line) {
        let path = jvm_frame_path(&c[1], &c[2]);
        let function = frame_function(&c[1]);
        let Some(f) = make_frame(
            &path,
            parse_u32(&c[3]),
            function,
            Order::InnermostFirst,
            "jvm",
        ) else {
            return Some(None);
        };
        return Some(Some(f));
    }
    if let Some(c) = RUST_PANIC.captures(line) {
        let Some(f) = make_frame(&c[2], parse_u32(&c[3]), None, Order::InnermostFirst, "rust")
        else {
            return Some(None);
        };
        return Some(Some(f));
    }
    if let Some(c) = PHP_FRAME.captures(line) {
        let function = frame_function(&c[4]);
        let Some(mut f) = make_frame(
            &c[2],
            parse_u32(&c[3]),
            function,
            Order::InnermostFirst,
            "php",
        ) else {
            return Some(None);
        };
        f.index = parse_u32(&c[1]);
        return Some(Some(f));
    }
    if let Some(c) = NATIVE_FRAME.captures(line) {
        let function = frame_function(&c[2]);
        let Some(mut f) = make_frame(
            &c[3],
            parse_u32(&c[4]),
            function,
            Order::InnermostFirst,
            "native",
        ) else {
            return Some(None);
        };
        f.index = parse_u32(&c[1]);
        return Some(Some(f));
    }
    if let Some(c) = RUBY_FRAME.captures(line) {
        let function = frame_function(&c[3]);
        let Some(f) = make_frame(
            &c[1],
            parse_u32(&c[2]),
            function,
            Order::InnermostFirst,
            "ruby",
        ) else {
            return Some(None);
        };
        return Some(Some(f));
    }
    None
}

/// A frame of a layout that may name its function on the line above (JavaScript
/// and Rust backtraces, Go), with whether it did (`Some` when a layout matches).
fn frame_with_function_above(line: &str, prev: Option<&str>) -> Option<Option<(Frame, bool)>> {
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
        let Some(f) = make_frame(
            file,
            parse_u32(&c[3]),
            function,
            Order::InnermostFirst,
            family,
        ) else {
            return Some(None);
        };
        return Some(Some((f, used_prev)));
    }
    if let Some(c) = GO_FILE_LINE.captures(line) {
        let (function, used_prev) = match prev.and_then(|p| GO_FUNC_LINE.captures(p)) {
            Some(p) => (frame_function(&p[1]), true),
            None => (None, false),
        };
        let Some(f) = make_frame(
            &c[1],
            parse_u32(&c[2]),
            function,
            Order::InnermostFirst,
            "go",
        ) else {
            return Some(None);
        };
        return Some(Some((f, used_prev)));
    }
    None
}

/// A frame, when `file` is a file.
fn make_frame(
    file: &str,
    line: Option<u32>,
    function: Option<String>,
    order: Order,
    family: &'static str,
) -> Option<Frame> {
    normalize_frame_file(file).map(|file| Frame {
        file,
        line,
        function,
        order,
        family,
        index: None,
    })
}
