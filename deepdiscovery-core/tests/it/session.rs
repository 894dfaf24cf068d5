//! Tests: session.
