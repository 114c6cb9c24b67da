//! The [`Oracle`] of `minrepro file`: a candidate tree is written into a fresh workspace
//! directory under its relative names and the predicate runs there (its working directory), with
//! `{workspace}` naming the directory and `{file}` the first file.

use minrepro_engine::{Oracle, TempRoot};
use minrepro_predicate::{CancelFlag, EvalError, Outcome, Predicate};

use crate::tree::Tree;

/// Judges candidate trees.
pub struct TreeOracle<'a> {
    predicate: &'a Predicate,
    temp: &'a TempRoot,
}

impl<'a> TreeOracle<'a> {
    /// An oracle running `predicate` in workspaces under `temp`.
    pub fn new(predicate: &'a Predicate, temp: &'a TempRoot) -> Self {
        TreeOracle { predicate, temp }
    }
}

impl Oracle<Tree> for TreeOracle<'_> {
    fn digest(&self, case: &Tree) -> String {
        case.digest()
    }

    fn size(&self, case: &Tree) -> u64 {
        case.size().0 as u64
    }

    fn bytes(&self, case: &Tree) -> Option<u64> {
        Some(case.size().1 as u64)
    }

    fn evaluate(&self, case: &Tree, cancel: &CancelFlag) -> Result<Outcome, EvalError> {
        let fatal = |e: std::io::Error| {
            EvalError::Fatal(format!("cannot write a candidate into a workspace: {e}"))
        };
        let workspace = self.temp.workspace().map_err(fatal)?;
        case.write_into(workspace.path()).map_err(fatal)?;
        let dir = workspace.path().to_string_lossy().into_owned();
        let first = case.files.first().map_or_else(String::new, |f| {
            workspace
                .path()
                .join(&f.name)
                .to_string_lossy()
                .into_owned()
        });
        let lookup = |name: &str| match name {
            "file" => Some(first.clone()),
            "workspace" => Some(dir.clone()),
            _ => None,
        };
        self.predicate.evaluate(workspace.path(), &lookup, cancel)
    }
}
