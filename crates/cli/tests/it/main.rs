//! The integration tests of the `minrepro` binary, one test binary with a module per area (as
//! ripgrep lays out its tests): building one binary links once instead of once per file, and
//! every module shares the helpers in [`support`]. Run one area with
//! `cargo test -p minrepro --test it -- MODULE::`.
//!
//! Tests run side by side on the harness's threads in this one process, so none may change
//! process-wide state (environment variables, the working directory, signal dispositions, the
//! child subreaper flag): each passes what its child processes need through their `Command`.

mod support;

mod bundle_interop;
mod bundle_original_checks;
mod bundle_original_e2e;
mod bundle_perf;
mod bundle_reduce;
mod bundle_safety;
// The Slurm tests: named to sort early, since the harness starts tests in name order and their
// one long test (a cluster started, eight scenarios in turn) would otherwise run last, alone.
mod cluster;
mod docs;
mod driver;
mod engine_cache;
mod file_checks;
mod file_cli;
mod file_depth;
mod file_syntax;
mod messages;
mod parent_death;
mod private_tmpdir;
mod progress;
mod python_errors;
mod python_fidelity;
mod python_fixpoint;
mod python_interrupt;
mod python_project;
mod python_pytest;
mod python_reduce;
mod python_runner;
mod python_timeout;
mod python_values;
mod python_wrappers;
mod readme;
mod reliability_faults;
mod reliability_flaky;
mod reliability_hostile;
mod reliability_inputs;
mod reliability_props;
mod reliability_python;
mod reliability_python_props;
mod reliability_python_sigkill;
mod reliability_scale;
mod report;
mod resume;
mod setup_script;
mod slots;
mod width;
