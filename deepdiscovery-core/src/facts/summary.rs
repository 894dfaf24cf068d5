//! What a file is, in one paragraph: its summary, and where that came from.
//!
//! In this order:
//! 1. the file's own header: a module docstring, or the comment block before its
//!    first line of code (a leading `//!`, `/** … */` or `#` block, Go's `// Package
//!    x …`; inside a C include guard too);
//! 2. else the doc comment of the file's main definition: the class, struct,
//!    interface, trait, module or function named like the file, else the largest
//!    public one (a Python docstring, or the comment block right above it, past
//!    attributes and decorators: Javadoc, KDoc, JSDoc, `///`, Go and Ruby comments,
//!    PHP docblocks);
//! 3. else none.
//!
//! A comment above a constant or a statement in the middle of a file is never a
//! summary: it describes that line, not the file. Licence headers, shebangs,
//! encoding lines, `@author` lines and generated-code banners are skipped.
//!
//! The definitions are the ones the language's query captured (`@definition.*`), so
//! every language the facts parse is covered by the same code.

use std::collections::HashSet;

use tree_sitter::Node;

use super::code::{last_segment, node_text, truncate};
use super::{DefKind, Definition, DocSource};
use crate::artifact::Language;

/// Top-level nodes looked at for the header, and nodes visited to find where
/// definitions start: bounds on a hostile file's cost.
const MAX_TOP_LEVEL: usize = 200;
const MAX_VISITED: usize = 4_000;
/// Containers descended into (namespaces, modules, exports, include guards).
const MAX_DEPTH: usize = 4;
/// Comment nodes (lines, for line comments) of a doc comment at most.
const MAX_DOC_LINES: usize = 2_000;

/// The summary of a file and where it came from; `stem` is its file name.
pub(super) fn summary(
    language: Language,
    root: Node,
    bytes: &[u8],
    file_name: &str,
    definitions: &[Definition],
) -> Option<(String, DocSource)> {
    if let Some(text) = header(language, root, bytes) {
        return Some((text, DocSource::Header));
    }
    let lines = root.end_position().row as u32 + 1;
    let main = main_definition(language, file_name, definitions, lines)?;
    let node = node_starting_at(root, main.span.start.checked_sub(1)? as usize)?;
    let text = definition_doc(language, node, bytes)?;
    Some((text, DocSource::Definition(main.name.clone())))
}

/// Whether a node is a comment.
fn is_comment(node: Node) -> bool {
    node.kind().contains("comment")
}

/// Nodes before the first code that are not code either: PHP's `<?php`, text
/// outside it.
fn is_preamble(node: Node) -> bool {
    matches!(node.kind(), "php_tag" | "text" | "shebang")
}

/// The header: a module docstring, or the first comment block before the first
/// line of code that is not a licence, a banner or a directive. Imports, includes,
/// package and `use` lines are not code here, but a comment among them counts only
/// when it stands apart (a blank line before what follows it): a comment attached
/// to the next line is about that line, and one at the end of a line is about it.
fn header(language: Language, root: Node, bytes: &[u8]) -> Option<String> {
    let mut cursor = root.walk();
    let top: Vec<Node> = root
        .named_children(&mut cursor)
        .take(MAX_TOP_LEVEL)
        .collect();
    if language == Language::Python {
        let first = top.iter().find(|n| !is_comment(**n))?;
        if let Some(doc) = python_docstring_statement(*first, bytes) {
            return Some(doc);
        }
    }
    let nodes = without_include_guard(top);
    let mut blocks: Vec<String> = Vec::new();
    let mut block = String::new();
    let mut last_row: Option<usize> = None;
    let mut after_imports = false;
    // The last row of the last line of code: a comment that starts on it is about
    // that line (`import x  # why`), never a header.
    let mut code_row: Option<usize> = None;
    for node in nodes {
        if is_preamble(node) {
            continue;
        }
        if is_comment(node) {
            let row = node.start_position().row;
            if code_row == Some(row) {
                continue;
            }
            if last_row.is_some_and(|r| row > r + 1) && !block.is_empty() {
                blocks.push(std::mem::take(&mut block));
            }
            block.push_str(node_text(node, bytes));
            block.push('\n');
            last_row = Some(node.end_position().row);
            continue;
        }
        let apart = last_row.is_some_and(|r| node.start_position().row > r + 1);
        if !block.is_empty() && (!after_imports || apart) {
            blocks.push(std::mem::take(&mut block));
        }
        block.clear();
        last_row = None;
        code_row = Some(node.end_position().row);
        if !is_import(node) {
            break;
        }
        after_imports = true;
    }
    if !block.is_empty() {
        blocks.push(block);
    }
    blocks
        .iter()
        .filter(|b| is_summary_text(b))
        .find_map(|b| first_paragraph(b))
}

