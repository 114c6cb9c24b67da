use super::*;
use crate::ddmin::Ddmin;
use crate::progress::ProgressMode;
use crate::search::without_indices;
use minrepro_predicate::CapturedStream;
use std::sync::atomic::{AtomicUsize, Ordering};

/// An in-process oracle over lists of numbers: a plain function judges a case, `pause` stands
/// for the predicate's run time (so parallel runs really overlap) and may end it when the run is
/// cancelled; evaluations are counted.
struct Lists<J> {
    interesting: J,
    pause: fn(&[u32], &CancelFlag) -> Result<(), EvalError>,
    evaluations: AtomicUsize,
}

/// A case is interesting when it keeps every required number.
type Needs = Lists<Box<dyn Fn(&[u32]) -> bool + Sync>>;

impl Needs {
    fn new(required: Vec<u32>) -> Self {
        Lists {
            interesting: Box::new(move |case| required.iter().all(|r| case.contains(r))),
            pause: pause_by_length,
            evaluations: AtomicUsize::new(0),
        }
    }
}

/// A pause of 0-2 ms by the case's length, ended early by a cancellation (as a killed run is).
fn pause_by_length(case: &[u32], cancel: &CancelFlag) -> Result<(), EvalError> {
    for _ in 0..(case.len() % 3) {
        std::thread::sleep(Duration::from_millis(1));
        if cancel.is_cancelled() {
            return Err(EvalError::Cancelled);
        }
    }
    Ok(())
}

/// Engine settings for `jobs` parallel evaluations.
fn options(jobs: usize) -> EngineOptions {
    EngineOptions {
        jobs,
        config_digest: "cfg".into(),
        size_unit: "items",
        exact: true,
    }
}

/// An oracle needing `required`, an empty in-memory cache and a quiet progress display.
struct Setup {
    oracle: Needs,
    cache: OutcomeCache,
    progress: Progress,
}

fn setup(required: Vec<u32>) -> Setup {
    Setup {
        oracle: Needs::new(required),
        cache: OutcomeCache::in_memory(),
        progress: quiet(),
    }
}

impl Setup {
    /// An engine over this setup with `jobs` parallel evaluations.
    fn engine(&self, jobs: usize) -> Engine<'_, Vec<u32>> {
        Engine::new(&self.oracle, &self.cache, options(jobs), &self.progress)
    }

    /// Evaluations the oracle made so far.
    fn evaluations(&self) -> usize {
        self.oracle.evaluations.load(Ordering::SeqCst)
    }
}

/// A progress display that prints nothing.
fn quiet() -> Progress {
    Progress::with_mode("test", "items", ProgressMode::Quiet)
}

fn outcome(interesting: bool) -> Outcome {
    let (status, code) = match interesting {
        true => (Status::Interesting, 0),
        false => (Status::Uninteresting, 1),
    };
    Outcome::of_one_run(
        status,
        Some(code),
        CapturedStream::default(),
        CapturedStream::default(),
    )
}

impl<J: Fn(&[u32]) -> bool + Sync> Oracle<Vec<u32>> for Lists<J> {
    fn digest(&self, case: &Vec<u32>) -> String {
        format!("{case:?}")
    }
    fn size(&self, case: &Vec<u32>) -> u64 {
        case.len() as u64
    }
    fn evaluate(&self, case: &Vec<u32>, cancel: &CancelFlag) -> Result<Outcome, EvalError> {
        self.evaluations.fetch_add(1, Ordering::SeqCst);
        (self.pause)(case, cancel)?;
        Ok(outcome((self.interesting)(case)))
    }
}

struct ListPass;

impl Pass<Vec<u32>> for ListPass {
    fn name(&self) -> String {
        "items".into()
    }
    fn search(&self, _: &Vec<u32>) -> Box<dyn crate::Search<Vec<u32>> + '_> {
        Box::new(Ddmin::new(
            0,
            |c: &Vec<u32>| c.len(),
            |c: &Vec<u32>, removed: &[usize]| {
                Some(Proposal {
                    case: without_indices(c, removed),
                    change: serde_json::json!({ "removed": removed }),
                })
            },
        ))
    }
}

