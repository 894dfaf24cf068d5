//! What the embedder reads of a definition (DESIGN, "Pretrained semantics"): its
//! qualified name, kind and file, then its own lines (doc comment, decorators,
//! signature, docstring and the head of its body; the definitions nested in it read
//! their own). The same text is embedded at query time and written for training
//! (`examples/definition_texts.rs`, `benches/embedder_pairs.py`), so the model is
//! tuned on exactly what it will see.

use serde::Serialize;

use crate::facts::units::{Unit, units};
use crate::facts::{DefKind, DocSource, Facts, Span};

/// A definition's text is cut to this many bytes (at a line's end where one fits):
/// past it, the tokenizer's own cut (a few hundred tokens) drops it anyway.
pub const MAX_TEXT_BYTES: usize = 2048;

/// One definition with the text the embedder reads for it.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct DefinitionText {
    /// What is defined.
    pub kind: DefKind,
    /// The defined name as written.
    pub name: String,
    /// The qualified name where the language gives one.
    pub qualified: Option<String>,
    /// Its lines, with its doc comment and decorators.
    pub span: Span,
    /// The text to embed: a header line, then its own lines.
    pub text: String,
}

/// The texts of a file: first the module itself when the file has a header (its
/// module docstring or leading comment, [`Facts::doc`]): kind [`DefKind::Module`],
/// named by its path, spanning the file; then its definitions (those with a body
/// worth reading: classes, functions, methods and their kin), outer before inner. A
/// function of the path and the file's content.
pub fn definition_texts(path: &str, text: &str, facts: &Facts) -> Vec<DefinitionText> {
    let module = match (&facts.doc, &facts.doc_from) {
        (Some(doc), Some(DocSource::Header)) if !doc.trim().is_empty() => {
            let mut out = format!("{path} (module)\n");
            let room = MAX_TEXT_BYTES.saturating_sub(out.len());
            out.push_str(crate::text::prefix(doc.trim(), room));
            bound(&mut out);
            Some(DefinitionText {
                kind: DefKind::Module,
                name: path.to_string(),
                qualified: None,
                span: Span {
                    start: 1,
                    end: (text.lines().count() as u32).max(1),
                },
                text: out,
            })
        }
        _ => None,
    };
    module
        .into_iter()
        .chain(
            units(text, facts)
                .into_iter()
                .map(|unit| definition_text(path, facts, unit)),
        )
        .collect()
}

/// One definition's text: a header line (its qualified name, kind and file), then its
/// own lines.
fn definition_text(path: &str, facts: &Facts, unit: Unit) -> DefinitionText {
    let def = &facts.definitions[unit.index];
    let shown = def.qualified.as_deref().unwrap_or(&def.name);
    let mut out = format!("{shown} ({}) in {path}\n", kind_word(def.kind));
    let room = MAX_TEXT_BYTES.saturating_sub(out.len());
    out.push_str(head(&unit.text, room));
    bound(&mut out);
    DefinitionText {
        kind: def.kind,
        name: def.name.clone(),
        qualified: def.qualified.clone(),
        span: unit.span,
        text: out,
    }
}

/// Cuts a text to [`MAX_TEXT_BYTES`]: a header line alone (a path or a qualified name
/// of a hostile length) may be longer.
fn bound(text: &mut String) {
    let keep = crate::text::prefix(text, MAX_TEXT_BYTES).len();
    text.truncate(keep);
}

/// The fuzz target's check of [`definition_texts`] on any text and its facts: every
/// text is within [`MAX_TEXT_BYTES`], every span lies in the file, and the same input
/// gives the same texts.
#[doc(hidden)]
pub fn check_texts(path: &str, text: &str, facts: &Facts) {
    let texts = definition_texts(path, text, facts);
    let lines = (text.lines().count() as u32).max(1);
    for t in &texts {
        assert!(t.text.len() <= MAX_TEXT_BYTES, "{} bytes", t.text.len());
        assert!(1 <= t.span.start && t.span.start <= t.span.end && t.span.end <= lines);
    }
    assert_eq!(texts, definition_texts(path, text, facts));
}

