//! Freeze annotations: code the reducer must keep verbatim.
//!
//! Four forms are recognised:
//! - `stmt  # autodd: freeze` freezes the statements starting on that physical line, which must
//!   also end on it (otherwise an error names the line);
//! - `# autodd: freeze-start` … `# autodd: end-freeze` freezes every line in between, the two
//!   comment lines included (an unterminated start or an unmatched end is an error);
//! - `with __freeze__:` (or `with m.__freeze__:`) freezes the whole `with` statement;
//! - `__freeze__(expr)` (or `m.__freeze__(expr)`) freezes the whole call.
//!
//! Imports of `__freeze__` (`from minrepro import __freeze__`, `from tilelang.autodd import
//! __freeze__`: any module's, by name) and `from __future__` imports are frozen too, so the
//! annotations keep working and future imports keep their position.

use std::ops::Range;

use ruff_python_ast::token::{Token, TokenKind};
use ruff_python_ast::visitor::{walk_expr, walk_stmt, Visitor};
use ruff_python_ast::{self as ast, Expr, Stmt};
use ruff_text_size::Ranged;

use crate::text::{line_end, line_of, line_start};
use crate::SyntaxProblem;

/// Frozen byte ranges of a source, and the first misuse of annotations found (if any). Even with
/// a problem the ranges are a conservative best effort (an unterminated block freezes to the end).
#[derive(Debug, Default)]
pub struct Frozen {
    /// Frozen byte ranges (possibly overlapping), sorted by start.
    pub ranges: Vec<Range<usize>>,
    /// The first annotation misuse, by line.
    pub problem: Option<SyntaxProblem>,
}

/// What a `# autodd: …` comment asks for.
#[derive(Debug, PartialEq, Eq)]
enum Annotation {
    Line,
    Start,
    End,
}

/// Parses a comment's text as a freeze annotation.
fn annotation(comment: &str) -> Option<Annotation> {
    let body = comment.strip_prefix('#')?.trim();
    let rest = body
        .strip_prefix("autodd")?
        .trim_start()
        .strip_prefix(':')?;
    match rest.trim() {
        "freeze" => Some(Annotation::Line),
        "freeze-start" => Some(Annotation::Start),
        "end-freeze" => Some(Annotation::End),
        _ => None,
    }
}

/// Whether a comment's text is a freeze annotation (`# autodd: freeze`, `freeze-start`,
/// `end-freeze`).
pub(crate) fn is_annotation(comment: &str) -> bool {
    annotation(comment).is_some()
}

/// Finds the frozen ranges of a parsed module.
pub fn find(source: &str, body: &[Stmt], tokens: &[Token]) -> Frozen {
    let mut frozen = Frozen::default();
    let mut problems: Vec<SyntaxProblem> = Vec::new();
    let mut open: Vec<usize> = Vec::new();
    for token in tokens.iter().filter(|t| t.kind() == TokenKind::Comment) {
        let start = token.start().to_usize();
        let Some(text) = source.get(start..token.end().to_usize()) else {
            continue;
        };
        match annotation(text) {
            Some(Annotation::Line) => match line_statements(source, body, start) {
                Ok(range) => frozen.ranges.push(range),
                Err(range) => {
                    frozen.ranges.extend(range);
                    problems.push(SyntaxProblem {
                        line: line_of(source, start),
                        message: "`# autodd: freeze` must be on a statement that occupies one \
                                  physical line (use `# autodd: freeze-start`/`end-freeze`)"
                            .into(),
                    });
                }
            },
            Some(Annotation::Start) => open.push(start),
            Some(Annotation::End) => match open.pop() {
                Some(begin) => {
                    frozen
                        .ranges
                        .push(line_start(source, begin)..line_end(source, start));
                }
                None => problems.push(SyntaxProblem {
                    line: line_of(source, start),
                    message: "`# autodd: end-freeze` without a matching `# autodd: freeze-start`"
                        .into(),
                }),
            },
            None => {}
        }
    }
    for begin in open {
        frozen.ranges.push(line_start(source, begin)..source.len());
        problems.push(SyntaxProblem {
            line: line_of(source, begin),
            message: "`# autodd: freeze-start` is never closed by `# autodd: end-freeze`".into(),
        });
    }
    let mut finder = FreezeFinder { ranges: Vec::new() };
    finder.visit_body(body);
    frozen.ranges.extend(finder.ranges);
    frozen.ranges.sort_by_key(|r| (r.start, r.end));
    frozen.problem = problems.into_iter().min_by_key(|p| p.line);
    frozen
}

