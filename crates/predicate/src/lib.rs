//! The interestingness test of a reduction.
//!
//! A predicate is an argv vector (never a shell string) with literal `{name}` placeholders that are
//! expanded per candidate. Every run happens in the candidate's workspace directory, in its own
//! process group, with stdin from `/dev/null`; the whole group (and any descendant that escaped it
//! with `setsid`) is killed after every run. Output is captured in bounded memory while a required
//! substring is searched for over the full stream.
//!
//! Layers, bottom up: `capture` (bounded capture and streaming search), [`process`] (one child
//! run, Unix specifics), `template` (argv placeholders), `identity` (the files a verdict depends
//! on), `predicate` (configuration, repeated runs) with `verdict` (statuses and outcomes, and how
//! repeated runs make a verdict: all agree, or K of N interesting, stopped once decided),
//! `launch` (local or Slurm runs, GPU slots) with `slurm` (job steps through `srun`, and their
//! cancellation), `scratch` (each run's private `TMPDIR`, removed after it). The private
//! layers' items are re-exported here; [`process`], [`interrupt`] and [`guardian`] stay public for the
//! fork-server runner and the engine's temporary root. [`run_tool`] runs an external tool (not a
//! predicate) the same isolated way, with a timeout and bounded capture.
//! [`guardian`] cleans up after a minrepro that was killed outright.

mod capture;
mod error;
pub mod guardian;
mod identity;
pub mod interrupt;
mod launch;
mod orphans;
mod predicate;
pub mod process;
mod scratch;
mod slurm;
mod template;
mod tool;
mod verdict;

pub use capture::{CapturedStream, OUTPUT_HEAD_LIMIT, OUTPUT_TAIL_LIMIT, TRUNCATED_MARKER};
pub use error::{ExecutableError, IdentityError, SetupError, StartError, TemplateError};
pub use identity::{
    digest_fields, digest_file, resolve_executable, FileIdentity, FileStamp, IdentitySet,
};
pub use interrupt::{
    install_interrupt_handler, is_interrupted, register_group, simulate_interrupt, CancelFlag,
};
pub use launch::{Launch, Launcher, Slot, SLOT_VAR};
pub use predicate::{
    Acceptance, DirectExecutor, EvalError, Executor, OutputCheck, Predicate, PredicateConfig,
    PredicateError,
};
pub use scratch::TEMP_VARS;
pub use slurm::{cancel_leftover_jobs, SlurmLauncher};
pub use template::ArgTemplate;
pub use tool::{run_tool, ToolError, ToolOutput, ToolRun};
pub use verdict::{suggest, Outcome, Quorum, QuorumError, RunRecord, Status, MISS_RATE};

/// Serialises this crate's unit tests that start processes: a run's orphan sweep reaps every
/// zombie child of the process that is not a registered run, so a test's own child started
/// with `std::process` could be reaped under it by another test's run.
#[cfg(test)]
pub(crate) fn processes_lock() -> std::sync::MutexGuard<'static, ()> {
    static LOCK: std::sync::Mutex<()> = std::sync::Mutex::new(());
    LOCK.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
}
