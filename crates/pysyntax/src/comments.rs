//! Comment-only lines: reduction keeps the original text of retained code, comments included, so
//! a reduced program can be mostly comments left over from removed code. They carry no tokens,
//! but readers (and byte counts) pay for them.

use ruff_python_ast::token::TokenKind;
use ruff_text_size::Ranged;

use crate::text::{line_start, next_line_start};

/// `source` without its comment-only lines, or `None` when it does not parse. Kept are freeze
/// annotations, any comment inside frozen code, a `#!` first line and an encoding declaration
/// on the first two lines (PEP 263): they change what the program is or how it reads.
pub fn without_comment_lines(source: &str) -> Option<String> {
    crate::analyse(source, |parsed, frozen| {
        let mut out = String::with_capacity(source.len());
        let mut copied = 0;
        let third_line = next_line_start(source, next_line_start(source, 0));
        for token in parsed.tokens().iter() {
            if token.kind() != TokenKind::Comment {
                continue;
            }
            let at = token.start().to_usize();
            let start = line_start(source, at);
            if !source[start..at].trim().is_empty() || start < copied {
                continue;
            }
            let comment = &source[token.range()];
            let keep = crate::freeze::is_annotation(comment)
                || frozen.ranges.iter().any(|r| r.start <= at && at < r.end)
                || (start == 0 && comment.starts_with("#!"))
                || (start < third_line && comment.contains("coding"));
            if keep {
                continue;
            }
            out.push_str(&source[copied..start]);
            copied = next_line_start(source, at);
        }
        out.push_str(&source[copied..]);
        out
    })
    .ok()
}
