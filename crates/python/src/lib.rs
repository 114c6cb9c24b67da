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
mod candidates;
mod checks;
pub mod deep;
pub mod encoding;
mod fidelity;
pub mod guard;
pub mod interpreter;
pub mod language;
pub mod project;
pub mod pytest;
mod runner;
pub mod source;
mod timeout_factor;

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Instant;

use minrepro_driver::{claim_output, open_cache, ReportRequest, RunError, StatsExtra, StrategyArg};
use minrepro_engine::{Engine, EngineOptions, Progress, TempRoot};
use minrepro_predicate::{Executor, Outcome, OutputCheck, Predicate, Status};
use minrepro_text::{reduce_text, Language, Rejudge, Strategy, TextJob, TextOracle};

pub use args::{Backend, Fidelity, PythonArgs};
pub use deep::beyond_cpython;
pub use timeout_factor::{parse_timeout_factor, TimeoutFactor, TimeoutFactorError};

use crate::candidates::{how_to_run, predicate_config, value_recorder};
use crate::checks::{check_output, check_stats_file, refuse_existing_output, working_dir};
use crate::fidelity::fidelity_guard;
use crate::timeout_factor::{apply_timeout_factor, timeouts_note, Timeouts};

use crate::language::Python;

/// Placeholders a `--predicate`'s arguments may use.
const PLACEHOLDERS: [&str; 3] = ["file", "workspace", "python"];

