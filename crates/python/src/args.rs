//! Command line of `minrepro python`.

use std::path::PathBuf;

use crate::timeout_factor::{parse_timeout_factor, TimeoutFactor};
use minrepro_driver::{CommonArgs, PredicateArgs, StrategyArg};

/// How candidates are executed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum Backend {
    /// Warm fork-server helpers: one interpreter per job slot imports --preload modules once and
    /// forks an isolated child per candidate.
    Runner,
    /// A fresh interpreter process for every candidate.
    Subproc,
}

/// When a timed-out candidate is judged once more (`--rejudge-timeouts`; see
/// [`minrepro_text::Rejudge`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum RejudgeArg {
    /// When the machine is oversubscribed.
    Auto,
    /// Always, at the full --timeout.
    Always,
    /// Never.
    Never,
}

impl From<RejudgeArg> for minrepro_text::Rejudge {
    fn from(arg: RejudgeArg) -> Self {
        match arg {
            RejudgeArg::Auto => minrepro_text::Rejudge::Auto,
            RejudgeArg::Always => minrepro_text::Rejudge::Always,
            RejudgeArg::Never => minrepro_text::Rejudge::Never,
        }
    }
}

/// How closely a candidate's failure must match the original's (`--fidelity`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum Fidelity {
    /// Only --err-msg (and --interesting-exit-code): any exception type, or none.
    Message,
    /// Also the uncaught exception's type (or, without one, again none).
    Type,
    /// Also where it is raised: the innermost traceback frame in the same file (the program,
    /// or the same library module) and the same function (qualified name).
    Origin,
}

