//! Finding the real Python interpreter once, so that wrapper scripts (pyenv shims, which cost
//! tens of milliseconds each) are not run for every candidate, and the interpreter's identity
//! is what the cache key records.

use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::time::Duration;

use minrepro_driver::RunError;
use minrepro_predicate::process::{run_child, RunEnd, RunRequest};
use minrepro_predicate::{resolve_executable, CancelFlag};

/// The interpreter that runs candidates.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Interpreter {
    /// Its real executable.
    pub path: PathBuf,
    /// Its Python 3 minor version (candidates are checked against this version's grammar).
    pub minor: u8,
}

/// Resolves `python` through PATH, then asks it for `sys.executable` and its version; falls back
/// to the PATH resolution when the answer is not an existing file. `cwd` is where the probe runs.
pub fn resolve_python(python: &str, cwd: &Path, timeout: f64) -> Result<Interpreter, RunError> {
    let program = resolve_executable(python)
        .map_err(|e| RunError::Failed(format!("--python {python}: {e}")))?;
    // -S: site-packages `.pth` files cost tens of milliseconds and change neither answer.
    let args: Vec<OsString> = [
        "-S",
        "-c",
        "import sys; print(sys.version_info[0], sys.version_info[1]); print(sys.executable)",
    ]
    .iter()
    .map(OsString::from)
    .collect();
    let cancel = CancelFlag::new();
    let run = run_child(&RunRequest {
        program: &program,
        args: &args,
        cwd,
        env: &[],
        timeout: Duration::from_secs_f64(timeout.clamp(1.0, 60.0)),
        needle: None,
        workspace_text: None,
        cancel: &cancel,
        keep_stdout: Some(64 * 1024),
    });
    match run.end {
        RunEnd::Exited(0) => {}
        RunEnd::Cancelled => return Err(RunError::Interrupted),
        RunEnd::Exited(code) => {
            return Err(RunError::Failed(format!(
                "the interpreter {} does not run Python (exit code {code}): {}",
                program.display(),
                run.stderr.tail.trim_end()
            )))
        }
        RunEnd::TimedOut => {
            return Err(RunError::Failed(format!(
                "the interpreter {} did not answer in time",
                program.display()
            )))
        }
        RunEnd::LaunchError(e) => {
            return Err(RunError::Failed(format!(
                "cannot run the interpreter {}: {e}",
                program.display()
            )))
        }
    }
    let answer = run
        .stdout_full
        .map(|bytes| String::from_utf8_lossy(&bytes).into_owned())
        .unwrap_or_default();
    let mut lines = answer.lines();
    let version: Vec<u8> = lines
        .next()
        .unwrap_or_default()
        .split_whitespace()
        .filter_map(|n| n.parse().ok())
        .collect();
    let minor = match version.as_slice() {
        [3, minor] => *minor,
        _ => {
            return Err(RunError::Failed(format!(
                "the interpreter {} is not Python 3",
                program.display()
            )))
        }
    };
    let real = PathBuf::from(lines.next().unwrap_or_default().trim());
    let path = if real.is_absolute() && real.is_file() {
        real
    } else {
        program
    };
    Ok(Interpreter { path, minor })
}
