//! `inline-call-body`: a callee's statements spliced before the statement that evaluates its
//! one call (see the parent module).

use std::ops::Range;

use ruff_python_ast::token::TokenKind;
use ruff_python_ast::{Expr, Stmt};
use ruff_text_size::Ranged;

use super::super::calls::needs_function;
use super::super::{span, Ctx, Suite};
use super::sites::{CallStatement, Names};
use super::{operand_text, value_text, Analysis, Callee};
use crate::indent::reindent;
use crate::scopes::{Reference, Use, MODULE};
use crate::text::{indent_at, is_line_start, next_line_start};
use ruff_python_ast::visitor::Visitor;

/// The call statement's kind, range and replacement for a callee of several statements (see
/// the module documentation).
pub(super) fn statements(
    ctx: &Ctx<'_>,
    analysis: &Analysis<'_, '_>,
    callee: &Callee<'_>,
    bound: &[(&str, &Expr)],
) -> Option<Vec<(Range<usize>, String)>> {
    let call = span(callee.call);
    let statement = analysis
        .sites
        .statements
        .get(&(call.start, call.end))?
        .clone();
    if !is_line_start(ctx.source, statement.start)
        || analysis.resolution.class_scopes[callee.at_scope]
    {
        return None;
    }
    let body = &callee.def.body;
    let (prefix, result) = match body.split_last()? {
        (Stmt::Return(r), prefix) => {
            if !is_line_start(ctx.source, r.start().to_usize()) {
                return None;
            }
            (prefix, r.value.as_deref())
        }
        _ => (&body[..], None),
    };
    if needs_function(prefix) || result.is_some_and(suspends) {
        return None;
    }
    // The callee's names move to the caller's scope: none may be known there, and what it reads
    // from the module must not be shadowed there.
    let chain = analysis.chain(callee.at_scope);
    let def = span(callee.def);
    // A parameter never rebound and passed a name or a one-token literal is replaced by it
    // (`self` by `counter`, not `self = counter`); one passed a name of its own (`f(items)` for
    // `def f(items)`) is that name already.
    let substituted: Vec<(&str, &Expr)> = bound
        .iter()
        .copied()
        .filter(|&(p, a)| {
            let never_rebound = analysis
                .count(callee.scope, p)
                .is_some_and(|c| c.binds == 1);
            substitutable(ctx, analysis, callee, p, a) || (never_rebound && ctx.text(span(a)) == p)
        })
        .collect();
    let mut renamed: Vec<(&str, String)> = substituted
        .iter()
        .map(|&(p, a)| (p, ctx.text(span(a)).to_string()))
        .collect();
    // A method's receiver bound to an expression gets a name after its class (`machine =
    // Machine(…)`, not `self = Machine(…)`) when that name is free.
    let receiver = receiver_name(analysis, callee, bound).filter(|(p, _)| !exempt_in(&renamed, p));
    renamed.extend(receiver.clone());
    let exempt = |name: &str| exempt_in(&renamed, name);
    for r in &analysis.resolution.references {
        let clash = if r.scope == callee.scope {
            !exempt(r.name)
                && analysis.known_in(&chain, r.name, true)
                && !bound_by_statement(analysis, callee, &chain, &statement, r.name)
        } else {
            r.scope == MODULE
                && r.usage == Use::Load
                && def.start <= r.at.start
                && r.at.end <= def.end
                && analysis.known_in(&chain, r.name, false)
        };
        if clash {
            return None;
        }
    }
    let mut edits: Vec<(Range<usize>, String)> = analysis
        .resolution
        .references
        .iter()
        .filter(|r| r.scope == callee.scope && r.usage == Use::Load)
        .filter_map(|r| {
            let (_, text) = renamed.iter().find(|(p, _)| *p == r.name)?;
            Some((r.at.clone(), text.clone()))
        })
        .collect();
    edits.sort_by_key(|(r, _)| r.start);
    let indent = indent_at(ctx.source, statement.start).to_string();
    let mut lines: Vec<String> = bound
        .iter()
        .filter_map(|&(parameter, argument)| {
            let name = match &receiver {
                Some((p, name)) if *p == parameter => name.as_str(),
                _ if exempt(parameter) => return None,
                _ => parameter,
            };
            let text = ctx.text(span(argument)).to_string();
            Some(format!("{name} = {}", value_text(ctx, argument, text)))
        })
        .collect();
    if !prefix.is_empty() {
        let suite = ctx.suite(prefix)?;
        if !suite.multi_line {
            return None;
        }
        lines.push(moved_with(ctx, &suite, &indent, &edits));
    }
    let result = result.map(|e| (e, ctx.spliced(span(e), &edits)));
    let separator = format!("{}{indent}", ctx.nl);
    if statement.whole {
        // `f(…)` alone: the statements, then the value if there is one.
        lines.extend(result.map(|(e, text)| value_text(ctx, e, text)));
        if lines.is_empty() {
            lines.push("pass".into());
        }
        return Some(vec![(
            statement.start..statement.end,
            lines.join(&separator),
        )]);
    }
    let value = match result {
        Some((e, text)) if statement.value => value_text(ctx, e, text),
        Some((e, text)) => operand_text(ctx, e, text),
        None => "None".into(),
    };
    let mut edits = vec![(call, value)];
    if !lines.is_empty() {
        let before = statement.start..statement.start;
        edits.insert(
            0,
            (before, format!("{}{separator}", lines.join(&separator))),
        );
    }
    Some(edits)
}

