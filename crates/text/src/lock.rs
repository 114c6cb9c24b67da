//! Locking a mutex that a panicking thread may have poisoned.

use std::sync::{Mutex, MutexGuard};

/// Locks `mutex`, also when a thread panicked while holding it (the state stays usable).
pub(crate) fn lock<T>(mutex: &Mutex<T>) -> MutexGuard<'_, T> {
    mutex.lock().unwrap_or_else(|e| e.into_inner())
}
