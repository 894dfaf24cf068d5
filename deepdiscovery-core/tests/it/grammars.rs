//! Every grammar loads, its query compiles, and a small program parses with it.

use deepdiscovery_core::Language;
use deepdiscovery_core::facts::{self, grammar_for};

#[test]
fn every_code_language_has_a_loadable_grammar_and_query() {
    for language in facts::CODE_LANGUAGES {
        let grammar = grammar_for(language)
            .unwrap_or_else(|e| panic!("{language}: {e}"))
            .unwrap_or_else(|| panic!("{language}: no grammar"));
        let mut parser = tree_sitter::Parser::new();
        parser
            .set_language(&grammar.language)
            .unwrap_or_else(|e| panic!("{language}: ABI mismatch: {e}"));
        assert!(
            grammar.query.pattern_count() > 0,
            "{language}: the fact query has no patterns"
        );
    }
}

#[test]
fn non_code_languages_have_no_grammar() {
    assert!(grammar_for(Language::Yaml).unwrap().is_none());
    assert!(grammar_for(Language::Markdown).unwrap().is_none());
}
