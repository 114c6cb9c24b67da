//! Progress reporting on stderr: a live line on a terminal, concise plain lines otherwise,
//! nothing with `-q`. Counters live here so workers can update them without the decider.
//!
//! Only the live line shows the elapsed time: plain lines (what logs and tests capture) stay the
//! same from run to run. The live line fits the terminal's width (`terminal`): what does not fit
//! is left out, never wrapped.

mod history;
mod terminal;

pub use history::{History, TracePoint};

use std::io::{IsTerminal, Write};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;
use std::time::{Duration, Instant};

/// How progress is shown.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ProgressMode {
    /// Nothing (`-q`).
    Quiet,
    /// One line per pass and per accepted change.
    Plain,
    /// A live, redrawn status line.
    Live,
}

#[derive(Debug)]
struct State {
    pass: String,
    /// What the pass works on (an object, a list, …), when the front end says.
    item: Option<String>,
    /// In the front end's start-up: no sizes or counters to show yet.
    starting: bool,
    original: u64,
    size: u64,
    tried: usize,
    timeouts: usize,
    accepted: usize,
    hits: usize,
    last_draw: Option<Instant>,
    /// The size trace and the time per pass, for a report.
    history: history::Recorder,
    /// The terminal's width when last read (none: unknown, the line is not cut).
    columns: Option<usize>,
    drawn: bool,
    finished: bool,
}

/// The progress reporter of one reduction.
#[derive(Debug)]
pub struct Progress {
    mode: ProgressMode,
    prefix: String,
    unit: &'static str,
    started: Instant,
    evaluations: AtomicUsize,
    cancelled: AtomicUsize,
    state: Mutex<State>,
}

impl Progress {
    /// A reporter; `quiet` silences it, otherwise a terminal gets a live line.
    pub fn new(prefix: &str, unit: &'static str, quiet: bool) -> Self {
        let mode = if quiet {
            ProgressMode::Quiet
        } else if std::io::stderr().is_terminal() {
            ProgressMode::Live
        } else {
            ProgressMode::Plain
        };
        Self::with_mode(prefix, unit, mode)
    }

