//! When runtime-value substitution applies, and its recorder set up the way candidates run
//! (the recording itself is `minrepro-pyvalues`'s).

use std::path::Path;
use std::sync::Arc;
use std::time::Duration;

use minrepro_engine::{Progress, TempRoot};
use minrepro_pyrunner::RunnerPool;
use minrepro_pyvalues::{Program, ValueRecorder};

use crate::source::Source;
use crate::{candidate_env, PythonArgs};

/// The instrumented runs of runtime-value substitution, unless turned off
/// (`--no-value-substitution`) or not applicable: with `--predicate` (minrepro does not know how
/// the predicate runs the program), under a remote launcher (the program may need the nodes), or
/// for a source in another encoding than UTF-8. A run may take as long as a predicate run
/// (`--timeout`), or 50 times the original's run time when that is longer (the recording slows
/// the program), at most ten times `--timeout`. Under the runner backend the runs fork from its
/// warm helpers, as candidates do. Never less than `--timeout`: a shorter limit
/// that a loaded machine overruns would make the values, and so the result, depend on the load.
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
