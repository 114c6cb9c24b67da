//! Size of a source in Python tokens.
//!
//! [`token_count`](crate::token_count) runs ruff's lexer (no parser, no AST) and counts every token
//! it produces except comments (`Comment`), newlines inside brackets or on blank/comment-only lines
//! (`NonLogicalNewline`) and the final `EndOfFile`. Counted are therefore names, keywords,
//! literals (a string literal is one token; an f-string counts its start, middle and end parts),
//! operators and delimiters, logical `Newline`s, and `Indent`/`Dedent` tokens. Lexical errors count
//! as one `Unknown` token each, so any text has a size.

use ruff_python_ast::token::{TokenKind, Tokens};
use ruff_python_parser::{lexer::lex, Mode};

/// Number of counted tokens in `source` (see the module documentation).
pub fn count(source: &str) -> usize {
    let mut lexer = lex(source, Mode::Module);
    let mut count = 0;
    loop {
        match lexer.next_token() {
            TokenKind::EndOfFile => return count,
            kind => count += usize::from(counted(kind)),
        }
    }
}

/// [`count`] of a source the parser accepted, from the tokens of that parse (the parser lexes
/// a valid source exactly as [`count`] does; the property tests of `Prepared` compare both).
pub(crate) fn count_parsed(tokens: &Tokens) -> usize {
    tokens
        .iter()
        .filter(|t| t.kind() != TokenKind::EndOfFile && counted(t.kind()))
        .count()
}

/// Whether a token of this kind counts (see the module documentation).
fn counted(kind: TokenKind) -> bool {
    !matches!(kind, TokenKind::Comment | TokenKind::NonLogicalNewline)
}

#[cfg(test)]
mod tests {
    use super::count;

    #[test]
    fn counts_logical_tokens_only() {
        // x = 1 NEWLINE
        assert_eq!(count("x = 1\n"), 4);
        // comments and blank lines are free
        assert_eq!(count("# hi\n\nx = 1  # c\n\n"), 4);
        // newlines inside brackets are not counted: f ( 1 , 2 ) NEWLINE
        assert_eq!(count("f(1,\n  2)\n"), 7);
        // if x : NEWLINE INDENT pass NEWLINE DEDENT
        assert_eq!(count("if x:\n    pass\n"), 8);
        assert_eq!(count(""), 0);
        // never panics on odd input
        let _ = count("\u{feff}x\0 = '\r\n\t");
    }
}
