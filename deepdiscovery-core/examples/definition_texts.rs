//! The texts the embedder reads of each definition, for training it
//! (`benches/embedder_pairs.py`): exactly what `semantic::definition_texts` gives at
//! query time.
//!
//!   definition_texts < FILES.jsonl > DEFINITIONS.jsonl
//!
//! Each input line is `{"id", "path", "text"}`; each output line is `{"id", "path",
//! "language", "definitions": [{"name", "qualified", "kind", "start", "end", "text"}]}`
//! with 1-based inclusive lines (doc comments and decorators included), outer before
//! inner. The language is detected from the path and the text's head, as the session
//! does. A line that is no such object is reported on standard error and skipped.

#[path = "support/jsonl.rs"]
mod jsonl;

use deepdiscovery_core::artifact::Language;
use deepdiscovery_core::semantic::definition_texts;
use serde_json::{Value, json};

fn main() {
    jsonl::each_line("a file object", definitions_of);
}

fn definitions_of(line: &str) -> Option<Value> {
    let file: Value = serde_json::from_str(line).ok()?;
    let path = file.get("path")?.as_str()?;
    let text = file.get("text")?.as_str()?;
    let language = Language::detect(path, Some(text.as_bytes()));
    let facts = deepdiscovery_core::facts::extract(language, path, text);
    let definitions: Vec<Value> = definition_texts(path, text, &facts)
        .into_iter()
        .map(|d| {
            json!({"name": d.name, "qualified": d.qualified, "kind": d.kind,
                   "start": d.span.start, "end": d.span.end, "text": d.text})
        })
        .collect();
    Some(
        json!({"id": file.get("id"), "path": path, "language": language.name(),
                "definitions": definitions}),
    )
}
