//! Constant reduction ([`Group::IntegerReduction`]):
//!
//! - `halve-integer`: an integer literal greater than 1 becomes half its value (rounded down,
//!   written in decimal); literals beyond 64 bits are left alone;
//! - `shorten-string`: a plain one-part string literal without escapes keeps the first half of
//!   its characters;
//! - `empty-to-zero`: an empty tuple, list or dict display (`()`, `[]`, `{}`, two tokens) becomes
//!   `0` (one): where it only fills a place (an argument nothing reads) the number does too.
//!   Value substitution writes emptied containers, and no other rewrite makes them smaller.

use ruff_python_ast::{self as ast, Expr, Number};

use super::{span, Ctx};
use crate::Group;

/// `halve-integer`.
pub fn halve(ctx: &mut Ctx<'_>, whole: &Expr, n: &ast::ExprNumberLiteral) {
    if ctx.group != Group::IntegerReduction {
        return;
    }
    let Number::Int(int) = &n.value else {
        return;
    };
    if let Some(value) = int.as_usize() {
        if value > 1 {
            let text = (value / 2).to_string();
            ctx.push(
                Group::IntegerReduction,
                "halve-integer",
                span(whole),
                text,
                &[],
            );
        }
    }
}

/// `shorten-string`.
pub fn shorten_string(ctx: &mut Ctx<'_>, whole: &Expr, s: &ast::ExprStringLiteral) {
    if ctx.group != Group::IntegerReduction || s.value.is_implicit_concatenated() {
        return;
    }
    let text = ctx.text(span(whole));
    let prefix = text.chars().take_while(|c| c.is_ascii_alphabetic()).count();
    let quotes = &text[prefix..];
    let quote = ["\"\"\"", "'''", "\"", "'"]
        .into_iter()
        .find(|q| quotes.starts_with(q) && quotes.len() >= 2 * q.len() && quotes.ends_with(q));
    let Some(quote) = quote else {
        return;
    };
    let content = &quotes[quote.len()..quotes.len() - quote.len()];
    if content.contains('\\') || content.is_empty() {
        return;
    }
    let keep = content.chars().count() / 2;
    let short: String = content.chars().take(keep).collect();
    let replacement = format!("{}{quote}{short}{quote}", &text[..prefix]);
    ctx.push(
        Group::IntegerReduction,
        "shorten-string",
        span(whole),
        replacement,
        &[],
    );
}

/// `empty-to-zero`.
pub fn empty_to_zero(ctx: &mut Ctx<'_>, whole: &Expr) {
    let empty = match whole {
        Expr::Tuple(t) => t.elts.is_empty(),
        Expr::List(l) => l.elts.is_empty(),
        Expr::Dict(d) => d.items.is_empty(),
        _ => false,
    };
    if ctx.group != Group::IntegerReduction || !empty {
        return;
    }
    // The display's own brackets only (a bare `()` may sit in extra parentheses).
    let text = ctx.text(span(whole));
    if !matches!(text.chars().next(), Some('(' | '[' | '{')) {
        return;
    }
    ctx.push(
        Group::IntegerReduction,
        "empty-to-zero",
        span(whole),
        "0".to_owned(),
        &[],
    );
}
