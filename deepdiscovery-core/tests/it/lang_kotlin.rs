//! Tests: lang_kotlin.