/// Whether `name` is one of the parameters `renamed`.
fn exempt_in(renamed: &[(&str, String)], name: &str) -> bool {
    renamed.iter().any(|(p, _)| *p == name)
}

/// A method's receiver parameter with the name it gets at the call (its class's name in snake
/// case), if that name is used nowhere and the parameter is never rebound nor read by a nested
/// function.
fn receiver_name<'a>(
    analysis: &Analysis<'_, '_>,
    callee: &Callee<'_>,
    bound: &[(&'a str, &Expr)],
) -> Option<(&'a str, String)> {
    let class = callee.class?;
    let &(parameter, _) = bound.first()?;
    let mut name = String::new();
    let chars: Vec<char> = class.chars().collect();
    for (i, &c) in chars.iter().enumerate() {
        let boundary = i > 0
            && c.is_uppercase()
            && (chars[i - 1].is_lowercase()
                || chars.get(i + 1).is_some_and(|n| n.is_lowercase()) && chars[i - 1] != '_');
        if boundary {
            name.push('_');
        }
        name.extend(c.to_lowercase());
    }
    let fresh = name != parameter
        && !analysis.counts.keys().any(|&(_, n)| n == name)
        && !crate::builtin_names::BUILTIN_NAMES.contains(&name.as_str())
        && !matches!(name.as_str(), "match" | "case" | "type" | "_");
    let plain = bound_once_and_all(analysis, callee, parameter, |r| r.occurs == callee.scope);
    (fresh && plain && is_identifier(&name)).then_some((parameter, name))
}

/// Whether `name` is a plain identifier that is no keyword.
fn is_identifier(name: &str) -> bool {
    const KEYWORDS: &[&str] = &[
        "false", "none", "true", "and", "as", "assert", "async", "await", "break", "class",
        "continue", "def", "del", "elif", "else", "except", "finally", "for", "from", "global",
        "if", "import", "in", "is", "lambda", "nonlocal", "not", "or", "pass", "raise", "return",
        "try", "while", "with", "yield",
    ];
    let mut chars = name.chars();
    chars.next().is_some_and(|c| c.is_alphabetic() || c == '_')
        && chars.all(|c| c.is_alphanumeric() || c == '_')
        && !KEYWORDS.contains(&name)
}

/// Whether `name` is known at the call only as a target the call's statement assigns
/// (`kernel, plan = build(problem)` for a callee with a local `plan`), bound nowhere else and
/// not read by that statement: the statement overwrites whatever the callee's body left in it.
fn bound_by_statement(
    analysis: &Analysis<'_, '_>,
    callee: &Callee<'_>,
    chain: &[usize],
    statement: &CallStatement,
    name: &str,
) -> bool {
    let scope = callee.at_scope;
    let call = callee.call.start().to_usize();
    let once = analysis.count(scope, name).is_some_and(|c| c.binds == 1);
    let mut by_statement = false;
    for r in &analysis.resolution.references {
        if r.scope != scope || r.name != name {
            continue;
        }
        let inside = statement.start <= r.at.start && r.at.end <= statement.end;
        match r.usage {
            Use::Bind => by_statement |= inside && r.at.end <= call,
            Use::Load if inside => return false,
            Use::Load => {}
        }
    }
    once && by_statement && !analysis.known_in(&chain[1..], name, true)
}

/// Whether the parameter `p` of `callee`, bound to `argument`, can be replaced by the argument's
/// text everywhere: a name or a one-token literal, the parameter bound only as such and read
/// only in the function's own scope (not by a nested function).
pub(super) fn substitutable(
    ctx: &Ctx<'_>,
    analysis: &Analysis<'_, '_>,
    callee: &Callee<'_>,
    p: &str,
    argument: &Expr,
) -> bool {
    let one_token = match argument {
        Expr::Name(_) | Expr::NumberLiteral(_) | Expr::BooleanLiteral(_) | Expr::NoneLiteral(_) => {
            true
        }
        Expr::StringLiteral(s) => !s.value.is_implicit_concatenated(),
        _ => false,
    };
    one_token
        && bound_once_and_all(analysis, callee, p, |r| {
            // `2.real` is no attribute of `2`.
            let attribute = ctx
                .token_after(r.at.end)
                .is_some_and(|t| t.kind() == TokenKind::Dot);
            r.occurs == callee.scope && !(attribute && argument.is_number_literal_expr())
        })
}

/// Whether the callee's local `name` is bound once in its scope and every reference to that
/// binding is `ok`.
fn bound_once_and_all(
    analysis: &Analysis<'_, '_>,
    callee: &Callee<'_>,
    name: &str,
    ok: impl FnMut(&Reference<'_>) -> bool,
) -> bool {
    analysis
        .count(callee.scope, name)
        .is_some_and(|c| c.binds == 1)
        && analysis
            .resolution
            .references
            .iter()
            .filter(|r| r.scope == callee.scope && r.name == name)
            .all(ok)
}

/// [`Ctx::moved`] with the `edits` inside the suite (names: never at a line start, never over a
/// line end) applied.
pub(super) fn moved_with(
    ctx: &Ctx<'_>,
    suite: &Suite,
    to: &str,
    edits: &[(Range<usize>, String)],
) -> String {
    let inside: Vec<&(Range<usize>, String)> = edits
        .iter()
        .filter(|(r, _)| suite.span.start <= r.start && r.end <= suite.span.end)
        .collect();
    if inside.is_empty() {
        return ctx.moved(suite, to);
    }
    let mut text = String::new();
    let mut at = suite.span.start;
    let pieces = inside
        .iter()
        .map(|(r, t)| (r.clone(), t.as_str()))
        .chain(std::iter::once((suite.span.end..suite.span.end, "")));
    for (r, replacement) in pieces {
        // The rest of the line the previous name was on is copied as is.
        let first = if is_line_start(ctx.source, at) {
            at
        } else {
            next_line_start(ctx.source, at).min(r.start)
        };
        text.push_str(ctx.text(at..first));
        if first < r.start {
            text.push_str(&reindent(
                ctx.source,
                first..r.start,
                &suite.indent,
                to,
                &ctx.strings,
            ));
        }
        text.push_str(replacement);
        at = r.end;
    }
    text.trim_start_matches([' ', '\t', '\x0c']).to_string()
}

/// Whether an expression holds `yield` or `await` (nested scopes included: conservative).
pub(super) fn suspends(expr: &Expr) -> bool {
    let mut names = Names::default();
    names.visit_expr(expr);
    names.suspends
}
