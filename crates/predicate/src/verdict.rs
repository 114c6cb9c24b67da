//! The verdict of a candidate's repeated runs: either every run must agree (the default), or at
//! least K of N runs must be interesting (`--min-interesting K`, for failures that happen only
//! sometimes), with the runs stopped as soon as the verdict is decided.

use serde::{Deserialize, Serialize};

use crate::capture::CapturedStream;

/// Verdict of a candidate.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Status {
    /// Every run was interesting (with `--min-interesting K`: at least K were).
    Interesting,
    /// Every run agreed and was not interesting (with `--min-interesting K`: fewer than K were).
    Uninteresting,
    /// Runs disagreed (never with `--min-interesting`).
    Flaky,
    /// A run hit the timeout.
    Timeout,
    /// The predicate could not be started.
    LaunchError,
}

impl Status {
    /// Whether this outcome may be cached (timeouts and launch errors are not).
    pub fn is_stable(self) -> bool {
        matches!(
            self,
            Status::Interesting | Status::Uninteresting | Status::Flaky
        )
    }
}

/// One run's observable result.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct RunRecord {
    /// Exit code (negative: killed by that signal); `None` for timeouts and launch errors.
    pub exit_code: Option<i32>,
    /// Captured stdout.
    pub stdout: CapturedStream,
    /// Captured stderr.
    pub stderr: CapturedStream,
    /// Launch error text, if any.
    pub error: Option<String>,
}

/// The verdict on one candidate with what the log needs.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Outcome {
    /// The verdict.
    pub status: Status,
    /// Exit code of each run made (`None` for a timeout or launch error).
    pub exit_codes: Vec<Option<i32>>,
    /// The last run's captured output.
    pub last_run: RunRecord,
    /// How many of the runs were interesting, kept with the verdict when it is not all or
    /// nothing by definition: with `--min-interesting`, and for a flaky verdict (absent in
    /// caches written before it was recorded).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub interesting_runs: Option<u32>,
}

impl Outcome {
    /// The verdict `status` on one run that ended with `exit_code` (`None`: a timeout) and
    /// printed `stdout` and `stderr`.
    pub fn of_one_run(
        status: Status,
        exit_code: Option<i32>,
        stdout: CapturedStream,
        stderr: CapturedStream,
    ) -> Self {
        Outcome {
            status,
            exit_codes: vec![exit_code],
            last_run: RunRecord {
                exit_code,
                stdout,
                stderr,
                error: None,
            },
            interesting_runs: None,
        }
    }
}

/// How a candidate's runs make its verdict.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Quorum {
    /// `--predicate-runs`: the most runs a candidate gets.
    pub runs: u32,
    /// `--min-interesting`: this many interesting runs make the candidate interesting; `None`:
    /// every run must agree (disagreement is [`Status::Flaky`]).
    pub min_interesting: Option<u32>,
}

/// Why a [`Quorum`] cannot be honoured (the words every front end shows).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum QuorumError {
    /// No runs.
    #[error("--predicate-runs must be at least 1")]
    NoRuns,
    /// `--min-interesting 0`.
    #[error("--min-interesting must be at least 1")]
    NoneInteresting,
    /// More interesting runs required than runs made.
    #[error(
        "--min-interesting {min} needs at least {min} runs per candidate, but --predicate-runs is \
         {runs}: give --predicate-runs {min} or more, or a --min-interesting of at most {runs}"
    )]
    MoreThanRuns {
        /// `--min-interesting`.
        min: u32,
        /// `--predicate-runs`.
        runs: u32,
    },
}

impl Quorum {
    /// Checks 1 ≤ K ≤ N.
    pub fn check(&self) -> Result<(), QuorumError> {
        match self.min_interesting {
            _ if self.runs == 0 => Err(QuorumError::NoRuns),
            Some(0) => Err(QuorumError::NoneInteresting),
            Some(min) if min > self.runs => Err(QuorumError::MoreThanRuns {
                min,
                runs: self.runs,
            }),
            _ => Ok(()),
        }
    }

