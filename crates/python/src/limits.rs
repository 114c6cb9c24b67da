//! How long a candidate may run: `--timeout-factor` (a multiple of the original's run time, at
//! least [`MIN_ADAPTIVE_LIMIT_SECS`], at most `--timeout`), and how timed-out candidates are
//! reported.

use std::time::Duration;

use minrepro_driver::timeout_cost;
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

/// The summary's note on timed-out candidates (empty when none timed out).
pub fn timeouts_note(timeouts: usize, run_limit: f64) -> String {
    match timeouts {
        0 => String::new(),
        n => format!(
            "; {n} candidate{} timed out at {run_limit:.3} s, {:.1} s in all",
            if n == 1 { "" } else { "s" },
            timeout_cost(n, run_limit)
        ),
    }
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
        assert_eq!(timeouts_note(0, 1.0), "");
        assert_eq!(
            timeouts_note(1, 1.5),
            "; 1 candidate timed out at 1.500 s, 1.5 s in all"
        );
        assert_eq!(
            timeouts_note(3, 2.0),
            "; 3 candidates timed out at 2.000 s, 6.0 s in all"
        );
    }
}
