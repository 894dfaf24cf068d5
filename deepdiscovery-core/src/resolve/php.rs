//! PHP: `use` statements through PSR-4 (composer.json) and declared namespaces.

use super::{RepoIndex, Resolved};
use crate::facts::Import;

/// PSR-4 prefixes.
#[derive(Debug, Default)]
pub(super) struct PhpContext {}

impl PhpContext {
    pub(super) fn build(_index: &RepoIndex, _read: &dyn Fn(&str) -> Option<String>) -> PhpContext {
        PhpContext {}
    }
}

pub(super) fn resolve(_index: &RepoIndex, _from: &str, _import: &Import) -> Vec<Resolved> {
    Vec::new()
}
