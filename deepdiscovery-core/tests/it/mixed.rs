//! Tests: mixed.
