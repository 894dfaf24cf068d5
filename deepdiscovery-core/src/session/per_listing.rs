//! Values a query computes from the listing alone (paths, languages, roles) and the
//! texts of a few files, kept while neither changes: the environment, say, is the
//! same for every query against an unchanged repository, and computing it again
//! walked a million paths per query.

use std::any::Any;
use std::cell::RefCell;
use std::sync::Arc;

use super::{Session, State, now_ns, unchanged};
use crate::sync::lock;

/// One kept value: the listing version it was computed at.
pub(super) struct Kept {
    version: u64,
    value: Arc<dyn Any + Send + Sync>,
}

impl std::fmt::Debug for Kept {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Kept")
            .field("version", &self.version)
            .finish()
    }
}

impl Session {
    /// The value of `compute` for the listing of `version` (as
    /// [`Session::listing`] gives it), computed once per version and
    /// `kind`. `compute` must depend on that listing and on the texts it reads
    /// through the reader it is given, nothing else. The value is kept only when the
    /// listing is still current, and every file it read is listed and was read safely
    /// after its last change (the racy window of [`unchanged`]), so an edit made as
    /// it was read is never missed.
    pub(crate) fn per_listing<T>(
        &self,
        kind: &'static str,
        version: u64,
        compute: impl FnOnce(&dyn Fn(&str) -> Option<String>) -> T,
    ) -> T
    where
        T: Clone + Send + Sync + 'static,
    {
        if let Some(kept) = lock(&self.state).per_listing.get(kind)
            && kept.version == version
            && let Some(value) = kept.value.downcast_ref::<T>()
        {
            return value.clone();
        }
        let read_at = now_ns();
        let reads: RefCell<Vec<String>> = RefCell::default();
        let read = |path: &str| {
            reads.borrow_mut().push(path.to_string());
            self.read_text(path)
        };
        let value = compute(&read);
        let mut state = lock(&self.state);
        if state.listing_version == version
            && reads_are_current(&state, &reads.into_inner(), read_at)
        {
            let kept = Kept {
                version,
                value: Arc::new(value.clone()),
            };
            state.per_listing.insert(kind, kept);
        }
        value
    }
}

/// Whether every file of `reads` is listed and was read at `read_at` safely after
/// its listed change.
fn reads_are_current(state: &State, reads: &[String], read_at: u128) -> bool {
    reads.iter().all(|path| {
        state
            .slots
            .get(path)
            .is_some_and(|slot| unchanged(&slot.entry, read_at, &slot.entry))
    })
}
