//! What a run's progress leaves for a report afterwards: the size after each accepted change
//! (with the predicate runs and time at that moment) and the time spent in each pass. Kept by
//! the progress reporter, which sees both as they happen, in every output mode (`-q` included).

use std::collections::BTreeMap;
use std::time::{Duration, Instant};

/// The size at one moment of the run.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TracePoint {
    /// Predicate runs launched so far.
    pub runs: usize,
    /// Time since the reporter was made.
    pub elapsed: Duration,
    /// The current size.
    pub size: u64,
}

/// The size trace and the time per pass.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct History {
    /// The original's size first, then one point per accepted change.
    pub trace: Vec<TracePoint>,
    /// Time spent in each pass, all rounds summed.
    pub pass_time: BTreeMap<String, Duration>,
}

/// The history as it is being recorded.
#[derive(Debug, Default)]
pub(super) struct Recorder {
    history: History,
    /// The pass running now and since when.
    current: Option<(String, Instant)>,
}

impl Recorder {
    pub(super) fn point(&mut self, point: TracePoint) {
        self.history.trace.push(point);
    }

    /// `name` starts now (`None`: no pass runs any more).
    pub(super) fn pass(&mut self, name: Option<&str>, now: Instant) {
        if let Some((pass, since)) = self.current.take() {
            *self.history.pass_time.entry(pass).or_default() += now - since;
        }
        self.current = name.map(|n| (n.to_owned(), now));
    }

    /// The history so far, the running pass's time included.
    pub(super) fn snapshot(&self, now: Instant) -> History {
        let mut history = self.history.clone();
        if let Some((pass, since)) = &self.current {
            *history.pass_time.entry(pass.clone()).or_default() += now - *since;
        }
        history
    }
}
