//! Control-flow simplifications ([`Group::FastRemovals`]): a compound statement replaced by one
//! of its blocks, re-indented to the statement's level.
//!
//! - `if-to-body`: `if C: A [elif/else …]` → `A`;
//! - `if-to-else`: `if C: A elif D: B …` → `if D: B …`, `if C: A else: B` → `B`;
//! - `for-to-body`: `for V in E: B` → `V = 0…` (zeros shaped like `V`) then `B`;
//! - `while-to-body`: `while C: B` → `B`;
//! - `with-to-body`: `with E as V, F: B` → `V = 0…` (zeros shaped like `V`) then `B` (the
//!   context managers' entry and exit go);
//! - `try-to-body`: `try: B except …` → `B`; `remove-handler`: drop one `except` clause;
//! - `try-to-handler`: `try: B except E as V: H …` → `V = 0` then `H` (the failure raised again
//!   from a handler, with what the `try` body did to get there gone);
//! - `def-to-body`: `def f(P): B` → `B` (run where the function is defined), when `B` reads no
//!   parameter and has no `return`, `yield`, `await`, `nonlocal` of its own; `class-to-body`:
//!   `class C: B` → `B` when `B` defines no function (the class's methods go first). Both let a
//!   failure raised inside a function or method reach the top level without its callers; neither
//!   is offered for a definition before or around frozen code (the frozen code must still run
//!   before the failure);
//! - `remove-else`: drop an `elif`/`else` clause of an `if`, or the `else` of `for`/`while`/`try`;
//!   `remove-finally`: drop a `finally` clause.

use std::ops::Range;

use ruff_python_ast::token::TokenKind;
use ruff_python_ast::visitor::{walk_expr, walk_stmt, Visitor};
use ruff_python_ast::{self as ast, ExceptHandler, Expr, ExprContext, Stmt};
use ruff_text_size::Ranged;

use super::{span, Ctx, Suite};
use crate::text::{indent_at, is_line_start, line_start, next_line_start};
use crate::Group;

/// `if-to-body` and `if-to-else`.
pub fn if_rewrites(ctx: &mut Ctx<'_>, stmt: &Stmt, s: &ast::StmtIf) {
    if ctx.group != Group::FastRemovals {
        return;
    }
    let last_body = s.elif_else_clauses.last().map_or(&s.body, |c| &c.body);
    let range = stmt.start().to_usize()..ctx.compound_end(stmt, last_body);
    let to = indent_at(ctx.source, range.start).to_string();
    if let Some(body) = ctx.suite(&s.body) {
        push_block(ctx, "if-to-body", range.clone(), String::new(), &body, &to);
    }
    for clause in &s.elif_else_clauses {
        remove_clause(ctx, clause.start().to_usize(), &clause.body, "remove-else");
    }
    let Some(clause) = s.elif_else_clauses.first() else {
        return;
    };
    if clause.test.is_some() {
        let keyword = clause.start().to_usize();
        if ctx.text(keyword..keyword + 4) == "elif" {
            let kept = keyword + 4..range.end;
            let text = format!("if{}", ctx.text(kept.clone()));
            ctx.push(Group::FastRemovals, "if-to-else", range, text, &[kept]);
        }
    } else if let Some(body) = ctx.suite(&clause.body) {
        push_block(ctx, "if-to-else", range, String::new(), &body, &to);
    }
}

/// Pushes `kind`: the statement at `range` replaced by `prefix` and then the block `body`
/// re-indented to `to` (the block's text is kept).
fn push_block(
    ctx: &mut Ctx<'_>,
    kind: &'static str,
    range: Range<usize>,
    mut prefix: String,
    body: &Suite,
    to: &str,
) {
    prefix.push_str(&ctx.moved(body, to));
    ctx.push(
        Group::FastRemovals,
        kind,
        range,
        prefix,
        std::slice::from_ref(&body.span),
    );
}

/// `V = 0…` (zeros shaped like the target `V`) and a line break to the indentation `to`.
fn zeroed_target(ctx: &Ctx<'_>, target: &Expr, to: &str) -> String {
    let text = ctx.text(span(target));
    format!("{text} = {}{}{to}", zeros(target), ctx.nl)
}

/// Zeros shaped like an assignment target: `i, (a, b)` → `0, (0, 0)`.
pub fn zeros(target: &Expr) -> String {
    let list = |elts: &[Expr]| {
        let inner: Vec<String> = elts.iter().map(zeros).collect();
        if inner.len() == 1 {
            format!("{},", inner[0])
        } else {
            inner.join(", ")
        }
    };
    match target {
        Expr::Tuple(t) if t.elts.is_empty() => "()".into(),
        Expr::Tuple(t) if t.parenthesized => format!("({})", list(&t.elts)),
        Expr::Tuple(t) => list(&t.elts),
        Expr::List(l) => format!(
            "[{}]",
            l.elts.iter().map(zeros).collect::<Vec<_>>().join(", ")
        ),
        _ => "0".into(),
    }
}

