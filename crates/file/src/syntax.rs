//! Choosing a tree-sitter grammar for a single input file (`--language`, else its extension)
//! and its syntax-aware passes of `minrepro-treesit`, which go before this crate's own.

use std::path::Path;

use minrepro_driver::RunError;
use minrepro_treesit::{Grammar, SyntaxAware, GRAMMARS};

use crate::groups::Group;
use crate::language::TextFile;

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

/// Languages by the names of the documents they are for.
pub type Named<L> = Vec<(String, L)>;

/// The documents' languages with `grammar`'s syntax-aware passes before `file`'s, or `None`
/// when there is no grammar (`file`'s alone).
pub fn syntax_aware(
    grammar: Option<&'static Grammar>,
    languages: Vec<(String, TextFile)>,
) -> Result<Option<Named<SyntaxAware<TextFile>>>, RunError> {
    let Some(grammar) = grammar else {
        return Ok(None);
    };
    let wrap = |(name, file): (String, TextFile)| {
        let file = TextFile {
            standalone: false,
            ..file
        };
        let language = SyntaxAware::new(grammar, file)
            .map_err(|e| RunError::Failed(e.to_string()))?
            // Single tokens also right after the syntax group, their candidates re-parsed
            // (see `SyntaxAware::checking_early`).
            .checking_early(vec![(Group::Tokens, "syntax-tokens")]);
        Ok((name, language))
    };
    languages
        .into_iter()
        .map(wrap)
        .collect::<Result<_, _>>()
        .map(Some)
}
