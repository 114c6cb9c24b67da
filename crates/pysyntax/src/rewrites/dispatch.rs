//! Indirections a person never writes in a reproducer ([`Group::Simplifications`]):
//!
//! - `registry-lookup`: `D['k']` → `f`, where `D` is bound at module level and `f` is a
//!   module-level `def` or `class` decorated by a registrar of `D` (a module-level function whose
//!   body names `D`). With a decorator call that names the key (`@register('k')`) only the
//!   definitions registered under `'k'` are offered; otherwise (a bare `@registrar` that derives
//!   the key from the definition) every definition the registrar decorates is. Once the lookup is
//!   gone, the decorator, the registrar and `D` are left unused for the removal groups; the
//!   same replacement is also offered with the registering decorator's line removed at once.
//! - `await-to-callee`: `f(…)` → `g(…)`, where `f` is a module-level `async def` whose own body
//!   (outside nested scopes) awaits the call `g(…)`: running the awaited coroutine instead of the
//!   one that awaits it (`asyncio.run(main())` → `asyncio.run(batch(o))`); a single-task
//!   `await asyncio.gather(x)` counts as awaiting `x` (in place it is `await x` by
//!   `call-to-arg`); so does a call of a module coroutine in a comprehension of its own
//!   (`gather(*(g() for o in os))`: the edit's run judges whether it reads the loop's names).
//!   A coroutine named only by its `def` and that call is removed in the same
//!   edit (the replacement alone saves nothing; the dead coroutine does).
//!
//! Both replace a callee or a call by text of the module; the candidate's run judges whether the
//! failure (and where it is raised) stays the same, so a wrong guess costs one run.

use std::collections::{BTreeSet, HashMap};
use std::ops::Range;

use ruff_python_ast::token::TokenKind;
use ruff_python_ast::visitor::{walk_expr, walk_stmt, Visitor};
use ruff_python_ast::{self as ast, Expr, Stmt};

use ruff_text_size::Ranged;

use super::statements::removal_range;
use super::{span, Ctx};
use crate::text::{is_line_start, line_start, next_line_start};
use crate::Group;

/// Lists the `registry-lookup` and `await-to-callee` rewrites of a module body.
pub fn indirections(ctx: &mut Ctx<'_>, body: &[Stmt]) {
    if ctx.group != Group::Simplifications {
        return;
    }
    let mut uses = Uses::default();
    uses.visit_body(body);
    registry_lookups(ctx, body, &uses.lookups);
    awaited_callees(ctx, body, &uses.calls);
}

/// The subscripts and calls of a module, in source order.
#[derive(Default)]
struct Uses<'a> {
    /// `D['k']` read: (the subscript, `D`, `'k'`).
    lookups: Vec<(&'a Expr, &'a str, String)>,
    /// Calls of a plain name: (the call, the name).
    calls: Vec<(&'a Expr, &'a str)>,
}

impl<'a> Visitor<'a> for Uses<'a> {
    fn visit_expr(&mut self, expr: &'a Expr) {
        match expr {
            Expr::Subscript(s) if s.ctx.is_load() => {
                if let (Expr::Name(d), Expr::StringLiteral(k)) = (&*s.value, &*s.slice) {
                    self.lookups
                        .push((expr, d.id.as_str(), k.value.to_str().to_string()));
                }
            }
            Expr::Call(c) => {
                if let Expr::Name(f) = &*c.func {
                    self.calls.push((expr, f.id.as_str()));
                }
            }
            _ => {}
        }
        walk_expr(self, expr);
    }
}

/// Whether `name` occurs as a name anywhere in `body`.
fn names(body: &[Stmt], name: &str) -> bool {
    struct Find<'n>(&'n str, bool);
    impl Visitor<'_> for Find<'_> {
        fn visit_expr(&mut self, expr: &Expr) {
            if let Expr::Name(n) = expr {
                self.1 |= n.id.as_str() == self.0;
            }
            walk_expr(self, expr);
        }
    }
    let mut find = Find(name, false);
    find.visit_body(body);
    find.1
}

/// A module-level definition with its decorators.
struct Decorated<'a> {
    name: &'a str,
    decorators: &'a [ast::Decorator],
}

