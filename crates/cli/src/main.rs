//! The `minrepro` binary: parses the command line and hands over to a front end.

use std::io::Write;
use std::process::ExitCode;

use clap::{Parser, Subcommand};
use minrepro_engine::RunError;

/// Turns a failing input into the smallest standalone reproducer that still fails the same way.
#[derive(Debug, Parser)]
#[command(name = "minrepro", version, about, long_about = None)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Debug, Subcommand)]
enum Command {
    /// Reduce a bundle of AMDGPU code objects and its metadata (hotswap reducer).
    Bundle(minrepro_bundle::BundleArgs),
    /// Reduce a Python program while --err-msg still appears in its output (AutoDD).
    Python(Box<minrepro_python::PythonArgs>),
}

fn main() -> ExitCode {
    if let Some(code) = minrepro_predicate::guardian::serve_if_requested() {
        return ExitCode::from(code);
    }
    let cli = Cli::parse();
    let name = match &cli.command {
        Command::Bundle(_) => "minrepro bundle",
        Command::Python(_) => "minrepro python",
    };
    if let Err(error) = minrepro_predicate::install_interrupt_handler() {
        let _ = writeln!(std::io::stderr(), "{name}: error: {error}");
        return ExitCode::from(1);
    }
    // Cleans up after us should we be killed outright; a reduction runs on without it.
    if let Err(error) = minrepro_predicate::guardian::start_guardian() {
        let _ = writeln!(
            std::io::stderr(),
            "{name}: warning: {error}; if minrepro is killed with SIGKILL, its predicates' descendants and temporary directory may remain"
        );
    }
    let result = match &cli.command {
        Command::Bundle(args) => minrepro_bundle::run(args),
        Command::Python(args) => minrepro_python::run(args),
    };
    // Whatever happened, no descendant of a predicate may outlive us.
    minrepro_predicate::process::kill_all_orphans();
    // Nor any Slurm job of one of our runs.
    minrepro_predicate::slurm::cancel_leftover_jobs();
    match result {
        Ok(line) => {
            let _ = writeln!(std::io::stdout(), "{line}");
            ExitCode::SUCCESS
        }
        Err(RunError::Usage(message)) => {
            let _ = writeln!(std::io::stderr(), "{name}: error: {message}");
            ExitCode::from(2)
        }
        Err(RunError::Failed(message)) => {
            let _ = writeln!(std::io::stderr(), "{name}: error: {message}");
            ExitCode::from(1)
        }
        Err(RunError::Interrupted) => {
            // The bundle reducer publishes its directory only at the end; the Python reducer
            // has already said which file (if any) holds its last accepted candidate.
            let line = match cli.command {
                Command::Bundle(_) => format!("{name}: interrupted; no output was published"),
                Command::Python(_) => format!("{name}: interrupted"),
            };
            let _ = writeln!(std::io::stderr(), "{line}");
            ExitCode::from(130)
        }
    }
}
