//! Slow removals ([`Group::SlowRemovals`]): one element of a comma-separated list.
//!
//! - `remove-element`: a tuple, list, set or dict element;
//! - `remove-argument` / `remove-keyword`: a call's positional or keyword argument
//!   (`remove-base` / `remove-keyword` for a class's bases);
//! - `remove-parameter`: a function or lambda parameter;
//! - `remove-default`: a parameter's default value (`a=1` → `a`);
//! - `remove-import`: one name of a multi-name `import` / `from … import` (the last one is
//!   removed with the comma before it, as `import a,` is invalid).
//!
//! An element is removed with the separator after it (up to the next element), the last one
//! with its trailing comma if it has one (`[a, b]` → `[a, ]`, `(a,)` → `()`), so removals of
//! neighbouring elements never overlap.

use std::ops::Range;

use ruff_python_ast::token::TokenKind;
use ruff_python_ast::{self as ast, ArgOrKeyword, Parameters};
use ruff_text_size::Ranged;

use super::{span, Ctx};
use crate::Group;

/// The kind of an element that stays (it only delimits its neighbours' removals).
const KEPT: &str = "";

/// Whether a `def` is decorated `@staticmethod` (its first parameter is no receiver).
pub fn is_static(f: &ast::StmtFunctionDef) -> bool {
    f.decorator_list.iter().any(|d| match &d.expression {
        ast::Expr::Name(n) => n.id.as_str() == "staticmethod",
        ast::Expr::Attribute(a) => a.attr.as_str() == "staticmethod",
        _ => false,
    })
}

/// Pushes one removal per element (but those of kind [`KEPT`]); `items` are element ranges
/// with their kinds, in source order.
fn remove_each(ctx: &mut Ctx<'_>, items: &[(Range<usize>, &'static str)]) {
    for (i, (item, kind)) in items.iter().enumerate() {
        if *kind == KEPT {
            continue;
        }
        let end = match items.get(i + 1) {
            Some((next, _)) => next.start,
            None => match ctx.token_after(item.end) {
                Some(t) if t.kind() == TokenKind::Comma => t.end().to_usize(),
                _ => item.end,
            },
        };
        ctx.push(
            Group::SlowRemovals,
            kind,
            item.start..end,
            String::new(),
            &[],
        );
    }
}

/// `remove-element` for tuple, list and set elements.
pub fn elements(ctx: &mut Ctx<'_>, elements: Vec<Range<usize>>) {
    if ctx.group != Group::SlowRemovals {
        return;
    }
    let items: Vec<_> = elements
        .into_iter()
        .map(|r| (r, "remove-element"))
        .collect();
    remove_each(ctx, &items);
}

/// Start of `value`, moved back over a `**` or `*` just before it.
fn with_stars(ctx: &Ctx<'_>, value: usize, star: TokenKind) -> usize {
    match ctx.token_before(value) {
        Some(t) if t.kind() == star => t.start().to_usize(),
        _ => value,
    }
}

/// `remove-element` for dict items (`k: v` or `**d`).
pub fn dict_items(ctx: &mut Ctx<'_>, d: &ast::ExprDict) {
    if ctx.group != Group::SlowRemovals {
        return;
    }
    let items: Vec<_> = d
        .items
        .iter()
        .map(|item| {
            let value = span(&item.value);
            let start = match &item.key {
                Some(key) => key.start().to_usize(),
                None => with_stars(ctx, value.start, TokenKind::DoubleStar),
            };
            (start..value.end, "remove-element")
        })
        .collect();
    remove_each(ctx, &items);
}

/// `remove-argument`/`remove-base` (`positional` names the kind) and `remove-keyword`.
pub fn arguments(ctx: &mut Ctx<'_>, arguments: &ast::Arguments, positional: &'static str) {
    if ctx.group != Group::SlowRemovals {
        return;
    }
    let items: Vec<_> = arguments
        .iter_source_order()
        .map(|a| match a {
            ArgOrKeyword::Arg(e) => (span(e), positional),
            ArgOrKeyword::Keyword(k) => (span(k), "remove-keyword"),
        })
        .collect();
    remove_each(ctx, &items);
}

/// `remove-parameter`. A method's first parameter (`receiver`: `self` or `cls`) is never
/// removed while the method stays: a method without it reads as a bug of its own
/// (`def __init__(expected, actual)`), however small.
pub fn parameters(ctx: &mut Ctx<'_>, p: &Parameters, receiver: bool) {
    if ctx.group != Group::SlowRemovals {
        return;
    }
    let mut items: Vec<(Range<usize>, &'static str)> = Vec::new();
    for (i, param) in p.posonlyargs.iter().chain(&p.args).enumerate() {
        let kind = if receiver && i == 0 {
            KEPT
        } else {
            "remove-parameter"
        };
        items.push((span(param), kind));
    }
    // `*args` and `**kwargs` go with their stars.
    let starred = |parameter: &ast::Parameter, stars: TokenKind| {
        let r = span(parameter);
        (with_stars(ctx, r.start, stars)..r.end, "remove-parameter")
    };
    if let Some(vararg) = &p.vararg {
        items.push(starred(vararg, TokenKind::Star));
    }
    for param in &p.kwonlyargs {
        items.push((span(param), "remove-parameter"));
    }
    if let Some(kwarg) = &p.kwarg {
        items.push(starred(kwarg, TokenKind::DoubleStar));
    }
    items.sort_by_key(|(r, _)| r.start);
    remove_each(ctx, &items);
    // Only the first positional default can go (a later one would follow a default).
    let positional: Vec<_> = p.posonlyargs.iter().chain(&p.args).collect();
    let first_default = positional.iter().position(|param| param.default.is_some());
    let removable = positional
        .iter()
        .enumerate()
        .filter(|(i, _)| Some(*i) == first_default)
        .map(|(_, param)| *param)
        .chain(&p.kwonlyargs);
    for param in removable {
        if let Some(default) = &param.default {
            let range = param.parameter.end().to_usize()..default.end().to_usize();
            ctx.push(
                Group::SlowRemovals,
                "remove-default",
                range,
                String::new(),
                &[],
            );
        }
    }
}

/// `remove-import`.
pub fn aliases(ctx: &mut Ctx<'_>, names: &[ast::Alias]) {
    if ctx.group != Group::SlowRemovals || names.len() < 2 {
        return;
    }
    for (i, alias) in names.iter().enumerate() {
        let range = match names.get(i + 1) {
            Some(next) => alias.start().to_usize()..next.start().to_usize(),
            None => names[i - 1].end().to_usize()..alias.end().to_usize(),
        };
        ctx.push(
            Group::SlowRemovals,
            "remove-import",
            range,
            String::new(),
            &[],
        );
    }
}
