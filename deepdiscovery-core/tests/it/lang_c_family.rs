//! Tests: lang_c_family.
