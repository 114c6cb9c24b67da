//! The [`Oracle`] of one text file: a candidate is its text, digested with blake3, measured by the
//! [`Language`], and judged by writing it (in the language's encoding) into an empty workspace
//! (see [`Workspaces`](crate::Workspaces)) and running the predicate there with the placeholders
//! `{file}`, `{workspace}` and any the front end adds.
//!
//! For the engine benchmark (bench/engine), `MINREPRO_TIMING_LOG=FILE` makes the oracle append
//! one line `START END` (seconds since the epoch) per predicate evaluation to FILE: from just
//! before the predicate is launched to just after its verdict, so that the benchmark can
//! subtract the time spent in predicates from the wall time without a timing wrapper (whose own
//! launch would count as engine time). [`TextOracle::log_cpu_time`] adds a last line
//! `cpu USER SYS`: minrepro's own processor seconds (all its threads, no child processes), a
//! figure that other work on a shared machine does not inflate.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::time::{SystemTime, UNIX_EPOCH};

use crate::language::Language;
use crate::rejudge::{Rejudge, RejudgeCounts, Rejudged};
use crate::sizes::Sizes;
use crate::workspace::Workspaces;
use minrepro_engine::{Oracle, TempRoot};
use minrepro_predicate::{
    CancelFlag, DirectExecutor, EvalError, Executor, Outcome, Predicate, Status,
};

/// Judges candidate texts of language `L`.
pub struct TextOracle<'a, L> {
    language: &'a L,
    predicate: &'a Predicate,
    executor: &'a dyn Executor,
    workspaces: Workspaces<'a>,
    file_name: String,
    /// Placeholders besides `{file}` and `{workspace}` (e.g. `{python}`), with their values.
    placeholders: Vec<(String, String)>,
    /// `MINREPRO_TIMING_LOG`, if set (see the module documentation).
    timing_log: Option<PathBuf>,
    /// Sizes already measured (e.g. by the candidates' validity checks).
    sizes: Option<&'a Sizes>,
    /// When a candidate that timed out is judged once more, at a longer limit.
    rejudge: Rejudge,
    /// What re-judging did so far.
    rejudged: RejudgeCounts,
}

impl<'a, L: Language> TextOracle<'a, L> {
    /// An oracle writing candidates as `file_name` into workspaces under `temp`.
    pub fn new(
        language: &'a L,
        predicate: &'a Predicate,
        temp: &'a TempRoot,
        file_name: String,
    ) -> Self {
        TextOracle {
            language,
            predicate,
            executor: &DirectExecutor,
            workspaces: Workspaces::new(temp),
            file_name,
            placeholders: Vec::new(),
            timing_log: std::env::var_os("MINREPRO_TIMING_LOG").map(PathBuf::from),
            sizes: None,
            rejudge: Rejudge::Never,
            rejudged: RejudgeCounts::default(),
        }
    }

    /// Runs a candidate that timed out once more when `when` says so (at a longer limit, at
    /// most the predicate's full timeout), and takes that verdict.
    pub fn with_rejudge(mut self, when: Rejudge) -> Self {
        self.rejudge = when;
        self
    }

    /// What re-judging did so far.
    pub fn rejudged(&self) -> Rejudged {
        self.rejudged.get()
    }

    /// Answers [`Oracle::size`] from `sizes` when it knows the text.
    pub fn with_sizes(mut self, sizes: &'a Sizes) -> Self {
        self.sizes = Some(sizes);
        self
    }

    /// Adds the placeholder `{name}` standing for `value`.
    pub fn with_placeholder(mut self, name: &str, value: &str) -> Self {
        self.placeholders.push((name.to_owned(), value.to_owned()));
        self
    }

    /// Appends the span of every predicate evaluation to `log` (see the module documentation;
    /// [`TextOracle::new`] takes it from `MINREPRO_TIMING_LOG`).
    pub fn with_timing_log(mut self, log: Option<PathBuf>) -> Self {
        self.timing_log = log;
        self
    }

    /// Runs candidates with `executor` (e.g. the runner backend) instead of direct children.
    pub fn with_executor(mut self, executor: &'a dyn Executor) -> Self {
        self.executor = executor;
        self
    }
}

