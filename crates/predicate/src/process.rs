//! One child run, the Unix way.
//!
//! The child gets its own process group, stdin from `/dev/null`, and piped stdout/stderr that we
//! read with `poll(2)` on non-blocking descriptors, so a descendant holding a pipe open can delay us
//! by at most [`DRAIN_DEADLINE`]. After every run, whatever its end, the whole group is killed; we
//! are a child subreaper, so descendants that escaped the group with `setsid` are re-parented to us
//! and killed too: each run tags its environment with a unique `MINREPRO_RUN_TAG`, which lets us
//! tell whose orphan a process is without touching other workers' children.

use std::ffi::OsString;
use std::fs::File;
use std::io::Read;
use std::os::fd::{AsRawFd, OwnedFd};
use std::os::unix::process::{CommandExt, ExitStatusExt};
use std::path::Path;
use std::process::{Child, Command, ExitStatus, Stdio};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Once, OnceLock};
use std::time::{Duration, Instant};

use crate::capture::{CapturedStream, StreamCapture};
use crate::error::StartError;
use crate::interrupt::{
    is_interrupted, kill_group, spawn_registered_as, unregister_group, CancelFlag,
};
pub(crate) use crate::orphans::{all_pids, environ_has_prefix};
pub use crate::orphans::{kill_all_orphans, kill_tagged_orphans};

/// Environment variable that marks every process started for one run.
pub const RUN_TAG_VAR: &str = "MINREPRO_RUN_TAG";
/// How long we keep reading after the child exited and its group was killed.
pub const DRAIN_DEADLINE: Duration = Duration::from_millis(300);
/// A cancelled run (its result no longer matters) is still left this long after its start
/// before it is killed: a predicate killed while it starts up has not even recorded that it
/// ran (a counting predicate would see fewer runs than were launched and reported), and its
/// start-up side effects would be half done. An interruption is not delayed.
pub const CANCEL_GRACE: Duration = Duration::from_millis(100);

/// Everything needed to start one child.
#[derive(Debug)]
pub struct RunRequest<'a> {
    /// Absolute path of the executable.
    pub program: &'a Path,
    /// Arguments after the program name.
    pub args: &'a [OsString],
    /// Working directory (the candidate's workspace).
    pub cwd: &'a Path,
    /// Extra environment variables.
    pub env: &'a [(OsString, OsString)],
    /// Wall-clock limit for the run.
    pub timeout: Duration,
    /// Substring searched for in each stream.
    pub needle: Option<&'a [u8]>,
    /// Text replaced by `{workspace}` in captured output.
    pub workspace_text: Option<&'a str>,
    /// Cancellation of this run (speculation no longer needed, or interruption).
    pub cancel: &'a CancelFlag,
    /// Keep the whole stdout up to this many bytes (for tools whose output is parsed).
    pub keep_stdout: Option<usize>,
}

/// How a run ended.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum RunEnd {
    /// The child exited; negative codes are `-signal` for a child killed by a signal.
    Exited(i32),
    /// The timeout expired and the group was killed.
    TimedOut,
    /// The run was cancelled or the process interrupted.
    Cancelled,
    /// The child could not be started.
    LaunchError(String),
}

/// The result of one child run.
#[derive(Debug, Clone)]
pub struct RawRun {
    /// How it ended.
    pub end: RunEnd,
    /// Captured standard output.
    pub stdout: CapturedStream,
    /// Captured standard error.
    pub stderr: CapturedStream,
    /// Stdout up to [`RunRequest::keep_stdout`] bytes, when that was set.
    pub stdout_full: Option<Vec<u8>>,
    /// Whether stdout was longer than [`RunRequest::keep_stdout`] (`stdout_full` was cut).
    pub stdout_truncated: bool,
}

static SUBREAPER: Once = Once::new();
static NEXT_TAG: AtomicU64 = AtomicU64::new(1);

/// Makes this process a child subreaper (Linux), so escaped descendants come back to us.
pub fn become_subreaper() {
    SUBREAPER.call_once(|| {
        #[cfg(target_os = "linux")]
        // SAFETY: prctl with integer arguments only.
        unsafe {
            libc::prctl(libc::PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0);
        }
    });
}

