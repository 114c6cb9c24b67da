//! The private temporary directory of a reduction, where candidate workspaces live.

use std::path::Path;

use minrepro_predicate::guardian;

/// The private temporary directory of one reduction; removed (with every candidate workspace in
/// it) when dropped, on success, error, panic unwinding and interruption alike.
#[derive(Debug)]
pub struct TempRoot {
    dir: tempfile::TempDir,
}

impl TempRoot {
    /// Creates `minrepro-*` under the system temporary directory (and has the guardian, if any,
    /// watch it).
    pub fn new() -> std::io::Result<Self> {
        Self::new_in(None)
    }

    /// Like [`TempRoot::new`], inside `work_dir` when given (`--work-dir`: a directory the
    /// cluster's nodes share) instead of the system temporary directory.
    pub fn new_in(work_dir: Option<&Path>) -> std::io::Result<Self> {
        if let Some(dir) = work_dir {
            guardian::guard_work_dir(dir);
        }
        let base = match work_dir {
            Some(dir) => std::path::absolute(dir)?,
            None => std::path::absolute(std::env::temp_dir())?,
        };
        if base.to_str().is_none() {
            // Placeholders hand candidate paths to the predicate as text: a lossy path would name
            // files that do not exist, and every candidate (the original too) would look
            // uninteresting.
            return Err(std::io::Error::new(
                std::io::ErrorKind::InvalidInput,
                format!(
                    "the temporary directory {} is not valid UTF-8; use a UTF-8 path (TMPDIR, --work-dir)",
                    base.display()
                ),
            ));
        }
        let dir = tempfile::Builder::new()
            .prefix(guardian::TEMP_PREFIX)
            .tempdir_in(base)?;
        // Should minrepro be killed outright, its guardian removes the directory.
        guardian::guard_directory(dir.path());
        Ok(TempRoot { dir })
    }

    /// Its path.
    pub fn path(&self) -> &Path {
        self.dir.path()
    }

    /// A fresh, empty workspace directory inside it, removed when the returned guard drops.
    pub fn workspace(&self) -> std::io::Result<tempfile::TempDir> {
        tempfile::Builder::new()
            .prefix("ws-")
            .tempdir_in(self.dir.path())
    }
}
