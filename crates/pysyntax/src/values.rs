//! Runtime-value substitution ([`Group::ValueSubstitution`]): the expressions whose values an
//! instrumented run records ([`value_sites`]), the instrumented text that records them
//! ([`instrument`]), and the rewrites "expression → the literal it evaluated to"
//! ([`value_rewrites`], kind `substitute-value`).
//!
//! Sites are call results, subscripts, attribute reads, names (read, not assigned or deleted),
//! binary operations, whole f-strings and the expression of every f-string field. Left out, so
//! that instrumenting never changes what a program means: the callee of a call (never a literal,
//! and `super()` must stay a plain call), annotations (their text is data under
//! `from __future__ import annotations`), decorators, `match` patterns (dotted names only),
//! type parameters, self-documenting f-string fields (`{x=}` prints its own text), and frozen
//! code. Sites are listed in text order, an enclosing site before the sites inside it, the same
//! list for the same text, so the recorder refers to a site by its index.
//!
//! A literal replaces a site only when it has no more tokens than the site's expression (so
//! substitutions never make a text larger in tokens); a dict, list or tuple too large for that
//! is offered emptied instead (`self.tiers` → `{}`); a number becomes `(-3)` / `(5)` where a
//! bare one would bind differently (`-3 ** 2`) or not parse (`5.real`).
//!
//! A value without a literal may be recorded as a call that rebuilds it (`Linear()`,
//! `np.zeros((3, 4))`: see `minrepro-pyvalues`). Such a call may be larger than the read it
//! replaces when that read (a name, an attribute or subscript of one, or of a call of one:
//! `Grid().values`) is the name's only read: the statements that built the object are then
//! dead, and statement removal deletes them. Not where they cannot go: a name bound in frozen code, or a method's receiver
//! (`self.values`: the method still receives it). A callee named by the program (`layer()`,
//! not a built-in name) is a site for such calls only, since no literal is callable.

use std::collections::{HashMap, HashSet};
use std::ops::Range;

use ruff_python_ast::token::TokenKind;
use ruff_python_ast::visitor::{walk_expr, walk_stmt, Visitor};
use ruff_python_ast::{
    self as ast, Decorator, Expr, ExprContext, InterpolatedStringElement, Operator, Pattern, Stmt,
    StringFlags, TypeParams,
};
use ruff_text_size::Ranged;

use crate::builtin_names::BUILTIN_NAMES;
use crate::rewrites::{span, trivia, Ctx};
use crate::{analyse, Group, Parsed, Rewrite};

/// The kind of every value substitution.
pub const SUBSTITUTE_VALUE: &str = "substitute-value";

/// The function the instrumented text calls before evaluating site `i`: `BEGIN(i)` (one leading
/// underscore: a name starting with two would be mangled inside a class body).
pub const RECORD_BEGIN: &str = "_minrepro_begin";
/// The function the instrumented text calls with site `i`'s value: `END(i, BEGIN(i), value)`.
pub const RECORD_END: &str = "_minrepro_end";

/// One expression whose value may replace it.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Site {
    range: Range<usize>,
    /// A number replacing it needs parentheses (`(5).real`, `(-3) ** 2`).
    number_parens: bool,
    /// Significant tokens of the expression.
    tokens: usize,
    /// Quote characters of the f-strings around it: before Python 3.12 an f-string field may
    /// contain neither them nor a backslash.
    quotes: String,
    /// The name a read (name, attribute or subscript chain, from a name or a call of one)
    /// starts from, unless it is a method's receiver: a call rebuilding its value may be
    /// larger when this is the name's only read.
    root: Option<String>,
    /// The callee of a call: only a rebuilding call may replace it.
    callee: bool,
}

/// Byte ranges of the expressions of `source` whose values are recorded (see the module
/// documentation), in text order, enclosing sites first; empty if `source` does not parse.
pub fn value_sites(source: &str) -> Vec<Range<usize>> {
    sites_of(source).into_iter().map(|s| s.range).collect()
}

