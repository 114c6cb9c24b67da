//! The guardian: cleanup after a minrepro that was killed outright.
//!
//! SIGKILL gives minrepro no chance to clean up, and its child-subreaper role ends with it: the
//! descendants of a running predicate (background jobs, `setsid` daemons) and the temporary
//! directory would stay. So the binary starts a tiny second process once per run: itself again,
//! with [`GUARDIAN_ARG`]. minrepro keeps the only write end of a pipe (close-on-exec, so no
//! predicate inherits it); the guardian blocks reading the other end. End of file means minrepro
//! is gone, however it ended. Then the guardian SIGKILLs every process whose environment carries
//! this minrepro's [`run_tag_prefix`], removes the temporary
//! directories minrepro announced with [`guard_directory`], cancels the Slurm jobs of its runs
//! when minrepro announced with [`guard_slurm_jobs`] that it starts some, and exits. After a normal exit
//! minrepro has already done both, and the guardian finds nothing.
//!
//! The guardian never delays minrepro (nobody waits for it, and announcements are non-blocking
//! writes), ignores SIGINT/SIGTERM/SIGHUP (Ctrl-C reaches the whole foreground group; minrepro
//! handles those itself and cleans up normally) and leads its own process group, so that a
//! SIGKILL sent to minrepro's whole group still leaves it to clean up.

use std::ffi::OsStr;
use std::fs::File;
use std::io::{Read, Write};
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd};
use std::os::unix::ffi::OsStrExt;
use std::os::unix::fs::MetadataExt;
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::Mutex;
use std::time::Duration;

use crate::error::SetupError;
use crate::process::{all_pids, environ_has_prefix, run_tag_prefix, RUN_TAG_VAR};

/// The hidden first argument that makes the `minrepro` binary act as a guardian.
pub const GUARDIAN_ARG: &str = "__minrepro-guardian";
/// The name every temporary directory of minrepro starts with; a guardian removes nothing else.
pub const TEMP_PREFIX: &str = "minrepro-";
/// The guardian's `argv[0]`, as `ps` shows it.
const GUARDIAN_NAME: &str = "minrepro-guardian";
/// Kill rounds: killing one process can reveal children it forked just before.
const KILL_ROUNDS: usize = 200;
/// Announcements read at most (a run announces a handful of directories).
const MAX_ANNOUNCEMENTS: usize = 1 << 20;

/// The write end of the pipe to this process's guardian, once started.
static PIPE: Mutex<Option<File>> = Mutex::new(None);

/// Starts this process's guardian (once; later calls do nothing). On failure nothing changes and
/// the reduction can go on without one.
pub fn start_guardian() -> Result<(), SetupError> {
    let mut pipe = PIPE.lock().unwrap_or_else(|e| e.into_inner());
    if pipe.is_some() {
        return Ok(());
    }
    let (reader, writer) =
        std::io::pipe().map_err(|e| SetupError::new("cannot create the guardian's pipe", e))?;
    // /proc/self/exe is this very binary even if its file was replaced or deleted meanwhile.
    let exe = if Path::new("/proc/self/exe").exists() {
        PathBuf::from("/proc/self/exe")
    } else {
        std::env::current_exe()
            .map_err(|e| SetupError::new("cannot find minrepro's executable", e))?
    };
    let mut command = Command::new(exe);
    command
        .arg0(GUARDIAN_NAME)
        .arg(GUARDIAN_ARG)
        .arg(run_tag_prefix())
        // A minrepro started by a predicate carries its parent's tag; its guardian must not, or
        // the final orphan sweep would take it for a predicate's descendant.
        .env_remove(RUN_TAG_VAR)
        .stdin(Stdio::from(reader))
        // Holding minrepro's stdout/stderr would delay whoever reads them to the end.
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .process_group(0);
    // Ignored dispositions survive exec, so the guardian ignores the signals from its first
    // instruction on (no window in which a Ctrl-C would end it).
    // SAFETY: signal(2) is async-signal-safe and touches no memory.
    unsafe {
        command.pre_exec(|| {
            ignore_termination_signals();
            Ok(())
        });
    }
    command
        .spawn()
        .map_err(|e| SetupError::new("cannot start the guardian", e))?;
    drop(command); // closes our copy of the read end
    let writer = File::from(OwnedFd::from(writer));
    set_nonblocking(&writer);
    *pipe = Some(writer);
    Ok(())
}

/// Tells the guardian (if one runs) to remove `dir` should this process die without doing so.
/// `dir` must be a directory directly inside the system temporary directory whose name starts
/// with [`TEMP_PREFIX`]; the guardian checks that, and that it is still the same directory.
pub fn guard_directory(dir: &Path) {
    // The guardian compares with the absolute temporary directory (TMPDIR may be relative).
    let (Ok(dir), Ok(meta)) = (std::path::absolute(dir), std::fs::symlink_metadata(dir)) else {
        return;
    };
    let mut record = format!("{} {} ", meta.dev(), meta.ino()).into_bytes();
    record.extend_from_slice(dir.as_os_str().as_bytes());
    record.push(0);
    announce(&record);
}

