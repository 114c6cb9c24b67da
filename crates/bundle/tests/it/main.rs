//! The integration tests of `minrepro-bundle`, one test binary with a module per area.

mod elf_tools;

/// Serializes the tests that start processes. The predicate runner reaps zombie children of
/// this process that it did not start (it takes them for re-parented orphans of a run), so a
/// child that a test started itself, or that another test's runner is about to wait for, could
/// be reaped under it (`ECHILD`) while tests run side by side in this one binary. Every test
/// that starts a process, directly or through the runner, holds this lock.
pub fn processes_lock() -> std::sync::MutexGuard<'static, ()> {
    static LOCK: std::sync::Mutex<()> = std::sync::Mutex::new(());
    LOCK.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
}
