//! The interestingness test of a reduction.
//!
//! A predicate is an argv vector (never a shell string) with literal `{name}` placeholders that are
//! expanded per candidate. Every run happens in the candidate's workspace directory, in its own
//! process group, with stdin from `/dev/null`; the whole group (and any descendant that escaped it
//! with `setsid`) is killed after every run. Output is captured in bounded memory while a required
//! substring is searched for over the full stream.
//!
//! Layers, bottom up: [`capture`] (bounded capture and streaming search), [`process`] (one child
//! run, Unix specifics), [`template`] (argv placeholders), [`identity`] (the files a verdict
//! depends on), [`predicate`] (configuration, repeated runs, statuses), [`launch`] (local or
//! Slurm runs, GPU slots) with [`slurm`] (job steps through `srun`, and their cancellation).
//! [`run_tool`] runs an external tool (not a predicate) the same isolated way, with a timeout and
//! bounded capture.
//! [`guardian`] cleans up after a minrepro that was killed outright.

pub mod capture;
mod error;
pub mod guardian;
pub mod identity;
pub mod interrupt;
pub mod launch;
mod orphans;
pub mod predicate;
pub mod process;
pub mod slurm;
pub mod template;
mod tool;

pub use capture::{CapturedStream, OUTPUT_HEAD_LIMIT};
pub use error::{ExecutableError, IdentityError, SetupError, StartError, TemplateError};
pub use identity::{digest_file, resolve_executable, FileIdentity, IdentitySet};
pub use interrupt::{
    install_interrupt_handler, is_interrupted, register_group, simulate_interrupt, CancelFlag,
};
pub use launch::{Launch, Launcher, SLOT_VAR};
pub use predicate::{
    Acceptance, DirectExecutor, EvalError, Executor, Outcome, OutputCheck, Predicate,
    PredicateConfig, PredicateError, RunRecord, Status,
};
pub use slurm::SlurmLauncher;
pub use template::ArgTemplate;
pub use tool::{run_tool, ToolError, ToolOutput, ToolRun};
