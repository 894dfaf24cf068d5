//! Small readers shared by the manifest readers: bracketed lists, string literals,
//! INI sections, TOML tables and XML documents.

use super::*;

/// The balanced `[...]`, `{...}` or `(...)` at the start of `s` (quotes respected),
/// or `""` when `s` does not start with a bracket (a variable, not a literal).
pub(super) fn bracketed(s: &str) -> &str {
    const MAX_SCAN: usize = 64 * 1024;
    let bytes = s.as_bytes();
    let (open, close) = match bytes.first() {
        Some(b'[') => (b'[', b']'),
        Some(b'{') => (b'{', b'}'),
        Some(b'(') => (b'(', b')'),
        _ => return "",
    };
    let mut depth = 0usize;
    let mut quote: Option<u8> = None;
    for (i, &b) in bytes.iter().enumerate().take(MAX_SCAN) {
        match quote {
            Some(q) if b == q => quote = None,
            Some(_) => {}
            None if b == b'"' || b == b'\'' => quote = Some(b),
            None if b == open => depth += 1,
            None if b == close => {
                depth -= 1;
                if depth == 0 {
                    return &s[..=i];
                }
            }
            None => {}
        }
    }
    // Unbalanced: take what was scanned, on a character boundary.
    crate::text::prefix(s, MAX_SCAN)
}

pub(super) fn string_literals(s: &str) -> impl Iterator<Item = &str> {
    static LITERAL: LazyLock<Regex> =
        LazyLock::new(|| Regex::new(r#""([^"\\\n]*)"|'([^'\\\n]*)'"#).unwrap());
    LITERAL
        .captures_iter(s)
        .filter_map(|c| c.get(1).or_else(|| c.get(2)).map(|m| m.as_str()))
}

pub(super) fn toml_table(text: &str) -> Option<toml::Table> {
    text.parse::<toml::Table>().ok()
}

/// `table.a.b` as a table.
pub(super) fn toml_get<'t>(table: &'t toml::Table, keys: &[&str]) -> Option<&'t toml::Value> {
    let (last, init) = keys.split_last()?;
    let mut current = table;
    for key in init {
        current = current.get(*key)?.as_table()?;
    }
    current.get(*last)
}

pub(super) fn xml_document(text: &str) -> Option<roxmltree::Document<'_>> {
    let options = roxmltree::ParsingOptions {
        allow_dtd: true,
        ..roxmltree::ParsingOptions::default()
    };
    roxmltree::Document::parse_with_options(text, options).ok()
}

pub(super) fn child_text<'a>(node: roxmltree::Node<'a, '_>, name: &str) -> Option<&'a str> {
    node.children()
        .find(|c| c.is_element() && c.tag_name().name() == name)
        .and_then(|c| c.text())
        .map(str::trim)
}
