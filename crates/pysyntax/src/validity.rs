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
};
use ruff_python_parser::{parse_unchecked, Mode, ParseOptions};
use ruff_text_size::TextRange;

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
    let mut visitor = Checker::new(source, version);
    visitor.visit_body(&module.body);
    let errors = visitor.errors.into_inner();
    match errors.iter().min_by_key(|e| e.range.start()) {
        Some(error) => Err(problem(error.range, error.to_string())),
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

/// AST visitor feeding ruff's [`SemanticSyntaxChecker`] and answering its context questions.
struct Checker<'a> {
    checker: SemanticSyntaxChecker,
    errors: RefCell<Vec<SemanticSyntaxError>>,
    version: PythonVersion,
    source: &'a str,
    /// Scopes with the loop depth inside each (loops do not cross scope boundaries).
    scopes: Vec<(Scope, usize)>,
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

    fn in_scope(&mut self, scope: Scope, f: impl FnOnce(&mut Self)) {
        self.scopes.push((scope, 0));
        f(self);
        self.scopes.pop();
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

    fn global(&self, _name: &str) -> Option<TextRange> {
        None
    }

    fn has_nonlocal_binding(&self, _name: &str) -> bool {
        true
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
        self.errors.borrow_mut().push(error);
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

impl Visitor<'_> for Checker<'_> {
    fn visit_stmt(&mut self, stmt: &Stmt) {
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
                self.in_scope(Scope::Class, |this| this.visit_body(&class.body));
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
                self.in_scope(scope, |this| this.visit_body(&function.body));
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
            Stmt::Try(_) => {
                let was_in_try = std::mem::replace(&mut self.in_try, true);
                walk_stmt(self, stmt);
                self.in_try = was_in_try;
            }
            _ => walk_stmt(self, stmt),
        }
    }

    fn visit_expr(&mut self, expr: &Expr) {
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
                self.in_scope(scope, |this| this.visit_expr(&lambda.body));
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

impl Checker<'_> {
    /// Visits a comprehension: the first iterable in the enclosing scope, everything else inside.
    fn comprehension(
        &mut self,
        generators: &[ast::Comprehension],
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
        self.in_scope(scope, |this| {
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
