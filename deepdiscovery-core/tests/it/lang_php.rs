//! Tests: lang_php.
