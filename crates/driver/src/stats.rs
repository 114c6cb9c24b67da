//! What a run reports about itself: the end-of-run statistics lines (stderr) and the
//! `--stats-json` document (one writer for every front end).

use std::path::Path;

use minrepro_engine::{Progress, Stats};

use crate::RunError;

/// The end-of-run statistics line (stderr; not part of any deterministic output).
pub fn stats_line(stats: &Stats, unit: &str) -> String {
    format!(
        "predicate runs {}, cancelled {}, cache hits {}, candidates {}, accepted {}, size {} -> {} {unit}, wall time {:.2} s (start-up {:.2} s)",
        stats.predicate_evaluations,
        stats.cancelled_runs,
        stats.cache_hits,
        stats.candidates_decided,
        stats.accepted,
        stats.size_before,
        stats.size_after,
        stats.wall_time.as_secs_f64(),
        stats.startup_time.as_secs_f64()
    )
}

/// One line of per-pass counters: `pass decided/accepted`, and the number of rounds.
pub fn pass_stats_line(stats: &Stats) -> String {
    let passes: Vec<String> = stats
        .per_pass
        .iter()
        .map(|(name, (decided, accepted))| format!("{name} {decided}/{accepted}"))
        .collect();
    format!(
        "rounds {}; candidates/accepted per pass: {}",
        stats.rounds,
        passes.join(", ")
    )
}

/// The counters as JSON (for `--stats-json`): `extra_runs` predicate runs made outside the
/// engine (e.g. a front end's probe of the original) are added to `predicate_runs`, which
/// counts every launched run, `cancelled_runs` those cancelled as no longer needed; `complete`
/// says whether the reduction reached its fixpoint; `wall_seconds` includes `startup_seconds`;
/// `cpu_seconds` (this process's own, child processes excluded) includes `startup_cpu_seconds`.
pub fn stats_json(stats: &Stats, extra_runs: usize, complete: bool) -> serde_json::Value {
    let passes: serde_json::Map<String, serde_json::Value> = stats
        .per_pass
        .iter()
        .map(|(name, (decided, accepted))| {
            (
                name.clone(),
                serde_json::json!({"candidates": decided, "accepted": accepted}),
            )
        })
        .collect();
    serde_json::json!({
        "complete": complete,
        "predicate_runs": stats.predicate_evaluations + extra_runs,
        "engine_predicate_runs": stats.predicate_evaluations,
        "cancelled_runs": stats.cancelled_runs,
        "cache_hits": stats.cache_hits,
        "candidates": stats.candidates_decided,
        "accepted": stats.accepted,
        "timeouts": stats.timeouts,
        "size_before": stats.size_before,
        "size_after": stats.size_after,
        "wall_seconds": stats.wall_time.as_secs_f64(),
        "startup_seconds": stats.startup_time.as_secs_f64(),
        "cpu_seconds": stats.cpu_time.as_secs_f64(),
        "startup_cpu_seconds": stats.startup_cpu_time.as_secs_f64(),
        "rounds": stats.rounds,
        "sequential_steps": stats.sequential_steps,
        "passes": passes,
    })
}

/// The time timed-out candidates cost: each ran its whole limit (seconds, rounded to ms).
pub fn timeout_cost(timeouts: usize, run_limit: f64) -> f64 {
    (timeouts as f64 * run_limit * 1000.0).round() / 1000.0
}

/// Prints the end-of-run statistics lines through `progress` (so not with `-q`).
pub fn report_stats(progress: &Progress, unit: &str, stats: &Stats) {
    progress.message(&stats_line(stats, unit));
    progress.message(&pass_stats_line(stats));
}

/// What a `--stats-json` document holds besides the engine's counters.
#[derive(Debug, Clone, Default)]
pub struct StatsExtra {
    /// Predicate runs made outside the engine (see [`stats_json`]).
    pub runs: usize,
    /// A candidate's run limit in seconds, when the front end reports it: adds
    /// `run_limit_seconds` and `timeout_seconds` (the time timed-out candidates cost).
    pub run_limit: Option<f64>,
    /// A front end's own counters, appended in order (one named like a field above replaces it,
    /// e.g. a `timeout_seconds` that counts runs the engine does not see).
    pub fields: Vec<(String, serde_json::Value)>,
}

/// Writes the `--stats-json` document to `path` atomically: [`stats_json`] and then `extra`.
pub fn write_stats_json(
    path: &Path,
    stats: &Stats,
    complete: bool,
    extra: StatsExtra,
) -> Result<(), RunError> {
    let mut value = stats_json(stats, extra.runs, complete);
    if let Some(object) = value.as_object_mut() {
        if let Some(limit) = extra.run_limit {
            object.insert("run_limit_seconds".into(), limit.into());
            object.insert(
                "timeout_seconds".into(),
                timeout_cost(stats.timeouts, limit).into(),
            );
        }
        object.extend(extra.fields);
    }
    let text = serde_json::to_string_pretty(&value).unwrap_or_default() + "\n";
    crate::write_atomically(path, text.as_bytes())
        .map_err(|e| RunError::Failed(format!("cannot write {}: {e}", path.display())))
}
