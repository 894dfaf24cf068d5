//! The two views of a selected entity (paper Eq. 8 and Figure 1): the metadata card
//! m(e) and the text view — full text, or the promoted spans when the whole file does
//! not fit.

use serde::Serialize;

use crate::artifact::{Language, Role};
use crate::facts::{Definition, Facts};
use crate::task::estimate_tokens;

/// Key definitions listed on a card.
const DEFS_PER_CARD: usize = 12;
/// Imports listed on a card.
const IMPORTS_PER_CARD: usize = 8;
/// A promoted span is cut to this many lines.
pub const MAX_SPAN_LINES: usize = 80;
/// Spans promoted per file at most.
pub const MAX_SPANS: usize = 4;

/// The metadata view m(e) of one file: enough to know what it is and why it is here
/// without its text.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct MetadataCard {
    /// Repository-relative path.
    pub path: String,
    /// Artifact role.
    pub role: Role,
    /// Language.
    pub language: Language,
    /// Size in lines.
    pub lines: usize,
    /// Key definitions: their signature lines with line numbers (`L12 def f(x):`),
    /// those that match the task first.
    pub definitions: Vec<String>,
    /// How many of the first `definitions` the task points at (it names them, or the
    /// Location stage's ranked definitions put them first in the file): the
    /// Markdown marks them.
    pub pointed_at: usize,
    /// Definitions not listed.
    pub more_definitions: usize,
    /// Import targets, in source order.
    pub imports: Vec<String>,
    /// What the file is: its header (module docstring or leading comment), else its
    /// main definition's doc comment.
    pub summary: Option<String>,
    /// Where the summary came from: `header` or `definition <name>`, so that a
    /// reader can weigh it.
    pub summary_from: Option<String>,
}

impl MetadataCard {
    /// Builds the card of a file from its facts. `relevant` says which definition
    /// names the task points at (listed first).
    pub fn new(
        path: &str,
        role: Role,
        language: Language,
        lines: usize,
        facts: Option<&Facts>,
        relevant: &dyn Fn(&str) -> bool,
    ) -> MetadataCard {
        let mut card = MetadataCard {
            path: path.to_string(),
            role,
            language,
            lines,
            definitions: Vec::new(),
            pointed_at: 0,
            more_definitions: 0,
            imports: Vec::new(),
            summary: None,
            summary_from: None,
        };
        let Some(facts) = facts else {
            return card;
        };
        let mut defs: Vec<&Definition> = facts.definitions.iter().collect();
        // Task-relevant names first, then source order; stable.
        defs.sort_by_key(|d| (!relevant(&d.name), d.span.start));
        card.definitions = defs
            .iter()
            .take(DEFS_PER_CARD)
            .map(|d| format!("L{} {}", d.span.start, d.signature))
            .collect();
        card.pointed_at = defs
            .iter()
            .take(DEFS_PER_CARD)
            .take_while(|d| relevant(&d.name))
            .count();
        card.more_definitions = defs.len().saturating_sub(DEFS_PER_CARD);
        card.imports = facts
            .imports
            .iter()
            .filter(|i| !i.system)
            .map(|i| i.target.clone())
            .take(IMPORTS_PER_CARD)
            .collect();
        card.summary = facts.doc.clone();
        card.summary_from = facts
            .doc
            .as_ref()
            .and(facts.doc_from.as_ref())
            .map(ToString::to_string);
        card
    }

    /// The card as Markdown lines (without the heading).
    pub fn render(&self) -> String {
        let mut out = format!(
            "- {} · {} · {} lines\n",
            self.role, self.language, self.lines
        );
        if let Some(summary) = &self.summary {
            match &self.summary_from {
                Some(from) => out.push_str(&format!("- summary ({from}): {summary}\n")),
                None => out.push_str(&format!("- summary: {summary}\n")),
            }
        }
        if !self.definitions.is_empty() {
            out.push_str("- defines:\n");
            for (k, d) in self.definitions.iter().enumerate() {
                let mark = if k < self.pointed_at {
                    " ← the task points here"
                } else {
                    ""
                };
                out.push_str(&format!("  - `{d}`{mark}\n"));
            }
            if self.more_definitions > 0 {
                out.push_str(&format!("  - … {} more\n", self.more_definitions));
            }
        }
        if !self.imports.is_empty() {
            out.push_str(&format!("- imports: {}\n", self.imports.join(", ")));
        }
        out
    }

    /// Estimated tokens of the rendered card.
    pub fn tokens(&self) -> usize {
        estimate_tokens(&self.render())
    }
}

/// A span of a file's text carried in the package.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct TextSpan {
    /// First line (1-based).
    pub start: u32,
    /// Last line (1-based, inclusive).
    pub end: u32,
    /// What the span is (`def parse_header` or `whole file`).
    pub label: String,
    /// The lines.
    pub text: String,
}

