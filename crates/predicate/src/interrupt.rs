//! Interruption and cancellation.
//!
//! Children run in their own process groups, so the terminal's Ctrl-C never reaches them: on
//! SIGINT/SIGTERM our handler marks the run as interrupted and kills every live group itself.
//! Waiting loops poll [`is_interrupted`] and their own [`CancelFlag`] and then unwind normally, so
//! every temporary directory is removed by its owner's `Drop`.

use std::collections::{BTreeMap, BTreeSet};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, OnceLock};

use crate::error::SetupError;

static INTERRUPTED: AtomicBool = AtomicBool::new(false);
static LIVE_GROUPS: Mutex<BTreeSet<i32>> = Mutex::new(BTreeSet::new());
/// Groups that an interruption signals with something other than SIGKILL (0: not at all), e.g.
/// `srun`, which ends its remote tasks at once on SIGTERM, and cleanup commands that must finish.
static INTERRUPT_SIGNALS: Mutex<BTreeMap<i32, i32>> = Mutex::new(BTreeMap::new());
static HANDLER: OnceLock<Result<(), SetupError>> = OnceLock::new();

/// A per-evaluation cancellation request (e.g. a speculative run whose result no longer matters).
#[derive(Debug, Clone, Default)]
pub struct CancelFlag {
    raised: Arc<AtomicBool>,
    /// Set for cleanup work that must finish while the process is being interrupted.
    ignores_interrupt: bool,
}

impl CancelFlag {
    /// A flag that is not raised.
    pub fn new() -> Self {
        Self::default()
    }
    /// A flag that only [`CancelFlag::cancel`] raises, not an interruption of the process (for
    /// cleanup commands that run during Ctrl-C handling).
    pub fn ignoring_interrupt() -> Self {
        Self {
            raised: Arc::default(),
            ignores_interrupt: true,
        }
    }
    /// Asks the evaluation to stop as soon as possible.
    pub fn cancel(&self) {
        self.raised.store(true, Ordering::SeqCst);
    }
    /// Whether cancellation was requested, or the whole process was interrupted (unless the
    /// flag ignores interruptions).
    pub fn is_cancelled(&self) -> bool {
        self.raised.load(Ordering::SeqCst) || (!self.ignores_interrupt && is_interrupted())
    }
}

/// Installs the SIGINT/SIGTERM handler once per process. Later calls return the first result.
pub fn install_interrupt_handler() -> Result<(), SetupError> {
    HANDLER
        .get_or_init(|| {
            ctrlc_install().map_err(|e| SetupError::new("cannot install the signal handler", e))
        })
        .clone()
}

fn ctrlc_install() -> std::io::Result<()> {
    // A plain sigaction handler: it only stores a flag and kills process groups, both of which
    // are async-signal-safe (`kill`), but the group set sits behind a mutex, so a watcher thread
    // does the killing instead of the handler itself.
    unsafe extern "C" fn on_signal(_: libc::c_int) {
        INTERRUPTED.store(true, Ordering::SeqCst);
    }
    for signal in [libc::SIGINT, libc::SIGTERM, libc::SIGHUP] {
        // SAFETY: installing a handler that only touches an atomic.
        let previous = unsafe { libc::signal(signal, on_signal as *const () as usize) };
        if previous == libc::SIG_ERR {
            return Err(std::io::Error::last_os_error());
        }
    }
    std::thread::Builder::new()
        .name("minrepro-interrupt-watch".into())
        .spawn(|| loop {
            if is_interrupted() {
                kill_all_groups();
            }
            std::thread::sleep(std::time::Duration::from_millis(5));
        })?;
    Ok(())
}

/// Whether SIGINT/SIGTERM was received (or [`simulate_interrupt`] was called).
pub fn is_interrupted() -> bool {
    INTERRUPTED.load(Ordering::SeqCst)
}

/// Marks the process as interrupted, as a signal would (for tests and fatal errors).
pub fn simulate_interrupt() {
    INTERRUPTED.store(true, Ordering::SeqCst);
    kill_all_groups();
}

/// Spawns a child that leads its own process group and registers the group so an interruption
/// can kill it. Spawning under the registry's lock lets orphan sweeps tell our direct children
/// (registered) from re-parented ones without a race.
pub fn spawn_registered(
    command: &mut std::process::Command,
) -> std::io::Result<std::process::Child> {
    spawn_registered_as(command, libc::SIGKILL)
}

/// [`spawn_registered`], with the signal an interruption sends the group (0: none; the caller
/// ends it itself).
pub fn spawn_registered_as(
    command: &mut std::process::Command,
    on_interrupt: i32,
) -> std::io::Result<std::process::Child> {
    let mut groups = LIVE_GROUPS.lock().unwrap_or_else(|e| e.into_inner());
    let child = command.spawn()?;
    let pgid = child.id() as i32;
    groups.insert(pgid);
    if on_interrupt != libc::SIGKILL {
        lock_signals().insert(pgid, on_interrupt);
    }
    drop(groups);
    if is_interrupted() {
        signal_group(pgid, on_interrupt);
    }
    Ok(child)
}

fn lock_signals() -> std::sync::MutexGuard<'static, BTreeMap<i32, i32>> {
    INTERRUPT_SIGNALS.lock().unwrap_or_else(|e| e.into_inner())
}

/// Registers the process group of a run that another program started for us (e.g. a fork
/// server's child), so an interruption kills it; pair with [`unregister_group`].
pub fn register_group(pgid: i32) {
    LIVE_GROUPS
        .lock()
        .unwrap_or_else(|e| e.into_inner())
        .insert(pgid);
    if is_interrupted() {
        kill_group(pgid);
    }
}

/// Runs `f` with the set of registered groups locked (no spawn can happen meanwhile).
pub(crate) fn with_live_groups<R>(f: impl FnOnce(&BTreeSet<i32>) -> R) -> R {
    let groups = LIVE_GROUPS.lock().unwrap_or_else(|e| e.into_inner());
    f(&groups)
}

/// Forgets a process group after it was killed and reaped.
pub fn unregister_group(pgid: i32) {
    LIVE_GROUPS
        .lock()
        .unwrap_or_else(|e| e.into_inner())
        .remove(&pgid);
    lock_signals().remove(&pgid);
}

fn kill_all_groups() {
    let groups = LIVE_GROUPS
        .lock()
        .unwrap_or_else(|e| e.into_inner())
        .clone();
    let signals = lock_signals().clone();
    for pgid in groups {
        signal_group(pgid, signals.get(&pgid).copied().unwrap_or(libc::SIGKILL));
    }
}

fn signal_group(pgid: i32, signal: i32) {
    if pgid > 1 && signal > 0 {
        // SAFETY: kill(2) with a negative pid targets the group only.
        unsafe {
            libc::kill(-pgid, signal);
        }
    }
}

/// Sends SIGKILL to a whole process group; a group that no longer exists is fine.
pub fn kill_group(pgid: i32) {
    signal_group(pgid, libc::SIGKILL);
}