/// `source` with every site of `sites` (from [`value_sites`] of `source`) wrapped in the
/// recorder's calls: `END(i, BEGIN(i), expression)` for site `i`. The result has the same lines
/// as `source` (nothing is inserted but names, digits, commas and brackets).
pub fn instrument(source: &str, sites: &[Range<usize>]) -> String {
    // Insertions: opening calls at starts (outer sites first), `)` at ends (inner sites first).
    let mut inserts: Vec<(usize, u8, usize, String)> = Vec::with_capacity(2 * sites.len());
    for (i, site) in sites.iter().enumerate() {
        let width = site.end - site.start;
        let open = format!("{RECORD_END}({i},{RECORD_BEGIN}({i}),");
        // At one offset: closings before openings; among openings the widest first; among
        // closings the narrowest first.
        inserts.push((site.start, 1, usize::MAX - width, open));
        inserts.push((site.end, 0, width, ")".to_owned()));
    }
    inserts.sort();
    let mut out = String::with_capacity(source.len() + 40 * sites.len());
    let mut at = 0;
    for (offset, _, _, text) in inserts {
        if offset < at || offset > source.len() || !source.is_char_boundary(offset) {
            continue;
        }
        out.push_str(&source[at..offset]);
        out.push_str(&text);
        at = offset;
    }
    out.push_str(&source[at..]);
    out
}

/// The `substitute-value` rewrites of `source` for recorded `values` (a site's range and the
/// literal it evaluated to, as Python's `repr`): every value whose range is a site of `source`
/// and whose literal is no longer in tokens, outside frozen code, in text order.
pub fn value_rewrites(source: &str, values: &[(Range<usize>, String)]) -> Vec<Rewrite> {
    analyse(source, |parsed, frozen| {
        let sites = collect(source, parsed, &frozen.ranges);
        let mut uses = NameUses {
            frozen: &frozen.ranges,
            ..NameUses::default()
        };
        uses.visit_body(&parsed.syntax().body);
        let mut ctx = Ctx::new(
            source,
            parsed.tokens(),
            &frozen.ranges,
            Group::ValueSubstitution,
        );
        for (range, literal) in values {
            let Ok(at) = sites.binary_search_by(|s| {
                (s.range.start, std::cmp::Reverse(s.range.end))
                    .cmp(&(range.start, std::cmp::Reverse(range.end)))
            }) else {
                continue;
            };
            let site = &sites[at];
            let rebuilt = is_call(literal);
            if site.callee && !rebuilt {
                continue;
            }
            let is_number = literal.starts_with(|c: char| c.is_ascii_digit() || c == '-');
            let replacement = if site.number_parens && is_number {
                format!("({literal})")
            } else {
                literal.clone()
            };
            let in_field = !site.quotes.is_empty();
            let unfit = |c: char| c == '\\' || c == '#' || site.quotes.contains(c);
            // A container too large for the site may still be emptied: the failure often
            // needs its kind (a dict to look a missing key up in), not its items.
            let replacement = if literal_tokens(&replacement) > site.tokens {
                match empty_form(literal) {
                    _ if rebuilt && site.root.as_deref().is_some_and(|n| uses.only_read(n)) => {
                        replacement
                    }
                    Some(empty) if literal_tokens(empty) <= site.tokens => empty.to_owned(),
                    _ => continue,
                }
            } else {
                replacement
            };
            if in_field && literal.contains(unfit) {
                continue;
            }
            // `{{` right after a field's opening brace would be an escaped brace.
            let replacement = if in_field && replacement.starts_with('{') {
                format!(" {replacement}")
            } else {
                replacement
            };
            ctx.push(
                Group::ValueSubstitution,
                SUBSTITUTE_VALUE,
                site.range.clone(),
                replacement,
                &[],
            );
        }
        let mut out = ctx.out;
        out.sort_by_key(|r| (r.range.start, std::cmp::Reverse(r.range.end)));
        out.dedup_by(|a, b| a.range == b.range);
        out
    })
    .unwrap_or_default()
}

/// The empty literal of the same kind as the container literal `literal` (a dict, list or
/// tuple, as the recorder writes them), if it is one and not already empty.
fn empty_form(literal: &str) -> Option<&'static str> {
    let empty = match literal.as_bytes().first()? {
        b'{' => "{}",
        b'[' => "[]",
        b'(' => "()",
        _ => return None,
    };
    (literal != empty).then_some(empty)
}

/// Whether a recorded value is written as a call (a rebuilt object, never a literal).
fn is_call(value: &str) -> bool {
    ruff_python_parser::parse_expression(value)
        .is_ok_and(|parsed| matches!(parsed.expr(), Expr::Call(_)))
}

