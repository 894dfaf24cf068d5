//! Small synchronization helpers shared by the session and the sources.

use std::sync::{Mutex, MutexGuard, RwLock, RwLockReadGuard, RwLockWriteGuard};

/// Locks a mutex, recovering from poisoning (a panicked query leaves no half state:
/// every update is done on locals and swapped in at the end). Also used by the
/// sources' parallel listing, whose callbacks only push.
pub(crate) fn lock<T>(mutex: &Mutex<T>) -> MutexGuard<'_, T> {
    mutex.lock().unwrap_or_else(|e| e.into_inner())
}

/// Reads through a read-write lock, recovering from poisoning (as [`lock`]).
pub(crate) fn read<T>(lock: &RwLock<T>) -> RwLockReadGuard<'_, T> {
    lock.read().unwrap_or_else(|e| e.into_inner())
}

/// Writes through a read-write lock, recovering from poisoning (as [`lock`]).
pub(crate) fn write<T>(lock: &RwLock<T>) -> RwLockWriteGuard<'_, T> {
    lock.write().unwrap_or_else(|e| e.into_inner())
}

/// Frees `value` on a thread kept for it: the per-file structures of a query over a
/// million files (a million small allocations) are freed while the caller goes on.
/// At most one value waits to be freed: a second caller waits for it (so memory
/// never piles up), and where no thread can be started the value is freed here.
pub(crate) fn drop_later<T: Send + 'static>(value: T) {
    type Garbage = Box<dyn Send>;
    static FREER: std::sync::LazyLock<Option<Mutex<std::sync::mpsc::SyncSender<Garbage>>>> =
        std::sync::LazyLock::new(|| {
            let (send, receive) = std::sync::mpsc::sync_channel::<Garbage>(1);
            let started = std::thread::Builder::new()
                .name("deepdiscovery-free".into())
                .spawn(move || receive.into_iter().for_each(drop));
            started.ok().map(|_| Mutex::new(send))
        });
    match FREER.as_ref() {
        // A freer that is gone hands the value back, and it is freed here.
        Some(freer) => drop(lock(freer).send(Box::new(value))),
        None => drop(value),
    }
}
