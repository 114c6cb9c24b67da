//! Candidate workspaces, emptied and reused.
//!
//! Every candidate runs in a workspace that holds nothing but the candidate file. Creating and
//! removing a directory per candidate costs more than a millisecond on a busy ext4 file system
//! (inode allocation scans for recently deleted inodes), more than everything else minrepro does
//! per candidate; creating and removing one file costs a fifth of that. So a workspace is
//! emptied after its run and handed to the next candidate: the next candidate finds the same
//! empty directory a fresh one would be. A workspace that cannot be emptied completely, or whose
//! directory the predicate changed (type or permissions), is dropped (removed as far as possible,
//! and in any case with the reduction's temporary root) and a new one is made.

use std::fs::{self, OpenOptions};
use std::io::Write;
use std::os::unix::fs::{MetadataExt, PermissionsExt};
use std::path::{Path, PathBuf};
use std::sync::Mutex;

use minrepro_engine::TempRoot;

/// The reusable workspaces of one reduction.
pub struct Workspaces<'a> {
    temp: &'a TempRoot,
    idle: Mutex<Vec<Workspace>>,
}

/// One workspace directory (removed when dropped).
pub struct Workspace {
    dir: tempfile::TempDir,
    /// Mode and inode of the directory as created, to notice a predicate's changes.
    identity: (u32, u64),
}

impl Workspace {
    /// The directory.
    pub fn path(&self) -> &Path {
        self.dir.path()
    }
}

impl<'a> Workspaces<'a> {
    /// Workspaces inside `temp`.
    pub fn new(temp: &'a TempRoot) -> Self {
        Workspaces {
            temp,
            idle: Mutex::new(Vec::new()),
        }
    }

    /// An empty workspace holding `bytes` as `file_name`; returns it and the file's path.
    pub fn take(&self, file_name: &str, bytes: &[u8]) -> std::io::Result<(Workspace, PathBuf)> {
        self.take_files(&[(file_name, bytes)])
    }

    /// An empty workspace holding `files` (relative names, `/`-separated, parents made);
    /// returns it and the first file's path (the workspace's own for no file).
    pub fn take_files(&self, files: &[(&str, &[u8])]) -> std::io::Result<(Workspace, PathBuf)> {
        let reused = self.idle.lock().unwrap_or_else(|e| e.into_inner()).pop();
        if let Some(workspace) = reused {
            match write_all(workspace.path(), files) {
                Ok(file) => return Ok((workspace, file)),
                Err(_) => drop(workspace),
            }
        }
        let dir = self.temp.workspace()?;
        let meta = fs::symlink_metadata(dir.path())?;
        let workspace = Workspace {
            dir,
            identity: (meta.mode(), meta.ino()),
        };
        let file = write_all(workspace.path(), files)?;
        Ok((workspace, file))
    }

    /// Empties `workspace` for the next candidate, or drops it when that fails.
    pub fn give_back(&self, workspace: Workspace) {
        if empty(&workspace).is_ok() {
            self.idle
                .lock()
                .unwrap_or_else(|e| e.into_inner())
                .push(workspace);
        }
    }
}

/// Creates every file of `files` below `dir`; returns the first one's path.
fn write_all(dir: &Path, files: &[(&str, &[u8])]) -> std::io::Result<PathBuf> {
    let mut first = None;
    for (name, bytes) in files {
        if let Some(parent) = Path::new(name)
            .parent()
            .filter(|p| !p.as_os_str().is_empty())
        {
            fs::create_dir_all(dir.join(parent))?;
        }
        let path = write_new(dir, name, bytes)?;
        first.get_or_insert(path);
    }
    Ok(first.unwrap_or_else(|| dir.to_path_buf()))
}

/// Creates `dir/name` (which must not exist) with `bytes`.
fn write_new(dir: &Path, name: &str, bytes: &[u8]) -> std::io::Result<PathBuf> {
    let path = dir.join(name);
    let mut file = OpenOptions::new()
        .write(true)
        .create_new(true)
        .open(&path)?;
    file.write_all(bytes)?;
    Ok(path)
}

