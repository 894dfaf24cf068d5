//! Embeds texts with a sentence-transformers folder, in-process (`semantic::transformer`):
//! for checking the Rust forward against a reference, timing it, and distilling.
//!
//!   embed MODEL_DIR < TEXTS.jsonl > VECTORS.jsonl
//!
//! Each input line is a JSON string; each output line the text's vector, a JSON array.
//! The time per text goes to standard error.

use std::io::{BufRead, Write};

use deepdiscovery_core::plugins::Embedder;
use deepdiscovery_core::semantic::TransformerEmbedder;

fn main() {
    let Some(folder) = std::env::args().nth(1) else {
        eprintln!("usage: embed MODEL_DIR < TEXTS.jsonl");
        std::process::exit(2);
    };
    let model = match TransformerEmbedder::load(&folder) {
        Ok(model) => model,
        Err(e) => {
            eprintln!("{e}");
            std::process::exit(2);
        }
    };
    let texts: Vec<String> = std::io::stdin()
        .lock()
        .lines()
        .map_while(Result::ok)
        .filter_map(|l| serde_json::from_str::<String>(&l).ok())
        .collect();
    let refs: Vec<&str> = texts.iter().map(String::as_str).collect();
    let start = std::time::Instant::now();
    let vectors = match model.embed(&refs) {
        Ok(v) => v,
        Err(e) => {
            eprintln!("{e}");
            std::process::exit(1);
        }
    };
    let took = start.elapsed();
    let mut out = std::io::BufWriter::new(std::io::stdout().lock());
    for v in vectors {
        let _ = writeln!(out, "{}", serde_json::to_string(&v).unwrap_or_default());
    }
    let _ = out.flush();
    eprintln!(
        "{} texts in {:.3} s ({:.1} ms a text)",
        texts.len(),
        took.as_secs_f64(),
        took.as_secs_f64() * 1000.0 / texts.len().max(1) as f64
    );
}
