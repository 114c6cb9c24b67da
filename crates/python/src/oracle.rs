//! The [`Oracle`] of Python programs: a candidate is its source text, digested with blake3,
//! measured in Python tokens, and judged by writing it into an empty workspace (see
//! [`workspace`](crate::workspace)) and running the predicate there.
//!
//! For the engine benchmark (bench/engine), `MINREPRO_TIMING_LOG=FILE` makes the oracle append
//! one line `START END` (seconds since the epoch) per predicate evaluation to FILE: from just
//! before the predicate is launched to just after its verdict, so that the benchmark can
//! subtract the time spent in predicates from the wall time without a timing wrapper (whose own
//! launch would count as engine time). [`PythonOracle::log_cpu_time`] adds a last line
//! `cpu USER SYS`: minrepro's own processor seconds (all its threads, no child processes), a
//! figure that other work on a shared machine does not inflate.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::time::{SystemTime, UNIX_EPOCH};

use crate::workspace::Workspaces;
use minrepro_engine::{Oracle, TempRoot};
use minrepro_predicate::{CancelFlag, DirectExecutor, EvalError, Executor, Outcome, Predicate};

use crate::encoding::{file_bytes, SourceEncoding};

/// Judges Python source candidates.
pub struct PythonOracle<'a> {
    predicate: &'a Predicate,
    executor: &'a dyn Executor,
    workspaces: Workspaces<'a>,
    file_name: String,
    python: PathBuf,
    /// `MINREPRO_TIMING_LOG`, if set (see the module documentation).
    timing_log: Option<PathBuf>,
    /// The source's declared encoding (PEP 263), if not UTF-8.
    encoding: Option<&'a SourceEncoding>,
}

impl<'a> PythonOracle<'a> {
    /// An oracle writing candidates as `file_name` into workspaces under `temp`; `python` is the
    /// resolved interpreter (the `{python}` placeholder).
    pub fn new(
        predicate: &'a Predicate,
        temp: &'a TempRoot,
        file_name: String,
        python: PathBuf,
    ) -> Self {
        PythonOracle {
            predicate,
            executor: &DirectExecutor,
            workspaces: Workspaces::new(temp),
            file_name,
            python,
            timing_log: std::env::var_os("MINREPRO_TIMING_LOG").map(PathBuf::from),
            encoding: None,
        }
    }
}

impl<'a> PythonOracle<'a> {
    /// Appends the span of every predicate evaluation to `log` (see the module documentation;
    /// [`PythonOracle::new`] takes it from `MINREPRO_TIMING_LOG`).
    pub fn with_timing_log(mut self, log: Option<PathBuf>) -> Self {
        self.timing_log = log;
        self
    }

    /// Runs candidates with `executor` (e.g. the runner backend) instead of direct children.
    pub fn with_executor(mut self, executor: &'a dyn Executor) -> Self {
        self.executor = executor;
        self
    }

    /// Writes candidates in `encoding` (the source's declared one) instead of UTF-8.
    pub fn with_encoding(mut self, encoding: Option<&'a SourceEncoding>) -> Self {
        self.encoding = encoding;
        self
    }
}

/// The ordering key of a candidate: tokens, then bytes, then the text itself (so that every
/// strictly decreasing sequence of candidates is finite).
pub fn size_key(text: &str) -> (usize, usize, &str) {
    (minrepro_pysyntax::token_count(text), text.len(), text)
}

impl Oracle<String> for PythonOracle<'_> {
    fn digest(&self, case: &String) -> String {
        blake3::hash(case.as_bytes()).to_hex().to_string()
    }

    fn size(&self, case: &String) -> u64 {
        minrepro_pysyntax::token_count(case) as u64
    }

    fn evaluate(&self, case: &String, cancel: &CancelFlag) -> Result<Outcome, EvalError> {
        let bytes = file_bytes(self.encoding, case).map_err(|e| {
            EvalError::Fatal(format!("cannot write candidate {}: {e}", self.file_name))
        })?;
        let (workspace, file) = self.workspaces.take(&self.file_name, &bytes).map_err(|e| {
            EvalError::Fatal(format!(
                "cannot write candidate {} into a workspace: {e}",
                self.file_name
            ))
        })?;
        let file_text = file.to_string_lossy().into_owned();
        let workspace_text = workspace.path().to_string_lossy().into_owned();
        let python_text = self.python.to_string_lossy().into_owned();
        let lookup = |name: &str| match name {
            "file" => Some(file_text.clone()),
            "workspace" => Some(workspace_text.clone()),
            "python" => Some(python_text.clone()),
            _ => None,
        };
        let started = SystemTime::now();
        let outcome =
            self.predicate
                .evaluate_with(self.executor, workspace.path(), &lookup, cancel);
        let ended = SystemTime::now();
        self.workspaces.give_back(workspace);
        if let Some(log) = &self.timing_log {
            log_span(log, started, ended)?;
        }
        outcome
    }
}

