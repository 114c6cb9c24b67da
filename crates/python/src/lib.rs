//! `minrepro python`: AutoDD-style reduction of a Python program by syntax-tree rewrites while a
//! failure message keeps appearing in its output.
//!
//! Modules: [`args`] (command line), [`source`] (input validation), [`interpreter`] (finding the
//! real interpreter), [`guard`] (the exception-type fidelity guard), [`language`] (Python as a
//! language of the `minrepro-text` layer, which searches its rewrite groups and materializes,
//! judges and saves candidates). [`run`] ties them to the engine; [`deep`] says when a source
//! nested beyond CPython's parser goes to `minrepro file`'s passes instead. The instrumented runs of
//! runtime-value substitution are `minrepro-pyvalues`'s, the runner backend `minrepro-pyrunner`'s.

pub mod args;
mod checks;
pub mod deep;
pub mod encoding;
pub mod guard;
pub mod interpreter;
pub mod language;
pub mod project;
mod runner;
pub mod source;
mod timeout_factor;
mod values;

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Instant;

use minrepro_driver::{claim_output, open_cache, ReportRequest, RunError, StatsExtra, StrategyArg};
use minrepro_engine::{Engine, EngineOptions, Progress, TempRoot};
use minrepro_predicate::{Executor, Outcome, OutputCheck, Predicate, PredicateConfig, Status};
use minrepro_text::{reduce_text, Language, Rejudge, Strategy, TextJob, TextOracle};

pub use args::{Backend, Fidelity, PythonArgs};
pub use deep::beyond_cpython;
pub use timeout_factor::{parse_timeout_factor, TimeoutFactor, TimeoutFactorError};

use crate::checks::{
    check_output, check_stats_file, refuse_existing_output, shell_quoted, working_dir,
};
use crate::timeout_factor::{apply_timeout_factor, timeouts_note, Timeouts};

use crate::language::Python;
use crate::source::Source;

/// Placeholders a `--predicate`'s arguments may use.
const PLACEHOLDERS: [&str; 3] = ["file", "workspace", "python"];

