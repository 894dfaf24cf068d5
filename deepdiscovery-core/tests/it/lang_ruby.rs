//! Tests: lang_ruby.
