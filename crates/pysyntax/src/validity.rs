//! Validity checks: ruff's parser plus its semantic syntax checks, with a [`SemanticSyntaxContext`]
//! that tracks scopes and loops the way CPython's compiler does.
//!
//! The parser and the AST visitors are recursive, so everything runs on a dedicated thread with a
//! large stack ([`STACK_SIZE`]). Sources nested deeper than CPython accepts are rejected up front
//! (see [`too_complex`]), so the stack is never exhausted.

use std::cell::RefCell;

use ruff_python_ast::token::TokenKind;
use ruff_python_ast::visitor::{walk_expr, walk_stmt, Visitor};
use ruff_python_ast::{self as ast, Expr, PythonVersion, Stmt};
use ruff_python_parser::semantic_errors::{
    LazyImportContext, SemanticSyntaxChecker, SemanticSyntaxContext, SemanticSyntaxError,
    SemanticSyntaxErrorKind,
};
use ruff_python_parser::{parse_unchecked, Mode, ParseOptions};
use ruff_text_size::{Ranged, TextRange};

use crate::text::line_of;
use crate::SyntaxProblem;

/// Stack size of the checking thread (virtual memory; only touched pages are committed).
pub const STACK_SIZE: usize = 512 << 20;

/// CPython's tokenizer limit on nested brackets (`MAXLEVEL`).
const MAX_PAREN_DEPTH: usize = 200;
/// CPython's tokenizer limit on indentation levels (`MAXINDENT`).
const MAX_INDENT_DEPTH: usize = 100;
/// Upper bound on the nesting-forming tokens of one logical line. CPython's compiler gives up
/// (RecursionError / MemoryError) at an expression depth of about 3,000, so this only rejects
/// sources CPython rejects too, except for logical lines with more than this many operators.
const MAX_LINE_OPERATORS: usize = 20_000;

/// Runs `f` on a thread with a [`STACK_SIZE`] stack; `None` if it panicked or could not start.
pub fn on_big_stack<T: Send>(f: impl FnOnce() -> T + Send) -> Option<T> {
    std::thread::scope(|scope| {
        std::thread::Builder::new()
            .name("pysyntax".into())
            .stack_size(STACK_SIZE)
            .spawn_scoped(scope, f)
            .ok()
            .and_then(|handle| handle.join().ok())
    })
}

/// Checks `source` for Python 3.`minor` on a large-stack thread.
pub fn check(source: &str, minor: u8) -> Result<(), SyntaxProblem> {
    on_big_stack(|| check_here(source, minor)).unwrap_or_else(|| {
        Err(SyntaxProblem {
            line: 1,
            message: "internal error while checking".into(),
        })
    })
}

/// Checks `source` on the current thread (needs a large stack for deeply nested sources).
fn check_here(source: &str, minor: u8) -> Result<(), SyntaxProblem> {
    if let Some(problem) = too_complex(source) {
        return Err(problem);
    }
    let version = PythonVersion { major: 3, minor };
    let options = ParseOptions::from(Mode::Module).with_target_version(version);
    let parsed = parse_unchecked(source, options);
    let problem = |range: TextRange, message: String| SyntaxProblem {
        line: line_of(source, range.start().to_usize()),
        message,
    };
    if let Some(error) = parsed.errors().iter().min_by_key(|e| e.location.start()) {
        return Err(problem(error.location, error.error.to_string()));
    }
    if let Some(error) = parsed
        .unsupported_syntax_errors()
        .iter()
        .min_by_key(|e| e.range.start())
    {
        return Err(problem(error.range, error.to_string()));
    }
    let ast::Mod::Module(module) = parsed.syntax() else {
        return Ok(());
    };
    if let Some(at) = inconsistent_tabs(source, parsed.tokens()) {
        return Err(SyntaxProblem {
            line: line_of(source, at),
            message: "inconsistent use of tabs and spaces in indentation".into(),
        });
    }
    let mut visitor = Checker::new(source, version);
    visitor.frames.push(Frame {
        globals: globals(&module.body),
        ..Frame::default()
    });
    visitor.visit_body(&module.body);
    let mut found = visitor.errors.into_inner();
    found.extend(visitor.extra);
    found.sort();
    match found.into_iter().next() {
        Some((at, message)) => Err(problem(TextRange::empty(offset(at)), message)),
        None => Ok(()),
    }
}

/// Rejects sources nested deeper than CPython's tokenizer or compiler accept, before anything
/// recursive runs. Uses only the lexer, which is iterative.
pub fn too_complex(source: &str) -> Option<SyntaxProblem> {
    let mut lexer = ruff_python_parser::lexer::lex(source, Mode::Module);
    let (mut parens, mut indents, mut operators) = (0usize, 0usize, 0usize);
    // The lexer does not expose token offsets: lines are counted from newline tokens (a
    // multi-line string counts as one line, so the reported line may be early).
    let mut line = 1;
    loop {
        let kind = lexer.next_token();
        let at = || line;
        match kind {
            TokenKind::EndOfFile => return None,
            TokenKind::Lpar | TokenKind::Lsqb | TokenKind::Lbrace => {
                parens += 1;
                if parens > MAX_PAREN_DEPTH {
                    return Some(SyntaxProblem {
                        line: at(),
                        message: "too many nested parentheses".into(),
                    });
                }
            }
            TokenKind::Rpar | TokenKind::Rsqb | TokenKind::Rbrace => {
                parens = parens.saturating_sub(1)
            }
            TokenKind::Indent => {
                indents += 1;
                if indents > MAX_INDENT_DEPTH {
                    return Some(SyntaxProblem {
                        line: at(),
                        message: "too many levels of indentation".into(),
                    });
                }
            }
            TokenKind::Dedent => indents = indents.saturating_sub(1),
            TokenKind::Newline => {
                operators = 0;
                line += 1;
            }
            TokenKind::NonLogicalNewline => line += 1,
            TokenKind::Name
            | TokenKind::Int
            | TokenKind::Float
            | TokenKind::Complex
            | TokenKind::String
            | TokenKind::Comma
            | TokenKind::Colon
            | TokenKind::Comment => {}
            _ => {
                operators += 1;
                if operators > MAX_LINE_OPERATORS {
                    return Some(SyntaxProblem {
                        line: at(),
                        message: "expression too complex (nested too deeply)".into(),
                    });
                }
            }
        }
    }
}

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
}

