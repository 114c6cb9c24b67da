//! `minrepro python`: AutoDD-style reduction of a Python program by syntax-tree rewrites while a
//! failure message keeps appearing in its output.
//!
//! Modules: [`args`] (command line), [`source`] (input validation), [`interpreter`] (finding the
//! real interpreter), [`guard`] (the exception-type fidelity guard), [`language`] (Python as a
//! language of the `minrepro-text` layer, which searches its rewrite groups and materializes,
//! judges and saves candidates). [`run`] ties them to the engine.

pub mod args;
pub mod encoding;
pub mod explain;
pub mod guard;
pub mod interpreter;
pub mod language;
pub mod source;

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use minrepro_driver::{open_cache, stats_json, write_atomically, RunError};
use minrepro_engine::{Engine, EngineError, EngineOptions, Oracle, Progress, Reduction, TempRoot};
use minrepro_predicate::{Acceptance, Executor, OutputCheck, Predicate, PredicateConfig, Status};
use minrepro_pyrunner::RunnerPool;

pub use args::{Backend, PythonArgs, Strategy, TimeoutFactor};

use minrepro_text::{group_passes, Saver, SharedState, TextOracle, TidyPass};

use crate::language::Python;
use crate::source::Source;

/// Placeholders a `--predicate`'s arguments may use.
const PLACEHOLDERS: [&str; 3] = ["file", "workspace", "python"];

