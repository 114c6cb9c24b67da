//! Language-independent reduction of any text: the part of `minrepro file` that knows about
//! text but nothing about predicates or searching.
//!
//! A text is lexed once into words, numbers, strings, comments (by file extension), punctuation
//! and whitespace ([`lex`]); its size is the number of non-whitespace tokens, bytes breaking ties
//! ([`size`]). Each reduction [`Group`] lists [`Site`]s of a text — plain byte ranges with
//! their replacements — modelled on C-Reduce's and C-Vise's generic passes: lines at decreasing
//! nesting levels (top-level forms first, C-Reduce's `topformflat` view), indentation blocks,
//! balanced bracket regions, comments, whitespace, single tokens, runs of tokens ([`windows`]),
//! identifiers renamed shorter, words and empty bracket pairs substituted ([`substitute`]),
//! string literals, integers, and a final tidy. A search (ddmin or ProbDD, in the engine)
//! picks subsets of a group's sites; [`apply`] (the text layer's `splice`) applies them.
//!
//! Every case goes through the shared text layer (`minrepro-text`): one file as the text of
//! [`language`]'s implementation of its `Language` trait, several files or a directory tree
//! ([`tree::Tree`]) as its set of documents (`DocSet`), whole files first, then headers included
//! once inlined into their includer ([`inline`]), then every group over every file at once.

pub mod args;
pub mod inline;
pub mod language;
pub mod lex;
pub mod lexical;
pub mod run;
pub mod structure;
pub mod substitute;
pub mod syntax;
pub mod tree;
pub mod windows;

use std::fmt;

pub use args::FileArgs;
pub use lex::{size, tokens, Kind, Syntax, Token};
pub use minrepro_text::{splice as apply, Site};
pub use run::run;
pub use structure::BracketEdit;

/// A site deleting `range`.
pub fn removal(kind: &'static str, range: std::ops::Range<usize>) -> Site {
    Site {
        kind,
        range,
        replacement: String::new(),
    }
}

/// Deepest nesting level offered by its own line group; deeper lines are reached by the
/// every-line group.
pub const MAX_LINE_LEVEL: usize = 8;

/// Deepest indentation rank offered by its own group.
pub const MAX_INDENT_RANK: usize = 4;

/// The groups of a round after the lines by level and the indentation blocks, in order: the
/// remaining coarse removals, whitespace, the finer removals (single tokens, then runs of
/// tokens) and the shortenings, the substitutions, the longer and the late short runs of tokens
/// (on larger texts), the tidy last. A single file empties bracket regions first, and leaves out
/// the ProbDD runs of two and three tokens (its sweeps of runs replace them) and, outside
/// indentation-sensitive syntaxes, the whitespace group (its tidy normalises whitespace);
/// several files leave out the sweeps, the substitutions and the braces made `;` (see
/// `TextFile::groups` and `GroupPass::all`).
pub const GROUPS_AFTER_LEVELS: [Group; 27] = [
    Group::Lines(None),
    Group::Brackets(BracketEdit::Remove),
    Group::Comments,
    Group::Blank,
    Group::Brackets(BracketEdit::Empty),
    Group::Brackets(BracketEdit::Unwrap),
    Group::Brackets(BracketEdit::Hoist),
    Group::Brackets(BracketEdit::Semicolon),
    Group::Tokens,
    Group::TokenRuns,
    Group::Window(windows::WINDOW_SIZES[0]),
    Group::Window(windows::WINDOW_SIZES[1]),
    Group::Window(windows::WINDOW_SIZES[2]),
    Group::Elements,
    Group::Strings(false),
    Group::Strings(true),
    Group::Integers(false),
    Group::Integers(true),
    Group::Rename,
    Group::Substitute,
    Group::Window(windows::LONG_WINDOW_SIZES[0]),
    Group::Window(windows::LONG_WINDOW_SIZES[1]),
    Group::Window(windows::LONG_WINDOW_SIZES[2]),
    Group::Window(windows::LONG_WINDOW_SIZES[3]),
    Group::LateWindow(windows::LATE_WINDOW_SIZES[0]),
    Group::LateWindow(windows::LATE_WINDOW_SIZES[1]),
    Group::Tidy,
];