/// AST visitor feeding ruff's [`SemanticSyntaxChecker`] and answering its context questions.
struct Checker<'a> {
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
}

impl<'a> Checker<'a> {
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
        f(self);
        self.scopes.pop();
        self.frames.pop();
    }

    fn in_loop(&mut self, f: impl FnOnce(&mut Self)) {
        if let Some((_, loops)) = self.scopes.last_mut() {
            *loops += 1;
        }
        f(self);
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
                self.in_loop(|this| this.visit_body(body));
                self.visit_body(orelse);
            }
            Stmt::While(ast::StmtWhile {
                test, body, orelse, ..
            }) => {
                self.visit_expr(test);
                self.in_loop(|this| this.visit_body(body));
                self.visit_body(orelse);
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
                walk_stmt(self, stmt);
                self.in_try = was_in_try;
            }
            _ => walk_stmt(self, stmt),
        }
    }

    fn visit_expr(&mut self, expr: &'a Expr) {
        self.with_checker(|checker, context| checker.visit_expr(expr, context));
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
            Expr::ListComp(ast::ExprListComp {
                elt, generators, ..
            })
            | Expr::SetComp(ast::ExprSetComp {
                elt, generators, ..
            })
            | Expr::Generator(ast::ExprGenerator {
                elt, generators, ..
            }) => {
                self.comprehension(generators, expr.is_generator_expr(), |this| {
                    this.visit_expr(elt)
                });
            }
            Expr::DictComp(ast::ExprDictComp {
                key,
                value,
                generators,
                ..
            }) => {
                self.comprehension(generators, false, |this| {
                    if let Some(key) = key {
                        this.visit_expr(key);
                    }
                    this.visit_expr(value);
                });
            }
            _ => walk_expr(self, expr),
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

/// A byte offset as a [`TextSize`](ruff_text_size::TextSize).
fn offset(at: usize) -> ruff_text_size::TextSize {
    ruff_text_size::TextSize::try_from(at).unwrap_or_default()
}

/// The first `global` declaration of each name directly in `body` (not in nested scopes).
fn globals(body: &[Stmt]) -> Vec<(&str, TextRange)> {
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
fn binds(body: &[Stmt], name: &str) -> bool {
    let mut finder = BindingFinder { name, found: false };
    finder.visit_body(body);
    finder.found
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
            _ => walk_expr(self, expr),
        }
    }

    fn visit_pattern(&mut self, pattern: &'a ast::Pattern) {
        let name = self.name;
        let captures = match pattern {
            ast::Pattern::MatchAs(p) => p.name.as_ref(),
            ast::Pattern::MatchStar(p) => p.name.as_ref(),
            ast::Pattern::MatchMapping(p) => p.rest.as_ref(),
            _ => None,
        };
        if captures.is_some_and(|n| n.as_str() == name) {
            self.found = true;
        }
        ast::visitor::walk_pattern(self, pattern);
    }
}

/// Offset of the first line whose indentation compares differently with tabs as 8 columns and as
/// 1 column against the enclosing block's (CPython's `TabError`).
fn inconsistent_tabs(source: &str, tokens: &[ruff_python_ast::token::Token]) -> Option<usize> {
    let mut stack: Vec<(usize, usize)> = vec![(0, 0)];
    let mut line_start = true;
    for token in tokens {
        match token.kind() {
            TokenKind::Newline => {
                line_start = true;
                continue;
            }
            TokenKind::Comment
            | TokenKind::NonLogicalNewline
            | TokenKind::Indent
            | TokenKind::Dedent => continue,
            _ if !line_start => continue,
            _ => line_start = false,
        }
        let at = token.start().to_usize();
        let indent = crate::text::indent_at(source, at);
        if !indent.contains('\t') && stack.iter().all(|&(c8, c1)| c8 == c1) {
            // Spaces only here and in every enclosing block: nothing to compare.
            let col = indent.len();
            while stack.last().is_some_and(|&(c8, _)| c8 > col) {
                stack.pop();
            }
            if stack.last().is_none_or(|&(c8, _)| c8 < col) {
                stack.push((col, col));
            }
            continue;
        }
        let (mut c8, mut c1) = (0usize, 0usize);
        for b in indent.bytes() {
            match b {
                b'\t' => {
                    c8 = (c8 / 8 + 1) * 8;
                    c1 += 1;
                }
                b'\x0c' => {
                    c8 = 0;
                    c1 = 0;
                }
                _ => {
                    c8 += 1;
                    c1 += 1;
                }
            }
        }
        while stack.last().is_some_and(|&(t8, _)| t8 > c8) {
            stack.pop();
        }
        match stack.last() {
            Some(&(t8, t1)) if t8 == c8 => {
                if t1 != c1 {
                    return Some(at);
                }
            }
            Some(&(_, t1)) => {
                if c1 <= t1 {
                    return Some(at);
                }
                stack.push((c8, c1));
            }
            None => stack.push((c8, c1)),
        }
    }
    None
}