fn decorated(body: &[Stmt]) -> Vec<Decorated<'_>> {
    body.iter()
        .filter_map(|stmt| match stmt {
            Stmt::FunctionDef(d) => Some(Decorated {
                name: d.name.as_str(),
                decorators: &d.decorator_list,
            }),
            Stmt::ClassDef(c) => Some(Decorated {
                name: c.name.as_str(),
                decorators: &c.decorator_list,
            }),
            _ => None,
        })
        .filter(|d| !d.decorators.is_empty())
        .collect()
}

/// The registrar a decorator applies and the string keys its call passes (`None` for a bare
/// name).
fn registrar(decorator: &ast::Decorator) -> Option<(&str, Option<Vec<String>>)> {
    match &decorator.expression {
        Expr::Name(n) => Some((n.id.as_str(), None)),
        Expr::Call(c) => {
            let Expr::Name(n) = &*c.func else {
                return None;
            };
            let keys = c
                .arguments
                .args
                .iter()
                .chain(c.arguments.keywords.iter().map(|k| &k.value))
                .filter_map(|a| a.as_string_literal_expr())
                .map(|s| s.value.to_str().to_string())
                .collect();
            Some((n.id.as_str(), Some(keys)))
        }
        _ => None,
    }
}

fn registry_lookups(ctx: &mut Ctx<'_>, body: &[Stmt], lookups: &[(&Expr, &str, String)]) {
    let module_names: BTreeSet<&str> = body
        .iter()
        .flat_map(|stmt| match stmt {
            Stmt::Assign(a) => a.targets.iter().collect::<Vec<_>>(),
            Stmt::AnnAssign(a) => vec![&*a.target],
            _ => Vec::new(),
        })
        .filter_map(|t| t.as_name_expr().map(|n| n.id.as_str()))
        .collect();
    let functions: HashMap<&str, &ast::StmtFunctionDef> = body
        .iter()
        .filter_map(|s| s.as_function_def_stmt().map(|d| (d.name.as_str(), d)))
        .collect();
    let definitions = decorated(body);
    for (lookup, registry, key) in lookups {
        if !module_names.contains(registry) {
            continue;
        }
        let mut keyed = Vec::new();
        let mut derived = Vec::new();
        for def in &definitions {
            for decorator in def.decorators {
                let Some((name, keys)) = registrar(decorator) else {
                    continue;
                };
                if !functions
                    .get(name)
                    .is_some_and(|f| names(&f.body, registry))
                {
                    continue;
                }
                match keys {
                    Some(keys) if keys.contains(key) => keyed.push((def.name, decorator)),
                    None => derived.push((def.name, decorator)),
                    Some(_) => {}
                }
            }
        }
        for (target, decorator) in if keyed.is_empty() { derived } else { keyed } {
            let lookup = span(*lookup);
            ctx.push(
                Group::Simplifications,
                "registry-lookup",
                lookup.clone(),
                target.to_string(),
                &[],
            );
            with_decorator_removed(ctx, lookup, target, decorator);
        }
    }
}

/// `registry-lookup` with the registering decorator's line removed in the same edit: a
/// decorator that only registers has no use once its lookup is gone, and removed first it would
/// leave the lookup failing, removed after the registrar's `return` it leaves the name `None`.
fn with_decorator_removed(
    ctx: &mut Ctx<'_>,
    lookup: Range<usize>,
    target: &str,
    decorator: &ast::Decorator,
) {
    let at = decorator.start().to_usize();
    if !is_line_start(ctx.source, at) {
        return;
    }
    let line = line_start(ctx.source, at)..next_line_start(ctx.source, decorator.end().to_usize());
    if line.start < lookup.end && lookup.start < line.end {
        return;
    }
    push_two(
        ctx,
        "registry-lookup",
        (line, String::new()),
        (lookup, target.to_string()),
    );
}

/// Pushes one rewrite making two disjoint edits at once, the text between them kept.
fn push_two(
    ctx: &mut Ctx<'_>,
    kind: &'static str,
    one: (Range<usize>, String),
    other: (Range<usize>, String),
) {
    let mut edits = [one, other];
    edits.sort_by_key(|(r, _)| r.start);
    let whole = edits[0].0.start..edits[1].0.end;
    let between = edits[0].0.end..edits[1].0.start;
    let replacement = ctx.spliced(whole.clone(), &edits);
    ctx.push(
        Group::Simplifications,
        kind,
        whole,
        replacement,
        std::slice::from_ref(&between),
    );
}