/// Removes everything inside the workspace; `Err` if anything is left or the directory itself
/// is no longer the one created.
fn empty(workspace: &Workspace) -> std::io::Result<()> {
    let path = workspace.path();
    let changed = || std::io::Error::other("the workspace directory was changed");
    let meta = fs::symlink_metadata(path)?;
    if !meta.is_dir() || (meta.mode(), meta.ino()) != workspace.identity {
        return Err(changed());
    }
    for entry in fs::read_dir(path)? {
        let entry = entry?;
        if entry.file_type()?.is_dir() {
            // A predicate may leave directories it made unreadable or unwritable.
            make_removable(&entry.path());
            fs::remove_dir_all(entry.path())?;
        } else {
            fs::remove_file(entry.path())?;
        }
    }
    if fs::read_dir(path)?.next().is_some() {
        return Err(changed());
    }
    Ok(())
}

/// Gives the owner full access to `dir` and the directories below it (best effort).
fn make_removable(dir: &Path) {
    let Ok(meta) = fs::symlink_metadata(dir) else {
        return;
    };
    if !meta.is_dir() {
        return;
    }
    if meta.permissions().mode() & 0o700 != 0o700 {
        let _ = fs::set_permissions(dir, fs::Permissions::from_mode(0o700));
    }
    if let Ok(entries) = fs::read_dir(dir) {
        for entry in entries.flatten() {
            if entry.file_type().is_ok_and(|t| t.is_dir()) {
                make_removable(&entry.path());
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn names(dir: &Path) -> Vec<String> {
        let mut names: Vec<String> = fs::read_dir(dir)
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        names.sort();
        names
    }

    /// Takes a workspace for `x = 1`, lets `leave` change it (given its directory and its
    /// file), gives it back and takes one for `next`, which must hold only `p.py` with `next`.
    /// Whether the second is the first directory again, and whether the first still exists.
    fn take_again(leave: impl FnOnce(&Path, &Path), next: &str) -> (bool, bool) {
        let temp = TempRoot::new().unwrap();
        let workspaces = Workspaces::new(&temp);
        let (workspace, file) = workspaces.take("p.py", b"x = 1\n").unwrap();
        let first = workspace.path().to_path_buf();
        leave(&first, &file);
        workspaces.give_back(workspace);
        let (workspace, file) = workspaces.take("p.py", next.as_bytes()).unwrap();
        assert_eq!(names(workspace.path()), vec!["p.py"]);
        assert_eq!(fs::read_to_string(&file).unwrap(), next);
        let reused = workspace.path() == first;
        workspaces.give_back(workspace);
        (reused, first.exists())
    }

    #[test]
    fn a_reused_workspace_holds_only_the_new_candidate() {
        // What a predicate might leave behind: files, a directory it made read-only, a symlink.
        let leave = |first: &Path, file: &Path| {
            fs::write(first.join("junk.txt"), "junk").unwrap();
            fs::create_dir_all(first.join("d/e")).unwrap();
            fs::write(first.join("d/e/f"), "f").unwrap();
            fs::set_permissions(first.join("d"), fs::Permissions::from_mode(0o500)).unwrap();
            std::os::unix::fs::symlink("/etc/passwd", first.join("link")).unwrap();
            fs::write(file, "modified").unwrap();
        };
        assert_eq!(
            take_again(leave, "y = 2\n"),
            (true, true),
            "the workspace is reused"
        );
        assert!(fs::metadata("/etc/passwd").is_ok());
    }

    #[test]
    fn a_changed_workspace_is_replaced() {
        let leave = |first: &Path, _: &Path| {
            let mode = fs::metadata(first).unwrap().permissions().mode() & 0o777;
            fs::set_permissions(first, fs::Permissions::from_mode(mode ^ 0o005)).unwrap();
        };
        // Another directory, and the dropped one is removed.
        assert_eq!(take_again(leave, "x = 1\n"), (false, false));
    }
}