/// Encodes an exit status like Python's `returncode`: `-signal` for signal deaths.
pub fn exit_code_of(status: ExitStatus) -> i32 {
    match (status.code(), status.signal()) {
        (Some(code), _) => code,
        (None, Some(signal)) => -signal,
        (None, None) => -1,
    }
}

/// A started run that the supervision loop watches: a direct child, or a process another
/// program (e.g. a fork server) started for us.
pub trait Supervisee {
    /// The run's process group (killed when the run ends).
    fn pgid(&self) -> i32;
    /// The exit code if the run's main process has ended; never blocks.
    fn try_exit(&mut self) -> Result<Option<i32>, StartError>;
    /// The exit code once the group was killed (may block briefly).
    fn wait_exit(&mut self) -> Option<i32>;
    /// Ends a run that is over on our side (timeout, cancellation, interruption) before its
    /// group is killed. By default nothing: the group's SIGKILL ends a local run.
    fn stop(&mut self) {}
    /// Whether output that arrives once the run is over on our side still counts. A Slurm step
    /// answers its cancellation with a timestamped message, which must not reach a log.
    fn keeps_output_after_stop(&self) -> bool {
        true
    }
}

/// The start of every run tag of this process: `PID-NONCE-`. The pid comes first because the
/// runner helper matches `PID-`; the random nonce lets a guardian match only *this* process's
/// runs, never those of a later process that reuses the pid.
pub fn run_tag_prefix() -> &'static str {
    static PREFIX: OnceLock<String> = OnceLock::new();
    PREFIX.get_or_init(|| format!("{}-{:016x}-", std::process::id(), random_u64()))
}

fn random_u64() -> u64 {
    let mut bytes = [0u8; 8];
    // SAFETY: getrandom writes at most `bytes.len()` bytes into the buffer.
    let got = unsafe { libc::getrandom(bytes.as_mut_ptr().cast(), bytes.len(), 0) };
    if got == bytes.len() as isize {
        return u64::from_ne_bytes(bytes);
    }
    // No getrandom: the clock is unique enough to tell two processes with one pid apart.
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_nanos() as u64)
}

/// A fresh `MINREPRO_RUN_TAG` value.
pub fn new_run_tag() -> String {
    format!(
        "{}{}",
        run_tag_prefix(),
        NEXT_TAG.fetch_add(1, Ordering::SeqCst)
    )
}

/// Output streams of a started run: the read ends of its stdout and stderr.
pub type Streams = (File, File);

/// Runs something that `start` launches (given the run tag), supervises it like a direct child
/// and cleans up all it started. `start` returns the supervisee and its output streams.
pub fn run_supervised<'s>(
    request: &RunRequest<'_>,
    start: impl FnOnce(&str) -> Result<(Box<dyn Supervisee + 's>, Streams), StartError>,
) -> RawRun {
    become_subreaper();
    let tag = new_run_tag();
    let mut out = StreamCapture::new(request.needle);
    if let Some(limit) = request.keep_stdout {
        out = out.keep_all(limit);
    }
    let mut err = StreamCapture::new(request.needle);
    let end = match start(&tag) {
        Err(error) => RunEnd::LaunchError(error.0),
        Ok((mut target, (stdout, stderr))) => supervise(
            target.as_mut(),
            [stdout, stderr],
            request,
            &tag,
            &mut out,
            &mut err,
        ),
    };
    RawRun {
        end,
        stdout_truncated: out.overflowed(),
        stdout_full: out.take_full(),
        stdout: out.finish(request.workspace_text),
        stderr: err.finish(request.workspace_text),
    }
}

/// A direct child started with `std::process`.
pub(crate) struct DirectChild(pub(crate) Child);

impl Supervisee for DirectChild {
    fn pgid(&self) -> i32 {
        self.0.id() as i32
    }
    fn try_exit(&mut self) -> Result<Option<i32>, StartError> {
        self.0
            .try_wait()
            .map(|status| status.map(exit_code_of))
            .map_err(|e| StartError(format!("cannot wait for the child: {e}")))
    }
    fn wait_exit(&mut self) -> Option<i32> {
        self.0.wait().ok().map(exit_code_of)
    }
}

