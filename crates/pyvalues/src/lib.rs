//! Runtime values of a Python program, for `minrepro python`'s value substitution: an
//! instrumented run of the current program records, per expression site of
//! `minrepro_pysyntax::value_sites`, the literal its last evaluation produced.
//!
//! The run is not a candidate and not a predicate run: the recorder script (`recorder.py`,
//! shipped inside the crate) runs the instrumented text as `__main__` with the interpreter,
//! arguments, environment and working directory of the candidates ([`Program`]), under its own
//! time limit, and writes what it saw as JSON. It runs the way the candidates do: with their
//! executor when one is given ([`ValueRecorder::with_executor`]: the runner backend forks it
//! from a warm helper, its preloaded modules already imported), else as a fresh interpreter. A
//! site is offered only when no evaluation of it entered third-party code or touched a value
//! such code produced (so "wrong result" bugs of a library keep their call; unless the failure
//! is the library's own, [`ValueRecorder::library_failure`]) and none raised; it is offered
//! with the literal of its last evaluation, the one closest before the failure (a site
//! evaluated in a loop, such as a message built for every order, gets the value of the failing
//! iteration), or for a value without a literal the call that rebuilds it (`Linear()`,
//! `np.zeros((3, 4))`: see `recorder.py`). Results are cached by text, so the run happens once
//! per current text that the group searches.
//!
//! A crate of its own (like `minrepro-pyrunner`) because it is a Python program driven from Rust
//! with its own process, time limit and output protocol, independent of how candidates are judged.

use std::collections::HashMap;
use std::ffi::OsString;
use std::ops::Range;
use std::path::PathBuf;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use minrepro_predicate::interrupt::CancelFlag;
use minrepro_predicate::process::{RunEnd, RunRequest};
use minrepro_predicate::{DirectExecutor, Executor};

/// The recorder script run by the interpreter.
const RECORDER: &str = include_str!("recorder.py");

/// Recorded values of one text: a site's range and the literal that replaces it.
pub type Values = Vec<(Range<usize>, String)>;

/// How the program runs: the candidates' settings, which the instrumented run copies.
#[derive(Debug, Clone, Default)]
pub struct Program {
    /// The interpreter.
    pub python: PathBuf,
    /// The program's arguments (its `sys.argv[1:]`).
    pub script_args: Vec<String>,
    /// The candidates' extra environment.
    pub env: Vec<(String, String)>,
    /// The candidates' working directory (`None`: the run's own directory, as --isolated-cwd).
    pub cwd: Option<PathBuf>,
    /// The candidate's file name.
    pub file_name: String,
}

/// Makes the instrumented runs, caches their values by text and counts what they cost.
#[derive(Debug)]
pub struct ValueRecorder {
    /// How the program runs.
    pub program: Program,
    /// Where the runs' directories go.
    pub temp: PathBuf,
    /// Time limit of one instrumented run.
    pub timeout: Duration,
    /// Offer the last value of sites whose evaluations disagreed too (not only agreeing ones).
    pub last_values: bool,
    /// The failure is raised inside a library function and must stay there: values library
    /// code produced are offered too ([`ValueRecorder::library_failure`]).
    pub library_failure: bool,
    cache: Mutex<HashMap<String, Arc<Values>>>,
    cost: Mutex<RecordingCost>,
    /// Runs the instrumented program: the candidates' executor (e.g. the runner backend's warm
    /// helpers, which fork it like a candidate), else a fresh interpreter.
    executor: Option<RunWith>,
}

/// The executor of the instrumented runs.
struct RunWith(Arc<dyn Executor + Send>);

impl std::fmt::Debug for RunWith {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("the candidates' executor")
    }
}

/// What the instrumented runs cost (reported in `--stats-json`).
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct RecordingCost {
    /// Instrumented runs made.
    pub runs: usize,
    /// Their wall time, in seconds.
    pub seconds: f64,
    /// Runs that timed out or did not finish their record.
    pub failed: usize,
}

impl ValueRecorder {
    /// A recorder running `program` in directories below `temp`, each run limited to `timeout`.
    pub fn new(program: Program, temp: PathBuf, timeout: Duration, last_values: bool) -> Self {
        ValueRecorder {
            program,
            temp,
            timeout,
            last_values,
            library_failure: false,
            cache: Mutex::new(HashMap::new()),
            cost: Mutex::new(RecordingCost::default()),
            executor: None,
        }
    }

    /// Runs the instrumented program with `executor` (the candidates' own, e.g. the runner
    /// backend, so that it starts as warm as they do) instead of a fresh interpreter.
    pub fn with_executor(mut self, executor: Arc<dyn Executor + Send>) -> Self {
        self.executor = Some(RunWith(executor));
        self
    }

    /// Offers the values of tainted sites too, for a failure raised inside a library function
    /// that the fidelity guard keeps it in. Taint keeps a library's call when the program
    /// fails on what the library returned; here the library fails itself, and every candidate
    /// must still call it and fail in the same function, so what its inputs were computed by is
    /// not the bug (`np.broadcast_to(np.zeros((3, 4)), (5, 4))` is the report).
    pub fn library_failure(mut self, library_failure: bool) -> Self {
        self.library_failure = library_failure;
        self
    }

    /// What the runs so far cost.
    pub fn cost(&self) -> RecordingCost {
        *lock(&self.cost)
    }

