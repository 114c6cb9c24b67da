//! The helper processes and the protocol spoken with them.

use std::ffi::OsString;
use std::fs::File;
use std::io::{Read, Write};
use std::os::fd::{AsRawFd, OwnedFd};
use std::os::unix::fs::OpenOptionsExt;
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Mutex;
use std::time::{Duration, Instant};

use minrepro_predicate::interrupt::{kill_group, spawn_registered, unregister_group};
use minrepro_predicate::process::{
    run_supervised, run_tag_prefix, RawRun, RunEnd, RunRequest, Supervisee, RUN_TAG_VAR,
};
use minrepro_predicate::{register_group, Executor, StartError};

use crate::preload::{Preload, Ready};
use crate::rundir::{helper_env, make_fifo, runner_dir, RemoveOnDrop};

const HELPER_SOURCE: &str = include_str!("helper.py");
/// The helper's `-c` program: it reads the helper's source (its length is the second argument)
/// from stdin and runs it, so `ps` shows one short line instead of the whole source. Nothing
/// else is written to stdin before the helper says it is ready, so no request can be read ahead.
const BOOTSTRAP: &str = "import sys; exec(compile(sys.stdin.buffer.read(int(sys.argv[2])), \
                         'minrepro-runner', 'exec'))";
/// How long a helper may take to start (imports of preloaded modules included).
const START_DEADLINE: Duration = Duration::from_secs(120);
/// How long a helper may take to fork after a request.
const FORK_DEADLINE: Duration = Duration::from_secs(10);

/// One helper interpreter.
struct Helper {
    child: Child,
    to: ChildStdin,
    from: File,
    buffer: Vec<u8>,
}

impl Helper {
    fn start(
        interpreter: &Path,
        preload: &Preload,
        env: &[(OsString, OsString)],
    ) -> Result<(Helper, Ready), String> {
        let preload_json = preload.to_json();
        let mut command = Command::new(interpreter);
        command
            .arg("-c")
            .arg(BOOTSTRAP)
            .arg(preload_json)
            .arg(HELPER_SOURCE.len().to_string())
            .envs(env.iter().map(|(k, v)| (k, v)))
            // Candidates fork from the helper and set their run's tag with `os.environ`, which
            // does not change the environment block the kernel shows in /proc/PID/environ: a
            // daemon a candidate forks without exec would carry no tag at all. With this one
            // (never equal to a run's tag) it is still recognizably ours: the final
            // `kill_all_orphans` finds it.
            .env(RUN_TAG_VAR, format!("{}runner", run_tag_prefix()))
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .process_group(0);
        let mut child = spawn_registered(&mut command).map_err(|e| {
            format!(
                "cannot start the runner helper {}: {e}",
                interpreter.display()
            )
        })?;
        let mut to = child.stdin.take().expect("piped stdin");
        // A helper that died at once shows up below as one that never got ready.
        let _ = to.write_all(HELPER_SOURCE.as_bytes());
        let from = File::from(OwnedFd::from(child.stdout.take().expect("piped stdout")));
        set_nonblocking(&from);
        let mut helper = Helper {
            child,
            to,
            from,
            buffer: Vec::new(),
        };
        let message = helper.read_message(Instant::now() + START_DEADLINE);
        let ready = match &message {
            Ok(Some(message)) => Ready::from_message(message),
            _ => None,
        };
        match (ready, message) {
            (Some(ready), _) => Ok((helper, ready)),
            (None, other) => {
                let mut stderr = String::new();
                helper.kill();
                if let Some(mut err) = helper.child.stderr.take() {
                    let _ = err.read_to_string(&mut stderr);
                }
                let last = stderr.lines().last().unwrap_or("").to_owned();
                Err(match other {
                    Err(e) => format!("the runner helper failed to start: {e} {last}"),
                    _ => format!("the runner helper failed to start: {last}"),
                })
            }
        }
    }