/// Lines that bring names in or set the file up, not code of its own.
fn is_import(node: Node) -> bool {
    let kind = node.kind();
    kind.contains("import")
        || kind.starts_with("preproc")
        || matches!(
            kind,
            "package_clause"
                | "package_declaration"
                | "package_header"
                | "use_declaration"
                | "extern_crate_declaration"
                | "inner_attribute_item"
                | "using_directive"
                | "namespace_use_declaration"
                | "future_import_statement"
        )
        || (kind == "namespace_definition" && node.child_by_field_name("body").is_none())
}

/// The top-level nodes with an include guard (`#ifndef X_H` / `#define X_H` around
/// the whole file) opened: its contents are the file's.
fn without_include_guard(top: Vec<Node>) -> Vec<Node> {
    let code: Vec<&Node> = top.iter().filter(|n| !is_comment(**n)).collect();
    let guard = match code.as_slice() {
        [only] if matches!(only.kind(), "preproc_ifdef" | "preproc_if") => **only,
        _ => return top,
    };
    let mut cursor = guard.walk();
    let inner: Vec<Node> = guard
        .named_children(&mut cursor)
        .skip(1)
        .take(MAX_TOP_LEVEL)
        .collect();
    if inner
        .iter()
        .find(|n| !is_comment(**n))
        .is_none_or(|n| n.kind() != "preproc_def")
    {
        return top;
    }
    let mut out: Vec<Node> = top.iter().filter(|n| is_comment(**n)).copied().collect();
    out.retain(|n| n.start_position().row < guard.start_position().row);
    out.extend(inner.into_iter().filter(|n| n.kind() != "preproc_def"));
    out
}

/// Kinds of definition that can say what a file is.
fn is_main_kind(kind: DefKind) -> bool {
    matches!(
        kind,
        DefKind::Class
            | DefKind::Interface
            | DefKind::Trait
            | DefKind::Struct
            | DefKind::Enum
            | DefKind::Module
            | DefKind::Function
    )
}

/// Whether a definition is visible outside its file, as far as its name and
/// signature line tell.
fn is_public(language: Language, def: &Definition) -> bool {
    let signature = def.signature.trim_start();
    match language {
        Language::Python => !def.name.starts_with('_'),
        Language::Go => def.name.starts_with(|c: char| c.is_uppercase()),
        Language::Rust => signature.starts_with("pub"),
        Language::C | Language::Cpp => !signature.starts_with("static"),
        _ => !signature
            .split_whitespace()
            .any(|w| w == "private" || w == "internal"),
    }
}

/// A name compared with a file name: lower case, without `_`, `-` and `.`.
fn normalized(name: &str) -> String {
    name.chars()
        .filter(|c| !matches!(c, '_' | '-' | '.'))
        .flat_map(char::to_lowercase)
        .collect()
}

/// The file's main definition: the one named like the file (a type before a
/// function, the first one), else the largest public one when it dominates: it
/// spans at least half of the file's `lines`, or twice as many lines as any other
/// candidate, public or not (in a file of several classes or functions of a size, the
/// largest is one part of it, and its doc would describe that part only).
fn main_definition<'d>(
    language: Language,
    file_name: &str,
    definitions: &'d [Definition],
    lines: u32,
) -> Option<&'d Definition> {
    let stem = file_name.split('.').next().unwrap_or(file_name);
    let stem = normalized(stem);
    let candidates = definitions.iter().filter(|d| is_main_kind(d.kind));
    let named = candidates
        .clone()
        .filter(|d| !stem.is_empty() && normalized(&d.name) == stem)
        .min_by_key(|d| (d.kind == DefKind::Function, d.span.start));
    if named.is_some() {
        return named;
    }
    let size = |d: &Definition| d.span.end.saturating_sub(d.span.start) + 1;
    // Nested in another definition: a part of the file, not the file.
    let enclosing: HashSet<&str> = candidates.clone().map(|d| d.name.as_str()).collect();
    let outer: Vec<&Definition> = candidates
        .filter(|d| {
            d.qualified
                .as_deref()
                .is_none_or(|q| !is_nested(q, &d.name, &enclosing))
        })
        .collect();
    let largest = outer
        .iter()
        .copied()
        .filter(|d| is_public(language, d))
        .max_by_key(|d| (size(d), std::cmp::Reverse(d.span.start)))?;
    let runner_up = outer
        .iter()
        .filter(|d| !std::ptr::eq(**d, largest))
        .map(|d| size(d))
        .max()
        .unwrap_or(0);
    (2 * size(largest) >= lines || size(largest) >= 2 * runner_up).then_some(largest)
}

/// Whether the qualified name `q` of `name` has an enclosing definition of this
/// file (its parent is one of the names of `enclosing`, not only a package prefix).
fn is_nested(q: &str, name: &str, enclosing: &HashSet<&str>) -> bool {
    let Some(prefix) = q.strip_suffix(name) else {
        return false;
    };
    let parent = last_segment(prefix.trim_end_matches(['.', ':', '\\', '/']));
    !parent.is_empty() && enclosing.contains(parent)
}

