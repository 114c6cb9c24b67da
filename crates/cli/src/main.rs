//! The `minrepro` binary: parses the command line and hands over to a front end.

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
    let cli = Cli::parse();
    let name = match &cli.command {
        Command::Bundle(_) => "minrepro bundle",
        Command::Python(_) => "minrepro python",
    };
    if let Err(error) = minrepro_predicate::install_interrupt_handler() {
        eprintln!("{name}: error: {error}");
        return ExitCode::from(1);
    }
    let result = match &cli.command {
        Command::Bundle(args) => minrepro_bundle::run(args),
        Command::Python(args) => minrepro_python::run(args),
    };
    // Whatever happened, no descendant of a predicate may outlive us.
    minrepro_predicate::process::kill_all_orphans();
    match result {
        Ok(line) => {
            println!("{line}");
            ExitCode::SUCCESS
        }
        Err(RunError::Usage(message)) => {
            eprintln!("{name}: error: {message}");
            ExitCode::from(2)
        }
        Err(RunError::Failed(message)) => {
            eprintln!("{name}: error: {message}");
            ExitCode::from(1)
        }
        Err(RunError::Interrupted) => {
            // The bundle reducer publishes its directory only at the end; the Python reducer
            // has already said which file (if any) holds its last accepted candidate.
            match cli.command {
                Command::Bundle(_) => eprintln!("{name}: interrupted; no output was published"),
                Command::Python(_) => eprintln!("{name}: interrupted"),
            }
            ExitCode::from(130)
        }
    }
}
