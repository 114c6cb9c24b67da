//! The runner backend's start: whether it applies, what its helpers preload, and the cache tag
//! naming the backend that actually runs the candidates.

use std::path::Path;

use minrepro_driver::RunError;
use minrepro_engine::Progress;
use minrepro_pyrunner::{Preload, RunnerPool};

use crate::candidates::candidate_env;
use crate::source::Source;
use crate::{Backend, PythonArgs};

/// Starts the runner backend when it applies (`--backend runner` without `--predicate`, local
/// runs); falls back to fresh interpreters with a one-line warning when its helper cannot start,
/// and with a one-line notice under a launcher (its helpers fork candidates on this machine).
pub(crate) fn start_runner(
    args: &PythonArgs,
    source: &Source,
    python: &Path,
    launch: &minrepro_predicate::Launch,
    progress: &Progress,
) -> Result<Option<RunnerPool>, RunError> {
    let why_not = if args.backend != Backend::Runner {
        Some("--preload needs --backend runner")
    } else if args.pytest.is_some() {
        // pytest imports the test and its modules itself, in each candidate's own interpreter.
        Some("--preload has no effect with --pytest")
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
    let mut automatic = if args.no_auto_preload {
        Vec::new()
    } else {
        minrepro_pysyntax::top_level_imports(&source.text)
    };
    if source.project_root.is_some() {
        // A project's own modules are never preloaded: candidates import them from their
        // workspace (the helper would find none of them).
        automatic.retain(|module| {
            let top = module.split('.').next().unwrap_or(module);
            !source.dir.join(format!("{top}.py")).is_file() && !source.dir.join(top).is_dir()
        });
    }
    let preload = Preload {
        required: args.preload.clone(),
        automatic,
        program_dir: Some(
            source
                .project_root
                .clone()
                .unwrap_or_else(|| source.dir.clone()),
        ),
    };
    // The helpers start with the candidates' environment: PYTHONPATH (--env included) is read
    // at interpreter start only.
    match RunnerPool::start_with(python, &preload, &candidate_env(args, source)) {
        Ok(pool) => {
            let ready = pool.ready();
            for (module, why) in &ready.skipped {
                progress.message(&format!(
                    "not preloading {module}: {why}; candidates import it themselves"
                ));
            }
            if !ready.preloaded.is_empty() {
                progress.message(&format!(
                    "the runner's helpers import {} once for all candidates (--no-auto-preload turns this off)",
                    ready.preloaded.join(", ")
                ));
            }
            Ok(Some(pool))
        }
        Err(error) => {
            eprintln!("minrepro python: warning: {error}; falling back to --backend subproc");
            Ok(None)
        }
    }
}

/// The cache tag naming the backend that actually runs the candidates: a runner that could not
/// start means fresh interpreters, whose verdicts must not be filed under the runner's.
pub(crate) fn backend_tag(args: &PythonArgs, runner: Option<&RunnerPool>) -> String {
    match runner {
        Some(pool) => format!(
            "backend=runner preload={} auto-preload={}",
            args.preload.join(","),
            pool.ready().preloaded.join(",")
        ),
        None => "backend=subproc".to_owned(),
    }
}
