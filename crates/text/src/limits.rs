//! How long a candidate may run: `--timeout-factor` (a multiple of the original's run time, at
//! least [`MIN_ADAPTIVE_LIMIT_SECS`], at most `--timeout`), and how timed-out candidates are
//! reported.

use std::time::Duration;

use minrepro_engine::Progress;
use minrepro_predicate::Predicate;

/// `--timeout-factor`: cut candidates at a multiple of the original's run time, or not at all.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum TimeoutFactor {
    /// Every candidate may run the full `--timeout`.
    Off,
    /// Candidates are cut at this many times the original's run time (a finite number >= 1).
    Times(f64),
}

/// Parses `--timeout-factor`: `off`, or a finite number of at least 1 (below 1, candidates as
/// slow as the original itself would time out).
pub fn parse_timeout_factor(text: &str) -> Result<TimeoutFactor, TimeoutFactorError> {
    if text.eq_ignore_ascii_case("off") {
        return Ok(TimeoutFactor::Off);
    }
    match text.trim().parse::<f64>() {
        Ok(f) if f.is_finite() && f >= 1.0 => Ok(TimeoutFactor::Times(f)),
        _ => Err(TimeoutFactorError(text.to_owned())),
    }
}

/// A `--timeout-factor` value that is neither `off` nor a finite number of at least 1.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("--timeout-factor must be a finite number of at least 1, or `off`, not {0}")]
pub struct TimeoutFactorError(pub String);

/// The shortest time a candidate gets under `--timeout-factor`: start-up noise of a fast original
/// must not turn candidates into timeouts.
pub const MIN_ADAPTIVE_LIMIT_SECS: f64 = 1.0;

/// A candidate's run limit under `--timeout-factor`: `factor` times the original's run time, at
/// least [`MIN_ADAPTIVE_LIMIT_SECS`], at most `timeout`.
pub fn adaptive_run_limit(factor: f64, original_seconds: f64, timeout: f64) -> Duration {
    let limit = (factor * original_seconds)
        .max(MIN_ADAPTIVE_LIMIT_SECS)
        .min(timeout);
    Duration::from_secs_f64(limit)
}

/// `predicate` with the run limit `factor` asks for (and a progress message saying so), given
/// the original's run time and `--timeout`; unchanged when `factor` is off.
pub fn apply_timeout_factor(
    predicate: Predicate,
    factor: TimeoutFactor,
    original_seconds: f64,
    timeout: f64,
    progress: &Progress,
) -> Predicate {
    let TimeoutFactor::Times(factor) = factor else {
        return predicate;
    };
    let predicate = predicate.with_run_limit(adaptive_run_limit(factor, original_seconds, timeout));
    progress.message(&format!(
        "the original ran in {original_seconds:.3} s; candidates time out after {:.3} s (--timeout-factor {factor}; `off` waits the full --timeout)",
        predicate.run_limit().as_secs_f64()
    ));
    predicate
}

/// `--rejudge-timeouts`: whether, and at which limit, a candidate that timed out at the
/// adaptive limit is run once more before it is rejected.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum Rejudge {
    /// When the machine is oversubscribed at the timeout (its 1-minute load average `L` above
    /// its `P` processors, so each process gets about `P / L` of a processor): at the adaptive
    /// limit times `L / P`, at most `--timeout`.
    Auto,
    /// Always, at the full `--timeout` (every hanging candidate then costs a whole `--timeout`
    /// more).
    Always,
    /// Never: a timeout at the adaptive limit rejects the candidate.
    Never,
}

impl Rejudge {
    /// The limit of the second run of a candidate that timed out at `run_limit` now (`None`:
    /// none), at most `full`.
    pub fn limit(self, run_limit: Duration, full: Duration) -> Option<Duration> {
        let limit = match self {
            Rejudge::Never => return None,
            Rejudge::Always => full,
            Rejudge::Auto => run_limit.mul_f64(slowdown()?).min(full),
        };
        (limit > run_limit).then_some(limit)
    }
}

/// How many times slower than on an idle machine a process runs now: the 1-minute load average
/// (`/proc/loadavg`) over the processors this process may use, when above 1 (`None` otherwise,
/// and where unknown).
pub fn slowdown() -> Option<f64> {
    let load = std::fs::read_to_string("/proc/loadavg")
        .ok()
        .and_then(|text| text.split_whitespace().next()?.parse::<f64>().ok())?;
    let processors = std::thread::available_parallelism().map_or(1, |n| n.get());
    let slowdown = load / processors as f64;
    (slowdown > 1.0).then_some(slowdown)
}

/// The time timed-out candidates cost: each ran its whole limit (seconds, rounded to ms).
pub fn timeout_cost(timeouts: usize, run_limit: f64) -> f64 {
    (timeouts as f64 * run_limit * 1000.0).round() / 1000.0
}