impl PythonOracle<'_> {
    /// Appends `cpu USER SYS` (this process's processor seconds so far) to the timing log, if
    /// there is one.
    pub fn log_cpu_time(&self) -> Result<(), EvalError> {
        let Some(log) = &self.timing_log else {
            return Ok(());
        };
        // SAFETY: getrusage only writes the struct it is given.
        let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
        if unsafe { libc::getrusage(libc::RUSAGE_SELF, &mut usage) } != 0 {
            return Ok(());
        }
        let seconds = |t: libc::timeval| t.tv_sec as f64 + t.tv_usec as f64 / 1e6;
        let line = format!(
            "cpu {:.6} {:.6}\n",
            seconds(usage.ru_utime),
            seconds(usage.ru_stime)
        );
        append(log, &line)
    }
}

/// Appends `START END` (seconds since the epoch) to the timing log.
fn log_span(log: &Path, start: SystemTime, end: SystemTime) -> Result<(), EvalError> {
    let seconds = |t: SystemTime| {
        t.duration_since(UNIX_EPOCH)
            .unwrap_or_default()
            .as_secs_f64()
    };
    append(log, &format!("{:.6} {:.6}\n", seconds(start), seconds(end)))
}

/// Appends `line` to the timing log.
fn append(log: &Path, line: &str) -> Result<(), EvalError> {
    std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(log)
        .and_then(|mut f| f.write_all(line.as_bytes()))
        .map_err(|e| {
            EvalError::Fatal(format!(
                "cannot write the timing log {}: {e}",
                log.display()
            ))
        })
}

#[cfg(test)]
mod tests {
    use super::*;
    use minrepro_predicate::{Acceptance, PredicateConfig, Status};

    fn config(args: Vec<String>, needle: &str) -> PredicateConfig {
        PredicateConfig {
            executable: "sh".into(),
            args,
            placeholders: vec!["file", "workspace", "python"],
            acceptance: Acceptance {
                substring: Some(needle.into()),
                ..Acceptance::default()
            },
            runs: 1,
            timeout_secs: 30.0,
            cache_tags: vec![],
            cache_dependencies: vec![],
            env: vec![],
        }
    }

    #[test]
    fn writes_candidate_under_its_name_and_judges_it() {
        let temp = TempRoot::new().unwrap();
        let args = vec![
            "-c".into(),
            "cat \"$0\"; basename \"$0\"".into(),
            "{file}".into(),
        ];
        let predicate = Predicate::new(config(args, "needle")).unwrap();
        let oracle = PythonOracle::new(&predicate, &temp, "prog.py".into(), "/bin/true".into());
        let cancel = CancelFlag::new();
        let hit = oracle
            .evaluate(&"needle = 1\n".to_owned(), &cancel)
            .unwrap();
        assert_eq!(hit.status, Status::Interesting);
        assert!(hit.last_run.stdout.head.contains("prog.py"));
        let miss = oracle.evaluate(&"x = 1\n".to_owned(), &cancel).unwrap();
        assert_eq!(miss.status, Status::Uninteresting);
        // One workspace, emptied and reused; it goes with the temporary root.
        assert_eq!(std::fs::read_dir(temp.path()).unwrap().count(), 1);
    }

    #[test]
    fn timing_log_has_one_span_per_evaluation() {
        let temp = TempRoot::new().unwrap();
        let log = tempfile::tempdir().unwrap();
        let log = log.path().join("timing.log");
        let predicate = Predicate::new(config(vec!["-c".into(), "true".into()], "x")).unwrap();
        let oracle = PythonOracle::new(&predicate, &temp, "p.py".into(), "/bin/true".into())
            .with_timing_log(Some(log.clone()));
        let cancel = CancelFlag::new();
        for _ in 0..3 {
            oracle.evaluate(&"x = 1\n".to_owned(), &cancel).unwrap();
        }
        oracle.log_cpu_time().unwrap();
        let text = std::fs::read_to_string(&log).unwrap();
        let cpu = text.lines().last().unwrap();
        assert!(cpu.starts_with("cpu "), "{text}");
        let spans: Vec<(f64, f64)> = text
            .lines()
            .filter(|l| !l.starts_with("cpu "))
            .map(|l| {
                let (a, b) = l.split_once(' ').unwrap();
                (a.parse().unwrap(), b.parse().unwrap())
            })
            .collect();
        assert_eq!(spans.len(), 3, "{text}");
        assert!(spans
            .iter()
            .all(|(start, end)| start <= end && *start > 1e9));
    }

    #[test]
    fn digest_and_size() {
        let temp = TempRoot::new().unwrap();
        let predicate = Predicate::new(config(vec![], "x")).unwrap();
        let oracle = PythonOracle::new(&predicate, &temp, "p.py".into(), "/bin/true".into());
        let a = "a = 1\n".to_owned();
        assert_eq!(oracle.digest(&a), oracle.digest(&a.clone()));
        assert_ne!(oracle.digest(&a), oracle.digest(&"a = 2\n".to_owned()));
        assert!(oracle.size(&a) > 0);
        assert!(size_key("a = 1\n") < size_key("a = 1 + 2\n"));
        assert!(size_key("a = 1\n") < size_key("a = 3\n"));
    }
}
