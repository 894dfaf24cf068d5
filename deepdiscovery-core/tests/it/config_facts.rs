//! Tests: config_facts.
