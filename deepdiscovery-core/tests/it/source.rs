//! Tests: source.
