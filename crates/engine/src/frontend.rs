//! What every front end shares at its boundary: common flags, the run error type, cache opening
//! with its safety checks, and the final statistics line.

use std::path::{Path, PathBuf};

use minrepro_cache::OutcomeCache;

use crate::engine::{EngineError, Stats};

/// How a front end's run ends when it does not succeed; the binary maps these to exit statuses
/// (usage 2, failure 1, interruption 130).
#[derive(Debug, thiserror::Error)]
pub enum RunError {
    /// Bad command line (exit 2).
    #[error("{0}")]
    Usage(String),
    /// Anything else that stops the run (exit 1).
    #[error("{0}")]
    Failed(String),
    /// SIGINT/SIGTERM (exit 130); nothing new was published.
    #[error("interrupted")]
    Interrupted,
}

impl From<EngineError> for RunError {
    fn from(error: EngineError) -> Self {
        match error {
            EngineError::Interrupted => RunError::Interrupted,
            other => RunError::Failed(other.to_string()),
        }
    }
}

/// Flags shared by every subcommand.
#[derive(Debug, Clone, clap::Args)]
pub struct CommonArgs {
    /// Evaluate up to N candidates in parallel. Results and logs are identical for every N:
    /// candidates are accepted in the order a -j 1 run would accept them.
    #[arg(short = 'j', long = "jobs", default_value_t = 1, value_parser = clap::value_parser!(u32).range(1..=256))]
    pub jobs: u32,
    /// No progress output and no statistics (errors are still printed).
    #[arg(short = 'q', long = "quiet")]
    pub quiet: bool,
    /// Persistent outcome cache (versioned JSON, written atomically). It may not be an input,
    /// a predicate identity file, or inside the output. Give concurrent runs distinct files.
    #[arg(long = "cache-file", value_name = "PATH")]
    pub cache_file: Option<PathBuf>,
}

/// Predicate flags shared by every subcommand (defaults applied by each front end).
#[derive(Debug, Clone, clap::Args)]
pub struct PredicateArgs {
    /// Interestingness test executable (resolved through PATH once). Never run by a shell.
    #[arg(long = "predicate", value_name = "EXE")]
    pub predicate: Option<String>,
    /// One argument of the predicate; repeat for more. Placeholders like {workspace} are expanded
    /// for each candidate; existing regular files are made absolute before the first run.
    #[arg(long = "predicate-arg", value_name = "ARG", allow_hyphen_values = true)]
    pub predicate_args: Vec<String>,
    /// Exit code that means "still interesting".
    #[arg(
        long = "interesting-exit-code",
        value_name = "CODE",
        allow_hyphen_values = true
    )]
    pub interesting_exit_code: Option<i32>,
    /// Run the predicate N times per candidate; disagreeing runs make the candidate flaky (rejected).
    #[arg(long = "predicate-runs", value_name = "N", default_value_t = 1)]
    pub predicate_runs: u32,
    /// Per-run timeout in seconds; a run past it is killed (with its whole process group) and
    /// counts as "timeout", never as interesting.
    #[arg(
        long = "timeout",
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
    #[arg(long = "cache-tag", value_name = "TAG")]
    pub cache_tags: Vec<String>,
    /// Where predicate runs happen: `local` child processes, or `slurm` job steps (`srun`, one
    /// task, job name minrepro-RUNTAG, cwd the candidate's workspace; -j N = up to N steps at
    /// once). With slurm, --work-dir is required and the timeout (ours, not Slurm's) includes
    /// the time a step waits in the queue. The launcher and the slot are not part of the cache
    /// key or the log.
    #[arg(long = "launcher", value_enum, default_value_t = LauncherKind::Local)]
    pub launcher: LauncherKind,
    /// An option for every `srun` (e.g. --launcher-arg=--partition=gpu
    /// --launcher-arg=--gres=gpu:1 --launcher-arg=--time=10); repeatable. Only with --launcher
    /// slurm.
    #[arg(long = "launcher-arg", value_name = "ARG", allow_hyphen_values = true)]
    pub launcher_args: Vec<String>,
    /// Directory for minrepro's temporary files and candidate workspaces (default: the system
    /// temporary directory). Required with --launcher slurm, and then it must be on a file system
    /// every node that may run a step shares (a step that cannot find its workspace runs in /tmp).
    #[arg(long = "work-dir", value_name = "DIR")]
    pub work_dir: Option<PathBuf>,
    /// Also set variable NAME (e.g. HIP_VISIBLE_DEVICES, CUDA_VISIBLE_DEVICES) to the run's slot;
    /// repeatable. Each of the up to N runs at once (-j N) holds a distinct slot 0..N-1, reused
    /// as runs finish; it is also in MINREPRO_SLOT and the {slot} placeholder. The slot is not
    /// part of the cache key or the log: a predicate whose verdict depends on it (not just its
    /// speed) breaks the guarantee of identical results for every -j.
    #[arg(long = "slot-env", value_name = "NAME")]
    pub slot_env: Vec<String>,
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

