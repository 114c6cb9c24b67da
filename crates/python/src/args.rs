//! Command line of `minrepro python`.

use std::path::PathBuf;

use minrepro_engine::{CommonArgs, PredicateArgs};

/// How candidates are executed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum Backend {
    /// Warm fork-server helpers: one interpreter per job slot imports --preload modules once and
    /// forks an isolated child per candidate.
    Runner,
    /// A fresh interpreter process for every candidate.
    Subproc,
}

/// Extra help text of `minrepro python --help`: how candidates run and are judged.
pub const LONG_HELP: &str = "\
Every candidate is written, under the source's file name, into a fresh temporary directory and\n\
run as the main script (`PYTHON FILE`, so `__name__ == \"__main__\"`) with that directory as the\n\
working directory, the source's own directory prepended to PYTHONPATH (sibling imports keep\n\
working), PYTHONDONTWRITEBYTECODE=1 and PYTHONHASHSEED=0. A candidate is interesting when\n\
--err-msg occurs (case-sensitive) in its stdout or stderr; its exit status does not matter\n\
unless --interesting-exit-code is given. A timeout never counts as interesting.\n\
\n\
Fidelity guard (on by default): when the original ends in an uncaught Python exception (a\n\
traceback whose last exception line names its type, e.g. `ValueError: ...`), a candidate must\n\
end in an exception of the same type, so a `raise ValueError(\"needle\")` cannot decay into a\n\
TypeError whose traceback merely echoes the source line with the needle. When the original\n\
ends without an uncaught exception (e.g. it prints the message and exits), a candidate must\n\
not end in one either. --any-exception turns the guard off.\n\
\n\
Every candidate is valid Python (checked before it runs). A candidate is not run either when\n\
it uses a name or attribute that the current program defines and it defines nowhere, or has\n\
more calls that do not fit the signature of the program's own function they call (it would die\n\
with NameError, AttributeError or TypeError). Size is measured in Python tokens,\n\
ties broken by bytes. Rewrite groups (statement removals, canonicalizations, simplifications,\n\
integer halving, slow removals) are applied in rounds until a whole round changes nothing;\n\
outside the canonicalization group only smaller candidates are tried. A last pass of each round\n\
tries the text without whitespace-only lines (anywhere, frozen code included) and comment-only\n\
lines (not freeze annotations, comments in frozen code, a #! line or an encoding declaration).\n\
Code marked `# autodd: freeze`, between `# autodd: freeze-start` and `# autodd: end-freeze`, or\n\
under `with __freeze__:` / inside `__freeze__(...)` is never rewritten.\n\
\n\
Without --predicate the predicate is `PYTHON {file}`. A --predicate's arguments may use {file}\n\
(the candidate file, absolute), {workspace} (its directory) and {python} (the resolved\n\
interpreter); --err-msg is then optional and, when given, must occur in the predicate's output.\n\
A predicate without --err-msg and --interesting-exit-code is interesting when it exits with 0.\n\
\n\
Backends: `runner` (the default) keeps one warm helper interpreter per job slot; it imports the\n\
--preload modules once, then forks a child per candidate that runs it as `__main__` in its own\n\
process group with fds 0/1/2 redirected (output of C extensions is captured too). The helper\n\
never runs candidate code, so no state leaks between candidates; results equal `subproc` for\n\
programs that do not depend on process-global state. `subproc` starts a fresh interpreter per\n\
candidate: choose it when a preloaded module starts threads or a GPU context at import time\n\
(fork does not copy threads and GPU contexts do not survive fork), or when the runner warns\n\
that it cannot start (minrepro then falls back to subproc). With --predicate, candidates are\n\
always run by the predicate command itself. The runner's helpers fork candidates on this\n\
machine, so with --launcher slurm minrepro runs fresh interpreters instead (`subproc`, with a\n\
one-line notice); --preload is then a usage error. The interpreter's path must exist on the\n\
nodes.\n\
\n\
OUTPUT is replaced atomically whenever a smaller candidate is accepted and holds the smallest\n\
one at the end (the original when nothing could be removed). The source is never modified.\n\
";

/// Command line of `minrepro python` (see [`LONG_HELP`]).
#[derive(Debug, Clone, clap::Args)]
#[command(after_long_help = LONG_HELP)]
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
    /// Execution backend: `runner` forks each candidate from a warm helper interpreter (fast,
    /// isolated), `subproc` starts a fresh interpreter per candidate (see below).
    #[arg(long = "backend", value_enum, default_value_t = Backend::Runner)]
    pub backend: Backend,
    /// Module the runner's helpers import once before forking candidates (e.g. torch);
    /// repeatable. Only with --backend runner.
    #[arg(long = "preload", value_name = "MODULE")]
    pub preload: Vec<String>,
    /// Python interpreter that runs the candidates (resolved once to its real executable).
    #[arg(long = "python", value_name = "PATH", default_value = "python3")]
    pub python: String,
    /// How the rewrite groups search their sites: probabilistic delta debugging (the default:
    /// about 0.75 of ddmin's predicate runs on the benchmark corpus) or classic ddmin
    /// (re-derives sites after every accepted change). Statement removals go outermost level
    /// first, and use ddmin on texts over 4,000 tokens either way.
    #[arg(long = "strategy", value_enum, default_value_t = crate::passes::Strategy::ProbDd)]
    pub strategy: crate::passes::Strategy,
    /// Write the run's counters as JSON to this file at the end (also when the run is
    /// interrupted or fails after reducing started): predicate runs (the original's two runs
    /// included), cache hits, candidates, accepted, timed-out candidates, sizes, wall time, rounds,
    /// per-pass counts.
    #[arg(long = "stats-json", value_name = "FILE")]
    pub stats_json: Option<PathBuf>,
    /// Turn off the fidelity guard: accept candidates that end in any exception type (or none),
    /// whatever the original ended in.
    #[arg(long = "any-exception")]
    pub any_exception: bool,
    /// Cut each candidate's run at F (>= 1) times the original's run time (at least 1 s, at most
    /// --timeout), so a candidate that hangs (say, a removed loop increment) costs about F runs
    /// of the original instead of a full --timeout. Off by default. The original is then always
    /// run, never answered from the cache, to measure it; verdicts stay cached under --timeout.
    #[arg(long = "timeout-factor", value_name = "F", allow_hyphen_values = true)]
    pub timeout_factor: Option<f64>,
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
