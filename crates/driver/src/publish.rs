//! Atomic publication: nothing half-written ever appears at an output path.

use std::path::{Path, PathBuf};

pub use minrepro_cache::write_atomically;

fn parent_of(output: &Path) -> PathBuf {
    match output.parent() {
        Some(p) if !p.as_os_str().is_empty() => p.to_path_buf(),
        _ => PathBuf::from("."),
    }
}

/// Checks, before any work is done, that `output` can be published later: it does not exist, its
/// parent is an existing directory, and a staging directory can be created (and removed) there.
/// A reduction that runs for hours must not find out at the end that its result has nowhere to go.
pub fn check_output_location(output: &Path) -> Result<(), String> {
    if std::fs::symlink_metadata(output).is_ok() {
        return Err(format!(
            "{} already exists; it is never overwritten",
            output.display()
        ));
    }
    if output.file_name().is_none() {
        return Err(format!(
            "--output {} does not name a new directory",
            output.display()
        ));
    }
    let parent = parent_of(output);
    match std::fs::metadata(&parent) {
        Ok(meta) if meta.is_dir() => {}
        Ok(_) => {
            return Err(format!(
                "cannot publish {}: its parent {} is not a directory",
                output.display(),
                parent.display()
            ))
        }
        Err(e) => {
            return Err(format!(
                "cannot publish {}: its parent directory {}: {e}",
                output.display(),
                parent.display()
            ))
        }
    }
    tempfile::Builder::new()
        .prefix(".minrepro-probe-")
        .tempdir_in(&parent)
        .map(drop)
        .map_err(|e| {
            format!(
                "cannot publish {}: cannot create a directory in {}: {}",
                output.display(),
                parent.display(),
                std::io::Error::from(e.kind())
            )
        })
}

/// Builds a directory as a hidden sibling of `output` with `build`, then renames it into place.
/// The rename fails if `output` appeared meanwhile (an existing path is never overwritten); on any
/// failure the sibling is removed and nothing appears at `output`.
pub fn publish_directory(
    output: &Path,
    build: impl FnOnce(&Path) -> Result<(), String>,
) -> Result<(), String> {
    let parent = parent_of(output);
    if std::fs::symlink_metadata(output).is_ok() {
        return Err(format!(
            "{} already exists; it is never overwritten",
            output.display()
        ));
    }
    let name = output
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let staging = tempfile::Builder::new()
        .prefix(&format!(".{name}.minrepro-"))
        .tempdir_in(&parent)
        .map_err(|e| {
            format!(
                "cannot create a directory next to {}: {e}",
                output.display()
            )
        })?;
    build(staging.path())?;
    sync_tree(staging.path());
    rename_no_replace(staging.path(), output).map_err(|e| {
        if e.kind() == std::io::ErrorKind::AlreadyExists {
            format!(
                "{} already exists; it is never overwritten",
                output.display()
            )
        } else {
            format!("cannot publish {}: {e}", output.display())
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

    #[test]
    fn publishes_whole_directory_or_nothing() {
        let dir = tempfile::tempdir().unwrap();
        let out = dir.path().join("out");
        publish_directory(&out, |d| {
            std::fs::write(d.join("a"), "1").map_err(|e| e.to_string())
        })
        .unwrap();
        assert_eq!(std::fs::read_to_string(out.join("a")).unwrap(), "1");
        // Existing output is never overwritten.
        let err = publish_directory(&out, |_| Ok(())).unwrap_err();
        assert!(err.contains("already exists"));
        // A failing build leaves nothing behind.
        let other = dir.path().join("other");
        assert!(publish_directory(&other, |_| Err("boom".into())).is_err());
        assert!(!other.exists());
        let leftovers: Vec<_> = std::fs::read_dir(dir.path())
            .unwrap()
            .flatten()
            .map(|e| e.file_name())
            .collect();
        assert_eq!(leftovers, vec![std::ffi::OsString::from("out")]);
    }
}
