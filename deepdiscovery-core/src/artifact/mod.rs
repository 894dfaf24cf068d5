//! Artifacts: one file of the repository with its language, role and extracted facts.

mod language;
mod role;

pub use language::Language;
pub use role::{Role, is_test_file_name};
