//! The flags every front end shares, parsed and validated once: a value no run could honour
//! (`--timeout nan`, `--predicate-runs 0`, an empty `--cache-tag`) is refused while the command
//! line is parsed, with the same words and exit status 2 in every front end, before anything
//! reads it.

use std::path::{Path, PathBuf};

use crate::RunError;

/// Whether `-j N` folds concurrent successes when neither `--fold` nor `--exact` is given:
/// measured in bench/parallel/RESULTS.md (never larger than -j 1 there, and faster), see
/// docs/scale.md.
pub const FOLD_BY_DEFAULT: bool = true;

/// Flags shared by every subcommand.
#[derive(Debug, Clone, clap::Args)]
pub struct CommonArgs {
    /// Evaluate up to N candidates in parallel. By default (folding) a rerun with the same N
    /// writes byte-identical output and log, but different values of N may end in different
    /// (never larger on the benchmarks) results; --exact makes every N give -j 1's result.
    #[arg(short = 'j', long, default_value_t = 1, value_parser = clap::value_parser!(u32).range(1..=256))]
    pub jobs: u32,
    /// The default under -j N: decide a batch's candidates N at a time and fold concurrent
    /// successes into one candidate (accepted only once it is judged interesting itself).
    /// Fewer rounds when many candidates succeed; results and logs are identical on every
    /// rerun with the same N, but may differ between values of N.
    #[arg(long, conflicts_with = "exact")]
    pub fold: bool,
    /// Accept candidates exactly in the order a -j 1 run would: results and logs identical for
    /// every N (no folding; slower when many candidates succeed).
    #[arg(long)]
    pub exact: bool,
    /// No progress output and no statistics; errors and the final line that names the output
    /// (`wrote FILE …`) are still printed.
    #[arg(short = 'q', long)]
    pub quiet: bool,
    /// Persistent outcome cache (versioned JSON, written atomically). It may not be an input,
    /// a predicate identity file, or inside the output. Give concurrent runs distinct files.
    #[arg(long, value_name = "PATH")]
    pub cache_file: Option<PathBuf>,
    /// Write a report of the run to this HTML file at the end (also after Ctrl-C): the size
    /// plotted over predicate runs and over time, per-pass counters and time, timeouts, the
    /// command line, and the original and the result as a diff. One self-contained file: no
    /// network, no scripts.
    #[arg(long, value_name = "FILE.html")]
    pub report: Option<PathBuf>,
    /// Write the run's counters as JSON to this file at the end (also when the reduction fails
    /// or is interrupted after it started): predicate runs launched (speculative ones included),
    /// cancelled runs, cache hits, candidates, accepted, timed-out candidates, sizes, wall and
    /// start-up seconds, rounds, per-pass counts, and the front end's own counters.
    #[arg(long, value_name = "FILE")]
    pub stats_json: Option<PathBuf>,
}

