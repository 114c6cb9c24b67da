//! The decider: evaluates batches speculatively in parallel, accepts deterministically, runs the
//! pass hierarchy to a fixpoint, and keeps the log and statistics.

use std::sync::Arc;
use std::time::{Duration, Instant};

use minrepro_cache::OutcomeCache;
use minrepro_predicate::{is_interrupted, CancelFlag, EvalError, Outcome, Status};
use serde::Serialize;

use crate::dispatch::{Decided, Dispatcher, LookAhead, Verdict};
use crate::progress::Progress;
use crate::search::{Pass, Proposal, Search, Width};
use ahead::Following;

/// What a front end tells the engine about its test cases.
pub trait Oracle<C>: Sync {
    /// Digest of the candidate's full content (the case half of the cache key).
    fn digest(&self, case: &C) -> String;
    /// Size in the front end's unit (smaller is better).
    fn size(&self, case: &C) -> u64;
    /// Materializes and judges a candidate.
    fn evaluate(&self, case: &C, cancel: &CancelFlag) -> Result<Outcome, EvalError>;
    /// Length in bytes, when the front end breaks ties of [`size`](Self::size) by it (for the
    /// log line of a change that saves bytes only).
    fn bytes(&self, _case: &C) -> Option<u64> {
        None
    }
    /// What a proposal with this change record works on (an object, a list), for progress.
    fn item(&self, _change: &serde_json::Value) -> Option<String> {
        None
    }
}

/// One decided candidate, in the order a sequential reduction decides them.
#[derive(Debug, Clone, Serialize)]
pub struct LogEntry {
    /// Pass name.
    pub pass: String,
    /// What the edit did.
    pub change: serde_json::Value,
    /// Candidate content digest.
    pub candidate_digest: String,
    /// Whether the candidate became the current test case.
    pub accepted: bool,
    /// The verdict (identical for cache hits and fresh runs).
    pub outcome: Outcome,
}

/// Counters reported at the end of a reduction (never written to deterministic logs).
#[derive(Debug, Clone, Default)]
pub struct Stats {
    /// Predicate runs launched, every speculative one included (cancelled or not).
    pub predicate_evaluations: usize,
    /// Of those, the speculative runs cancelled because an earlier candidate was accepted.
    pub cancelled_runs: usize,
    /// Candidates answered by the cache.
    pub cache_hits: usize,
    /// Candidates decided (logged).
    pub candidates_decided: usize,
    /// Accepted transformations.
    pub accepted: usize,
    /// Decided candidates whose predicate run timed out.
    pub timeouts: usize,
    /// Size of the original.
    pub size_before: u64,
    /// Size of the result.
    pub size_after: u64,
    /// Wall time of the whole run, the front end's start-up included.
    pub wall_time: Duration,
    /// Of that, the start-up before the reduction began (loading, listing sections, …).
    pub startup_time: Duration,
    /// This process's own processor time (all threads, no child processes) for the whole run,
    /// and for its start-up.
    pub cpu_time: Duration,
    /// See [`Stats::cpu_time`].
    pub startup_cpu_time: Duration,
    /// Per pass: candidates decided and accepted.
    pub per_pass: std::collections::BTreeMap<String, (usize, usize)>,
    /// Complete rounds over all passes (the last one changed nothing).
    pub rounds: usize,
    /// Decisions that waited for predicate runs one after the other: one per candidate at
    /// `-j 1`, one per decided batch (window) or fold attempt in parallel; a run's latency
    /// times this bounds the wall time from below when the predicate waits.
    pub sequential_steps: usize,
}

/// Why a reduction stopped early.
#[derive(Debug, thiserror::Error)]
pub enum EngineError {
    /// SIGINT/SIGTERM.
    #[error("interrupted")]
    Interrupted,
    /// The original test case is not (stably) interesting.
    #[error("the original input is not interesting: predicate status {}", status_name(.0.status))]
    OriginalNotInteresting(Box<Outcome>),
    /// A condition that makes every further verdict untrustworthy (identity change, …).
    #[error("{0}")]
    Fatal(String),
    /// The persistent cache could not be saved at the end.
    #[error(transparent)]
    Cache(#[from] minrepro_cache::CacheError),
}

fn status_name(status: Status) -> &'static str {
    match status {
        Status::Interesting => "interesting",
        Status::Uninteresting => "uninteresting",
        Status::Flaky => "flaky",
        Status::Timeout => "timeout",
        Status::LaunchError => "launch-error",
    }
}

