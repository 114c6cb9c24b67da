//! Choosing a tree-sitter grammar for a single input file (`--language`, else its extension)
//! and reducing it with the syntax-aware passes of `minrepro-treesit` before this crate's own.

use std::path::Path;

use minrepro_driver::RunError;
use minrepro_text::{reduce_text, TextJob, TextRun};
use minrepro_treesit::{Grammar, SyntaxAware, GRAMMARS};

use crate::language::TextFile;
use crate::Group;

/// The `--list-languages` answer: one line per grammar, its name and extensions.
pub fn list_languages() -> String {
    let lines: Vec<String> = GRAMMARS
        .iter()
        .map(|g| format!("{:<12} .{}", g.name, g.extensions.join(" .")))
        .collect();
    lines.join("\n")
}

/// The grammar for a file named `name`: `--language NAME` (`none`: no grammar), else the one
/// its extension selects, if any.
pub fn grammar(language: Option<&str>, name: &str) -> Result<Option<&'static Grammar>, RunError> {
    match language {
        Some(wanted) if wanted.eq_ignore_ascii_case("none") => Ok(None),
        Some(wanted) => minrepro_treesit::by_name(wanted).map(Some).ok_or_else(|| {
            let known: Vec<&str> = GRAMMARS.iter().map(|g| g.name).collect();
            RunError::Usage(format!(
                "unknown --language {wanted}; known: {} (or none)",
                known.join(", ")
            ))
        }),
        None => Ok(minrepro_treesit::for_path(Path::new(name))),
    }
}

/// Reduces one text with `grammar`'s syntax-aware passes before `file`'s, or with `file`'s
/// alone when there is no grammar.
pub fn reduce_single(
    grammar: Option<&'static Grammar>,
    file: TextFile,
    job: TextJob<'_>,
) -> Result<TextRun, RunError> {
    match grammar {
        Some(grammar) => {
            let file = TextFile {
                standalone: false,
                ..file
            };
            let language = SyntaxAware::new(grammar, file)
                .map_err(|e| RunError::Failed(e.to_string()))?
                // Single tokens also right after the syntax group, their candidates re-parsed
                // (see `SyntaxAware::checking_early`).
                .checking_early(vec![(Group::Tokens, "syntax-tokens")]);
            Ok(reduce_text(language, job))
        }
        None => Ok(reduce_text(file, job)),
    }
}