/// The outermost node that starts on `row` (0-based), in a bounded walk of the
/// tree's upper levels.
fn node_starting_at(root: Node, row: usize) -> Option<Node> {
    let mut level: Vec<Node> = vec![root];
    let mut visited = 0usize;
    for _ in 0..=MAX_DEPTH + 2 {
        let mut next: Vec<Node> = Vec::new();
        for node in level {
            let mut cursor = node.walk();
            for child in node.named_children(&mut cursor) {
                visited += 1;
                if visited > MAX_VISITED {
                    return None;
                }
                if is_comment(child) {
                    continue;
                }
                let (start, end) = (child.start_position().row, child.end_position().row);
                if start == row {
                    return Some(child);
                }
                if start < row && row <= end {
                    next.push(child);
                }
            }
        }
        if next.is_empty() {
            return None;
        }
        level = next;
    }
    None
}

/// Kinds of node that may stand between a doc comment and what it documents.
fn is_attachment(node: Node) -> bool {
    matches!(
        node.kind(),
        "attribute_item"
            | "attribute"
            | "attribute_list"
            | "decorator"
            | "annotation"
            | "marker_annotation"
    )
}

/// The doc comment of the definition at `node`: a Python docstring, else the
/// comment block right above it (past attributes and decorators).
fn definition_doc(language: Language, node: Node, bytes: &[u8]) -> Option<String> {
    if language == Language::Python {
        let def = if node.kind() == "decorated_definition" {
            node.child_by_field_name("definition")?
        } else {
            node
        };
        let body = def.child_by_field_name("body")?;
        let mut cursor = body.walk();
        let first = body.named_children(&mut cursor).find(|n| !is_comment(*n))?;
        return python_docstring_statement(first, bytes);
    }
    let mut comments: Vec<Node> = Vec::new();
    let mut below = node.start_position().row;
    let mut sibling = node.prev_named_sibling();
    while let Some(s) = sibling {
        if s.end_position().row + 1 < below {
            break;
        }
        if is_comment(s) {
            comments.push(s);
        } else if !is_attachment(s) {
            break;
        }
        below = s.start_position().row;
        sibling = s.prev_named_sibling();
        if comments.len() >= MAX_DOC_LINES {
            // Longer than any doc comment: its start is not the doc's start.
            return None;
        }
    }
    let mut text = String::new();
    for comment in comments.iter().rev() {
        let comment = node_text(*comment, bytes);
        if is_doc_comment(language, comment) {
            text.push_str(comment);
            text.push('\n');
        }
    }
    // A long doc may mention a licence or a generator further down: only its
    // first paragraph is judged.
    first_paragraph(&text).filter(|p| is_summary_text(p))
}

/// Whether a comment is documentation in its language's convention: Javadoc, KDoc,
/// JSDoc and PHP docblocks are `/** … */`, C# and Rust doc comments `///` (or
/// `/** … */`); Go, Ruby, C and C++ document with any comment.
fn is_doc_comment(language: Language, comment: &str) -> bool {
    let doc_block = comment.starts_with("/**") && !comment.starts_with("/***");
    let doc_lines = comment.starts_with("///") && !comment.starts_with("////");
    match language {
        Language::Java
        | Language::Kotlin
        | Language::JavaScript
        | Language::TypeScript
        | Language::Tsx
        | Language::Php => doc_block,
        Language::CSharp | Language::Rust => doc_block || doc_lines,
        _ => true,
    }
}

/// The docstring of a Python statement that is a bare string.
fn python_docstring_statement(statement: Node, bytes: &[u8]) -> Option<String> {
    if statement.kind() != "expression_statement" {
        return None;
    }
    let string = statement.named_child(0)?;
    if string.kind() != "string" {
        return None;
    }
    first_paragraph(node_text(string, bytes))
}

/// Whether a comment block may summarize: not a licence, nor a generated-code
/// banner.
fn is_summary_text(text: &str) -> bool {
    let lower = text.to_ascii_lowercase();
    let licence =
        lower.contains("copyright") || lower.contains("license") || lower.contains("spdx");
    let generated = lower.contains("generated by")
        || lower.contains("code generated")
        || lower.contains("auto-generated")
        || lower.contains("autogenerated")
        || lower.contains("do not edit");
    // Provenance banners: who wrote the file and when, not what it is.
    let provenance = lower.lines().any(|l| {
        let l = l.trim_start_matches(|c: char| !c.is_alphanumeric());
        l.starts_with("created:") || l.starts_with("author:") || l.starts_with("authors:")
    });
    !licence && !generated && !provenance && !text.is_empty()
}