/// The calls a function's own body awaits (`await g(…)`, not inside nested scopes), and its
/// calls of the module's coroutines (`coroutines`) that a comprehension or generator expression
/// of its own holds (`gather(*(g() for …))`): the coroutines it runs.
fn awaited<'a>(body: &'a [Stmt], coroutines: &BTreeSet<&str>) -> Vec<&'a Expr> {
    struct Awaits<'a, 'n> {
        coroutines: &'n BTreeSet<&'n str>,
        depth: usize,
        found: Vec<&'a Expr>,
    }
    impl<'a> Visitor<'a> for Awaits<'a, '_> {
        fn visit_stmt(&mut self, stmt: &'a Stmt) {
            if !matches!(stmt, Stmt::FunctionDef(_) | Stmt::ClassDef(_)) {
                walk_stmt(self, stmt);
            }
        }
        fn visit_expr(&mut self, expr: &'a Expr) {
            if expr.is_lambda_expr() {
                return;
            }
            match expr {
                Expr::Await(a) if self.depth == 0 => {
                    let task = single_task(&a.value).unwrap_or(&a.value);
                    if task.is_call_expr() {
                        self.found.push(task);
                    }
                }
                Expr::Call(c)
                    if self.depth > 0
                        && c.func
                            .as_name_expr()
                            .is_some_and(|f| self.coroutines.contains(f.id.as_str())) =>
                {
                    self.found.push(expr);
                }
                _ => {}
            }
            let scope = super::opens_scope(expr);
            self.depth += usize::from(scope);
            walk_expr(self, expr);
            self.depth -= usize::from(scope);
        }
    }
    let mut awaits = Awaits {
        coroutines,
        depth: 0,
        found: Vec::new(),
    };
    awaits.visit_body(body);
    awaits.found
}

/// The one task of `asyncio.gather(x)` (or `gather(x)`): one positional argument, no keywords.
fn single_task(expr: &Expr) -> Option<&Expr> {
    let call = expr.as_call_expr()?;
    let gather = match &*call.func {
        Expr::Name(n) => n.id.as_str() == "gather",
        Expr::Attribute(a) => a.attr.as_str() == "gather",
        _ => false,
    };
    match (&*call.arguments.args, &*call.arguments.keywords) {
        ([task], []) if gather && !task.is_starred_expr() => Some(task),
        _ => None,
    }
}

fn awaited_callees(ctx: &mut Ctx<'_>, body: &[Stmt], calls: &[(&Expr, &str)]) {
    let mut named: HashMap<&str, usize> = HashMap::new();
    for token in ctx.tokens {
        if token.kind() == TokenKind::Name || token.kind().is_soft_keyword() {
            *named.entry(ctx.text(span(token))).or_default() += 1;
        }
    }
    let defs: Vec<(usize, &ast::StmtFunctionDef)> = body
        .iter()
        .enumerate()
        .filter_map(|(i, s)| s.as_function_def_stmt().map(|d| (i, d)))
        .filter(|(_, d)| d.is_async)
        .collect();
    let names: BTreeSet<&str> = defs.iter().map(|(_, d)| d.name.as_str()).collect();
    let coroutines: HashMap<&str, (usize, Vec<&Expr>)> = defs
        .iter()
        .map(|&(i, d)| (d.name.as_str(), (i, awaited(&d.body, &names))))
        .collect();
    for (call, name) in calls {
        let Some((i, inner)) = coroutines.get(name) else {
            continue;
        };
        let range = span(*call);
        let def = removal_range(ctx.source, body, *i);
        // Named only by its `def` and this call, the coroutine goes in the same edit: the
        // replacement alone saves no tokens, and it is the dead coroutine that does.
        let used_once = named.get(name) == Some(&2) && !def.contains(&range.start);
        for awaited in inner.iter().filter(|a| !range.contains(&span(**a).start)) {
            let text = ctx.operand(awaited);
            if !used_once {
                ctx.push(
                    Group::Simplifications,
                    "await-to-callee",
                    range.clone(),
                    text,
                    &[],
                );
                continue;
            }
            push_two(
                ctx,
                "await-to-callee",
                (def.clone(), String::new()),
                (range.clone(), text),
            );
        }
    }
}
