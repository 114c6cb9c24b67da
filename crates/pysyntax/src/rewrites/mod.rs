//! Listing rewrites: one walk over the AST that asks each family of transformations for its
//! rewrites of every node. Families live in their own modules:
//! [`statements`] (removal), [`control_flow`] (`if`/`for`/`while`/`try` to body),
//! [`headers`] (a compound statement to its header's expression), [`calls`] (a function called
//! once inlined), [`parens`] (grouping parentheses), [`canonical`] (`with … as`,
//! `*args, **kwargs`), [`expressions`] (assignment, call, operator and hoisting
//! simplifications), [`inline_variable`] (a variable used once), [`inline_call`] (a function, method or
//! class used once, with arguments), [`integers`] (constant reduction),
//! [`dispatch`] (a registry lookup, a coroutine that only awaits another),
//! [`lists`] (element, keyword, parameter removal) and [`unused_parameters`] (a parameter with
//! the arguments of every call). [`loop_progress`] keeps statement removal away from what makes a
//! `while` loop advance.

pub mod calls;
pub mod canonical;
pub mod control_flow;
pub mod dispatch;
pub mod expressions;
pub mod headers;
pub mod inline_call;
pub mod inline_variable;
pub mod integers;
pub mod lists;
pub mod loop_progress;
pub mod parens;
pub mod statements;
pub mod unused_parameters;

use std::ops::Range;

use ruff_python_ast::token::{Token, TokenKind};
use ruff_python_ast::visitor::{walk_expr, walk_stmt, Visitor};
use ruff_python_ast::{Expr, Stmt};
use ruff_text_size::Ranged;

use crate::indent::{reindent, StringSpans};
use crate::text::{indent_at, is_line_start, line_end, line_start, newline_of, next_line_start};
use crate::{Group, Rewrite};

/// Byte range of a node.
pub fn span(node: impl Ranged) -> Range<usize> {
    node.start().to_usize()..node.end().to_usize()
}

/// The text of a statement list, located for moving it elsewhere.
#[derive(Debug, Clone)]
pub struct Suite {
    /// From the line after the header's colon (or the first statement, for a body on the header
    /// line) to the end of the last statement's line, trailing comment lines of the block included.
    pub span: Range<usize>,
    /// Whether the statements sit on their own lines (not on the header line).
    pub multi_line: bool,
    /// Indentation of the first statement's line.
    pub indent: String,
}

/// Shared state of one listing: the source, its tokens, frozen ranges and the result.
pub struct Ctx<'a> {
    /// The source being rewritten.
    pub source: &'a str,
    /// Its tokens, in order.
    pub tokens: &'a [Token],
    /// Frozen byte ranges.
    pub frozen: &'a [Range<usize>],
    /// Multi-line string literals (never re-indented).
    pub strings: StringSpans,
    /// The group being listed.
    pub group: Group,
    /// The source's line terminator.
    pub nl: &'static str,
    /// Rewrites found so far.
    pub out: Vec<Rewrite>,
}

impl<'a> Ctx<'a> {
    /// Creates a listing context for `group`.
    pub fn new(
        source: &'a str,
        tokens: &'a [Token],
        frozen: &'a [Range<usize>],
        group: Group,
    ) -> Self {
        Self {
            source,
            tokens,
            frozen,
            strings: StringSpans::new(source, tokens),
            group,
            nl: newline_of(source),
            out: Vec::new(),
        }
    }

    /// The text of `range` with the `edits` inside it (sorted, disjoint) applied; edits outside
    /// `range` are passed over.
    pub fn spliced(&self, range: Range<usize>, edits: &[(Range<usize>, String)]) -> String {
        let mut text = String::new();
        let mut at = range.start;
        for (r, replacement) in edits
            .iter()
            .filter(|(r, _)| range.start <= r.start && r.end <= range.end)
        {
            text.push_str(self.text(at..r.start));
            text.push_str(replacement);
            at = r.end;
        }
        text.push_str(self.text(at..range.end));
        text
    }

