//! Finding the real Python interpreter once, so that wrapper scripts (pyenv shims, which cost
//! tens of milliseconds each) are not run for every candidate, and the interpreter's identity
//! is what the cache key records.

use std::ffi::{OsStr, OsString};
use std::path::{Path, PathBuf};
use std::time::Duration;

use minrepro_driver::RunError;
use minrepro_predicate::{resolve_executable, run_tool, ToolError, ToolOutput, ToolRun};

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
    // One line: major, minor, then the executable's path (which may hold spaces).
    let script = "import sys; print(*sys.version_info[:2], sys.executable)";
    // Not a candidate: a generous floor, so that a loaded machine's slow start-up is not
    // reported as a broken interpreter when --timeout is short.
    let limit = Duration::from_secs_f64(timeout.clamp(10.0, 60.0));
    let shown = program.display();
    let failed = |why: String| Err(RunError::Failed(format!("the interpreter {shown} {why}")));
    let output = match ask_python(&program, ["-S", "-c", script], cwd, limit) {
        Ok(output) => output,
        Err(ToolError::Interrupted) => return Err(RunError::Interrupted),
        Err(e) => return failed(format!("did not answer: {e}")),
    };
    if output.code != 0 {
        let stderr = output.stderr.tail.trim_end();
        return failed(format!(
            "does not run Python (exit code {}): {stderr}",
            output.code
        ));
    }
    let answer = String::from_utf8_lossy(&output.stdout);
    let mut words = answer.trim_end_matches(['\r', '\n']).splitn(3, ' ');
    let minor = match (words.next(), words.next().map(str::parse::<u8>)) {
        (Some("3"), Some(Ok(minor))) => minor,
        _ => return failed("is not Python 3".into()),
    };
    let real = PathBuf::from(words.next().unwrap_or_default());
    let path = if real.is_absolute() && real.is_file() {
        real
    } else {
        program.clone()
    };
    Ok(Interpreter { path, minor })
}

/// Runs `python` with `args` in `cwd`: a short query of minrepro's own (never a candidate), its
/// answer on stdout (at most 1 MiB kept).
pub(crate) fn ask_python(
    python: &Path,
    args: impl IntoIterator<Item = impl AsRef<OsStr>>,
    cwd: &Path,
    timeout: Duration,
) -> Result<ToolOutput, ToolError> {
    let args: Vec<OsString> = args.into_iter().map(|a| a.as_ref().to_owned()).collect();
    run_tool(&ToolRun {
        program: python,
        args: &args,
        cwd,
        timeout,
        max_stdout: 1 << 20,
        hide_cwd: false,
        cleanup: false,
    })
}
