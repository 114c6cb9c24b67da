//! The reduction of one text file, end to end once the original is known to reproduce: the
//! group passes and the tidy pass run by the engine, every accepted candidate saved in the
//! background, statistics written, the output written even when nothing smaller was found.
//! Also the original's first judgement and the small rules every text front end applies around
//! the reduction (output and statistics paths, the candidates' working directory).

use std::path::{Path, PathBuf};

use minrepro_cache::OutcomeCache;
use minrepro_driver::{stats_json, write_atomically, RunError};
use minrepro_engine::{Engine, EngineError, EngineOptions, Pass, Progress, Reduction, TempRoot};
use minrepro_predicate::{Executor, Outcome, Predicate};

use crate::language::{Language, Strategy};
use crate::limits::timeout_cost;
use crate::oracle::TextOracle;
use crate::passes::group_passes;
use crate::saver::Saver;
use crate::state::SharedState;
use crate::tidy::TidyPass;

/// What a text reduction needs besides its language.
pub struct TextJob<'a> {
    /// The front end's name in messages (`minrepro python`).
    pub front_end: &'static str,
    /// The original text (known to reproduce).
    pub original: &'a str,
    /// The original's verdict under `predicate`, if known (spares the engine a run).
    pub original_outcome: Option<Outcome>,
    /// Judges candidates.
    pub predicate: &'a Predicate,
    /// Runs the predicate's commands.
    pub executor: &'a dyn Executor,
    /// Where workspaces go.
    pub temp: &'a TempRoot,
    /// The verdict cache.
    pub cache: &'a OutcomeCache,
    /// Progress reports.
    pub progress: &'a Progress,
    /// The candidate's file name in its workspace.
    pub file_name: String,
    /// Placeholders besides `{file}` and `{workspace}`, with their values.
    pub placeholders: Vec<(String, String)>,
    /// The output file.
    pub output: &'a Path,
    /// Where to write the statistics as JSON, if anywhere.
    pub stats_json: Option<&'a Path>,
    /// Search strategy of the group passes.
    pub strategy: Strategy,
    /// Parallel evaluations.
    pub jobs: usize,
    /// Accept exactly as `-j 1` does (see [`EngineOptions::exact`]).
    pub exact: bool,
}

/// What a finished reduction reports.
#[derive(Debug, Clone, PartialEq)]
pub struct TextReduced {
    /// The original's size.
    pub size_before: u64,
    /// The result's size.
    pub size_after: u64,
    /// Candidates that timed out.
    pub timeouts: usize,
    /// A candidate's run limit (seconds).
    pub run_limit: f64,
}

/// Reduces `job.original` in `language` and writes the result to `job.output` (see the module
/// documentation).
pub fn reduce_text<L: Language>(language: L, job: TextJob<'_>) -> Result<TextReduced, RunError> {
    let run_limit = job.predicate.run_limit().as_secs_f64();
    let state = SharedState::new(language, job.original, job.strategy);
    let language = state.language();
    let mut oracle = TextOracle::new(language, job.predicate, job.temp, job.file_name)
        .with_executor(job.executor)
        .with_sizes(state.sizes());
    for (name, value) in &job.placeholders {
        oracle = oracle.with_placeholder(name, value);
    }
    let group_passes = group_passes(&state);
    let tidy = TidyPass::new(&state);
    let mut passes: Vec<&dyn Pass<String>> = group_passes
        .iter()
        .map(|p| p as &dyn Pass<String>)
        .collect();
    passes.push(&tidy);
    let options = EngineOptions {
        jobs: job.jobs,
        config_digest: job.predicate.config_digest().to_owned(),
        size_unit: language.size_unit(),
        exact: job.exact,
    };
    // Accepted candidates are written in the background (see saver).
    let mut saver = Saver::new(job.output.to_path_buf());
    let mut on_accept = |case: &String| {
        let bytes = language
            .encode(case)
            .map_err(|e| EngineError::Fatal(cannot_write(job.output, &e)))?;
        saver
            .save(&bytes)
            .map_err(|e| EngineError::Fatal(e.to_string()))
    };
    let mut reduction = Reduction::new(&oracle, job.cache, job.progress, options)
        .passes(&passes)
        .on_accept(&mut on_accept);
    if let Some(outcome) = job.original_outcome {
        reduction = reduction.original_outcome(outcome);
    }
    let (result, stats) = minrepro_driver::reduce(reduction, job.original.to_owned());
    let saved = saver.finish();
    if let Some(path) = job.stats_json {
        // The original's first run was counted when it ran (or answered from the cache).
        let mut value = stats_json(&stats, 0, result.is_ok());
        if let Some(object) = value.as_object_mut() {
            object.insert("run_limit_seconds".into(), run_limit.into());
            object.insert(
                "timeout_seconds".into(),
                timeout_cost(stats.timeouts, run_limit).into(),
            );
            object.extend(
                language
                    .extra_stats()
                    .into_iter()
                    .map(|(k, v)| (k.to_owned(), v)),
            );
        }
        let text = serde_json::to_string_pretty(&value).unwrap_or_default() + "\n";
        write_atomically(path, text.as_bytes())
            .map_err(|e| RunError::Failed(cannot_write(path, &e)))?;
    }
    // Benchmark only (MINREPRO_TIMING_LOG); never changes the outcome.
    let _ = oracle.log_cpu_time();
    let reduced = match (result, saved) {
        (Ok(reduced), Ok(())) => reduced,
        (Ok(_), Err(error)) => return Err(RunError::Failed(error.to_string())),
        (Err(error), saved) => {
            if saver.saved_any() && saved.is_ok() {
                eprintln!(
                    "{}: {} holds the smallest candidate accepted before the run stopped",
                    job.front_end,
                    job.output.display()
                );
            } else if matches!(error, RunError::Interrupted) {
                eprintln!("{}: no output was written", job.front_end);
            }
            return Err(error);
        }
    };
    if reduced.stats.accepted == 0 {
        let bytes = language
            .encode(&reduced.case)
            .map_err(|e| RunError::Failed(cannot_write(job.output, &e)))?;
        write_atomically(job.output, &bytes)
            .map_err(|e| RunError::Failed(cannot_write(job.output, &e)))?;
    }
    Ok(TextReduced {
        size_before: stats.size_before,
        size_after: stats.size_after,
        timeouts: stats.timeouts,
        run_limit,
    })
}