    /// With `--min-interesting`, the verdict once `interesting` of `made` runs were interesting,
    /// if it is decided: `Some(true)` when K were, `Some(false)` when the runs left cannot reach
    /// K. Without it, decided only after all runs.
    pub fn decided(&self, interesting: u32, made: u32) -> Option<bool> {
        let Some(min) = self.min_interesting else {
            return (made >= self.runs).then_some(interesting == made);
        };
        if interesting >= min {
            Some(true)
        } else if self.runs.saturating_sub(made) < min - interesting {
            Some(false)
        } else {
            None
        }
    }

    /// The verdict of finished runs (none timed out or failed to start): their exit codes and
    /// whether each was interesting.
    pub fn status(&self, exit_codes: &[Option<i32>], interesting: &[bool]) -> Status {
        if self.min_interesting.is_some() {
            let count = interesting.iter().filter(|&&i| i).count() as u32;
            return match self.decided(count, interesting.len() as u32) {
                Some(true) => Status::Interesting,
                _ => Status::Uninteresting,
            };
        }
        let agree = exit_codes.windows(2).all(|w| w[0] == w[1])
            && interesting.windows(2).all(|w| w[0] == w[1]);
        match (agree, interesting.first()) {
            (true, Some(true)) => Status::Interesting,
            (true, _) => Status::Uninteresting,
            (false, _) => Status::Flaky,
        }
    }

    /// The verdict these runs' interesting flags give, if the quorum would have made exactly
    /// these runs (undecided before the last, decided at it): how a cache in another tool's
    /// format, which keeps exit codes but no verdict counts, checks an entry before trusting it.
    pub fn replay(&self, interesting: &[bool]) -> Option<bool> {
        let mut count = 0;
        for (index, &run) in interesting.iter().enumerate() {
            count += u32::from(run);
            let made = index as u32 + 1;
            if let Some(verdict) = self.decided(count, made) {
                return (made as usize == interesting.len()).then_some(verdict);
            }
        }
        None
    }
}

/// How likely a `--min-interesting 1` quorum may miss a candidate that reproduces at the
/// observed rate: the runs suggested for a flaky original make that at most 1 in 100.
pub const MISS_RATE: f64 = 0.01;