fn run(jobs: usize, required: &[u32]) -> (Vec<u32>, String, Stats, usize) {
    let setup = setup(required.to_vec());
    let mut engine = setup.engine(jobs);
    let original: Vec<u32> = (0..40).collect();
    engine.check_original(&original).unwrap();
    let mut accepted_sizes = Vec::new();
    let result = engine
        .reduce(original, &[&ListPass], &mut |c| {
            accepted_sizes.push(c.len());
            Ok(())
        })
        .unwrap();
    assert!(accepted_sizes.windows(2).all(|w| w[0] > w[1]));
    let log = serde_json::to_string(engine.log()).unwrap();
    let stats = engine.finish_stats();
    (result, log, stats, setup.evaluations())
}

#[test]
fn parallel_runs_accept_exactly_what_sequential_runs_accept() {
    let required = [3, 17, 18, 39];
    let (result1, log1, stats1, evals1) = run(1, &required);
    assert_eq!(result1, required.to_vec());
    assert_eq!(stats1.size_before, 40);
    assert_eq!(stats1.size_after, 4);
    assert_eq!(evals1, stats1.predicate_evaluations);
    for jobs in [2, 4, 8] {
        let (result, log, stats, evals) = run(jobs, &required);
        // Every launched run is counted, the speculative and cancelled ones too.
        assert_eq!(evals, stats.predicate_evaluations, "-j {jobs}");
        assert!(stats.cancelled_runs <= evals, "-j {jobs}");
        assert_eq!(result, result1, "-j {jobs}");
        assert_eq!(log, log1, "-j {jobs} log differs");
        assert_eq!(stats.accepted, stats1.accepted);
        assert_eq!(stats.candidates_decided, stats1.candidates_decided);
    }
}

#[test]
fn uninteresting_original_is_reported() {
    let setup = setup(vec![99]);
    let mut engine = setup.engine(1);
    let err = engine.check_original(&vec![1, 2]).unwrap_err();
    assert!(matches!(err, EngineError::OriginalNotInteresting(_)));
}

#[test]
fn cache_hits_are_logged_like_fresh_runs() {
    let setup = setup(vec![5]);
    let original: Vec<u32> = (0..10).collect();
    let first_log = {
        let mut engine = setup.engine(1);
        engine
            .reduce(original.clone(), &[&ListPass], &mut |_| Ok(()))
            .unwrap();
        serde_json::to_string(engine.log()).unwrap()
    };
    let runs_after_first = setup.evaluations();
    let mut engine = setup.engine(1);
    engine
        .reduce(original, &[&ListPass], &mut |_| Ok(()))
        .unwrap();
    assert_eq!(
        setup.evaluations(),
        runs_after_first,
        "second run fully cached"
    );
    assert!(engine.stats().cache_hits > 0);
    assert_eq!(serde_json::to_string(engine.log()).unwrap(), first_log);
}

