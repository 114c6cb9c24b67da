//! The walks behind inlining: where each call is evaluated once, which attributes read a
//! name, and the names of an expression.

use std::ops::Range;

use rustc_hash::FxHashMap as HashMap;

use ruff_python_ast::visitor::{walk_expr, walk_stmt, Visitor};
use ruff_python_ast::{self as ast, Expr, Stmt};
use ruff_text_size::Ranged;

use super::super::{opens_scope, span};

/// The statement a call is evaluated in, once and unconditionally: the call is in its value
/// (`x = f(…)`, `return g(f(…))`, `raise E(f(…))`, …) or header (`for x in f(…):`, `if f(…):`,
/// `with f(…):`), not under `and`/`or`, a conditional expression, a lambda or a comprehension.
#[derive(Debug, Clone)]
pub(super) struct CallStatement {
    pub(super) start: usize,
    pub(super) end: usize,
    /// The statement is the call alone (`f(…)`).
    pub(super) whole: bool,
    /// The call is the statement's whole value (`x = f(…)`, `return f(…)`).
    pub(super) value: bool,
}

/// Call statements by the range of their call, attribute expressions `N.a` by the start of `N`.
#[derive(Default)]
pub(super) struct Sites<'a> {
    pub(super) statements: HashMap<(usize, usize), CallStatement>,
    pub(super) attributes: HashMap<usize, (&'a ast::ExprAttribute, bool)>,
}

impl Sites<'_> {
    /// Records the calls evaluated once by `stmt` in `expr` (`value`: `expr` is the statement's
    /// value).
    fn once(&mut self, stmt: &Stmt, expr: &Expr, value: bool) {
        match expr {
            Expr::BoolOp(_) | Expr::If(_) => return,
            e if opens_scope(e) => return,
            Expr::Call(call) => {
                let r = span(stmt);
                let whole = matches!(stmt, Stmt::Expr(_)) && value;
                let site = CallStatement {
                    start: r.start,
                    end: r.end,
                    whole,
                    value,
                };
                self.statements
                    .insert((call.start().to_usize(), call.end().to_usize()), site);
            }
            _ => {}
        }
        let mut children = Children(Vec::new());
        walk_expr(&mut children, expr);
        for child in children.0 {
            self.once(stmt, child, false);
        }
    }
}

/// The direct subexpressions of an expression.
pub(super) struct Children<'a>(Vec<&'a Expr>);

impl<'a> Visitor<'a> for Children<'a> {
    fn visit_expr(&mut self, expr: &'a Expr) {
        self.0.push(expr);
    }
}

impl<'a> Visitor<'a> for Sites<'a> {
    fn visit_stmt(&mut self, stmt: &'a Stmt) {
        let values: Vec<&Expr> = match stmt {
            Stmt::Expr(e) => vec![&e.value],
            Stmt::Assign(a) => vec![&a.value],
            Stmt::AugAssign(a) => vec![&a.value],
            Stmt::AnnAssign(a) => a.value.as_deref().into_iter().collect(),
            Stmt::Return(r) => r.value.as_deref().into_iter().collect(),
            Stmt::Raise(r) => r.exc.as_deref().into_iter().collect(),
            Stmt::If(i) => vec![&i.test],
            Stmt::For(f) => vec![&f.iter],
            Stmt::With(w) => w.items.iter().map(|i| &i.context_expr).collect(),
            _ => Vec::new(),
        };
        let whole_value =
            values.len() == 1 && !matches!(stmt, Stmt::If(_) | Stmt::For(_) | Stmt::With(_));
        for value in values {
            self.once(stmt, value, whole_value);
        }
        walk_stmt(self, stmt);
    }

    fn visit_expr(&mut self, expr: &'a Expr) {
        if let Expr::Attribute(a) = expr {
            if let Expr::Name(n) = &*a.value {
                let load = a.ctx.is_load();
                self.attributes.insert(n.start().to_usize(), (a, load));
            }
        }
        walk_expr(self, expr);
    }
}

/// The name loads of an expression in source order, and whether it has nested scopes or
/// bindings (which substitution cannot handle).
#[derive(Default)]
pub(super) struct Names<'a> {
    pub(super) loads: Vec<(Range<usize>, &'a str)>,
    pub(super) nested: bool,
    /// `yield` or `await`.
    pub(super) suspends: bool,
}

impl<'a> Visitor<'a> for Names<'a> {
    fn visit_expr(&mut self, expr: &'a Expr) {
        match expr {
            Expr::Name(n) if n.ctx.is_load() => {
                let name = n.id.as_str();
                // `super()` and `__class__` need the method's class cell.
                self.nested |= matches!(name, "super" | "__class__");
                self.loads.push((span(expr), name));
            }
            Expr::Name(_) | Expr::Named(_) => self.nested = true,
            e if opens_scope(e) => self.nested = true,
            Expr::Yield(_) | Expr::YieldFrom(_) | Expr::Await(_) => {
                self.nested = true;
                self.suspends = true;
            }
            _ => {}
        }
        walk_expr(self, expr);
    }
}