    fn send(&mut self, message: &serde_json::Value) -> std::io::Result<()> {
        let body = message.to_string().into_bytes();
        let mut frame = (body.len() as u32).to_be_bytes().to_vec();
        frame.extend_from_slice(&body);
        self.to.write_all(&frame)?;
        self.to.flush()
    }

    /// A complete message if one is buffered or readable now.
    fn poll_message(&mut self) -> Result<Option<serde_json::Value>, String> {
        let mut chunk = [0u8; 4096];
        loop {
            match self.from.read(&mut chunk) {
                Ok(0) => {
                    if let Some(message) = self.take_buffered()? {
                        return Ok(Some(message));
                    }
                    return Err("the runner helper exited".into());
                }
                Ok(n) => self.buffer.extend_from_slice(&chunk[..n]),
                Err(e) if e.kind() == std::io::ErrorKind::WouldBlock => break,
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
                Err(e) => return Err(format!("cannot read from the runner helper: {e}")),
            }
        }
        self.take_buffered()
    }

    fn take_buffered(&mut self) -> Result<Option<serde_json::Value>, String> {
        if self.buffer.len() < 4 {
            return Ok(None);
        }
        let len = u32::from_be_bytes(self.buffer[..4].try_into().expect("4 bytes")) as usize;
        if self.buffer.len() < 4 + len {
            return Ok(None);
        }
        let body: Vec<u8> = self.buffer.drain(..4 + len).skip(4).collect();
        serde_json::from_slice(&body)
            .map(Some)
            .map_err(|e| format!("bad message from the runner helper: {e}"))
    }

    /// Waits for the next message until `deadline`.
    fn read_message(&mut self, deadline: Instant) -> Result<Option<serde_json::Value>, String> {
        loop {
            if let Some(message) = self.poll_message()? {
                return Ok(Some(message));
            }
            let now = Instant::now();
            if now >= deadline {
                return Ok(None);
            }
            let mut fd = libc::pollfd {
                fd: self.from.as_raw_fd(),
                events: libc::POLLIN,
                revents: 0,
            };
            let wait = (deadline - now).min(Duration::from_millis(50)).as_millis() as i32;
            // SAFETY: one valid pollfd.
            unsafe {
                libc::poll(&mut fd, 1, wait.max(1));
            }
        }
    }

    fn kill(&mut self) {
        kill_group(self.child.id() as i32);
        let _ = self.child.wait();
        unregister_group(self.child.id() as i32);
    }
}

fn set_nonblocking(file: &File) {
    // SAFETY: fcntl on a descriptor we own.
    unsafe {
        let flags = libc::fcntl(file.as_raw_fd(), libc::F_GETFL);
        libc::fcntl(file.as_raw_fd(), libc::F_SETFL, flags | libc::O_NONBLOCK);
    }
}

/// The forked child of a helper, as seen by the supervision loop.
struct ForkedChild<'a> {
    helper: &'a mut Helper,
    pid: i32,
    status: Option<i32>,
    helper_failed: bool,
}

impl Supervisee for ForkedChild<'_> {
    fn pgid(&self) -> i32 {
        self.pid
    }
    fn try_exit(&mut self) -> Result<Option<i32>, StartError> {
        if self.status.is_none() {
            match self.helper.poll_message() {
                Ok(Some(message)) => {
                    self.status = message
                        .get("status")
                        .and_then(|s| s.as_i64())
                        .map(|s| s as i32)
                }
                Ok(None) => {}
                Err(error) => {
                    self.helper_failed = true;
                    return Err(StartError(error));
                }
            }
        }
        Ok(self.status)
    }
    fn wait_exit(&mut self) -> Option<i32> {
        if self.status.is_none() && !self.helper_failed {
            match self.helper.read_message(Instant::now() + FORK_DEADLINE) {
                Ok(Some(message)) => {
                    self.status = message
                        .get("status")
                        .and_then(|s| s.as_i64())
                        .map(|s| s as i32)
                }
                _ => self.helper_failed = true,
            }
        }
        self.status
    }
}