    /// A reporter with an explicit mode.
    pub fn with_mode(prefix: &str, unit: &'static str, mode: ProgressMode) -> Self {
        if mode == ProgressMode::Live {
            terminal::watch_resizes();
        }
        Progress {
            mode,
            prefix: prefix.to_owned(),
            unit,
            started: Instant::now(),
            evaluations: AtomicUsize::new(0),
            cancelled: AtomicUsize::new(0),
            state: Mutex::new(State {
                pass: String::new(),
                item: None,
                starting: false,
                original: 0,
                size: 0,
                tried: 0,
                timeouts: 0,
                accepted: 0,
                hits: 0,
                last_draw: None,
                history: history::Recorder::default(),
                columns: None,
                drawn: false,
                finished: false,
            }),
        }
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// A one-off message line.
    pub fn message(&self, text: &str) {
        if self.mode == ProgressMode::Quiet {
            return;
        }
        let mut state = self.lock();
        self.clear_line(&mut state);
        let _ = writeln!(std::io::stderr(), "{}: {text}", self.prefix);
    }

    /// The reduction starts from an original of `size`.
    pub fn set_original_size(&self, size: u64) {
        let mut state = self.lock();
        state.original = size;
        state.size = size;
        state.starting = false;
        let point = self.point(size);
        state.history.point(point);
    }

    fn point(&self, size: u64) -> TracePoint {
        TracePoint {
            runs: self.evaluations(),
            elapsed: self.started.elapsed(),
            size,
        }
    }

    /// The size trace and the time per pass so far.
    pub fn history(&self) -> History {
        self.lock().history.snapshot(Instant::now())
    }

    /// A pass starts.
    pub fn start_pass(&self, name: &str) {
        let mut state = self.lock();
        state.pass = name.to_owned();
        state.item = None;
        state.history.pass(Some(name), Instant::now());
        self.draw(&mut state, true);
    }

    /// The item the current pass works on changed (`None`: the pass's whole subject).
    pub fn set_item(&self, item: Option<String>) {
        let mut state = self.lock();
        if state.item != item {
            state.item = item;
            self.draw(&mut state, true);
        }
    }

    /// Start-up work before the first candidate (e.g. listing sections): `step` is shown as
    /// the pass, `item` as what it works on, so that the screen is not blank meanwhile.
    pub fn start_up(&self, step: &str, item: Option<String>) {
        let mut state = self.lock();
        state.pass = step.to_owned();
        state.item = item;
        state.starting = true;
        self.draw(&mut state, false);
    }

    /// A candidate was decided (from the cache or not; its run timed out or not).
    pub fn tried(&self, cache_hit: bool, timed_out: bool) {
        let mut state = self.lock();
        state.tried += 1;
        state.hits += usize::from(cache_hit);
        state.timeouts += usize::from(timed_out);
        self.draw(&mut state, false);
    }

    /// A candidate was accepted; `size` is the new current size, `note` says why a change that
    /// saves nothing counted (see [`size_note`]).
    pub fn accepted(&self, size: u64, note: Option<&str>) {
        let mut state = self.lock();
        state.accepted += 1;
        let before = state.size;
        state.size = size;
        let point = self.point(size);
        state.history.point(point);
        if self.mode == ProgressMode::Plain {
            let note = note.map(|n| format!(" ({n})")).unwrap_or_default();
            let _ = writeln!(
                std::io::stderr(),
                "{}: [{}] accepted: {before} -> {size} {}{note}",
                self.prefix,
                state.pass,
                self.unit
            );
        }
        self.draw(&mut state, true);
    }

    /// A predicate run is launched (called from executors).
    pub fn launched(&self) {
        self.evaluations.fetch_add(1, Ordering::SeqCst);
    }

    /// A launched run was cancelled: an earlier candidate was accepted meanwhile.
    pub fn cancelled(&self) {
        self.cancelled.fetch_add(1, Ordering::SeqCst);
    }

    /// Predicate runs launched so far, cancelled ones included.
    pub fn evaluations(&self) -> usize {
        self.evaluations.load(Ordering::SeqCst)
    }

    /// Launched runs that were cancelled so far.
    pub fn cancelled_runs(&self) -> usize {
        self.cancelled.load(Ordering::SeqCst)
    }

    /// Time since this reporter was made (the front end makes it first thing, so that this
    /// includes its start-up).
    pub fn elapsed(&self) -> Duration {
        self.started.elapsed()
    }

    /// Removes the live line (before final messages) and stops [`Progress::tick_until_finished`].
    pub fn finish(&self) {
        let mut state = self.lock();
        state.finished = true;
        state.history.pass(None, Instant::now());
        self.clear_line(&mut state);
    }

    /// Whether this reporter redraws a live line (and so wants [`Progress::tick_until_finished`]).
    pub fn is_live(&self) -> bool {
        self.mode == ProgressMode::Live
    }

    /// Redraws the shown live line about once a second until [`Progress::finish`], so that its
    /// clock runs on while a long candidate does (run it on a thread of its own).
    pub fn tick_until_finished(&self) {
        if !self.is_live() {
            return;
        }
        let mut last = Instant::now();
        loop {
            std::thread::sleep(Duration::from_millis(50));
            let mut state = self.lock();
            if state.finished {
                return;
            }
            let resized = terminal::take_resized();
            if resized {
                state.columns = terminal::columns();
            }
            if state.drawn && (resized || last.elapsed() >= Duration::from_secs(1)) {
                last = Instant::now();
                self.draw(&mut state, true);
            }
        }
    }

    fn clear_line(&self, state: &mut State) {
        if self.mode == ProgressMode::Live && state.drawn {
            let _ = write!(std::io::stderr(), "\r\x1b[K");
            state.drawn = false;
        }
    }

    fn draw(&self, state: &mut State, force: bool) {
        if self.mode != ProgressMode::Live {
            return;
        }
        let now = Instant::now();
        if !force
            && state
                .last_draw
                .is_some_and(|t| now - t < Duration::from_millis(100))
        {
            return;
        }
        state.last_draw = Some(now);
        if terminal::take_resized() {
            state.columns = terminal::columns();
        }
        state.drawn = true;
        let _ = write!(std::io::stderr(), "\r\x1b[K{}", self.live_line(state));
        let _ = std::io::stderr().flush();
    }

    /// The live line's text: pass and item, size (and the original's), elapsed time, counters,
    /// as many as fit in the terminal's width.
    fn live_line(&self, state: &State) -> String {
        let at = match &state.item {
            Some(item) => format!("{}: {item}", state.pass),
            None => state.pass.clone(),
        };
        let time = elapsed(self.started.elapsed());
        let fields = if state.starting {
            vec![format!("{}: [{at}]", self.prefix), time]
        } else {
            vec![
                format!(
                    "{}: [{at}] {} {} (was {})",
                    self.prefix, state.size, self.unit, state.original
                ),
                time,
                format!("tried {}", state.tried),
                format!("accepted {}", state.accepted),
                format!("timeouts {}", state.timeouts),
                format!("cache hits {}", state.hits),
                format!("runs {}", self.evaluations()),
            ]
        };
        terminal::fit(&fields, state.columns)
    }
}

/// Why an accepted change counts when it saves nothing in the size unit: the same size and
/// fewer bytes (the tie-breaker), the same size in a simpler form (the search's order), or a
/// larger case, which only a pass that may grow the case (a canonical form that later passes
/// can cut) proposes. `before` and `after` are (size, bytes if the front end counts them).
pub fn size_note(before: (u64, Option<u64>), after: (u64, Option<u64>)) -> Option<String> {
    use std::cmp::Ordering::*;
    match after.0.cmp(&before.0) {
        Less => None,
        Equal => Some(match (before.1, after.1) {
            (Some(was), Some(now)) if now < was => match was - now {
                1 => "same size, 1 fewer byte".to_owned(),
                fewer => format!("same size, {fewer} fewer bytes"),
            },
            _ => "same size, simpler".to_owned(),
        }),
        Greater => Some(
            "larger: this pass may grow the case into a form later passes can cut, within a budget"
                .to_owned(),
        ),
    }
}

/// Elapsed time as a person reads it: `42 s`, `3 min 05 s`, `2 h 07 min`.
fn elapsed(time: Duration) -> String {
    let seconds = time.as_secs();
    match seconds {
        0..60 => format!("{seconds} s"),
        60..3600 => format!("{} min {:02} s", seconds / 60, seconds % 60),
        _ => format!("{} h {:02} min", seconds / 3600, seconds / 60 % 60),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn elapsed_time_reads_naturally() {
        assert_eq!(elapsed(Duration::from_millis(42_900)), "42 s");
        assert_eq!(elapsed(Duration::from_secs(185)), "3 min 05 s");
        assert_eq!(
            elapsed(Duration::from_secs(2 * 3600 + 7 * 60 + 59)),
            "2 h 07 min"
        );
    }

    #[test]
    fn the_live_line_shows_sizes_time_and_timeouts() {
        let progress = Progress::with_mode("minrepro test", "tokens", ProgressMode::Quiet);
        progress.set_original_size(120);
        progress.start_pass("statements");
        progress.set_item(Some("function f".into()));
        progress.tried(false, true);
        progress.tried(true, false);
        progress.accepted(80, None);
        let line = progress.live_line(&progress.lock());
        // The elapsed time between them depends on the machine.
        assert!(
            line.starts_with("minrepro test: [statements: function f] 80 tokens (was 120) | ")
                && line.ends_with(" s | tried 2 | accepted 1 | timeouts 1 | cache hits 1 | runs 0"),
            "{line}"
        );
    }

    #[test]
    fn a_change_that_saves_nothing_says_why_it_counts() {
        assert_eq!(size_note((10, Some(40)), (9, Some(41))), None);
        assert_eq!(
            size_note((10, Some(40)), (10, Some(37))).as_deref(),
            Some("same size, 3 fewer bytes")
        );
        assert_eq!(
            size_note((10, Some(40)), (10, Some(40))).as_deref(),
            Some("same size, simpler")
        );
        assert!(size_note((10, None), (12, None))
            .unwrap()
            .starts_with("larger: "));
    }
}
