//! C and C++: `#include` relative to the file and through include directories;
//! header ↔ source pairing.

use super::{RepoIndex, Resolved};
use crate::facts::Import;

/// Include directories.
#[derive(Debug, Default)]
pub(super) struct CContext {}

impl CContext {
    pub(super) fn build(_index: &RepoIndex) -> CContext {
        CContext {}
    }
}

pub(super) fn resolve(_index: &RepoIndex, _from: &str, _import: &Import) -> Vec<Resolved> {
    Vec::new()
}

pub(super) fn header_pairs(_index: &RepoIndex) -> Vec<(String, String)> {
    Vec::new()
}