/// Parses `--timeout`: a finite number of seconds above zero and at most [`MAX_TIMEOUT_SECS`].
/// Checked while parsing, so every front end refuses `nan`, `inf`, `0`, `-1` or `1e30` with the
/// same words and exit status 2, before anything reads the value.
pub fn parse_timeout_seconds(text: &str) -> Result<f64, String> {
    let seconds: f64 = text
        .trim()
        .parse()
        .map_err(|_| "must be a positive number of seconds".to_string())?;
    if !seconds.is_finite() || seconds <= 0.0 || seconds > MAX_TIMEOUT_SECS {
        return Err(format!(
            "must be a positive number of seconds, at most {MAX_TIMEOUT_SECS:e}"
        ));
    }
    Ok(seconds)
}

/// Opens the outcome cache: persistent when `--cache-file` is given, after checking that the file
/// is not one of `protected` (inputs and identity files), not inside `output`, and not a directory.
pub fn open_cache(
    cache_file: Option<&Path>,
    protected: &[PathBuf],
    output: &Path,
) -> Result<OutcomeCache, RunError> {
    let Some(path) = cache_file else {
        return Ok(OutcomeCache::in_memory());
    };
    let resolved = resolve_for_comparison(path);
    for other in protected {
        if resolve_for_comparison(other) == resolved {
            return Err(RunError::Failed(format!(
                "--cache-file {} is also an input or predicate identity file; it would be overwritten",
                path.display()
            )));
        }
    }
    let output_resolved = resolve_for_comparison(output);
    if resolved.starts_with(&output_resolved) {
        return Err(RunError::Failed(format!(
            "--cache-file {} is inside the output {}",
            path.display(),
            output.display()
        )));
    }
    if path.is_dir() {
        return Err(RunError::Failed(format!(
            "--cache-file {} is a directory",
            path.display()
        )));
    }
    OutcomeCache::open(path).map_err(|e| RunError::Failed(e.to_string()))
}

/// Absolute, symlink-resolved form of a path whose last components may not exist yet.
pub fn resolve_for_comparison(path: &Path) -> PathBuf {
    let absolute = std::path::absolute(path).unwrap_or_else(|_| path.to_path_buf());
    let mut missing = Vec::new();
    let mut existing = absolute.as_path();
    loop {
        if let Ok(real) = existing.canonicalize() {
            let mut out = real;
            for part in missing.iter().rev() {
                out.push(part);
            }
            return out;
        }
        match (existing.parent(), existing.file_name()) {
            (Some(parent), Some(name)) => {
                missing.push(name.to_os_string());
                existing = parent;
            }
            _ => return absolute,
        }
    }
}

