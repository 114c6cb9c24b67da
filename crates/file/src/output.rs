//! Where the result of `minrepro file` goes ([`Output`]: one file, a directory, or the inputs in
//! place), which existing paths it may replace, and writing an accepted tree there.

use std::path::{Path, PathBuf};

use minrepro_driver::{check_output_location, write_atomically, RunError};

use crate::args::FileArgs;
use crate::tree::{File, Origin, Tree};

/// Where accepted trees go.
pub(crate) enum Output {
    /// One file.
    File(PathBuf),
    /// A directory holding the tree under its relative names.
    Dir(PathBuf),
    /// Back over the inputs (originals kept as `.orig`).
    InPlace(Vec<Origin>),
}

impl Output {
    /// Writes `tree` (each file atomically) and removes what it no longer holds.
    pub(crate) fn write(&self, tree: &Tree, all: &[Origin]) -> std::io::Result<()> {
        match self {
            Output::File(path) => {
                let file = tree.files.first().map(File::bytes).unwrap_or_default();
                write_atomically(path, &file)
            }
            Output::Dir(dir) => place(tree, all, |name| Some(dir.join(name))),
            Output::InPlace(origins) => place(tree, all, |name| {
                origins
                    .iter()
                    .find(|o| o.name == name)
                    .map(|o| o.path.clone())
            }),
        }
    }

    pub(crate) fn describe(&self) -> String {
        match self {
            Output::File(path) | Output::Dir(path) => path.display().to_string(),
            Output::InPlace(origins) => match origins.as_slice() {
                [one] => format!("{} (in place)", one.path.display()),
                _ => format!("{} files in place", origins.len()),
            },
        }
    }
}

/// Writes every file of `tree` where `path_of` puts it and removes the files of `all` it lacks.
fn place(
    tree: &Tree,
    all: &[Origin],
    path_of: impl Fn(&str) -> Option<PathBuf>,
) -> std::io::Result<()> {
    for file in &tree.files {
        if let Some(path) = path_of(&file.name) {
            if let Some(parent) = path.parent() {
                std::fs::create_dir_all(parent)?;
            }
            write_atomically(&path, &file.bytes())?;
        }
    }
    for origin in all {
        if !tree.files.iter().any(|f| f.name == origin.name) {
            if let Some(path) = path_of(&origin.name) {
                match std::fs::remove_file(&path) {
                    Err(e) if e.kind() != std::io::ErrorKind::NotFound => return Err(e),
                    _ => {}
                }
            }
        }
    }
    Ok(())
}

/// Checks the output choice and returns it (`resumed`: a killed or interrupted run with the
/// same cache wrote the output, which may then be replaced as if with --force).
pub(crate) fn output(
    args: &FileArgs,
    inputs: &[PathBuf],
    origins: &[Origin],
    resumed: bool,
) -> Result<Output, RunError> {
    if args.in_place {
        for origin in origins {
            let backup = orig_path(&origin.path);
            if std::fs::symlink_metadata(&backup).is_ok() {
                return Err(RunError::OutputExists {
                    path: backup,
                    reason: "--in-place keeps the original there and never overwrites it".into(),
                });
            }
        }
        return Ok(Output::InPlace(origins.to_vec()));
    }
    let Some(path) = &args.output else {
        return Err(RunError::Usage(
            "say where the result goes: -o PATH (a new file or directory) or --in-place".into(),
        ));
    };
    let single = inputs.len() == 1 && origins.len() == 1 && inputs[0] == origins[0].path;
    if std::fs::symlink_metadata(path).is_ok() {
        check_replaceable(path, single, args.force || resumed, origins)?;
    } else {
        check_output_location(path).map_err(|e| RunError::Failed(e.to_string()))?;
    }
    Ok(if single {
        Output::File(path.clone())
    } else {
        Output::Dir(path.clone())
    })
}

/// Whether the existing `path` may be replaced by the result: only with `force`, never an input
/// or a directory holding one, a file for a single input, and for several a directory holding
/// nothing but regular files named as the inputs are (an earlier result of the same inputs), so
/// that a mistyped -o never replaces or mixes into unrelated files.
fn check_replaceable(
    path: &Path,
    single: bool,
    force: bool,
    origins: &[Origin],
) -> Result<(), RunError> {
    let exists = |reason: String| RunError::OutputExists {
        path: path.to_path_buf(),
        reason,
    };
    if !force {
        return Err(exists(
            "choose another -o, remove it, or pass --force to replace it".into(),
        ));
    }
    let resolved = minrepro_driver::resolve_for_comparison(path);
    if origins
        .iter()
        .any(|o| minrepro_driver::resolve_for_comparison(&o.path).starts_with(&resolved))
    {
        return Err(exists(
            "it is an input or holds one, and inputs are never replaced (--in-place keeps the originals)"
                .into(),
        ));
    }
    let meta = std::fs::metadata(path).map_err(|e| exists(format!("cannot read it: {e}")))?;
    if single {
        return match meta.is_file() {
            true => Ok(()),
            false => Err(exists(
                "it is not a regular file, and the result of one input file is a file".into(),
            )),
        };
    }
    if !meta.is_dir() {
        return Err(exists(
            "it is not a directory, and the result of several files is a directory".into(),
        ));
    }
    let names: std::collections::BTreeSet<&str> = origins.iter().map(|o| o.name.as_str()).collect();
    match foreign_file(path, path, &names) {
        None => Ok(()),
        Some(found) => Err(exists(format!(
            "--force replaces only a directory holding files of the inputs' names (an earlier \
             result), and it holds {}",
            found.display()
        ))),
    }
}

/// The first entry below `dir` that is not a regular file named (relative to `root`) as one of
/// `names`, directories aside.
fn foreign_file(
    root: &Path,
    dir: &Path,
    names: &std::collections::BTreeSet<&str>,
) -> Option<PathBuf> {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return Some(dir.to_path_buf());
    };
    for entry in entries {
        let Ok(entry) = entry else {
            return Some(dir.to_path_buf());
        };
        let path = entry.path();
        match entry.file_type() {
            Ok(kind) if kind.is_dir() => {
                if let Some(found) = foreign_file(root, &path, names) {
                    return Some(found);
                }
            }
            Ok(kind) if kind.is_file() => {
                let relative = path.strip_prefix(root).unwrap_or(&path);
                if !names.contains(relative.to_string_lossy().as_ref()) {
                    return Some(path);
                }
            }
            _ => return Some(path),
        }
    }
    None
}

/// `FILE.orig`.
pub(crate) fn orig_path(path: &Path) -> PathBuf {
    let mut name = path.as_os_str().to_owned();
    name.push(".orig");
    PathBuf::from(name)
}

/// The output file and text when the case is one text file whose name has no directory (the
/// text layer reduces it in a workspace holding just that file).
pub(crate) fn single_text<'t>(output: &Output, tree: &'t Tree) -> Option<(PathBuf, &'t str)> {
    let [file] = tree.files.as_slice() else {
        return None;
    };
    let path = match output {
        Output::File(path) => path.clone(),
        Output::InPlace(origins) => origins[0].path.clone(),
        Output::Dir(_) => return None,
    };
    (!file.name.contains('/'))
        .then_some(())
        .and(file.text().map(|text| (path, text)))
}
