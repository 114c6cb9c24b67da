//! Parallel evaluation: one decider, `-j` executors.
//!
//! The decider (the engine's own thread) owns every piece of state: the cache lookups, which
//! candidate runs next, the acceptance order, cancellation and the speculation policy.
//! Executors live for the whole reduction; each takes one job at a time, runs the predicate,
//! caches a stable verdict and reports back. Nothing an executor does decides anything, so the
//! accepted candidates are those of `-j 1` for every `-j` and every timing. A batch ends as soon
//! as its accepted candidate is known: runs still going are cancelled and keep their executors
//! busy until they report, but the next batch starts at once on the free ones.
//!
//! Three kinds of speculation fill free executors: later candidates of the batch (needed if every
//! earlier one is rejected), the first candidates of the batch that would follow if the
//! frontier candidate were accepted ("look-ahead", from a copy of the search; for a fold's
//! union, the batch after the union's acceptance), and, once the batch is all started, what
//! would follow if every candidate were rejected (the search's next slice or granularity, or
//! the next pass's first batch). When the engine decides in windows, a premise that comes true
//! makes the next batch's whole first window needed, so that much of it runs ahead at the
//! premise's probability. A look-ahead run
//! that is still going when its batch really comes is adopted, not started again; one that
//! finished left its verdict in the cache; one whose premise failed is cancelled.

use std::collections::{HashMap, HashSet};
use std::sync::mpsc::{channel, Receiver, Sender};
use std::sync::{Arc, Mutex};
use std::thread::Scope;
use std::time::{Duration, Instant};

use minrepro_cache::OutcomeCache;
use minrepro_predicate::{CancelFlag, EvalError, Outcome, Status};

use crate::engine::Oracle;
use crate::progress::Progress;
use crate::search::{Proposal, Width};
use crate::speculation::Speculation;

/// A verdict and whether it came from the cache.
pub type Verdict = Result<(Outcome, bool), EvalError>;

/// The decided prefix of a batch: a verdict per candidate up to the accepted one, and its index.
pub type Decided = (Vec<(Outcome, bool)>, Option<usize>);

/// The candidates that would follow the acceptance of a batch's candidate, with cache keys.
pub type LookAhead<C> = Vec<(String, Proposal<C>)>;

/// One candidate to run.
struct Job<C> {
    id: u64,
    batch: Arc<Vec<Proposal<C>>>,
    index: usize,
    key: String,
    cancel: CancelFlag,
}

/// What an executor reports about a job.
struct Report {
    id: u64,
    /// `None`: the job was cancelled before its run started (nothing was launched).
    result: Option<Result<Outcome, EvalError>>,
    wall: Duration,
}

/// A job not yet reported.
struct Flight {
    key: String,
    cancel: CancelFlag,
    /// Index in the current batch whose verdict this run gives (`None`: an earlier batch's or
    /// a look-ahead not adopted yet).
    index: Option<usize>,
    /// For a look-ahead: the index in the current batch whose acceptance it assumes.
    premise: Option<usize>,
}

/// The decider's handle on the executors.
pub struct Dispatcher<C> {
    jobs: Option<Sender<Job<C>>>,
    reports: Receiver<Report>,
    slots: usize,
    /// The window in which the batches that follow are decided (the engine's, see [`Width`]):
    /// how much of a look-ahead batch one premise makes needed.
    ahead_window: usize,
    next_id: u64,
    flights: HashMap<u64, Flight>,
    /// Keys whose verdict a finished look-ahead run put in the cache (a fresh run, not a hit).
    ahead_done: HashSet<String>,
    speculation: Speculation,
}

impl<C> Ahead<C> {
    fn new(premise: usize, candidates: LookAhead<C>) -> Self {
        let (keys, proposals) = candidates.into_iter().unzip();
        Ahead {
            premise,
            proposals: Arc::new(proposals),
            keys,
            launched: 0,
        }
    }
}

/// A batch being decided.
struct Round<'b, C> {
    pass: &'b str,
    batch: Arc<Vec<Proposal<C>>>,
    keys: &'b [String],
    verdicts: Vec<Option<Verdict>>,
    cancels: Vec<CancelFlag>,
    next: usize,
    frontier: usize,
    /// Candidates decided together (1: the first interesting one ends the batch; more: every
    /// candidate of the window holding the first interesting one is decided).
    window: usize,
    /// The first interesting candidate so far.
    first: Option<usize>,
    /// The look-ahead of the current frontier.
    ahead: Option<Ahead<C>>,
    /// The look-ahead past the batch's end (all rejected).
    beyond: Option<Ahead<C>>,
}

