//! Parallel evaluation: one decider, `-j` executors.
//!
//! The decider (the engine's own thread) owns every piece of state: the cache lookups, which
//! candidate runs next, the acceptance order, cancellation and the speculation policy.
//! Executors live for the whole reduction; each takes one job at a time, runs the predicate,
//! caches a stable verdict and reports back. Nothing an executor does decides anything, so the
//! accepted candidates are those of `-j 1` for every `-j` and every timing. A batch ends as soon
//! as its accepted candidate is known: runs still going are cancelled and keep their executors
//! busy until they report, but the next batch starts at once on the free ones.

use std::sync::mpsc::{channel, Receiver, Sender};
use std::sync::{Arc, Mutex};
use std::thread::Scope;
use std::time::{Duration, Instant};

use minrepro_cache::OutcomeCache;
use minrepro_predicate::{CancelFlag, EvalError, Outcome, Status};

use crate::engine::Oracle;
use crate::progress::Progress;
use crate::search::Proposal;
use crate::speculation::Speculation;

/// A verdict and whether it came from the cache.
pub type Verdict = Result<(Outcome, bool), EvalError>;

/// One candidate to run.
struct Job<C> {
    batch: Arc<Vec<Proposal<C>>>,
    index: usize,
    key: String,
    cancel: CancelFlag,
    ticket: u64,
}

/// What an executor reports about a job.
struct Report {
    ticket: u64,
    index: usize,
    /// `None`: the job was cancelled before its run started (nothing was launched).
    result: Option<Result<Outcome, EvalError>>,
    wall: Duration,
}

/// The decided prefix of a batch: a verdict per candidate up to the accepted one, and its index.
pub type Decided = (Vec<(Outcome, bool)>, Option<usize>);

/// The decider's handle on the executors.
pub struct Dispatcher<C> {
    jobs: Option<Sender<Job<C>>>,
    reports: Receiver<Report>,
    slots: usize,
    busy: usize,
    ticket: u64,
    speculation: Speculation,
}

impl<C: Send + Sync> Dispatcher<C> {
    /// Starts `slots` executors in `scope`; they stop when the dispatcher is dropped.
    pub fn start<'scope, 'env: 'scope>(
        scope: &'scope Scope<'scope, 'env>,
        slots: usize,
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
            busy: 0,
            ticket: 0,
            speculation: Speculation::new(),
        }
    }

    /// Tells the speculation policy that a candidate of `pass` was decided.
    pub fn decided(&mut self, pass: &str, accepted: bool) {
        self.speculation.decided(pass, accepted);
    }

    /// Evaluates `batch` (cache keys in `keys`) in order: returns the verdicts of every
    /// candidate up to the first interesting one, which is accepted. Runs beyond it are
    /// cancelled; an error at or before it ends the batch with that error.
    pub fn evaluate(
        &mut self,
        pass: &str,
        batch: Arc<Vec<Proposal<C>>>,
        keys: &[String],
        cache: &OutcomeCache,
    ) -> Result<Decided, EvalError> {
        self.ticket += 1;
        let n = batch.len();
        let mut verdicts: Vec<Option<Verdict>> = (0..n).map(|_| None).collect();
        let cancels: Vec<CancelFlag> = (0..n).map(|_| CancelFlag::new()).collect();
        let cancel_from = |at: usize| cancels.iter().skip(at).for_each(CancelFlag::cancel);
        let (mut next, mut frontier) = (0, 0);
        loop {
            while let Some(Some(verdict)) = verdicts.get(frontier) {
                match verdict {
                    Err(error) => {
                        let error = error.clone();
                        cancel_from(0);
                        return Err(error);
                    }
                    Ok((outcome, _)) if outcome.status == Status::Interesting => {
                        cancel_from(frontier + 1);
                        let decided = verdicts.into_iter().take(frontier + 1);
                        let decided = decided.map(|v| v.and_then(Result::ok).expect("decided"));
                        return Ok((decided.collect(), Some(frontier)));
                    }
                    Ok(_) => frontier += 1,
                }
            }
            if frontier == n {
                let all = verdicts.into_iter().map(|v| v.and_then(Result::ok));
                return Ok((all.map(|v| v.expect("decided")).collect(), None));
            }
            if next < n
                && self
                    .speculation
                    .allows(pass, next - frontier, self.busy, self.slots)
            {
                if let Some(outcome) = cache.get(&keys[next]) {
                    verdicts[next] = Some(Ok((outcome, true)));
                } else {
                    let job = Job {
                        batch: batch.clone(),
                        index: next,
                        key: keys[next].clone(),
                        cancel: cancels[next].clone(),
                        ticket: self.ticket,
                    };
                    self.send(job);
                }
                next += 1;
                continue;
            }
            let report = self.wait();
            if report.ticket == self.ticket {
                verdicts[report.index] = Some(match report.result {
                    Some(result) => result.map(|outcome| (outcome, false)),
                    None => Err(EvalError::Cancelled),
                });
            }
        }
    }

    fn send(&mut self, job: Job<C>) {
        self.busy += 1;
        let sender = self.jobs.as_ref().expect("executors run until dropped");
        sender.send(job).expect("executors outlive the dispatcher");
    }

    /// The next report of any job (of this batch or a cancelled one of an earlier batch).
    fn wait(&mut self) -> Report {
        let report = self.reports.recv().expect("a busy executor reports");
        self.busy -= 1;
        if report.result.is_some() {
            self.speculation.ran(report.wall);
        }
        report
    }
}

impl<C> Drop for Dispatcher<C> {
    fn drop(&mut self) {
        // Executors finish their current job (cancelled by now) and stop.
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
        ticket: job.ticket,
        index: job.index,
        result,
        wall: started.elapsed(),
    }
}