/// The announcement that this process runs Slurm job steps.
const SLURM_RECORD: &[u8] = b"slurm";

/// Tells the guardian (if one runs) that this process starts Slurm job steps: should it die
/// without cleaning up, the guardian cancels every job of the user named after one of its runs
/// (see `slurm::cancel_jobs_of`).
pub fn guard_slurm_jobs() {
    announce(&[SLURM_RECORD, b"\0"].concat());
}

/// The announcement of a further directory minrepro's temporary directories may live in.
const WORK_DIR_RECORD: &[u8] = b"workdir ";

/// Tells the guardian (if one runs) that temporary directories announced later may also live
/// directly inside `dir` (`--work-dir`), besides the system temporary directory.
pub fn guard_work_dir(dir: &Path) {
    if let Ok(dir) = std::path::absolute(dir) {
        announce(&[WORK_DIR_RECORD, dir.as_os_str().as_bytes(), b"\0"].concat());
    }
}

fn announce(record: &[u8]) {
    if let Some(pipe) = PIPE.lock().unwrap_or_else(|e| e.into_inner()).as_mut() {
        // One short write to a pipe is atomic; if the guardian is stuck and the pipe full, the
        // record is dropped rather than minrepro blocked.
        let _ = pipe.write_all(record);
    }
}

/// If this process was started as a guardian, acts as one and returns its exit code.
pub fn serve_if_requested() -> Option<u8> {
    let mut args = std::env::args_os().skip(1);
    if args.next()? != OsStr::new(GUARDIAN_ARG) {
        return None;
    }
    let prefix = args.next().and_then(|p| p.into_string().ok());
    Some(match prefix {
        Some(prefix) if is_run_tag_prefix(&prefix) && args.next().is_none() => serve(&prefix),
        _ => 2,
    })
}

fn serve(prefix: &str) -> u8 {
    ignore_termination_signals();
    // SAFETY: fd 0 is ours for the rest of the process's life.
    let mut stdin = File::from(unsafe { OwnedFd::from_raw_fd(0) });
    if !is_pipe(&stdin) {
        // Started by hand: there is no minrepro to wait for.
        return 2;
    }
    // Resolved now (a relative TMPDIR is relative to minrepro's directory), then let go of that
    // directory: nobody should find it busy because of us.
    let base = std::path::absolute(std::env::temp_dir()).ok();
    let _ = std::env::set_current_dir("/");
    let announcements = read_until_end_of_file(&mut stdin);
    kill_tagged(prefix);
    if announcements.split(|&b| b == 0).any(|r| r == SLURM_RECORD) {
        crate::slurm::cancel_jobs_of(prefix);
    }
    let bases: Vec<PathBuf> = base.into_iter().chain(work_dirs(&announcements)).collect();
    for dir in parse_announcements(&announcements) {
        bases.iter().any(|base| remove_guarded(&dir, base));
    }
    0
}

/// Reads the pipe until minrepro is gone (its write end is the only one), keeping at most
/// [`MAX_ANNOUNCEMENTS`] bytes. A read error also means the pipe is unusable: clean up as after
/// end of file.
fn read_until_end_of_file(pipe: &mut File) -> Vec<u8> {
    let mut kept = Vec::new();
    let mut chunk = [0u8; 4096];
    loop {
        match pipe.read(&mut chunk) {
            Ok(0) => return kept,
            Ok(n) => {
                let room = MAX_ANNOUNCEMENTS.saturating_sub(kept.len());
                kept.extend_from_slice(&chunk[..n.min(room)]);
            }
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
            Err(_) => return kept,
        }
    }
}

/// Whether `text` has the shape of a [`run_tag_prefix`] (so that a guardian given anything else,
/// even an empty string that would match every run of every minrepro, refuses to act).
fn is_run_tag_prefix(text: &str) -> bool {
    let mut parts = text.split('-');
    let (Some(pid), Some(nonce), Some(""), None) =
        (parts.next(), parts.next(), parts.next(), parts.next())
    else {
        return false;
    };
    !pid.is_empty()
        && pid.bytes().all(|b| b.is_ascii_digit())
        && nonce.len() == 16
        && nonce.bytes().all(|b| b.is_ascii_hexdigit())
}

fn ignore_termination_signals() {
    for signal in [libc::SIGINT, libc::SIGTERM, libc::SIGHUP] {
        // SAFETY: setting a disposition to SIG_IGN.
        unsafe {
            libc::signal(signal, libc::SIG_IGN);
        }
    }
}

fn is_pipe(file: &File) -> bool {
    use std::os::unix::fs::FileTypeExt;
    file.metadata().is_ok_and(|m| m.file_type().is_fifo())
}

fn set_nonblocking(file: &File) {
    let fd = file.as_raw_fd();
    // SAFETY: fcntl on a descriptor we own.
    unsafe {
        let flags = libc::fcntl(fd, libc::F_GETFL);
        libc::fcntl(fd, libc::F_SETFL, flags | libc::O_NONBLOCK);
    }
}

