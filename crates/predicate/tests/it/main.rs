//! The integration tests of `minrepro-predicate`, one test binary with a module per area: real
//! child processes against the predicate runner.

use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};

mod huge_output;
mod runner;

/// Writes an executable shell script `dir/name` running `body`.
pub fn script(dir: &Path, name: &str, body: &str) -> PathBuf {
    let path = dir.join(name);
    std::fs::write(&path, format!("#!/bin/sh\n{body}\n")).unwrap();
    std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755)).unwrap();
    path
}
