//! The summaries of files as their metadata cards show them, for measuring where
//! summaries come from (issue 37's table and hand check).
//!
//!   card_summaries LIST
//!
//! LIST has one `ROOT<TAB>PATH` line per file (a checkout and a path in it); each
//! prints as one JSON line `{"root", "path", "language", "doc", "doc_from"}` (the
//! last two as the facts give them). Lines that cannot be read are skipped.

use std::io::{BufRead, Write};

use deepdiscovery_core::Language;
use deepdiscovery_core::facts::extract;

fn main() {
    let Some(list) = std::env::args().nth(1) else {
        eprintln!("usage: card_summaries LIST");
        std::process::exit(2);
    };
    let file = std::fs::File::open(&list).unwrap_or_else(|e| {
        eprintln!("cannot open {list}: {e}");
        std::process::exit(2);
    });
    let stdout = std::io::stdout();
    let mut out = stdout.lock();
    for line in std::io::BufReader::new(file).lines().map_while(Result::ok) {
        let Some((root, path)) = line.split_once('\t') else {
            continue;
        };
        let Ok(bytes) = std::fs::read(std::path::Path::new(root).join(path)) else {
            continue;
        };
        let language = Language::detect(path, Some(&bytes));
        let text = String::from_utf8_lossy(&bytes);
        let facts = extract(language, path, &text);
        let facts = serde_json::to_value(&facts).unwrap_or_default();
        let record = serde_json::json!({
            "root": root,
            "path": path,
            "language": language.name(),
            "doc": facts.get("doc"),
            "doc_from": facts.get("doc_from"),
        });
        let _ = writeln!(out, "{record}");
    }
}