impl Drop for DirectChild {
    fn drop(&mut self) {
        unregister_group(self.0.id() as i32);
    }
}

/// Starts `program args` for the run tagged `tag` the way every run starts: in the request's
/// directory and environment, stdin from `/dev/null`, piped output, its own process group
/// (registered, so an interruption signals it with `on_interrupt`), and `death_signal` sent to
/// it should we die outright.
pub(crate) fn spawn_for_run(
    request: &RunRequest<'_>,
    program: &Path,
    args: &[OsString],
    tag: &str,
    death_signal: i32,
    on_interrupt: i32,
) -> Result<(DirectChild, Streams), StartError> {
    let mut command = Command::new(program);
    command
        .args(args)
        .current_dir(request.cwd)
        .env(RUN_TAG_VAR, tag)
        .envs(request.env.iter().map(|(k, v)| (k, v)))
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .process_group(0);
    // If we are killed outright (SIGKILL gives no chance to clean up), the child gets
    // `death_signal`. The signal fires when the spawning thread exits; every caller waits for
    // the child on that same thread, so it never fires early.
    #[cfg(target_os = "linux")]
    // SAFETY: prctl is async-signal-safe and touches no memory.
    unsafe {
        command.pre_exec(move || {
            libc::prctl(libc::PR_SET_PDEATHSIG, death_signal, 0, 0, 0);
            Ok(())
        });
    }
    let mut child = spawn_registered_as(&mut command, on_interrupt)
        .map_err(|error| StartError(format!("cannot start {}: {error}", program.display())))?;
    let stdout = child.stdout.take().map(|s| File::from(OwnedFd::from(s)));
    let stderr = child.stderr.take().map(|s| File::from(OwnedFd::from(s)));
    let child = DirectChild(child);
    match (stdout, stderr) {
        (Some(stdout), Some(stderr)) => Ok((child, (stdout, stderr))),
        _ => Err(StartError("the child's output pipes are missing".into())),
    }
}

/// Runs one child to completion (or timeout, or cancellation) and cleans up all it started.
pub fn run_child(request: &RunRequest<'_>) -> RawRun {
    run_supervised(request, |tag| {
        let (child, streams) = spawn_for_run(
            request,
            request.program,
            request.args,
            tag,
            libc::SIGKILL,
            libc::SIGKILL,
        )?;
        Ok((Box::new(child) as Box<dyn Supervisee>, streams))
    })
}

fn supervise(
    target: &mut dyn Supervisee,
    streams: [File; 2],
    request: &RunRequest<'_>,
    tag: &str,
    out: &mut StreamCapture,
    err: &mut StreamCapture,
) -> RunEnd {
    let pgid = target.pgid();
    let [stdout, stderr] = streams;
    let mut pipes = [Some(Pipe::new(stdout)), Some(Pipe::new(stderr))];
    let started = Instant::now();
    let deadline = started + request.timeout;
    let mut exited: Option<i32> = None;
    let mut end: Option<RunEnd> = None;
    let mut drain_until: Option<Instant> = None;
    let mut nap = Duration::from_micros(50);
    loop {
        let open = pipes.iter().any(Option::is_some);
        if exited.is_none() && end.is_none() {
            match target.try_exit() {
                Ok(Some(code)) => exited = Some(code),
                Ok(None) => {}
                Err(error) => end = Some(RunEnd::LaunchError(error.0)),
            }
        }
        let now = Instant::now();
        if end.is_none() && exited.is_none() {
            let cancel_now = is_interrupted() || now - started >= CANCEL_GRACE;
            if request.cancel.is_cancelled() && cancel_now {
                end = Some(RunEnd::Cancelled);
            } else if now >= deadline {
                end = Some(RunEnd::TimedOut);
            }
        }
        if (exited.is_some() || end.is_some()) && drain_until.is_none() {
            // The run is over: nothing of it may survive, whatever still holds our pipes.
            if exited.is_none() {
                if !target.keeps_output_after_stop() {
                    // Closing our ends also keeps a writer from blocking on a full pipe.
                    pipes = [None, None];
                }
                target.stop();
            }
            kill_group(pgid);
            kill_tagged_orphans(tag);
            drain_until = Some(now + DRAIN_DEADLINE);
        }
        if let Some(limit) = drain_until {
            if !open || now >= limit {
                break;
            }
        }
        if open {
            let wait = match drain_until {
                Some(limit) => limit.saturating_duration_since(now),
                None => deadline.saturating_duration_since(now),
            };
            poll_pipes(&mut pipes, out, err, wait.min(Duration::from_millis(10)));
        } else {
            // Both streams ended; only the exit status is missing.
            std::thread::sleep(nap.min(deadline.saturating_duration_since(now)));
            nap = (nap * 2).min(Duration::from_millis(5));
        }
    }
    kill_group(pgid);
    let code = match exited {
        Some(code) => Some(code),
        None => target.wait_exit(),
    };
    wait_until_group_gone(pgid, tag);
    match (end, code) {
        (Some(end), _) => end,
        (None, Some(code)) => RunEnd::Exited(code),
        (None, None) => RunEnd::LaunchError("the child's exit status was lost".into()),
    }
}

