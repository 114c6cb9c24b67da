//! How far ahead of the decision frontier a parallel evaluation may run.
//!
//! A candidate `d` places after the frontier is only needed if the `d` candidates before it are
//! all rejected, which happens with probability `(1 - p)^d` for an acceptance rate `p`. A run
//! that is not needed costs nothing but a slot while the predicate waits (a GPU check, a sleep),
//! and steals a core from the frontier when the predicate computes and every core is busy. So
//! the engine launches a speculative run only when it is likely enough to be needed: the bar
//! rises with the predicate's observed CPU share, and CPU-bound runs never outnumber the cores.
//! The same bar holds for look-ahead runs (the batch that would follow the frontier's
//! acceptance, needed with probability `p (1 - p)^d`). Neither figure changes which candidate is
//! accepted, only how many runs are launched.

use std::collections::HashMap;
use std::time::Duration;

use crate::cpu::children_cpu;

/// Weight of the newest observation in the moving averages.
const ALPHA: f64 = 0.25;
/// Acceptance rate assumed for a pass before it decides anything.
const INITIAL_ACCEPTANCE: f64 = 0.25;
/// Predicate CPU share assumed before any run was measured.
const INITIAL_CPU_SHARE: f64 = 0.5;
/// Least probability of being needed for a speculative run of a predicate that only waits ...
const BAR_WAITING: f64 = 0.1;
/// ... and of one that computes all the time.
const BAR_COMPUTING: f64 = 0.5;
/// Run time to accumulate before the CPU share is sampled again (short runs measure badly).
const SAMPLE_WALL: Duration = Duration::from_millis(50);

/// The speculation policy's observations (kept by the decider only).
#[derive(Debug)]
pub struct Speculation {
    cores: usize,
    acceptance: HashMap<String, f64>,
    cpu_share: f64,
    /// Children's CPU time at the last sample, and run wall time summed since.
    sampled_cpu: Duration,
    wall_since: Duration,
}

impl Speculation {
    /// A policy for this machine's cores, starting from neutral guesses.
    pub fn new() -> Self {
        Speculation {
            cores: std::thread::available_parallelism().map_or(1, usize::from),
            acceptance: HashMap::new(),
            cpu_share: INITIAL_CPU_SHARE,
            sampled_cpu: children_cpu(),
            wall_since: Duration::ZERO,
        }
    }

    /// Whether a run `depth` places after the frontier (0: the frontier itself) may start while
    /// `busy` runs occupy the `slots` executors.
    pub fn allows(&self, pass: &str, depth: usize, busy: usize, slots: usize) -> bool {
        if busy >= slots {
            return false;
        }
        if depth == 0 {
            return true;
        }
        if self.cpu_share >= 0.5 && busy >= self.cores {
            return false;
        }
        let needed = (1.0 - self.acceptance(pass)).powi(depth.min(64) as i32);
        needed >= self.bar()
    }

    /// Whether a run needed whatever the other verdicts (a candidate of the window being
    /// decided together) may start while `busy` runs occupy the `slots` executors: when a slot
    /// is free, and for a predicate that computes only while a core is free (the `frontier`,
    /// the first undecided candidate, always).
    pub fn required(&self, frontier: bool, busy: usize, slots: usize) -> bool {
        busy < slots && (frontier || self.cpu_share < 0.5 || busy < self.cores)
    }

    /// Whether the look-ahead candidate `depth` places into the batch that would follow the
    /// frontier's acceptance may start, that batch being decided in windows of `window`: it
    /// is needed if the frontier is accepted and, one at a time, the `depth` candidates before
    /// it are not; in windows, every candidate of the first window is needed once the frontier
    /// is accepted (and none after it is run ahead).
    pub fn ahead_allows(
        &self,
        pass: &str,
        (depth, window): (usize, usize),
        busy: usize,
        slots: usize,
    ) -> bool {
        if busy >= slots || (self.cpu_share >= 0.5 && busy >= self.cores) {
            return false;
        }
        let p = self.acceptance(pass);
        let needed = match window {
            0 | 1 => p * (1.0 - p).powi(depth.min(64) as i32),
            _ if depth < window => p,
            _ => 0.0,
        };
        needed >= self.bar()
    }

    /// Whether the look-ahead candidate `ahead_depth` is likelier to be needed than the batch's
    /// candidate `depth` places after the frontier (never more than the frontier itself).
    pub fn prefers_ahead(&self, pass: &str, depth: usize, ahead_depth: usize) -> bool {
        let p = self.acceptance(pass);
        let later = (1.0 - p).powi(depth.min(64) as i32);
        let ahead = p * (1.0 - p).powi(ahead_depth.min(64) as i32);
        depth > 0 && ahead > later
    }

