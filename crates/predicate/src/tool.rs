//! The one way minrepro runs an external tool (`llvm-readobj`, `llvm-objcopy`, an interpreter
//! probe): the same isolated child as a predicate run (own process group, stdin from `/dev/null`,
//! the group and any escaped descendant killed when it ends), a timeout, stdout kept up to a
//! bound (the rest is read and dropped, so the tool never blocks on a full pipe), and the head
//! and tail of stderr.

use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::time::Duration;

use crate::capture::CapturedStream;
use crate::interrupt::CancelFlag;
use crate::process::{run_child_as, RunEnd, RunRequest};

/// One tool invocation.
#[derive(Debug, Clone)]
pub struct ToolRun<'a> {
    /// Absolute path of the executable.
    pub program: &'a Path,
    /// Arguments after the program name.
    pub args: &'a [OsString],
    /// Working directory.
    pub cwd: &'a Path,
    /// Wall-clock limit; the tool's process group is killed when it passes.
    pub timeout: Duration,
    /// Bytes of stdout kept; more is cut (see [`ToolOutput::stdout_truncated`]).
    pub max_stdout: usize,
    /// Replace `cwd` in stderr by `{workspace}` (for a temporary directory in messages).
    pub hide_cwd: bool,
    /// Cleanup mode: an interruption of minrepro (Ctrl-C) neither kills the tool nor ends the
    /// wait, only the timeout does (for commands that clean up after an interruption, such as
    /// cancelling Slurm jobs). Give it a short timeout.
    pub cleanup: bool,
}

/// What a tool that ran to its end produced (whatever its exit code).
#[derive(Debug, Clone)]
pub struct ToolOutput {
    /// Exit code; `-signal` for a tool killed by a signal.
    pub code: i32,
    /// Standard output, at most [`ToolRun::max_stdout`] bytes.
    pub stdout: Vec<u8>,
    /// Whether stdout was longer than [`ToolRun::max_stdout`] and was cut.
    pub stdout_truncated: bool,
    /// Head and tail of standard error.
    pub stderr: CapturedStream,
}

/// Why a tool did not run to its end.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ToolError {
    /// The timeout passed; the tool and everything it started were killed.
    #[error("{} timed out after {} s", program.display(), timeout.as_secs_f64())]
    TimedOut {
        /// The tool.
        program: PathBuf,
        /// The limit that passed.
        timeout: Duration,
    },
    /// SIGINT/SIGTERM arrived while the tool ran (it was killed).
    #[error("interrupted")]
    Interrupted,
    /// The tool could not be started (the message names it).
    #[error("{0}")]
    Launch(String),
}

/// Runs a tool to its end, its timeout, or an interruption.
pub fn run_tool(run: &ToolRun<'_>) -> Result<ToolOutput, ToolError> {
    let cancel = if run.cleanup {
        CancelFlag::ignoring_interrupt()
    } else {
        CancelFlag::new()
    };
    let cwd_text = run.cwd.to_string_lossy();
    let request = RunRequest {
        program: run.program,
        args: run.args,
        cwd: run.cwd,
        env: &[],
        timeout: run.timeout,
        needle: None,
        workspace_text: run.hide_cwd.then_some(&*cwd_text),
        cancel: &cancel,
        keep_stdout: Some(run.max_stdout),
    };
    let on_interrupt = if run.cleanup { 0 } else { libc::SIGKILL };
    let raw = run_child_as(&request, on_interrupt);
    match raw.end {
        RunEnd::Exited(code) => Ok(ToolOutput {
            code,
            stdout: raw.stdout_full.unwrap_or_default(),
            stdout_truncated: raw.stdout_truncated,
            stderr: raw.stderr,
        }),
        RunEnd::TimedOut => Err(ToolError::TimedOut {
            program: run.program.to_path_buf(),
            timeout: run.timeout,
        }),
        RunEnd::Cancelled => Err(ToolError::Interrupted),
        RunEnd::LaunchError(message) => Err(ToolError::Launch(message)),
    }
}

#[cfg(test)]
mod tests;