/// The end-of-run statistics line (stderr; not part of any deterministic output).
pub fn stats_line(stats: &Stats, unit: &str) -> String {
    format!(
        "predicate runs {}, cache hits {}, candidates {}, accepted {}, size {} -> {} {unit}, wall time {:.2} s",
        stats.predicate_evaluations,
        stats.cache_hits,
        stats.candidates_decided,
        stats.accepted,
        stats.size_before,
        stats.size_after,
        stats.wall_time.as_secs_f64()
    )
}

/// One line of per-pass counters: `pass decided/accepted`, and the number of rounds.
pub fn pass_stats_line(stats: &Stats) -> String {
    let passes: Vec<String> = stats
        .per_pass
        .iter()
        .map(|(name, (decided, accepted))| format!("{name} {decided}/{accepted}"))
        .collect();
    format!(
        "rounds {}; candidates/accepted per pass: {}",
        stats.rounds,
        passes.join(", ")
    )
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
            timeout_secs: self.timeout,
            cache_tags: self.cache_tags.clone(),
            cache_dependencies: self.cache_dependencies.clone(),
            env,
        }
    }
}

impl PredicateArgs {
    /// How runs are started, from --launcher, --launcher-arg, --work-dir and --slot-env; usage
    /// errors (exit 2) for combinations that cannot work and a --work-dir that is not a writable
    /// directory.
    pub fn launch(&self) -> Result<minrepro_predicate::Launch, RunError> {
        let usage = |m: String| RunError::Usage(m);
        if let Some(dir) = &self.work_dir {
            check_work_dir(dir).map_err(usage)?;
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

/// Checks that `dir` is an existing directory in which minrepro can create (and remove) a
/// directory, as its temporary root will be.
pub fn check_work_dir(dir: &Path) -> Result<(), String> {
    match std::fs::metadata(dir) {
        Ok(meta) if meta.is_dir() => {}
        Ok(_) => return Err(format!("--work-dir {} is not a directory", dir.display())),
        Err(e) => return Err(format!("--work-dir {}: {e}", dir.display())),
    }
    tempfile::Builder::new()
        .prefix(".minrepro-probe-")
        .tempdir_in(dir)
        .map(drop)
        .map_err(|e| {
            format!(
                "--work-dir {} is not writable: {}",
                dir.display(),
                std::io::Error::from(e.kind())
            )
        })
}

/// Result of [`reduce_with_engine`].
pub struct Reduced<C> {
    /// The smallest interesting case.
    pub case: C,
    /// The original's verdict.
    pub original_outcome: minrepro_predicate::Outcome,
    /// Every decided candidate, in sequential order.
    pub log: Vec<crate::engine::LogEntry>,
    /// Counters.
    pub stats: Stats,
}

/// The common driver: checks that the original is interesting, runs the passes to a fixpoint,
/// saves the persistent cache (also when the run fails or is interrupted) and prints statistics.
#[allow(clippy::too_many_arguments)]
pub fn reduce_with_engine<C: Clone + Send + Sync>(
    oracle: &dyn crate::engine::Oracle<C>,
    passes: &[&dyn crate::search::Pass<C>],
    original: C,
    cache: &OutcomeCache,
    options: crate::engine::EngineOptions,
    progress: &crate::progress::Progress,
    on_accept: &mut dyn FnMut(&C) -> Result<(), EngineError>,
) -> Result<Reduced<C>, RunError> {
    reduce_with_engine_stats(
        oracle, passes, original, cache, options, progress, on_accept,
    )
    .0
}

/// [`reduce_with_engine`] that also returns the counters when the run stops early (failure or
/// interruption after the engine started), e.g. for a machine-readable statistics file.
#[allow(clippy::too_many_arguments)]
pub fn reduce_with_engine_stats<C: Clone + Send + Sync>(
    oracle: &dyn crate::engine::Oracle<C>,
    passes: &[&dyn crate::search::Pass<C>],
    original: C,
    cache: &OutcomeCache,
    options: crate::engine::EngineOptions,
    progress: &crate::progress::Progress,
    on_accept: &mut dyn FnMut(&C) -> Result<(), EngineError>,
) -> (Result<Reduced<C>, RunError>, Stats) {
    let unit = options.size_unit;
    let started = std::time::Instant::now();
    let mut engine = crate::engine::Engine::new(oracle, cache, options, progress);
    let result = engine
        .check_original(&original)
        .and_then(|outcome| Ok((outcome, engine.reduce(original, passes, on_accept)?)));
    progress.finish();
    let saved = cache.persist();
    let mut stats = engine.finish_stats();
    if result.is_err() {
        stats.wall_time = started.elapsed();
    }
    let (original_outcome, case) = match result {
        Ok(done) => done,
        Err(EngineError::OriginalNotInteresting(outcome)) => {
            return (
                Err(RunError::Failed(describe_uninteresting(&outcome))),
                stats,
            )
        }
        Err(other) => return (Err(other.into()), stats),
    };
    if let Err(e) = saved {
        return (Err(RunError::Failed(e.to_string())), stats);
    }
    progress.message(&stats_line(&stats, unit));
    progress.message(&pass_stats_line(&stats));
    let reduced = Reduced {
        case,
        original_outcome,
        log: engine.log().to_vec(),
        stats: stats.clone(),
    };
    (Ok(reduced), stats)
}

/// The counters as JSON (for `--stats-json`): `extra_runs` predicate runs made outside the
/// engine (e.g. a front end's probe of the original) are added to `predicate_runs`; `complete`
/// says whether the reduction reached its fixpoint.
pub fn stats_json(stats: &Stats, extra_runs: usize, complete: bool) -> serde_json::Value {
    let passes: serde_json::Map<String, serde_json::Value> = stats
        .per_pass
        .iter()
        .map(|(name, (decided, accepted))| {
            (
                name.clone(),
                serde_json::json!({"candidates": decided, "accepted": accepted}),
            )
        })
        .collect();
    serde_json::json!({
        "complete": complete,
        "predicate_runs": stats.predicate_evaluations + extra_runs,
        "engine_predicate_runs": stats.predicate_evaluations,
        "cache_hits": stats.cache_hits,
        "candidates": stats.candidates_decided,
        "accepted": stats.accepted,
        "timeouts": stats.timeouts,
        "size_before": stats.size_before,
        "size_after": stats.size_after,
        "wall_seconds": stats.wall_time.as_secs_f64(),
        "rounds": stats.rounds,
        "passes": passes,
    })
}

/// Explains why the original is not interesting, with the tail of what it printed.
pub fn describe_uninteresting(outcome: &minrepro_predicate::Outcome) -> String {
    let status = serde_json::to_value(outcome.status)
        .ok()
        .and_then(|v| v.as_str().map(str::to_owned));
    let codes: Vec<String> = outcome
        .exit_codes
        .iter()
        .map(|c| c.map_or("none".to_owned(), |c| c.to_string()))
        .collect();
    let mut message = format!(
        "the original input is not interesting (predicate status {}, exit codes [{}]); nothing was published",
        status.unwrap_or_default(),
        codes.join(", ")
    );
    for (name, stream) in [
        ("stdout", &outcome.last_run.stdout),
        ("stderr", &outcome.last_run.stderr),
    ] {
        let tail: Vec<&str> = stream.tail.lines().rev().take(10).collect();
        if !tail.is_empty() {
            message.push_str(&format!("\n--- last lines of the original's {name} ---"));
            for line in tail.iter().rev() {
                message.push('\n');
                message.push_str(line);
            }
        }
    }
    if let Some(error) = &outcome.last_run.error {
        message.push_str(&format!("\n{error}"));
    }
    message
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
                error.contains("positive number of seconds"),
                "{bad}: {error}"
            );
        }
    }
}