/// Runs a Python reduction; returns the success line.
pub fn run(args: &PythonArgs) -> Result<String, RunError> {
    let has_predicate = args.predicate.predicate.is_some();
    source::check_err_msg(args.err_msg.as_deref(), has_predicate)?;
    if !has_predicate && !args.predicate.predicate_args.is_empty() {
        return Err(RunError::Usage(
            "--predicate-arg needs --predicate (without it the predicate is `PYTHON {file}`)"
                .into(),
        ));
    }
    if has_predicate && !args.script_args.is_empty() {
        return Err(RunError::Usage(
            "--arg passes arguments to the program run as `PYTHON {file} ARG...`; with --predicate, \
             give them with --predicate-arg"
                .into(),
        ));
    }
    let working_dir = working_dir(args)?;
    let launch = args.predicate.launch()?;
    let progress = Progress::new("minrepro python", "tokens", args.common.quiet);
    let temp = TempRoot::new_in(args.predicate.work_dir.as_deref())
        .map_err(|e| RunError::Failed(format!("cannot create a temporary directory: {e}")))?;
    let interpreter =
        interpreter::resolve_python(&args.python, temp.path(), args.predicate.timeout)?;
    let source = source::read_source(&args.source, &interpreter.path, interpreter.minor)?;
    source::check_output(&args.output, &source)?;
    if !args.force && args.output.exists() {
        return Err(RunError::Failed(format!(
            "{} already exists; minrepro python does not replace a file it did not write in this \
             run: choose another -o, remove the file, or pass --force to replace it",
            args.output.display()
        )));
    }
    check_stats_file(args)?;
    let python = interpreter.path.clone();
    let runner = start_runner(args, &source, &python, &launch)?;
    let executor: &dyn Executor = match &runner {
        Some(pool) => pool,
        None => launch.executor(),
    };

    // First judge the original without the guard, to learn which exception it ends in.
    let backend_tag = backend_tag(args, runner.as_ref());
    let unguarded = Predicate::new(predicate_config(
        args,
        &source,
        &python,
        None,
        &backend_tag,
        working_dir.as_deref(),
    )?)
    .map_err(|e| RunError::Usage(e.to_string()))?
    .with_working_dir(working_dir.clone())
    .with_launch(launch.clone());
    let mut protected: Vec<PathBuf> = vec![source.path.clone()];
    protected.extend(unguarded.identity_files().iter().map(|f| f.path.clone()));
    let cache = open_cache(args.common.cache_file.as_deref(), &protected, &args.output)?;
    let language = Python {
        minor: interpreter.minor,
        encoding: source.encoding.clone(),
    };
    let python_text = python.to_string_lossy().into_owned();
    let probe = TextOracle::new(&language, &unguarded, &temp, source.file_name.clone())
        .with_placeholder("python", &python_text)
        .with_executor(executor);
    progress.message("running the original");
    let probe_options = EngineOptions {
        jobs: 1,
        config_digest: unguarded.config_digest().to_owned(),
        size_unit: "tokens",
    };
    // The adaptive limit needs the original's own run time, so it is never taken from the cache.
    let from_cache = args.timeout_factor == TimeoutFactor::Off;
    let probe_started = Instant::now();
    let first =
        Engine::new(&probe, &cache, probe_options, &progress).judge(&source.text, from_cache)?;
    if first.status != Status::Interesting {
        let expected = explain::Expectation {
            err_msg: args.err_msg.as_deref(),
            exit_code: args.predicate.interesting_exit_code.or(
                if has_predicate && args.err_msg.is_none() {
                    Some(0)
                } else {
                    None
                },
            ),
            custom_predicate: has_predicate,
            timeout_secs: args.predicate.timeout,
        };
        return Err(RunError::Failed(explain::why_not_reproduced(
            &first, &expected,
        )));
    }
    let guard = if args.any_exception {
        None
    } else {
        let found = guard::exception_type(&first.last_run.stderr.tail);
        progress.message(&match &found {
            Some(kind) => format!(
                "the original ends in an uncaught {kind}; candidates must too (--any-exception turns this off)"
            ),
            None => "the original ends without an uncaught Python exception; candidates must too (--any-exception turns this off)".to_owned(),
        });
        if let (Some(kind), Some(needle)) = (&found, args.err_msg.as_deref()) {
            if let Some(note) = explain::needle_outside_traceback(&first.last_run, needle, kind) {
                progress.message(&note);
            }
        }
        Some(guard::same_exception_check(found.as_deref()))
    };
    let original_seconds =
        probe_started.elapsed().as_secs_f64() / f64::from(args.predicate.predicate_runs.max(1));
    let mut predicate = Predicate::new(predicate_config(
        args,
        &source,
        &python,
        guard.clone(),
        &backend_tag,
        working_dir.as_deref(),
    )?)
    .map_err(|e| RunError::Usage(e.to_string()))?
    .with_working_dir(working_dir.clone())
    .with_launch(launch.clone());
    if let TimeoutFactor::Times(factor) = args.timeout_factor {
        let limit = adaptive_run_limit(factor, original_seconds, args.predicate.timeout);
        predicate = predicate.with_run_limit(limit);
        progress.message(&format!(
            "the original ran in {original_seconds:.3} s; candidates time out after {:.3} s (--timeout-factor {factor}; `off` waits the full --timeout)",
            predicate.run_limit().as_secs_f64()
        ));
    }
    let run_limit = predicate.run_limit().as_secs_f64();

    let oracle = TextOracle::new(&language, &predicate, &temp, source.file_name.clone())
        .with_placeholder("python", &python_text)
        .with_executor(executor);
    // The guard was read off the original's own run, so that run is the guarded verdict too:
    // passing it on spares the engine a second run of the original. With several runs per
    // candidate only the last run's output is kept, so the engine re-checks instead.
    let guard_holds = guard
        .as_ref()
        .is_none_or(|check| (check.check)(&first.last_run));
    let known_original = (args.predicate.predicate_runs <= 1 && guard_holds).then_some(first);
    let state = SharedState::new(
        language.clone(),
        &source.text,
        args.strategy.into(),
        args.common.jobs as usize,
    );
    let group_passes = group_passes(&state);
    let mut pass_refs: Vec<&dyn minrepro_engine::Pass<String>> = group_passes
        .iter()
        .map(|p| p as &dyn minrepro_engine::Pass<String>)
        .collect();
    let tidy = TidyPass::new(&state);
    pass_refs.push(&tidy);
    let options = EngineOptions {
        jobs: args.common.jobs as usize,
        config_digest: predicate.config_digest().to_owned(),
        size_unit: "tokens",
    };
    // Accepted candidates are written in the background (see saver).
    let mut saver = Saver::new(args.output.clone());
    let mut on_accept = |case: &String| {
        let bytes = file_content(&args.output, &source, case).map_err(EngineError::Fatal)?;
        saver
            .save(&bytes)
            .map_err(|e| EngineError::Fatal(e.to_string()))
    };
    let mut reduction = Reduction::new(&oracle, &cache, &progress, options)
        .passes(&pass_refs)
        .on_accept(&mut on_accept);
    if let Some(outcome) = known_original {
        reduction = reduction.original_outcome(outcome);
    }
    let (result, stats) = minrepro_driver::reduce(reduction, source.text.clone());
    let saved = saver.finish();
    if let Some(path) = &args.stats_json {
        // The original's first run was counted when it ran (or answered from the cache).
        let mut value = stats_json(&stats, 0, result.is_ok());
        if let Some(object) = value.as_object_mut() {
            object.insert("run_limit_seconds".into(), run_limit.into());
            object.insert(
                "timeout_seconds".into(),
                timeout_cost(stats.timeouts, run_limit).into(),
            );
        }
        let text = serde_json::to_string_pretty(&value).unwrap_or_default() + "\n";
        write_atomically(path, text.as_bytes())
            .map_err(|e| RunError::Failed(format!("cannot write {}: {e}", path.display())))?;
    }
    // Benchmark only (MINREPRO_TIMING_LOG); never changes the outcome.
    let _ = oracle.log_cpu_time();
    let reduced = match (result, saved) {
        (Ok(reduced), Ok(())) => reduced,
        (Ok(_), Err(error)) => return Err(RunError::Failed(error.to_string())),
        (Err(error), saved) => {
            if saver.saved_any() && saved.is_ok() {
                eprintln!(
                    "minrepro python: {} holds the smallest candidate accepted before the run stopped",
                    args.output.display()
                );
            } else if matches!(error, RunError::Interrupted) {
                eprintln!("minrepro python: no output was written");
            }
            return Err(error);
        }
    };
    if reduced.stats.accepted == 0 {
        save(&args.output, &source, &reduced.case).map_err(RunError::Failed)?;
    }
    Ok(format!(
        "minrepro python: wrote {} ({} tokens, was {}{}); run it with: {}",
        args.output.display(),
        oracle.size(&reduced.case),
        oracle.size(&source.text),
        timeouts_note(stats.timeouts, run_limit),
        how_to_run(args)
    ))
}