/// Runs cut at a limit: the candidates' (at the run limit) and the re-judged ones'.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Timeouts {
    /// Decided candidates whose verdict is a timeout (a re-judged one's: its second run's).
    pub candidates: usize,
    /// The limit of a candidate's run, seconds.
    pub run_limit: f64,
    /// Candidates that timed out at the run limit and were run again at a longer limit.
    pub rejudged: usize,
    /// Of those, the ones whose second run was interesting, and those that timed out again.
    pub rejudged_interesting: usize,
    /// See [`Timeouts::rejudged_interesting`].
    pub rejudged_timed_out: usize,
    /// The longest limit of a second run, and the seconds the second runs that timed out again
    /// cost.
    pub rejudge_limit: f64,
    /// See [`Timeouts::rejudge_limit`].
    pub rejudge_cost: f64,
}

impl Timeouts {
    /// Runs that timed out at [`Timeouts::run_limit`]: every re-judged candidate's first run,
    /// and the timed-out candidates that were not re-judged.
    pub fn cut_runs(&self) -> usize {
        self.candidates.saturating_sub(self.rejudged_timed_out) + self.rejudged
    }

    /// Seconds the timed-out runs cost: each its whole limit.
    pub fn cost(&self) -> f64 {
        timeout_cost(self.cut_runs(), self.run_limit) + self.rejudge_cost
    }
}

/// The summary's note on timed-out runs (empty when none timed out).
pub fn timeouts_note(timeouts: &Timeouts) -> String {
    let n = timeouts.cut_runs();
    if n == 0 {
        return String::new();
    }
    let rejudged = match timeouts.rejudged {
        0 => String::new(),
        r => format!(
            " ({r} re-judged at up to {:.3} s: {} interesting, {} timed out again)",
            timeouts.rejudge_limit, timeouts.rejudged_interesting, timeouts.rejudged_timed_out
        ),
    };
    format!(
        "; {n} candidate{} timed out at {:.3} s{rejudged}, {:.1} s in timed-out runs",
        if n == 1 { "" } else { "s" },
        timeouts.run_limit,
        timeouts.cost()
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn timeout_factor_is_off_or_a_finite_number_of_at_least_one() {
        assert_eq!(parse_timeout_factor("off"), Ok(TimeoutFactor::Off));
        assert_eq!(parse_timeout_factor("OFF"), Ok(TimeoutFactor::Off));
        assert_eq!(parse_timeout_factor("10"), Ok(TimeoutFactor::Times(10.0)));
        assert_eq!(parse_timeout_factor("1"), Ok(TimeoutFactor::Times(1.0)));
        for bad in ["0", "0.5", "-1", "nan", "inf", "", "ten"] {
            assert!(parse_timeout_factor(bad).is_err(), "{bad:?}");
        }
    }

    #[test]
    fn adaptive_limit_is_a_multiple_of_the_original_clamped() {
        let secs = |f, o, t| adaptive_run_limit(f, o, t).as_secs_f64();
        assert_eq!(secs(10.0, 0.5, 60.0), 5.0);
        assert_eq!(secs(10.0, 0.01, 60.0), MIN_ADAPTIVE_LIMIT_SECS);
        assert_eq!(secs(10.0, 30.0, 60.0), 60.0);
        // A --timeout below the floor wins: the limit never exceeds what the user allowed.
        assert_eq!(secs(10.0, 0.01, 0.5), 0.5);
    }

    #[test]
    fn timed_out_candidates_are_reported_with_their_cost() {
        let note = |candidates, run_limit, rejudged, interesting, again| {
            timeouts_note(&Timeouts {
                candidates,
                run_limit,
                rejudged,
                rejudged_interesting: interesting,
                rejudged_timed_out: again,
                rejudge_limit: 60.0,
                rejudge_cost: again as f64 * 60.0,
            })
        };
        assert_eq!(note(0, 1.0, 0, 0, 0), "");
        assert_eq!(
            note(1, 1.5, 0, 0, 0),
            "; 1 candidate timed out at 1.500 s, 1.5 s in timed-out runs"
        );
        assert_eq!(
            note(3, 2.0, 0, 0, 0),
            "; 3 candidates timed out at 2.000 s, 6.0 s in timed-out runs"
        );
        assert_eq!(timeout_cost(3, 0.3333), 1.0);
        // Three re-judged: one interesting, one uninteresting, one timed out again; one more
        // timed out without being re-judged (4 runs cut at 1 s, 1 at 60 s).
        assert_eq!(
            note(2, 1.0, 3, 1, 1),
            "; 4 candidates timed out at 1.000 s (3 re-judged at up to 60.000 s: 1 \
             interesting, 1 timed out again), 64.0 s in timed-out runs"
        );
    }

    #[test]
    fn a_timed_out_candidate_is_re_judged_at_a_longer_limit_only() {
        let (limit, full) = (Duration::from_secs(1), Duration::from_secs(60));
        assert_eq!(Rejudge::Always.limit(limit, full), Some(full));
        assert_eq!(Rejudge::Never.limit(limit, full), None);
        // Already at the full limit (--timeout-factor off): nothing longer to try.
        assert_eq!(Rejudge::Always.limit(full, full), None);
        // Auto: the load decides, never beyond --timeout.
        let auto = Rejudge::Auto.limit(limit, full);
        assert_eq!(auto.is_some(), slowdown().is_some());
        assert!(auto.is_none_or(|l| l > limit && l <= full));
    }
}