/// Engine settings.
#[derive(Debug, Clone)]
pub struct EngineOptions {
    /// Parallel evaluations.
    pub jobs: usize,
    /// Predicate configuration digest (the configuration half of the cache key).
    pub config_digest: String,
    /// Unit of [`Oracle::size`] for messages ("bytes", "tokens").
    pub size_unit: &'static str,
    /// Accept candidates exactly as `-j 1` does, one at a time, for every `jobs` (results
    /// identical for every `jobs`). Otherwise, with `jobs` above 1, a batch is decided in
    /// windows of `jobs` candidates and concurrent successes are folded (see
    /// [`Search::combine`]): results are identical on every rerun with the same `jobs`.
    pub exact: bool,
}

/// What the evaluation of one batch decided.
struct Decision<C> {
    /// The proposals whose changes became the current case (several when folded).
    accepted: Vec<usize>,
    /// The proposals judged uninteresting.
    rejected: Vec<usize>,
    /// The new current case.
    case: Option<C>,
}

/// One reduction.
pub struct Engine<'a, C> {
    oracle: &'a dyn Oracle<C>,
    cache: &'a OutcomeCache,
    options: EngineOptions,
    progress: &'a Progress,
    collect_log: bool,
    log: Vec<LogEntry>,
    stats: Stats,
}

impl<'a, C: Clone + Send + Sync> Engine<'a, C> {
    /// A new engine over a front end's oracle.
    pub fn new(
        oracle: &'a dyn Oracle<C>,
        cache: &'a OutcomeCache,
        options: EngineOptions,
        progress: &'a Progress,
    ) -> Self {
        Engine {
            oracle,
            cache,
            options,
            progress,
            collect_log: true,
            log: Vec::new(),
            stats: Stats::default(),
        }
    }

    /// Whether to keep a [`LogEntry`] per decided candidate (on by default). A front end that
    /// never reads the log turns it off: each entry holds the candidate's output captures.
    pub fn set_collect_log(&mut self, collect: bool) {
        self.collect_log = collect;
    }

    /// Every decided candidate so far (empty when the log is not collected).
    pub fn log(&self) -> &[LogEntry] {
        &self.log
    }

    /// The log, consumed.
    pub fn into_log(self) -> Vec<LogEntry> {
        self.log
    }

    /// Counters so far.
    pub fn stats(&self) -> &Stats {
        &self.stats
    }

    /// Judges the original; it must be interesting (flaky, timeout and launch errors are not).
    pub fn check_original(&mut self, original: &C) -> Result<Outcome, EngineError> {
        self.progress
            .message("checking that the original input is interesting");
        let outcome = self.judge(original, true)?;
        if outcome.status != Status::Interesting {
            return Err(EngineError::OriginalNotInteresting(Box::new(outcome)));
        }
        Ok(outcome)
    }

    /// Takes the original's verdict as already known (the front end ran it itself), instead of
    /// [`Engine::check_original`]: it is recorded in the cache as a run would have been, and it
    /// must be interesting.
    pub fn known_original(
        &mut self,
        original: &C,
        outcome: Outcome,
    ) -> Result<Outcome, EngineError> {
        let key = self
            .cache
            .key(&self.oracle.digest(original), &self.options.config_digest);
        self.cache.put(&key, &outcome);
        if outcome.status != Status::Interesting {
            return Err(EngineError::OriginalNotInteresting(Box::new(outcome)));
        }
        Ok(outcome)
    }

    /// Judges one case outside any pass (e.g. a front end's probe of the original): from the
    /// cache when `from_cache` and known there, else by a run whose stable verdict is cached.
    pub fn judge(&self, case: &C, from_cache: bool) -> Result<Outcome, EngineError> {
        let digest = self.oracle.digest(case);
        let cancel = CancelFlag::new();
        let verdict = if from_cache {
            self.judge_keyed(case, &digest, &cancel)
        } else {
            let key = self.cache.key(&digest, &self.options.config_digest);
            self.run_keyed(case, &key, &cancel)
        };
        verdict.map(|(outcome, _)| outcome).map_err(eval_error)
    }

    /// Runs `passes` in order, again and again, until a complete round accepts nothing (a
    /// pass that [confirms](Pass::confirms) runs only in a round that has changed nothing so
    /// far).
    /// `on_accept` sees every new current case (e.g. to save it).
    pub fn reduce(
        &mut self,
        original: C,
        passes: &[&dyn Pass<C>],
        on_accept: &mut dyn FnMut(&C) -> Result<(), EngineError>,
    ) -> Result<C, EngineError> {
        let started = Instant::now();
        let (oracle, cache, progress) = (self.oracle, self.cache, self.progress);
        let jobs = self.options.jobs.max(1);
        std::thread::scope(|scope| {
            // -j 1 needs no executors: the decider runs each candidate itself.
            let width = self.width();
            let mut dispatcher =
                (jobs > 1).then(|| Dispatcher::start(scope, width, oracle, cache, progress));
            let result = self.run_passes(original, passes, on_accept, dispatcher.as_mut());
            self.stats.wall_time = started.elapsed();
            result
        })
    }