/// The builder gives what the engine gives: with a known verdict of the original it does not
/// run the original again, and it keeps a log only when asked.
#[test]
fn a_reduction_with_a_known_original_runs_it_once_and_keeps_a_log_on_request() {
    // One job: speculative runs would make the run counts vary.
    let options = options(1);
    let original: Vec<u32> = (0..20).collect();
    let progress = quiet();
    let reduce = |known: Option<Outcome>, log: bool| {
        let oracle = Needs::new(vec![4, 11]);
        let cache = OutcomeCache::in_memory();
        let passes: [&dyn Pass<Vec<u32>>; 1] = [&ListPass];
        let mut accepted = 0;
        let mut on_accept = |_: &Vec<u32>| {
            accepted += 1;
            Ok(())
        };
        let mut reduction = crate::Reduction::new(&oracle, &cache, &progress, options.clone())
            .passes(&passes)
            .on_accept(&mut on_accept);
        if let Some(outcome) = known {
            reduction = reduction.original_outcome(outcome);
        }
        if log {
            reduction = reduction.collect_log();
        }
        let (result, stats) = reduction.run(original.clone());
        let reduced = result.unwrap();
        assert_eq!(reduced.stats.accepted, accepted);
        (reduced, stats, oracle.evaluations.load(Ordering::SeqCst))
    };
    let (checked, checked_stats, checked_runs) = reduce(None, true);
    let (known, known_stats, known_runs) = reduce(Some(outcome(true)), false);
    assert_eq!(checked.case, vec![4, 11]);
    assert_eq!(known.case, checked.case);
    assert_eq!(
        known_runs + 1,
        checked_runs,
        "the original ran only when unknown"
    );
    assert_eq!(
        known_stats.candidates_decided,
        checked_stats.candidates_decided
    );
    assert_eq!(checked.log.len(), checked_stats.candidates_decided);
    assert!(known.log.is_empty());
    // A known verdict that is not interesting stops the reduction as a checked one would.
    let oracle = Needs::new(vec![]);
    let cache = OutcomeCache::in_memory();
    let (result, _) = crate::Reduction::new(&oracle, &cache, &progress, options.clone())
        .original_outcome(outcome(false))
        .run(original.clone());
    assert!(matches!(
        result,
        Err(EngineError::OriginalNotInteresting(_))
    ));
    assert_eq!(oracle.evaluations.load(Ordering::SeqCst), 0);
}

/// A pass that removes the even numbers only (a guess that refuses the odd ones), and a
/// confirming pass that removes any one number: the confirming pass runs only in rounds that
/// changed nothing before it, and what it accepts starts another round.
struct EvensPass;

impl Pass<Vec<u32>> for EvensPass {
    fn name(&self) -> String {
        "evens".into()
    }
    fn search(&self, _: &Vec<u32>) -> Box<dyn crate::Search<Vec<u32>> + '_> {
        Box::new(Ddmin::new(
            0,
            |c: &Vec<u32>| c.iter().filter(|n| n.is_multiple_of(2)).count(),
            |c: &Vec<u32>, removed: &[usize]| {
                let positions: Vec<usize> =
                    (0..c.len()).filter(|&i| c[i].is_multiple_of(2)).collect();
                let removed: Vec<usize> = removed.iter().map(|&i| positions[i]).collect();
                Some(Proposal {
                    case: without_indices(c, &removed),
                    change: serde_json::json!({ "removed": removed }),
                })
            },
        ))
    }
}

/// Every single number, one at a time; records the case each search opened on.
struct ConfirmPass(std::sync::Mutex<Vec<Vec<u32>>>);

impl Pass<Vec<u32>> for ConfirmPass {
    fn name(&self) -> String {
        "confirm".into()
    }
    fn confirms(&self) -> bool {
        true
    }
    fn search(&self, current: &Vec<u32>) -> Box<dyn crate::Search<Vec<u32>> + '_> {
        self.0.lock().unwrap().push(current.clone());
        Box::new(Ddmin::new(
            0,
            |c: &Vec<u32>| c.len(),
            |c: &Vec<u32>, removed: &[usize]| {
                (removed.len() == 1).then(|| Proposal {
                    case: without_indices(c, removed),
                    change: serde_json::json!({ "removed": removed }),
                })
            },
        ))
    }
}