/// The first lines of `text` within `max` bytes: whole lines where at least one fits,
/// else the bytes that fit.
fn head(text: &str, max: usize) -> &str {
    let cut = crate::text::prefix(text, max);
    if cut.len() == text.len() {
        return cut;
    }
    match cut.rfind('\n') {
        Some(end) => &cut[..=end],
        None => cut,
    }
}

/// The plain word for a kind, as the header line writes it.
fn kind_word(kind: DefKind) -> &'static str {
    match kind {
        DefKind::Class => "class",
        DefKind::Interface => "interface",
        DefKind::Trait => "trait",
        DefKind::Struct => "struct",
        DefKind::Enum => "enum",
        DefKind::Function => "function",
        DefKind::Method => "method",
        DefKind::Module => "module",
        DefKind::Constant => "constant",
        DefKind::Type => "type",
        DefKind::Macro => "macro",
        DefKind::Field => "field",
        DefKind::Other => "definition",
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::artifact::Language;

    #[test]
    fn a_method_reads_its_header_doc_and_body_and_the_class_keeps_its_own() {
        let text = "class Cache:\n    \"\"\"Keeps entries.\"\"\"\n\n    # evicts the oldest\n    def evict(self):\n        drop_oldest()\n";
        let facts = crate::facts::extract(Language::Python, "app/cache.py", text);
        let texts = definition_texts("app/cache.py", text, &facts);
        assert_eq!(texts.len(), 2, "{texts:?}");
        assert!(texts[0].text.starts_with("Cache (class) in app/cache.py\n"));
        assert!(texts[0].text.contains("Keeps entries."));
        assert!(!texts[0].text.contains("drop_oldest"));
        let evict = &texts[1];
        assert_eq!(evict.name, "evict");
        assert!(
            evict
                .text
                .starts_with("Cache.evict (function) in app/cache.py\n"),
            "{}",
            evict.text
        );
        assert!(evict.text.contains("# evicts the oldest\n"));
        assert!(evict.text.contains("drop_oldest()"));
        assert_eq!(evict.span, Span { start: 4, end: 6 });
    }

    #[test]
    fn a_class_docstring_right_above_its_first_method_stays_the_classs() {
        let text = "\"\"\"Stock levels.\"\"\"\n\nclass A:\n    \"\"\"Doc of A.\"\"\"\n    @property\n    def f(self):\n        return 1\n";
        let facts = crate::facts::extract(Language::Python, "a.py", text);
        let texts = definition_texts("a.py", text, &facts);
        assert_eq!(texts.len(), 3, "{texts:?}");
        assert_eq!(texts[0].kind, DefKind::Module);
        assert_eq!(texts[0].text, "a.py (module)\nStock levels.");
        assert!(
            texts[1]
                .text
                .contains("class A:\n    \"\"\"Doc of A.\"\"\"\n")
        );
        assert!(!texts[1].text.contains("@property"));
        assert!(texts[2].text.contains("    @property\n    def f(self):"));
        assert!(!texts[2].text.contains("Doc of A"));
        assert_eq!(texts[2].span, Span { start: 5, end: 7 });
    }

    #[test]
    fn a_header_of_a_hostile_length_is_cut_to_the_bound() {
        let name = "x".repeat(3 * MAX_TEXT_BYTES);
        let text = format!("def {name}():\n    pass\n");
        let path = format!("{}.py", "d/".repeat(MAX_TEXT_BYTES));
        let facts = crate::facts::extract(Language::Python, &path, &text);
        check_texts(&path, &text, &facts);
        let texts = definition_texts(&path, &text, &facts);
        assert_eq!(texts.len(), 1);
        assert_eq!(texts[0].text.len(), MAX_TEXT_BYTES);
    }

    #[test]
    fn a_long_body_is_cut_at_a_line_end_within_the_bound() {
        let body: String = (0..500).map(|k| format!("    x{k} = {k}\n")).collect();
        let text = format!("def long():\n{body}");
        let facts = crate::facts::extract(Language::Python, "m.py", &text);
        let texts = definition_texts("m.py", &text, &facts);
        assert_eq!(texts.len(), 1);
        assert!(texts[0].text.len() <= MAX_TEXT_BYTES);
        assert!(texts[0].text.ends_with('\n'));
        assert!(texts[0].text.contains("def long():"));
    }
}
