//! Command line of `minrepro file`.

use std::path::PathBuf;

use minrepro_driver::{CommonArgs, PredicateArgs, StrategyArg};

/// Extra help text of `minrepro file --help`, with the figures of the token-run sweeps filled in
/// from [`crate::windows`].
pub fn long_help() -> String {
    use crate::windows::{
        LONG_WINDOW_MAX_TOKENS, LONG_WINDOW_SIZES, WINDOW_MAX_TOKENS, WINDOW_SIZES,
    };
    let list = |sizes: &[usize]| {
        let words: Vec<String> = sizes.iter().map(usize::to_string).collect();
        match words.split_last() {
            Some((last, [])) => last.clone(),
            Some((last, rest)) => format!("{} and {last}", rest.join(", ")),
            None => String::new(),
        }
    };
    let runs = format!(
        "runs of {} tokens on a file of up to {WINDOW_MAX_TOKENS} tokens, runs of {} tokens on one of up to {LONG_WINDOW_MAX_TOKENS}",
        list(&WINDOW_SIZES),
        list(&LONG_WINDOW_SIZES)
    );
    LONG_HELP.replace("{RUNS}", &wrap_runs(&runs))
}

/// `runs` with a line break at the help text's width, where the template's line breaks are.
fn wrap_runs(runs: &str) -> String {
    runs.replacen(" tokens, runs", " tokens,\nruns", 1)
}

/// The template of [`long_help`] (`{RUNS}`: the token-run sweeps).
const LONG_HELP: &str = "\
Two ways to say what is interesting. C-Reduce's: `minrepro file ./interesting.sh FILE...` runs\n\
the script (no arguments) in a fresh directory holding the candidate files under their relative\n\
names (a relative input path as given, e.g. src/a.c; an absolute one by its file name); exit 0\n\
means interesting. Or every operand is an input and --predicate EXE --predicate-arg ARG... is\n\
the test, with {file} (the first candidate file, absolute) and {workspace} (the candidate\n\
directory, also its working directory) in its arguments; it is interesting when it exits with\n\
--interesting-exit-code (default 0). With --err-msg MSG (either form) MSG must also occur in\n\
the test's stdout or stderr, and the exit code matters only with --interesting-exit-code.\n\
Before reducing, the test runs on empty files: when it accepts them too it checks too little,\n\
and minrepro stops (--allow-empty reduces anyway).\n\
\n\
A directory operand stands for every regular file below it. Binary files (NUL bytes, or mostly\n\
bytes that are neither ASCII nor UTF-8) are kept byte for byte or removed whole; other text that\n\
is not UTF-8 is read as latin-1 and written back byte for byte. Whole files go first (never the last\n\
one), then every text file is reduced by language-independent passes: lines by nesting level\n\
(top-level forms first), indentation blocks (Python, YAML, Makefiles), bracket regions, comments\n\
(by extension: // and /* */, #, ;), whitespace, single tokens (a single file also gets\n\
{RUNS}, swept left to right), string literals, integers,\n\
identifiers renamed shorter, and a final tidy, in rounds until a whole round changes nothing.\n\
A single file with a tree-sitter grammar (by extension or --language; --list-languages) gets\n\
syntax-aware passes first: deleting what the grammar allows to be absent and replacing a node\n\
by a compatible descendant, level by level from the root; then the passes above. Candidates\n\
that parse with more errors than the current text are never run.\n\
Size is counted in tokens (ties by bytes). Reruns with the same -j are byte-identical (--exact: every -j gives -j 1's result).\n\
\n\
Output: -o PATH (a file for one input file; a directory for several files or a directory), or\n\
--in-place (each input replaced, the original kept as FILE.orig; refused if one exists); an\n\
existing PATH is replaced only with --force. The output always holds the smallest interesting\n\
candidate so far (each file replaced atomically), also after Ctrl-C; the inputs are never\n\
modified otherwise.";

/// `minrepro file`.
#[derive(Debug, Clone, clap::Args)]
#[command(after_long_help = long_help())]
pub struct FileArgs {
    /// Without --predicate: the interestingness test, then the inputs. With it: the inputs.
    /// An input may be a directory.
    #[arg(
        value_name = "TEST_OR_INPUT",
        required_unless_present = "list_languages"
    )]
    pub operands: Vec<PathBuf>,
    /// Where the result goes: a new file for one input file, else a new directory.
    #[arg(short = 'o', long, value_name = "PATH")]
    pub output: Option<PathBuf>,
    /// Replace the inputs, keeping each original as FILE.orig (refused if one exists).
    #[arg(long, conflicts_with = "output")]
    pub in_place: bool,
    /// Case-sensitive text that must occur in the test's stdout or stderr for a candidate to be
    /// interesting (say, the compiler's error message); the test's exit code then does not
    /// matter unless --interesting-exit-code is given.
    #[arg(
        long,
        value_name = "MSG",
        value_parser = clap::builder::NonEmptyStringValueParser::new()
    )]
    pub err_msg: Option<String>,
    /// Replace -o PATH even though it exists: a file, or a directory that holds nothing but
    /// files of the inputs' names (an earlier result). Without it an existing PATH is refused.
    #[arg(long, conflicts_with = "in_place")]
    pub force: bool,
    /// Reduce even when the test also accepts an empty input. Without it, minrepro first runs
    /// the test on empty files and stops when that is interesting: such a test checks too
    /// little, and the result would be empty.
    #[arg(long)]
    pub allow_empty: bool,
    /// Search strategy of the site groups.
    #[arg(long, value_enum, default_value_t = StrategyArg::ProbDd)]
    pub strategy: StrategyArg,
    /// Grammar of a single input file for syntax-aware passes (default: chosen by its
    /// extension; `none`: language-independent passes only). See --list-languages.
    #[arg(long, value_name = "NAME")]
    pub language: Option<String>,
    /// List the languages with a grammar (name and extensions) and exit.
    #[arg(long)]
    pub list_languages: bool,
    #[command(flatten)]
    pub common: CommonArgs,
    #[command(flatten)]
    pub predicate: PredicateArgs,
}