#[test]
fn a_confirming_pass_runs_only_after_a_round_that_changed_nothing() {
    for jobs in [1, 3] {
        let setup = setup(vec![3, 4]);
        let mut engine = setup.engine(jobs);
        let original: Vec<u32> = (0..8).collect();
        let confirm = ConfirmPass(Default::default());
        let passes: [&dyn Pass<Vec<u32>>; 2] = [&EvensPass, &confirm];
        let result = engine.reduce(original, &passes, &mut |_| Ok(())).unwrap();
        // The evens go first; only the confirming pass removes the odd numbers.
        assert_eq!(result, vec![3, 4], "-j {jobs}");
        let opened = confirm.0.lock().unwrap().clone();
        // Round 1 changed something (no confirmation); round 2 changed nothing, its
        // confirmation removed odd numbers; round 3 confirms the fixpoint.
        assert_eq!(opened.first(), Some(&vec![1, 3, 4, 5, 7]), "-j {jobs}");
        assert_eq!(opened.last(), Some(&vec![3, 4]), "-j {jobs}");
        assert_eq!(engine.stats().rounds, opened.len() + 1, "-j {jobs}");
    }
}

/// A fixed pause of 2 ms, never cut short.
fn pause_fixed(_: &[u32], _: &CancelFlag) -> Result<(), EvalError> {
    std::thread::sleep(Duration::from_millis(2));
    Ok(())
}

/// One batch removing each of the values 3, 4 and 0 alone (those present), in that order;
/// [`Search::combine`] removes the values of several of its proposals together.
struct RemoveValues {
    proposed: Vec<u32>,
    done: bool,
}

impl crate::Search<Vec<u32>> for RemoveValues {
    fn next_batch(&mut self, current: &Vec<u32>) -> Option<Vec<Proposal<Vec<u32>>>> {
        if std::mem::replace(&mut self.done, true) {
            return None;
        }
        self.proposed = [3, 4, 0]
            .into_iter()
            .filter(|v| current.contains(v))
            .collect();
        Some(
            self.proposed
                .iter()
                .map(|&v| removing(current, &[v]))
                .collect(),
        )
    }
    fn feedback(&mut self, _: Option<usize>) {}
    fn combine(&self, current: &Vec<u32>, indices: &[usize]) -> Option<Proposal<Vec<u32>>> {
        let values: Vec<u32> = indices.iter().map(|&i| self.proposed[i]).collect();
        Some(removing(current, &values))
    }
}

/// `case` without `values`, the change being those values.
fn removing(case: &[u32], values: &[u32]) -> Proposal<Vec<u32>> {
    Proposal {
        case: case
            .iter()
            .copied()
            .filter(|v| !values.contains(v))
            .collect(),
        change: serde_json::json!({ "removed": values }),
    }
}

struct RemoveValuesPass;

impl Pass<Vec<u32>> for RemoveValuesPass {
    fn name(&self) -> String {
        "values".into()
    }
    fn search(&self, _: &Vec<u32>) -> Box<dyn crate::Search<Vec<u32>> + '_> {
        Box::new(RemoveValues {
            proposed: Vec::new(),
            done: false,
        })
    }
}

/// Folds `0..8` at `-j 4` with `interesting`; returns the result and the log.
fn fold_values(interesting: fn(&[u32]) -> bool) -> (Vec<u32>, Vec<LogEntry>) {
    let oracle = Lists {
        interesting,
        pause: pause_fixed,
        evaluations: AtomicUsize::new(0),
    };
    let (cache, progress) = (OutcomeCache::in_memory(), quiet());
    let options = EngineOptions {
        exact: false,
        ..options(4)
    };
    let mut engine = Engine::new(&oracle, &cache, options, &progress);
    let original: Vec<u32> = (0..8).collect();
    let result = engine
        .reduce(original, &[&RemoveValuesPass], &mut |_| Ok(()))
        .unwrap();
    (result, engine.log().to_vec())
}

/// The log entries that removed exactly `values` (a fold's change is `{"fold": ...}`).
fn entries<'l>(log: &'l [LogEntry], values: &[u32], fold: bool) -> Vec<&'l LogEntry> {
    let change = serde_json::json!({ "removed": values });
    let change = if fold {
        serde_json::json!({ "fold": change })
    } else {
        change
    };
    log.iter().filter(|e| e.change == change).collect()
}