/// Runs a Python reduction; returns the success line.
pub fn run(args: &PythonArgs) -> Result<String, RunError> {
    let has_predicate = args.predicate.predicate.is_some();
    minrepro_driver::check_input_exists(&args.source, "the source")?;
    let working_dir = working_dir(args.isolated_cwd, args.cwd.as_deref())?;
    let launch = args.predicate.launch()?;
    let progress = Progress::new("minrepro python", "tokens", args.common.quiet);
    let temp = TempRoot::new_in(args.predicate.work_dir.as_deref())
        .map_err(|e| RunError::Failed(format!("cannot create a temporary directory: {e}")))?;
    let interpreter =
        interpreter::resolve_python(&args.python, temp.path(), args.predicate.timeout)?;
    let mut source = source::read_source(&args.source, &interpreter.path, interpreter.minor)?;
    let root = project::root_of(&source.dir, args.root.as_deref())?;
    let project = project::discover(&source.path, &source.text, &root, &args.preload)?;
    if let Some(found) = &project {
        project::run::check_env_path(&args.env, &found.root)?;
        source.project_root = Some(found.root.clone());
        source.file_name = found.entry().to_owned();
        progress.message(&format!(
            "{} imports {} local module files below {}: reduced together, then inlined into one file",
            found.entry(),
            found.docs.len() - 1,
            found.root.display()
        ));
    }
    let original_text = match &project {
        Some(found) => minrepro_text::join_docs(&found.docs),
        None => source.text.clone(),
    };
    check_output(&args.output, &source.path)?;
    // With a cache, a killed run's partial output may be replaced: decided once it is open.
    if args.common.cache_file.is_none() {
        refuse_existing_output("minrepro python", &args.output, args.force)?;
    }
    let stats_file = args.common.stats_json.as_deref();
    check_stats_file(stats_file, &args.source, &args.output)?;
    minrepro_driver::check_report_path(
        args.common.report.as_deref(),
        &[&source.path, &args.output],
    )?;
    let python = interpreter.path.clone();
    let runner = runner::start_runner(args, &source, &python, &launch, &progress)?.map(Arc::new);
    let executor: &dyn Executor = match &runner {
        Some(pool) => &**pool,
        None => launch.executor(),
    };

    // First judge the original without the guard, to learn which exception it ends in.
    let backend_tag = runner::backend_tag(args, runner.as_deref());
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
    if let Some(found) = &project {
        protected.extend(found.docs.iter().skip(1).map(|d| found.root.join(&d.name)));
    }
    protected.extend(unguarded.identity_files().iter().map(|f| f.path.clone()));
    let cache = open_cache(args.common.cache_file.as_deref(), &protected, &args.output)?;
    let resumed = claim_output(&cache, &args.output);
    refuse_existing_output("minrepro python", &args.output, args.force || resumed)?;
    let mut language = Python {
        minor: interpreter.minor,
        encoding: source.encoding.clone(),
        values: None,
        keep_function: None,
    };
    let mut job = TextJob {
        front_end: "minrepro python",
        original: &original_text,
        original_outcome: None,
        predicate: &unguarded,
        executor,
        temp: &temp,
        cache: &cache,
        progress: &progress,
        file_name: source.file_name.clone(),
        placeholders: vec![("python".into(), python.to_string_lossy().into_owned())],
        output: &args.output,
        publish: None,
        strategy: match args.strategy {
            StrategyArg::ProbDd => Strategy::ProbDd,
            StrategyArg::Ddmin => Strategy::Ddmin,
        },
        jobs: args.common.jobs as usize,
        exact: args.common.exact_order(),
        rejudge: Rejudge::Never,
    };
    // The adaptive limit needs the original's own run time, so it is never taken from the cache.
    let from_cache = args.timeout_factor == TimeoutFactor::Off;
    let probe_started = Instant::now();
    let first = match &project {
        Some(found) => judge_original(
            &project::run::language(found, &language, None),
            &job,
            from_cache,
        )?,
        None => judge_original(&language, &job, from_cache)?,
    };
    if first.status != Status::Interesting {
        let expected = minrepro_driver::Expectation::of(
            &args.predicate,
            args.err_msg.as_deref(),
            has_predicate,
        );
        let mut error = expected.not_reproduced(&first);
        if let (RunError::NotReproduced { explanation, .. }, Some(hint)) = (
            &mut error,
            relative_path_hint(&first.last_run, working_dir.as_deref()),
        ) {
            explanation.push_str(&hint);
        }
        return Err(error);
    }
    let (guard, keep, in_library) = fidelity_guard(args, &first.last_run, &source, &progress);
    let original_seconds =
        probe_started.elapsed().as_secs_f64() / first.exit_codes.len().max(1) as f64;
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
    // (At `origin`, the guard was built from this run's own frame, so it holds.)
    let guard_holds = guard
        .as_ref()
        .is_none_or(|check| keep.is_some() || (check.check)(&first.last_run, temp.path()));
    job.original_outcome = (args.predicate.predicate_runs <= 1 && guard_holds).then_some(first);
    language.values = values::value_recorder(
        args,
        &source,
        &python,
        &launch,
        working_dir.as_deref(),
        &temp,
        original_seconds,
        (runner.as_ref(), &progress),
        in_library,
    );
    job.predicate = &predicate;
    job.rejudge = args.rejudge_timeouts.into();
    let recorder = language.values.clone();
    let publish = |text: &str| project::run::publish(&args.output, text, &source.file_name);
    let run = match &project {
        Some(found) => {
            job.publish = Some(&publish);
            reduce_text(project::run::language(found, &language, keep.as_ref()), job)
        }
        None => {
            language.keep_function = keep.map(|(_, function)| function);
            reduce_text(language, job)
        }
    };
    let stats = &run.stats;
    let timeouts = Timeouts {
        candidates: stats.timeouts,
        run_limit: run.run_limit,
        rejudged: run.rejudged,
    };
    let mut fields = timeouts.stats_fields();
    fields.extend(language::value_stats(recorder.as_deref()));
    let extra = StatsExtra {
        runs: 0, // the original's first run was counted when it ran (or answered from the cache)
        run_limit: Some(run.run_limit),
        fields,
    };
    let report = args.common.report.as_deref().map(|path| ReportRequest {
        path,
        front_end: "minrepro python",
        original: project::run::documents(&original_text, &source.file_name),
        result: run
            .reduced
            .iter()
            .flat_map(|text| project::run::documents(text, &source.file_name))
            .collect(),
    });
    minrepro_driver::conclude(
        &progress,
        run.size_unit,
        (run.result, stats),
        stats_file,
        extra,
        report,
    )?;
    if let Some(found) = &project {
        let run_with = |file: &str| how_to_run(args, file);
        return Ok(project::run::success_line(
            &args.output,
            found,
            run.reduced.as_deref(),
            &run_with,
        ));
    }
    Ok(format!(
        "minrepro python: wrote {} ({} tokens, was {}{}); run it with: {}",
        args.output.display(),
        stats.size_after,
        stats.size_before,
        timeouts_note(&timeouts),
        how_to_run(args, &args.output.to_string_lossy())
    ))
}

