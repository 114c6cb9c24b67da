//! Atomic publication: nothing half-written ever appears at an output path.

use std::path::{Path, PathBuf};

pub use minrepro_cache::write_atomically;

fn parent_of(output: &Path) -> PathBuf {
    match output.parent() {
        Some(p) if !p.as_os_str().is_empty() => p.to_path_buf(),
        _ => PathBuf::from("."),
    }
}

/// Why an output directory cannot be, or was not, published.
#[derive(Debug, thiserror::Error)]
pub enum PublishError<E = std::convert::Infallible> {
    /// Something is at the output path already: it is never overwritten.
    #[error("{} already exists; it is never overwritten", .0.display())]
    AlreadyExists(PathBuf),
    /// The output path has no final component (`/`, `..`).
    #[error("--output {} does not name a new directory", .0.display())]
    NotANewDirectory(PathBuf),
    /// The output's parent is not a directory.
    #[error("cannot publish {}: its parent {} is not a directory", output.display(), parent.display())]
    ParentNotDirectory {
        /// The output path.
        output: PathBuf,
        /// Its parent.
        parent: PathBuf,
    },
    /// The output's parent cannot be read.
    #[error("cannot publish {}: its parent directory {}: {source}", output.display(), parent.display())]
    Parent {
        /// The output path.
        output: PathBuf,
        /// Its parent.
        parent: PathBuf,
        /// Why.
        source: std::io::Error,
    },
    /// Nothing can be created next to the output (checked before any work).
    #[error("cannot publish {}: cannot create a directory in {}: {}", output.display(), parent.display(), std::io::Error::from(*kind))]
    NotWritable {
        /// The output path.
        output: PathBuf,
        /// Its parent.
        parent: PathBuf,
        /// What creating a directory there said.
        kind: std::io::ErrorKind,
    },
    /// The staging directory could not be created.
    #[error("cannot create a directory next to {}: {source}", output.display())]
    Staging {
        /// The output path.
        output: PathBuf,
        /// Why.
        source: std::io::Error,
    },
    /// Building the staged contents failed (the caller's error).
    #[error("{0}")]
    Build(E),
    /// The final rename failed.
    #[error("cannot publish {}: {source}", output.display())]
    Rename {
        /// The output path.
        output: PathBuf,
        /// Why.
        source: std::io::Error,
    },
}

/// Checks, before any work is done, that `output` can be published later: it does not exist, its
/// parent is an existing directory, and a staging directory can be created (and removed) there.
/// A reduction that runs for hours must not find out at the end that its result has nowhere to go.
pub fn check_output_location(output: &Path) -> Result<(), PublishError> {
    if std::fs::symlink_metadata(output).is_ok() {
        return Err(PublishError::AlreadyExists(output.to_path_buf()));
    }
    if output.file_name().is_none() {
        return Err(PublishError::NotANewDirectory(output.to_path_buf()));
    }
    let parent = parent_of(output);
    match std::fs::metadata(&parent) {
        Ok(meta) if meta.is_dir() => {}
        Ok(_) => {
            return Err(PublishError::ParentNotDirectory {
                output: output.to_path_buf(),
                parent,
            })
        }
        Err(source) => {
            return Err(PublishError::Parent {
                output: output.to_path_buf(),
                parent,
                source,
            })
        }
    }
    tempfile::Builder::new()
        .prefix(".minrepro-probe-")
        .tempdir_in(&parent)
        .map(drop)
        .map_err(|e| PublishError::NotWritable {
            output: output.to_path_buf(),
            parent,
            kind: e.kind(),
        })
}