/// Extra help text of `minrepro python --help`: how candidates run and are judged.
pub const LONG_HELP: &str = "\
Every candidate is written, under the source's file name, into a fresh temporary directory (its\n\
workspace) and run as the main script (`PYTHON FILE ARG...`, so `__name__ == \"__main__\"`, with\n\
the --arg values as sys.argv[1:]) with the source's own directory prepended to PYTHONPATH\n\
(sibling imports keep working), PYTHONDONTWRITEBYTECODE=1, PYTHONHASHSEED=0 and the --env\n\
settings. Its working directory is the directory minrepro was started in (as in AutoDD: relative\n\
paths resolve as they did for the original), or --cwd DIR, or with --isolated-cwd its own empty\n\
workspace. Under -j N up to N candidates run at once in a shared working directory: a program\n\
that writes files there must not depend on what another candidate writes (use --isolated-cwd\n\
when it writes fixed file names, or read-only inputs and a predicate that ignores them). A candidate is interesting when\n\
--err-msg occurs (case-sensitive) in its stdout or stderr; its exit status does not matter\n\
unless --interesting-exit-code is given. A timeout never counts as interesting.\n\
\n\
Fidelity guard (--fidelity, `origin` by default): a candidate must fail the way the original\n\
does, not merely print --err-msg. `message` keeps only --err-msg (and --interesting-exit-code).\n\
`type` also keeps the uncaught exception's type: when the original ends in one (a traceback\n\
whose last exception line names its type, e.g. `ValueError: ...`), a candidate must end in an\n\
exception of the same type, so a `raise ValueError(\"needle\")` cannot decay into a TypeError\n\
whose traceback merely echoes the source line with the needle. `origin` also keeps where it is\n\
raised: the innermost frame of the final traceback must be in the same file (the program, or\n\
the same module of a library) and in code of the same qualified name (`PricingEngine.resolve`,\n\
read off the frame's line in that file). Origin is the default because a reproducer is worth\n\
reporting for where it fails, as a compiler crash is known by the function it crashes in: at\n\
`type`, a KeyError raised deep in a class hierarchy may reduce to `{}['platinum']` at the top\n\
level, which prints the message but shows neither the method nor the call that reaches it.\n\
Under `origin` the failing function is never inlined into its caller. The run's first message\n\
after the original says which function the failure must stay in. When the original ends\n\
without an uncaught exception (e.g. it prints the message and exits), a candidate must not end\n\
in one either, at `type` and `origin`. --any-exception is --fidelity message.\n\
\n\
Every candidate is valid Python (checked before it runs). A candidate is not run either when\n\
it uses a name or attribute that the current program defines and it defines nowhere, or has\n\
more calls that do not fit the signature of the program's own function they call (it would die\n\
with NameError, AttributeError or TypeError); what this guess refuses, and what a round\n\
skips because it failed on an earlier text, is tried once more, one edit at a time, before the\n\
reduction ends. Size is measured in Python tokens: every token of the lexer except comments and\n\
the newlines of blank or continued lines, so NEWLINE, INDENT and DEDENT count, and an f-string\n\
counts as its parts (`f\"a{b}\"`: start, `a`, `{`, `b`, `}`, end) as Python 3.12's `tokenize`\n\
splits it (3.11's counts it as one token); ties broken by bytes; statement and expression edits must save tokens (only integer halving and\n\
string shortening may save bytes alone), and a method keeps its first parameter (`self`).\n\
Rewrite groups (statement removals, canonicalizations, simplifications, integer halving, slow\n\
removals) are applied in rounds until a whole round changes nothing (and a last round\n\
searching as a fresh reduction of the result would changes nothing either);\n\
outside the canonicalization group only smaller candidates are tried. A last pass of each round\n\
tries the text without whitespace-only lines (anywhere, frozen code included) and comment-only\n\
lines (not freeze annotations, comments in frozen code, a #! line or an encoding declaration).\n\
Code marked `# autodd: freeze`, between `# autodd: freeze-start` and `# autodd: end-freeze`, or\n\
under `with __freeze__:` / inside `__freeze__(...)` is never rewritten.\n\
\n\
Without --predicate the predicate is `PYTHON {file}`. A --predicate's arguments may use {file}\n\
(the candidate file, absolute), {workspace} (its directory), {python} (the resolved\n\
interpreter) and {slot} (the run's slot, 0..N-1 under -j N); --err-msg is then optional and,\n\
when given, must occur in the predicate's output.\n\
A predicate without --err-msg and --interesting-exit-code is interesting when it exits with 0.\n\
A source nested deeper than CPython parses (more than 200 nested brackets, 100 indentation\n\
levels) is refused, except with a --predicate (and no --err-msg, --preload, script arguments,\n\
--env, --cwd, --isolated-cwd or {python}): the tool under test need not be CPython, so the\n\
source is then reduced by `minrepro file`'s passes (tree-sitter's Python grammar, nested\n\
chains cut by bisection, then the language-independent passes), with a notice saying so.\n\
\n\
Backends: `runner` (the default) keeps one warm helper interpreter per job slot; it imports the\n\
--preload modules once, and the third-party modules the original imports at its top level\n\
(so a program on torch does not import torch again for every candidate; --no-auto-preload\n\
turns this off; a module whose import fails, prints, starts a Python thread or initialises\n\
CUDA is left out with a one-line notice, and its candidates import it themselves), then forks a child per candidate that runs it as `__main__` in its own\n\
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
With --pytest NODEID the program is a pytest test: candidates run `PYTHON -c BOOTSTRAP -x -q -p\n\
no:cacheprovider NODEID` (pytest's main with one plugin object, as `python -m pytest` would) in\n\
their workspace, a copy of the project root, and the plugin prints the exception pytest\n\
reports for the test (setup, call or teardown; not a collection error) as an uncaught\n\
exception's traceback, which the fidelity guard reads as for a script. The test file, the\n\
conftest.py files from the root down to it and the local modules they import are reduced\n\
together. The reduced test then becomes a plain script (its fixtures called directly, a\n\
`yield` fixture's first value bound, the parametrize case that ran bound, the pytest.mark and\n\
fixture decorators gone, the test called at the end), kept only if `PYTHON SCRIPT` without\n\
pytest fails the same way, and reduced further as a script; otherwise OUTPUT stays the\n\
reduced pytest test and the last line says why.\n\
\n\
OUTPUT is replaced atomically whenever a smaller candidate is accepted and holds the smallest\n\
one at the end (the original when nothing could be removed). The source is never modified.\n\
";

/// Command line of `minrepro python` (see [`LONG_HELP`]).
#[derive(Debug, Clone, clap::Args)]
#[command(after_long_help = LONG_HELP)]
pub struct PythonArgs {
    /// The Python program to reduce (never modified). Not with --pytest, whose node id names
    /// the test file.
    #[arg(
        value_name = "SOURCE",
        required_unless_present = "pytest",
        conflicts_with = "pytest"
    )]
    pub source: Option<PathBuf>,
    /// Reduce a failing pytest test instead of a program: NODEID as pytest names it
    /// (`tests/test_orders.py::test_discount[gold]`, its path relative to the current
    /// directory). Candidates run `PYTHON -m pytest -x -q -p no:cacheprovider NODEID` in a
    /// copy of the project root (--root) holding the candidate's files; the failure is the
    /// test's (its exception type and the function raising it, read by a small pytest plugin).
    /// The test file, the conftest.py files from the root down to it, and the local modules
    /// they import are reduced together. Then the test becomes a plain script (its fixtures
    /// called directly, the chosen parametrize case bound, the test called at the end), kept
    /// only if `PYTHON SCRIPT` without pytest still fails the same way, and reduced further as
    /// a script; otherwise OUTPUT stays a pytest test and the run says why.
    #[arg(
        long,
        value_name = "NODEID",
        conflicts_with_all = ["predicate", "script_args", "cwd", "isolated_cwd", "preload"]
    )]
    pub pytest: Option<String>,
    /// Case-sensitive substring that must occur in a candidate's stdout or stderr. Required
    /// unless --predicate is given (then it is an extra condition on the predicate's output).
    #[arg(
        long,
        value_name = "MSG",
        required_unless_present = "predicate",
        value_parser = clap::builder::NonEmptyStringValueParser::new()
    )]
    pub err_msg: Option<String>,
    /// File that receives the smallest accepted candidate (replaced atomically).
    #[arg(short = 'o', long, value_name = "OUTPUT")]
    pub output: PathBuf,
    /// Execution backend: `runner` forks each candidate from a warm helper interpreter (fast,
    /// isolated), `subproc` starts a fresh interpreter per candidate (see below).
    #[arg(long, value_enum, default_value_t = Backend::Runner)]
    pub backend: Backend,
    /// Module the runner's helpers import once before forking candidates (e.g. torch);
    /// repeatable. Only with --backend runner.
    #[arg(long, value_name = "MODULE")]
    pub preload: Vec<String>,
    /// Do not preload the program's own top-level imports: by default the runner's helpers also
    /// import, once, every third-party module the original imports at its top level (outside
    /// its directory and the standard library), leaving out with a one-line notice any whose
    /// import fails, prints, starts a thread or initialises CUDA.
    #[arg(long)]
    pub no_auto_preload: bool,
    /// Python interpreter that runs the candidates (resolved once to its real executable).
    /// `python -m minrepro` sets MINREPRO_PYTHON to its own interpreter.
    #[arg(
        long,
        value_name = "PATH",
        env = "MINREPRO_PYTHON",
        default_value = "python3"
    )]
    pub python: String,
    /// How the rewrite groups search their sites: probabilistic delta debugging (the default:
    /// about 0.75 of ddmin's predicate runs on the benchmark corpus) or classic ddmin
    /// (re-derives sites after every accepted change). Statement removals go outermost level
    /// first, and use ddmin on texts over 4,000 tokens either way.
    #[arg(long, value_enum, default_value_t = StrategyArg::ProbDd)]
    pub strategy: StrategyArg,
    /// What a candidate's failure must keep of the original's: `message` (--err-msg only),
    /// `type` (also the uncaught exception's type), `origin` (also the function and file that
    /// raise it; see below).
    #[arg(long, value_enum, default_value_t = Fidelity::Origin)]
    pub fidelity: Fidelity,
    /// The same as --fidelity message: accept candidates that end in any exception type (or
    /// none), whatever the original ended in.
    #[arg(long, conflicts_with = "fidelity")]
    pub any_exception: bool,
    /// Cut each candidate's run at F (>= 1) times the original's run time (at least 1 s, at most
    /// --timeout), so a candidate that hangs (say, a removed loop increment) costs about F runs
    /// of the original instead of a whole --timeout; `off` waits the full --timeout. On by
    /// default: on the benchmark corpus it changed no result and cut the wall time to a fifth
    /// (hanging candidates had taken most of it). The cost is determinism across machines: on a
    /// machine much slower or busier than when the original was measured, a candidate that would
    /// pass may time out (and is then rejected, never cached), so the output may differ. The
    /// original is always run, never answered from the cache, to measure it.
    #[arg(
        long,
        value_name = "F|off",
        default_value = "10",
        value_parser = parse_timeout_factor,
        allow_hyphen_values = true
    )]
    pub timeout_factor: TimeoutFactor,
    /// Whether a candidate that timed out at the --timeout-factor limit is run once more, at a
    /// longer limit, before it is rejected: `auto` when the machine is oversubscribed at that
    /// moment (1-minute load average L above its P processors, so the limit measured on the
    /// original may be too short), at that limit times L / P; `always`, at the full --timeout
    /// (every hanging candidate then costs a whole --timeout more); `never`. The summary says
    /// how many were re-judged.
    #[arg(long, value_name = "WHEN", default_value = "auto")]
    pub rejudge_timeouts: RejudgeArg,
    /// Directory every candidate runs in [default: the directory minrepro was started in, as in
    /// AutoDD, so relative paths such as open("data.json") resolve as they did for the original].
    #[arg(long, value_name = "DIR", conflicts_with = "isolated_cwd")]
    pub cwd: Option<PathBuf>,
    /// Run each candidate in a fresh, empty directory of its own (its workspace) instead, so that
    /// files it writes cannot affect other candidates or your directories.
    #[arg(long)]
    pub isolated_cwd: bool,
    /// An argument for the program (its `sys.argv[1:]`); repeat for more. Files named here are
    /// part of the cache key by content. Not with --predicate (give its arguments with
    /// --predicate-arg).
    #[arg(
        long = "arg",
        value_name = "ARG",
        allow_hyphen_values = true,
        conflicts_with = "predicate"
    )]
    pub script_args: Vec<String>,
    /// An environment variable for every candidate run, NAME=VALUE; repeatable. Overrides
    /// minrepro's own settings for the same name (PYTHONPATH, PYTHONHASHSEED, ...).
    #[arg(long, value_name = "NAME=VALUE", value_parser = parse_env_assignment)]
    pub env: Vec<(String, String)>,
    /// Turn off runtime-value substitution: by default an instrumented run of the current
    /// program (not a candidate; its cost is in --stats-json) records the values expressions
    /// take, and an expression whose evaluation ran only the program's own code and the
    /// standard library may be replaced by the literal it evaluated to (`f"{a.shape[1]}"` →
    /// `f"{128}"`), or, for a value without a literal, by a call that rebuilds it (an instance
    /// of the program's class whose constructor needs no argument: `Linear()`; a library's
    /// array: `np.zeros((3, 4))`). Expressions that entered third-party code (any module
    /// outside the program and the standard library) are never replaced, unless the failure is
    /// raised inside a library function (`--fidelity origin` keeps it there). Off with
    /// --predicate, a remote --launcher, or a source not in UTF-8.
    #[arg(long)]
    pub no_value_substitution: bool,
    /// The project's root directory: when SOURCE imports modules that resolve inside it (found
    /// below SOURCE's directory, as `sys.path[0]` finds them), they are reduced with SOURCE and
    /// then inlined into it, so that OUTPUT is one standalone file (a directory when that does
    /// not reproduce; the run says why). Modules outside the root (site-packages, the standard
    /// library) are never touched. [default: the nearest directory from SOURCE's upwards that
    /// holds pyproject.toml or setup.py, not beyond a version-control root (.git, .hg, .svn),
    /// else SOURCE's directory (with --pytest: else the current directory, where `python -m
    /// pytest` would run)]
    #[arg(long, value_name = "DIR")]
    pub root: Option<PathBuf>,
    /// Replace OUTPUT even though it exists (without this, an existing OUTPUT is refused, so that
    /// a mistyped -o cannot overwrite an unrelated file).
    #[arg(long)]
    pub force: bool,
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