/// A hint when the original failed to open a relative path (`FileNotFoundError: [Errno 2] No
/// such file or directory: 'data.json'`): relative paths resolve in the candidates' working
/// directory, which may not be the one the program expects.
fn relative_path_hint(
    run: &minrepro_predicate::RunRecord,
    working_dir: Option<&Path>,
) -> Option<String> {
    const MARK: &str = "FileNotFoundError: [Errno 2] No such file or directory: '";
    let tail = &run.stderr.tail;
    let start = tail.rfind(MARK)? + MARK.len();
    let name = &tail[start..start + tail[start..].find('\'')?];
    if name.starts_with('/') {
        return None;
    }
    let runs_in = match working_dir {
        Some(dir) => format!("in {}", dir.display()),
        None => "in an empty directory of its own (--isolated-cwd)".to_owned(),
    };
    Some(format!(
        "\nhint: the program opens the relative path {name:?}, and candidates run {runs_in}: \
         start minrepro in the directory the program expects, or pass --cwd DIR"
    ))
}

/// The original's verdict under `job.predicate`, run alone (answered from the cache only when
/// `from_cache`).
fn judge_original<L: Language>(
    language: &L,
    job: &TextJob<'_>,
    from_cache: bool,
) -> Result<Outcome, RunError> {
    let mut probe = TextOracle::new(language, job.predicate, job.temp, job.file_name.clone())
        .with_executor(job.executor);
    for (name, value) in &job.placeholders {
        probe = probe.with_placeholder(name, value);
    }
    job.progress.message("running the original");
    let options = EngineOptions {
        jobs: 1,
        config_digest: job.predicate.config_digest().to_owned(),
        size_unit: L::SIZE_UNIT,
        exact: true,
    };
    let engine = Engine::new(&probe, job.cache, options, job.progress);
    Ok(engine.judge(&job.original.to_owned(), from_cache)?)
}

