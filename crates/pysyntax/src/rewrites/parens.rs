//! `remove-parentheses` ([`Group::Simplifications`]): grouping parentheses around an expression
//! dropped: all of them around an atom (`b = (1)`, `f((x))`, `((("""…""")))`), all but one
//! around anything else (`((a + b))` → `(a + b)`). An atom (a name, literal, call, attribute,
//! subscript, display or already bracketed expression) binds tighter than any operator, so its
//! parentheses never group anything.
//!
//! Parentheses are found on tokens: `(` tokens right before an expression paired with `)` tokens
//! right after it, up to the parentheses of a call's or a class pattern's arguments (which are the
//! call's own, not grouping). Kept out: an atom that continues over a line break outside its own
//! brackets (only the parentheses make that valid) and an integer before a `.` (`(1).real`).

use std::collections::HashSet;

use ruff_python_ast::token::TokenKind;
use ruff_python_ast::visitor::{walk_arguments, walk_expr, walk_pattern_arguments, Visitor};
use ruff_python_ast::{self as ast, Expr, Stmt};
use ruff_text_size::Ranged;

use super::{span, Ctx};
use crate::Group;

/// Lists the `remove-parentheses` rewrites of a module.
pub fn remove_parentheses(ctx: &mut Ctx<'_>, body: &[Stmt]) {
    if ctx.group != Group::Simplifications {
        return;
    }
    let mut finder = Parens {
        ctx,
        owned: HashSet::new(),
    };
    finder.visit_body(body);
}

/// The walk, with the `(` offsets that belong to argument lists seen so far.
struct Parens<'c, 'a> {
    ctx: &'c mut Ctx<'a>,
    owned: HashSet<usize>,
}

impl Parens<'_, '_> {
    /// The rewrite of `expr`'s grouping parentheses, if any.
    fn site(&mut self, expr: &Expr) {
        let ctx = &*self.ctx;
        let inner = span(expr);
        // (open, close) offsets of each grouping pair, innermost first.
        let mut layers: Vec<(usize, usize)> = Vec::new();
        let (mut left, mut right) = (inner.start, inner.end);
        while let (Some(open), Some(close)) = (ctx.token_before(left), ctx.token_after(right)) {
            let (open, close) = (span(open), span(close));
            if ctx.text(open.clone()) != "(" || ctx.text(close.clone()) != ")" {
                break;
            }
            if self.owned.contains(&open.start) {
                break;
            }
            layers.push((open.start, close.end));
            (left, right) = (open.start, close.end);
        }
        let Some(&(outer_start, outer_end)) = layers.last() else {
            return;
        };
        let bare = is_atom(expr)
            && !ctx.breaks_line(inner.clone())
            && !(matches!(expr, Expr::NumberLiteral(n) if matches!(n.value, ast::Number::Int(_)))
                && ctx
                    .token_after(outer_end)
                    .is_some_and(|t| t.kind() == TokenKind::Dot));
        let text = if bare {
            let text = ctx.text(inner.clone());
            let before = ctx.source[..outer_start].chars().next_back();
            let after = ctx.source[outer_end..].chars().next();
            let glue = |a: Option<char>, b: Option<char>| {
                if a.is_some_and(word) && b.is_some_and(word) {
                    " "
                } else {
                    ""
                }
            };
            format!(
                "{}{text}{}",
                glue(before, text.chars().next()),
                glue(text.chars().next_back(), after)
            )
        } else if layers.len() > 1 {
            let (start, end) = layers[0];
            ctx.text(start..end).to_string()
        } else {
            return;
        };
        self.ctx.push(
            Group::Simplifications,
            "remove-parentheses",
            outer_start..outer_end,
            text,
            &[inner],
        );
    }
}

/// Whether `c` can be part of a name or number (two such characters must not touch).
fn word(c: char) -> bool {
    c.is_alphanumeric() || c == '_'
}

/// Whether `expr` is a primary that needs no parentheses anywhere (layout aside).
fn is_atom(expr: &Expr) -> bool {
    super::is_bracketed(expr) || super::is_primary(expr)
}

impl<'a> Visitor<'a> for Parens<'_, '_> {
    fn visit_expr(&mut self, expr: &'a Expr) {
        self.site(expr);
        walk_expr(self, expr);
    }

    fn visit_arguments(&mut self, arguments: &'a ast::Arguments) {
        self.owned.insert(arguments.start().to_usize());
        walk_arguments(self, arguments);
    }

    fn visit_pattern_arguments(&mut self, arguments: &'a ast::PatternArguments) {
        self.owned.insert(arguments.start().to_usize());
        walk_pattern_arguments(self, arguments);
    }
}