/// The range frozen by a `# autodd: freeze` comment at `comment`: from the first statement
/// starting on its line to the line end. `Err` (with a conservative range, if any) when a
/// statement on that line spans several lines or no statement starts there.
fn line_statements(
    source: &str,
    body: &[Stmt],
    comment: usize,
) -> Result<Range<usize>, Option<Range<usize>>> {
    let (first, last) = (line_start(source, comment), line_end(source, comment));
    let mut starts: Option<usize> = None;
    let mut multi_line: Option<Range<usize>> = None;
    let mut suites = vec![body];
    while let Some(suite) = suites.pop() {
        for stmt in suite {
            let (s, e) = (stmt.start().to_usize(), stmt.end().to_usize());
            if e < first || s > last {
                continue;
            }
            if s >= first {
                starts = Some(starts.map_or(s, |o| o.min(s)));
                if e > last {
                    multi_line = Some(s..e.max(last));
                }
            } else {
                let children = child_suites(stmt);
                if children.is_empty() {
                    // A multi-line simple statement ending (or continuing) on this line.
                    multi_line.get_or_insert(s..e.max(last));
                }
                suites.extend(children);
            }
        }
    }
    match (starts, multi_line) {
        (Some(start), None) => Ok(start..last),
        (_, Some(range)) => Err(Some(range)),
        (None, None) => Err(None),
    }
}

/// The statement lists directly inside a compound statement.
pub fn child_suites(stmt: &Stmt) -> Vec<&[Stmt]> {
    match stmt {
        Stmt::FunctionDef(s) => vec![&s.body[..]],
        Stmt::ClassDef(s) => vec![&s.body[..]],
        Stmt::If(s) => std::iter::once(&s.body[..])
            .chain(s.elif_else_clauses.iter().map(|c| &c.body[..]))
            .collect(),
        Stmt::For(s) => vec![&s.body[..], &s.orelse[..]],
        Stmt::While(s) => vec![&s.body[..], &s.orelse[..]],
        Stmt::With(s) => vec![&s.body[..]],
        Stmt::Match(s) => s.cases.iter().map(|c| &c.body[..]).collect(),
        Stmt::Try(s) => std::iter::once(&s.body[..])
            .chain(s.handlers.iter().map(|h| match h {
                ast::ExceptHandler::ExceptHandler(h) => &h.body[..],
            }))
            .chain([&s.orelse[..], &s.finalbody[..]])
            .collect(),
        _ => Vec::new(),
    }
}

/// Whether `expr` names `__freeze__` (`__freeze__` or `anything.__freeze__`).
pub fn is_freeze_name(expr: &Expr) -> bool {
    match expr {
        Expr::Name(name) => name.id.as_str() == "__freeze__",
        Expr::Attribute(attribute) => attribute.attr.as_str() == "__freeze__",
        _ => false,
    }
}

/// Collects `with __freeze__:` statements, `__freeze__(…)` calls and the imports to keep.
struct FreezeFinder {
    ranges: Vec<Range<usize>>,
}

impl FreezeFinder {
    fn push(&mut self, node: impl Ranged) {
        self.ranges
            .push(node.start().to_usize()..node.end().to_usize());
    }
}

impl Visitor<'_> for FreezeFinder {
    fn visit_stmt(&mut self, stmt: &Stmt) {
        match stmt {
            Stmt::With(with) if with.items.iter().any(|i| is_freeze_name(&i.context_expr)) => {
                return self.push(stmt);
            }
            Stmt::ImportFrom(import)
                if import.module.as_deref() == Some("__future__")
                    || import.names.iter().any(|a| a.name.as_str() == "__freeze__") =>
            {
                return self.push(stmt);
            }
            Stmt::Import(import)
                if import
                    .names
                    .iter()
                    .any(|a| a.name.as_str().ends_with("__freeze__")) =>
            {
                return self.push(stmt);
            }
            _ => {}
        }
        walk_stmt(self, stmt);
    }

    fn visit_expr(&mut self, expr: &Expr) {
        if let Expr::Call(call) = expr {
            if is_freeze_name(&call.func) {
                return self.push(expr);
            }
        }
        walk_expr(self, expr);
    }
}

#[cfg(test)]
mod tests {
    use super::annotation;
    use super::Annotation;

    #[test]
    fn recognises_annotations() {
        for (comment, expected) in [
            ("# autodd: freeze", Some(Annotation::Line)),
            ("#autodd:freeze-start", Some(Annotation::Start)),
            ("# autodd: end-freeze ", Some(Annotation::End)),
            ("# autodd: freezer", None),
            ("# note", None),
        ] {
            assert_eq!(annotation(comment), expected, "{comment}");
        }
    }

    /// The frozen texts of `source` with `from MODULE import __freeze__` at the top.
    fn frozen_texts(module: &str) -> Vec<String> {
        let source = format!(
            "from {module} import __freeze__\n\
             unused = [1, 2]\n\
             with __freeze__:\n    kept = len(unused)\n\
             shape = __freeze__(6 * 7)\n"
        );
        crate::frozen_ranges(&source)
            .into_iter()
            .map(|r| source[r].replace(module, "MODULE"))
            .collect()
    }

    #[test]
    fn minrepros_freeze_import_is_recognised_like_autodds() {
        let ours = frozen_texts("minrepro");
        assert_eq!(
            ours,
            [
                "from MODULE import __freeze__",
                "with __freeze__:\n    kept = len(unused)",
                "__freeze__(6 * 7)"
            ]
        );
        assert_eq!(ours, frozen_texts("tilelang.autodd"));
    }
}