/// The definitions worth showing in full: those the task points at, then those the
/// recovered path goes through, at most [`MAX_SPANS`], each cut to
/// [`MAX_SPAN_LINES`] lines. `first` names the definition the task describes (the
/// Location stage's best-matching one): its span is chosen first and goes first;
/// the others follow in source order. Returns nothing when no definition is
/// relevant.
pub fn promoted_spans(
    text: &str,
    facts: Option<&Facts>,
    relevant: &dyn Fn(&str) -> bool,
    first: Option<&str>,
) -> Vec<TextSpan> {
    let Some(facts) = facts else {
        return Vec::new();
    };
    let lines: Vec<&str> = text.lines().collect();
    let mut chosen: Vec<&Definition> = facts
        .definitions
        .iter()
        .filter(|d| relevant(&d.name) || first == Some(d.name.as_str()))
        .collect();
    let is_first = |d: &Definition| first == Some(d.name.as_str());
    // Outer definitions contain inner ones: keep the innermost relevant spans when
    // nested, so one large class does not swallow the budget.
    chosen.sort_by_key(|d| (!is_first(d), d.span.end - d.span.start, d.span.start));
    let mut spans: Vec<TextSpan> = Vec::new();
    let mut leads = false;
    for d in chosen {
        if spans.len() == MAX_SPANS {
            break;
        }
        if spans
            .iter()
            .any(|s| s.start <= d.span.end && d.span.start <= s.end)
        {
            continue;
        }
        let start = d.span.start.max(1);
        let end = d
            .span
            .end
            .max(start)
            .min(start + MAX_SPAN_LINES as u32 - 1)
            .min(lines.len() as u32);
        if end < start {
            continue;
        }
        let body = lines[start as usize - 1..end as usize].join("\n");
        let cut = if end < d.span.end { " (cut)" } else { "" };
        leads |= spans.is_empty() && is_first(d);
        spans.push(TextSpan {
            start,
            end,
            label: format!("{}{cut}", d.signature),
            text: body,
        });
    }
    // The described definition was chosen first; the rest in source order.
    let keep = usize::from(leads);
    spans[keep..].sort_by_key(|s| s.start);
    spans
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::facts;

    const CODE: &str = "\"\"\"Payment gateways.\"\"\"\nimport json\nfrom shop import cart\n\n\nclass Gateway:\n    def charge(self, amount):\n        return amount\n\n    def refund(self, amount):\n        return -amount\n\n\ndef helper():\n    pass\n";

    #[test]
    fn a_card_lists_relevant_definitions_first_with_their_lines() {
        let f = facts::extract(Language::Python, "pay.py", CODE);
        let card = MetadataCard::new(
            "pay.py",
            Role::Source,
            Language::Python,
            15,
            Some(&f),
            &|n| n == "refund",
        );
        assert_eq!(card.definitions[0], "L10 def refund(self, amount):");
        assert_eq!(card.summary.as_deref(), Some("Payment gateways."));
        assert_eq!(card.imports, vec!["json", "shop"]);
        assert_eq!(card.pointed_at, 1);
        let text = card.render();
        assert!(text.contains("- defines:"), "{text}");
        assert!(
            text.contains("  - `L10 def refund(self, amount):` ← the task points here\n"),
            "{text}"
        );
        assert_eq!(text.matches("the task points here").count(), 1, "{text}");
        assert_eq!(card.tokens(), estimate_tokens(&text));
    }

    #[test]
    fn spans_keep_the_innermost_relevant_definitions() {
        let f = facts::extract(Language::Python, "pay.py", CODE);
        let spans = promoted_spans(CODE, Some(&f), &|n| n == "refund" || n == "Gateway", None);
        assert_eq!(spans.len(), 1, "{spans:?}");
        assert_eq!((spans[0].start, spans[0].end), (10, 11));
        assert!(spans[0].text.contains("return -amount"));
        assert!(promoted_spans(CODE, Some(&f), &|_| false, None).is_empty());
    }

    #[test]
    fn the_described_definition_goes_first() {
        let f = facts::extract(Language::Python, "pay.py", CODE);
        let spans = promoted_spans(CODE, Some(&f), &|n| n == "charge", Some("helper"));
        let starts: Vec<u32> = spans.iter().map(|s| s.start).collect();
        assert_eq!(starts, [14, 7], "{spans:?}");
        assert!(spans[0].label.starts_with("def helper"));
        // Without a relevant name, the described definition alone.
        let spans = promoted_spans(CODE, Some(&f), &|_| false, Some("refund"));
        assert_eq!(spans.len(), 1);
        assert_eq!(spans[0].start, 10);
    }
}