#[test]
fn folding_never_accepts_a_union_that_was_not_itself_judged_interesting() {
    // Removing 3 alone and removing 4 alone are interesting; removing both is not.
    let (result, log) = fold_values(|c| c.contains(&0) && (c.contains(&3) || c.contains(&4)));
    // The union was judged, found uninteresting, and not accepted.
    let union = entries(&log, &[3, 4], true);
    assert_eq!(union.len(), 1, "{log:#?}");
    assert_eq!(union[0].outcome.status, Status::Uninteresting);
    assert!(!union[0].accepted);
    // The first interesting candidate alone stands: the result is one of the two.
    assert_eq!(result, vec![0, 1, 2, 4, 5, 6, 7]);
    let alone = entries(&log, &[3], false);
    assert!(alone.iter().any(|e| e.accepted), "{log:#?}");
    assert!(!entries(&log, &[4], false).iter().any(|e| e.accepted));
    // Every accepted entry was judged interesting.
    assert!(log
        .iter()
        .filter(|e| e.accepted)
        .all(|e| e.outcome.status == Status::Interesting));

    // When the union is interesting too, it is what is accepted, once judged.
    let (result, log) = fold_values(|c| c.contains(&0));
    assert_eq!(result, vec![0, 1, 2, 5, 6, 7]);
    let union = entries(&log, &[3, 4], true);
    assert_eq!(union.len(), 1, "{log:#?}");
    assert_eq!(union[0].outcome.status, Status::Interesting);
    assert!(union[0].accepted);
}

/// ProbDD over the positions of the list it starts from: a search that can be copied, so the engine runs ahead
/// of its folds (the batch after a union's acceptance) and of its rejections.
struct ProbDdPass;

impl Pass<Vec<u32>> for ProbDdPass {
    fn name(&self) -> String {
        "probdd".into()
    }
    fn search(&self, current: &Vec<u32>) -> Box<dyn crate::Search<Vec<u32>> + '_> {
        // ProbDD's positions are those of the list the search starts from.
        let start = current.clone();
        Box::new(crate::ProbDd::new(
            start.len(),
            0.1,
            move |_: &Vec<u32>, removed: &[usize]| {
                Some(Proposal {
                    case: without_indices(&start, removed),
                    change: serde_json::json!({ "removed": removed }),
                })
            },
        ))
    }
}

/// Reduces `0..40` to what needs `required` with ProbDD and then ddmin, folding at `jobs`;
/// returns the result and the log.
fn fold_twice(jobs: usize, required: &[u32]) -> (Vec<u32>, String) {
    let setup = setup(required.to_vec());
    let options = EngineOptions {
        exact: false,
        ..options(jobs)
    };
    let mut engine = Engine::new(&setup.oracle, &setup.cache, options, &setup.progress);
    let original: Vec<u32> = (0..40).collect();
    engine.check_original(&original).unwrap();
    let passes: [&dyn Pass<Vec<u32>>; 2] = [&ProbDdPass, &ListPass];
    let result = engine.reduce(original, &passes, &mut |_| Ok(())).unwrap();
    let log = engine.log();
    assert!(log
        .iter()
        .filter(|e| e.accepted)
        .all(|e| e.outcome.status == Status::Interesting));
    (result, serde_json::to_string(log).unwrap())
}

#[test]
fn running_ahead_of_folds_decides_the_same_on_every_rerun() {
    let required = [3, 17, 18, 39];
    for jobs in [2, 4, 16] {
        let (result, log) = fold_twice(jobs, &required);
        assert_eq!(result, required.to_vec(), "-j {jobs}");
        for _ in 0..3 {
            assert_eq!(
                fold_twice(jobs, &required),
                (result.clone(), log.clone()),
                "-j {jobs}"
            );
        }
    }
}
