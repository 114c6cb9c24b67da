//! The `minrepro` binary: parses the command line and hands over to a front end.

use std::io::{stdout, Write};
use std::process::ExitCode;

use clap::{Parser, Subcommand};
use minrepro_driver::RunError;

mod docs;
mod style;

/// Turns a failing input into the smallest standalone reproducer that still fails the same way.
#[derive(Debug, Parser)]
#[command(name = "minrepro", version, propagate_version = true, about, long_about = None)]
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
    /// Reduce any text file, several files or a source tree (C-Reduce style: `TEST FILE...`).
    File(Box<minrepro_file::FileArgs>),
    /// Print a shell completion script (bash, zsh, fish, elvish or powershell).
    Completions(docs::CompletionsArgs),
    /// Print the manual page (roff; `minrepro man | man -l -`), or write them all with --dir.
    Man(docs::ManArgs),
}

fn main() -> ExitCode {
    if let Some(code) = minrepro_predicate::guardian::serve_if_requested() {
        return ExitCode::from(code);
    }
    let cli = Cli::parse();
    let name = match &cli.command {
        Command::Bundle(_) => "minrepro bundle",
        Command::Python(_) => "minrepro python",
        Command::File(_) => "minrepro file",
        Command::Completions(args) => return print_docs(docs::completions(args, &mut stdout())),
        Command::Man(args) => return print_docs(docs::man(args, &mut stdout())),
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
        Command::Python(args) => match minrepro_python::beyond_cpython(args) {
            Some(notice) => {
                if !args.common.quiet {
                    let _ = writeln!(std::io::stderr(), "{name}: {notice}");
                }
                minrepro_file::run(&file_args_for(args))
            }
            None => minrepro_python::run(args),
        },
        Command::File(args) => minrepro_file::run(args),
        Command::Completions(_) | Command::Man(_) => unreachable!("answered above"),
    };
    // Whatever happened, no descendant of a predicate may outlive us.
    minrepro_predicate::process::kill_all_orphans();
    let error = style::paint("error:", style::Colour::Red, style::stderr_wanted());
    // Nor any Slurm job of one of our runs.
    minrepro_predicate::cancel_leftover_jobs();
    match result {
        Ok(line) => {
            let line = style::paint(&line, style::Colour::Green, style::stdout_wanted());
            let _ = writeln!(std::io::stdout(), "{line}");
            ExitCode::SUCCESS
        }
        Err(RunError::Interrupted) => {
            // The bundle reducer publishes its directory only at the end; the Python reducer
            // has already said which file (if any) holds its last accepted candidate.
            let line = match cli.command {
                Command::Bundle(_) => format!("{name}: interrupted; no output was published"),
                _ => format!("{name}: interrupted"),
            };
            let _ = writeln!(std::io::stderr(), "{line}");
            ExitCode::from(RunError::Interrupted.exit_code())
        }
        Err(failure) => {
            let _ = writeln!(std::io::stderr(), "{name}: {error} {failure}");
            ExitCode::from(failure.exit_code())
        }
    }
}

/// `minrepro file`'s command line for a Python source that `minrepro python` hands over (see
/// `minrepro_python::beyond_cpython`, which leaves `--err-msg` to `minrepro python`): the same
/// source, output, `--force`, strategy, predicate and common flags, the Python grammar.
fn file_args_for(args: &minrepro_python::PythonArgs) -> minrepro_file::FileArgs {
    minrepro_file::FileArgs {
        operands: args.source.iter().cloned().collect(),
        output: Some(args.output.clone()),
        in_place: false,
        err_msg: None,
        force: args.force,
        allow_empty: false,
        strategy: args.strategy,
        language: Some("python".to_owned()),
        list_languages: false,
        common: args.common.clone(),
        predicate: args.predicate.clone(),
    }
}

/// Exit status of `completions` and `man`, which write to stdout and start no reduction.
fn print_docs(result: anyhow::Result<()>) -> ExitCode {
    match result.and_then(|()| stdout().flush().map_err(Into::into)) {
        Ok(()) => ExitCode::SUCCESS,
        Err(error) => {
            let _ = writeln!(std::io::stderr(), "minrepro: error: {error:#}");
            ExitCode::from(1)
        }
    }
}
