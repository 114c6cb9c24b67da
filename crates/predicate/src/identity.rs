//! The files a verdict depends on: the predicate executable, regular-file arguments and declared
//! dependencies, identified by absolute path, content digest and mode.

use std::io::Read;
use std::os::unix::fs::MetadataExt;
use std::path::{Path, PathBuf};
use std::sync::Mutex;

use serde::{Deserialize, Serialize};

use crate::error::{ExecutableError, IdentityError};

/// Identity of one file as recorded in cache keys and logs.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct FileIdentity {
    /// Absolute path as used.
    pub path: PathBuf,
    /// blake3 of the content, hex.
    pub blake3: String,
    /// Permission bits (`st_mode & 0o7777`).
    pub mode: u32,
}

/// Cheap metadata of a file that any write, truncation, mode change, new link or replacement
/// changes: compared to skip re-reading a file that did not change.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct FileStamp {
    /// Device.
    pub dev: u64,
    /// Inode.
    pub ino: u64,
    /// Size in bytes.
    pub size: u64,
    /// `st_mode` (type and permission bits).
    pub mode: u32,
    /// Hard links.
    pub nlink: u64,
    /// Modification time (seconds, nanoseconds).
    pub mtime: (i64, i64),
    /// Status change time (seconds, nanoseconds).
    pub ctime: (i64, i64),
}

impl FileStamp {
    /// The stamp of `path`, following a final symbolic link.
    pub fn of(path: &Path) -> std::io::Result<FileStamp> {
        Ok(Self::from_metadata(&std::fs::metadata(path)?))
    }

    /// The stamp of `path` itself (a symbolic link is not followed).
    pub fn of_link(path: &Path) -> std::io::Result<FileStamp> {
        Ok(Self::from_metadata(&std::fs::symlink_metadata(path)?))
    }

    fn from_metadata(m: &std::fs::Metadata) -> FileStamp {
        FileStamp {
            dev: m.dev(),
            ino: m.ino(),
            size: m.size(),
            mode: m.mode(),
            nlink: m.nlink(),
            mtime: (m.mtime(), m.mtime_nsec()),
            ctime: (m.ctime(), m.ctime_nsec()),
        }
    }
}

/// blake3 of `fields` joined by NUL bytes: one digest of several strings, none of which holds
/// a NUL, so that no two lists of fields give the same bytes.
pub fn digest_fields(fields: &[&[u8]]) -> blake3::Hash {
    let mut hasher = blake3::Hasher::new();
    for (index, field) in fields.iter().enumerate() {
        if index > 0 {
            hasher.update(b"\0");
        }
        hasher.update(field);
    }
    hasher.finalize()
}

/// blake3 of a file's content, hex.
pub fn digest_file(path: &Path) -> std::io::Result<String> {
    let mut file = std::fs::File::open(path)?;
    let mut hasher = blake3::Hasher::new();
    let mut buffer = vec![0u8; 256 * 1024];
    loop {
        let n = file.read(&mut buffer)?;
        if n == 0 {
            break;
        }
        hasher.update(&buffer[..n]);
    }
    Ok(hasher.finalize().to_hex().to_string())
}

impl FileIdentity {
    /// Reads the identity of a regular file.
    pub fn of(path: &Path) -> Result<Self, IdentityError> {
        let unreadable = |source| IdentityError::Unreadable {
            path: path.to_path_buf(),
            source,
        };
        let meta = std::fs::metadata(path).map_err(unreadable)?;
        if !meta.is_file() {
            return Err(IdentityError::NotRegular(path.to_path_buf()));
        }
        let blake3 = digest_file(path).map_err(unreadable)?;
        Ok(FileIdentity {
            path: path.to_path_buf(),
            blake3,
            mode: meta.mode() & 0o7777,
        })
    }
}

/// A set of identities that can be re-checked cheaply before and after every run.
#[derive(Debug)]
pub struct IdentitySet {
    files: Vec<FileIdentity>,
    stamps: Mutex<Vec<Option<FileStamp>>>,
}

impl IdentitySet {
    /// Records the identity of every path (deduplicated, order kept).
    pub fn new(paths: &[PathBuf]) -> Result<Self, IdentityError> {
        let mut files: Vec<FileIdentity> = Vec::new();
        let mut stamps = Vec::new();
        for path in paths {
            if files.iter().any(|f| &f.path == path) {
                continue;
            }
            let before = FileStamp::of(path).ok();
            files.push(FileIdentity::of(path)?);
            stamps.push(before);
        }
        Ok(IdentitySet {
            files,
            stamps: Mutex::new(stamps),
        })
    }

