//! How long a candidate may run: `--timeout-factor` (a multiple of the original's run time, at
//! least [`MIN_ADAPTIVE_LIMIT_SECS`], at most `--timeout`), and how timed-out candidates are
//! reported.

use std::time::Duration;

use minrepro_driver::timeout_cost;
use minrepro_engine::Progress;
use minrepro_predicate::Predicate;
use minrepro_text::Rejudged;

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

/// Runs cut at a limit: the candidates' (at the run limit) and the re-judged ones' second runs.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Timeouts {
    /// Decided candidates whose verdict is a timeout (a re-judged one's: its second run's).
    pub candidates: usize,
    /// The limit of a candidate's run, seconds.
    pub run_limit: f64,
    /// What re-judging did.
    pub rejudged: Rejudged,
}

impl Timeouts {
    /// Runs that timed out at [`Timeouts::run_limit`]: every re-judged candidate's first run,
    /// and the timed-out candidates that were not re-judged.
    pub fn cut_runs(&self) -> usize {
        let not_rejudged = self
            .candidates
            .saturating_sub(self.rejudged.timed_out_again);
        not_rejudged + self.rejudged.candidates
    }

    /// Seconds the timed-out runs cost: each its whole limit.
    pub fn cost(&self) -> f64 {
        timeout_cost(self.cut_runs(), self.run_limit) + self.rejudged.timed_out_again_seconds
    }

    /// The `--stats-json` fields: `timeout_seconds` (replacing the one the driver computes
    /// without the second runs), `rejudged_timeouts`, `rejudged_interesting`.
    pub fn stats_fields(&self) -> Vec<(String, serde_json::Value)> {
        vec![
            ("timeout_seconds".into(), self.cost().into()),
            ("rejudged_timeouts".into(), self.rejudged.candidates.into()),
            (
                "rejudged_interesting".into(),
                self.rejudged.interesting.into(),
            ),
        ]
    }
}

/// The summary's note on timed-out runs (empty when none timed out).
pub fn timeouts_note(timeouts: &Timeouts) -> String {
    let n = timeouts.cut_runs();
    if n == 0 {
        return String::new();
    }
    let rejudged = &timeouts.rejudged;
    let second = match rejudged.candidates {
        0 => String::new(),
        r => format!(
            " ({r} re-judged at up to {:.3} s: {} interesting, {} timed out again)",
            rejudged.longest_limit, rejudged.interesting, rejudged.timed_out_again
        ),
    };
    format!(
        "; {n} candidate{} timed out at {:.3} s{second}, {:.1} s in timed-out runs",
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
                rejudged: Rejudged {
                    candidates: rejudged,
                    interesting,
                    timed_out_again: again,
                    longest_limit: 60.0,
                    timed_out_again_seconds: again as f64 * 60.0,
                },
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
}