    /// Source text of `range` (empty if out of bounds).
    pub fn text(&self, range: Range<usize>) -> &'a str {
        self.source.get(range).unwrap_or("")
    }

    /// Records a rewrite of `group` unless it is a no-op, or it overlaps frozen code that is not
    /// inside one of the `kept` ranges (source text the replacement retains).
    pub fn push(
        &mut self,
        group: Group,
        kind: &'static str,
        range: Range<usize>,
        replacement: String,
        kept: &[Range<usize>],
    ) {
        if group != self.group || !crate::text::valid_range(self.source, &range) {
            return;
        }
        if self.source[range.clone()] == replacement {
            return;
        }
        let touches = |f: &Range<usize>| {
            if range.is_empty() {
                f.start < range.start && range.start < f.end
            } else {
                range.start < f.end && f.start < range.end
            }
        };
        let safe = |f: &Range<usize>| {
            !touches(f) || kept.iter().any(|k| k.start <= f.start && f.end <= k.end)
        };
        if self.frozen.iter().all(safe) {
            self.out.push(Rewrite {
                kind,
                range,
                replacement,
            });
        }
    }

    /// Index of the first token starting at or after `offset`.
    pub fn token_at(&self, offset: usize) -> usize {
        self.tokens
            .partition_point(|t| t.start().to_usize() < offset)
    }

    /// The last significant token (not a comment, newline or indentation) ending at or before
    /// `offset`.
    pub fn token_before(&self, offset: usize) -> Option<&'a Token> {
        let end = self
            .tokens
            .partition_point(|t| t.end().to_usize() <= offset);
        self.tokens[..end].iter().rev().find(|t| !trivia(t.kind()))
    }

    /// The first significant token starting at or after `offset`.
    pub fn token_after(&self, offset: usize) -> Option<&'a Token> {
        self.tokens[self.token_at(offset)..]
            .iter()
            .find(|t| !trivia(t.kind()))
    }

    /// Locates a statement list's text (`None` for an empty list).
    pub fn suite(&self, body: &[Stmt]) -> Option<Suite> {
        let first = body.first()?.start().to_usize();
        let last = body.last()?.end().to_usize();
        let indent = indent_at(self.source, first).to_string();
        let multi_line = is_line_start(self.source, first);
        let start = if multi_line {
            match self.token_before(first) {
                Some(colon) if colon.kind() == TokenKind::Colon => {
                    next_line_start(self.source, colon.end().to_usize())
                        .min(line_start(self.source, first))
                }
                _ => line_start(self.source, first),
            }
        } else {
            first
        };
        let end = if multi_line {
            comments_after(self.source, line_end(self.source, last), indent.len())
        } else {
            line_end(self.source, last)
        };
        Some(Suite {
            span: start..end,
            multi_line,
            indent,
        })
    }

    /// The suite's text re-indented to `to`, without indentation before its first line (it is
    /// meant to replace a statement that starts after `to`).
    pub fn moved(&self, suite: &Suite, to: &str) -> String {
        if !suite.multi_line {
            return self.text(suite.span.clone()).to_string();
        }
        let text = reindent(
            self.source,
            suite.span.clone(),
            &suite.indent,
            to,
            &self.strings,
        );
        text.trim_start_matches([' ', '\t', '\x0c']).to_string()
    }

    /// Whether the code in `range` continues over a line break outside the brackets it opens
    /// itself (a comment or line end at bracket depth 0 within it): such text is valid only
    /// inside brackets. Line ends inside strings and backslash continuations do not count.
    pub fn breaks_line(&self, range: Range<usize>) -> bool {
        let mut depth = 0usize;
        for token in &self.tokens[self.token_at(range.start)..] {
            if token.end().to_usize() > range.end {
                break;
            }
            match token.kind() {
                TokenKind::Lpar | TokenKind::Lsqb | TokenKind::Lbrace => depth += 1,
                TokenKind::Rpar | TokenKind::Rsqb | TokenKind::Rbrace => {
                    depth = depth.saturating_sub(1)
                }
                TokenKind::NonLogicalNewline | TokenKind::Comment if depth == 0 => return true,
                _ => {}
            }
        }
        false
    }

    /// End of a compound statement including its last block's trailing comment lines.
    pub fn compound_end(&self, stmt: &Stmt, last_body: &[Stmt]) -> usize {
        let end = line_end(self.source, stmt.end().to_usize());
        self.suite(last_body).map_or(end, |s| s.span.end.max(end))
    }

    /// Source text of `expr`, parenthesised unless it can stand anywhere as is.
    pub fn operand(&self, expr: &Expr) -> String {
        let text = self.text(span(expr));
        if is_bracketed(expr) || (is_primary(expr) && !self.breaks_line(span(expr))) {
            text.to_string()
        } else {
            format!("({text})")
        }
    }
}

/// Whether `expr` brings its own brackets: a display, a comprehension, a parenthesised tuple or
/// generator.
pub fn is_bracketed(expr: &Expr) -> bool {
    match expr {
        Expr::List(_)
        | Expr::ListComp(_)
        | Expr::Set(_)
        | Expr::SetComp(_)
        | Expr::Dict(_)
        | Expr::DictComp(_) => true,
        Expr::Tuple(t) => t.parenthesized,
        Expr::Generator(g) => g.parenthesized,
        _ => false,
    }
}