impl Drop for ForkedChild<'_> {
    fn drop(&mut self) {
        unregister_group(self.pid);
    }
}

/// A pool of helper interpreters, one per job slot, used as the predicate's [`Executor`].
pub struct RunnerPool {
    interpreter: PathBuf,
    preload: Preload,
    /// The first helper's report on the automatic modules.
    ready: Ready,
    env: Vec<(OsString, OsString)>,
    idle: Mutex<Vec<Helper>>,
    fifo_dir: tempfile::TempDir,
    next_fifo: AtomicU64,
    restarts: AtomicU64,
}

impl RunnerPool {
    /// Starts one helper (more start on demand); fails when the interpreter cannot serve as a
    /// fork server (no `fork`, a preload import fails, …) so the caller can fall back.
    pub fn start(
        interpreter: &Path,
        preload: &[String],
        env: &[(String, String)],
    ) -> Result<Self, StartError> {
        Self::start_with(interpreter, &Preload::required(preload), env)
    }

    /// Like [`RunnerPool::start`], with automatic modules too: a helper left unfit by one (it
    /// was imported before its harm showed) is replaced by one started without it, and later
    /// helpers import what the first one kept. [`RunnerPool::ready`] tells what was left out.
    pub fn start_with(
        interpreter: &Path,
        preload: &Preload,
        env: &[(String, String)],
    ) -> Result<Self, StartError> {
        let fifo_dir = runner_dir()?;
        let env = helper_env(env, fifo_dir.path())?;
        let asked = preload.automatic.clone();
        let mut preload = preload.clone();
        let mut unfit = Vec::new();
        let (first, mut ready) = loop {
            let (mut helper, mut ready) = Helper::start(interpreter, &preload, &env)?;
            if !ready.unfit {
                break (helper, ready);
            }
            helper.kill();
            let last = ready
                .skipped
                .pop()
                .expect("an unfit helper names its module");
            preload.automatic.retain(|m| *m != last.0);
            unfit.push(last);
        };
        preload.automatic = ready.preloaded.clone();
        ready.skipped.append(&mut unfit);
        // In the program's order, whichever helper found it.
        ready
            .skipped
            .sort_by_key(|(name, _)| asked.iter().position(|m| m == name));
        Ok(RunnerPool {
            interpreter: interpreter.to_path_buf(),
            preload,
            ready,
            env,
            idle: Mutex::new(vec![first]),
            fifo_dir,
            next_fifo: AtomicU64::new(0),
            restarts: AtomicU64::new(0),
        })
    }

    /// What the first helper preloaded automatically and left out.
    pub fn ready(&self) -> &Ready {
        &self.ready
    }

    /// Helpers replaced after dying.
    pub fn restarts(&self) -> u64 {
        self.restarts.load(Ordering::SeqCst)
    }

    fn checkout(&self) -> Result<Helper, String> {
        let idle = self.idle.lock().unwrap_or_else(|e| e.into_inner()).pop();
        match idle {
            Some(helper) => Ok(helper),
            None => Helper::start(&self.interpreter, &self.preload, &self.env).map(|(h, _)| h),
        }
    }

    fn checkin(&self, helper: Helper) {
        self.idle
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .push(helper);
    }

