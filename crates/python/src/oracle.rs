//! The [`Oracle`] of Python programs: a candidate is its source text, digested with blake3,
//! measured in Python tokens, and judged by writing it into a fresh workspace and running the
//! predicate there.

use std::path::PathBuf;

use minrepro_engine::{Oracle, TempRoot};
use minrepro_predicate::{CancelFlag, DirectExecutor, EvalError, Executor, Outcome, Predicate};

use crate::encoding::{file_bytes, SourceEncoding};

/// Judges Python source candidates.
pub struct PythonOracle<'a> {
    predicate: &'a Predicate,
    executor: &'a dyn Executor,
    temp: &'a TempRoot,
    file_name: String,
    python: PathBuf,
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
            temp,
            file_name,
            python,
            encoding: None,
        }
    }
}

impl<'a> PythonOracle<'a> {
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
        let workspace = self
            .temp
            .workspace()
            .map_err(|e| EvalError::Fatal(format!("cannot create a candidate workspace: {e}")))?;
        let file = workspace.path().join(&self.file_name);
        let bytes = file_bytes(self.encoding, case).map_err(|e| {
            EvalError::Fatal(format!("cannot write candidate {}: {e}", file.display()))
        })?;
        std::fs::write(&file, &bytes).map_err(|e| {
            EvalError::Fatal(format!("cannot write candidate {}: {e}", file.display()))
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
        self.predicate
            .evaluate_with(self.executor, workspace.path(), &lookup, cancel)
    }
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
        // Workspaces are removed after each evaluation.
        assert_eq!(std::fs::read_dir(temp.path()).unwrap().count(), 0);
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
