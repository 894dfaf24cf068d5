//! Facts extraction of every code language (tree-sitter parse, tags query, call and
//! decoration sites): the first byte picks the language, the rest is the file.
//! Never panics, stays within its work budgets, and is deterministic; the file's
//! definitions as documents (the Location stage's) and as the embedder's texts lie in
//! its text, and those texts stay within their bound; every definition gets a name
//! within its file (the package's `definitions`), the same every time.
#![no_main]

use deepdiscovery_core::facts::{self, CODE_LANGUAGES};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Some((&pick, rest)) = data.split_first() else {
        return;
    };
    let language = CODE_LANGUAGES[pick as usize % CODE_LANGUAGES.len()];
    let text = String::from_utf8_lossy(rest);
    let first = facts::extract(language, "fuzzed", &text);
    assert_eq!(first, facts::extract(language, "fuzzed", &text));
    deepdiscovery_core::locate::check_documents(&text, &first);
    deepdiscovery_core::semantic::check_texts("fuzzed.x", &text, &first);
    let names = deepdiscovery_core::locate::definition_names(&first);
    assert_eq!(names.len(), first.definitions.len());
    assert!(
        names
            .iter()
            .zip(&first.definitions)
            .all(|(n, d)| n.ends_with(d.name.as_str()))
    );
    assert_eq!(names, deepdiscovery_core::locate::definition_names(&first));
});
