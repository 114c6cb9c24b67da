//! Predicate runs as Slurm job steps (`--launcher slurm`).
//!
//! Before the first run, one probe step checks the launcher arguments and that the node sees the
//! workspace (`SlurmLauncher::probe`). Each run is `srun [--launcher-arg…] --ntasks=1
//! --nodes=1 --job-name=minrepro-TAG --quiet --quiet --chdir=WORKSPACE PROGRAM ARGS…`: one job
//! with one step and one task, named after the run's `MINREPRO_RUN_TAG`, whose exit code `srun`
//! passes through (a signal death becomes 128+N). `srun` is supervised like any local child: its output is the task's output (the
//! second `--quiet` also silences `srun`'s own "task 0: Exited with exit code N" line), and the
//! timeout is ours, since Slurm's `--time` is minute-grained and checked every ~30 s.
//!
//! Nothing may stay on the cluster:
//! - A run that ends on our side (timeout, cancellation, interruption) sends `srun` SIGTERM,
//!   which kills the remote task at once (a single SIGINT would only print status), waits up to
//!   [`STOP_GRACE`] for it, and then cancels the job by name (`scancel --user=UID --name=…`).
//! - An interruption of minrepro sends SIGTERM (not SIGKILL) to every `srun`, and `srun` gets
//!   SIGTERM should minrepro die outright (parent-death signal).
//! - At the end of every reduction, and from the guardian after a SIGKILL of minrepro,
//!   [`cancel_jobs_of`] cancels every job of the current user whose name carries this
//!   minrepro's run-tag prefix.

use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Mutex;
use std::time::{Duration, Instant};

use crate::capture::CapturedStream;
use crate::identity::resolve_executable;
use crate::predicate::{Executor, PredicateError};
use crate::process::{
    run_supervised, spawn_for_run, DirectChild, RawRun, RunEnd, RunRequest, Supervisee,
};
use crate::tool::{run_tool, ToolRun};

/// The start of every job name minrepro gives a step (the run's tag follows).
pub const JOB_NAME_PREFIX: &str = "minrepro-";
/// How long a stopped `srun` gets to end its remote task after SIGTERM.
pub const STOP_GRACE: Duration = Duration::from_secs(5);
/// How long a Slurm client command (`scancel`, `squeue`) may take.
const CLIENT_DEADLINE: Duration = Duration::from_secs(15);
/// How much of a Slurm client command's output is kept (`squeue`'s job names).
const CLIENT_MAX_STDOUT: usize = 4 << 20;

/// Whether this process has started a step (so the final sweep has something to look for).
static USED: AtomicBool = AtomicBool::new(false);

/// Runs predicate runs as job steps through the Slurm client commands found on PATH.
#[derive(Debug)]
pub struct SlurmLauncher {
    srun: PathBuf,
    scancel: PathBuf,
    test: PathBuf,
    extra_args: Vec<OsString>,
    /// The probe's verdict, once one was reached (see [`SlurmLauncher::probe`]).
    probed: Mutex<Option<Result<(), String>>>,
}

impl SlurmLauncher {
    /// A launcher that passes `extra_args` (`--partition`, `--gres=gpu:1`, `--time`, …) to every
    /// `srun`; `srun` and `scancel` must be on PATH.
    pub fn new(extra_args: Vec<String>) -> Result<Self, PredicateError> {
        let find = |name: &str| {
            resolve_executable(name).map_err(|_| {
                PredicateError::Invalid(format!(
                    "--launcher slurm needs Slurm's `{name}` on PATH, and it was not found"
                ))
            })
        };
        Ok(SlurmLauncher {
            srun: find("srun")?,
            scancel: find("scancel")?,
            test: resolve_executable("test").unwrap_or_else(|_| PathBuf::from("/usr/bin/test")),
            extra_args: extra_args.into_iter().map(OsString::from).collect(),
            probed: Mutex::new(None),
        })
    }