impl<L: Language> Oracle<String> for TextOracle<'_, L> {
    fn digest(&self, case: &String) -> String {
        blake3::hash(case.as_bytes()).to_hex().to_string()
    }

    fn size(&self, case: &String) -> u64 {
        let known = self.sizes.and_then(|sizes| sizes.get(case));
        known.unwrap_or_else(|| self.language.size(case)) as u64
    }

    /// Sizes tie by bytes (see `candidate`).
    fn bytes(&self, case: &String) -> Option<u64> {
        Some(case.len() as u64)
    }

    fn evaluate(&self, case: &String, cancel: &CancelFlag) -> Result<Outcome, EvalError> {
        let predicate = self.predicate;
        let outcome = self.run(predicate.run_limit(), case, cancel)?;
        if outcome.status != Status::Timeout {
            return Ok(outcome);
        }
        let limit = self
            .rejudge
            .limit(predicate.run_limit(), predicate.full_timeout());
        let Some(limit) = limit else {
            return Ok(outcome);
        };
        let again = self.run(limit, case, cancel)?;
        self.rejudged.count(limit, again.status);
        Ok(again)
    }
}

impl<L: Language> TextOracle<'_, L> {
    /// One judgement of `case`, each run cut at `limit`.
    fn run(
        &self,
        limit: std::time::Duration,
        case: &str,
        cancel: &CancelFlag,
    ) -> Result<Outcome, EvalError> {
        let bytes = self.language.encode(case).map_err(|e| {
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
        let lookup = |name: &str| match name {
            "file" => Some(file_text.clone()),
            "workspace" => Some(workspace_text.clone()),
            _ => self
                .placeholders
                .iter()
                .find(|(n, _)| n == name)
                .map(|(_, v)| v.clone()),
        };
        let started = SystemTime::now();
        let outcome =
            self.predicate
                .evaluate_within(limit, self.executor, workspace.path(), &lookup, cancel);
        let ended = SystemTime::now();
        self.workspaces.give_back(workspace);
        if let Some(log) = &self.timing_log {
            log_span(log, started, ended)?;
        }
        outcome
    }
}

impl<L> TextOracle<'_, L> {
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
    use crate::testlang::Lines;
    use minrepro_predicate::{Acceptance, PredicateConfig, Status};

    const LANG: Lines = Lines {
        probdd: false,
        levels: false,
        growth: crate::spec::Growth::Never,
        skip_failed: false,
        confirm: false,
    };

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
            min_interesting: None,
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
            "cat \"$0\"; basename \"$0\"; echo \"$1\"".into(),
            "{file}".into(),
            "{python}".into(),
        ];
        let predicate = Predicate::new(config(args, "needle")).unwrap();
        let oracle = TextOracle::new(&LANG, &predicate, &temp, "prog.py".into())
            .with_placeholder("python", "/bin/true");
        let cancel = CancelFlag::new();
        let hit = oracle
            .evaluate(&"needle = 1\n".to_owned(), &cancel)
            .unwrap();
        assert_eq!(hit.status, Status::Interesting);
        assert!(hit.last_run.stdout.head.contains("prog.py"));
        assert!(hit.last_run.stdout.head.contains("/bin/true"));
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
        let oracle = TextOracle::new(&LANG, &predicate, &temp, "p.py".into())
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
        let oracle = TextOracle::new(&LANG, &predicate, &temp, "p.py".into());
        let a = "a = 1\n".to_owned();
        assert_eq!(oracle.digest(&a), oracle.digest(&a.clone()));
        assert_ne!(oracle.digest(&a), oracle.digest(&"a = 2\n".to_owned()));
        assert_eq!(oracle.size(&"a\nb\n".to_owned()), 2);
        // A size the candidate's check already counted is taken as it is, not measured again.
        let sizes = crate::Sizes::default();
        sizes.record("a\nb\n", 7);
        let oracle = oracle.with_sizes(&sizes);
        assert_eq!(oracle.size(&"a\nb\n".to_owned()), 7);
        assert_eq!(oracle.size(&"a\n".to_owned()), 1);
    }
}
