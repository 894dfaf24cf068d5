//! Tests: lang_js.
