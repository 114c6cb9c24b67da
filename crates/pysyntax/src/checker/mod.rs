//! The [`SemanticSyntaxContext`] fed to ruff's [`SemanticSyntaxChecker`]: an AST visitor that
//! tracks scopes (module, class, function/lambda, comprehension), loops, `try` blocks, `global`
//! declarations and (lazily) bindings for `nonlocal`.

use std::cell::RefCell;

use ruff_python_ast::visitor::{walk_expr, walk_stmt, Visitor};
use ruff_python_ast::{self as ast, Expr, PythonVersion, Stmt};
use ruff_python_parser::semantic_errors::{
    LazyImportContext, SemanticSyntaxChecker, SemanticSyntaxContext, SemanticSyntaxError,
    SemanticSyntaxErrorKind,
};
use ruff_text_size::{Ranged, TextRange};

use crate::bindings::{binds, comprehension};
mod extra;

pub use crate::bindings::globals;

/// One scope of the checked program.
#[derive(Debug)]
enum Scope {
    Module,
    Class,
    /// A `def` or `lambda`, with its parameter names.
    Function {
        is_async: bool,
        parameters: Vec<String>,
    },
    Comprehension {
        is_async: bool,
        generator: bool,
    },
}

/// What a scope binds and declares global, for `global`/`nonlocal` checks.
#[derive(Debug, Default)]
struct Frame<'a> {
    /// `global` declarations directly in the scope (first one per name).
    globals: Vec<(&'a str, TextRange)>,
    /// Parameters of a function or lambda scope.
    parameters: Option<&'a ast::Parameters>,
    /// Body of a function scope (bindings are looked up lazily, for `nonlocal`).
    body: &'a [Stmt],
    /// CPython's compile-time block stack depth here (loops, `try`, `with` items).
    blocks: usize,
}

/// AST visitor feeding ruff's [`SemanticSyntaxChecker`] and answering its context questions.
pub struct Checker<'a> {
    checker: SemanticSyntaxChecker,
    /// Reported errors: (offset CPython would report, message).
    errors: RefCell<Vec<(usize, String)>>,
    /// Errors CPython reports that ruff's checker does not: (offset, message).
    extra: Vec<(usize, String)>,
    version: PythonVersion,
    source: &'a str,
    /// Scopes with the loop depth inside each (loops do not cross scope boundaries).
    scopes: Vec<(Scope, usize)>,
    /// One frame per scope, in step with `scopes`.
    frames: Vec<Frame<'a>>,
    in_try: bool,
    /// Inside an `except*` block, not inside a loop within it (`break`/`continue` forbidden).
    star_loop: bool,
    /// Inside an `except*` block, not inside a function within it (`return` forbidden).
    star_return: bool,
    /// The target of the `+=`-style assignment being visited (`x.__debug__ += 1` is allowed).
    aug_target: Option<TextRange>,
}

impl<'a> Checker<'a> {
    /// Checks a module body; returns the errors as (offset, message), unsorted.
    pub fn run(source: &'a str, version: PythonVersion, body: &'a [Stmt]) -> Vec<(usize, String)> {
        let mut visitor = Checker::new(source, version);
        visitor.frames.push(Frame {
            globals: globals(body),
            ..Frame::default()
        });
        visitor.visit_body(body);
        let mut found = visitor.errors.into_inner();
        found.extend(visitor.extra);
        found
    }

    fn new(source: &'a str, version: PythonVersion) -> Self {
        Self {
            checker: SemanticSyntaxChecker::new(),
            errors: RefCell::default(),
            version,
            source,
            scopes: vec![(Scope::Module, 0)],
            frames: Vec::new(),
            extra: Vec::new(),
            in_try: false,
            star_loop: false,
            star_return: false,
            aug_target: None,
        }
    }

    fn with_checker(&mut self, f: impl FnOnce(&mut SemanticSyntaxChecker, &Self)) {
        let mut checker = std::mem::take(&mut self.checker);
        f(&mut checker, self);
        self.checker = checker;
    }

