//! JavaScript and TypeScript: relative paths, index files, tsconfig paths.

use super::{RepoIndex, Resolved};
use crate::facts::Import;

/// tsconfig settings.
#[derive(Debug, Default)]
pub(super) struct JsContext {}

impl JsContext {
    pub(super) fn build(_index: &RepoIndex, _read: &dyn Fn(&str) -> Option<String>) -> JsContext {
        JsContext {}
    }
}

pub(super) fn resolve(_index: &RepoIndex, _from: &str, _import: &Import) -> Vec<Resolved> {
    Vec::new()
}
