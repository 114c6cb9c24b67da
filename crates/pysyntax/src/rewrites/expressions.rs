//! Expression simplifications ([`Group::Simplifications`]):
//!
//! - `assign-to-one`: `V = E` → `V = 1` (also `V: T = E`);
//! - `assign-to-value`: `V = E` → `E` (an unused result of a call with needed side effects);
//! - `call-to-arg`: `f(a, …)` → `a` (so `f(g(x))` → `g(x)` hoists the inner call);
//! - `binop-to-left` / `binop-to-right`: `a op b` → `a` / `b`;
//! - `ifexp-to-body` / `ifexp-to-else`: `a if c else b` → `a` / `b`;
//! - `attribute-to-value`: `x.attr` → `x`; `subscript-to-value`: `x[i]` → `x`;
//! - `call-to-receiver`: `x.f(…)` → `x` (a method call dropped from a chain);
//! - `call-to-callee`: `f(…)(…)` → `f(…)` (the call of a call's result dropped);
//! - `unary-to-operand`: `-x`, `not x`, `await x` → `x`;
//! - `boolop-to-operand`: `a and b` → `a` / `b`; `compare-to-operand`: `a < b` → `a` / `b`;
//! - `comprehension-to-element`: `[E for x in xs]` → `E` (also sets, generators and a dict's
//!   `K: V` → `K` / `V`) when `E` reads no name the comprehension binds: the element evaluated
//!   once, without the loop that fed it.
//!
//! Moved operands keep their text and are parenthesised where needed ([`Ctx::operand`]).

use ruff_python_ast::visitor::{walk_expr, Visitor};
use ruff_python_ast::{self as ast, Comprehension, Expr, ExprContext};

use super::{span, Ctx};
use crate::Group;

/// `assign-to-one` for an assigned value.
pub fn assign_to_one(ctx: &mut Ctx<'_>, value: &Expr) {
    if ctx.group == Group::Simplifications {
        ctx.push(
            Group::Simplifications,
            "assign-to-one",
            span(value),
            "1".into(),
            &[],
        );
    }
}

/// `assign-to-value`: the targets of `V = W = E` dropped, leaving the expression statement `E`.
pub fn assign_to_value(ctx: &mut Ctx<'_>, stmt: &ast::StmtAssign) {
    if ctx.group != Group::Simplifications {
        return;
    }
    let value = span(&*stmt.value);
    let start = stmt.range.start().to_usize();
    ctx.push(
        Group::Simplifications,
        "assign-to-value",
        start..value.start,
        String::new(),
        &[],
    );
}

/// `call-to-arg`: the call replaced by its first positional argument.
pub fn call_to_arg(ctx: &mut Ctx<'_>, call: &Expr, c: &ast::ExprCall) {
    if ctx.group != Group::Simplifications {
        return;
    }
    let Some(first) = c.arguments.args.first() else {
        return;
    };
    if first.is_starred_expr() {
        return;
    }
    let text = ctx.operand(first);
    ctx.push(
        Group::Simplifications,
        "call-to-arg",
        span(call),
        text,
        &[span(first)],
    );
}

/// Replaces `whole` by one of its sub-expressions.
fn replace_by(ctx: &mut Ctx<'_>, whole: &Expr, part: &Expr, kind: &'static str) {
    let text = ctx.operand(part);
    ctx.push(
        Group::Simplifications,
        kind,
        span(whole),
        text,
        &[span(part)],
    );
}

/// `binop-to-left` and `binop-to-right`.
pub fn binop(ctx: &mut Ctx<'_>, whole: &Expr, b: &ast::ExprBinOp) {
    if ctx.group == Group::Simplifications {
        replace_by(ctx, whole, &b.left, "binop-to-left");
        replace_by(ctx, whole, &b.right, "binop-to-right");
    }
}

/// `ifexp-to-body` and `ifexp-to-else`.
pub fn ifexp(ctx: &mut Ctx<'_>, whole: &Expr, e: &ast::ExprIf) {
    if ctx.group == Group::Simplifications {
        replace_by(ctx, whole, &e.body, "ifexp-to-body");
        replace_by(ctx, whole, &e.orelse, "ifexp-to-else");
    }
}

/// `attribute-to-value` / `subscript-to-value`: `x.a` / `x[i]` → `x`.
pub fn hoist(ctx: &mut Ctx<'_>, whole: &Expr, value: &Expr, kind: &'static str) {
    if ctx.group == Group::Simplifications {
        replace_by(ctx, whole, value, kind);
    }
}

/// `unary-to-operand`.
pub fn unary(ctx: &mut Ctx<'_>, whole: &Expr, operand: &Expr) {
    if ctx.group == Group::Simplifications {
        replace_by(ctx, whole, operand, "unary-to-operand");
    }
}

/// `boolop-to-operand` / `compare-to-operand`: one rewrite per operand.
pub fn operands<'e>(
    ctx: &mut Ctx<'_>,
    whole: &Expr,
    parts: impl Iterator<Item = &'e Expr>,
    kind: &'static str,
) {
    if ctx.group == Group::Simplifications {
        for part in parts {
            replace_by(ctx, whole, part, kind);
        }
    }
}

/// `comprehension-to-element`.
pub fn comprehension(ctx: &mut Ctx<'_>, whole: &Expr) {
    if ctx.group != Group::Simplifications {
        return;
    }
    let (parts, generators): (Vec<&Expr>, &[Comprehension]) = match whole {
        Expr::ListComp(c) => (vec![&c.elt], &c.generators),
        Expr::SetComp(c) => (vec![&c.elt], &c.generators),
        Expr::Generator(c) => (vec![&c.elt], &c.generators),
        Expr::DictComp(c) => (
            c.key.iter().map(|k| &**k).chain([&*c.value]).collect(),
            &c.generators,
        ),
        _ => return,
    };
    let mut bound = Names(Vec::new(), ExprContext::Store);
    for generator in generators {
        bound.visit_expr(&generator.target);
    }
    for part in parts {
        let mut read = Names(Vec::new(), ExprContext::Load);
        read.visit_expr(part);
        if read.0.iter().all(|name| !bound.0.contains(name)) {
            replace_by(ctx, whole, part, "comprehension-to-element");
        }
    }
}

/// The names of an expression in one context (`Store`: bound; `Load`: read), nested scopes
/// included.
struct Names(Vec<String>, ExprContext);

impl Visitor<'_> for Names {
    fn visit_expr(&mut self, expr: &Expr) {
        if let Expr::Name(n) = expr {
            if n.ctx == self.1 {
                self.0.push(n.id.to_string());
            }
        }
        walk_expr(self, expr);
    }
}
