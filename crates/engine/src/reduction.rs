//! [`Reduction`]: one whole reduction as a front end asks for it, from the original's verdict to
//! the smallest interesting case and the saved cache.

use minrepro_cache::OutcomeCache;
use minrepro_predicate::Outcome;

use crate::engine::{Engine, EngineError, EngineOptions, LogEntry, Oracle, Stats};
use crate::progress::Progress;
use crate::search::Pass;

/// What a finished reduction yields.
#[derive(Debug, Clone)]
pub struct Reduced<C> {
    /// The smallest interesting case.
    pub case: C,
    /// The original's verdict.
    pub original_outcome: Outcome,
    /// Every decided candidate, in sequential order (empty unless [`Reduction::collect_log`]).
    pub log: Vec<LogEntry>,
    /// Counters.
    pub stats: Stats,
}

/// The callback that sees every new current case (e.g. to save it).
pub type OnAccept<'a, C> = &'a mut dyn FnMut(&C) -> Result<(), EngineError>;

/// Builder of one reduction: the oracle, cache, progress reporter and options are required;
/// the passes, a known verdict of the original, the log and an acceptance callback are optional.
pub struct Reduction<'a, C> {
    oracle: &'a dyn Oracle<C>,
    cache: &'a OutcomeCache,
    progress: &'a Progress,
    options: EngineOptions,
    passes: &'a [&'a dyn Pass<C>],
    known_original: Option<Outcome>,
    collect_log: bool,
    on_accept: Option<OnAccept<'a, C>>,
}

impl<'a, C: Clone + Send + Sync> Reduction<'a, C> {
    /// A reduction without passes (it only checks the original) that keeps no log.
    pub fn new(
        oracle: &'a dyn Oracle<C>,
        cache: &'a OutcomeCache,
        progress: &'a Progress,
        options: EngineOptions,
    ) -> Self {
        Reduction {
            oracle,
            cache,
            progress,
            options,
            passes: &[],
            known_original: None,
            collect_log: false,
            on_accept: None,
        }
    }

    /// The passes, run in this order until a whole round changes nothing.
    pub fn passes(mut self, passes: &'a [&'a dyn Pass<C>]) -> Self {
        self.passes = passes;
        self
    }

    /// The original's verdict, when the front end already ran it under this very configuration:
    /// the engine then does not run it again (it is recorded in the cache as a run would be).
    pub fn original_outcome(mut self, outcome: Outcome) -> Self {
        self.known_original = Some(outcome);
        self
    }

    /// Keeps a [`LogEntry`] for every decided candidate in [`Reduced::log`].
    pub fn collect_log(mut self) -> Self {
        self.collect_log = true;
        self
    }

    /// Calls `on_accept` with every new current case, in order; an error stops the reduction.
    pub fn on_accept(mut self, on_accept: OnAccept<'a, C>) -> Self {
        self.on_accept = Some(on_accept);
        self
    }

    /// The progress reporter (for the front end's own messages around the run).
    pub fn progress(&self) -> &'a Progress {
        self.progress
    }

    /// The unit of the oracle's sizes ("bytes", "tokens").
    pub fn size_unit(&self) -> &'static str {
        self.options.size_unit
    }

    /// Checks the original (unless its verdict is known), runs the passes to a fixpoint and
    /// saves a persistent cache, also when the run fails or is interrupted. The counters come
    /// back in every case (e.g. for a statistics file written after an interruption).
    pub fn run(self, original: C) -> (Result<Reduced<C>, EngineError>, Stats) {
        let progress = self.progress;
        let startup_time = progress.elapsed();
        let startup_cpu_time = crate::cpu::own_cpu();
        let mut engine = Engine::new(self.oracle, self.cache, self.options, progress);
        engine.set_collect_log(self.collect_log);
        let mut ignore = |_: &C| Ok(());
        let on_accept = self.on_accept.unwrap_or(&mut ignore);
        let (known, passes) = (self.known_original, self.passes);
        let result = std::thread::scope(|scope| {
            if progress.is_live() {
                scope.spawn(|| progress.tick_until_finished());
            }
            // Stops the ticker however this closure ends (a panic too), or the scope would wait.
            let _finish = FinishOnDrop(progress);
            let checked = match known {
                Some(outcome) => engine.known_original(&original, outcome),
                None => engine.check_original(&original),
            };
            checked.and_then(|outcome| {
                let case = engine.reduce(original, passes, on_accept)?;
                Ok((outcome, case))
            })
        });
        if minrepro_predicate::is_interrupted() {
            // SIGTERM is what a batch system sends before SIGKILL: the journal reaches the
            // disk before anything else is done.
            let _ = self.cache.sync_now();
        }
        let saved = self.cache.persist();
        let mut stats = engine.finish_stats();
        // From the reporter's creation: the front end's start-up counts too.
        stats.wall_time = progress.elapsed();
        stats.startup_time = startup_time;
        stats.cpu_time = crate::cpu::own_cpu();
        stats.startup_cpu_time = startup_cpu_time;
        let (original_outcome, case) = match result {
            Ok(done) => done,
            Err(error) => return (Err(error), stats),
        };
        if let Err(error) = saved {
            return (Err(error.into()), stats);
        }
        let reduced = Reduced {
            case,
            original_outcome,
            log: engine.into_log(),
            stats: stats.clone(),
        };
        (Ok(reduced), stats)
    }
}

/// Calls [`Progress::finish`] when dropped.
struct FinishOnDrop<'a>(&'a Progress);

impl Drop for FinishOnDrop<'_> {
    fn drop(&mut self) {
        self.0.finish();
    }
}
