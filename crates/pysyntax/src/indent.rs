//! Re-indentation of moved blocks, leaving the inside of string literals untouched.

use std::ops::Range;

use ruff_python_ast::token::{Token, TokenKind};
use ruff_text_size::Ranged;

use crate::text::{line_end, next_line_start};

/// Byte ranges of string literals that span several lines (outermost only, sorted).
#[derive(Debug, Default)]
pub struct StringSpans(Vec<Range<usize>>);

impl StringSpans {
    /// Collects the multi-line string literals (plain, f- and t-strings) among `tokens`.
    pub fn new(source: &str, tokens: &[Token]) -> Self {
        let mut spans: Vec<Range<usize>> = Vec::new();
        let mut open: Vec<usize> = Vec::new();
        for token in tokens {
            let range = token.range().start().to_usize()..token.range().end().to_usize();
            match token.kind() {
                TokenKind::String => spans.push(range),
                TokenKind::FStringStart | TokenKind::TStringStart => open.push(range.start),
                TokenKind::FStringEnd | TokenKind::TStringEnd => {
                    if let Some(start) = open.pop() {
                        spans.push(start..range.end);
                    }
                }
                _ => {}
            }
        }
        spans.retain(|r| {
            source
                .get(r.clone())
                .is_some_and(|t| t.contains(['\n', '\r']))
        });
        spans.sort_by_key(|r| (r.start, std::cmp::Reverse(r.end)));
        let mut outer: Vec<Range<usize>> = Vec::with_capacity(spans.len());
        for span in spans {
            if outer.last().is_none_or(|last| span.start >= last.end) {
                outer.push(span);
            }
        }
        StringSpans(outer)
    }

    /// Whether `offset` lies strictly inside a multi-line string literal.
    pub fn inside(&self, offset: usize) -> bool {
        let i = self.0.partition_point(|r| r.start < offset);
        i > 0 && offset < self.0[i - 1].end
    }
}

/// The lines of `source[range]` (which should start at a line start) with the prefix `from`
/// replaced by `to` on every line that starts with it and does not begin inside a string literal.
/// Other lines (less indented comments, string contents) are kept as written.
pub fn reindent(
    source: &str,
    range: Range<usize>,
    from: &str,
    to: &str,
    strings: &StringSpans,
) -> String {
    let mut out = String::with_capacity(range.len());
    let mut at = range.start;
    while at < range.end {
        let end = next_line_start(source, at).min(range.end).max(at + 1);
        let end = if source.is_char_boundary(end) {
            end
        } else {
            line_end(source, at).min(range.end)
        };
        if end <= at {
            out.push_str(&source[at..range.end]);
            break;
        }
        let line = &source[at..end];
        match line.strip_prefix(from) {
            Some(rest) if !strings.inside(at) => {
                out.push_str(to);
                out.push_str(rest);
            }
            _ => out.push_str(line),
        }
        at = end;
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reindents_code_but_not_strings() {
        let source = "    a = '''x\n    y'''\n    b\n  # c\n";
        let strings = StringSpans(std::iter::once(8..20).collect());
        let out = reindent(source, 0..source.len(), "    ", "", &strings);
        assert_eq!(out, "a = '''x\n    y'''\nb\n  # c\n");
    }
}
