//! `--report FILE.html`: the run's counters, its progress history and the front end's documents
//! made into [`minrepro_report`]'s page and written atomically, also after an interrupt or a
//! failure once reducing started (the page then says how the run ended).

use std::path::Path;

use minrepro_engine::{Progress, Stats};
pub use minrepro_report::Document;
use minrepro_report::{PassRow, Point, Report};

use crate::RunError;

/// What a front end adds to its counters and progress for the report.
pub struct ReportInput<'a> {
    /// The front end (`minrepro file`).
    pub front_end: &'a str,
    /// The size unit.
    pub unit: &'a str,
    /// The counters.
    pub stats: &'a Stats,
    /// The reporter the run used (its history and clock).
    pub progress: &'a Progress,
    /// How the run ended: `Ok(())`, or the error that stopped it.
    pub ended: Result<(), &'a RunError>,
    /// The original's files.
    pub original: Vec<Document>,
    /// The result's files (those of the output as it stands).
    pub result: Vec<Document>,
    /// Further sections (heading, preformatted text).
    pub sections: Vec<(String, String)>,
}

/// A `--report` page a front end asks [`conclude`](crate::conclude) to write: where, and the
/// documents it shows (the counters and history come from the run).
pub struct ReportRequest<'a> {
    /// The page's path (`--report`).
    pub path: &'a Path,
    /// The front end (`minrepro python`).
    pub front_end: &'a str,
    /// The original's files.
    pub original: Vec<Document>,
    /// The result's files: what the output holds, empty when nothing was written.
    pub result: Vec<Document>,
}

/// Refuses a `--report` path that is one of `kept` (an input, the output) or lies inside one
/// of them (an output directory), before anything runs: the report must never replace them.
pub fn check_report_path(report: Option<&Path>, kept: &[&Path]) -> Result<(), RunError> {
    let Some(report) = report else {
        return Ok(());
    };
    let resolved = crate::resolve_for_comparison(report);
    for path in kept {
        if resolved.starts_with(crate::resolve_for_comparison(path)) {
            return Err(RunError::Usage(format!(
                "--report {} would overwrite {}: choose another file",
                report.display(),
                path.display()
            )));
        }
    }
    Ok(())
}

/// Writes the report of `input` to `path`.
pub fn write_report(path: &Path, input: ReportInput<'_>) -> Result<(), RunError> {
    let page = minrepro_report::render(&report(input));
    crate::write_atomically(path, page.as_bytes())
        .map_err(|e| RunError::Failed(format!("cannot write {}: {e}", path.display())))
}

fn report(input: ReportInput<'_>) -> Report {
    let stats = input.stats;
    let unit = input.unit;
    let history = input.progress.history();
    let outcome = match input.ended {
        Ok(()) => format!(
            "Complete: {} -> {} {unit}.",
            stats.size_before, stats.size_after
        ),
        Err(RunError::Interrupted) => format!(
            "Interrupted at {} {unit} (from {}): the result below is the smallest candidate accepted before the interrupt.",
            stats.size_after, stats.size_before
        ),
        Err(error) => format!("Stopped: {error}"),
    };
    let summary = [
        ("predicate runs", stats.predicate_evaluations.to_string()),
        ("of them cancelled", stats.cancelled_runs.to_string()),
        ("cache hits", stats.cache_hits.to_string()),
        ("candidates decided", stats.candidates_decided.to_string()),
        ("accepted", stats.accepted.to_string()),
        ("timed out", stats.timeouts.to_string()),
        (
            "size",
            format!("{} -> {} {unit}", stats.size_before, stats.size_after),
        ),
        ("rounds", stats.rounds.to_string()),
        (
            "wall time",
            format!(
                "{:.2} s (start-up {:.2} s)",
                stats.wall_time.as_secs_f64(),
                stats.startup_time.as_secs_f64()
            ),
        ),
    ]
    .into_iter()
    .map(|(label, value)| (label.to_owned(), value))
    .collect();
    let passes = stats
        .per_pass
        .iter()
        .map(|(name, &(candidates, accepted))| PassRow {
            name: name.clone(),
            candidates,
            accepted,
            seconds: history.pass_time.get(name).map_or(0.0, |t| t.as_secs_f64()),
        })
        .collect();
    let trace = history
        .trace
        .iter()
        .map(|p| Point {
            runs: p.runs,
            seconds: p.elapsed.as_secs_f64(),
            size: p.size,
        })
        .collect();
    Report {
        title: input.front_end.to_owned(),
        command_line: std::env::args_os()
            .map(|a| a.to_string_lossy().into_owned())
            .collect(),
        outcome,
        unit: unit.to_owned(),
        summary,
        trace,
        end: (
            input.progress.evaluations(),
            input.progress.elapsed().as_secs_f64(),
        ),
        passes,
        sections: input.sections,
        original: input.original,
        result: input.result,
    }
}
