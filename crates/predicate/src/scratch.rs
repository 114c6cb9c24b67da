//! A private temporary directory for each predicate run.
//!
//! Compilers and test scripts write temporary files into `$TMPDIR` (gcc's `cc*.s`, `mktemp`)
//! and remove them only if they end normally; a cancelled or timed-out run is SIGKILLed as a
//! group before it can. So every run gets its own empty directory as `TMPDIR`, `TMP` and
//! `TEMP`, beside the candidate's workspace (inside minrepro's temporary root, so that the
//! guardian removes it should minrepro be killed outright, and outside the workspace, which
//! holds nothing but the candidate), and the directory is removed after the run, however it
//! ended. Nothing a predicate leaves there reaches the user's `TMPDIR`.

use std::ffi::OsString;
use std::path::{Path, PathBuf};

/// The variables that name the temporary directory (POSIX, and what Python's `tempfile` and
/// Windows-minded tools read).
pub const TEMP_VARS: [&str; 3] = ["TMPDIR", "TMP", "TEMP"];

/// The private temporary directory of one run; removed when dropped.
#[derive(Debug)]
pub(crate) struct RunScratch {
    path: PathBuf,
}

impl RunScratch {
    /// A fresh, empty directory beside `workspace` (`WORKSPACE.tmp`).
    pub fn beside(workspace: &Path) -> std::io::Result<RunScratch> {
        let mut name = workspace
            .file_name()
            .map(|n| n.to_os_string())
            .unwrap_or_else(|| OsString::from("workspace"));
        name.push(".tmp");
        let path = workspace.with_file_name(name);
        // Left by a run whose removal failed: it is ours, and must start empty.
        if path.exists() {
            std::fs::remove_dir_all(&path)?;
        }
        std::fs::create_dir(&path)?;
        Ok(RunScratch { path })
    }

    /// The environment entries that point a run at it.
    pub fn env(&self) -> impl Iterator<Item = (OsString, OsString)> + '_ {
        TEMP_VARS
            .iter()
            .map(|var| (OsString::from(var), self.path.clone().into_os_string()))
    }
}

impl Drop for RunScratch {
    fn drop(&mut self) {
        // A descendant that escaped the group may still write while it is being killed.
        for _ in 0..3 {
            match std::fs::remove_dir_all(&self.path) {
                Err(e) if e.kind() != std::io::ErrorKind::NotFound => {
                    std::thread::sleep(std::time::Duration::from_millis(5));
                }
                _ => return,
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_scratch_directory_is_beside_the_workspace_and_removed() {
        let root = tempfile::tempdir().unwrap();
        let workspace = root.path().join("ws-1");
        std::fs::create_dir(&workspace).unwrap();
        let scratch = RunScratch::beside(&workspace).unwrap();
        let path = root.path().join("ws-1.tmp");
        assert!(path.is_dir());
        std::fs::create_dir_all(path.join("deep/er")).unwrap();
        std::fs::write(path.join("deep/er/cc1.s"), "x").unwrap();
        let vars: Vec<_> = scratch.env().collect();
        assert_eq!(vars.len(), 3);
        assert!(vars.iter().all(|(_, v)| Path::new(v) == path));
        drop(scratch);
        assert!(!path.exists());
        assert!(workspace.is_dir(), "the workspace is its owner's to remove");
    }
}