/// Predicate flags shared by every subcommand (defaults applied by each front end).
#[derive(Debug, Clone, clap::Args)]
pub struct PredicateArgs {
    /// Interestingness test executable (resolved through PATH once). Never run by a shell.
    #[arg(long, value_name = "EXE")]
    pub predicate: Option<String>,
    /// One argument of the predicate; repeat for more. Placeholders like {workspace} are expanded
    /// for each candidate; existing regular files are made absolute before the first run. Only
    /// with --predicate.
    #[arg(
        long = "predicate-arg",
        value_name = "ARG",
        allow_hyphen_values = true,
        requires = "predicate"
    )]
    pub predicate_args: Vec<String>,
    /// Exit code that means "still interesting".
    #[arg(long, value_name = "CODE", allow_hyphen_values = true)]
    pub interesting_exit_code: Option<i32>,
    /// Run the predicate N times per candidate (the original too). Without --min-interesting,
    /// every run must agree: runs that disagree make the candidate flaky (rejected), and a flaky
    /// original is refused with the rate it reproduced at.
    #[arg(
        long,
        value_name = "N",
        default_value_t = 1,
        value_parser = parse_predicate_runs
    )]
    pub predicate_runs: u32,
    /// For failures that happen only sometimes: a candidate (the original too) is interesting
    /// when at least K of its --predicate-runs N runs are. Runs stop as soon as the verdict is
    /// decided (K interesting seen, or too few runs left to reach K), so a clear candidate costs
    /// fewer than N runs. 1 <= K <= N. Verdicts are cached with their counts; a rerun of a
    /// flaky predicate cannot be byte-identical, but one with the same --cache-file agrees with
    /// every verdict already paid for.
    #[arg(
        long,
        value_name = "K",
        value_parser = parse_predicate_runs
    )]
    pub min_interesting: Option<u32>,
    /// Per-run timeout in seconds; a run past it is killed (with its whole process group) and
    /// counts as "timeout", never as interesting.
    #[arg(
        long,
        value_name = "SECONDS",
        default_value_t = 60.0,
        allow_hyphen_values = true,
        value_parser = parse_timeout_seconds
    )]
    pub timeout: f64,
    /// A further file the predicate's verdict depends on (library, reference data); part of the
    /// cache key and re-checked around every run. Repeatable.
    #[arg(long = "cache-dependency", value_name = "PATH")]
    pub cache_dependencies: Vec<PathBuf>,
    /// Free-form identity string (environment, configuration) added to the cache key. Repeatable.
    #[arg(long = "cache-tag", value_name = "TAG", value_parser = parse_cache_tag)]
    pub cache_tags: Vec<String>,
    /// Where predicate runs happen: `local` child processes, or `slurm` job steps (`srun`, one
    /// task, job name minrepro-RUNTAG, cwd the candidate's workspace; -j N = up to N steps at
    /// once). With slurm, --work-dir is required and the timeout (ours, not Slurm's) includes
    /// the time a step waits in the queue. The launcher and the slot are not part of the cache
    /// key or the log.
    #[arg(long, value_enum, default_value_t = LauncherKind::Local)]
    pub launcher: LauncherKind,
    /// An option for every `srun` (e.g. --launcher-arg=--partition=gpu
    /// --launcher-arg=--gres=gpu:1 --launcher-arg=--time=10); repeatable. Only with --launcher
    /// slurm.
    #[arg(long = "launcher-arg", value_name = "ARG", allow_hyphen_values = true)]
    pub launcher_args: Vec<String>,
    /// Directory for minrepro's temporary files and candidate workspaces (default: the system
    /// temporary directory). Required with --launcher slurm, and then it must be on a file system
    /// every node that may run a step shares (a step that cannot find its workspace runs in /tmp).
    #[arg(long, value_name = "DIR")]
    pub work_dir: Option<PathBuf>,
    /// Also set variable NAME (e.g. HIP_VISIBLE_DEVICES, CUDA_VISIBLE_DEVICES) to the run's slot;
    /// repeatable. Each of the up to N runs at once (-j N) holds a distinct slot 0..N-1, reused
    /// as runs finish; it is also in MINREPRO_SLOT and the {slot} placeholder. The slot is not
    /// part of the cache key or the log: a predicate whose verdict depends on it (not just its
    /// speed) breaks the guarantee of identical results on reruns (and for every -j under --exact).
    #[arg(long, value_name = "NAME")]
    pub slot_env: Vec<String>,
}

/// The choice of `--strategy` (the text front ends' search of each group's sites).
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum StrategyArg {
    /// Probabilistic delta debugging (lists of more than 1,000 sites use ddmin).
    #[value(name = "probdd")]
    ProbDd,
    /// Complement-based ddmin, sites re-derived from the current text after every acceptance.
    Ddmin,
}

/// The choice of `--launcher`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum LauncherKind {
    /// Direct child processes of minrepro.
    Local,
    /// Slurm job steps through `srun`.
    Slurm,
}

/// The longest `--timeout` accepted (about 31 years): anything larger is surely a typo, and
/// durations near `u64::MAX` seconds would overflow when added to an instant.
pub const MAX_TIMEOUT_SECS: f64 = 1e9;

/// Parses a number of seconds (`--timeout`, and a front end's own time limits such as bundle's
/// `--tool-timeout`): finite, above zero and at most [`MAX_TIMEOUT_SECS`]. Used as a clap value
/// parser, so every front end refuses `nan`, `inf`, `0`, `-1` or `1e30` with the same words and
/// exit status 2, before anything reads the value.
pub fn parse_timeout_seconds(text: &str) -> Result<f64, ValueError> {
    let seconds: f64 = text.trim().parse().map_err(|_| ValueError::NotSeconds)?;
    if !seconds.is_finite() || seconds <= 0.0 || seconds > MAX_TIMEOUT_SECS {
        return Err(ValueError::SecondsOutOfRange);
    }
    Ok(seconds)
}

