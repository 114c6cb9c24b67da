//! The integration tests of `minrepro-predicate`, one test binary with a module per area: real
//! child processes against the predicate runner.

use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};

use minrepro_predicate::{Acceptance, PredicateConfig};

mod huge_output;
mod runner;
mod scratch;

/// Writes the executable file `dir/name` holding `contents`.
pub fn executable(dir: &Path, name: &str, contents: &str) -> PathBuf {
    let path = dir.join(name);
    std::fs::write(&path, contents).unwrap();
    std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755)).unwrap();
    path
}

/// Writes an executable shell script `dir/name` running `body`.
pub fn script(dir: &Path, name: &str, body: &str) -> PathBuf {
    executable(dir, name, &format!("#!/bin/sh\n{body}\n"))
}

/// A fresh directory holding the shell script `p.sh` that runs `body`.
pub fn script_in_temp(body: &str) -> (tempfile::TempDir, PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let exe = script(dir.path(), "p.sh", body);
    (dir, exe)
}

/// Whether `tool --version` can be started (the tool is installed).
pub fn installed(tool: &str) -> bool {
    std::process::Command::new(tool)
        .arg("--version")
        .output()
        .is_ok()
}

/// Runs `executable ARGS` (placeholders `{workspace}` and `{state}`) once with a 30 s timeout;
/// exit status 0 is interesting.
pub fn config(executable: &Path, args: &[&str]) -> PredicateConfig {
    PredicateConfig {
        executable: executable.to_string_lossy().into_owned(),
        args: args.iter().map(|s| s.to_string()).collect(),
        placeholders: vec!["workspace", "state"],
        acceptance: Acceptance {
            exit_code: Some(0),
            ..Acceptance::default()
        },
        runs: 1,
        min_interesting: None,
        timeout_secs: 30.0,
        cache_tags: Vec::new(),
        cache_dependencies: Vec::new(),
        env: Vec::new(),
    }
}

/// Serializes the tests that start processes. The predicate runner reaps zombie children of
/// this process that it did not start (it takes them for re-parented orphans of a run), so a
/// child that a test started itself, or that another test's runner is about to wait for, could
/// be reaped under it (`ECHILD`) while tests run side by side in this one binary. Every test
/// that starts a process, directly or through the runner, holds this lock.
pub fn processes_lock() -> std::sync::MutexGuard<'static, ()> {
    static LOCK: std::sync::Mutex<()> = std::sync::Mutex::new(());
    LOCK.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
}
