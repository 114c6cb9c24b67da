//! A warm, isolated fork-server backend for Python candidates.
//!
//! One long-lived helper interpreter per job slot imports the `--preload` modules once, then, per
//! candidate, forks a child that runs the candidate file as `__main__` in its own process group,
//! with fds 0/1/2 redirected at the descriptor level (so output of C extensions is captured too).
//! The helper never runs candidate code itself, so no state leaks between candidates. We supervise
//! the forked child exactly like a direct child ([`minrepro_predicate::process::run_supervised`]):
//! timeouts kill its whole group, escaped descendants are reaped, output capture is bounded.
//! A helper that dies is replaced and the candidate retried once on a fresh helper.
//! Besides the `--preload` modules a helper may import the third-party modules the program
//! imports at its top level ([`Preload::automatic`]), leaving out with a reason any that fails,
//! prints, or makes forking unsafe.

mod helper;
mod preload;
mod rundir;

pub use helper::RunnerPool;
pub use preload::{Preload, Ready};