/// The quorum to suggest for an original that was interesting in `interesting` of `runs` runs
/// under the default (every run must agree), or `None` when none was interesting. One
/// interesting run suffices when only the failure makes a run interesting (a candidate without
/// the bug is never interesting); N is the fewest runs that miss a candidate reproducing at the
/// observed rate p at most [`MISS_RATE`] of the time: (1 − p)^N ≤ MISS_RATE. When every run was
/// interesting (only their exit codes differed), the same runs with all required.
pub fn suggest(interesting: u32, runs: u32) -> Option<Quorum> {
    if interesting == 0 || runs == 0 {
        return None;
    }
    if interesting >= runs {
        return Some(Quorum {
            runs,
            min_interesting: Some(runs),
        });
    }
    let miss = 1.0 - f64::from(interesting) / f64::from(runs);
    let needed = (MISS_RATE.ln() / miss.ln()).ceil() as u32;
    Some(Quorum {
        runs: needed.max(2),
        min_interesting: Some(1),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn quorum(runs: u32, min: Option<u32>) -> Quorum {
        Quorum {
            runs,
            min_interesting: min,
        }
    }

    #[test]
    fn k_of_n_stops_as_soon_as_the_verdict_is_decided() {
        let q = quorum(8, Some(1));
        assert_eq!(q.decided(1, 1), Some(true));
        assert_eq!(q.decided(0, 7), None);
        assert_eq!(q.decided(0, 8), Some(false));
        let q = quorum(4, Some(3));
        assert_eq!(q.decided(0, 1), None);
        // Two failures: the two runs left cannot make three interesting ones.
        assert_eq!(q.decided(0, 2), Some(false));
        assert_eq!(q.decided(1, 2), None);
        assert_eq!(q.decided(3, 3), Some(true));
        assert_eq!(q.decided(2, 3), None);
        assert_eq!(q.decided(2, 4), Some(false));
    }

    #[test]
    fn the_default_needs_every_run_and_agreement() {
        let q = quorum(3, None);
        assert_eq!(q.decided(1, 1), None);
        assert_eq!(q.decided(3, 3), Some(true));
        let codes = [Some(0), Some(0), Some(1)];
        assert_eq!(q.status(&codes, &[true, true, false]), Status::Flaky);
        // Two different uninteresting exit codes disagree too.
        assert_eq!(
            q.status(&[Some(3), Some(4)], &[false, false]),
            Status::Flaky
        );
        assert_eq!(q.status(&[Some(0); 3], &[true; 3]), Status::Interesting);
        let k = quorum(3, Some(2));
        assert_eq!(k.status(&codes, &[true, true, false]), Status::Interesting);
        assert_eq!(
            k.status(&[Some(3), Some(4)], &[false, false]),
            Status::Uninteresting
        );
    }

    #[test]
    fn k_must_be_between_one_and_n() {
        assert_eq!(quorum(4, Some(2)).check(), Ok(()));
        assert_eq!(quorum(4, None).check(), Ok(()));
        assert_eq!(
            quorum(4, Some(0)).check(),
            Err(QuorumError::NoneInteresting)
        );
        let error = quorum(4, Some(5)).check().unwrap_err().to_string();
        assert!(
            error.contains("--min-interesting 5 needs at least 5 runs")
                && error.contains("give --predicate-runs 5 or more"),
            "{error}"
        );
        assert_eq!(quorum(0, None).check(), Err(QuorumError::NoRuns));
    }

    #[test]
    fn replay_accepts_only_the_runs_the_quorum_would_have_made() {
        let q = quorum(4, Some(2));
        assert_eq!(q.replay(&[false, true, true]), Some(true));
        assert_eq!(q.replay(&[false, false, false]), Some(false));
        // Decided after two runs: a third would never have run.
        assert_eq!(q.replay(&[true, true, false]), None);
        assert_eq!(q.replay(&[true]), None);
        assert_eq!(quorum(2, None).replay(&[true, true]), Some(true));
    }

    #[test]
    fn verdict_records_without_counts_read_and_write_as_before() {
        // An outcome as caches held it before counts were kept.
        let old = r#"{"status":"flaky","exit_codes":[0,1],"last_run":{"exit_code":1,"stdout":{"head":"","tail":"","contains_needle":false},"stderr":{"head":"","tail":"","contains_needle":false},"error":null}}"#;
        let outcome: Outcome = serde_json::from_str(old).unwrap();
        assert_eq!(outcome.interesting_runs, None);
        // Written back byte for byte (a checksum over it still matches).
        assert_eq!(serde_json::to_string(&outcome).unwrap(), old);
        let mut counted = outcome;
        counted.interesting_runs = Some(1);
        let text = serde_json::to_string(&counted).unwrap();
        assert!(text.ends_with(r#","interesting_runs":1}"#), "{text}");
        assert_eq!(serde_json::from_str::<Outcome>(&text).unwrap(), counted);
    }

    #[test]
    fn suggestions_follow_the_observed_rate() {
        let runs = |i, n| suggest(i, n).map(|q| (q.runs, q.min_interesting));
        // (1 - 0.5)^7 < 0.01 <= (1 - 0.5)^6.
        assert_eq!(runs(2, 4), Some((7, Some(1))));
        assert_eq!(runs(1, 3), Some((12, Some(1))));
        assert_eq!(runs(3, 4), Some((4, Some(1))));
        assert_eq!(runs(1, 100), Some((459, Some(1))));
        assert_eq!(runs(99, 100), Some((2, Some(1))));
        assert_eq!(runs(4, 4), Some((4, Some(4))));
        assert_eq!(runs(0, 4), None);
    }
}
