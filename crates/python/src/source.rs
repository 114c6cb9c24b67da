//! Reading and validating the inputs before anything runs: the source must be readable text
//! (UTF-8, or a single-byte encoding its PEP 263 declaration names), valid Python with well-formed
//! freeze annotations (`minrepro_text::check_output` keeps the output distinct from it).

use std::path::{Path, PathBuf};

use minrepro_driver::{resolve_for_comparison, RunError};

use minrepro_pysyntax::SourceProblem;

use crate::encoding::{detect, Decoded, SourceEncoding};

/// The validated source program.
#[derive(Debug, Clone)]
pub struct Source {
    /// Absolute path of the source file.
    pub path: PathBuf,
    /// File name candidates are written under.
    pub file_name: String,
    /// Absolute directory of the source (prepended to PYTHONPATH).
    pub dir: PathBuf,
    /// The program text.
    pub text: String,
    /// The declared encoding, when it is not UTF-8.
    pub encoding: Option<SourceEncoding>,
    /// The project root, when the source imports local modules reduced with it (then
    /// `file_name` is relative to the root, and `dir` is not put on PYTHONPATH: candidates
    /// import the modules from their workspace).
    pub project_root: Option<PathBuf>,
}

/// Reads `path` and checks it is valid Python 3.`minor` (decoded as the interpreter `python`
/// decodes it) with valid freeze annotations.
pub fn read_source(path: &Path, python: &Path, minor: u8) -> Result<Source, RunError> {
    let failed = |m: String| RunError::Failed(m);
    let shown = path.display();
    if path.is_dir() {
        return Err(failed(format!("{shown} is a directory, not a Python file")));
    }
    let bytes = std::fs::read(path).map_err(|e| failed(format!("cannot read {shown}: {e}")))?;
    let (text, encoding) = match detect(&bytes, path, python) {
        Err(problem) => return Err(failed(format!("{shown} {problem}"))),
        Ok(Decoded::Other(text, encoding)) => (text, Some(encoding)),
        Ok(Decoded::Utf8) => {
            let text = String::from_utf8(bytes).map_err(|e| {
                let line = 1 + e.as_bytes()[..e.utf8_error().valid_up_to()]
                    .iter()
                    .filter(|&&b| b == b'\n')
                    .count();
                failed(format!("{shown} is not UTF-8 text: line {line}: {e}"))
            })?;
            (text, None)
        }
    };
    // CPython refuses NUL bytes in source code; the parser would name the raw byte as token.
    if let Some(at) = text.find('\0') {
        let line = 1 + text[..at].matches('\n').count();
        return Err(failed(format!(
            "{shown} is not valid Python: line {line}: source code cannot contain NUL bytes"
        )));
    }
    minrepro_pysyntax::check_source(&text, minor).map_err(|problem| match problem {
        SourceProblem::Invalid(p) => failed(format!(
            "{shown} is not valid Python: {}",
            printable(&p.to_string())
        )),
        SourceProblem::Freeze(p) => failed(format!(
            "{shown}: bad freeze annotation: {}",
            printable(&p.to_string())
        )),
    })?;
    let absolute = resolve_for_comparison(path);
    let file_name = absolute
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .filter(|n| !n.is_empty())
        .ok_or_else(|| failed(format!("{shown} has no file name")))?;
    let dir = absolute
        .parent()
        .map(Path::to_path_buf)
        .unwrap_or_else(|| PathBuf::from("/"));
    Ok(Source {
        path: absolute,
        file_name,
        dir,
        text,
        encoding,
        project_root: None,
    })
}

/// `message` on one line of printable text: control characters (parser messages may quote a raw
/// byte of the source, e.g. a form feed or an escape sequence) are shown escaped.
fn printable(message: &str) -> String {
    message
        .chars()
        .map(|c| {
            if c.is_control() {
                c.escape_default().to_string()
            } else {
                c.to_string()
            }
        })
        .collect()
}
