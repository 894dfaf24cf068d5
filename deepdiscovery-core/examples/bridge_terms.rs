//! The terms of tasks and files as the Location stage counts them, for training the
//! vocabulary bridge (`benches/bridge_corpus.py`, `benches/train_bridge.py`).
//!
//!   bridge_terms < PAIRS.jsonl > TERMS.jsonl
//!
//! Each input line is `{"id", "task", "files": [{"path", "text"}]}`; each output line
//! is `{"id", "task": [[term, count]], "files": [{"path", "terms": [[term, count]]}]}`
//! (`locate::bridge::task_terms` and `code_terms`). A line that is no such object is
//! reported on standard error and skipped.

#[path = "support/jsonl.rs"]
mod jsonl;

use deepdiscovery_core::locate::bridge::{code_terms, task_terms};
use serde_json::{Value, json};

fn main() {
    jsonl::each_line("a pair object", terms_of);
}

fn terms_of(line: &str) -> Option<Value> {
    let pair: Value = serde_json::from_str(line).ok()?;
    let task = pair.get("task")?.as_str()?;
    let mut files = Vec::new();
    for file in pair.get("files")?.as_array()? {
        let path = file.get("path")?.as_str()?;
        let text = file.get("text")?.as_str()?;
        files.push(json!({"path": path, "terms": code_terms(path, text)}));
    }
    Some(json!({"id": pair.get("id"), "task": task_terms(task), "files": files}))
}
