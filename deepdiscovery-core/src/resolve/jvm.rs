//! jvm import resolution.

use super::{RepoIndex, Resolved};
use crate::facts::Import;

pub(super) fn resolve(_index: &RepoIndex, _from: &str, _import: &Import) -> Vec<Resolved> {
    Vec::new()
}
