//! Timed-out candidates judged once more: a candidate cut at a run limit shorter than the
//! predicate's full timeout (an adaptive limit measured on the original) may only have been
//! slowed down by other work on the machine. [`Rejudge`] says when it runs once more, at a longer
//! limit, before the timeout rejects it; [`Rejudged`] counts what that cost.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use minrepro_predicate::Status;

/// When a candidate that timed out at the predicate's run limit is run once more.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum Rejudge {
    /// When the machine is oversubscribed at the timeout (its 1-minute load average `L` above
    /// its `P` processors, so each process gets about `P / L` of a processor): at the run limit
    /// times `L / P`, at most the full timeout.
    Auto,
    /// Always, at the full timeout (every hanging candidate then costs a whole timeout more).
    Always,
    /// Never: a timeout at the run limit rejects the candidate.
    #[default]
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

/// What re-judging did in one reduction.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Rejudged {
    /// Candidates run a second time.
    pub candidates: usize,
    /// Of those, the ones the second run found interesting.
    pub interesting: usize,
    /// Of those, the ones that timed out again.
    pub timed_out_again: usize,
    /// The longest second limit, seconds.
    pub longest_limit: f64,
    /// Seconds the second runs that timed out again cost (each its whole limit).
    pub timed_out_again_seconds: f64,
}

/// [`Rejudged`] counted by concurrent evaluations.
#[derive(Debug, Default)]
pub(crate) struct RejudgeCounts {
    candidates: AtomicUsize,
    interesting: AtomicUsize,
    timed_out_again: AtomicUsize,
    longest_millis: AtomicUsize,
    timed_out_again_millis: AtomicUsize,
}

impl RejudgeCounts {
    /// Counts a second run at `limit` that ended in `status`.
    pub(crate) fn count(&self, limit: Duration, status: Status) {
        let millis = limit.as_millis() as usize;
        self.candidates.fetch_add(1, Ordering::Relaxed);
        self.longest_millis.fetch_max(millis, Ordering::Relaxed);
        match status {
            Status::Interesting => {
                self.interesting.fetch_add(1, Ordering::Relaxed);
            }
            Status::Timeout => {
                self.timed_out_again.fetch_add(1, Ordering::Relaxed);
                self.timed_out_again_millis
                    .fetch_add(millis, Ordering::Relaxed);
            }
            _ => {}
        }
    }

    /// The counts so far.
    pub(crate) fn get(&self) -> Rejudged {
        let n = |a: &AtomicUsize| a.load(Ordering::Relaxed);
        Rejudged {
            candidates: n(&self.candidates),
            interesting: n(&self.interesting),
            timed_out_again: n(&self.timed_out_again),
            longest_limit: n(&self.longest_millis) as f64 / 1000.0,
            timed_out_again_seconds: n(&self.timed_out_again_millis) as f64 / 1000.0,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_timed_out_candidate_is_re_judged_at_a_longer_limit_only() {
        let (limit, full) = (Duration::from_secs(1), Duration::from_secs(60));
        assert_eq!(Rejudge::Always.limit(limit, full), Some(full));
        assert_eq!(Rejudge::Never.limit(limit, full), None);
        // Already at the full limit (no adaptive limit): nothing longer to try.
        assert_eq!(Rejudge::Always.limit(full, full), None);
        // Auto: the load decides, never beyond the full timeout.
        let auto = Rejudge::Auto.limit(limit, full);
        assert_eq!(auto.is_some(), slowdown().is_some());
        assert!(auto.is_none_or(|l| l > limit && l <= full));
    }

    #[test]
    fn second_runs_are_counted_by_their_ending() {
        let counts = RejudgeCounts::default();
        counts.count(Duration::from_secs(2), Status::Interesting);
        counts.count(Duration::from_secs(3), Status::Timeout);
        counts.count(Duration::from_secs(1), Status::Uninteresting);
        assert_eq!(
            counts.get(),
            Rejudged {
                candidates: 3,
                interesting: 1,
                timed_out_again: 1,
                longest_limit: 3.0,
                timed_out_again_seconds: 3.0,
            }
        );
    }
}
