//! The loop of the examples that turn JSON lines into JSON lines for the trainers
//! (`bridge_terms`, `definition_texts`): each line of standard input through `convert`,
//! its answer to standard output; a line that is not UTF-8 or that `convert` refuses
//! is named on standard error and skipped.

use std::io::{BufRead, Write};

use serde_json::Value;

/// Runs `convert` over standard input; `what` names the object a line must be.
pub fn each_line(what: &str, convert: impl Fn(&str) -> Option<Value>) {
    let stdin = std::io::stdin();
    let stdout = std::io::stdout();
    let mut out = std::io::BufWriter::new(stdout.lock());
    for (n, line) in stdin.lock().lines().enumerate() {
        let Ok(line) = line else {
            eprintln!("line {}: not UTF-8, skipped", n + 1);
            continue;
        };
        let Some(row) = convert(&line) else {
            eprintln!("line {}: not {what}, skipped", n + 1);
            continue;
        };
        if writeln!(out, "{row}").is_err() {
            std::process::exit(1);
        }
    }
    let _ = out.flush();
}
