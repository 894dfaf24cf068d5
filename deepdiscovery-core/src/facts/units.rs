//! The own lines of each definition of a file: what a definition is as a document
//! (`locate::definitions`, BM25 per definition) and as the embedder's text
//! (`semantic::texts`). A definition's own lines are its lines minus those of the
//! definitions nested in it, plus the contiguous lines right above it that read as its
//! doc comment or annotations.

use super::{DefKind, Facts, Span};

/// Definitions of one file beyond this many are not documents (a generated file).
pub(crate) const MAX_DEFINITIONS: usize = 500;
/// Lines of a file beyond this many are not read (spans past it are cut).
pub(crate) const MAX_LINES: usize = 50_000;
/// A definition's text is cut to this many bytes.
pub(crate) const MAX_DOCUMENT_BYTES: usize = 16 * 1024;
/// At most this many lines above a definition are its doc comment and decorators.
const MAX_LEADING_LINES: usize = 40;
/// Whether definitions of `kind` are documents: the ones with a body worth reading
/// (constants, fields and type aliases stay in the text of what encloses them).
fn is_document(kind: DefKind) -> bool {
    matches!(
        kind,
        DefKind::Class
            | DefKind::Interface
            | DefKind::Trait
            | DefKind::Struct
            | DefKind::Enum
            | DefKind::Function
            | DefKind::Method
            | DefKind::Macro
    )
}

/// Whether a line above a definition reads as its doc comment or an annotation (it
/// starts with a comment or annotation mark) rather than code of its own.
fn is_leading(line: &str) -> bool {
    let line = line.trim_start();
    ["#", "//", "/*", "*", "@", "[", "--", ";", "%", "<!--"]
        .iter()
        .any(|mark| line.starts_with(mark))
}

/// One definition's own text: what [`units`] gives per definition.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Unit {
    /// The definition's index in the file's facts.
    pub index: usize,
    /// Its lines, with its doc comment and decorators.
    pub span: Span,
    /// Its own lines (not those of the definitions nested in it) and the contiguous
    /// non-blank lines right above it, one `\n` after each, cut near
    /// [`MAX_DOCUMENT_BYTES`].
    pub text: String,
}

/// Each document definition of a file ([`is_document`]) with its own lines: the
/// definitions nested in it keep theirs, and the contiguous non-blank lines right above
/// it (doc comment, decorators, annotations) are its own. Ordered outer before inner,
/// by start. A function of the file's content (its text and the facts of it): the
/// definitions as BM25 documents ([`documents`]) and as the embedder's texts
/// (`semantic::texts`) are both read from it.
pub(crate) fn units(text: &str, facts: &Facts) -> Vec<Unit> {
    let lines: Vec<&str> = text.lines().take(MAX_LINES).collect();
    let n = lines.len() as u32;
    let mut defs: Vec<(usize, Span)> = facts
        .definitions
        .iter()
        .enumerate()
        .filter(|(_, d)| is_document(d.kind) && d.span.start >= 1 && d.span.start <= n)
        .map(|(k, d)| {
            let end = d.span.end.clamp(d.span.start, n);
            (
                k,
                Span {
                    start: d.span.start,
                    end,
                },
            )
        })
        .take(MAX_DEFINITIONS)
        .collect();
    if defs.is_empty() {
        return Vec::new();
    }
    // Outer before inner: by start, then the longer first.
    defs.sort_by(|a, b| {
        a.1.start
            .cmp(&b.1.start)
            .then(b.1.end.cmp(&a.1.end))
            .then(a.0.cmp(&b.0))
    });
    // The owner of each line: the innermost definition open there, by one sweep with
    // a stack of open definitions (no recursion, linear in lines + definitions).
    let mut owner: Vec<Option<u32>> = vec![None; lines.len() + 1];
    let mut parent: Vec<Option<u32>> = vec![None; defs.len()];
    let mut open: Vec<usize> = Vec::new();
    let mut next = 0;
    for line in 1..=n {
        while open.last().is_some_and(|&d| defs[d].1.end < line) {
            open.pop();
        }
        while next < defs.len() && defs[next].1.start == line {
            // A definition that ends past its encloser's end is not nested in it.
            while open
                .last()
                .is_some_and(|&d| defs[d].1.end < defs[next].1.end)
            {
                open.pop();
            }
            parent[next] = open.last().map(|&d| d as u32);
            open.push(next);
            next += 1;
        }
        owner[line as usize] = open.last().map(|&d| d as u32);
    }
    // The lines right above a definition (doc comment, decorators, annotations) are
    // its own when they are its encloser's (not a sibling's), below the encloser's
    // first line, and read as a comment or an annotation: a class's docstring right
    // above its first method stays the class's.
    let mut starts: Vec<u32> = defs.iter().map(|d| d.1.start).collect();
    for (d, (_, span)) in defs.iter().enumerate() {
        let mut line = span.start;
        while line > 1
            && span.start - (line - 1) <= MAX_LEADING_LINES as u32
            && owner[line as usize - 1] == parent[d]
            && parent[d].is_none_or(|p| defs[p as usize].1.start < line - 1)
            && is_leading(lines[line as usize - 2])
        {
            line -= 1;
            owner[line as usize] = Some(d as u32);
        }
        starts[d] = line;
    }
    let mut texts: Vec<String> = vec![String::new(); defs.len()];
    for line in 1..=n as usize {
        if let Some(d) = owner[line] {
            let t = &mut texts[d as usize];
            if t.len() < MAX_DOCUMENT_BYTES {
                t.push_str(lines[line - 1]);
                t.push('\n');
            }
        }
    }
    defs.iter()
        .zip(texts)
        .enumerate()
        .map(|(d, (&(index, span), text))| Unit {
            index,
            span: Span {
                start: starts[d],
                end: span.end,
            },
            text,
        })
        .collect()
}