    /// The values recorded for `text` (an instrumented run the first time; empty when the run
    /// failed to record).
    pub fn values(&self, text: &str) -> Arc<Values> {
        let mut cache = lock(&self.cache);
        if let Some(found) = cache.get(text) {
            return Arc::clone(found);
        }
        let started = Instant::now();
        let recorded = self.record(text);
        {
            let mut cost = lock(&self.cost);
            cost.runs += 1;
            cost.seconds += started.elapsed().as_secs_f64();
            cost.failed += usize::from(recorded.is_none());
        }
        let values = Arc::new(recorded.unwrap_or_default());
        cache.insert(text.to_owned(), Arc::clone(&values));
        values
    }

    /// One instrumented run of `text`; `None` when it recorded nothing usable.
    fn record(&self, text: &str) -> Option<Values> {
        let sites = minrepro_pysyntax::value_sites(text);
        if sites.is_empty() {
            return Some(Vec::new());
        }
        let dir = tempfile::Builder::new()
            .prefix("values-")
            .tempdir_in(&self.temp)
            .ok()?;
        let program = dir.path().join(&self.program.file_name);
        // A project's entry may sit in a directory below the project's root.
        std::fs::create_dir_all(program.parent()?).ok()?;
        let instrumented = dir.path().join("instrumented.py.txt");
        let recorder = dir.path().join("minrepro_recorder.py");
        let out = dir.path().join("values.json");
        std::fs::write(&program, text).ok()?;
        std::fs::write(&instrumented, minrepro_pysyntax::instrument(text, &sites)).ok()?;
        std::fs::write(&recorder, RECORDER).ok()?;
        let mut args: Vec<OsString> = vec![
            recorder.into(),
            out.clone().into(),
            instrumented.into(),
            program.into(),
        ];
        args.extend(self.program.script_args.iter().map(OsString::from));
        // The program's temporary files go into the run's directory, removed with it.
        let scratch = dir.path().join("tmp");
        std::fs::create_dir(&scratch).ok()?;
        let env: Vec<(OsString, OsString)> = self
            .program
            .env
            .iter()
            .map(|(k, v)| (OsString::from(k), OsString::from(v)))
            .chain(
                minrepro_predicate::TEMP_VARS
                    .iter()
                    .map(|var| (OsString::from(var), scratch.clone().into_os_string())),
            )
            .collect();
        let cancel = CancelFlag::new();
        let executor: &dyn Executor = match &self.executor {
            Some(RunWith(executor)) => &**executor,
            None => &DirectExecutor,
        };
        let run = executor.run(&RunRequest {
            program: &self.program.python,
            args: &args,
            cwd: self.program.cwd.as_deref().unwrap_or(dir.path()),
            env: &env,
            timeout: self.timeout,
            needle: None,
            workspace_text: None,
            cancel: &cancel,
            keep_stdout: None,
        });
        if !matches!(run.end, RunEnd::Exited(_)) {
            return None;
        }
        let json = std::fs::read_to_string(&out).ok()?;
        let taint_ok = self.library_failure;
        Some(parse_values(&json, &sites, self.last_values, taint_ok))
    }
}

/// The substitutable values of the recorder's JSON `json` for `sites`: untainted (or tainted
/// too with `tainted_ok`), never raised, with a last value (a literal or a rebuilding call) that
/// every evaluation agreed on (or any last value with `last_values`).
pub fn parse_values(
    json: &str,
    sites: &[Range<usize>],
    last_values: bool,
    tainted_ok: bool,
) -> Values {
    let Ok(value) = serde_json::from_str::<serde_json::Value>(json) else {
        return Vec::new();
    };
    let rows = value.get("sites").and_then(|s| s.as_array());
    let mut values = Vec::new();
    for row in rows.into_iter().flatten() {
        let Some(row) = row.as_array() else { continue };
        let field = |i: usize| row.get(i).cloned().unwrap_or_default();
        let (Some(index), Some(literal)) =
            (field(0).as_u64(), field(1).as_str().map(str::to_owned))
        else {
            continue;
        };
        let agreed = field(2).as_bool() == Some(true);
        let tainted = field(3).as_bool() != Some(false);
        let raised = field(4).as_bool() != Some(false);
        let Some(range) = usize::try_from(index).ok().and_then(|i| sites.get(i)) else {
            continue;
        };
        if (!tainted || tainted_ok) && !raised && (agreed || last_values) {
            values.push((range.clone(), literal));
        }
    }
    values
}

/// Locks `mutex`, also after a panic elsewhere.
fn lock<T>(mutex: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    mutex.lock().unwrap_or_else(|e| e.into_inner())
}

#[cfg(test)]
mod tests {
    use super::parse_values;

    #[test]
    fn only_untainted_agreeing_sites_that_never_raised_are_offered() {
        let sites = vec![0..1, 2..3, 4..5, 6..7, 8..9];
        let json = r#"{"sites": [
            [0, "1", true, false, false, 1],
            [1, "2", false, false, false, 3],
            [2, "3", true, true, false, 1],
            [3, "4", true, false, true, 2],
            [4, null, false, false, false, 1],
            [9, "5", true, false, false, 1]
        ]}"#;
        let one = (0..1, "1".to_owned());
        let two = (2..3, "2".to_owned());
        let three = (4..5, "3".to_owned());
        assert_eq!(
            parse_values(json, &sites, false, false),
            std::slice::from_ref(&one)
        );
        assert_eq!(
            parse_values(json, &sites, true, false),
            [one.clone(), two.clone()]
        );
        // A failure inside a library: what library code produced may be replaced too.
        assert_eq!(parse_values(json, &sites, true, true), [one, two, three]);
        assert!(parse_values("not json", &sites, true, true).is_empty());
    }
}