/// Significant tokens of a literal written on its own.
fn literal_tokens(literal: &str) -> usize {
    // The lexer adds a logical newline after the expression.
    crate::tokens::count(literal).saturating_sub(1)
}

/// The sites of `source` (see [`value_sites`]).
fn sites_of(source: &str) -> Vec<Site> {
    analyse(source, |parsed, frozen| {
        collect(source, parsed, &frozen.ranges)
    })
    .unwrap_or_default()
}

/// The sites of a parsed `source`, outside `frozen`, sorted (start, widest first).
fn collect(source: &str, parsed: &Parsed, frozen: &[Range<usize>]) -> Vec<Site> {
    let mut walker = Walker {
        source,
        tokens: parsed.tokens(),
        sites: Vec::new(),
        not_sites: HashSet::new(),
        number_parens: HashSet::new(),
        field_tops: HashSet::new(),
        quotes: String::new(),
        callees: HashSet::new(),
        in_class: false,
        receivers: Vec::new(),
    };
    walker.visit_body(&parsed.syntax().body);
    let mut sites = walker.sites;
    sites.retain(|s| {
        frozen
            .iter()
            .all(|f| s.range.end <= f.start || f.end <= s.range.start)
    });
    sites.sort_by_key(|s| (s.range.start, std::cmp::Reverse(s.range.end)));
    sites.dedup_by(|a, b| a.range == b.range);
    sites
}

/// How often each name is read anywhere (all scopes together), and which names frozen code
/// binds.
#[derive(Default)]
struct NameUses<'a> {
    frozen: &'a [Range<usize>],
    reads: HashMap<&'a str, usize>,
    frozen_bound: HashSet<&'a str>,
}

impl NameUses<'_> {
    /// Whether `name` is read once and bound outside frozen code only.
    fn only_read(&self, name: &str) -> bool {
        self.reads.get(name) == Some(&1) && !self.frozen_bound.contains(name)
    }
}

impl<'a> Visitor<'a> for NameUses<'a> {
    fn visit_expr(&mut self, expr: &'a Expr) {
        if let Expr::Name(n) = expr {
            if n.ctx == ExprContext::Load {
                *self.reads.entry(n.id.as_str()).or_default() += 1;
            } else if self
                .frozen
                .iter()
                .any(|f| f.contains(&n.start().to_usize()))
            {
                self.frozen_bound.insert(n.id.as_str());
            }
        }
        walk_expr(self, expr);
    }
}

/// The walk listing sites.
struct Walker<'a> {
    source: &'a str,
    tokens: &'a ast::token::Tokens,
    sites: Vec<Site>,
    /// Ranges of expressions that must not be sites (callees).
    not_sites: HashSet<(usize, usize)>,
    /// Ranges of expressions where a number needs parentheses.
    number_parens: HashSet<(usize, usize)>,
    /// Ranges of f-string field expressions (sites whatever their kind).
    field_tops: HashSet<(usize, usize)>,
    /// Quote characters of the f-strings around the node visited.
    quotes: String,
    /// Ranges of callees that are sites (names the program binds).
    callees: HashSet<(usize, usize)>,
    /// The statement visited is directly in a class body.
    in_class: bool,
    /// The receivers (first parameters) of the methods around the node visited.
    receivers: Vec<&'a str>,
}

/// `(start, end)` of a node.
fn key(node: impl Ranged) -> (usize, usize) {
    (node.start().to_usize(), node.end().to_usize())
}

impl<'a> Walker<'a> {
    /// The name the read `expr` starts from, unless a method's receiver (see [`Site::root`]).
    fn root(&self, expr: &'a Expr) -> Option<String> {
        match expr {
            Expr::Name(n) => (!self.receivers.contains(&n.id.as_str())).then(|| n.id.to_string()),
            Expr::Attribute(a) => self.root(&a.value),
            Expr::Subscript(s) => self.root(&s.value),
            // What a call of a plain name returns (`Grid().values`): the name's definition
            // builds it.
            Expr::Call(c) if c.func.is_name_expr() => self.root(&c.func),
            _ => None,
        }
    }

