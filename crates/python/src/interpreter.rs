//! Finding the real Python interpreter once, so that wrapper scripts (pyenv shims, which cost
//! tens of milliseconds each) are not run for every candidate, and the interpreter's identity
//! is what the cache key records.

use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::time::Duration;

use minrepro_driver::RunError;
use minrepro_predicate::{resolve_executable, run_tool, ToolError, ToolRun};

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
    let run = run_tool(&ToolRun {
        program: &program,
        args: &args,
        cwd,
        // Not a candidate: a generous floor, so that a loaded machine's slow start-up is not
        // reported as a broken interpreter when --timeout is short.
        timeout: Duration::from_secs_f64(timeout.clamp(10.0, 60.0)),
        max_stdout: 64 * 1024,
        hide_cwd: false,
        cleanup: false,
    });
    let output = match run {
        Ok(output) => output,
        Err(ToolError::Interrupted) => return Err(RunError::Interrupted),
        Err(ToolError::TimedOut { .. }) => {
            return Err(RunError::Failed(format!(
                "the interpreter {} did not answer in time",
                program.display()
            )))
        }
        Err(ToolError::Launch(e)) => {
            return Err(RunError::Failed(format!(
                "cannot run the interpreter {}: {e}",
                program.display()
            )))
        }
    };
    if output.code != 0 {
        return Err(RunError::Failed(format!(
            "the interpreter {} does not run Python (exit code {}): {}",
            program.display(),
            output.code,
            output.stderr.tail.trim_end()
        )));
    }
    let answer = String::from_utf8_lossy(&output.stdout);
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
