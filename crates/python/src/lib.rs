//! `minrepro python`: AutoDD-style reduction of a Python program by syntax-tree rewrites while a
//! failure message keeps appearing in its output.
//!
//! Modules: [`args`] (command line), [`source`] (input validation), [`interpreter`] (finding the
//! real interpreter), [`guard`] (the exception-type fidelity guard), [`language`] (Python as a
//! language of the `minrepro-text` layer, which searches its rewrite groups and materializes,
//! judges and saves candidates). [`run`] ties them to the engine. The instrumented runs of
//! runtime-value substitution are `minrepro-pyvalues`'s, the runner backend `minrepro-pyrunner`'s.

pub mod args;
pub mod encoding;
pub mod guard;
pub mod interpreter;
pub mod language;
pub mod source;

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::{Duration, Instant};

use minrepro_driver::{open_cache, RunError};
use minrepro_engine::{Progress, TempRoot};
use minrepro_predicate::{Acceptance, Executor, OutputCheck, Predicate, PredicateConfig, Status};
use minrepro_pyrunner::RunnerPool;
use minrepro_pyvalues::{Program, ValueRecorder};
use minrepro_text::{
    apply_timeout_factor, check_output, check_stats_file, judge_original, reduce_text,
    refuse_existing_output, shell_quoted, timeouts_note, working_dir, TextJob,
};

pub use args::{Backend, PythonArgs};
pub use minrepro_text::Strategy;
pub use minrepro_text::TimeoutFactor;

use crate::language::Python;
use crate::source::Source;

/// Placeholders a `--predicate`'s arguments may use.
const PLACEHOLDERS: [&str; 3] = ["file", "workspace", "python"];

/// Runs a Python reduction; returns the success line.
pub fn run(args: &PythonArgs) -> Result<String, RunError> {
    let has_predicate = args.predicate.predicate.is_some();
    let working_dir = working_dir(args.isolated_cwd, args.cwd.as_deref())?;
    let launch = args.predicate.launch()?;
    let progress = Progress::new("minrepro python", "tokens", args.common.quiet);
    let temp = TempRoot::new_in(args.predicate.work_dir.as_deref())
        .map_err(|e| RunError::Failed(format!("cannot create a temporary directory: {e}")))?;
    let interpreter =
        interpreter::resolve_python(&args.python, temp.path(), args.predicate.timeout)?;
    let source = source::read_source(&args.source, &interpreter.path, interpreter.minor)?;
    check_output(&args.output, &source.path)?;
    refuse_existing_output("minrepro python", &args.output, args.force)?;
    let stats_file = args.stats_json.as_deref();
    check_stats_file(stats_file, &args.source, &args.output)?;
    let python = interpreter.path.clone();
    let runner = start_runner(args, &source, &python, &launch)?;
    let executor: &dyn Executor = match &runner {
        Some(pool) => pool,
        None => launch.executor(),
    };

    // First judge the original without the guard, to learn which exception it ends in.
    let backend_tag = backend_tag(args, runner.as_ref());
    // The predicate with the exception guard `guard` (none: any ending).
    let predicate_with = |guard: Option<OutputCheck>| -> Result<Predicate, RunError> {
        let config = predicate_config(
            args,
            &source,
            &python,
            guard,
            &backend_tag,
            working_dir.as_deref(),
        )?;
        Ok(Predicate::new(config)
            .map_err(|e| RunError::Usage(e.to_string()))?
            .with_working_dir(working_dir.clone())
            .with_launch(launch.clone()))
    };
    let unguarded = predicate_with(None)?;
    let mut protected: Vec<PathBuf> = vec![source.path.clone()];
    protected.extend(unguarded.identity_files().iter().map(|f| f.path.clone()));
    let cache = open_cache(args.common.cache_file.as_deref(), &protected, &args.output)?;
    let mut language = Python {
        minor: interpreter.minor,
        encoding: source.encoding.clone(),
        values: None,
    };
    let mut job = TextJob {
        front_end: "minrepro python",
        original: &source.text,
        original_outcome: None,
        predicate: &unguarded,
        executor,
        temp: &temp,
        cache: &cache,
        progress: &progress,
        file_name: source.file_name.clone(),
        placeholders: vec![("python".into(), python.to_string_lossy().into_owned())],
        output: &args.output,
        stats_json: stats_file,
        strategy: args.strategy,
        jobs: args.common.jobs as usize,
        exact: !args.common.fold,
    };
    // The adaptive limit needs the original's own run time, so it is never taken from the cache.
    let from_cache = args.timeout_factor == TimeoutFactor::Off;
    let probe_started = Instant::now();
    let first = judge_original(&language, &job, from_cache)?;
    if first.status != Status::Interesting {
        let expected = minrepro_text::Expectation {
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
        return Err(RunError::NotReproduced {
            status: first.status,
            explanation: minrepro_text::why_not_reproduced(&first, &expected),
        });
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
            if let Some(note) = guard::needle_outside_traceback(&first.last_run, needle, kind) {
                progress.message(&note);
            }
        }
        Some(guard::same_exception_check(found.as_deref()))
    };
    let original_seconds =
        probe_started.elapsed().as_secs_f64() / f64::from(args.predicate.predicate_runs.max(1));
    let predicate = apply_timeout_factor(
        predicate_with(guard.clone())?,
        args.timeout_factor,
        original_seconds,
        args.predicate.timeout,
        &progress,
    );
    // The guard was read off the original's own run, so that run is the guarded verdict too:
    // passing it on spares the engine a second run of the original. With several runs per
    // candidate only the last run's output is kept, so the engine re-checks instead.
    let guard_holds = guard
        .as_ref()
        .is_none_or(|check| (check.check)(&first.last_run));
    job.original_outcome = (args.predicate.predicate_runs <= 1 && guard_holds).then_some(first);
    language.values = value_recorder(
        args,
        &source,
        &python,
        &launch,
        working_dir.as_deref(),
        &temp,
        original_seconds,
        &progress,
    );
    job.predicate = &predicate;
    let reduced = reduce_text(language, job)?;
    Ok(format!(
        "minrepro python: wrote {} ({} tokens, was {}{}); run it with: {}",
        args.output.display(),
        reduced.size_after,
        reduced.size_before,
        timeouts_note(reduced.timeouts, reduced.run_limit),
        how_to_run(args)
    ))
}