    /// Whether `expr` is a site (its own kind and context; see the module documentation).
    fn is_site(&self, expr: &Expr) -> bool {
        if self.not_sites.contains(&key(expr)) {
            return false;
        }
        let field_top = self.field_tops.contains(&key(expr));
        match expr {
            Expr::Name(n) => n.ctx == ExprContext::Load,
            Expr::Attribute(a) => a.ctx == ExprContext::Load,
            Expr::Subscript(s) => s.ctx == ExprContext::Load,
            Expr::Call(_) | Expr::BinOp(_) | Expr::FString(_) => true,
            Expr::BoolOp(_)
            | Expr::UnaryOp(_)
            | Expr::Compare(_)
            | Expr::If(_)
            | Expr::Await(_)
            | Expr::Tuple(_)
            | Expr::List(_)
            | Expr::Dict(_)
            | Expr::ListComp(_)
            | Expr::DictComp(_)
            | Expr::Generator(_) => field_top,
            _ => false,
        }
    }

    /// Significant tokens within `range`.
    fn tokens_in(&self, range: &Range<usize>) -> usize {
        let tokens = self.tokens.as_ref();
        let first = tokens.partition_point(|t| t.start().to_usize() < range.start);
        tokens[first..]
            .iter()
            .take_while(|t| t.end().to_usize() <= range.end)
            .filter(|t| !trivia(t.kind()) && t.kind() != TokenKind::EndOfFile)
            .count()
    }
}

impl<'a> Visitor<'a> for Walker<'a> {
    fn visit_annotation(&mut self, _expr: &'a Expr) {}

    fn visit_stmt(&mut self, stmt: &'a Stmt) {
        let in_class = std::mem::replace(&mut self.in_class, false);
        let receivers = self.receivers.len();
        match stmt {
            Stmt::ClassDef(_) => self.in_class = true,
            Stmt::FunctionDef(f) if in_class => {
                let parameters = &f.parameters;
                let first = parameters.posonlyargs.iter().chain(&parameters.args).next();
                self.receivers
                    .extend(first.map(|p| p.parameter.name.as_str()));
            }
            _ => {}
        }
        walk_stmt(self, stmt);
        self.receivers.truncate(receivers);
        self.in_class = in_class;
    }

    fn visit_decorator(&mut self, _decorator: &'a Decorator) {}

    fn visit_pattern(&mut self, _pattern: &'a Pattern) {}

    fn visit_type_params(&mut self, _type_params: &'a TypeParams) {}

    fn visit_interpolated_string_element(&mut self, element: &'a InterpolatedStringElement) {
        let InterpolatedStringElement::Interpolation(field) = element else {
            return;
        };
        if field.debug_text.is_some() {
            return; // `{x=}` prints the expression's own text
        }
        self.field_tops.insert(key(&*field.expression));
        self.visit_expr(&field.expression);
        if let Some(spec) = &field.format_spec {
            for element in &spec.elements {
                self.visit_interpolated_string_element(element);
            }
        }
    }

    fn visit_expr(&mut self, expr: &'a Expr) {
        match expr {
            Expr::Call(call) => {
                match &*call.func {
                    Expr::Name(n) if !BUILTIN_NAMES.contains(&n.id.as_str()) => {
                        self.callees.insert(key(&*call.func));
                    }
                    _ => {
                        self.not_sites.insert(key(&*call.func));
                    }
                }
                self.number_parens.insert(key(&*call.func));
            }
            Expr::Attribute(a) => {
                self.number_parens.insert(key(&*a.value));
            }
            Expr::Subscript(s) => {
                self.number_parens.insert(key(&*s.value));
            }
            Expr::Await(a) => {
                self.number_parens.insert(key(&*a.value));
            }
            Expr::BinOp(b) if b.op == Operator::Pow => {
                self.number_parens.insert(key(&*b.left));
            }
            _ => {}
        }
        if self.is_site(expr) {
            let range = span(expr);
            if crate::text::valid_range(self.source, &range) {
                self.sites.push(Site {
                    tokens: self.tokens_in(&range),
                    number_parens: self.number_parens.contains(&key(expr)),
                    quotes: self.quotes.clone(),
                    root: self.root(expr),
                    callee: self.callees.contains(&key(expr)),
                    range,
                });
            }
        }
        let outer = self.quotes.len();
        if let Expr::FString(f) = expr {
            for part in f.value.iter() {
                if let ast::FStringPart::FString(f) = part {
                    self.quotes.push(f.flags.quote_style().as_char());
                }
            }
        }
        walk_expr(self, expr);
        self.quotes.truncate(outer);
    }
}
