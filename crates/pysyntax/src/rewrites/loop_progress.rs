//! Loop progress: statements that make an enclosing `while` loop advance. Removing one
//! (`self.pc += 1` in `while self.pc < len(self.code)`, `chunks.pop()` in `while chunks`, the
//! `break` of a `while True`) almost always leaves a loop that runs until the candidate timeout:
//! every such candidate costs a whole `--timeout` and is never accepted. `remove-statement` is
//! therefore not offered for them; the loop itself can still go, with everything in it.

use ruff_python_ast::visitor::{walk_expr, walk_stmt, Visitor};
use ruff_python_ast::{self as ast, Expr, Stmt};

use super::span;

/// What advances one enclosing `while` loop.
#[derive(Debug, Clone)]
pub struct LoopProgress {
    /// Source texts of the names and attribute chains its test reads (`self.pc`, `limit`).
    watched: Vec<String>,
    /// The test is a constant true (`while True`, `while 1`): only `break`/`return` end it.
    endless: bool,
}

impl LoopProgress {
    /// The progress of a `while` statement, read off its test.
    pub fn of(source: &str, s: &ast::StmtWhile) -> Self {
        let mut reads = Reads {
            source,
            texts: Vec::new(),
        };
        reads.visit_expr(&s.test);
        let endless = match &*s.test {
            Expr::BooleanLiteral(b) => b.value,
            Expr::NumberLiteral(n) => matches!(&n.value, ast::Number::Int(i) if *i != 0),
            _ => false,
        };
        LoopProgress {
            watched: reads.texts,
            endless,
        }
    }
}

/// Whether `stmt`, inside the loops `enclosing` (innermost last), writes what a loop's test
/// reads, calls a method on it, or (in an endless loop) breaks or returns — searched through
/// nested blocks, not into nested functions, classes or lambdas.
pub fn advances(source: &str, stmt: &Stmt, enclosing: &[LoopProgress]) -> bool {
    let Some(innermost) = enclosing.last() else {
        return false;
    };
    let mut finder = Advances {
        source,
        enclosing,
        endless: innermost.endless,
        found: false,
    };
    finder.visit_stmt(stmt);
    finder.found
}

/// Collects the names and outermost attribute chains an expression reads.
struct Reads<'s> {
    source: &'s str,
    texts: Vec<String>,
}

impl Visitor<'_> for Reads<'_> {
    fn visit_expr(&mut self, expr: &Expr) {
        match expr {
            Expr::Name(_) | Expr::Attribute(_) => {
                self.texts.push(self.source[span(expr)].to_owned());
            }
            Expr::Lambda(_) => {}
            _ => walk_expr(self, expr),
        }
    }
}

/// Looks for a statement or call that advances one of the enclosing loops.
struct Advances<'s, 'l> {
    source: &'s str,
    enclosing: &'l [LoopProgress],
    endless: bool,
    found: bool,
}

impl Advances<'_, '_> {
    /// Whether `expr` (an assignment target or a method's receiver) is something a loop reads:
    /// the expression itself or, for `x[i]` and `x.a`, what it indexes or belongs to.
    fn watched(&self, expr: &Expr) -> bool {
        let text = &self.source[span(expr)];
        let base = match expr {
            Expr::Subscript(s) => Some(&*s.value),
            Expr::Attribute(a) => Some(&*a.value),
            _ => None,
        };
        let base_text = base.map(|b| &self.source[span(b)]);
        self.enclosing.iter().any(|l| {
            l.watched
                .iter()
                .any(|w| w == text || Some(w.as_str()) == base_text)
        })
    }
}

impl Visitor<'_> for Advances<'_, '_> {
    fn visit_stmt(&mut self, stmt: &Stmt) {
        if self.found {
            return;
        }
        let targets: Vec<&Expr> = match stmt {
            Stmt::FunctionDef(_) | Stmt::ClassDef(_) => return,
            Stmt::Break(_) | Stmt::Return(_) if self.endless => {
                self.found = true;
                return;
            }
            Stmt::Assign(s) => s.targets.iter().collect(),
            Stmt::AugAssign(s) => vec![&*s.target],
            Stmt::AnnAssign(s) => vec![&*s.target],
            _ => Vec::new(),
        };
        if targets.into_iter().any(|t| self.watched(t)) {
            self.found = true;
            return;
        }
        walk_stmt(self, stmt);
    }

    fn visit_expr(&mut self, expr: &Expr) {
        if self.found {
            return;
        }
        match expr {
            Expr::Lambda(_) => {}
            Expr::Call(call) => {
                if let Expr::Attribute(method) = &*call.func {
                    if self.watched(&method.value) {
                        self.found = true;
                        return;
                    }
                }
                walk_expr(self, expr);
            }
            Expr::Named(named) if self.watched(&named.target) => self.found = true,
            _ => walk_expr(self, expr),
        }
    }
}