/// Builds a directory as a hidden sibling of `output` with `build`, then renames it into place.
/// The rename fails if `output` appeared meanwhile (an existing path is never overwritten); on any
/// failure the sibling is removed and nothing appears at `output`.
pub fn publish_directory<E>(
    output: &Path,
    build: impl FnOnce(&Path) -> Result<(), E>,
) -> Result<(), PublishError<E>> {
    let parent = parent_of(output);
    if std::fs::symlink_metadata(output).is_ok() {
        return Err(PublishError::AlreadyExists(output.to_path_buf()));
    }
    let name = output
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let staging = tempfile::Builder::new()
        .prefix(&format!(".{name}.minrepro-"))
        .tempdir_in(&parent)
        .map_err(|source| PublishError::Staging {
            output: output.to_path_buf(),
            source,
        })?;
    build(staging.path()).map_err(PublishError::Build)?;
    sync_tree(staging.path());
    rename_no_replace(staging.path(), output).map_err(|source| {
        if source.kind() == std::io::ErrorKind::AlreadyExists {
            PublishError::AlreadyExists(output.to_path_buf())
        } else {
            PublishError::Rename {
                output: output.to_path_buf(),
                source,
            }
        }
    })?;
    // The staging directory now lives at `output`; keep TempDir from deleting it.
    let _ = staging.keep();
    if let Ok(dir) = std::fs::File::open(&parent) {
        let _ = dir.sync_all();
    }
    Ok(())
}

fn sync_tree(dir: &Path) {
    if let Ok(entries) = std::fs::read_dir(dir) {
        for entry in entries.flatten() {
            let path = entry.path();
            if path.is_dir() {
                sync_tree(&path);
            } else if let Ok(file) = std::fs::File::open(&path) {
                let _ = file.sync_all();
            }
        }
    }
    if let Ok(file) = std::fs::File::open(dir) {
        let _ = file.sync_all();
    }
}

/// `renameat2(RENAME_NOREPLACE)`: atomic, and refuses to replace an existing path.
fn rename_no_replace(from: &Path, to: &Path) -> std::io::Result<()> {
    use std::ffi::CString;
    use std::os::unix::ffi::OsStrExt;
    let from_c = CString::new(from.as_os_str().as_bytes())?;
    let to_c = CString::new(to.as_os_str().as_bytes())?;
    // SAFETY: valid NUL-terminated paths; renameat2 has no other memory effects.
    let rc = unsafe {
        libc::renameat2(
            libc::AT_FDCWD,
            from_c.as_ptr(),
            libc::AT_FDCWD,
            to_c.as_ptr(),
            libc::RENAME_NOREPLACE,
        )
    };
    if rc == 0 {
        return Ok(());
    }
    let error = std::io::Error::last_os_error();
    if error.raw_os_error() == Some(libc::EINVAL) || error.raw_os_error() == Some(libc::ENOSYS) {
        // Filesystems without RENAME_NOREPLACE: link-free fallback, checked just before.
        if std::fs::symlink_metadata(to).is_ok() {
            return Err(std::io::Error::from(std::io::ErrorKind::AlreadyExists));
        }
        return std::fs::rename(from, to);
    }
    Err(error)
}

#[cfg(test)]
mod tests {
    use super::*;
    use minrepro_testkit::temp_path;

    #[test]
    fn publishes_whole_directory_or_nothing() {
        let (dir, out) = temp_path("out");
        publish_directory(&out, |d| std::fs::write(d.join("a"), "1")).unwrap();
        assert_eq!(std::fs::read_to_string(out.join("a")).unwrap(), "1");
        // Existing output is never overwritten.
        let err = publish_directory(&out, |_| Ok::<(), String>(())).unwrap_err();
        assert!(matches!(err, PublishError::AlreadyExists(_)));
        assert_eq!(
            err.to_string(),
            format!("{} already exists; it is never overwritten", out.display())
        );
        // A failing build leaves nothing behind.
        let other = dir.path().join("other");
        let err = publish_directory(&other, |_| Err("boom")).unwrap_err();
        assert!(matches!(err, PublishError::Build("boom")));
        assert!(!other.exists());
        let leftovers: Vec<_> = std::fs::read_dir(dir.path())
            .unwrap()
            .flatten()
            .map(|e| e.file_name())
            .collect();
        assert_eq!(leftovers, vec![std::ffi::OsString::from("out")]);
    }
}