/// A group of sites of the same kind, searched together.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Group {
    /// Units of lines at a nesting level (`Some(0)`: top-level forms), or every line alone
    /// (`None`).
    Lines(Option<usize>),
    /// Indentation blocks at a nesting rank (0: headers with the smallest indentation).
    Indented(usize),
    /// Balanced bracket regions.
    Brackets(BracketEdit),
    /// Elements of comma-separated lists between brackets, each with one comma.
    Elements,
    /// Comments.
    Comments,
    /// Whitespace normalisation.
    Blank,
    /// Single tokens.
    Tokens,
    /// Runs of two and three tokens, on small texts, searched with ProbDD (several files; a
    /// single file sweeps runs instead: [`Group::Window`]).
    TokenRuns,
    /// Runs of this many tokens, swept left to right (a single file; see [`windows`]).
    Window(usize),
    /// Runs of this many (two or three) tokens swept again last in the round, on the longer
    /// runs' texts (a single file; see [`windows::LATE_WINDOW_SIZES`]).
    LateWindow(usize),
    /// Identifiers renamed to shorter unused names.
    Rename,
    /// A word replaced by `0` or a smaller word of the same text, or an empty bracket pair by
    /// `0`, swept (a single file, also under a syntax-aware language; see [`substitute`]).
    Substitute,
    /// String literals emptied (`false`) or halved (`true`).
    Strings(bool),
    /// Integers made zero (`false`) or halved (`true`).
    Integers(bool),
    /// Everything tidied at once.
    Tidy,
    /// Chains of bracket pairs nested in pairs of the same kind, each cut by bisection over
    /// its depth (a single file; see [`minrepro_text::depth_chains`]).
    Depth,
}

impl fmt::Display for Group {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(language::group_name(*self))
    }
}

/// A text with its tokens, lexed once for every group.
#[derive(Debug, Clone)]
pub struct Lexed<'a> {
    /// The text.
    pub text: &'a str,
    /// Its syntax.
    pub syntax: Syntax,
    /// Its tokens.
    pub tokens: Vec<Token>,
}

impl<'a> Lexed<'a> {
    /// Lexes `text` with `syntax`.
    pub fn new(text: &'a str, syntax: Syntax) -> Self {
        Lexed {
            text,
            tokens: tokens(text, &syntax),
            syntax,
        }
    }

    /// The size: counted tokens, then bytes.
    pub fn size(&self) -> (usize, usize) {
        let count = self.tokens.iter().filter(|t| t.counts()).count();
        (count, self.text.len())
    }

    /// The sites of `group` in this text, in text order (renames: by first occurrence).
    pub fn sites(&self, group: Group) -> Vec<Site> {
        let (text, tokens) = (self.text, &self.tokens[..]);
        match group {
            Group::Lines(level) => structure::line_sites(text, tokens, level),
            Group::Indented(rank) => structure::indent_sites(text, rank),
            Group::Brackets(edit) => structure::bracket_sites(text, tokens, edit),
            Group::Elements => structure::element_sites(text, tokens),
            Group::Comments => lexical::comment_sites(tokens),
            Group::Blank => lexical::blank_sites(text, tokens, self.syntax.indented),
            Group::Tokens => lexical::token_sites(tokens),
            Group::TokenRuns => lexical::token_run_sites(tokens),
            Group::Window(n) => windows::window_sites(tokens, n),
            Group::LateWindow(n) => windows::late_window_sites(tokens, n),
            Group::Rename => lexical::rename_sites(text, tokens),
            Group::Substitute => substitute::substitution_sites(text, tokens),
            Group::Strings(half) => lexical::string_sites(text, tokens, half),
            Group::Integers(half) => lexical::integer_sites(text, tokens, half),
            Group::Tidy => lexical::tidy_site(text).into_iter().collect(),
            Group::Depth => structure::depth_sites(text, tokens),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::path::Path;

    #[test]
    fn every_site_of_every_group_shrinks_a_c_file() {
        let text =
            "/* c */\nint total = 120;\nint f(int count) {\n  return count + \"s\"[0];\n}\n\n";
        let lexed = Lexed::new(text, Syntax::for_path(Path::new("a.c")));
        let groups = crate::language::round();
        assert_eq!(groups[0], Group::Lines(Some(0)));
        assert!(groups.contains(&Group::Indented(0)));
        assert_eq!(Group::Indented(0).to_string(), "indented-0");
        for group in groups {
            for site in lexed.sites(group) {
                let out = apply(text, &[&site]);
                let cand = Lexed::new(&out, lexed.syntax);
                // Strictly smaller in (tokens, bytes, text), so a reduction cannot cycle.
                assert!(
                    (cand.size(), cand.text) < (lexed.size(), lexed.text),
                    "{group}: {site:?} -> {out:?}"
                );
            }
        }
    }
}