/// Whether `expr` is a primary (a name, literal, call, attribute or subscript): it binds
/// tighter than any operator, so it needs no parentheses as an operand.
pub fn is_primary(expr: &Expr) -> bool {
    use Expr::{Attribute, Call, FString, Name, Subscript, TString};
    expr.is_literal_expr()
        || matches!(
            expr,
            Name(_) | FString(_) | TString(_) | Call(_) | Attribute(_) | Subscript(_)
        )
}

/// Whether `expr` opens a scope of its own: a lambda or a comprehension (a generator
/// expression included).
pub fn opens_scope(expr: &Expr) -> bool {
    use Expr::{DictComp, Generator, Lambda, ListComp, SetComp};
    matches!(
        expr,
        Lambda(_) | ListComp(_) | SetComp(_) | DictComp(_) | Generator(_)
    )
}

/// Tokens that carry no syntax of their own.
pub fn trivia(kind: TokenKind) -> bool {
    matches!(
        kind,
        TokenKind::Comment
            | TokenKind::NonLogicalNewline
            | TokenKind::Newline
            | TokenKind::Indent
            | TokenKind::Dedent
    )
}

/// Extends `end` (a line end) over following comment lines indented at least `indent` bytes.
fn comments_after(source: &str, end: usize, indent: usize) -> usize {
    let mut result = end;
    let mut at = end;
    loop {
        let next = next_line_start(source, at);
        if next >= source.len() || next == at {
            return result;
        }
        let line_stop = line_end(source, next);
        let line = &source[next..line_stop];
        let body = line.trim_start_matches([' ', '\t', '\x0c']);
        if body.is_empty() {
            at = line_stop;
        } else if body.starts_with('#') && line.len() - body.len() >= indent {
            result = line_stop;
            at = line_stop;
        } else {
            return result;
        }
    }
}

/// Lists the rewrites of `group` for a parsed module.
pub fn list(ctx: &mut Ctx<'_>, body: &[Stmt]) {
    let mut walker = Walker {
        ctx,
        loops: Vec::new(),
        class_body: false,
    };
    for i in 0..body.len() {
        statements::remove(walker.ctx, body, i, true);
    }
    for stmt in body {
        walker.visit_stmt(stmt);
    }
    if matches!(
        walker.ctx.group,
        Group::Simplifications | Group::SlowRemovals
    ) {
        let resolution = crate::scopes::Resolution::of(body);
        inline_variable::inline_variables(walker.ctx, body, &resolution);
        inline_call::inline_with_arguments(walker.ctx, body, &resolution);
        unused_parameters::remove_with_arguments(walker.ctx, &resolution);
    }
    dispatch::indirections(walker.ctx, body);
    calls::inline_calls(walker.ctx, body);
    parens::remove_parentheses(walker.ctx, body);
    let out = &mut walker.ctx.out;
    out.sort_by(|a, b| {
        (
            a.range.start,
            std::cmp::Reverse(a.range.end),
            a.kind,
            &a.replacement,
        )
            .cmp(&(
                b.range.start,
                std::cmp::Reverse(b.range.end),
                b.kind,
                &b.replacement,
            ))
    });
    out.dedup();
}

/// The AST walk dispatching nodes to the families.
struct Walker<'c, 'a> {
    ctx: &'c mut Ctx<'a>,
    /// The `while` loops around the node being visited, in the same function (innermost last).
    loops: Vec<loop_progress::LoopProgress>,
    /// Whether the statement being visited is directly in a class body (a `def` there is a
    /// method, whose first parameter is kept: see [`lists::parameters`]).
    class_body: bool,
}

