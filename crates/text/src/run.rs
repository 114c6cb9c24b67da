//! The reduction of one text file, end to end once the original is known to reproduce: the
//! group passes, the tidy pass and the fixpoint check run by the engine, every accepted candidate saved in the
//! background, the output written even when nothing smaller was found. The front end prints
//! and writes the statistics (`minrepro_driver`) from what [`reduce_text`] returns.

use std::path::Path;

use minrepro_cache::{write_atomically, OutcomeCache};
use minrepro_engine::{EngineError, EngineOptions, Pass, Progress, Reduction, Stats, TempRoot};
use minrepro_predicate::{Executor, Outcome, Predicate};

use crate::confirm::ConfirmPass;
use crate::language::{Encoded, Language, Strategy};
use crate::oracle::TextOracle;
use crate::passes::group_passes;
use crate::rejudge::{Rejudge, Rejudged};
use crate::saver::Saver;
use crate::state::SharedState;
use crate::tidy::TidyPass;

/// Writes a reduction's output from its text (see [`TextJob::publish`]); `Err`: why not.
pub type Publish<'a> = dyn Fn(&str) -> Result<(), String> + Sync + 'a;

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
    /// Writes the output of a text the language encodes as several files (a set of
    /// documents: a directory, or the inputs in place), instead of `output`; called with
    /// every accepted text, and with the original when nothing smaller was found.
    pub publish: Option<&'a Publish<'a>>,
    /// Search strategy of the group passes.
    pub strategy: Strategy,
    /// Parallel evaluations.
    pub jobs: usize,
    /// Accept exactly as `-j 1` does (see [`EngineOptions::exact`]).
    pub exact: bool,
    /// When a candidate that timed out at the predicate's run limit (e.g. an adaptive one) is
    /// judged once more at a longer limit.
    pub rejudge: Rejudge,
}

/// What a reduction reports, finished or not.
#[derive(Debug)]
pub struct TextRun {
    /// `Ok` when the reduction reached its fixpoint and the output holds the result; else why
    /// it stopped (the engine's error; an output that could not be written is
    /// [`EngineError::Fatal`]).
    pub result: Result<(), EngineError>,
    /// The engine's counters (sizes, runs, timeouts, per pass), in every case.
    pub stats: Stats,
    /// A candidate's run limit (seconds).
    pub run_limit: f64,
    /// What judging timed-out candidates once more did.
    pub rejudged: Rejudged,
    /// The unit of the sizes ([`Language::SIZE_UNIT`]).
    pub size_unit: &'static str,
    /// The text the output holds: the result, or the smallest candidate saved before the run
    /// stopped; `None` when the output was not written.
    pub reduced: Option<String>,
}

/// Reduces `job.original` in `language` and writes the result to `job.output` (see the module
/// documentation).
pub fn reduce_text<L: Language>(language: L, job: TextJob<'_>) -> TextRun {
    let run_limit = job.predicate.run_limit().as_secs_f64();
    let state = SharedState::new(language, job.original, job.strategy);
    let language = state.language();
    let mut oracle = TextOracle::new(language, job.predicate, job.temp, job.file_name)
        .with_executor(job.executor)
        .with_sizes(state.sizes());
    for (name, value) in &job.placeholders {
        oracle = oracle.with_placeholder(name, value);
    }
    oracle = oracle.with_rejudge(job.rejudge);
    let group_passes = group_passes(&state);
    let tidy = TidyPass::new(&state);
    let confirm = ConfirmPass::new(&state);
    let mut passes: Vec<&dyn Pass<String>> = group_passes
        .iter()
        .map(|p| p as &dyn Pass<String>)
        .collect();
    passes.push(&tidy);
    passes.push(&confirm);
    let options = EngineOptions {
        jobs: job.jobs,
        config_digest: job.predicate.config_digest().to_owned(),
        size_unit: L::SIZE_UNIT,
        exact: job.exact,
    };
    // Accepted candidates are written in the background (see saver).
    let mut saver = Saver::new(job.output.to_path_buf());
    let mut last_saved: Option<String> = None;
    let mut on_accept = |case: &String| {
        if let Some(publish) = job.publish {
            last_saved = Some(case.clone());
            return publish(case).map_err(EngineError::Fatal);
        }
        let bytes = one_file(language, case, job.output)?;
        last_saved = Some(case.clone());
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
    let (result, stats) = reduction.run(job.original.to_owned());
    let saved = saver.finish();
    // Benchmark only (MINREPRO_TIMING_LOG); never changes the outcome.
    let _ = oracle.log_cpu_time();
    let mut reduced = None;
    let result = match (result, saved) {
        (Ok(done), Ok(())) => {
            let written = if done.stats.accepted == 0 {
                match job.publish {
                    Some(publish) => publish(&done.case).map_err(EngineError::Fatal),
                    None => one_file(language, &done.case, job.output).and_then(|bytes| {
                        write_atomically(job.output, &bytes)
                            .map_err(|e| cannot_write(job.output, &e))
                    }),
                }
            } else {
                Ok(())
            };
            reduced = written.is_ok().then_some(done.case);
            written
        }
        (Ok(_), Err(error)) => Err(EngineError::Fatal(error.to_string())),
        (Err(error), saved) => {
            if last_saved.is_some() && saved.is_ok() {
                reduced = last_saved;
                eprintln!(
                    "{}: {} holds the smallest candidate accepted before the run stopped",
                    job.front_end,
                    job.output.display()
                );
            } else if matches!(error, EngineError::Interrupted) {
                eprintln!("{}: no output was written", job.front_end);
            }
            Err(error)
        }
    };
    TextRun {
        result,
        stats,
        run_limit,
        rejudged: oracle.rejudged(),
        size_unit: L::SIZE_UNIT,
        reduced,
    }
}

/// The bytes of `text` as the one file `output` (a language that encodes it as several files
/// needs [`TextJob::publish`]).
fn one_file<'t, L: Language>(
    language: &L,
    text: &'t str,
    output: &Path,
) -> Result<std::borrow::Cow<'t, [u8]>, EngineError> {
    match language
        .encode(text)
        .map_err(|e| cannot_write(output, &e))?
    {
        Encoded::One(bytes) => Ok(bytes),
        Encoded::Several(_) => Err(cannot_write(
            output,
            &"the text is several files, and the front end gave one output file",
        )),
    }
}

/// "cannot write PATH: ERROR", as the engine's fatal error.
fn cannot_write(path: &Path, error: &dyn std::fmt::Display) -> EngineError {
    EngineError::Fatal(format!("cannot write {}: {error}", path.display()))
}