/// Why a flag's value was refused (clap prints it after the flag's name, exit status 2).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ValueError {
    /// Not a number.
    #[error("must be a positive number of seconds")]
    NotSeconds,
    /// Not finite, not above zero, or above [`MAX_TIMEOUT_SECS`].
    #[error("must be a positive number of seconds, at most {MAX_TIMEOUT_SECS:e}")]
    SecondsOutOfRange,
    /// `--predicate-runs` below 1 or not a whole number.
    #[error("must be a whole number of runs, at least 1")]
    Runs,
    /// An empty `--cache-tag`.
    #[error("must not be empty")]
    Empty,
}

/// Parses `--predicate-runs`: at least one run per candidate.
pub fn parse_predicate_runs(text: &str) -> Result<u32, ValueError> {
    match text.trim().parse::<u32>() {
        Ok(runs) if runs >= 1 => Ok(runs),
        _ => Err(ValueError::Runs),
    }
}

/// Parses `--cache-tag`: any text but the empty string (which would look like no tag at all).
pub fn parse_cache_tag(text: &str) -> Result<String, ValueError> {
    if text.is_empty() {
        return Err(ValueError::Empty);
    }
    Ok(text.to_owned())
}

impl PredicateArgs {
    /// The predicate configuration these flags describe; `executable` is the front end's choice
    /// when `--predicate` is absent, `default_exit_code` applies when `--interesting-exit-code`
    /// is absent.
    pub fn config(
        &self,
        executable: String,
        placeholders: Vec<&'static str>,
        mut acceptance: minrepro_predicate::Acceptance,
        default_exit_code: Option<i32>,
        env: Vec<(String, String)>,
    ) -> minrepro_predicate::PredicateConfig {
        acceptance.exit_code = self.interesting_exit_code.or(default_exit_code);
        minrepro_predicate::PredicateConfig {
            executable,
            args: self.predicate_args.clone(),
            placeholders,
            acceptance,
            runs: self.predicate_runs,
            min_interesting: self.min_interesting,
            timeout_secs: self.timeout,
            cache_tags: self.cache_tags.clone(),
            cache_dependencies: self.cache_dependencies.clone(),
            env,
        }
    }

    /// The configuration of a test whose output may be matched too (`--err-msg`): a run is
    /// interesting when `err_msg`, if given, occurs in its stdout or stderr and it exits with
    /// `--interesting-exit-code`; without that flag the exit code does not matter when
    /// `err_msg` is given, and must be 0 otherwise. `output_check` judges the run further.
    pub fn config_matching(
        &self,
        executable: String,
        placeholders: Vec<&'static str>,
        err_msg: Option<&str>,
        output_check: Option<minrepro_predicate::OutputCheck>,
        env: Vec<(String, String)>,
    ) -> minrepro_predicate::PredicateConfig {
        let acceptance = minrepro_predicate::Acceptance {
            substring: err_msg.map(str::to_owned),
            output_check,
            ..minrepro_predicate::Acceptance::default()
        };
        let default_exit_code = default_exit_code(err_msg);
        self.config(executable, placeholders, acceptance, default_exit_code, env)
    }

    /// The exit code [`config_matching`](Self::config_matching) requires: `--interesting-exit-code`,
    /// else 0 when no `err_msg` is given, else none.
    pub fn required_exit_code(&self, err_msg: Option<&str>) -> Option<i32> {
        self.interesting_exit_code.or(default_exit_code(err_msg))
    }

    /// --predicate-runs and --min-interesting.
    pub fn quorum(&self) -> minrepro_predicate::Quorum {
        minrepro_predicate::Quorum {
            runs: self.predicate_runs,
            min_interesting: self.min_interesting,
        }
    }

    /// How runs are started, from --launcher, --launcher-arg, --work-dir and --slot-env; usage
    /// errors (exit 2) for combinations that cannot work (--min-interesting above
    /// --predicate-runs too) and a --work-dir that is not a writable directory.
    pub fn launch(&self) -> Result<minrepro_predicate::Launch, RunError> {
        let usage = |m: String| RunError::Usage(m);
        // Every front end asks for its launch before anything runs: K of N is refused here too.
        self.quorum().check().map_err(|e| usage(e.to_string()))?;
        if let Some(dir) = &self.work_dir {
            check_work_dir(dir).map_err(|e| usage(e.to_string()))?;
        }
        let launcher = match self.launcher {
            LauncherKind::Local => {
                if !self.launcher_args.is_empty() {
                    return Err(usage("--launcher-arg needs --launcher slurm".into()));
                }
                minrepro_predicate::Launcher::Local
            }
            LauncherKind::Slurm => {
                if self.work_dir.is_none() {
                    return Err(usage(
                        "--launcher slurm needs --work-dir DIR on a file system the nodes share (candidate workspaces live there)"
                            .into(),
                    ));
                }
                let slurm = minrepro_predicate::SlurmLauncher::new(self.launcher_args.clone())
                    .map_err(|e| usage(e.to_string()))?;
                minrepro_predicate::Launcher::Slurm(slurm)
            }
        };
        minrepro_predicate::Launch::new(launcher, self.slot_env.clone())
            .map_err(|e| usage(e.to_string()))
    }
}