    /// One attempt on `helper`; `Err` means the helper failed (not the candidate).
    fn attempt(&self, helper: &mut Helper, request: &RunRequest<'_>) -> Result<RawRun, String> {
        let script = request
            .args
            .first()
            .ok_or("the runner needs the candidate file as first argument")?;
        let id = self.next_fifo.fetch_add(1, Ordering::SeqCst);
        let out_path = self.fifo_dir.path().join(format!("{id}.out"));
        let err_path = self.fifo_dir.path().join(format!("{id}.err"));
        let _cleanup = RemoveOnDrop(vec![out_path.clone(), err_path.clone()]);
        let helper_error = std::cell::RefCell::new(None);
        let raw = run_supervised(request, |tag| {
            make_fifo(&out_path)
                .and_then(|_| make_fifo(&err_path))
                .map_err(|e| format!("cannot create a FIFO: {e}"))?;
            let open = |path: &Path| {
                std::fs::OpenOptions::new()
                    .read(true)
                    .custom_flags(libc::O_NONBLOCK)
                    .open(path)
            };
            let out = open(&out_path).map_err(|e| format!("cannot open a FIFO: {e}"))?;
            let err = open(&err_path).map_err(|e| format!("cannot open a FIFO: {e}"))?;
            let mut env: serde_json::Map<String, serde_json::Value> = request
                .env
                .iter()
                .map(|(k, v)| {
                    (
                        k.to_string_lossy().into_owned(),
                        v.to_string_lossy().into_owned().into(),
                    )
                })
                .collect();
            env.insert(RUN_TAG_VAR.into(), tag.into());
            let argv: Vec<String> = request
                .args
                .iter()
                .map(|a| a.to_string_lossy().into_owned())
                .collect();
            let script_path = std::path::absolute(Path::new(script)).map_err(|e| e.to_string())?;
            let message = serde_json::json!({
                "script": script_path.to_string_lossy(),
                "argv": argv,
                "cwd": request.cwd.to_string_lossy(),
                "stdout": out_path.to_string_lossy(),
                "stderr": err_path.to_string_lossy(),
                "env": env,
            });
            let fail = |e: String| {
                *helper_error.borrow_mut() = Some(e.clone());
                e
            };
            helper
                .send(&message)
                .map_err(|e| fail(format!("cannot talk to the runner helper: {e}")))?;
            let reply = helper
                .read_message(Instant::now() + FORK_DEADLINE)
                .map_err(&fail)?
                .ok_or_else(|| fail("the runner helper did not fork in time".into()))?;
            let pid =
                reply.get("pid").and_then(|p| p.as_i64()).ok_or_else(|| {
                    fail(format!("unexpected reply from the runner helper: {reply}"))
                })? as i32;
            register_group(pid);
            let target = ForkedChild {
                helper: &mut *helper,
                pid,
                status: None,
                helper_failed: false,
            };
            Ok((Box::new(target) as Box<dyn Supervisee + '_>, (out, err)))
        });
        if let Some(error) = helper_error.into_inner() {
            return Err(error);
        }
        if let RunEnd::LaunchError(error) = &raw.end {
            return Err(error.clone());
        }
        Ok(raw)
    }
}

impl Executor for RunnerPool {
    fn run(&self, request: &RunRequest<'_>) -> RawRun {
        let mut last_error = String::new();
        // A helper that dies is replaced, and the candidate retried once on a fresh one.
        for attempt in 0..2 {
            let mut helper = match self.checkout() {
                Ok(helper) => helper,
                Err(error) => {
                    last_error = error;
                    continue;
                }
            };
            match self.attempt(&mut helper, request) {
                Ok(raw)
                    if !matches!(raw.end, RunEnd::Cancelled | RunEnd::TimedOut)
                        || helper_alive(&mut helper) =>
                {
                    self.checkin(helper);
                    return raw;
                }
                Ok(raw) => {
                    helper.kill();
                    return raw;
                }
                Err(error) => {
                    helper.kill();
                    if attempt == 0 {
                        self.restarts.fetch_add(1, Ordering::SeqCst);
                    }
                    last_error = error;
                }
            }
        }
        RawRun {
            end: RunEnd::LaunchError(last_error),
            stdout: empty_stream(),
            stderr: empty_stream(),
            stdout_full: None,
            stdout_truncated: false,
        }
    }
}

fn helper_alive(helper: &mut Helper) -> bool {
    matches!(helper.child.try_wait(), Ok(None))
}

fn empty_stream() -> minrepro_predicate::CapturedStream {
    minrepro_predicate::CapturedStream {
        head: String::new(),
        tail: String::new(),
        contains_needle: false,
    }
}

impl Drop for RunnerPool {
    fn drop(&mut self) {
        for mut helper in self
            .idle
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .drain(..)
        {
            helper.kill();
        }
    }
}
