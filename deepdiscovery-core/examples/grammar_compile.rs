//! How long each code language's fact query takes to compile (`tree_sitter::Query::new`
//! on `facts/queries/<lang>.scm`), once per process: the fixed cost a first parse of
//! that language pays, and the reason the location stage compiles the repository's
//! main languages ahead of use (`Session::prepare_grammars`). One fresh process per
//! run: the queries are compiled once and kept.
//!
//! ```sh
//! cargo run --release -p deepdiscovery-core --example grammar_compile
//! ```

use std::time::Instant;

use deepdiscovery_core::artifact::Language;
use deepdiscovery_core::facts::grammar_for;

fn main() {
    let mut times: Vec<(f64, Language)> = Vec::new();
    for language in Language::ALL {
        let start = Instant::now();
        if let Ok(Some(_)) = grammar_for(language) {
            times.push((start.elapsed().as_secs_f64() * 1e3, language));
        }
    }
    times.sort_by(|a, b| b.0.total_cmp(&a.0));
    for (ms, language) in times {
        println!("{:<12} {ms:7.1} ms", language.name());
    }
}