    /// The recorded identities.
    pub fn files(&self) -> &[FileIdentity] {
        &self.files
    }

    /// Whether `path` is one of the identity files.
    pub fn contains(&self, path: &Path) -> bool {
        self.files.iter().any(|f| f.path == path)
    }

    /// Checks that every file still has its recorded identity; re-hashes only files whose
    /// metadata changed. Returns a message naming the first changed file.
    pub fn verify(&self) -> Result<(), IdentityError> {
        let mut stamps = self.stamps.lock().unwrap_or_else(|e| e.into_inner());
        for (file, known) in self.files.iter().zip(stamps.iter_mut()) {
            let now = FileStamp::of(&file.path).map_err(|source| IdentityError::Gone {
                path: file.path.clone(),
                source,
            })?;
            if *known == Some(now) {
                continue;
            }
            let current =
                FileIdentity::of(&file.path).map_err(|source| IdentityError::Changed {
                    path: file.path.clone(),
                    source: Box::new(source),
                })?;
            if current != *file {
                let what = if current.blake3 != file.blake3 {
                    "content"
                } else {
                    "mode"
                };
                return Err(IdentityError::Differs {
                    path: file.path.clone(),
                    what,
                });
            }
            *known = Some(now);
        }
        Ok(())
    }
}

/// Resolves an executable name through `PATH` (names with a `/` are taken as paths) to an
/// absolute path of an executable regular file.
pub fn resolve_executable(name: &str) -> Result<PathBuf, ExecutableError> {
    if name.is_empty() {
        return Err(ExecutableError::Empty);
    }
    let path_error = |name: &str| {
        let name = name.to_owned();
        move |source| ExecutableError::Path { name, source }
    };
    let candidates: Vec<PathBuf> = if name.contains('/') {
        vec![std::path::absolute(name).map_err(path_error(name))?]
    } else {
        let path = std::env::var_os("PATH").unwrap_or_default();
        std::env::split_paths(&path)
            .filter(|dir| !dir.as_os_str().is_empty())
            .map(|dir| dir.join(name))
            .collect()
    };
    for candidate in &candidates {
        if let Ok(meta) = std::fs::metadata(candidate) {
            if meta.is_file() && meta.mode() & 0o111 != 0 {
                let absolute = std::path::absolute(candidate)
                    .map_err(path_error(&candidate.display().to_string()))?;
                return Ok(absolute);
            }
        }
    }
    if name.contains('/') {
        match std::fs::metadata(&candidates[0]) {
            Ok(meta) if !meta.is_file() => Err(ExecutableError::NotRegular(name.to_owned())),
            Ok(_) => Err(ExecutableError::NotExecutable(name.to_owned())),
            Err(source) => Err(ExecutableError::NotFound {
                name: name.to_owned(),
                source,
            }),
        }
    } else {
        Err(ExecutableError::NotOnPath(name.to_owned()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::os::unix::fs::PermissionsExt;

    #[test]
    fn verify_detects_content_and_mode_changes() {
        let (_dir, path) = minrepro_testkit::temp_file("dep", "one");
        let set = IdentitySet::new(std::slice::from_ref(&path)).unwrap();
        set.verify().unwrap();
        std::fs::write(&path, "two").unwrap();
        assert!(matches!(
            set.verify().unwrap_err(),
            IdentityError::Differs {
                what: "content",
                ..
            }
        ));
        std::fs::write(&path, "one").unwrap();
        set.verify().unwrap();
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755)).unwrap();
        let error = set.verify().unwrap_err();
        assert!(error
            .to_string()
            .ends_with(" (mode differs); aborting so that no stale verdict is used"));
        std::fs::remove_file(&path).unwrap();
        assert!(set.verify().is_err());
    }

    #[test]
    fn resolves_through_path_and_reports_missing() {
        let sh = resolve_executable("sh").unwrap();
        assert!(sh.is_absolute());
        assert_eq!(
            resolve_executable("definitely-not-a-command-xyz")
                .unwrap_err()
                .to_string(),
            "predicate executable definitely-not-a-command-xyz not found on PATH"
        );
        assert!(matches!(
            resolve_executable("/").unwrap_err(),
            ExecutableError::NotRegular(_)
        ));
    }
}
