//! `inline-function-call` ([`Group::FastRemovals`]): a module-level `def f():` without
//! decorators and parameters (but unused `*args`, `**kwargs`), whose name the module uses exactly once, by a later statement `f()`
//! at module scope (possibly inside an `if`, `for`, `with`, … block, not in a function or class),
//! becomes its body in place of that call, with the `def` gone: `def main():` / `    run()` /
//! `if __name__ == "__main__":` / `    main()` → `if __name__ == "__main__":` / `    run()`.
//!
//! "Used exactly once" is decided on tokens: the name is a name token exactly twice in the module
//! (the `def` and the call), so no other binding, use, attribute or keyword can see it;
//! conservative, and blind to dynamic lookups like every static check here.
//!
//! The body then runs at module scope, so it must not need a function around it: a `return`,
//! `yield`, `await`, `global` or `nonlocal` at the function's own level (not inside a nested
//! `def`, `lambda` or `class`) rules the rewrite out. Dropping only the `def` header while keeping
//! the call is never proposed: the call would end in a `NameError`.

use std::collections::HashMap;

use ruff_python_ast::token::TokenKind;
use ruff_python_ast::visitor::{walk_expr, walk_stmt, Visitor};
use ruff_python_ast::{self as ast, Expr, Stmt};
use ruff_text_size::Ranged;

use super::statements::removal_range;
use super::{span, Ctx};
use crate::text::{indent_at, is_line_start, next_line_start};
use crate::Group;

/// Lists the `inline-function-call` rewrites of a module body.
pub fn inline_calls(ctx: &mut Ctx<'_>, body: &[Stmt]) {
    if ctx.group != Group::FastRemovals {
        return;
    }
    let mut names: HashMap<&str, usize> = HashMap::new();
    for token in ctx.tokens {
        if token.kind() == TokenKind::Name || token.kind().is_soft_keyword() {
            *names.entry(ctx.text(span(token))).or_default() += 1;
        }
    }
    for (i, stmt) in body.iter().enumerate() {
        let Stmt::FunctionDef(def) = stmt else {
            continue;
        };
        if def.is_async
            || !def.decorator_list.is_empty()
            || def.type_params.is_some()
            || !only_unused_varargs(ctx, def)
            || names.get(def.name.as_str()) != Some(&2)
            || needs_function(&def.body)
        {
            continue;
        }
        let mut finder = BareCall {
            name: def.name.as_str(),
            found: None,
        };
        finder.visit_body(&body[i + 1..]);
        let (Some(call), Some(suite)) = (finder.found, ctx.suite(&def.body)) else {
            continue;
        };
        // The call must be alone on its line: the body may span several lines.
        let alone = is_line_start(ctx.source, call.start)
            && ctx
                .token_after(call.end)
                .is_none_or(|t| t.start().to_usize() >= next_line_start(ctx.source, call.end));
        if !alone {
            continue;
        }
        let removed = removal_range(ctx.source, body, i);
        let between = removed.end..call.start;
        let to = indent_at(ctx.source, call.start).to_string();
        let text = format!("{}{}", ctx.text(between.clone()), ctx.moved(&suite, &to));
        ctx.push(
            Group::FastRemovals,
            "inline-function-call",
            removed.start..call.end,
            text,
            &[between, suite.span],
        );
    }
}

/// Whether `def` has no parameters but `*args` / `**kwargs` (which `add-varargs` adds) that its
/// body does not mention: a call without arguments binds them to nothing the body needs.
fn only_unused_varargs(ctx: &Ctx<'_>, def: &ast::StmtFunctionDef) -> bool {
    let p = &def.parameters;
    if !(p.posonlyargs.is_empty() && p.args.is_empty() && p.kwonlyargs.is_empty()) {
        return false;
    }
    let Some(body) = ctx.suite(&def.body) else {
        return false;
    };
    let tokens = &ctx.tokens[ctx.token_at(body.span.start)..ctx.token_at(body.span.end)];
    [&p.vararg, &p.kwarg]
        .into_iter()
        .flatten()
        .all(|v| tokens.iter().all(|t| ctx.text(span(t)) != v.name.as_str()))
}

/// Finds the expression statement `name()` at module scope (not inside a `def` or `class`).
struct BareCall<'n> {
    name: &'n str,
    found: Option<std::ops::Range<usize>>,
}

impl Visitor<'_> for BareCall<'_> {
    fn visit_stmt(&mut self, stmt: &Stmt) {
        match stmt {
            Stmt::FunctionDef(_) | Stmt::ClassDef(_) => {}
            Stmt::Expr(ast::StmtExpr { value, .. }) => {
                if let Expr::Call(call) = &**value {
                    if call.arguments.is_empty()
                        && matches!(&*call.func, Expr::Name(n) if n.id.as_str() == self.name)
                    {
                        self.found = Some(span(stmt));
                    }
                }
            }
            _ => walk_stmt(self, stmt),
        }
    }
}

/// Whether a function body uses, at its own level, a statement or expression that only a
/// function allows (or that means something else at module level).
pub(super) fn needs_function(body: &[Stmt]) -> bool {
    let mut finder = FunctionOnly(false);
    finder.visit_body(body);
    finder.0
}

/// Finds `return`, `yield`, `await`, `global` and `nonlocal` outside nested scopes.
struct FunctionOnly(bool);

impl Visitor<'_> for FunctionOnly {
    fn visit_stmt(&mut self, stmt: &Stmt) {
        match stmt {
            Stmt::Return(_) | Stmt::Global(_) | Stmt::Nonlocal(_) => self.0 = true,
            // Their bodies are other scopes; decorators, defaults and bases still run here.
            Stmt::FunctionDef(f) => {
                f.decorator_list
                    .iter()
                    .for_each(|d| self.visit_expr(&d.expression));
                self.visit_parameters(&f.parameters);
                if let Some(returns) = &f.returns {
                    self.visit_expr(returns);
                }
            }
            Stmt::ClassDef(c) => {
                c.decorator_list
                    .iter()
                    .for_each(|d| self.visit_expr(&d.expression));
                if let Some(arguments) = &c.arguments {
                    self.visit_arguments(arguments);
                }
            }
            _ => walk_stmt(self, stmt),
        }
    }

    fn visit_expr(&mut self, expr: &Expr) {
        match expr {
            Expr::Yield(_) | Expr::YieldFrom(_) | Expr::Await(_) => self.0 = true,
            Expr::Lambda(l) => {
                if let Some(parameters) = &l.parameters {
                    self.visit_parameters(parameters);
                }
            }
            _ => walk_expr(self, expr),
        }
    }
}