/// How long a run may take to vanish after its group was sent SIGKILL: the kernel ends killed
/// processes asynchronously, and a busy machine may not have scheduled an exit yet.
const GROUP_EXIT_WAIT: Duration = Duration::from_secs(5);

/// Returns once no process of the (killed) group `pgid` exists any more, reaping the run's
/// re-parented descendants meanwhile, so that when a run's result is reported nothing of it is
/// left (not even a process that has been killed but not yet scheduled to exit). Gives up after
/// [`GROUP_EXIT_WAIT`] (a process stuck in uninterruptible sleep cannot be waited for).
fn wait_until_group_gone(pgid: i32, tag: &str) {
    let started = Instant::now();
    let mut nap = Duration::from_micros(20);
    loop {
        kill_tagged_orphans(tag);
        // SAFETY: signal 0 only checks whether any process of the group still exists.
        let alive = unsafe { libc::kill(-pgid, 0) } == 0;
        if !alive || started.elapsed() >= GROUP_EXIT_WAIT {
            return;
        }
        kill_group(pgid);
        std::thread::sleep(nap);
        nap = (nap * 2).min(Duration::from_millis(5));
    }
}

/// A non-blocking read end of a child's pipe.
struct Pipe(File);

impl Pipe {
    fn new(reader: File) -> Self {
        let fd = reader.as_raw_fd();
        // SAFETY: fcntl on a descriptor we own.
        unsafe {
            let flags = libc::fcntl(fd, libc::F_GETFL);
            libc::fcntl(fd, libc::F_SETFL, flags | libc::O_NONBLOCK);
        }
        Pipe(reader)
    }

    /// Reads what is available; returns false at end of stream (or on a hard error).
    fn read_available(&mut self, capture: &mut StreamCapture) -> bool {
        let mut buffer = [0u8; 64 * 1024];
        loop {
            match self.0.read(&mut buffer) {
                Ok(0) => return false,
                Ok(n) => capture.push(&buffer[..n]),
                Err(e) if e.kind() == std::io::ErrorKind::WouldBlock => return true,
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
                Err(_) => return false,
            }
        }
    }
}

fn poll_pipes(
    pipes: &mut [Option<Pipe>; 2],
    out: &mut StreamCapture,
    err: &mut StreamCapture,
    wait: Duration,
) {
    let mut fds: Vec<libc::pollfd> = pipes
        .iter()
        .flatten()
        .map(|pipe| libc::pollfd {
            fd: pipe.0.as_raw_fd(),
            events: libc::POLLIN,
            revents: 0,
        })
        .collect();
    // SAFETY: fds is a valid array of pollfd for the duration of the call.
    unsafe {
        libc::poll(
            fds.as_mut_ptr(),
            fds.len() as libc::nfds_t,
            wait.as_millis() as i32,
        );
    }
    for (slot, capture) in pipes.iter_mut().zip([out, err]) {
        let still_open = match slot {
            Some(pipe) => pipe.read_available(capture),
            None => continue,
        };
        if !still_open {
            *slot = None;
        }
    }
}
