//! How candidates run: the predicate's command and environment, the instrumented runs of
//! runtime-value substitution, and the command that runs a result as candidates were run.

use std::path::Path;
use std::sync::Arc;
use std::time::Duration;

use minrepro_driver::RunError;
use minrepro_engine::{Progress, TempRoot};
use minrepro_predicate::{OutputCheck, PredicateConfig};
use minrepro_pyrunner::RunnerPool;
use minrepro_pyvalues::{Program, ValueRecorder};

use crate::checks::shell_quoted;
use crate::source::Source;
use crate::{project, PythonArgs, PLACEHOLDERS};

/// The instrumented runs of runtime-value substitution, unless turned off
/// (`--no-value-substitution`) or not applicable: with `--predicate` (minrepro does not know how
/// the predicate runs the program), under a remote launcher (the program may need the nodes), or
/// for a source in another encoding than UTF-8. A run may take as long as a predicate run
/// (`--timeout`), or 50 times the original's run time when that is longer (the recording slows
/// the program), at most ten times `--timeout`. Under the runner backend the runs fork from its
/// warm helpers, as candidates do. Never less than `--timeout`: a shorter limit
/// that a loaded machine overruns would make the values, and so the result, depend on the load.
/// `in_library`: the failure is raised in a library function that every candidate must still
/// reach, so values library code produced may be substituted too.
#[allow(clippy::too_many_arguments)]
pub(crate) fn value_recorder(
    args: &PythonArgs,
    source: &Source,
    python: &Path,
    launch: &minrepro_predicate::Launch,
    working_dir: Option<&Path>,
    temp: &TempRoot,
    original_seconds: f64,
    (runner, progress): (Option<&Arc<RunnerPool>>, &Progress),
    in_library: bool,
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
    let recorder = ValueRecorder::new(
        program,
        temp.path().to_path_buf(),
        Duration::from_secs_f64(seconds),
        last_values,
    )
    .library_failure(in_library);
    // On the runner's warm helpers when it runs the candidates: with --preload, a fresh
    // interpreter would import the preloaded modules again for every recorded text.
    Some(Arc::new(match runner {
        Some(pool) => recorder.with_executor(Arc::clone(pool) as _),
        None => recorder,
    }))
}

/// The command that runs the result as the candidates were run (without `--predicate`: the
/// interpreter, the output and the `--arg` values), quoted for a POSIX shell.
pub(crate) fn how_to_run(args: &PythonArgs, output: &str) -> String {
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
/// message, the optional exception-type guard, and the candidate environment; under pytest
/// (`pytest_args`: the arguments of its run) the test's run instead.
pub(crate) fn predicate_config(
    args: &PythonArgs,
    source: &Source,
    python: &Path,
    guard: Option<OutputCheck>,
    backend_tag: &str,
    (working_dir, pytest_args): (Option<&Path>, Option<Vec<String>>),
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
    if let Some(pytest_args) = pytest_args {
        // The candidate's files are in the workspace, where the run starts: pytest finds the
        // test by its node id there, and no `{file}` is named.
        config.args = pytest_args;
        config.cache_tags.push("pytest".to_owned());
    } else if args.predicate.predicate.is_none() {
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
pub(crate) fn candidate_env(args: &PythonArgs, source: &Source) -> Vec<(String, String)> {
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