/// The whole range of a loop statement (through its `else` clause, if any) and its indentation.
fn loop_span(ctx: &Ctx<'_>, stmt: &Stmt, body: &[Stmt], orelse: &[Stmt]) -> (Range<usize>, String) {
    let last_body = if orelse.is_empty() { body } else { orelse };
    let range = stmt.start().to_usize()..ctx.compound_end(stmt, last_body);
    let to = indent_at(ctx.source, range.start).to_string();
    (range, to)
}

/// `for-to-body`.
pub fn for_to_body(ctx: &mut Ctx<'_>, stmt: &Stmt, s: &ast::StmtFor) {
    if ctx.group != Group::FastRemovals {
        return;
    }
    let (range, to) = loop_span(ctx, stmt, &s.body, &s.orelse);
    let Some(body) = ctx.suite(&s.body) else {
        return;
    };
    remove_trailing_clause(ctx, &s.orelse, TokenKind::Else, "remove-else");
    let zeroed = zeroed_target(ctx, &s.target, &to);
    push_block(ctx, "for-to-body", range, zeroed, &body, &to);
}

/// `while-to-body`.
pub fn while_to_body(ctx: &mut Ctx<'_>, stmt: &Stmt, s: &ast::StmtWhile) {
    if ctx.group != Group::FastRemovals {
        return;
    }
    let (range, to) = loop_span(ctx, stmt, &s.body, &s.orelse);
    if let Some(body) = ctx.suite(&s.body) {
        push_block(ctx, "while-to-body", range, String::new(), &body, &to);
    }
}

/// `with-to-body`.
pub fn with_to_body(ctx: &mut Ctx<'_>, stmt: &Stmt, s: &ast::StmtWith) {
    if ctx.group != Group::FastRemovals {
        return;
    }
    let Some(body) = ctx.suite(&s.body) else {
        return;
    };
    let range = stmt.start().to_usize()..ctx.compound_end(stmt, &s.body);
    let to = indent_at(ctx.source, range.start).to_string();
    let zeroed: String = s
        .items
        .iter()
        .filter_map(|item| item.optional_vars.as_deref())
        .map(|target| zeroed_target(ctx, target, &to))
        .collect();
    push_block(ctx, "with-to-body", range, zeroed, &body, &to);
}

/// `try-to-body` and `remove-handler`.
pub fn try_rewrites(ctx: &mut Ctx<'_>, stmt: &Stmt, s: &ast::StmtTry) {
    if ctx.group != Group::FastRemovals {
        return;
    }
    let last_body = [&s.finalbody, &s.orelse]
        .into_iter()
        .find(|b| !b.is_empty())
        .map(|b| &b[..])
        .or_else(|| {
            s.handlers.last().map(|h| match h {
                ExceptHandler::ExceptHandler(h) => &h.body[..],
            })
        })
        .unwrap_or(&s.body[..]);
    let range = stmt.start().to_usize()..ctx.compound_end(stmt, last_body);
    let to = indent_at(ctx.source, range.start).to_string();
    if let Some(body) = ctx.suite(&s.body) {
        push_block(ctx, "try-to-body", range.clone(), String::new(), &body, &to);
    }
    for handler in &s.handlers {
        let ExceptHandler::ExceptHandler(h) = handler;
        if h.body.iter().all(super::headers::does_nothing) {
            continue; // as much as removing the statement
        }
        let Some(body) = ctx.suite(&h.body) else {
            continue;
        };
        let prefix = h.name.as_ref().map_or_else(String::new, |name| {
            format!("{} = 0{}{to}", name.id.as_str(), ctx.nl)
        });
        push_block(ctx, "try-to-handler", range.clone(), prefix, &body, &to);
    }
    remove_trailing_clause(ctx, &s.orelse, TokenKind::Else, "remove-else");
    if !s.handlers.is_empty() {
        remove_trailing_clause(ctx, &s.finalbody, TokenKind::Finally, "remove-finally");
    }
    if s.handlers.len() < 2 && s.finalbody.is_empty() {
        return;
    }
    for handler in &s.handlers {
        let ExceptHandler::ExceptHandler(h) = handler;
        let start = h.start().to_usize();
        if !is_line_start(ctx.source, start) {
            continue;
        }
        let end = ctx
            .suite(&h.body)
            .map_or(h.end().to_usize(), |b| b.span.end);
        let range = line_start(ctx.source, start)..next_line_start(ctx.source, end);
        ctx.push(
            Group::FastRemovals,
            "remove-handler",
            range,
            String::new(),
            &[],
        );
    }
}

