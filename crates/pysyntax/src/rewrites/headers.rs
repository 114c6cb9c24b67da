//! A compound statement reduced to the expression its header evaluates
//! ([`Group::FastRemovals`]), when its block does nothing (only `pass` or `...`) and the
//! expression calls something (the failure may happen there; without a call, removing the
//! statement does as much):
//!
//! - `for-to-iter`: `for T in E: B` → `E`;
//! - `while-to-test`: `while C: B` → `C`;
//! - `if-to-test`: `if C: B` (no `elif`/`else`) → `C`.
//!
//! A block that does something is left to statement removal first: with the block still needed,
//! the rewrite would fail anyway, and proposing it for every `if f(x):` costs runs every round.
//! Loops with an `else` clause are left to `remove-else` first.

use ruff_python_ast::visitor::{walk_expr, Visitor};
use ruff_python_ast::{Expr, Stmt};
use ruff_text_size::Ranged;

use super::{span, Ctx};
use crate::Group;

/// `for-to-iter`, `while-to-test` and `if-to-test` of one statement.
pub fn header_to_expression(ctx: &mut Ctx<'_>, stmt: &Stmt) {
    if ctx.group != Group::FastRemovals {
        return;
    }
    let (expr, body, kind) = match stmt {
        Stmt::For(s) if s.orelse.is_empty() => (&*s.iter, &s.body, "for-to-iter"),
        Stmt::While(s) if s.orelse.is_empty() => (&*s.test, &s.body, "while-to-test"),
        Stmt::If(s) if s.elif_else_clauses.is_empty() => (&*s.test, &s.body, "if-to-test"),
        _ => return,
    };
    if !body.iter().all(does_nothing) || !calls(expr) {
        return;
    }
    let range = stmt.start().to_usize()..ctx.compound_end(stmt, body);
    let text = ctx.text(span(expr));
    // An assignment expression needs parentheses as a statement; so does text that continues
    // over a line break only the header's brackets allowed.
    let text = if matches!(expr, Expr::Named(_)) || ctx.breaks_line(span(expr)) {
        format!("({text})")
    } else {
        text.to_string()
    };
    ctx.push(Group::FastRemovals, kind, range, text, &[span(expr)]);
}

/// Whether `stmt` is `pass` or `...`.
pub(super) fn does_nothing(stmt: &Stmt) -> bool {
    match stmt {
        Stmt::Pass(_) => true,
        Stmt::Expr(e) => e.value.is_ellipsis_literal_expr(),
        _ => false,
    }
}

/// Whether evaluating `expr` calls something (calls inside a `lambda` do not count: its body
/// does not run here).
fn calls(expr: &Expr) -> bool {
    let mut finder = CallFinder(false);
    finder.visit_expr(expr);
    finder.0
}

/// See [`calls`].
struct CallFinder(bool);

impl Visitor<'_> for CallFinder {
    fn visit_expr(&mut self, expr: &Expr) {
        match expr {
            Expr::Call(_) => self.0 = true,
            Expr::Lambda(_) => {}
            _ => walk_expr(self, expr),
        }
    }
}
