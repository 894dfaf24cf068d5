//! Tests: lang_go.
