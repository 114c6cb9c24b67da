//! The rules `minrepro python` applies around a reduction: where the output and the statistics
//! may go, the candidates' working directory, and how a command is shown.

use std::path::{Path, PathBuf};

use minrepro_driver::RunError;

/// Checks that the output file `output` can be written without touching the source file
/// (`source`, resolved): not the source itself (by resolved path), not a directory, and inside an
/// existing directory.
pub fn check_output(output: &Path, source: &Path) -> Result<(), RunError> {
    let shown = output.display();
    if minrepro_driver::resolve_for_comparison(output) == source {
        return Err(RunError::Failed(format!(
            "the output {shown} is the source file; choose another -o (the source is never modified)"
        )));
    }
    if output.is_dir() {
        return Err(RunError::Failed(format!(
            "the output {shown} is a directory"
        )));
    }
    let parent = match output.parent() {
        Some(p) if !p.as_os_str().is_empty() => p,
        _ => Path::new("."),
    };
    if !parent.is_dir() {
        return Err(RunError::Failed(format!(
            "the output's directory {} does not exist",
            parent.display()
        )));
    }
    Ok(())
}

/// Refuses an existing `output` unless `force` (a file this run did not write is never
/// replaced silently).
pub fn refuse_existing_output(front_end: &str, output: &Path, force: bool) -> Result<(), RunError> {
    if force || !output.exists() {
        return Ok(());
    }
    Err(RunError::OutputExists {
        path: output.to_path_buf(),
        reason: format!(
            "{front_end} does not replace a file it did not write in this run: choose another \
             -o, remove the file, or pass --force to replace it"
        ),
    })
}

/// Refuses a `--stats-json` file that is the source or the output (it would overwrite them).
pub fn check_stats_file(
    stats: Option<&Path>,
    source: &Path,
    output: &Path,
) -> Result<(), RunError> {
    let Some(path) = stats else {
        return Ok(());
    };
    let resolved = minrepro_driver::resolve_for_comparison(path);
    for (what, other) in [("source", source), ("output", output)] {
        if minrepro_driver::resolve_for_comparison(other) == resolved {
            return Err(RunError::Usage(format!(
                "--stats-json {} is also the {what}",
                path.display()
            )));
        }
    }
    Ok(())
}

/// The directory candidates run in: `cwd`, else the directory minrepro was started in; `None`
/// when `isolated` (each candidate's own workspace).
pub fn working_dir(isolated: bool, cwd: Option<&Path>) -> Result<Option<PathBuf>, RunError> {
    if isolated {
        return Ok(None);
    }
    let dir = match cwd {
        Some(dir) => dir
            .canonicalize()
            .map_err(|e| RunError::Usage(format!("--cwd {}: {e}", dir.display())))?,
        None => std::env::current_dir().map_err(|e| {
            RunError::Failed(format!(
                "cannot read the current directory ({e}); give --cwd DIR or --isolated-cwd"
            ))
        })?,
    };
    if !dir.is_dir() {
        return Err(RunError::Usage(format!(
            "--cwd {} is not a directory",
            dir.display()
        )));
    }
    Ok(Some(dir))
}

/// `word` as one POSIX shell word: bare when it has only safe characters, else single-quoted.
pub fn shell_quoted(word: &str) -> String {
    let safe = |c: char| c.is_ascii_alphanumeric() || "-_./:=+,@%".contains(c);
    if !word.is_empty() && word.chars().all(safe) {
        word.to_owned()
    } else {
        format!("'{}'", word.replace('\'', "'\\''"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn output_equal_to_source_is_refused() {
        let (dir, file) = minrepro_testkit::temp_file("p.py", "print(1)\n");
        let source = minrepro_driver::resolve_for_comparison(&file);
        let same = dir.path().join(".").join("p.py");
        assert!(check_output(&same, &source).is_err());
        assert!(check_output(&dir.path().join("q.py"), &source).is_ok());
        assert!(check_output(&dir.path().join("no/q.py"), &source).is_err());
        assert!(check_output(dir.path(), &source).is_err());
    }

    #[test]
    fn shell_words_are_quoted_only_when_needed() {
        assert_eq!(shell_quoted("out/min.py"), "out/min.py");
        assert_eq!(shell_quoted("my file.py"), "'my file.py'");
        assert_eq!(shell_quoted("it's"), "'it'\\''s'");
        assert_eq!(shell_quoted(""), "''");
    }
}