    fn acceptance(&self, pass: &str) -> f64 {
        self.acceptance
            .get(pass)
            .copied()
            .unwrap_or(INITIAL_ACCEPTANCE)
    }

    /// The least probability of being needed that a speculative run must have.
    fn bar(&self) -> f64 {
        BAR_WAITING + (BAR_COMPUTING - BAR_WAITING) * self.cpu_share
    }

    /// A candidate of `pass` was decided (accepted or not).
    pub fn decided(&mut self, pass: &str, accepted: bool) {
        let p = self
            .acceptance
            .entry(pass.to_owned())
            .or_insert(INITIAL_ACCEPTANCE);
        *p += ALPHA * (f64::from(u8::from(accepted)) - *p);
    }

    /// A launched run ended after `wall` (finished or cancelled): its CPU share is sampled.
    pub fn ran(&mut self, wall: Duration) {
        self.wall_since += wall;
        if self.wall_since < SAMPLE_WALL {
            return;
        }
        let cpu = children_cpu();
        let share = (cpu.saturating_sub(self.sampled_cpu).as_secs_f64()
            / self.wall_since.as_secs_f64())
        .clamp(0.0, 1.0);
        self.cpu_share += ALPHA * (share - self.cpu_share);
        self.sampled_cpu = cpu;
        self.wall_since = Duration::ZERO;
    }
}

impl Default for Speculation {
    fn default() -> Self {
        Self::new()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn policy(cpu_share: f64, cores: usize) -> Speculation {
        Speculation {
            cores,
            acceptance: HashMap::new(),
            cpu_share,
            sampled_cpu: Duration::ZERO,
            wall_since: Duration::ZERO,
        }
    }

    #[test]
    fn waiting_predicates_speculate_deeper_than_computing_ones() {
        let waiting = policy(0.0, 2);
        let computing = policy(1.0, 2);
        let deepest = |s: &Speculation| (0..32).take_while(|&d| s.allows("p", d, 0, 32)).count();
        // (1 - 0.25)^d >= 0.1 up to d = 8; >= 0.5 up to d = 2.
        assert_eq!(deepest(&waiting), 9);
        assert_eq!(deepest(&computing), 3);
        // The frontier always runs when a slot is free, and never when none is.
        assert!(computing.allows("p", 0, 5, 6));
        assert!(!waiting.allows("p", 0, 4, 4));
        // A computing predicate never gets more runs than cores.
        assert!(!computing.allows("p", 1, 2, 4));
        assert!(waiting.allows("p", 1, 2, 4));
    }

    #[test]
    fn a_pass_that_accepts_often_looks_ahead_first() {
        let mut s = policy(0.0, 2);
        assert!(!s.prefers_ahead("p", 1, 0), "0.25 < 0.75");
        for _ in 0..4 {
            s.decided("p", true);
        }
        // p = 0.76: the next batch's first candidate (0.76) before this one's second (0.24).
        assert!(s.prefers_ahead("p", 1, 0));
        assert!(
            !s.prefers_ahead("p", 0, 0),
            "the frontier always goes first"
        );
    }

    #[test]
    fn a_premise_makes_a_whole_window_of_the_next_batch_needed() {
        let mut s = policy(0.0, 2);
        for _ in 0..4 {
            s.decided("unions", true);
        }
        // p = 0.76: one at a time, the next batch's third candidate is needed with
        // 0.76 * 0.24^2 < 0.1; in windows of 4, each of the first four with 0.76.
        assert!(!s.ahead_allows("unions", (2, 1), 0, 16));
        assert!((0..4).all(|depth| s.ahead_allows("unions", (depth, 4), 0, 16)));
        assert!(
            !s.ahead_allows("unions", (4, 4), 0, 16),
            "past the first window"
        );
        // A computing predicate gets no more runs than cores, whatever the premise.
        let computing = policy(1.0, 2);
        assert!(!computing.ahead_allows("unions", (0, 4), 2, 16));
    }

    #[test]
    fn a_pass_that_accepts_often_stops_speculating() {
        let mut s = policy(0.0, 2);
        for _ in 0..20 {
            s.decided("often", true);
            s.decided("rarely", false);
        }
        assert!(!s.allows("often", 1, 0, 4));
        assert!(s.allows("rarely", 3, 0, 4));
    }
}