/// The command that runs the result as the candidates were run (without `--predicate`: the
/// interpreter, the output and the `--arg` values), quoted for a POSIX shell.
fn how_to_run(args: &PythonArgs) -> String {
    let output = args.output.to_string_lossy();
    let words: Vec<&str> = match &args.predicate.predicate {
        Some(_) => vec![&args.python, &output],
        None => std::iter::once(args.python.as_str())
            .chain(std::iter::once(output.as_ref()))
            .chain(args.script_args.iter().map(String::as_str))
            .collect(),
    };
    words
        .iter()
        .map(|w| shell_quoted(w))
        .collect::<Vec<_>>()
        .join(" ")
}

/// `word` as one POSIX shell word: bare when it has only safe characters, else single-quoted.
fn shell_quoted(word: &str) -> String {
    let safe = |c: char| c.is_ascii_alphanumeric() || "-_./:=+,@%".contains(c);
    if !word.is_empty() && word.chars().all(safe) {
        word.to_owned()
    } else {
        format!("'{}'", word.replace('\'', "'\\''"))
    }
}

/// The shortest time a candidate gets under `--timeout-factor`: start-up noise of a fast original
/// must not turn candidates into timeouts.
const MIN_ADAPTIVE_LIMIT_SECS: f64 = 1.0;

/// A candidate's run limit under `--timeout-factor`: `factor` times the original's run time, at
/// least [`MIN_ADAPTIVE_LIMIT_SECS`], at most `timeout`.
fn adaptive_run_limit(factor: f64, original_seconds: f64, timeout: f64) -> Duration {
    let limit = (factor * original_seconds)
        .max(MIN_ADAPTIVE_LIMIT_SECS)
        .min(timeout);
    Duration::from_secs_f64(limit)
}

/// The time timed-out candidates cost: each ran its whole limit (seconds, rounded to ms).
fn timeout_cost(timeouts: usize, run_limit: f64) -> f64 {
    (timeouts as f64 * run_limit * 1000.0).round() / 1000.0
}