impl Visitor<'_> for Walker<'_, '_> {
    fn visit_body(&mut self, body: &[Stmt]) {
        // Only statement removal consults loop progress (and only its group lists removals).
        if self.ctx.group == Group::FastRemovals {
            for i in 0..body.len() {
                if !loop_progress::advances(self.ctx.source, &body[i], &self.loops) {
                    statements::remove(self.ctx, body, i, false);
                }
            }
        }
        for stmt in body {
            self.visit_stmt(stmt);
        }
    }

    fn visit_stmt(&mut self, stmt: &Stmt) {
        let ctx = &mut *self.ctx;
        headers::header_to_expression(ctx, stmt);
        match stmt {
            Stmt::If(s) => control_flow::if_rewrites(ctx, stmt, s),
            Stmt::For(s) => control_flow::for_to_body(ctx, stmt, s),
            Stmt::While(s) => control_flow::while_to_body(ctx, stmt, s),
            Stmt::Try(s) => control_flow::try_rewrites(ctx, stmt, s),
            Stmt::With(s) => {
                canonical::with_as(ctx, s);
                control_flow::with_to_body(ctx, stmt, s);
            }
            Stmt::FunctionDef(s) => {
                control_flow::def_to_body(ctx, stmt, s);
                canonical::add_varargs(ctx, s);
                let receiver = self.class_body && !lists::is_static(s);
                lists::parameters(ctx, &s.parameters, receiver);
                statements::decorators(ctx, &s.decorator_list);
            }
            Stmt::ClassDef(s) => {
                control_flow::class_to_body(ctx, stmt, s);
                if let Some(arguments) = &s.arguments {
                    lists::arguments(ctx, arguments, "remove-base");
                }
                statements::decorators(ctx, &s.decorator_list);
            }
            Stmt::Assign(s) => {
                expressions::assign_to_one(ctx, &s.value);
                expressions::assign_to_value(ctx, s);
            }
            Stmt::Import(s) => lists::aliases(ctx, &s.names),
            Stmt::ImportFrom(s) => lists::aliases(ctx, &s.names),
            Stmt::AnnAssign(s) => {
                if let Some(value) = &s.value {
                    expressions::assign_to_one(ctx, value);
                }
            }
            _ => {}
        }
        // Loop progress is tracked per function: a nested def or class starts afresh.
        match stmt {
            Stmt::While(s) if self.ctx.group == Group::FastRemovals => {
                self.loops
                    .push(loop_progress::LoopProgress::of(self.ctx.source, s));
                walk_stmt(self, stmt);
                self.loops.pop();
            }
            Stmt::FunctionDef(_) | Stmt::ClassDef(_) => {
                let outer = std::mem::take(&mut self.loops);
                let in_class = std::mem::replace(&mut self.class_body, stmt.is_class_def_stmt());
                walk_stmt(self, stmt);
                self.class_body = in_class;
                self.loops = outer;
            }
            _ => walk_stmt(self, stmt),
        }
    }

    fn visit_expr(&mut self, expr: &Expr) {
        let ctx = &mut *self.ctx;
        match expr {
            Expr::Call(call) => {
                expressions::call_to_arg(ctx, expr, call);
                if let Expr::Attribute(method) = &*call.func {
                    // `x.f(…)` → `x`: drops a method call from a chain (`a.b().c()` → `a.b()`).
                    expressions::hoist(ctx, expr, &method.value, "call-to-receiver");
                }
                if call.func.is_call_expr() {
                    // `f()(…)` → `f()`: a call of a call's result (left behind by other
                    // rewrites, e.g. `p.run().items()` → `(p.run())()`) may be the part to drop.
                    expressions::hoist(ctx, expr, &call.func, "call-to-callee");
                }
                lists::arguments(ctx, &call.arguments, "remove-argument");
            }
            Expr::BinOp(binop) => expressions::binop(ctx, expr, binop),
            Expr::If(ifexp) => expressions::ifexp(ctx, expr, ifexp),
            Expr::UnaryOp(u) => expressions::unary(ctx, expr, &u.operand),
            Expr::Await(a) => expressions::unary(ctx, expr, &a.value),
            Expr::BoolOp(b) => {
                expressions::operands(ctx, expr, b.values.iter(), "boolop-to-operand")
            }
            Expr::Compare(c) => {
                let parts = std::iter::once(&*c.left).chain(c.comparators.iter());
                expressions::operands(ctx, expr, parts, "compare-to-operand");
            }
            Expr::Attribute(attribute) => {
                expressions::hoist(ctx, expr, &attribute.value, "attribute-to-value")
            }
            Expr::Subscript(subscript) => {
                expressions::hoist(ctx, expr, &subscript.value, "subscript-to-value")
            }
            Expr::NumberLiteral(number) => integers::halve(ctx, expr, number),
            Expr::StringLiteral(string) => integers::shorten_string(ctx, expr, string),
            Expr::Tuple(t) => {
                integers::empty_to_zero(ctx, expr);
                lists::elements(ctx, t.elts.iter().map(span).collect())
            }
            Expr::List(l) => {
                integers::empty_to_zero(ctx, expr);
                lists::elements(ctx, l.elts.iter().map(span).collect())
            }
            Expr::Set(s) => lists::elements(ctx, s.elts.iter().map(span).collect()),
            Expr::Dict(d) => {
                integers::empty_to_zero(ctx, expr);
                lists::dict_items(ctx, d)
            }
            Expr::ListComp(_) | Expr::SetComp(_) | Expr::Generator(_) | Expr::DictComp(_) => {
                expressions::comprehension(ctx, expr)
            }
            Expr::Lambda(lambda) => {
                if let Some(parameters) = &lambda.parameters {
                    lists::parameters(ctx, parameters, false);
                }
            }
            _ => {}
        }
        walk_expr(self, expr);
    }
}