/// Refuses an input named on the command line that does not exist as a usage error (exit 2, as
/// for any other mistake on the command line, before anything runs); `what` names its role
/// (`input`, `--bundle`).
pub fn check_input_exists(path: &Path, what: &str) -> Result<(), RunError> {
    match std::fs::metadata(path) {
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Err(RunError::Usage(format!(
            "cannot read {what} {}: {e}",
            path.display()
        ))),
        _ => Ok(()),
    }
}

/// Without `--interesting-exit-code`: a test that is only judged by its exit code must exit 0;
/// one whose output must show `err_msg` may exit with any code (a program's failure rarely
/// exits 0).
fn default_exit_code(err_msg: Option<&str>) -> Option<i32> {
    err_msg.is_none().then_some(0)
}

/// Checks that `dir` is an existing directory in which minrepro can create (and remove) a
/// directory, as its temporary root will be.
pub fn check_work_dir(dir: &Path) -> Result<(), WorkDirError> {
    match std::fs::metadata(dir) {
        Ok(meta) if meta.is_dir() => {}
        Ok(_) => return Err(WorkDirError::NotADirectory(dir.to_path_buf())),
        Err(source) => {
            return Err(WorkDirError::Unreadable {
                dir: dir.to_path_buf(),
                source,
            })
        }
    }
    tempfile::Builder::new()
        .prefix(".minrepro-probe-")
        .tempdir_in(dir)
        .map(drop)
        .map_err(|e| WorkDirError::NotWritable {
            dir: dir.to_path_buf(),
            kind: e.kind(),
        })
}

/// Why a `--work-dir` cannot hold the temporary root.
#[derive(Debug, thiserror::Error)]
pub enum WorkDirError {
    /// It exists but is no directory.
    #[error("--work-dir {} is not a directory", .0.display())]
    NotADirectory(PathBuf),
    /// It cannot be looked at.
    #[error("--work-dir {}: {source}", dir.display())]
    Unreadable {
        /// The directory.
        dir: PathBuf,
        /// Why.
        source: std::io::Error,
    },
    /// Nothing can be created in it.
    #[error("--work-dir {} is not writable: {}", dir.display(), std::io::Error::from(*kind))]
    NotWritable {
        /// The directory.
        dir: PathBuf,
        /// What creating a directory there said.
        kind: std::io::ErrorKind,
    },
}

impl CommonArgs {
    /// Whether candidates are accepted exactly as `-j 1` accepts them (`--exact`, or the
    /// default without `--fold`; see [`FOLD_BY_DEFAULT`]).
    pub fn exact_order(&self) -> bool {
        self.exact || !(self.fold || FOLD_BY_DEFAULT)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn timeouts_must_be_finite_positive_and_bounded() {
        for good in ["0.5", "60", " 2 ", "1e9"] {
            assert!(parse_timeout_seconds(good).is_ok(), "{good}");
        }
        for bad in [
            "nan", "NaN", "inf", "-inf", "0", "-0", "-1", "1e30", "", "ten",
        ] {
            let error = parse_timeout_seconds(bad).unwrap_err();
            assert!(
                error.to_string().contains("positive number of seconds"),
                "{bad}: {error}"
            );
        }
    }

    #[test]
    fn predicate_runs_and_cache_tags_are_checked_while_parsing() {
        assert_eq!(parse_predicate_runs("3"), Ok(3));
        for bad in ["0", "-1", "", "two"] {
            assert!(parse_predicate_runs(bad).is_err(), "{bad:?}");
        }
        assert_eq!(parse_cache_tag("gfx90a"), Ok("gfx90a".to_owned()));
        assert!(parse_cache_tag("").is_err());
    }
}
