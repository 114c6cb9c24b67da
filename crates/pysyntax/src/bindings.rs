//! Name binding helpers for scope checks: `global` declarations of a scope and whether a
//! function body binds a name (for `nonlocal`).

use ruff_python_ast::visitor::{walk_expr, walk_stmt, Visitor};
use ruff_python_ast::{self as ast, Expr, Stmt};
use ruff_text_size::TextRange;

/// Names a statement binds by itself, not through its body or its expressions: `def` and
/// `class` names, imported names (`import a.b` binds `a`), `except … as name`.
pub(crate) fn statement_bindings(stmt: &Stmt) -> Vec<&str> {
    match stmt {
        Stmt::FunctionDef(f) => vec![f.name.as_str()],
        Stmt::ClassDef(c) => vec![c.name.as_str()],
        Stmt::Import(i) => i
            .names
            .iter()
            .map(|alias| match &alias.asname {
                Some(asname) => asname.as_str(),
                None => alias.name.as_str().split('.').next().unwrap_or(""),
            })
            .collect(),
        Stmt::ImportFrom(i) => i
            .names
            .iter()
            .map(|alias| alias.asname.as_ref().unwrap_or(&alias.name).as_str())
            .collect(),
        Stmt::Try(t) => t
            .handlers
            .iter()
            .filter_map(|handler| {
                let ast::ExceptHandler::ExceptHandler(h) = handler;
                h.name.as_ref().map(|name| name.as_str())
            })
            .collect(),
        _ => Vec::new(),
    }
}

/// A comprehension's generators and what it produces, in evaluation order (a dict
/// comprehension's key, if any, and value; the element otherwise); `None` for any other
/// expression.
pub(crate) fn comprehension(expr: &Expr) -> Option<(&[ast::Comprehension], [Option<&Expr>; 2])> {
    match expr {
        Expr::ListComp(ast::ExprListComp {
            elt, generators, ..
        })
        | Expr::SetComp(ast::ExprSetComp {
            elt, generators, ..
        })
        | Expr::Generator(ast::ExprGenerator {
            elt, generators, ..
        }) => Some((generators, [Some(elt), None])),
        Expr::DictComp(ast::ExprDictComp {
            key,
            value,
            generators,
            ..
        }) => Some((generators, [key.as_deref(), Some(value)])),
        _ => None,
    }
}

/// The name a pattern captures by itself (`case x`, `case [*rest]`, `case {**rest}`), if any.
pub(crate) fn pattern_binding(pattern: &ast::Pattern) -> Option<&ast::Identifier> {
    match pattern {
        ast::Pattern::MatchAs(p) => p.name.as_ref(),
        ast::Pattern::MatchStar(p) => p.name.as_ref(),
        ast::Pattern::MatchMapping(p) => p.rest.as_ref(),
        _ => None,
    }
}

/// The first `global` declaration of each name directly in `body` (not in nested scopes).
pub fn globals(body: &[Stmt]) -> Vec<(&str, TextRange)> {
    let mut found: Vec<(&str, TextRange)> = Vec::new();
    let mut stack: Vec<&[Stmt]> = vec![body];
    while let Some(suite) = stack.pop() {
        for stmt in suite {
            match stmt {
                Stmt::Global(g) => {
                    for name in &g.names {
                        if !found.iter().any(|(n, _)| *n == name.as_str()) {
                            found.push((name.as_str(), g.range));
                        }
                    }
                }
                Stmt::FunctionDef(_) | Stmt::ClassDef(_) => {}
                _ => stack.extend(crate::freeze::child_suites(stmt)),
            }
        }
    }
    found
}

/// Whether `body` (a function body, nested scopes excluded) binds `name`.
pub fn binds(body: &[Stmt], name: &str) -> bool {
    let mut finder = BindingFinder { name, found: false };
    finder.visit_body(body);
    finder.found
}

impl<'a> BindingFinder<'_> {
    /// Visits a comprehension's iterables and conditions (not its targets).
    fn generators(&mut self, generators: &'a [ast::Comprehension]) {
        for generator in generators {
            self.visit_expr(&generator.iter);
            for condition in &generator.ifs {
                self.visit_expr(condition);
            }
        }
    }
}

/// Looks for a binding of one name in one scope.
struct BindingFinder<'n> {
    name: &'n str,
    found: bool,
}

impl<'a> Visitor<'a> for BindingFinder<'_> {
    fn visit_stmt(&mut self, stmt: &'a Stmt) {
        if self.found {
            return;
        }
        let name = self.name;
        match stmt {
            Stmt::FunctionDef(f) => self.found = f.name.as_str() == name,
            Stmt::ClassDef(c) => self.found = c.name.as_str() == name,
            Stmt::Import(i) => {
                self.found = i.names.iter().any(|a| {
                    let bound = a.asname.as_ref().unwrap_or(&a.name).as_str();
                    bound.split('.').next() == Some(name)
                })
            }
            Stmt::ImportFrom(i) => {
                self.found = i
                    .names
                    .iter()
                    .any(|a| a.asname.as_ref().unwrap_or(&a.name).as_str() == name)
            }
            Stmt::Nonlocal(n) => self.found = n.names.iter().any(|n| n.as_str() == name),
            Stmt::Try(t) => {
                for handler in &t.handlers {
                    let ast::ExceptHandler::ExceptHandler(h) = handler;
                    if h.name.as_ref().is_some_and(|n| n.as_str() == name) {
                        self.found = true;
                    }
                }
                walk_stmt(self, stmt);
            }
            _ => walk_stmt(self, stmt),
        }
    }

    fn visit_expr(&mut self, expr: &'a Expr) {
        if self.found {
            return;
        }
        match expr {
            Expr::Name(n) => {
                self.found = n.id.as_str() == self.name && !n.ctx.is_load();
            }
            Expr::Lambda(_) => {}
            _ => match comprehension(expr) {
                // Comprehension targets bind in the comprehension; a walrus inside binds here.
                Some((generators, produced)) => {
                    self.generators(generators);
                    produced
                        .into_iter()
                        .flatten()
                        .for_each(|e| self.visit_expr(e));
                }
                None => walk_expr(self, expr),
            },
        }
    }

    fn visit_pattern(&mut self, pattern: &'a ast::Pattern) {
        let name = self.name;
        let captures = crate::bindings::pattern_binding(pattern);
        if captures.is_some_and(|n| n.as_str() == name) {
            self.found = true;
        }
        ast::visitor::walk_pattern(self, pattern);
    }
}