impl<C> Round<'_, C> {
    /// The verdicts up to the frontier, and the first interesting candidate among them.
    fn decided(&mut self) -> Decided {
        let decided = std::mem::take(&mut self.verdicts).into_iter();
        let decided = decided.take(self.frontier);
        let decided = decided.map(|v| v.and_then(Result::ok).expect("decided"));
        (decided.collect(), self.first)
    }

    /// Whether candidate `index` belongs to the window being decided (needed whatever the
    /// verdicts before it).
    fn in_window(&self, index: usize) -> bool {
        self.window > 1 && index < (self.frontier / self.window + 1) * self.window
    }
}

/// The batch that would follow the acceptance of candidate `premise` (the batch's length: the
/// rejection of all).
struct Ahead<C> {
    premise: usize,
    proposals: Arc<Vec<Proposal<C>>>,
    keys: Vec<String>,
    /// How many were started (or found in the cache).
    launched: usize,
}

impl<C: Send + Sync> Dispatcher<C> {
    /// Starts an executor per proposal of the engine's `width` in `scope`; they stop when the
    /// dispatcher is dropped.
    pub fn start<'scope, 'env: 'scope>(
        scope: &'scope Scope<'scope, 'env>,
        width: Width,
        oracle: &'env dyn Oracle<C>,
        cache: &'env OutcomeCache,
        progress: &'env Progress,
    ) -> Self
    where
        C: 'env,
    {
        let (job_sender, job_receiver) = channel::<Job<C>>();
        let (report_sender, reports) = channel();
        let job_receiver = Arc::new(Mutex::new(job_receiver));
        let slots = width.batch.max(1);
        for _ in 0..slots {
            let (jobs, reports) = (job_receiver.clone(), report_sender.clone());
            scope.spawn(move || loop {
                let next = jobs.lock().unwrap_or_else(|e| e.into_inner()).recv();
                let Ok(job) = next else { return };
                let report = execute(&job, oracle, cache, progress);
                if reports.send(report).is_err() {
                    return;
                }
            });
        }
        Dispatcher {
            jobs: Some(job_sender),
            reports,
            slots,
            ahead_window: width.window.max(1),
            next_id: 0,
            flights: HashMap::new(),
            ahead_done: HashSet::new(),
            speculation: Speculation::new(),
        }
    }

    /// Tells the speculation policy that a candidate of `pass` was decided.
    pub fn decided(&mut self, pass: &str, accepted: bool) {
        self.speculation.decided(pass, accepted);
    }

    /// Evaluates `batch` (cache keys in `keys`) in windows of `window` candidates: returns the
    /// verdicts of every candidate up to the end of the first window holding an interesting
    /// one (with `window` 1: up to the first interesting one), and the index of the first
    /// interesting one. Runs beyond are cancelled; an error before the end ends the batch
    /// with that error. `look_ahead(i)` gives the candidates that would follow the acceptance
    /// of candidate `i` (asked for only with `window` 1), or with `i` the batch's length those
    /// that would follow if all were rejected (or nothing).
    pub fn evaluate(
        &mut self,
        pass: &str,
        (batch, keys, window): (Arc<Vec<Proposal<C>>>, &[String], usize),
        cache: &OutcomeCache,
        look_ahead: &mut dyn FnMut(usize) -> LookAhead<C>,
    ) -> Result<Decided, EvalError> {
        let n = batch.len();
        // Look-aheads this batch does not contain were for a premise that did not come true.
        let wanted: HashSet<&String> = keys.iter().collect();
        for flight in self.flights.values_mut() {
            flight.index = None;
            if flight.premise.take().is_some() && !wanted.contains(&flight.key) {
                flight.cancel.cancel();
            }
        }
        let mut round = Round {
            pass,
            batch,
            keys,
            verdicts: (0..n).map(|_| None).collect(),
            cancels: (0..n).map(|_| CancelFlag::new()).collect(),
            next: 0,
            frontier: 0,
            window: window.max(1),
            first: None,
            ahead: None,
            beyond: None,
        };
        let result = self.run_round(&mut round, cache, look_ahead);
        // The premise that came true: an accepted index, or `n` when all were rejected.
        let came_true = match &result {
            Ok((_, accepted)) => Some(accepted.unwrap_or(n)),
            Err(_) => None,
        };
        round.cancels.iter().for_each(CancelFlag::cancel);
        for flight in self.flights.values_mut() {
            // Only the look-ahead of what came true may still be needed.
            if flight.premise.is_some() && flight.premise != came_true {
                flight.cancel.cancel();
            }
        }
        result
    }

    fn run_round(
        &mut self,
        round: &mut Round<'_, C>,
        cache: &OutcomeCache,
        look_ahead: &mut dyn FnMut(usize) -> LookAhead<C>,
    ) -> Result<Decided, EvalError> {
        let n = round.batch.len();
        loop {
            while let Some(Some(verdict)) = round.verdicts.get(round.frontier) {
                match verdict {
                    Err(error) => return Err(error.clone()),
                    Ok((outcome, _)) => {
                        if outcome.status == Status::Interesting {
                            round.first.get_or_insert(round.frontier);
                        } else {
                            // The look-ahead of a rejected candidate is not needed.
                            self.drop_premise(round.frontier);
                        }
                        round.frontier += 1;
                    }
                }
                // A window is decided whole: it ends the batch if it holds an interesting one.
                if round.first.is_some() && round.frontier.is_multiple_of(round.window) {
                    return Ok(round.decided());
                }
            }
            if round.frontier == n {
                return Ok(round.decided());
            }
            // The likelier to be needed goes first: a later candidate of this batch, or the
            // look-ahead of the frontier.
            let depth = round.next.saturating_sub(round.frontier);
            let ahead_depth = match &round.ahead {
                Some(ahead) if ahead.premise == round.frontier => ahead.launched,
                _ => 0,
            };
            // (A window's look-ahead would assume one acceptance where several may come.)
            let ahead_first = round.next < n
                && round.window == 1
                && self
                    .speculation
                    .prefers_ahead(round.pass, depth, ahead_depth);
            let mut launched = false;
            let kinds = if round.window == 1 {
                vec![ahead_first, !ahead_first]
            } else {
                vec![false]
            };
            for ahead in kinds {
                launched = if ahead {
                    self.launch_ahead(round, cache, look_ahead)
                } else {
                    self.launch_next(round, cache, look_ahead)
                };
                if launched {
                    break;
                }
            }
            if launched {
                continue;
            }
            let report = self.wait();
            let Some(flight) = self.flights.remove(&report.id) else {
                continue;
            };
            if let Some(Ok(_)) = &report.result {
                if flight.premise.is_some() || flight.index.is_none() {
                    self.ahead_done.insert(flight.key.clone());
                }
            }
            if let Some(index) = flight.index {
                round.verdicts[index] = Some(match report.result {
                    Some(result) => result.map(|outcome| (outcome, false)),
                    None => Err(EvalError::Cancelled),
                });
            }
        }
    }

    /// Answers the batch's next candidate from the cache, or adopts a running look-ahead for
    /// it, or starts it if the policy allows; returns whether it did.
    fn launch_next(
        &mut self,
        round: &mut Round<'_, C>,
        cache: &OutcomeCache,
        look_ahead: &mut dyn FnMut(usize) -> LookAhead<C>,
    ) -> bool {
        let next = round.next;
        if next >= round.batch.len() {
            return self.launch_beyond(round, cache, look_ahead);
        }
        let key = &round.keys[next];
        if let Some(outcome) = cache.get(key) {
            // Costs nothing: answered now, whatever the policy.
            let fresh = self.ahead_done.remove(key);
            round.verdicts[next] = Some(Ok((outcome, !fresh)));
        } else if !self.adopt(key, next) {
            // (A look-ahead already running for this very candidate costs no slot.)
            let busy = self.flights.len();
            // A candidate of the window being decided is needed whatever comes before it.
            let allowed = if round.in_window(next) {
                let frontier = next == round.frontier;
                self.speculation.required(frontier, busy, self.slots)
            } else {
                let depth = next - round.frontier;
                self.speculation.allows(round.pass, depth, busy, self.slots)
            };
            if !allowed {
                return false;
            }
            let (batch, cancel) = (round.batch.clone(), round.cancels[next].clone());
            self.send(batch, next, key.clone(), cancel, Some(next), None);
        }
        round.next += 1;
        true
    }

    /// Makes a running look-ahead for `key` give the verdict of candidate `index`.
    fn adopt(&mut self, key: &str, index: usize) -> bool {
        let running = self.flights.values_mut().find(|f| {
            f.key == key && f.index.is_none() && f.premise.is_none() && !f.cancel.is_cancelled()
        });
        match running {
            Some(flight) => {
                flight.index = Some(index);
                true
            }
            None => false,
        }
    }

    /// Starts the next look-ahead candidate of the frontier if the policy allows.
    fn launch_ahead(
        &mut self,
        round: &mut Round<'_, C>,
        cache: &OutcomeCache,
        look_ahead: &mut dyn FnMut(usize) -> LookAhead<C>,
    ) -> bool {
        let frontier = round.frontier;
        let busy = self.flights.len();
        let stale = round.ahead.as_ref().is_none_or(|a| a.premise != frontier);
        let depth = match &round.ahead {
            Some(ahead) if !stale => ahead.launched,
            _ => 0,
        };
        let place = (depth, self.ahead_window);
        if !self
            .speculation
            .ahead_allows(round.pass, place, busy, self.slots)
        {
            return false;
        }
        if stale {
            round.ahead = Some(Ahead::new(frontier, look_ahead(frontier)));
        }
        match round.ahead.as_mut() {
            Some(ahead) => self.start_next_of(ahead, cache),
            None => false,
        }
    }

    /// Past the batch's end: the candidates that follow if every one of it is rejected, as if
    /// the batch went on (the same policy, at the depth they would have there).
    fn launch_beyond(
        &mut self,
        round: &mut Round<'_, C>,
        cache: &OutcomeCache,
        look_ahead: &mut dyn FnMut(usize) -> LookAhead<C>,
    ) -> bool {
        let n = round.batch.len();
        if round.first.is_some() {
            // (In windows, an interesting candidate decided already: not all are rejected.)
            return false;
        }
        let launched = round.beyond.as_ref().map_or(0, |b| b.launched);
        // Decided in windows, the next batch's first window is needed whole once every
        // undecided candidate of this one is rejected (nothing after it is run ahead).
        let depth = match self.ahead_window {
            1 => n - round.frontier + launched,
            window if launched < window => n - round.frontier,
            _ => return false,
        };
        let busy = self.flights.len();
        if !self.speculation.allows(round.pass, depth, busy, self.slots) {
            return false;
        }
        let beyond = round
            .beyond
            .get_or_insert_with(|| Ahead::new(n, look_ahead(n)));
        self.start_next_of(beyond, cache)
    }

    /// Starts a look-ahead's next candidate (unless the cache knows it or it already runs);
    /// returns whether there was one.
    fn start_next_of(&mut self, ahead: &mut Ahead<C>, cache: &OutcomeCache) -> bool {
        let Some(key) = ahead.keys.get(ahead.launched).cloned() else {
            return false;
        };
        let index = ahead.launched;
        ahead.launched += 1;
        let running = self.flights.values().any(|f| f.key == key);
        if cache.get(&key).is_none() && !running {
            let (proposals, premise) = (ahead.proposals.clone(), Some(ahead.premise));
            self.send(proposals, index, key, CancelFlag::new(), None, premise);
        }
        true
    }

    /// Cancels the look-ahead runs that assumed candidate `index` would be accepted.
    fn drop_premise(&mut self, index: usize) {
        for flight in self.flights.values_mut() {
            if flight.premise == Some(index) {
                flight.cancel.cancel();
            }
        }
    }

    fn send(
        &mut self,
        batch: Arc<Vec<Proposal<C>>>,
        index: usize,
        key: String,
        cancel: CancelFlag,
        slot: Option<usize>,
        premise: Option<usize>,
    ) {
        self.next_id += 1;
        let id = self.next_id;
        let flight = Flight {
            key: key.clone(),
            cancel: cancel.clone(),
            index: slot,
            premise,
        };
        self.flights.insert(id, flight);
        let job = Job {
            id,
            batch,
            index,
            key,
            cancel,
        };
        let sender = self.jobs.as_ref().expect("executors run until dropped");
        sender.send(job).expect("executors outlive the dispatcher");
    }

    /// The next report of any job (of this batch, a look-ahead, or a cancelled earlier one).
    fn wait(&mut self) -> Report {
        let report = self.reports.recv().expect("a busy executor reports");
        if report.result.is_some() {
            self.speculation.ran(report.wall);
        }
        report
    }
}

impl<C> Drop for Dispatcher<C> {
    fn drop(&mut self) {
        // Whatever still runs is no longer needed; executors finish it and stop.
        self.flights.values().for_each(|f| f.cancel.cancel());
        self.jobs = None;
    }
}

/// Runs one job on an executor: nothing is launched for a job cancelled before it starts.
fn execute<C>(
    job: &Job<C>,
    oracle: &dyn Oracle<C>,
    cache: &OutcomeCache,
    progress: &Progress,
) -> Report {
    let started = Instant::now();
    let result = if job.cancel.is_cancelled() {
        None
    } else {
        progress.launched();
        let result = oracle.evaluate(&job.batch[job.index].case, &job.cancel);
        match &result {
            Ok(outcome) => cache.put(&job.key, outcome),
            Err(EvalError::Cancelled) => progress.cancelled(),
            Err(_) => {}
        }
        Some(result)
    };
    Report {
        id: job.id,
        result,
        wall: started.elapsed(),
    }
}
