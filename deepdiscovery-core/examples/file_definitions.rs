//! Every definition of each file with the name the package's `definitions` list gives
//! it, for measuring function-level localization (`benches/function_level.py`): the
//! same parser and the same names as the product.
//!
//!   file_definitions < FILES.jsonl > DEFINITIONS.jsonl
//!
//! Each input line is `{"id", "path", "text"}`; each output line is `{"id", "path",
//! "language", "definitions": [{"name", "kind", "start", "end"}]}`, names within the
//! file (`Class.method`, `outer.inner`, a Go method `Type.Method`), lines 1-based and
//! inclusive (the definition's own lines, no doc comment), in the facts' order. A line
//! that is no such object is reported on standard error and skipped.

#[path = "support/jsonl.rs"]
mod jsonl;

use deepdiscovery_core::artifact::Language;
use deepdiscovery_core::locate::definition_names;
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
    let names = definition_names(&facts);
    let definitions: Vec<Value> = facts
        .definitions
        .iter()
        .zip(names)
        .map(|(d, name)| json!({"name": name, "kind": d.kind, "start": d.span.start, "end": d.span.end}))
        .collect();
    Some(
        json!({"id": file.get("id"), "path": path, "language": language.name(),
                "definitions": definitions}),
    )
}