    fn run_passes(
        &mut self,
        original: C,
        passes: &[&dyn Pass<C>],
        on_accept: &mut dyn FnMut(&C) -> Result<(), EngineError>,
        mut dispatcher: Option<&mut Dispatcher<C>>,
    ) -> Result<C, EngineError> {
        let mut current = original;
        let width = self.width();
        self.stats.size_before = self.oracle.size(&current);
        // Kept up to date so that an interrupted reduction still reports its best size.
        self.stats.size_after = self.stats.size_before;
        self.progress.set_original_size(self.stats.size_before);
        loop {
            let mut changed = false;
            self.stats.rounds += 1;
            for (index, pass) in passes.iter().enumerate() {
                if changed && pass.confirms() {
                    continue;
                }
                let name = pass.name();
                self.progress.start_pass(&name);
                let mut search = pass.search(&current);
                search.set_width(width);
                while let Some(batch) = search.next_batch(&current) {
                    if is_interrupted() {
                        return Err(EngineError::Interrupted);
                    }
                    let dispatcher = dispatcher.as_deref_mut();
                    let following = Following::of(passes, index, changed);
                    let folds = dispatcher.is_some() && !self.options.exact;
                    let context = (&*search, &current, following);
                    let decision = self.decide(&name, batch, dispatcher, context)?;
                    if let Some(case) = decision.case {
                        let before = (self.stats.size_after, self.oracle.bytes(&current));
                        current = case;
                        changed = true;
                        self.stats.accepted += 1;
                        self.stats.size_after = self.oracle.size(&current);
                        let after = (self.stats.size_after, self.oracle.bytes(&current));
                        let note = crate::progress::size_note(before, after);
                        self.progress
                            .accepted(self.stats.size_after, note.as_deref());
                        on_accept(&current)?;
                    }
                    if folds {
                        search.feedback_fold(&decision.accepted, &decision.rejected);
                    } else {
                        search.feedback(decision.accepted.first().copied());
                    }
                }
            }
            if !changed {
                break;
            }
        }
        self.stats.size_after = self.oracle.size(&current);
        Ok(current)
    }

