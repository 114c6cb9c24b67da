//! The groups of `minrepro file` as plain data: which kinds of sites a text has ([`Group`]),
//! their order in a round ([`round`]) and stable names, and a text lexed once so that every
//! group lists its sites from the same tokens ([`Lexed`]).

use std::fmt;

use minrepro_text::Site;

use crate::lex::{tokens, Syntax, Token};
use crate::structure::BracketEdit;
use crate::windows::{LATE_WINDOW_NAMES, WINDOW_NAMES};
use crate::{structure, substitute, token_sites, windows};

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
        f.write_str(group_name(*self))
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
            Group::Comments => token_sites::comment_sites(tokens),
            Group::Blank => token_sites::blank_sites(text, tokens, self.syntax.indented),
            Group::Tokens => token_sites::token_sites(tokens),
            Group::TokenRuns => token_sites::token_run_sites(tokens),
            Group::Window(n) => windows::window_sites(tokens, n),
            Group::LateWindow(n) => windows::late_window_sites(tokens, n),
            Group::Rename => token_sites::rename_sites(text, tokens),
            Group::Substitute => substitute::substitution_sites(text, tokens),
            Group::Strings(half) => token_sites::string_sites(text, tokens, half),
            Group::Integers(half) => token_sites::integer_sites(text, tokens, half),
            Group::Tidy => token_sites::tidy_site(text).into_iter().collect(),
            Group::Depth => structure::depth_sites(text, tokens),
        }
    }
}

/// Every group in round order: coarse removals first, shortenings after, the tidy last.
pub fn round() -> Vec<Group> {
    let mut groups: Vec<Group> = (0..=MAX_LINE_LEVEL)
        .map(|l| Group::Lines(Some(l)))
        .collect();
    groups.extend((0..=MAX_INDENT_RANK).map(Group::Indented));
    groups.extend(GROUPS_AFTER_LEVELS);
    groups
}

/// Stable pass names of the line levels and indentation ranks.
const LINE_NAMES: [&str; MAX_LINE_LEVEL + 1] = [
    "lines-0", "lines-1", "lines-2", "lines-3", "lines-4", "lines-5", "lines-6", "lines-7",
    "lines-8",
];
const INDENT_NAMES: [&str; MAX_INDENT_RANK + 1] = [
    "indented-0",
    "indented-1",
    "indented-2",
    "indented-3",
    "indented-4",
];

/// A group's stable name (the same as its `Display`).
pub fn group_name(group: Group) -> &'static str {
    match group {
        Group::Lines(Some(level)) => LINE_NAMES[level.min(MAX_LINE_LEVEL)],
        Group::Lines(None) => "lines",
        Group::Indented(rank) => INDENT_NAMES[rank.min(MAX_INDENT_RANK)],
        Group::Brackets(BracketEdit::Remove) => "brackets-remove",
        Group::Brackets(BracketEdit::Empty) => "brackets-empty",
        Group::Brackets(BracketEdit::Unwrap) => "brackets-unwrap",
        Group::Brackets(BracketEdit::Hoist) => "brackets-hoist",
        Group::Brackets(BracketEdit::Semicolon) => "brackets-semicolon",
        Group::Elements => "elements",
        Group::Comments => "comments",
        Group::Blank => "blank",
        Group::Tokens => "tokens",
        Group::TokenRuns => "token-runs",
        Group::Window(n) => WINDOW_NAMES[n.min(WINDOW_NAMES.len() - 1)],
        Group::LateWindow(n) => LATE_WINDOW_NAMES[n.min(LATE_WINDOW_NAMES.len() - 1)],
        Group::Rename => "rename",
        Group::Substitute => "substitute-words",
        Group::Strings(false) => "strings-empty",
        Group::Strings(true) => "strings-halve",
        Group::Integers(false) => "integers-zero",
        Group::Integers(true) => "integers-halve",
        Group::Tidy => "tidy",
        Group::Depth => "brackets-depth",
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::apply;
    use std::path::Path;

    #[test]
    fn every_site_of_every_group_shrinks_a_c_file() {
        let text =
            "/* c */\nint total = 120;\nint f(int count) {\n  return count + \"s\"[0];\n}\n\n";
        let lexed = Lexed::new(text, Syntax::for_path(Path::new("a.c")));
        let groups = round();
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