/// Runs a Python reduction; returns the success line.
pub fn run(args: &PythonArgs) -> Result<String, RunError> {
    let has_predicate = args.predicate.predicate.is_some();
    let node = pytest::NodeId::of(args.pytest.as_deref())?;
    let source_path = match (&node, &args.source) {
        (Some(node), _) => node.file.clone(),
        (None, Some(source)) => source.clone(),
        (None, None) => return Err(RunError::Usage("give a SOURCE or --pytest NODEID".into())),
    };
    minrepro_driver::check_input_exists(&source_path, "the source")?;
    // A pytest test runs where `python -m pytest` would: in (the workspace's copy of) the root.
    let working_dir = match node {
        Some(_) => None,
        None => working_dir(args.isolated_cwd, args.cwd.as_deref())?,
    };
    let launch = args.predicate.launch()?;
    let progress = Progress::new("minrepro python", "tokens", args.common.quiet);
    let temp = TempRoot::new_in(args.predicate.work_dir.as_deref())
        .map_err(|e| RunError::Failed(format!("cannot create a temporary directory: {e}")))?;
    let interpreter =
        interpreter::resolve_python(&args.python, temp.path(), args.predicate.timeout)?;
    let mut source = source::read_source(&source_path, &interpreter.path, interpreter.minor)?;
    let root = match node {
        Some(_) => pytest::root_of(&source.dir, args.root.as_deref())?,
        None => project::root_of(&source.dir, args.root.as_deref(), None)?,
    };
    let project = project::discover(
        &source.path,
        &source.text,
        &root,
        &args.preload,
        node.is_some(),
    )?;
    if let Some(node) = &node {
        pytest::take_root(&mut source, &root, node, project.as_ref(), &progress)?;
        project::run::check_env_path(&args.env, &root)?;
    } else if let Some(found) = &project {
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
    check_stats_file(stats_file, &source_path, &args.output)?;
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
    // Under pytest (`test`) or as a program.
    let predicate_for = |guard: Option<OutputCheck>, test: bool| -> Result<Predicate, RunError> {
        let pytest_args = node
            .as_ref()
            .filter(|_| test)
            .map(|node| node.predicate_args(&source.file_name));
        let config = predicate_config(
            args,
            &source,
            &python,
            guard,
            &backend_tag,
            (working_dir.as_deref(), pytest_args),
        )?;
        Ok(Predicate::new(config)
            .map_err(|e| RunError::Usage(e.to_string()))?
            .with_working_dir(working_dir.clone())
            .with_launch(launch.clone()))
    };
    let predicate_with = |guard: Option<OutputCheck>| predicate_for(guard, true);
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
    let base = JobBase {
        args,
        executor,
        temp: &temp,
        cache: &cache,
        progress: &progress,
        file_name: &source.file_name,
        python: &python,
    };
    let mut job = base.job(&original_text, &unguarded);
    job.rejudge = Rejudge::Never;
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
            match node {
                Some(_) => pytest::missing_pytest_hint(&first.last_run.stderr.tail),
                None => relative_path_hint(&first.last_run, working_dir.as_deref()),
            },
        ) {
            explanation.push_str(&hint);
        }
        return Err(error);
    }
    let (guard, keep, expected) = fidelity_guard(args, &first.last_run, &source, &progress);
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
    let recorder_in = |runner| {
        value_recorder(
            args,
            &source,
            &python,
            &launch,
            working_dir.as_deref(),
            &temp,
            original_seconds,
            (runner, &progress),
            expected.in_library,
        )
    };
    // A test module is no program to run: its values are recorded once it is a plain script.
    language.values = match node {
        Some(_) => None,
        None => recorder_in(runner.as_ref()),
    };
    job.predicate = &predicate;
    job.rejudge = args.rejudge_timeouts.into();
    let recorder = language.values.clone();
    let publish = |text: &str| project::run::publish(&args.output, text, &source.file_name);
    let keep_function = keep.as_ref().map(|(_, function)| function.clone());
    let run = match &project {
        Some(found) => {
            job.publish = Some(&publish);
            reduce_text(project::run::language(found, &language, keep.as_ref()), job)
        }
        None => {
            language.keep_function = keep_function.clone();
            reduce_text(language.clone(), job)
        }
    };
    let (run, stays, recorder) = match &node {
        None => (run, None, recorder),
        Some(node) => {
            // The test's run limit: a script runs in less time than pytest around it.
            let script_predicate =
                predicate_for(guard.clone(), false)?.with_run_limit(predicate.run_limit());
            let script_language = Python {
                values: recorder_in(None),
                keep_function,
                ..language.clone()
            };
            let test_set = project
                .as_ref()
                .map(|found| project::run::language(found, &language, None));
            let judge_test = |text: &str| {
                let job = base.job(text, &predicate);
                match &test_set {
                    Some(set) => judge_original(set, &job, false),
                    None => judge_original(&language, &job, false),
                }
            };
            let as_text = |e: RunError| e.to_string();
            let conversion = pytest::plain::Conversion {
                entry: &source.file_name,
                minor: interpreter.minor,
                judge_test: &|text| judge_test(text).map_err(as_text),
                judge_script: &|text| {
                    judge_original(&script_language, &base.job(text, &script_predicate), true)
                        .map_err(as_text)
                },
                reduce_script: &|text, outcome| {
                    let mut job = base.job(text, &script_predicate);
                    job.original_outcome = (args.predicate.predicate_runs <= 1).then_some(outcome);
                    reduce_text(script_language.clone(), job)
                },
                failed_check: &|run| expected.failed_check(run, args.err_msg.as_deref()),
                progress: &progress,
            };
            let (run, stays) = pytest::plain::finish(node, run, &conversion);
            let recorder = stays
                .is_none()
                .then(|| script_language.values.clone())
                .flatten();
            (run, stays, recorder)
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
    let run_with = |file: &str| match (&node, &stays) {
        (Some(node), Some(_)) => pytest::how_to_run(&args.python, &args.output, file, node),
        _ => how_to_run(args, file),
    };
    let line = match &project {
        Some(found) => {
            // Why the kept files, inlined, are not the output: that file run once more alone.
            let failed_check = |single: &str| {
                let outcome = judge_original(&language, &base.job(single, &predicate), false);
                let outcome = outcome.ok()?;
                Some(expected.failed_check(&outcome.last_run, args.err_msg.as_deref()))
            };
            let reduced = run.reduced.as_deref();
            project::run::success_line(&args.output, found, reduced, &run_with, &failed_check)
        }
        None => format!(
            "minrepro python: wrote {} ({} tokens, was {}{}); run it with: {}",
            args.output.display(),
            stats.size_after,
            stats.size_before,
            timeouts_note(&timeouts),
            run_with(&args.output.to_string_lossy())
        ),
    };
    Ok(match (&node, stays) {
        (Some(_), None) => format!("{line} (a plain script: the test without pytest)"),
        (Some(_), Some(why)) => format!("{line}; it stays a pytest test: {why}"),
        (None, _) => line,
    })
}

/// What every reduction and judgement of a run shares.
struct JobBase<'a> {
    args: &'a PythonArgs,
    executor: &'a dyn Executor,
    temp: &'a TempRoot,
    cache: &'a minrepro_cache::OutcomeCache,
    progress: &'a Progress,
    file_name: &'a str,
    python: &'a Path,
}

impl<'a> JobBase<'a> {
    /// The reduction of `original` under `predicate`, written to the output.
    fn job<'b>(&'b self, original: &'b str, predicate: &'b Predicate) -> TextJob<'b> {
        let args = self.args;
        TextJob {
            front_end: "minrepro python",
            original,
            original_outcome: None,
            predicate,
            executor: self.executor,
            temp: self.temp,
            cache: self.cache,
            progress: self.progress,
            file_name: self.file_name.to_owned(),
            placeholders: vec![("python".into(), self.python.to_string_lossy().into_owned())],
            output: &args.output,
            publish: None,
            strategy: match args.strategy {
                StrategyArg::ProbDd => Strategy::ProbDd,
                StrategyArg::Ddmin => Strategy::Ddmin,
            },
            jobs: args.common.jobs as usize,
            exact: args.common.exact_order(),
            rejudge: args.rejudge_timeouts.into(),
        }
    }
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