/// The instrumented runs of runtime-value substitution, unless turned off
/// (`--no-value-substitution`) or not applicable: with `--predicate` (minrepro does not know how
/// the predicate runs the program), under a remote launcher (the program may need the nodes), or
/// for a source in another encoding than UTF-8. A run may take as long as a predicate run
/// (`--timeout`), or 50 times the original's run time when that is longer (the recording slows
/// the program), at most ten times `--timeout`. Never less than `--timeout`: a shorter limit
/// that a loaded machine overruns would make the values, and so the result, depend on the load.
#[allow(clippy::too_many_arguments)]
fn value_recorder(
    args: &PythonArgs,
    source: &Source,
    python: &Path,
    launch: &minrepro_predicate::Launch,
    working_dir: Option<&Path>,
    temp: &TempRoot,
    original_seconds: f64,
    progress: &Progress,
) -> Option<Arc<ValueRecorder>> {
    if args.no_value_substitution {
        return None;
    }
    let why_not = if args.predicate.predicate.is_some() {
        Some("with --predicate")
    } else if launch.is_remote() {
        Some("under a remote --launcher")
    } else if source.encoding.is_some() {
        Some("for a source not in UTF-8")
    } else {
        None
    };
    if let Some(why) = why_not {
        progress.message(&format!("runtime-value substitution is off {why}"));
        return None;
    }
    let env = candidate_env(args, source);
    let timeout = args.predicate.timeout;
    let seconds = (original_seconds * 50.0).clamp(timeout, timeout * 10.0);
    let program = Program {
        python: python.to_path_buf(),
        script_args: args.script_args.clone(),
        env,
        cwd: working_dir.map(Path::to_path_buf),
        file_name: source.file_name.clone(),
    };
    // The last value (the evaluation closest before the failure), not only values every
    // evaluation agreed on: see minrepro-pyvalues and bench/python/RESULTS.md.
    let last_values = true;
    Some(Arc::new(ValueRecorder::new(
        program,
        temp.path().to_path_buf(),
        Duration::from_secs_f64(seconds),
        last_values,
    )))
}

/// The command that runs the result as the candidates were run (without `--predicate`: the
/// interpreter, the output and the `--arg` values), quoted for a POSIX shell.
fn how_to_run(args: &PythonArgs) -> String {
    let output = args.output.to_string_lossy();
    // --arg and --predicate exclude each other: with --predicate there are no program arguments.
    let program_args = args.script_args.iter().map(String::as_str);
    let words: Vec<&str> = [args.python.as_str(), &output]
        .into_iter()
        .chain(program_args)
        .collect();
    words
        .iter()
        .map(|w| shell_quoted(w))
        .collect::<Vec<_>>()
        .join(" ")
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
    let why_not = if args.backend != Backend::Runner {
        Some("--preload needs --backend runner")
    } else if args.predicate.predicate.is_some() {
        Some("--preload has no effect with --predicate (the predicate runs the candidates)")
    } else if launch.is_remote() {
        if args.preload.is_empty() && !args.common.quiet {
            eprintln!("minrepro python: note: --launcher slurm runs every candidate as a fresh interpreter (--backend subproc)");
        }
        Some("--preload needs --backend runner, which runs candidates on this machine; it cannot be combined with --launcher slurm")
    } else {
        None
    };
    if let Some(why) = why_not {
        if args.preload.is_empty() {
            return Ok(None);
        }
        return Err(RunError::Usage(why.into()));
    }
    // The helpers start with the candidates' environment: PYTHONPATH (--env included) is read
    // at interpreter start only.
    match RunnerPool::start(python, &args.preload, &candidate_env(args, source)) {
        Ok(pool) => Ok(Some(pool)),
        Err(error) => {
            eprintln!("minrepro python: warning: {error}; falling back to --backend subproc");
            Ok(None)
        }
    }
}

/// The cache tag naming the backend that actually runs the candidates: a runner that could not
/// start means fresh interpreters, whose verdicts must not be filed under the runner's.
fn backend_tag(args: &PythonArgs, runner: Option<&RunnerPool>) -> String {
    match runner {
        Some(_) => format!("backend=runner preload={}", args.preload.join(",")),
        None => "backend=subproc".to_owned(),
    }
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
    let env = candidate_env(args, source);
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

/// The environment of every candidate run: the source's directory first on the module search
/// path, no bytecode files, a fixed hash seed, then the `--env` assignments.
fn candidate_env(args: &PythonArgs, source: &Source) -> Vec<(String, String)> {
    let dir = source.dir.to_string_lossy().into_owned();
    let python_path = match std::env::var("PYTHONPATH") {
        Ok(existing) if !existing.is_empty() => format!("{dir}:{existing}"),
        _ => dir,
    };
    let fixed = [
        ("PYTHONPATH".into(), python_path),
        ("PYTHONDONTWRITEBYTECODE".into(), "1".into()),
        ("PYTHONHASHSEED".into(), "0".into()),
    ];
    fixed.into_iter().chain(args.env.iter().cloned()).collect()
}