/// The fidelity guard `--fidelity` asks for, read off the original's run `first`, with its
/// one-line explanation; and, when the failure must stay in a function of the program itself,
/// that function's file (relative to the workspace) and qualified name (so the language does
/// not offer to inline it away); and whether the failure must stay in a library's function.
fn fidelity_guard(
    args: &PythonArgs,
    first: &minrepro_predicate::RunRecord,
    source: &Source,
    progress: &Progress,
) -> (Option<OutputCheck>, Option<(String, String)>, bool) {
    let level = args.fidelity_level();
    if level == Fidelity::Message {
        return (None, None, false);
    }
    let found = guard::exception_type(&first.stderr.tail);
    let own_file = format!("{{workspace}}/{}", source.file_name);
    let read = |file: &str| match (file.strip_prefix("{workspace}/"), &source.project_root) {
        _ if file == own_file => Some(source.text.clone()),
        (Some(name), Some(root)) => std::fs::read_to_string(root.join(name)).ok(),
        _ => std::fs::read_to_string(file).ok(),
    };
    let origin = match (&found, level) {
        (Some(_), Fidelity::Origin) => guard::Origin::of(&first.stderr.tail, &read),
        _ => None,
    };
    progress.message(&match (&found, &origin) {
        (Some(kind), Some(origin)) => format!(
            "the original fails {} with an uncaught {kind}; candidates must fail there too (--fidelity type keeps only the exception type)",
            where_shown(origin, &source.file_name),
        ),
        (Some(kind), None) => format!(
            "the original ends in an uncaught {kind}; candidates must too (--fidelity message turns this off)"
        ),
        (None, _) => "the original ends without an uncaught Python exception; candidates must too (--fidelity message turns this off)".to_owned(),
    });
    if let (Some(kind), Some(needle)) = (&found, args.err_msg.as_deref()) {
        if let Some(note) = guard::needle_outside_traceback(first, needle, kind) {
            progress.message(&note);
        }
    }
    match (found, origin) {
        (Some(kind), Some(origin)) => {
            let keep = (origin.in_program() && origin.function != "<module>").then(|| {
                let file = origin
                    .file
                    .strip_prefix("{workspace}/")
                    .unwrap_or(&origin.file);
                (file.to_owned(), origin.function.clone())
            });
            // A project's modules may be inlined into its entry: the function may move there,
            // and a class a local module defines then prints without its module's name.
            let inlined =
                (source.project_root.is_some() && origin.in_program() && origin.file != own_file)
                    .then(|| guard::Inlined {
                        kind: source.project_root.as_ref().and_then(|root| {
                            project::inlined_type_name(&kind, root, &source.file_name)
                        }),
                        file: own_file,
                    });
            let in_library = !origin.in_program();
            let check = guard::same_origin_check_in(&kind, origin, inlined);
            (Some(check), keep, in_library)
        }
        (found, _) => (
            Some(guard::same_exception_check(found.as_deref())),
            None,
            false,
        ),
    }
}

/// Where a failure happens, as the user knows it: `in F (the program NAME)`, `at the top level
/// of the program NAME`, `in F (/path/of/the/library.py)`.
fn where_shown(origin: &guard::Origin, file_name: &str) -> String {
    let file = match origin.in_program() {
        true => format!("the program {file_name}"),
        false => origin.file.clone(),
    };
    match origin.function.as_str() {
        "<module>" => format!("at the top level of {file}"),
        function => format!("in {function} ({file})"),
    }
}

/// The command that runs the result as the candidates were run (without `--predicate`: the
/// interpreter, the output and the `--arg` values), quoted for a POSIX shell.
fn how_to_run(args: &PythonArgs, output: &str) -> String {
    // --arg and --predicate exclude each other: with --predicate there are no program arguments.
    let program_args = args.script_args.iter().map(String::as_str);
    let words: Vec<&str> = [args.python.as_str(), output]
        .into_iter()
        .chain(program_args)
        .collect();
    words
        .iter()
        .map(|w| shell_quoted(w))
        .collect::<Vec<_>>()
        .join(" ")
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
    let executable = match &args.predicate.predicate {
        Some(exe) => exe.clone(),
        None => python.to_string_lossy().into_owned(),
    };
    let env = candidate_env(args, source);
    let mut config = args.predicate.config_matching(
        executable,
        PLACEHOLDERS.to_vec(),
        args.err_msg.as_deref(),
        guard,
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
    // A project's modules are imported from the workspace (the entry's directory there is
    // `sys.path[0]`), never from the original tree.
    let dir = match source.project_root {
        None => Some(source.dir.to_string_lossy().into_owned()),
        Some(_) => None,
    };
    let existing = std::env::var("PYTHONPATH")
        .ok()
        .map(|p| match &source.project_root {
            Some(root) => project::outside_root(&p, root),
            None => p,
        });
    let existing = existing.filter(|p| !p.is_empty());
    let python_path = match (dir, existing) {
        (Some(dir), Some(existing)) => Some(format!("{dir}:{existing}")),
        (Some(one), None) | (None, Some(one)) => Some(one),
        (None, None) => None,
    };
    let fixed = python_path
        .map(|path| ("PYTHONPATH".to_owned(), path))
        .into_iter()
        .chain([
            ("PYTHONDONTWRITEBYTECODE".into(), "1".into()),
            ("PYTHONHASHSEED".into(), "0".into()),
        ]);
    fixed.into_iter().chain(args.env.iter().cloned()).collect()
}