    fn innermost(&self) -> &Scope {
        self.scopes
            .last()
            .map_or(&Scope::Module, |(scope, _)| scope)
    }

    fn in_scope(&mut self, scope: Scope, frame: Frame<'a>, f: impl FnOnce(&mut Self)) {
        self.scopes.push((scope, 0));
        self.frames.push(frame);
        let star = (self.star_loop, self.star_return);
        (self.star_loop, self.star_return) = (false, false);
        f(self);
        (self.star_loop, self.star_return) = star;
        self.scopes.pop();
        self.frames.pop();
    }

    fn in_loop(&mut self, f: impl FnOnce(&mut Self)) {
        if let Some((_, loops)) = self.scopes.last_mut() {
            *loops += 1;
        }
        let star_loop = std::mem::replace(&mut self.star_loop, false);
        f(self);
        self.star_loop = star_loop;
        if let Some((_, loops)) = self.scopes.last_mut() {
            *loops -= 1;
        }
    }

    /// The innermost scope that is not a comprehension.
    fn enclosing_non_comprehension(&self) -> &Scope {
        self.scopes
            .iter()
            .rev()
            .map(|(scope, _)| scope)
            .find(|scope| !matches!(scope, Scope::Comprehension { .. }))
            .unwrap_or(&Scope::Module)
    }
}

/// Names of every parameter of `parameters`.
fn parameter_names(parameters: Option<&ast::Parameters>) -> Vec<String> {
    parameters
        .map(|p| p.iter().map(|p| p.name().to_string()).collect())
        .unwrap_or_default()
}

impl SemanticSyntaxContext for Checker<'_> {
    fn future_annotations_or_stub(&self) -> bool {
        false
    }

    fn lazy_import_context(&self) -> Option<LazyImportContext> {
        match self.innermost() {
            Scope::Function { .. } => Some(LazyImportContext::Function),
            Scope::Class => Some(LazyImportContext::Class),
            _ if self.in_try => Some(LazyImportContext::TryExceptBlocks),
            _ => None,
        }
    }

    fn python_version(&self) -> PythonVersion {
        self.version
    }

    fn source(&self) -> &str {
        self.source
    }

    fn global(&self, name: &str) -> Option<TextRange> {
        let frame = self.frames.last()?;
        frame
            .globals
            .iter()
            .find(|(n, _)| *n == name)
            .map(|(_, range)| *range)
    }

    fn has_nonlocal_binding(&self, name: &str) -> bool {
        let enclosing = self.scopes.iter().zip(&self.frames).rev().skip(1);
        for ((scope, _), frame) in enclosing {
            match scope {
                Scope::Function { .. } => {
                    if frame
                        .parameters
                        .is_some_and(|p| p.iter().any(|p| p.name().as_str() == name))
                        || binds(frame.body, name)
                    {
                        return true;
                    }
                }
                Scope::Module => return false,
                Scope::Class | Scope::Comprehension { .. } => {}
            }
        }
        false
    }

    fn in_async_context(&self) -> bool {
        for (scope, _) in self.scopes.iter().rev() {
            match scope {
                Scope::Comprehension { is_async: true, .. } => return true,
                Scope::Comprehension { .. } => {}
                Scope::Function { is_async, .. } => return *is_async,
                Scope::Class | Scope::Module => return false,
            }
        }
        false
    }

    fn in_await_allowed_context(&self) -> bool {
        matches!(self.enclosing_non_comprehension(), Scope::Function { .. })
    }

    fn in_yield_allowed_context(&self) -> bool {
        matches!(self.innermost(), Scope::Function { .. })
    }

    fn in_sync_comprehension(&self) -> bool {
        self.scopes.iter().any(|(scope, _)| {
            matches!(
                scope,
                Scope::Comprehension {
                    is_async: false,
                    ..
                }
            )
        })
    }

    fn in_class_body_comprehension(&self) -> bool {
        for (scope, _) in self.scopes.iter().rev() {
            match scope {
                Scope::Comprehension { .. } => {}
                Scope::Class => return true,
                _ => return false,
            }
        }
        false
    }

    fn in_module_scope(&self) -> bool {
        matches!(self.innermost(), Scope::Module)
    }

    fn in_function_scope(&self) -> bool {
        matches!(self.innermost(), Scope::Function { .. })
    }

    fn in_generator_context(&self) -> bool {
        for (scope, _) in self.scopes.iter().rev() {
            match scope {
                Scope::Comprehension {
                    generator: true, ..
                } => return true,
                Scope::Comprehension { .. } => {}
                _ => return false,
            }
        }
        false
    }

    fn in_notebook(&self) -> bool {
        false
    }

    fn report_semantic_error(&self, error: SemanticSyntaxError) {
        // CPython reports these at the declaration, not at the use.
        let at = match &error.kind {
            SemanticSyntaxErrorKind::LoadBeforeGlobalDeclaration { start, .. }
            | SemanticSyntaxErrorKind::LoadBeforeNonlocalDeclaration { start, .. } => *start,
            SemanticSyntaxErrorKind::AnnotatedGlobal(name) => self
                .global(name)
                .map_or(error.range.start(), |range| range.start()),
            _ => error.range.start(),
        };
        self.errors
            .borrow_mut()
            .push((at.to_usize(), error.to_string()));
    }

    fn in_loop_context(&self) -> bool {
        self.scopes.last().is_some_and(|(_, loops)| *loops > 0)
    }

    fn is_bound_parameter(&self, name: &str) -> bool {
        match self.innermost() {
            Scope::Function { parameters, .. } => parameters.iter().any(|p| p == name),
            _ => false,
        }
    }
}

