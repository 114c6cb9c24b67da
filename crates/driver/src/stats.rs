//! What a run reports about itself: the end-of-run statistics lines (stderr), the
//! `--stats-json` document, and why an original is not interesting.

use minrepro_engine::Stats;

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

/// Explains why the original is not interesting, with the tail of what it printed.
pub fn describe_uninteresting(outcome: &minrepro_predicate::Outcome) -> String {
    let status = serde_json::to_value(outcome.status)
        .ok()
        .and_then(|v| v.as_str().map(str::to_owned));
    let codes: Vec<String> = outcome
        .exit_codes
        .iter()
        .map(|c| c.map_or("none".to_owned(), |c| c.to_string()))
        .collect();
    let mut message = format!(
        "the original input is not interesting (predicate status {}, exit codes [{}]); nothing was published",
        status.unwrap_or_default(),
        codes.join(", ")
    );
    for (name, stream) in [
        ("stdout", &outcome.last_run.stdout),
        ("stderr", &outcome.last_run.stderr),
    ] {
        let tail: Vec<&str> = stream.tail.lines().rev().take(10).collect();
        if !tail.is_empty() {
            message.push_str(&format!("\n--- last lines of the original's {name} ---"));
            for line in tail.iter().rev() {
                message.push('\n');
                message.push_str(line);
            }
        }
    }
    if let Some(error) = &outcome.last_run.error {
        message.push_str(&format!("\n{error}"));
    }
    message
}
