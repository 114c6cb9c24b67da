//! Predicate configuration and repeated runs (what their verdict is: `verdict`).

use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use serde_json::json;

use crate::identity::{resolve_executable, FileIdentity, IdentitySet};
use crate::interrupt::{is_interrupted, CancelFlag};
use crate::launch::{Launch, SLOT_PLACEHOLDER};
use crate::process::{run_child, RawRun, RunEnd, RunRequest};
use crate::scratch::RunScratch;
use crate::template::ArgTemplate;
use crate::verdict::{Outcome, Quorum, RunRecord, Status};

/// A judge of a single run's output beyond exit code and substring (e.g. "same exception type").
#[derive(Clone)]
pub struct OutputCheck {
    /// Stable description; part of the configuration digest and of logs.
    pub description: String,
    /// Returns whether the run still counts as interesting, given its record and the workspace
    /// it ran for (the candidate's files are still there, e.g. to read a line a traceback names).
    pub check: Arc<RunJudge>,
}

/// What an [`OutputCheck`] runs: a run's record and its workspace in, "still interesting" out.
pub type RunJudge = dyn Fn(&RunRecord, &Path) -> bool + Send + Sync;

impl std::fmt::Debug for OutputCheck {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("OutputCheck")
            .field("description", &self.description)
            .finish()
    }
}

/// When a run counts as interesting. All given conditions must hold.
#[derive(Debug, Clone, Default)]
pub struct Acceptance {
    /// Required exit code.
    pub exit_code: Option<i32>,
    /// Required substring in stdout or stderr (case-sensitive).
    pub substring: Option<String>,
    /// Further judge of the run.
    pub output_check: Option<OutputCheck>,
}

/// What the user configured.
#[derive(Debug, Clone)]
pub struct PredicateConfig {
    /// Executable name or path (resolved through PATH once).
    pub executable: String,
    /// Argument template.
    pub args: Vec<String>,
    /// Placeholder names the front end expands.
    pub placeholders: Vec<&'static str>,
    /// Acceptance conditions.
    pub acceptance: Acceptance,
    /// Number of runs per candidate (without `min_interesting`: disagreement ⇒ flaky).
    pub runs: u32,
    /// At least this many of the `runs` must be interesting (runs stop once that is decided);
    /// `None`: every run must agree.
    pub min_interesting: Option<u32>,
    /// Per-run timeout in seconds.
    pub timeout_secs: f64,
    /// Free-form identity strings (environment, configuration).
    pub cache_tags: Vec<String>,
    /// Further files the verdict depends on.
    pub cache_dependencies: Vec<PathBuf>,
    /// Extra environment for every run (part of the configuration digest).
    pub env: Vec<(String, String)>,
}

