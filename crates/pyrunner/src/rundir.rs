//! The runner's own directory: the FIFOs candidates write their output to, and the helpers'
//! temporary directory.

use std::ffi::{CString, OsString};
use std::os::unix::ffi::OsStrExt;
use std::path::{Path, PathBuf};

use minrepro_predicate::guardian::{guard_directory, TEMP_PREFIX};
use minrepro_predicate::TEMP_VARS;

/// A new runner directory, removed when dropped (or by the guardian, should minrepro die).
pub(crate) fn runner_dir() -> Result<tempfile::TempDir, String> {
    let dir = tempfile::Builder::new()
        .prefix(&format!("{TEMP_PREFIX}runner-"))
        .tempdir()
        .map_err(|e| format!("cannot create the runner's directory: {e}"))?;
    guard_directory(dir.path());
    Ok(dir)
}

/// The helpers' environment: `env`, and as their temporary directory (`TMPDIR`, `TMP`, `TEMP`)
/// one inside the runner's own `dir`. What a preloaded module makes there at import (a helper is
/// killed, never runs its exit handlers) goes with that directory, not into the user's; each
/// candidate still gets its run's private one.
pub(crate) fn helper_env(
    env: &[(String, String)],
    dir: &Path,
) -> Result<Vec<(OsString, OsString)>, String> {
    let temp = dir.join("helper-tmp");
    std::fs::create_dir(&temp)
        .map_err(|e| format!("cannot create the runner helpers' temporary directory: {e}"))?;
    let temp_vars = TEMP_VARS.map(|var| (var.to_owned(), temp.to_string_lossy().into_owned()));
    Ok(env
        .iter()
        .filter(|(k, _)| !TEMP_VARS.contains(&k.as_str()))
        .chain(temp_vars.iter())
        .map(|(k, v)| (k.into(), v.into()))
        .collect())
}

/// Files removed when dropped (a run's FIFOs).
pub(crate) struct RemoveOnDrop(pub(crate) Vec<PathBuf>);

impl Drop for RemoveOnDrop {
    fn drop(&mut self) {
        for path in &self.0 {
            let _ = std::fs::remove_file(path);
        }
    }
}

/// A FIFO at `path`, readable and writable by us only.
pub(crate) fn make_fifo(path: &Path) -> std::io::Result<()> {
    let c = CString::new(path.as_os_str().as_bytes())?;
    // SAFETY: valid NUL-terminated path.
    if unsafe { libc::mkfifo(c.as_ptr(), 0o600) } != 0 {
        return Err(std::io::Error::last_os_error());
    }
    Ok(())
}