/// The summary's note on timed-out candidates (empty when none timed out).
fn timeouts_note(timeouts: usize, run_limit: f64) -> String {
    match timeouts {
        0 => String::new(),
        n => format!(
            "; {n} candidate{} timed out at {run_limit:.3} s, {:.1} s in all",
            if n == 1 { "" } else { "s" },
            timeout_cost(n, run_limit)
        ),
    }
}

/// Starts the runner backend when it applies (`--backend runner` without `--predicate`, local
/// runs); falls back to fresh interpreters with a one-line warning when its helper cannot start,
/// and with a one-line notice under a launcher (its helpers fork candidates on this machine).
fn start_runner(
    args: &PythonArgs,
    source: &Source,
    python: &Path,
    launch: &minrepro_predicate::Launch,
) -> Result<Option<RunnerPool>, RunError> {
    if args.backend == Backend::Runner && launch.is_remote() && args.predicate.predicate.is_none() {
        if !args.preload.is_empty() {
            return Err(RunError::Usage(
                "--preload needs --backend runner, which runs candidates on this machine; it cannot be combined with --launcher slurm".into(),
            ));
        }
        if !args.common.quiet {
            eprintln!("minrepro python: note: --launcher slurm runs every candidate as a fresh interpreter (--backend subproc)");
        }
        return Ok(None);
    }
    if args.backend != Backend::Runner {
        if !args.preload.is_empty() {
            return Err(RunError::Usage("--preload needs --backend runner".into()));
        }
        return Ok(None);
    }
    if args.predicate.predicate.is_some() {
        if !args.preload.is_empty() {
            return Err(RunError::Usage(
                "--preload has no effect with --predicate (the predicate runs the candidates)"
                    .into(),
            ));
        }
        return Ok(None);
    }
    match RunnerPool::start(python, &args.preload, &candidate_env(&source.dir)) {
        Ok(pool) => Ok(Some(pool)),
        Err(error) => {
            eprintln!("minrepro python: warning: {error}; falling back to --backend subproc");
            Ok(None)
        }
    }
}

/// Refuses a `--stats-json` file that is the source or the output (it would overwrite them).
fn check_stats_file(args: &PythonArgs) -> Result<(), RunError> {
    let Some(path) = &args.stats_json else {
        return Ok(());
    };
    let resolved = minrepro_driver::resolve_for_comparison(path);
    for (what, other) in [("source", &args.source), ("output", &args.output)] {
        if minrepro_driver::resolve_for_comparison(other) == resolved {
            return Err(RunError::Usage(format!(
                "--stats-json {} is also the {what}",
                path.display()
            )));
        }
    }
    Ok(())
}

/// The cache tag naming the backend that actually runs the candidates: a runner that could not
/// start means fresh interpreters, whose verdicts must not be filed under the runner's.
fn backend_tag(args: &PythonArgs, runner: Option<&RunnerPool>) -> String {
    match runner {
        Some(_) => format!("backend=runner preload={}", args.preload.join(",")),
        None => "backend=subproc".to_owned(),
    }
}

/// Replaces `output` atomically with `text` (in the source's encoding).
fn save(output: &Path, source: &Source, text: &str) -> Result<(), String> {
    let bytes = file_content(output, source, text)?;
    write_atomically(output, &bytes).map_err(|e| format!("cannot write {}: {e}", output.display()))
}

/// The output file's content for `text`: in the source's encoding.
fn file_content(output: &Path, source: &Source, text: &str) -> Result<Vec<u8>, String> {
    encoding::file_bytes(source.encoding.as_ref(), text)
        .map(|bytes| bytes.into_owned())
        .map_err(|e| format!("cannot write {}: {e}", output.display()))
}