/// The directories announced with [`guard_work_dir`] (complete records only).
fn work_dirs(announcements: &[u8]) -> Vec<PathBuf> {
    let mut records: Vec<&[u8]> = announcements.split(|&b| b == 0).collect();
    records.pop(); // the part after the last NUL is incomplete (usually empty)
    records
        .into_iter()
        .filter_map(|r| {
            Some(PathBuf::from(OsStr::from_bytes(
                r.strip_prefix(WORK_DIR_RECORD)?,
            )))
        })
        .collect()
}

/// A directory announced by [`guard_directory`]: its path and identity when it was created.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Announced {
    path: PathBuf,
    dev: u64,
    ino: u64,
}

/// Records are `DEV INO PATH\0`; anything malformed (a truncated last record) is skipped.
fn parse_announcements(bytes: &[u8]) -> Vec<Announced> {
    let mut found = Vec::new();
    let mut records = bytes.split(|&b| b == 0).collect::<Vec<_>>();
    records.pop(); // the part after the last NUL is incomplete (usually empty)
    for record in records {
        let mut fields = record.splitn(3, |&b| b == b' ');
        let number = |field: Option<&[u8]>| std::str::from_utf8(field?).ok()?.parse::<u64>().ok();
        let (Some(dev), Some(ino), Some(path)) =
            (number(fields.next()), number(fields.next()), fields.next())
        else {
            continue;
        };
        found.push(Announced {
            path: PathBuf::from(OsStr::from_bytes(path)),
            dev,
            ino,
        });
    }
    found
}

/// Removes `dir` only if it is still the directory that was announced (same device and inode,
/// not a symlink, ours), directly inside `base` and named like minrepro's. `remove_dir_all`
/// never follows symlinks inside it.
fn remove_guarded(dir: &Announced, base: &Path) -> bool {
    let named_ours = dir
        .path
        .file_name()
        .is_some_and(|name| name.as_bytes().starts_with(TEMP_PREFIX.as_bytes()));
    if dir.path.parent() != Some(base) || !named_ours {
        return false;
    }
    let Ok(meta) = std::fs::symlink_metadata(&dir.path) else {
        return false;
    };
    // SAFETY: geteuid has no failure mode and touches no memory.
    let me = unsafe { libc::geteuid() };
    if !meta.file_type().is_dir()
        || meta.dev() != dir.dev
        || meta.ino() != dir.ino
        || meta.uid() != me
    {
        return false;
    }
    // A straggler may still be creating files in it: a few attempts.
    (0..3).any(|_| match std::fs::remove_dir_all(&dir.path) {
        Ok(()) => true,
        Err(e) => e.kind() == std::io::ErrorKind::NotFound,
    })
}

/// SIGKILLs every process whose environment has a run tag starting with `prefix` (and the whole
/// group of each one that leads a group), until a scan finds none. Processes are addressed by
/// pidfd where the kernel has them, so a pid reused meanwhile is never hit.
pub fn kill_tagged(prefix: &str) {
    let needle = format!("{RUN_TAG_VAR}={prefix}");
    let me = std::process::id() as i32;
    for _ in 0..KILL_ROUNDS {
        let mut found = false;
        for pid in all_pids() {
            if pid == me {
                continue;
            }
            let target = Target::open(pid);
            // Read after opening the pidfd: if the pid was reused in between, the pidfd names
            // the old (dead) process and the signal goes nowhere.
            let Ok(environ) = std::fs::read(format!("/proc/{pid}/environ")) else {
                continue;
            };
            if !environ_has_prefix(&environ, needle.as_bytes()) {
                continue;
            }
            found = true;
            // SAFETY: kill(2) of a group led by a process that carries our tag.
            unsafe {
                if libc::getpgid(pid) == pid {
                    libc::kill(-pid, libc::SIGKILL);
                }
            }
            target.kill();
        }
        if !found {
            return;
        }
        // Killed processes drop their environment as they exit; give them a moment.
        std::thread::sleep(Duration::from_millis(5));
    }
}

/// A process to signal: by pidfd, or by pid on kernels without pidfds.
enum Target {
    Fd(OwnedFd),
    Pid(i32),
}

impl Target {
    fn open(pid: i32) -> Target {
        // SAFETY: pidfd_open takes a pid and flags and returns a new descriptor or -1.
        let fd = unsafe { libc::syscall(libc::SYS_pidfd_open, pid, 0) };
        if fd >= 0 {
            // SAFETY: the kernel just gave us this descriptor.
            Target::Fd(unsafe { OwnedFd::from_raw_fd(fd as i32) })
        } else {
            Target::Pid(pid)
        }
    }

    fn kill(&self) {
        // SAFETY: signalling through a descriptor we own, or a plain kill(2).
        unsafe {
            match self {
                Target::Fd(fd) => {
                    libc::syscall(
                        libc::SYS_pidfd_send_signal,
                        fd.as_raw_fd(),
                        libc::SIGKILL,
                        std::ptr::null::<libc::siginfo_t>(),
                        0,
                    );
                }
                Target::Pid(pid) => {
                    libc::kill(*pid, libc::SIGKILL);
                }
            }
        }
    }
}

#[cfg(test)]
mod tests;
