//! Predicate runs as Slurm job steps (`--launcher slurm`).
//!
//! Each run is `srun --ntasks=1 --nodes=1 --job-name=minrepro-TAG --chdir=WORKSPACE --quiet
//! --quiet [--launcher-arg…] PROGRAM ARGS…`: one job with one step and one task, named after the
//! run's `MINREPRO_RUN_TAG`, whose exit code `srun` passes through (a signal death becomes
//! 128+N). `srun` is supervised like any local child: its output is the task's output (the
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
use std::io::Read;
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use crate::identity::resolve_executable;
use crate::interrupt::{spawn_registered_as, unregister_group};
use crate::predicate::{Executor, PredicateError};
use crate::process::{
    run_supervised, spawn_for_run, DirectChild, RawRun, RunRequest, Supervisee, RUN_TAG_VAR,
};

/// The start of every job name minrepro gives a step (the run's tag follows).
pub const JOB_NAME_PREFIX: &str = "minrepro-";
/// How long a stopped `srun` gets to end its remote task after SIGTERM.
pub const STOP_GRACE: Duration = Duration::from_secs(5);
/// How long a Slurm client command (`scancel`, `squeue`) may take.
const CLIENT_DEADLINE: Duration = Duration::from_secs(15);

/// Whether this process has started a step (so the final sweep has something to look for).
static USED: AtomicBool = AtomicBool::new(false);

/// Runs predicate runs as job steps through the Slurm client commands found on PATH.
#[derive(Debug)]
pub struct SlurmLauncher {
    srun: PathBuf,
    scancel: PathBuf,
    extra_args: Vec<OsString>,
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
            extra_args: extra_args.into_iter().map(OsString::from).collect(),
        })
    }

    /// `srun`'s arguments for one run. The user's arguments come first so that ours (one task,
    /// the job name cleanup relies on, the workspace) win.
    fn arguments(&self, request: &RunRequest<'_>, tag: &str) -> Vec<OsString> {
        let mut args = self.extra_args.clone();
        args.extend(
            [
                "--ntasks=1",
                "--nodes=1",
                &format!("--job-name={}", job_name(tag)),
                "--quiet",
                "--quiet",
            ]
            .map(OsString::from),
        );
        let mut chdir = OsString::from("--chdir=");
        chdir.push(request.cwd);
        args.push(chdir);
        args.push(request.program.as_os_str().to_owned());
        args.extend(request.args.iter().cloned());
        args
    }
}

/// The job name of the run tagged `tag`.
pub fn job_name(tag: &str) -> String {
    format!("{JOB_NAME_PREFIX}{tag}")
}

impl Executor for SlurmLauncher {
    fn run(&self, request: &RunRequest<'_>) -> RawRun {
        if !USED.swap(true, Ordering::SeqCst) {
            crate::guardian::guard_slurm_jobs();
        }
        run_supervised(request, |tag| {
            let args = self.arguments(request, tag);
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
    fn try_exit(&mut self) -> Result<Option<i32>, String> {
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

/// Runs a Slurm client command to its end (at most [`CLIENT_DEADLINE`]); returns its exit code
/// and stdout. Its group is registered so that orphan sweeps leave it alone, and an
/// interruption does not kill it: cleanup must finish.
fn client(program: &Path, args: &[String]) -> Option<(i32, Vec<u8>)> {
    let mut command = Command::new(program);
    command
        .args(args)
        .env_remove(RUN_TAG_VAR)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .process_group(0);
    let mut child = spawn_registered_as(&mut command, 0).ok()?;
    let pid = child.id() as i32;
    let mut stdout = child.stdout.take()?;
    let reader = std::thread::spawn(move || {
        let mut bytes = Vec::new();
        let _ = stdout.read_to_end(&mut bytes);
        bytes
    });
    let until = Instant::now() + CLIENT_DEADLINE;
    let status = loop {
        match child.try_wait() {
            Ok(Some(status)) => break Some(status),
            Ok(None) if Instant::now() < until => std::thread::sleep(Duration::from_millis(5)),
            _ => {
                let _ = child.kill();
                let _ = child.wait();
                break None;
            }
        }
    };
    unregister_group(pid);
    let output = reader.join().unwrap_or_default();
    Some((crate::process::exit_code_of(status?), output))
}
