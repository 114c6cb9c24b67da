//! Progress reporting on stderr: a live line on a terminal, concise plain lines otherwise,
//! nothing with `-q`. Counters live here so workers can update them without the decider.

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
    size: u64,
    tried: usize,
    accepted: usize,
    hits: usize,
    last_draw: Option<Instant>,
    drawn: bool,
}

/// The progress reporter of one reduction.
#[derive(Debug)]
pub struct Progress {
    mode: ProgressMode,
    prefix: String,
    unit: &'static str,
    evaluations: AtomicUsize,
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
        Progress {
            mode,
            prefix: prefix.to_owned(),
            unit,
            evaluations: AtomicUsize::new(0),
            state: Mutex::new(State {
                pass: String::new(),
                size: 0,
                tried: 0,
                accepted: 0,
                hits: 0,
                last_draw: None,
                drawn: false,
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

    /// Sets the current size without counting an acceptance.
    pub fn set_size(&self, size: u64) {
        self.lock().size = size;
    }

    /// A pass starts.
    pub fn start_pass(&self, name: &str) {
        let mut state = self.lock();
        state.pass = name.to_owned();
        self.draw(&mut state, true);
    }

    /// A candidate was decided.
    pub fn tried(&self, cache_hit: bool) {
        let mut state = self.lock();
        state.tried += 1;
        state.hits += usize::from(cache_hit);
        self.draw(&mut state, false);
    }

    /// A candidate was accepted; `size` is the new current size.
    pub fn accepted(&self, size: u64) {
        let mut state = self.lock();
        state.accepted += 1;
        let before = state.size;
        state.size = size;
        if self.mode == ProgressMode::Plain {
            let _ = writeln!(
                std::io::stderr(),
                "{}: [{}] accepted: {before} -> {size} {}",
                self.prefix,
                state.pass,
                self.unit
            );
        }
        self.draw(&mut state, true);
    }

    /// A predicate evaluation actually ran (called from workers).
    pub fn evaluated(&self) {
        self.evaluations.fetch_add(1, Ordering::SeqCst);
    }

    /// Predicate evaluations so far.
    pub fn evaluations(&self) -> usize {
        self.evaluations.load(Ordering::SeqCst)
    }

    /// Removes the live line (before final messages).
    pub fn finish(&self) {
        let mut state = self.lock();
        self.clear_line(&mut state);
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
        state.drawn = true;
        let _ = write!(
            std::io::stderr(),
            "\r\x1b[K{}: [{}] {} {} | tried {} | accepted {} | cache hits {} | runs {}",
            self.prefix,
            state.pass,
            state.size,
            self.unit,
            state.tried,
            state.accepted,
            state.hits,
            self.evaluations()
        );
        let _ = std::io::stderr().flush();
    }
}