/// The original's verdict under `job.predicate`, run alone (answered from the cache only when
/// `from_cache`).
pub fn judge_original<L: Language>(
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
        size_unit: language.size_unit(),
        exact: true,
    };
    let engine = Engine::new(&probe, job.cache, options, job.progress);
    Ok(engine.judge(&job.original.to_owned(), from_cache)?)
}

/// "cannot write PATH: ERROR".
fn cannot_write(path: &Path, error: &dyn std::fmt::Display) -> String {
    format!("cannot write {}: {error}", path.display())
}

/// Checks that the output file `output` can be written without touching the source file
/// (`source`, resolved): not the source itself (by resolved path), not a directory, and inside an
/// existing directory.
pub fn check_output(output: &Path, source: &Path) -> Result<(), RunError> {
    let shown = output.display();
    if minrepro_driver::resolve_for_comparison(output) == source {
        return Err(RunError::Failed(format!(
            "the output {shown} is the source file; choose another -o (the source is never modified)"
        )));
    }
    if output.is_dir() {
        return Err(RunError::Failed(format!(
            "the output {shown} is a directory"
        )));
    }
    let parent = match output.parent() {
        Some(p) if !p.as_os_str().is_empty() => p,
        _ => Path::new("."),
    };
    if !parent.is_dir() {
        return Err(RunError::Failed(format!(
            "the output's directory {} does not exist",
            parent.display()
        )));
    }
    Ok(())
}

/// Refuses an existing `output` unless `force` (a file this run did not write is never
/// replaced silently).
pub fn refuse_existing_output(front_end: &str, output: &Path, force: bool) -> Result<(), RunError> {
    if force || !output.exists() {
        return Ok(());
    }
    Err(RunError::OutputExists {
        path: output.to_path_buf(),
        reason: format!(
            "{front_end} does not replace a file it did not write in this run: choose another \
             -o, remove the file, or pass --force to replace it"
        ),
    })
}

/// Refuses a `--stats-json` file that is the source or the output (it would overwrite them).
pub fn check_stats_file(
    stats: Option<&Path>,
    source: &Path,
    output: &Path,
) -> Result<(), RunError> {
    let Some(path) = stats else {
        return Ok(());
    };
    let resolved = minrepro_driver::resolve_for_comparison(path);
    for (what, other) in [("source", source), ("output", output)] {
        if minrepro_driver::resolve_for_comparison(other) == resolved {
            return Err(RunError::Usage(format!(
                "--stats-json {} is also the {what}",
                path.display()
            )));
        }
    }
    Ok(())
}

/// The directory candidates run in: `cwd`, else the directory minrepro was started in; `None`
/// when `isolated` (each candidate's own workspace).
pub fn working_dir(isolated: bool, cwd: Option<&Path>) -> Result<Option<PathBuf>, RunError> {
    if isolated {
        return Ok(None);
    }
    let dir = match cwd {
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

/// `word` as one POSIX shell word: bare when it has only safe characters, else single-quoted.
pub fn shell_quoted(word: &str) -> String {
    let safe = |c: char| c.is_ascii_alphanumeric() || "-_./:=+,@%".contains(c);
    if !word.is_empty() && word.chars().all(safe) {
        word.to_owned()
    } else {
        format!("'{}'", word.replace('\'', "'\\''"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn output_equal_to_source_is_refused() {
        let (dir, file) = minrepro_testkit::temp_file("p.py", "print(1)\n");
        let source = minrepro_driver::resolve_for_comparison(&file);
        let same = dir.path().join(".").join("p.py");
        assert!(check_output(&same, &source).is_err());
        assert!(check_output(&dir.path().join("q.py"), &source).is_ok());
        assert!(check_output(&dir.path().join("no/q.py"), &source).is_err());
        assert!(check_output(dir.path(), &source).is_err());
    }

    #[test]
    fn shell_words_are_quoted_only_when_needed() {
        assert_eq!(shell_quoted("out/min.py"), "out/min.py");
        assert_eq!(shell_quoted("my file.py"), "'my file.py'");
        assert_eq!(shell_quoted("it's"), "'it'\\''s'");
        assert_eq!(shell_quoted(""), "''");
    }
}
