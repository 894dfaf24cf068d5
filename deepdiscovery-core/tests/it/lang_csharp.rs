//! Tests: lang_csharp.
