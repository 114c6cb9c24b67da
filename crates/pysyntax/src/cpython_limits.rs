//! Limits CPython's tokenizer and compiler enforce that ruff's parser does not: bracket nesting,
//! indentation depth, expression complexity, and consistent use of tabs and spaces.

use ruff_python_ast::token::TokenKind;
use ruff_python_parser::Mode;
use ruff_text_size::Ranged;

use crate::SyntaxProblem;

/// CPython's tokenizer limit on nested brackets (`MAXLEVEL`).
const MAX_PAREN_DEPTH: usize = 200;
/// CPython's tokenizer limit on indentation levels (`MAXINDENT`).
const MAX_INDENT_DEPTH: usize = 100;
/// Upper bound on the nesting-forming tokens (operators, keywords, opening brackets) of one
/// logical line. CPython's compiler gives up (RecursionError / MemoryError) at an expression depth
/// of about 3,000, so this only rejects sources CPython rejects too, except for logical lines with
/// more than this many such tokens (e.g. a one-statement table of 20,000 tuples).
const MAX_LINE_OPERATORS: usize = 20_000;

/// Logical lines with at most this many operator/keyword/opening-bracket tokens, at most [`SHALLOW_PARENS`]
/// brackets deep, in blocks at most [`SHALLOW_INDENT`] deep, are parsed on the caller's thread (a 2 MiB stack is plenty); deeper
/// sources go to a large-stack thread.
const SHALLOW_OPERATORS: usize = 400;
/// See [`SHALLOW_OPERATORS`].
const SHALLOW_INDENT: usize = 40;
/// See [`SHALLOW_OPERATORS`].
const SHALLOW_PARENS: usize = 100;

/// Whether `source` is shallow enough to parse and walk on any thread; `Err` if it is nested
/// deeper than CPython's tokenizer or compiler accept. Uses only the (iterative) lexer, so it is
/// safe to run before anything recursive.
pub fn shallow(source: &str) -> Result<bool, SyntaxProblem> {
    nesting(source).map(|(operators, parens, indents)| {
        operators <= SHALLOW_OPERATORS && parens <= SHALLOW_PARENS && indents <= SHALLOW_INDENT
    })
}

/// One nesting measure: its current and largest depth, and the limit CPython enforces on it.
struct Depth {
    now: usize,
    max: usize,
    limit: usize,
    /// CPython's complaint when the limit is passed.
    message: &'static str,
}

impl Depth {
    fn new(limit: usize, message: &'static str) -> Self {
        Depth {
            now: 0,
            max: 0,
            limit,
            message,
        }
    }

    /// One level deeper at `line`; `Err` past the limit.
    fn enter(&mut self, line: usize) -> Result<(), SyntaxProblem> {
        self.now += 1;
        self.max = self.max.max(self.now);
        if self.now > self.limit {
            return Err(SyntaxProblem {
                line,
                message: self.message.into(),
            });
        }
        Ok(())
    }

    fn leave(&mut self) {
        self.now = self.now.saturating_sub(1);
    }
}

/// The largest number of operator and keyword tokens on one logical line, the deepest bracket
/// nesting and the deepest indentation, or the first limit CPython enforces that `source` breaks.
fn nesting(source: &str) -> Result<(usize, usize, usize), SyntaxProblem> {
    let mut lexer = ruff_python_parser::lexer::lex(source, Mode::Module);
    let mut operators = Depth::new(
        MAX_LINE_OPERATORS,
        "expression too complex (nested too deeply)",
    );
    let mut parens = Depth::new(MAX_PAREN_DEPTH, "too many nested parentheses");
    let mut indents = Depth::new(MAX_INDENT_DEPTH, "too many levels of indentation");
    // The lexer does not expose token offsets: lines are counted from newline tokens (a
    // multi-line string counts as one line, so the reported line may be early).
    let mut line = 1;
    loop {
        match lexer.next_token() {
            TokenKind::EndOfFile => return Ok((operators.max, parens.max, indents.max)),
            TokenKind::Lpar | TokenKind::Lsqb | TokenKind::Lbrace => {
                let within_parens = parens.enter(line);
                // Call and subscript chains (`f(0)(0)…`) nest without nesting brackets.
                operators.enter(line)?;
                within_parens?;
            }
            TokenKind::Rpar | TokenKind::Rsqb | TokenKind::Rbrace => parens.leave(),
            TokenKind::Indent => indents.enter(line)?,
            TokenKind::Dedent => indents.leave(),
            TokenKind::Newline => {
                operators.now = 0;
                line += 1;
            }
            TokenKind::NonLogicalNewline => line += 1,
            TokenKind::Name
            | TokenKind::Int
            | TokenKind::Float
            | TokenKind::Complex
            | TokenKind::String
            | TokenKind::Comma
            | TokenKind::Colon
            | TokenKind::Comment => {}
            _ => operators.enter(line)?,
        }
    }
}

/// Offset of the first line whose indentation compares differently with tabs as 8 columns and as
/// 1 column against the enclosing block's (CPython's `TabError`).
pub fn inconsistent_tabs(source: &str, tokens: &[ruff_python_ast::token::Token]) -> Option<usize> {
    let mut stack: Vec<(usize, usize)> = vec![(0, 0)];
    let mut line_start = true;
    for token in tokens {
        match token.kind() {
            TokenKind::Newline => {
                line_start = true;
                continue;
            }
            TokenKind::Comment
            | TokenKind::NonLogicalNewline
            | TokenKind::Indent
            | TokenKind::Dedent => continue,
            _ if !line_start => continue,
            _ => line_start = false,
        }
        let at = token.start().to_usize();
        let indent = crate::text::indent_at(source, at);
        if !indent.contains('\t') && stack.iter().all(|&(c8, c1)| c8 == c1) {
            // Spaces only here and in every enclosing block: nothing to compare.
            let col = indent.len();
            while stack.last().is_some_and(|&(c8, _)| c8 > col) {
                stack.pop();
            }
            if stack.last().is_none_or(|&(c8, _)| c8 < col) {
                stack.push((col, col));
            }
            continue;
        }
        let (mut c8, mut c1) = (0usize, 0usize);
        for b in indent.bytes() {
            match b {
                b'\t' => {
                    c8 = (c8 / 8 + 1) * 8;
                    c1 += 1;
                }
                b'\x0c' => {
                    c8 = 0;
                    c1 = 0;
                }
                _ => {
                    c8 += 1;
                    c1 += 1;
                }
            }
        }
        while stack.last().is_some_and(|&(t8, _)| t8 > c8) {
            stack.pop();
        }
        match stack.last() {
            Some(&(t8, t1)) if t8 == c8 => {
                if t1 != c1 {
                    return Some(at);
                }
            }
            Some(&(_, t1)) => {
                if c1 <= t1 {
                    return Some(at);
                }
                stack.push((c8, c1));
            }
            None => stack.push((c8, c1)),
        }
    }
    None
}
