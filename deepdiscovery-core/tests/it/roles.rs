//! Tests: roles.
