//! The engine's view of a bundle candidate: digest, size, and evaluation in a fresh workspace.

use minrepro_engine::{Oracle, TempRoot};
use minrepro_predicate::{
    CancelFlag, CapturedStream, EvalError, Outcome, Predicate, RunRecord, Status,
};

use crate::case::BundleCase;
use crate::store::ContentStore;
use crate::workspace::{materialize_linked, placeholder_value};

/// Judges candidates with the user's predicate.
pub struct BundleOracle<'a> {
    predicate: &'a Predicate,
    temp: &'a TempRoot,
    store: &'a ContentStore,
}

impl<'a> BundleOracle<'a> {
    /// An oracle whose workspaces live under `temp`, linked from `store`.
    pub fn new(predicate: &'a Predicate, temp: &'a TempRoot, store: &'a ContentStore) -> Self {
        BundleOracle {
            predicate,
            temp,
            store,
        }
    }
}

fn empty_stream() -> CapturedStream {
    CapturedStream {
        head: String::new(),
        tail: String::new(),
        contains_needle: false,
    }
}

impl Oracle<BundleCase> for BundleOracle<'_> {
    fn digest(&self, case: &BundleCase) -> String {
        let content = case.content_digest();
        match &case.tool_error {
            None => content,
            Some(error) => {
                let fields: [&[u8]; 3] = [b"tool-error", error.as_bytes(), content.as_bytes()];
                minrepro_predicate::digest_fields(&fields)
                    .to_hex()
                    .to_string()
            }
        }
    }

    fn size(&self, case: &BundleCase) -> u64 {
        case.size()
    }

    /// The object whose sections a proposal removes, or the metadata list it shortens (the
    /// object pass's subject is its name already).
    fn item(&self, change: &serde_json::Value) -> Option<String> {
        if let Some(id) = change.get("object_id").and_then(|v| v.as_str()) {
            return Some(format!("object {id}"));
        }
        let path = change.get("path").and_then(|v| v.as_str())?;
        Some(format!("list {path}"))
    }

    fn evaluate(&self, case: &BundleCase, cancel: &CancelFlag) -> Result<Outcome, EvalError> {
        if let Some(error) = &case.tool_error {
            // Rejected without running the predicate; launch errors are never cached.
            return Ok(Outcome {
                status: Status::LaunchError,
                exit_codes: Vec::new(),
                last_run: RunRecord {
                    exit_code: None,
                    stdout: empty_stream(),
                    stderr: empty_stream(),
                    error: Some(format!("tool error: {error}")),
                },
                interesting_runs: None,
            });
        }
        let workspace = self
            .temp
            .workspace()
            .map_err(|e| EvalError::Fatal(format!("cannot create a candidate workspace: {e}")))?;
        // Declared after the workspace, so it is dropped first: the linked files are checked
        // while the workspace still holds its links (removing them would change their ctime).
        let mut lease = self
            .store
            .lease()
            .map_err(|e| EvalError::Fatal(format!("cannot create the content store: {e}")))?;
        materialize_linked(case, workspace.path(), &mut lease)
            .map_err(|e| EvalError::Fatal(format!("cannot write a candidate workspace: {e}")))?;
        let dir = workspace.path().to_path_buf();
        let lookup = |name: &str| {
            placeholder_value(case, &dir, name).map(|p| p.to_string_lossy().into_owned())
        };
        self.predicate.evaluate(&dir, &lookup, cancel)
    }
}