    /// `srun`'s arguments for one run. The user's arguments come first so that ours (one task,
    /// the job name cleanup relies on, the workspace) win. `quiet` twice also silences `srun`'s
    /// errors (among them its line about the task's exit code, which a local run never prints).
    fn arguments(&self, request: &RunRequest<'_>, tag: &str, quiet: usize) -> Vec<OsString> {
        let mut args = self.extra_args.clone();
        args.extend(
            [
                "--ntasks=1".to_owned(),
                "--nodes=1".to_owned(),
                format!("--job-name={}", job_name(tag)),
            ]
            .map(OsString::from),
        );
        args.extend(std::iter::repeat_n(OsString::from("--quiet"), quiet));
        let mut chdir = OsString::from("--chdir=");
        chdir.push(request.cwd);
        args.push(chdir);
        args.push(request.program.as_os_str().to_owned());
        args.extend(request.args.iter().cloned());
        args
    }

    /// Runs `request` as a step and supervises it.
    fn step(&self, request: &RunRequest<'_>, quiet: usize) -> RawRun {
        run_supervised(request, |tag| {
            let args = self.arguments(request, tag, quiet);
            let (child, streams) = spawn_for_run(
                request,
                &self.srun,
                &args,
                tag,
                libc::SIGTERM,
                libc::SIGTERM,
            )?;
            let step = Step {
                child,
                name: job_name(tag),
                scancel: &self.scancel,
            };
            Ok((Box::new(step) as Box<dyn Supervisee>, streams))
        })
    }

    /// Before the first run, a step `test -d WORKSPACE` with `srun`'s errors shown: a bad
    /// `--launcher-arg` (say, a partition that does not exist) or a `--work-dir` the node does
    /// not see is then one clear error instead of a predicate that fails for no visible reason
    /// (`srun` falls back to /tmp when `--chdir` fails). The verdict is kept once reached;
    /// concurrent first runs wait for it.
    fn probe(&self, request: &RunRequest<'_>) -> Result<(), RunEnd> {
        let mut probed = self.probed.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(verdict) = &*probed {
            return verdict.clone().map_err(RunEnd::LaunchError);
        }
        let args = [OsString::from("-d"), request.cwd.as_os_str().to_owned()];
        let probe = RunRequest {
            program: &self.test,
            args: &args,
            needle: None,
            keep_stdout: None,
            ..*request
        };
        let run = self.step(&probe, 1);
        let verdict = match run.end {
            RunEnd::Exited(0) => Ok(()),
            RunEnd::Exited(code) => {
                let said = format!("{}{}", probe_text(&run.stdout), probe_text(&run.stderr));
                Err(format!(
                    "a probe step `srun … test -d WORKSPACE` failed with exit code {code}{said}; check --launcher-arg, and that --work-dir is on a file system the nodes share"
                ))
            }
            RunEnd::LaunchError(error) => Err(error),
            other => return Err(other), // timed out or cancelled: decide on a later run
        };
        *probed = Some(verdict.clone());
        verdict.map_err(RunEnd::LaunchError)
    }
}

/// The job name of the run tagged `tag`.
pub fn job_name(tag: &str) -> String {
    format!("{JOB_NAME_PREFIX}{tag}")
}

/// `: TEXT` for what a probe step printed (its last lines, trimmed), or nothing.
fn probe_text(stream: &CapturedStream) -> String {
    let text = stream.tail.trim();
    if text.is_empty() {
        String::new()
    } else {
        format!(": {text}")
    }
}

impl Executor for SlurmLauncher {
    fn run(&self, request: &RunRequest<'_>) -> RawRun {
        if !USED.swap(true, Ordering::SeqCst) {
            crate::guardian::guard_slurm_jobs();
        }
        match self.probe(request) {
            Ok(()) => self.step(request, 2),
            Err(end) => RawRun {
                end,
                stdout: CapturedStream::default(),
                stderr: CapturedStream::default(),
                stdout_full: None,
                stdout_truncated: false,
            },
        }
    }
}

/// A running `srun`.
struct Step<'a> {
    child: DirectChild,
    name: String,
    scancel: &'a Path,
}

impl Supervisee for Step<'_> {
    fn pgid(&self) -> i32 {
        self.child.pgid()
    }
    fn try_exit(&mut self) -> Result<Option<i32>, crate::error::StartError> {
        self.child.try_exit()
    }
    fn wait_exit(&mut self) -> Option<i32> {
        self.child.wait_exit()
    }
    fn keeps_output_after_stop(&self) -> bool {
        false
    }
    fn stop(&mut self) {
        // SAFETY: signalling our own child, which has not been reaped (we are its only waiter).
        unsafe {
            libc::kill(self.child.0.id() as i32, libc::SIGTERM);
        }
        let until = Instant::now() + STOP_GRACE;
        while Instant::now() < until && matches!(self.child.try_exit(), Ok(None)) {
            std::thread::sleep(Duration::from_millis(10));
        }
        cancel_by_name(self.scancel, &self.name);
    }
}

