//! After a pytest test is reduced: the test as a plain script (`minrepro_pysyntax::
//! pytest_script`), judged by running it as a program without pytest (`PYTHON SCRIPT`, under
//! the same fidelity guard: the same exception type, raised in the same function), and, when it
//! reproduces, reduced further as a script (what only pytest needed, such as `import pytest` or
//! a `pytest.raises` that is not needed, goes then like any other code). When a step does not
//! hold, the output stays the reduced pytest test and the run says why.

use minrepro_engine::Stats;
use minrepro_predicate::{Outcome, Status};
use minrepro_text::{split_docs, TextRun};

use super::{case_indices, NodeId};

/// What the conversion needs of the run around it.
pub struct Conversion<'a> {
    /// The reduced test (a set's text or one file's), named as the entry.
    pub entry: &'a str,
    /// The Python 3 minor version the script must be valid for.
    pub minor: u8,
    /// Runs a text of the reduction under pytest, never from the cache (its output names the
    /// chosen parametrize case).
    pub judge_test: &'a dyn Fn(&str) -> Result<Outcome, String>,
    /// Judges the script as a program, under the fidelity guard.
    pub judge_script: &'a dyn Fn(&str) -> Result<Outcome, String>,
    /// Reduces the script (known to reproduce, with its verdict) as a single file; writes the
    /// output.
    pub reduce_script: &'a dyn Fn(&str, Outcome) -> TextRun,
    /// Which check of the failure a run fails, in words.
    pub failed_check: &'a dyn Fn(&minrepro_predicate::RunRecord) -> String,
    /// Where the steps are told.
    pub progress: &'a minrepro_engine::Progress,
}

/// Turns the reduced test of `run` into a plain script (see the module documentation): the
/// script's reduction, its counters following the test's, or `run` and why the output stays a
/// pytest test.
pub fn finish(node: &NodeId, run: TextRun, with: &Conversion) -> (TextRun, Option<String>) {
    if run.result.is_err() {
        return (run, None);
    }
    match script_of(node, &run, with) {
        Err(why) => (run, Some(why)),
        Ok((script, outcome)) => {
            with.progress
                .message("it does: the plain script is reduced further");
            let mut second = (with.reduce_script)(&script, outcome);
            second.stats = merged(&run.stats, &second.stats);
            second.rejudged.candidates += run.rejudged.candidates;
            second.rejudged.interesting += run.rejudged.interesting;
            second.rejudged.timed_out_again += run.rejudged.timed_out_again;
            (second, None)
        }
    }
}

/// The plain script of the reduced test and its verdict, or why there is none.
fn script_of(node: &NodeId, run: &TextRun, with: &Conversion) -> Result<(String, Outcome), String> {
    let reduced = run.reduced.as_deref().ok_or("the output was not written")?;
    let docs = split_docs(reduced, with.entry);
    let [test] = docs.as_slice() else {
        return Err("its files are not one file".into());
    };
    let text = test.content.text().unwrap_or_default();
    let mut chosen = node.test.clone();
    with.progress
        .message("the reduced test once more under pytest, to learn which parametrize case ran");
    let ran = (with.judge_test)(reduced)?;
    chosen.indices = case_indices(&ran.last_run.stderr.tail);
    let script = minrepro_pysyntax::pytest_script(text, &chosen)?;
    minrepro_pysyntax::check_valid_for(&script, with.minor)
        .map_err(|p| format!("as a plain script it is not valid Python ({p})"))?;
    with.progress.message(
        "the reduced test as a plain script, run without pytest: does it fail the same way?",
    );
    let outcome = (with.judge_script)(&script)?;
    if outcome.status != Status::Interesting {
        return Err(format!(
            "as a plain script (`python3 SCRIPT`, no pytest) it does not fail as the test does: {}",
            (with.failed_check)(&outcome.last_run)
        ));
    }
    Ok((script, outcome))
}

/// The counters of a reduction in two steps: the first's original size, the second's result,
/// the runs of both.
fn merged(first: &Stats, second: &Stats) -> Stats {
    let mut all = second.clone();
    all.size_before = first.size_before;
    all.predicate_evaluations += first.predicate_evaluations;
    all.cancelled_runs += first.cancelled_runs;
    all.cache_hits += first.cache_hits;
    all.candidates_decided += first.candidates_decided;
    all.accepted += first.accepted;
    all.timeouts += first.timeouts;
    // Wall and processor time count from the run's start (the second includes the first).
    all.startup_time = first.startup_time;
    all.startup_cpu_time = first.startup_cpu_time;
    all.rounds += first.rounds;
    all.sequential_steps += first.sequential_steps;
    for (pass, (decided, accepted)) in &first.per_pass {
        let counts = all.per_pass.entry(pass.clone()).or_default();
        counts.0 += decided;
        counts.1 += accepted;
    }
    all
}
