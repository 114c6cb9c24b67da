//! Canonicalizations ([`Group::Canonicalizations`]):
//!
//! - `with-as-to-assign`: `with E as V: B` → `with E:` then `V = 0…` as the block's first line;
//! - `add-varargs`: a function lacking `*args` or `**kwargs` gets them, so that removing its
//!   parameters (or call arguments) later keeps calls valid.

use ruff_python_ast::token::TokenKind;
use ruff_python_ast::{self as ast, Parameters};
use ruff_text_size::Ranged;

use super::control_flow::zeros;
use super::{span, Ctx};
use crate::text::line_start;
use crate::Group;

/// `with-as-to-assign`, one rewrite per `as` item.
pub fn with_as(ctx: &mut Ctx<'_>, s: &ast::StmtWith) {
    if ctx.group != Group::Canonicalizations {
        return;
    }
    let Some(body) = ctx.suite(&s.body) else {
        return;
    };
    let first = s.body[0].start().to_usize();
    for item in &s.items {
        let Some(target) = &item.optional_vars else {
            continue;
        };
        let target_text = ctx.text(span(&**target));
        let assignment = format!("{target_text} = {}", zeros(target));
        let (insert_at, insertion) = if body.multi_line {
            let at = line_start(ctx.source, first);
            (at, format!("{}{assignment}{}", body.indent, ctx.nl))
        } else {
            (first, format!("{assignment}; "))
        };
        let cut = item.context_expr.end().to_usize()..target.end().to_usize();
        if cut.end > insert_at {
            continue;
        }
        let kept = cut.end..insert_at;
        let text = format!("{}{insertion}", ctx.text(kept.clone()));
        ctx.push(
            Group::Canonicalizations,
            "with-as-to-assign",
            cut.start..insert_at,
            text,
            &[kept],
        );
    }
}

/// A parameter name not used by `parameters`, starting from `base`.
fn fresh(parameters: &Parameters, base: &str) -> String {
    let mut name = base.to_string();
    while parameters.iter().any(|p| p.name().as_str() == name) {
        name.push('_');
    }
    name
}

/// `add-varargs`.
pub fn add_varargs(ctx: &mut Ctx<'_>, f: &ast::StmtFunctionDef) {
    if ctx.group != Group::Canonicalizations {
        return;
    }
    let p = &*f.parameters;
    if p.vararg.is_some() && p.kwarg.is_some() {
        return;
    }
    let close = p.end().to_usize().saturating_sub(1);
    if ctx.text(close..close + 1) != ")" {
        return;
    }
    let args = format!("*{}", fresh(p, "args"));
    let kwargs = format!("**{}", fresh(p, "kwargs"));
    // Edits as (range, text), in source order.
    let mut edits: Vec<(std::ops::Range<usize>, String)> = Vec::new();
    let mut append: Vec<String> = Vec::new();
    if p.vararg.is_none() {
        if let Some(kwonly) = p.kwonlyargs.first() {
            // Replace the bare `*` before the keyword-only parameters.
            let Some(star) = ctx.token_before(kwonly.start().to_usize()) else {
                return;
            };
            let star = match star.kind() {
                TokenKind::Comma => ctx.token_before(star.start().to_usize()),
                _ => Some(star),
            };
            match star {
                Some(star) if star.kind() == TokenKind::Star => {
                    edits.push((span(star), args));
                }
                _ => return,
            }
        } else if let Some(kwarg) = &p.kwarg {
            let start = kwarg.start().to_usize();
            let at = if ctx.text(start..start + 2) == "**" {
                start
            } else {
                match ctx.token_before(start) {
                    Some(stars) if stars.kind() == TokenKind::DoubleStar => {
                        stars.start().to_usize()
                    }
                    _ => return,
                }
            };
            edits.push((at..at, format!("{args}, ")));
        } else {
            append.push(args);
        }
    }
    if p.kwarg.is_none() {
        append.push(kwargs);
    }
    if !append.is_empty() {
        let list = append.join(", ");
        match ctx.token_before(close) {
            Some(t) if t.kind() == TokenKind::Lpar => edits.push((close..close, list)),
            Some(t) if t.kind() == TokenKind::Comma => {
                edits.push((close..close, format!(" {list}")))
            }
            Some(t) => {
                let at = t.end().to_usize();
                edits.push((at..at, format!(", {list}")));
            }
            None => return,
        }
    }
    let (Some(first), Some(last)) = (edits.first(), edits.last()) else {
        return;
    };
    let range = first.0.start..last.0.end;
    let text = ctx.spliced(range.clone(), &edits);
    ctx.push(Group::Canonicalizations, "add-varargs", range, text, &[]);
}
