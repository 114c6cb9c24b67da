//! `inline-variable` ([`Group::Simplifications`]): `V = E` followed, later in the same block, by
//! the only use of `V` that sees this binding becomes that use replaced by `E` (parenthesised
//! where needed), with the assignment gone: `p = Pipeline(s)` / `p.run()` → `Pipeline(s).run()`.
//!
//! Names are counted per scope ([`crate::scopes`]): the binding `V` of the assignment's scope must
//! be bound exactly once (by this assignment) and loaded exactly once, loads from nested scopes
//! included, so a parameter or local `V` of another function does not count. Where the scopes
//! cannot be trusted (star imports, `exec`, `locals()`, …) names are counted module-wide
//! instead, as if the module were one scope.

use rustc_hash::FxHashMap as HashMap;

use ruff_python_ast::visitor::{walk_body, walk_expr, walk_stmt, Visitor};
use ruff_python_ast::{self as ast, Expr, Stmt};
use ruff_text_size::Ranged;

use super::statements::removal_range;
use super::{span, Ctx};
use crate::scopes::{Count, Resolution};
use crate::Group;

/// Lists the `inline-variable` rewrites of a module whose names `resolution` resolves.
pub fn inline_variables(ctx: &mut Ctx<'_>, body: &[Stmt], resolution: &Resolution<'_>) {
    if ctx.group != Group::Simplifications {
        return;
    }
    let counts = if resolution.dynamic {
        let mut counter = Counter::default();
        counter.visit_body(body);
        Counts::ModuleWide(counter.counts)
    } else {
        Counts::Scoped(resolution.counts(), resolution)
    };
    let mut inliner = Inliner { ctx, counts };
    inliner.visit_body(body);
}

/// Name counts, module-wide or per scope.
enum Counts<'r, 'a> {
    ModuleWide(HashMap<String, Count>),
    Scoped(HashMap<(usize, &'a str), Count>, &'r Resolution<'a>),
}

impl<'n> Counts<'_, 'n> {
    /// The counts of the binding an assignment to `target` makes.
    fn of<'s>(&'s self, target: &'s ast::ExprName) -> Option<&'s Count> {
        match self {
            Counts::ModuleWide(counts) => counts.get(target.id.as_str()),
            Counts::Scoped(counts, resolution) => {
                let scope = resolution.scope_of(target.start().to_usize())?;
                counts.get(&(scope, target.id.as_str()))
            }
        }
    }
}

/// Counts bindings and loads of every name (module-wide, scopes ignored).
#[derive(Default)]
pub(crate) struct Counter {
    /// Per name.
    pub(crate) counts: HashMap<String, Count>,
}

impl Counter {
    fn bind(&mut self, name: &str) {
        self.counts.entry(name.to_owned()).or_default().binds += 1;
    }
}

impl<'a> Visitor<'a> for Counter {
    fn visit_stmt(&mut self, stmt: &'a Stmt) {
        for name in crate::bindings::statement_bindings(stmt) {
            self.bind(name);
        }
        match stmt {
            Stmt::Global(g) => g.names.iter().for_each(|n| self.bind(n.as_str())),
            Stmt::Nonlocal(n) => n.names.iter().for_each(|n| self.bind(n.as_str())),
            _ => {}
        }
        walk_stmt(self, stmt);
    }

    fn visit_expr(&mut self, expr: &'a Expr) {
        if let Expr::Name(n) = expr {
            if n.ctx.is_load() {
                let count = self.counts.entry(n.id.to_string()).or_default();
                count.loads += 1;
                count.load_at = span(expr);
            } else {
                self.bind(n.id.as_str());
            }
        }
        walk_expr(self, expr);
    }

    fn visit_parameter(&mut self, parameter: &'a ast::Parameter) {
        self.bind(parameter.name.as_str());
        ast::visitor::walk_parameter(self, parameter);
    }

    fn visit_pattern(&mut self, pattern: &'a ast::Pattern) {
        let captured = crate::bindings::pattern_binding(pattern);
        if let Some(name) = captured {
            self.bind(name.as_str());
        }
        ast::visitor::walk_pattern(self, pattern);
    }
}

/// Finds `V = E` statements whose variable is used once, later in the same block.
struct Inliner<'c, 'a, 'r, 'n> {
    ctx: &'c mut Ctx<'a>,
    counts: Counts<'r, 'n>,
}

impl<'a> Visitor<'a> for Inliner<'_, '_, '_, '_> {
    fn visit_body(&mut self, body: &'a [Stmt]) {
        let block_end = body.last().map_or(0, |s| s.end().to_usize());
        for (i, stmt) in body.iter().enumerate() {
            let Stmt::Assign(assign) = stmt else {
                continue;
            };
            let [Expr::Name(target)] = &assign.targets[..] else {
                continue;
            };
            let Some(count) = self.counts.of(target) else {
                continue;
            };
            let use_at = count.load_at.clone();
            if count.binds != 1 || count.loads != 1 {
                continue;
            }
            let removed = removal_range(self.ctx.source, body, i);
            if use_at.start < removed.end || use_at.end > block_end {
                continue;
            }
            let between = removed.end..use_at.start;
            let value = self.ctx.operand(&assign.value);
            let text = format!("{}{value}", self.ctx.text(between.clone()));
            self.ctx.push(
                Group::Simplifications,
                "inline-variable",
                removed.start..use_at.end,
                text,
                &[between, span(&*assign.value)],
            );
        }
        walk_body(self, body);
    }
}