/// The predicate configuration: `PYTHON {file}` (or the user's `--predicate`), the failure
/// message, the optional exception-type guard, and the candidate environment.
fn predicate_config(
    args: &PythonArgs,
    source: &Source,
    python: &Path,
    guard: Option<OutputCheck>,
    backend_tag: &str,
    working_dir: Option<&Path>,
) -> Result<PredicateConfig, RunError> {
    let acceptance = Acceptance {
        substring: args.err_msg.clone(),
        output_check: guard,
        ..Acceptance::default()
    };
    let python_text = python.to_string_lossy().into_owned();
    let (executable, default_exit_code) = match &args.predicate.predicate {
        Some(exe) => (
            exe.clone(),
            args.err_msg.is_none().then_some(0), // a bare predicate: exit 0 means interesting
        ),
        None => (python_text.clone(), None),
    };
    let mut env = candidate_env(&source.dir);
    env.extend(args.env.iter().cloned());
    let mut config = args.predicate.config(
        executable,
        PLACEHOLDERS.to_vec(),
        acceptance,
        default_exit_code,
        env,
    );
    if let Some(dir) = working_dir {
        // Relative paths the program reads resolve there: another directory, another verdict.
        config.cache_tags.push(format!("cwd={}", dir.display()));
    }
    if args.predicate.predicate.is_none() {
        config.args = std::iter::once("{file}".to_owned())
            .chain(args.script_args.iter().cloned())
            .collect();
        // The backend and preloaded modules are part of what a verdict depends on.
        config.cache_tags.push(backend_tag.to_owned());
    } else if config.args.iter().any(|a| a.contains("{python}")) {
        config.cache_dependencies.push(python.to_path_buf());
    }
    Ok(config)
}

/// The directory candidates run in: `--cwd`, else the directory minrepro was started in; `None`
/// with `--isolated-cwd` (each candidate's own workspace).
fn working_dir(args: &PythonArgs) -> Result<Option<PathBuf>, RunError> {
    if args.isolated_cwd {
        return Ok(None);
    }
    let dir = match &args.cwd {
        Some(dir) => dir
            .canonicalize()
            .map_err(|e| RunError::Usage(format!("--cwd {}: {e}", dir.display())))?,
        None => std::env::current_dir().map_err(|e| {
            RunError::Failed(format!(
                "cannot read the current directory ({e}); give --cwd DIR or --isolated-cwd"
            ))
        })?,
    };
    if !dir.is_dir() {
        return Err(RunError::Usage(format!(
            "--cwd {} is not a directory",
            dir.display()
        )));
    }
    Ok(Some(dir))
}

/// The environment of every candidate run: the source's directory first on the module search
/// path, no bytecode files, a fixed hash seed.
fn candidate_env(source_dir: &Path) -> Vec<(String, String)> {
    let dir = source_dir.to_string_lossy().into_owned();
    let python_path = match std::env::var("PYTHONPATH") {
        Ok(existing) if !existing.is_empty() => format!("{dir}:{existing}"),
        _ => dir,
    };
    vec![
        ("PYTHONPATH".into(), python_path),
        ("PYTHONDONTWRITEBYTECODE".into(), "1".into()),
        ("PYTHONHASHSEED".into(), "0".into()),
    ]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn adaptive_limit_is_a_multiple_of_the_original_clamped() {
        let secs = |f, o, t| adaptive_run_limit(f, o, t).as_secs_f64();
        assert_eq!(secs(10.0, 0.5, 60.0), 5.0);
        assert_eq!(secs(10.0, 0.01, 60.0), MIN_ADAPTIVE_LIMIT_SECS);
        assert_eq!(secs(10.0, 30.0, 60.0), 60.0);
        // A --timeout below the floor wins: the limit never exceeds what the user allowed.
        assert_eq!(secs(10.0, 0.01, 0.5), 0.5);
    }

    #[test]
    fn timed_out_candidates_are_reported_with_their_cost() {
        assert_eq!(timeouts_note(0, 1.0), "");
        assert_eq!(
            timeouts_note(1, 1.5),
            "; 1 candidate timed out at 1.500 s, 1.5 s in all"
        );
        assert_eq!(
            timeouts_note(3, 2.0),
            "; 3 candidates timed out at 2.000 s, 6.0 s in all"
        );
        assert_eq!(timeout_cost(3, 0.3333), 1.0);
    }

    #[test]
    fn shell_words_are_quoted_only_when_needed() {
        assert_eq!(shell_quoted("out/min.py"), "out/min.py");
        assert_eq!(shell_quoted("my file.py"), "'my file.py'");
        assert_eq!(shell_quoted("it's"), "'it'\\''s'");
        assert_eq!(shell_quoted(""), "''");
    }
}
