//! Small synchronization helpers shared by the session and the sources.

use std::sync::{Mutex, MutexGuard};

/// Locks a mutex, recovering from poisoning (a panicked query leaves no half state:
/// every update is done on locals and swapped in at the end). Also used by the
/// sources' parallel listing, whose callbacks only push.
pub(crate) fn lock<T>(mutex: &Mutex<T>) -> MutexGuard<'_, T> {
    mutex.lock().unwrap_or_else(|e| e.into_inner())
}