    /// Evaluates one batch and returns what it decided, logging every decided candidate.
    fn decide(
        &mut self,
        pass: &str,
        batch: Vec<Proposal<C>>,
        dispatcher: Option<&mut Dispatcher<C>>,
        (search, current, following): (&dyn Search<C>, &C, Following<'_, C>),
    ) -> Result<Decision<C>, EngineError> {
        let mut decision = Decision {
            accepted: Vec::new(),
            rejected: Vec::new(),
            case: None,
        };
        if batch.is_empty() {
            return Ok(decision);
        }
        let digests: Vec<String> = batch.iter().map(|p| self.oracle.digest(&p.case)).collect();
        let config = &self.options.config_digest;
        let keys: Vec<String> = digests.iter().map(|d| self.cache.key(d, config)).collect();
        self.progress.set_item(self.oracle.item(&batch[0].change));
        let batch = Arc::new(batch);
        let (verdicts, first) = match dispatcher {
            Some(dispatcher) => {
                let (oracle, cache) = (self.oracle, self.cache);
                let width = self.width();
                let window = width.window;
                let key = |p: &Proposal<C>| cache.key(&oracle.digest(&p.case), config);
                // The batch that would follow the acceptance of candidate `index` (asked
                // only when deciding one at a time). With `index` the batch's length: the
                // batch that would follow if all were rejected, which may be the following
                // pass's first.
                let mut look_ahead = |index: usize| -> LookAhead<C> {
                    let all: Vec<usize> = (0..batch.len()).collect();
                    let premise = |fork: &mut dyn Search<C>| match batch.get(index) {
                        Some(_) => fork.feedback(Some(index)),
                        None if window > 1 => fork.feedback_fold(&[], &all),
                        None => fork.feedback(None),
                    };
                    let base = batch.get(index).map_or(current, |p| &p.case);
                    let following = following.unchanged.filter(|_| index == batch.len());
                    ahead::batch_after(search, &premise, (base, following), width, &key)
                };
                self.stats.sequential_steps += 1;
                let evaluated = dispatcher.evaluate(
                    pass,
                    (batch.clone(), &keys, window),
                    cache,
                    &mut look_ahead,
                );
                let (verdicts, first) = evaluated.map_err(eval_error)?;
                // The window's verdicts are journalled; a kill from now on costs none of them.
                self.cache.sync_soon();
                for (outcome, _) in &verdicts {
                    dispatcher.decided(pass, outcome.status == Status::Interesting);
                }
                let interesting: Vec<usize> = (0..verdicts.len())
                    .filter(|&i| verdicts[i].0.status == Status::Interesting)
                    .collect();
                let mark = self.log.len();
                if interesting.len() > 1 {
                    let window = (&interesting[..], verdicts.len());
                    let context = (search, current, following.changed);
                    if let Some((members, case)) = self.fold(pass, context, window, dispatcher)? {
                        decision.accepted = members;
                        decision.case = Some(case);
                    }
                }
                decision.rejected = (0..verdicts.len())
                    .filter(|i| interesting.binary_search(i).is_err())
                    .collect();
                // The window's entries go before those of the fold that followed them.
                let folded = self.log.split_off(mark);
                self.record_batch(pass, &batch, &digests, verdicts);
                self.log.extend(folded);
                if decision.case.is_none() {
                    if let Some(first) = first {
                        decision.accepted = vec![first];
                        decision.case = Some(batch[first].case.clone());
                        self.mark_accepted(pass, mark + first);
                    }
                }
                self.drop_uncollected_log();
                return Ok(decision);
            }
            None => self.evaluate_sequentially(&batch, &keys)?,
        };
        // The batch's verdicts are journalled; a kill from now on costs none of them.
        self.cache.sync_soon();
        decision.rejected = (0..verdicts.len()).filter(|&i| Some(i) != first).collect();
        let mark = self.log.len();
        self.record_batch(pass, &batch, &digests, verdicts);
        if let Some(first) = first {
            decision.accepted = vec![first];
            decision.case = Some(batch[first].case.clone());
            self.mark_accepted(pass, mark + first);
        }
        self.drop_uncollected_log();
        Ok(decision)
    }

    /// How batches are evaluated (see [`Width`]).
    fn width(&self) -> Width {
        match self.options.jobs {
            0 | 1 => Width::SEQUENTIAL,
            jobs => Width::of(jobs, self.options.exact),
        }
    }

    /// `-j 1`: each candidate in turn, up to the first interesting one (no speculation at all).
    fn evaluate_sequentially(
        &mut self,
        batch: &[Proposal<C>],
        keys: &[String],
    ) -> Result<Decided, EngineError> {
        let mut verdicts = Vec::new();
        for (proposal, key) in batch.iter().zip(keys) {
            let verdict = match self.cache.get(key) {
                Some(outcome) => (outcome, true),
                None => {
                    self.stats.sequential_steps += 1;
                    self.run_keyed(&proposal.case, key, &CancelFlag::new())
                        .map_err(eval_error)?
                }
            };
            let interesting = verdict.0.status == Status::Interesting;
            verdicts.push(verdict);
            if interesting {
                let index = verdicts.len() - 1;
                return Ok((verdicts, Some(index)));
            }
        }
        Ok((verdicts, None))
    }

    /// Cache lookup, else a predicate evaluation whose stable outcome is cached. The bool says
    /// whether the verdict came from the cache.
    fn judge_keyed(&self, case: &C, digest: &str, cancel: &CancelFlag) -> Verdict {
        let key = self.cache.key(digest, &self.options.config_digest);
        if let Some(outcome) = self.cache.get(&key) {
            return Ok((outcome, true));
        }
        self.run_keyed(case, &key, cancel)
    }

    /// A predicate evaluation (never from the cache) whose stable outcome is cached under `key`.
    fn run_keyed(&self, case: &C, key: &str, cancel: &CancelFlag) -> Verdict {
        self.progress.launched();
        let outcome = self.oracle.evaluate(case, cancel)?;
        self.cache.put(key, &outcome);
        Ok((outcome, false))
    }

    /// Counters, with the predicate runs counted by the progress reporter.
    pub fn finish_stats(&mut self) -> Stats {
        self.stats.predicate_evaluations = self.progress.evaluations();
        self.stats.cancelled_runs = self.progress.cancelled_runs();
        self.stats.clone()
    }
}

fn eval_error(error: EvalError) -> EngineError {
    match error {
        EvalError::Interrupted | EvalError::Cancelled => EngineError::Interrupted,
        EvalError::Fatal(message) => EngineError::Fatal(message),
    }
}

mod ahead;
mod fold;
#[cfg(test)]
mod tests;