impl<'a> Visitor<'a> for Checker<'a> {
    fn visit_stmt(&mut self, stmt: &'a Stmt) {
        self.with_checker(|checker, context| checker.visit_stmt(stmt, context));
        match stmt {
            Stmt::ClassDef(class) => {
                for decorator in &class.decorator_list {
                    self.visit_decorator(decorator);
                }
                if let Some(type_params) = &class.type_params {
                    self.visit_type_params(type_params);
                }
                if let Some(arguments) = &class.arguments {
                    self.visit_arguments(arguments);
                }
                let frame = Frame {
                    globals: globals(&class.body),
                    ..Frame::default()
                };
                self.in_scope(Scope::Class, frame, |this| this.visit_body(&class.body));
            }
            Stmt::FunctionDef(function) => {
                for decorator in &function.decorator_list {
                    self.visit_decorator(decorator);
                }
                if let Some(type_params) = &function.type_params {
                    self.visit_type_params(type_params);
                }
                self.visit_parameters(&function.parameters);
                if let Some(returns) = &function.returns {
                    self.visit_annotation(returns);
                }
                let scope = Scope::Function {
                    is_async: function.is_async,
                    parameters: parameter_names(Some(&function.parameters)),
                };
                let frame = Frame {
                    globals: globals(&function.body),
                    parameters: Some(&function.parameters),
                    body: &function.body,
                    blocks: 0,
                };
                self.in_scope(scope, frame, |this| this.visit_body(&function.body));
            }
            Stmt::For(ast::StmtFor {
                target,
                iter,
                body,
                orelse,
                ..
            }) => {
                self.visit_expr(iter);
                self.visit_expr(target);
                let at = stmt.start().to_usize();
                self.in_blocks(1, at, |this| this.in_loop(|this| this.visit_body(body)));
                self.visit_body(orelse);
            }
            Stmt::While(ast::StmtWhile {
                test, body, orelse, ..
            }) => {
                self.visit_expr(test);
                let at = stmt.start().to_usize();
                self.in_blocks(1, at, |this| this.in_loop(|this| this.visit_body(body)));
                self.visit_body(orelse);
            }
            Stmt::Break(_) | Stmt::Continue(_) if self.star_loop => self.star_error(stmt),
            Stmt::Return(_) if self.star_return => {
                self.star_error(stmt);
                walk_stmt(self, stmt);
            }
            Stmt::AugAssign(a) => {
                let outer = self.aug_target.replace(a.target.range());
                walk_stmt(self, stmt);
                self.aug_target = outer;
            }
            Stmt::Nonlocal(n) => {
                for name in &n.names {
                    if let Some(global) = self.global(name.as_str()) {
                        let at = global.start().min(n.range.start()).to_usize();
                        self.extra
                            .push((at, format!("name '{name}' is nonlocal and global")));
                    }
                }
            }
            Stmt::Try(t) => {
                let n = t.handlers.len();
                for handler in t.handlers.iter().take(n.saturating_sub(1)) {
                    let ast::ExceptHandler::ExceptHandler(h) = handler;
                    if h.type_.is_none() {
                        let at = h.range.start().to_usize();
                        self.extra
                            .push((at, "default 'except:' must be last".into()));
                    }
                }
                let was_in_try = std::mem::replace(&mut self.in_try, true);
                // Blocks CPython 3.11 pushes: `finally` wraps the `try`/`except`; a handler body
                // sits in two more, the `try` body and `else` in one more.
                let at = stmt.start().to_usize();
                let fin = usize::from(!t.finalbody.is_empty());
                let exc = usize::from(!t.handlers.is_empty());
                self.in_blocks(fin + exc, at, |this| this.visit_body(&t.body));
                for handler in &t.handlers {
                    let star = (self.star_loop, self.star_return);
                    if t.is_star {
                        (self.star_loop, self.star_return) = (true, true);
                    }
                    self.in_blocks(fin + 2 * exc, at, |this| this.visit_except_handler(handler));
                    (self.star_loop, self.star_return) = star;
                }
                self.in_blocks(fin + exc, at, |this| this.visit_body(&t.orelse));
                self.in_blocks(fin, at, |this| this.visit_body(&t.finalbody));
                self.in_try = was_in_try;
            }
            Stmt::With(w) => {
                for item in &w.items {
                    self.visit_with_item(item);
                }
                let at = stmt.start().to_usize();
                self.in_blocks(w.items.len(), at, |this| this.visit_body(&w.body));
            }
            _ => walk_stmt(self, stmt),
        }
    }

    fn visit_expr(&mut self, expr: &'a Expr) {
        self.with_checker(|checker, context| checker.visit_expr(expr, context));
        if matches!(expr, Expr::Attribute(_) | Expr::Call(_)) {
            self.debug_assignment(expr);
        }
        match expr {
            Expr::Lambda(lambda) => {
                if let Some(parameters) = &lambda.parameters {
                    self.visit_parameters(parameters);
                }
                let scope = Scope::Function {
                    is_async: false,
                    parameters: parameter_names(lambda.parameters.as_deref()),
                };
                let frame = Frame {
                    parameters: lambda.parameters.as_deref(),
                    ..Frame::default()
                };
                self.in_scope(scope, frame, |this| this.visit_expr(&lambda.body));
            }
            _ => match comprehension(expr) {
                Some((generators, produced)) => {
                    self.comprehension(generators, expr.is_generator_expr(), |this| {
                        produced
                            .into_iter()
                            .flatten()
                            .for_each(|e| this.visit_expr(e));
                    });
                }
                None => walk_expr(self, expr),
            },
        }
    }
}

impl<'a> Checker<'a> {
    /// Visits a comprehension: the first iterable in the enclosing scope, everything else inside.
    fn comprehension(
        &mut self,
        generators: &'a [ast::Comprehension],
        generator: bool,
        elements: impl FnOnce(&mut Self),
    ) {
        let Some((first, rest)) = generators.split_first() else {
            return elements(self);
        };
        self.visit_expr(&first.iter);
        let scope = Scope::Comprehension {
            is_async: generators.iter().any(|g| g.is_async),
            generator,
        };
        self.in_scope(scope, Frame::default(), |this| {
            this.visit_expr(&first.target);
            for condition in &first.ifs {
                this.visit_expr(condition);
            }
            for comprehension in rest {
                this.visit_comprehension(comprehension);
            }
            elements(this);
        });
    }
}