/// Cancels the current user's jobs named `name`; returns whether `scancel` succeeded.
pub fn cancel_by_name(scancel: &Path, name: &str) -> bool {
    let args = [
        format!("--user={}", current_uid()),
        format!("--name={name}"),
        "--quiet".to_owned(),
    ];
    matches!(client(scancel, &args), Some((0, _)))
}

/// Cancels every job of the current user whose name starts with [`JOB_NAME_PREFIX`] followed by
/// `tag_prefix` (a [`run_tag_prefix`](crate::process::run_tag_prefix)). Finds `squeue` and
/// `scancel` on PATH; does nothing without them.
pub fn cancel_jobs_of(tag_prefix: &str) {
    let (Ok(squeue), Ok(scancel)) = (resolve_executable("squeue"), resolve_executable("scancel"))
    else {
        return;
    };
    let wanted = job_name(tag_prefix);
    let args = [
        "--noheader".to_owned(),
        format!("--user={}", current_uid()),
        "--format=%j".to_owned(),
    ];
    let Some((0, listing)) = client(&squeue, &args) else {
        return;
    };
    let mut names: Vec<&str> = std::str::from_utf8(&listing)
        .unwrap_or_default()
        .lines()
        .map(str::trim)
        .filter(|name| name.starts_with(&wanted))
        .collect();
    names.sort_unstable();
    names.dedup();
    for name in names {
        cancel_by_name(&scancel, name);
    }
}

/// Cancels this process's jobs that are still known to Slurm, if it ever started a step (called
/// once the reduction is over, however it ended).
pub fn cancel_leftover_jobs() {
    if USED.load(Ordering::SeqCst) {
        cancel_jobs_of(crate::process::run_tag_prefix());
    }
}

fn current_uid() -> u32 {
    // SAFETY: getuid has no failure mode.
    unsafe { libc::getuid() }
}

/// Runs a Slurm client command to its end (at most [`CLIENT_DEADLINE`]) through
/// [`run_tool`]'s cleanup mode: an interruption neither kills it nor ends the wait, since this
/// is the cleanup after one. Returns its exit code and stdout.
fn client(program: &Path, args: &[String]) -> Option<(i32, Vec<u8>)> {
    let args: Vec<OsString> = args.iter().map(OsString::from).collect();
    let output = run_tool(&ToolRun {
        program,
        args: &args,
        cwd: Path::new("/"),
        timeout: CLIENT_DEADLINE,
        max_stdout: CLIENT_MAX_STDOUT,
        hide_cwd: false,
        cleanup: true,
    })
    .ok()?;
    Some((output.code, output.stdout))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::interrupt::CancelFlag;

    #[test]
    fn srun_gets_the_users_options_first_and_ours_after_them() {
        let launcher = SlurmLauncher {
            srun: "/usr/bin/srun".into(),
            scancel: "/usr/bin/scancel".into(),
            test: "/usr/bin/test".into(),
            extra_args: vec!["--partition=gpu".into(), "--ntasks=4".into()],
            probed: Mutex::new(None),
        };
        let args = [OsString::from("a b"), OsString::from("--flag")];
        let cancel = CancelFlag::new();
        let request = RunRequest {
            program: Path::new("/shared/pred"),
            args: &args,
            cwd: Path::new("/shared/work/ws-1"),
            env: &[],
            timeout: Duration::from_secs(1),
            needle: None,
            workspace_text: None,
            cancel: &cancel,
            keep_stdout: None,
        };
        let argv = launcher.arguments(&request, "12-ab-3", 2);
        let expected = [
            "--partition=gpu",
            "--ntasks=4",
            "--ntasks=1",
            "--nodes=1",
            "--job-name=minrepro-12-ab-3",
            "--quiet",
            "--quiet",
            "--chdir=/shared/work/ws-1",
            "/shared/pred",
            "a b",
            "--flag",
        ];
        assert_eq!(argv, expected.map(OsString::from));
    }
}