/// Directives to tools written as comments: never documentation.
const DIRECTIVES: &[&str] = &[
    "frozen_string_literal:",
    "encoding:",
    "coding:",
    "warn_indent:",
    "shareable_constant_value:",
    "spell-checker:",
    "cspell:",
    "go:build",
    "+build",
    "go:generate",
    "cython:",
    "eslint",
    "@ts-",
    "prettier-ignore",
    "istanbul ignore",
    "pylint:",
    "noqa",
    "type:",
    "vim:",
    "-*-",
    "!",
];

/// Notes to maintainers: about work left, not about what the code is.
const NOTES: &[&str] = &["TODO", "FIXME", "XXX", "HACK", "NOTE:", "Note:"];

/// Whether a line is a title's underline (`=====`, `~~~~`, `----`).
fn is_underline(line: &str) -> bool {
    line.len() >= 3
        && line
            .chars()
            .all(|c| matches!(c, '=' | '~' | '-' | '*' | '^' | '#' | '+'))
}

/// Strips comment markers and quotes and keeps the first paragraph of at least two
/// words (a title such as `Limits` or `sphinx.config` alone is skipped), cut to 300
/// chars.
fn first_paragraph(raw: &str) -> Option<String> {
    let mut lines: Vec<String> = Vec::new();
    let mut in_note = false;
    // A Python string's prefix (`r"""…"""`, `u'…'`) is not text.
    let raw = raw
        .strip_prefix(['r', 'u', 'b', 'R', 'U', 'B'])
        .filter(|rest| rest.starts_with(['"', '\'']))
        .unwrap_or(raw);
    for line in raw.lines() {
        let mut l = line.trim();
        for marker in [
            "/**", "/*!", "/*", "*/", "///", "//!", "//", "#", "\"\"\"", "'''", "*",
        ] {
            l = l.strip_prefix(marker).unwrap_or(l).trim_start();
        }
        for marker in ["*/", "\"\"\"", "'''"] {
            l = l.strip_suffix(marker).unwrap_or(l).trim_end();
        }
        let l = l.trim_matches(|c| c == '"' || c == '\'').trim();
        let l = strip_doc_tags(l);
        let l = l.as_str();
        if l.is_empty() {
            if lines.join(" ").split_whitespace().count() >= 2 {
                break;
            }
            lines.clear();
            in_note = false;
            continue;
        }
        // A note to maintainers opens a paragraph of its own: all of it is skipped.
        if lines.is_empty() && NOTES.iter().any(|m| l.starts_with(m)) {
            in_note = true;
        }
        // reStructuredText directives and link targets (`.. note::`, `.. _x: url`).
        let directive = DIRECTIVES.iter().any(|m| l.starts_with(m)) || l.starts_with(".. ");
        if in_note || directive || is_underline(l) || l.starts_with('@') {
            continue;
        }
        lines.push(l.to_string());
    }
    let joined = lines.join(" ");
    let words = joined.split_whitespace().count();
    (words >= 2).then(|| truncate(&joined, 300))
}

/// Tags of C# XML documentation comments, removed from doc summaries.
const DOC_TAGS: [&str; 8] = [
    "summary", "remarks", "para", "returns", "value", "c", "see", "paramref",
];

/// Removes C# XML documentation tags (`<summary>`, `</para>`, `<see cref="Order"/>` →
/// `Order`), keeping the text between them; any other `<…>` (`List<T>`) stays.
fn strip_doc_tags(line: &str) -> String {
    let mut out = String::with_capacity(line.len());
    let mut rest = line;
    while let Some(open) = rest.find('<') {
        out.push_str(&rest[..open]);
        let after = &rest[open + 1..];
        let close = after.find('>');
        let tag = close.map(|c| &after[..c]).unwrap_or("");
        let name = tag
            .trim_start_matches('/')
            .split(|c: char| c.is_whitespace() || c == '/')
            .next()
            .unwrap_or("");
        match close {
            Some(close) if DOC_TAGS.contains(&name) => {
                if let Some(target) = tag.split(['"', '\'']).nth(1) {
                    out.push_str(last_segment(target.trim_start_matches("T:")));
                }
                rest = &after[close + 1..];
            }
            _ => {
                out.push('<');
                rest = after;
            }
        }
    }
    out.push_str(rest);
    out.trim().to_string()
}

#[cfg(test)]
mod tests {
    use super::strip_doc_tags;

    #[test]
    fn xml_doc_tags_go_and_generics_stay() {
        assert_eq!(strip_doc_tags("<summary>"), "");
        assert_eq!(
            strip_doc_tags("Places an <see cref=\"Order\"/> now.</summary>"),
            "Places an Order now."
        );
        assert_eq!(
            strip_doc_tags("Keeps a List<T> of <c>items</c>"),
            "Keeps a List<T> of items"
        );
    }
}
