//! Command line of `minrepro python`.

use std::path::PathBuf;

use minrepro_engine::{CommonArgs, PredicateArgs};

/// How candidates are executed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum Backend {
    /// Reusable worker processes (currently runs exactly like `subproc`).
    Runner,
    /// A fresh interpreter process for every candidate.
    Subproc,
}

/// Reduce a Python program while a failure message keeps appearing in its output (AutoDD).
///
/// Every candidate is written, under the source's file name, into a fresh temporary directory and
/// run as the main script (`PYTHON FILE`, so `__name__ == "__main__"`) with that directory as the
/// working directory, the source's own directory prepended to PYTHONPATH (sibling imports keep
/// working), PYTHONDONTWRITEBYTECODE=1 and PYTHONHASHSEED=0. A candidate is interesting when
/// --err-msg occurs (case-sensitive) in its stdout or stderr; its exit status does not matter
/// unless --interesting-exit-code is given. A timeout never counts as interesting.
///
/// Fidelity guard (on by default): when the original ends in an uncaught Python exception (a
/// traceback whose last exception line names its type, e.g. `ValueError: ...`), a candidate must
/// end in an exception of the same type, so a `raise ValueError("needle")` cannot decay into a
/// TypeError whose traceback merely echoes the source line with the needle. When the original
/// ends without an uncaught exception (e.g. it prints the message and exits), a candidate must
/// not end in one either. --any-exception turns the guard off.
///
/// Every candidate is valid Python (checked before it runs). Size is measured in Python tokens,
/// ties broken by bytes. Rewrite groups (statement removals, canonicalizations, simplifications,
/// integer halving, slow removals) are applied in rounds until a whole round changes nothing.
/// Code marked `# autodd: freeze`, between `# autodd: freeze-start` and `# autodd: end-freeze`, or
/// under `with __freeze__:` / inside `__freeze__(...)` is never rewritten.
///
/// OUTPUT is replaced atomically whenever a smaller candidate is accepted and holds the smallest
/// one at the end (the original when nothing could be removed). The source is never modified.
#[derive(Debug, Clone, clap::Args)]
#[command(verbatim_doc_comment)]
pub struct PythonArgs {
    /// The Python program to reduce (never modified).
    #[arg(value_name = "SOURCE")]
    pub source: PathBuf,
    /// Case-sensitive substring that must occur in a candidate's stdout or stderr. Required
    /// unless --predicate is given (then it is an extra condition on the predicate's output).
    #[arg(long = "err-msg", value_name = "MSG")]
    pub err_msg: Option<String>,
    /// File that receives the smallest accepted candidate (replaced atomically).
    #[arg(short = 'o', long = "output", value_name = "OUTPUT")]
    pub output: PathBuf,
    /// Execution backend. `runner` currently runs every candidate in a fresh interpreter, exactly
    /// like `subproc` (reusable workers are not implemented yet).
    #[arg(long = "backend", value_enum, default_value_t = Backend::Runner)]
    pub backend: Backend,
    /// Python interpreter that runs the candidates (resolved once to its real executable).
    #[arg(long = "python", value_name = "PATH", default_value = "python3")]
    pub python: String,
    /// Turn off the fidelity guard: accept candidates that end in any exception type (or none),
    /// whatever the original ended in.
    #[arg(long = "any-exception")]
    pub any_exception: bool,
    /// Engine flags.
    #[command(flatten)]
    pub common: CommonArgs,
    /// Predicate flags. Without --predicate the predicate is `PYTHON {file}`. With --predicate,
    /// its arguments may use {file} (the candidate file, absolute), {workspace} (its directory)
    /// and {python} (the resolved interpreter); without --err-msg and --interesting-exit-code a
    /// predicate is interesting when it exits with 0.
    #[command(flatten)]
    pub predicate: PredicateArgs,
}