impl PythonArgs {
    /// The fidelity level asked for (--any-exception is `message`).
    pub fn fidelity_level(&self) -> Fidelity {
        if self.any_exception {
            Fidelity::Message
        } else {
            self.fidelity
        }
    }
}

/// Parses `--env NAME=VALUE`: a non-empty name without `=` or NUL, and a value without NUL.
fn parse_env_assignment(text: &str) -> Result<(String, String), String> {
    let (name, value) = text
        .split_once('=')
        .ok_or_else(|| "expected NAME=VALUE".to_string())?;
    if name.is_empty() || name.contains('\0') || value.contains('\0') {
        return Err("expected NAME=VALUE with a non-empty NAME and no NUL bytes".into());
    }
    Ok((name.to_owned(), value.to_owned()))
}

#[cfg(test)]
mod tests {
    use super::parse_env_assignment;

    #[test]
    fn env_assignments_split_at_the_first_equals_sign() {
        assert_eq!(
            parse_env_assignment("A=b=c").unwrap(),
            ("A".to_owned(), "b=c".to_owned())
        );
        assert_eq!(
            parse_env_assignment("EMPTY=").unwrap(),
            ("EMPTY".to_owned(), String::new())
        );
        for bad in ["NOEQUALS", "=value", "A\0B=c"] {
            assert!(parse_env_assignment(bad).is_err(), "{bad:?}");
        }
    }
}