/// Removes a clause starting (keyword at a line start) at `start` with block `body`.
fn remove_clause(ctx: &mut Ctx<'_>, start: usize, body: &[Stmt], kind: &'static str) {
    if !is_line_start(ctx.source, start) {
        return;
    }
    let Some(suite) = ctx.suite(body) else {
        return;
    };
    let range = line_start(ctx.source, start)..next_line_start(ctx.source, suite.span.end);
    ctx.push(Group::FastRemovals, kind, range, String::new(), &[]);
}

/// Removes the `else:`/`finally:` clause whose block is `body` (found from its keyword token).
fn remove_trailing_clause(
    ctx: &mut Ctx<'_>,
    body: &[Stmt],
    keyword: TokenKind,
    kind: &'static str,
) {
    let Some(first) = body.first() else {
        return;
    };
    let Some(colon) = ctx.token_before(first.start().to_usize()) else {
        return;
    };
    match ctx.token_before(colon.start().to_usize()) {
        Some(k) if k.kind() == keyword && colon.kind() == TokenKind::Colon => {
            remove_clause(ctx, k.start().to_usize(), body, kind);
        }
        _ => {}
    }
}

/// `def-to-body`.
pub fn def_to_body(ctx: &mut Ctx<'_>, stmt: &Stmt, s: &ast::StmtFunctionDef) {
    if ctx.group != Group::FastRemovals
        || s.is_async
        || s.body.iter().all(super::headers::does_nothing)
    {
        return;
    }
    let p = &s.parameters;
    let names: Vec<&str> = p
        .posonlyargs
        .iter()
        .chain(&p.args)
        .chain(&p.kwonlyargs)
        .map(|a| a.parameter.name.id.as_str())
        .chain(p.vararg.iter().map(|a| a.name.id.as_str()))
        .chain(p.kwarg.iter().map(|a| a.name.id.as_str()))
        .collect();
    let mut finder = OwnScope {
        names: &names,
        found: false,
    };
    finder.visit_body(&s.body);
    if finder.found {
        return;
    }
    whole_to_body(ctx, stmt, &s.body, "def-to-body");
}

/// `class-to-body`.
pub fn class_to_body(ctx: &mut Ctx<'_>, stmt: &Stmt, s: &ast::StmtClassDef) {
    if ctx.group != Group::FastRemovals
        || s.body.iter().all(super::headers::does_nothing)
        || s.body.iter().any(Stmt::is_function_def_stmt)
    {
        return;
    }
    whole_to_body(ctx, stmt, &s.body, "class-to-body");
}

/// The definition `stmt` (with its decorators) replaced by its block `body`.
fn whole_to_body(ctx: &mut Ctx<'_>, stmt: &Stmt, body: &[Stmt], kind: &'static str) {
    let range = stmt.start().to_usize()..ctx.compound_end(stmt, body);
    // The body would run where the definition stands: never before (or instead of) frozen code.
    if !is_line_start(ctx.source, range.start) || ctx.frozen.iter().any(|f| f.end > range.start) {
        return;
    }
    let to = indent_at(ctx.source, range.start).to_string();
    if let Some(block) = ctx.suite(body) {
        push_block(ctx, kind, range, String::new(), &block, &to);
    }
}

/// Finds, in a function body outside nested scopes, what moving the body out of the function
/// would break: `return`, `yield`, `await`, `nonlocal`, or a read of one of `names`.
struct OwnScope<'n> {
    names: &'n [&'n str],
    found: bool,
}

impl Visitor<'_> for OwnScope<'_> {
    fn visit_stmt(&mut self, stmt: &Stmt) {
        match stmt {
            Stmt::Return(_) | Stmt::Nonlocal(_) => self.found = true,
            Stmt::FunctionDef(d) => {
                // Its decorators and defaults run here; its body does not.
                for decorator in &d.decorator_list {
                    self.visit_expr(&decorator.expression);
                }
                self.visit_parameters(&d.parameters);
            }
            _ => walk_stmt(self, stmt),
        }
    }

    fn visit_expr(&mut self, expr: &Expr) {
        match expr {
            Expr::Yield(_) | Expr::YieldFrom(_) | Expr::Await(_) => self.found = true,
            Expr::Name(n) if n.ctx == ExprContext::Load && self.names.contains(&n.id.as_str()) => {
                self.found = true;
            }
            _ => walk_expr(self, expr),
        }
    }
}