/// Errors in the configuration, found before anything runs.
#[derive(Debug, thiserror::Error)]
pub enum PredicateError {
    /// A bad setting, with a one-line explanation.
    #[error("{0}")]
    Invalid(String),
    /// The executable does not resolve.
    #[error(transparent)]
    Executable(#[from] crate::error::ExecutableError),
    /// The arguments name an unknown placeholder.
    #[error(transparent)]
    Template(#[from] crate::error::TemplateError),
    /// A file the verdicts depend on cannot be read.
    #[error(transparent)]
    Identity(#[from] crate::error::IdentityError),
}

/// Why an evaluation produced no verdict.
#[derive(Debug, Clone, thiserror::Error, PartialEq, Eq)]
pub enum EvalError {
    /// The evaluation was cancelled (its result no longer matters).
    #[error("cancelled")]
    Cancelled,
    /// SIGINT/SIGTERM arrived.
    #[error("interrupted")]
    Interrupted,
    /// An identity file changed, or a placeholder could not be expanded: the reduction must stop.
    #[error("{0}")]
    Fatal(String),
}

/// Carries out one run of a predicate.
pub trait Executor: Sync {
    /// Runs `request` to its end and cleans up everything it started.
    fn run(&self, request: &RunRequest<'_>) -> RawRun;
}

/// Runs each predicate run as a direct child process.
#[derive(Debug, Clone, Copy, Default)]
pub struct DirectExecutor;

impl Executor for DirectExecutor {
    fn run(&self, request: &RunRequest<'_>) -> RawRun {
        run_child(request)
    }
}

/// A validated, resolved predicate.
#[derive(Debug)]
pub struct Predicate {
    executable: PathBuf,
    template: ArgTemplate,
    acceptance: Acceptance,
    quorum: Quorum,
    timeout: Duration,
    timeout_secs: f64,
    cache_tags: Vec<String>,
    env: Vec<(OsString, OsString)>,
    env_text: Vec<(String, String)>,
    identities: IdentitySet,
    /// Where runs start, when not in the candidate's workspace (see [`Predicate::with_working_dir`]).
    working_dir: Option<PathBuf>,
    digest: String,
    launch: Launch,
}

impl Predicate {
    /// Validates the configuration, resolves the executable and file arguments, and records the
    /// identity of every file the verdict depends on.
    pub fn new(config: PredicateConfig) -> Result<Self, PredicateError> {
        let invalid = |m: String| PredicateError::Invalid(m);
        let quorum = Quorum {
            runs: config.runs,
            min_interesting: config.min_interesting,
        };
        quorum.check().map_err(|e| invalid(e.to_string()))?;
        if !config.timeout_secs.is_finite() || config.timeout_secs <= 0.0 {
            return Err(invalid(format!(
                "--timeout must be a finite number of seconds greater than 0, not {}",
                config.timeout_secs
            )));
        }
        if config.timeout_secs > 1e9 {
            return Err(invalid(format!(
                "--timeout {} is too large",
                config.timeout_secs
            )));
        }
        if config.cache_tags.iter().any(|t| t.is_empty()) {
            return Err(invalid("--cache-tag must not be empty".into()));
        }
        if config.acceptance.substring.as_deref() == Some("") {
            return Err(invalid(
                "the required output substring must not be empty".into(),
            ));
        }
        let executable = resolve_executable(&config.executable)?;
        // Every front end gets `{slot}`: the predicate itself expands it (see crate::launch).
        let mut placeholders = config.placeholders.clone();
        placeholders.push(SLOT_PLACEHOLDER);
        let mut template = ArgTemplate::parse(&config.args, &placeholders)?;
        let mut identity_paths = vec![executable.clone()];
        for index in 0..config.args.len() {
            if !template.is_literal(index) {
                continue;
            }
            let item = &config.args[index];
            if item.is_empty() || !Path::new(item).is_file() {
                continue;
            }
            let absolute =
                std::path::absolute(item).map_err(|e| invalid(format!("{item}: {e}")))?;
            template.replace_literal(index, absolute.to_string_lossy().into_owned());
            identity_paths.push(absolute);
        }
        for dependency in &config.cache_dependencies {
            let absolute = std::path::absolute(dependency)
                .map_err(|e| invalid(format!("{}: {e}", dependency.display())))?;
            if !absolute.is_file() {
                return Err(invalid(format!(
                    "--cache-dependency {} is not an existing regular file",
                    dependency.display()
                )));
            }
            identity_paths.push(absolute);
        }
        let identities = IdentitySet::new(&identity_paths)?;
        let mut predicate = Predicate {
            executable,
            template,
            acceptance: config.acceptance,
            quorum,
            timeout: Duration::from_secs_f64(config.timeout_secs),
            timeout_secs: config.timeout_secs,
            cache_tags: config.cache_tags,
            env: config
                .env
                .iter()
                .map(|(k, v)| (k.into(), v.into()))
                .collect(),
            env_text: config.env,
            identities,
            working_dir: None,
            digest: String::new(),
            launch: Launch::default(),
        };
        predicate.digest = blake3::hash(predicate.describe().to_string().as_bytes())
            .to_hex()
            .to_string();
        Ok(predicate)
    }

    /// Canonical JSON description of everything a verdict depends on (besides the candidate).
    pub fn describe(&self) -> serde_json::Value {
        let mut description = json!({
            "executable": self.executable,
            "arguments": self.template.raw(),
            "interesting_exit_code": self.acceptance.exit_code,
            "required_substring": self.acceptance.substring,
            "output_check": self.acceptance.output_check.as_ref().map(|c| c.description.clone()),
            "predicate_runs": self.quorum.runs,
            "timeout_seconds": self.timeout_secs,
            "cache_tags": self.cache_tags,
            "environment": self.env_text,
            "identity_files": self.identities.files(),
        });
        // Only when given: the default's digest (and every cache keyed by it) stays as it was.
        if let Some(min) = self.quorum.min_interesting {
            description["min_interesting"] = json!(min);
        }
        description
    }

    /// How the runs of a candidate make its verdict.
    pub fn quorum(&self) -> Quorum {
        self.quorum
    }

    /// Lowers the time a run may take to `limit` (never above the configured timeout). The
    /// cache key keeps the configured timeout: timeouts are never cached, and a verdict reached
    /// within the lower limit is the one the configured timeout would have given.
    pub fn with_run_limit(mut self, limit: Duration) -> Self {
        self.timeout = self.timeout.min(limit);
        self
    }

    /// Starts every run in `dir` instead of the candidate's workspace (which `{workspace}` still
    /// names). The front end makes the directory part of the configuration (e.g. a cache tag)
    /// when verdicts may depend on it.
    pub fn with_working_dir(mut self, dir: Option<PathBuf>) -> Self {
        self.working_dir = dir;
        self
    }

    /// Runs are started by `launch` (local or Slurm, slot variables). Neither the launcher nor
    /// the slot is part of [`Predicate::describe`]: a verdict is the candidate's and the
    /// predicate's, wherever it ran.
    pub fn with_launch(mut self, launch: Launch) -> Self {
        self.launch = launch;
        self
    }

    /// How runs are started.
    pub fn launch(&self) -> &Launch {
        &self.launch
    }

    /// The time a run may take before it is killed and counted as a timeout.
    pub fn run_limit(&self) -> Duration {
        self.timeout
    }

    /// The configured timeout (`timeout_secs`), whatever [`Predicate::with_run_limit`] lowered
    /// the run limit to.
    pub fn full_timeout(&self) -> Duration {
        Duration::from_secs_f64(self.timeout_secs)
    }

    /// blake3 of [`Predicate::describe`], hex: the configuration half of every cache key.
    pub fn config_digest(&self) -> &str {
        &self.digest
    }

    /// The resolved executable.
    pub fn executable(&self) -> &Path {
        &self.executable
    }

    /// The argument template (regular-file items already absolute).
    pub fn template(&self) -> &ArgTemplate {
        &self.template
    }

    /// The recorded identity files.
    pub fn identity_files(&self) -> &[FileIdentity] {
        self.identities.files()
    }

    /// Whether `path` is one of the identity files.
    pub fn is_identity_file(&self, path: &Path) -> bool {
        self.identities.contains(path)
    }

    /// Re-checks every identity file.
    pub fn verify_identities(&self) -> Result<(), EvalError> {
        self.identities
            .verify()
            .map_err(|e| EvalError::Fatal(e.to_string()))
    }

    /// Runs the predicate on a materialized candidate: `workspace` is the cwd (unless
    /// [`Predicate::with_working_dir`] chose another) and `lookup` gives each placeholder's value.
    /// Identity files are checked before and after.
    pub fn evaluate(
        &self,
        workspace: &Path,
        lookup: &dyn Fn(&str) -> Option<String>,
        cancel: &CancelFlag,
    ) -> Result<Outcome, EvalError> {
        self.evaluate_with(self.launch.executor(), workspace, lookup, cancel)
    }

    /// Like [`Predicate::evaluate`], with each run carried out by `executor` (e.g. a fork server).
    pub fn evaluate_with(
        &self,
        executor: &dyn Executor,
        workspace: &Path,
        lookup: &dyn Fn(&str) -> Option<String>,
        cancel: &CancelFlag,
    ) -> Result<Outcome, EvalError> {
        self.evaluate_within(self.timeout, executor, workspace, lookup, cancel)
    }

    /// Like [`Predicate::evaluate_with`], each run cut at `limit` instead of the run limit (at
    /// most the configured timeout), e.g. to judge once more a candidate that timed out.
    pub fn evaluate_within(
        &self,
        limit: Duration,
        executor: &dyn Executor,
        workspace: &Path,
        lookup: &dyn Fn(&str) -> Option<String>,
        cancel: &CancelFlag,
    ) -> Result<Outcome, EvalError> {
        let limit = limit.min(self.full_timeout());
        self.verify_identities()?;
        // Held for all runs of this evaluation: no other running evaluation gets its number.
        let slot = self.launch.acquire_slot();
        let slot_text = slot.number().to_string();
        let with_slot = |name: &str| match name {
            SLOT_PLACEHOLDER => Some(slot_text.clone()),
            _ => lookup(name),
        };
        let args: Vec<OsString> = self
            .template
            .expand(&with_slot)
            .map_err(|e| EvalError::Fatal(e.to_string()))?
            .into_iter()
            .map(OsString::from)
            .collect();
        let mut env = self.env.clone();
        env.extend(self.launch.slot_env(slot.number()));
        let workspace_text = workspace.to_string_lossy();
        let mut exit_codes = Vec::new();
        let mut verdicts = Vec::new();
        let mut last = None;
        let mut stop_status = None;
        for made in 1..=self.quorum.runs {
            // Removed when this iteration ends, whatever ended the run (see crate::scratch).
            let scratch = RunScratch::beside(workspace).map_err(|e| {
                EvalError::Fatal(format!("cannot create a run's temporary directory: {e}"))
            })?;
            let mut run_env = env.clone();
            run_env.extend(scratch.env());
            let request = RunRequest {
                program: &self.executable,
                args: &args,
                cwd: self.working_dir.as_deref().unwrap_or(workspace),
                env: &run_env,
                timeout: limit,
                needle: self.acceptance.substring.as_deref().map(str::as_bytes),
                workspace_text: Some(&workspace_text),
                cancel,
                keep_stdout: None,
            };
            let raw = executor.run(&request);
            drop(scratch);
            let (exit_code, error) = match &raw.end {
                RunEnd::Exited(code) => (Some(*code), None),
                RunEnd::Cancelled if is_interrupted() => return Err(EvalError::Interrupted),
                RunEnd::Cancelled => return Err(EvalError::Cancelled),
                RunEnd::TimedOut => {
                    stop_status = Some(Status::Timeout);
                    (
                        None,
                        Some(format!("timed out after {} s", limit.as_secs_f64())),
                    )
                }
                RunEnd::LaunchError(text) => {
                    stop_status = Some(Status::LaunchError);
                    (None, Some(text.clone()))
                }
            };
            let record = RunRecord {
                exit_code,
                stdout: raw.stdout,
                stderr: raw.stderr,
                error,
            };
            exit_codes.push(exit_code);
            verdicts.push(exit_code.is_some() && self.accepts(&record, workspace));
            last = Some(record);
            let interesting = verdicts.iter().filter(|&&v| v).count() as u32;
            if stop_status.is_some() || self.quorum.decided(interesting, made).is_some() {
                break;
            }
        }
        self.verify_identities()?;
        if is_interrupted() {
            return Err(EvalError::Interrupted);
        }
        let status = stop_status.unwrap_or_else(|| self.quorum.status(&exit_codes, &verdicts));
        let counted = self.quorum.min_interesting.is_some() || status == Status::Flaky;
        Ok(Outcome {
            status,
            exit_codes,
            last_run: last.expect("at least one run"),
            interesting_runs: counted.then(|| verdicts.iter().filter(|&&v| v).count() as u32),
        })
    }

    fn accepts(&self, record: &RunRecord, workspace: &Path) -> bool {
        let acceptance = &self.acceptance;
        let code_ok = acceptance
            .exit_code
            .is_none_or(|code| record.exit_code == Some(code));
        let text_ok = acceptance.substring.is_none()
            || record.stdout.contains_needle
            || record.stderr.contains_needle;
        let check_ok = acceptance
            .output_check
            .as_ref()
            .is_none_or(|c| (c.check)(record, workspace));
        code_ok && text_ok && check_ok
    }
}
