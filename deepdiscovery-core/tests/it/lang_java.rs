//! Tests: lang_java.
