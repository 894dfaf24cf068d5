//! Tests: lang_rust.
