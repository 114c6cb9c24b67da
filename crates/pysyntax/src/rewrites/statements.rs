//! Statement removal (`remove-statement`) and decorator removal (`remove-decorator`), both in
//! [`Group::FastRemovals`].
//!
//! A statement alone on its lines is removed with its lines (trailing comment included); one that
//! shares a line with others (`a; b`, or a body on its header line) is removed with the `; `
//! after it. The only statement of a block becomes `pass`; when several selected removals empty a
//! block together, [`apply`](crate::apply) puts the `pass` back.

use ruff_python_ast::{Decorator, Stmt};
use ruff_text_size::Ranged;

use super::{span, Ctx};
use crate::text::{is_line_start, line_end, line_start, next_line_start};
use crate::Group;

/// The byte range removing statement `i` of `suite` deletes (assuming siblings stay).
pub fn removal_range(source: &str, suite: &[Stmt], i: usize) -> std::ops::Range<usize> {
    let stmt = span(&suite[i]);
    let line_after = next_line_start(source, stmt.end);
    let next_on_line = suite
        .get(i + 1)
        .map(|n| n.start().to_usize())
        .filter(|&n| n < line_after);
    match next_on_line {
        Some(next) => stmt.start..next,
        None if is_line_start(source, stmt.start) => line_start(source, stmt.start)..line_after,
        None => stmt,
    }
}

/// `remove-statement` for statement `i` of `suite` (`module`: the suite is the module body,
/// which may become empty).
pub fn remove(ctx: &mut Ctx<'_>, suite: &[Stmt], i: usize, module: bool) {
    if ctx.group != Group::FastRemovals {
        return;
    }
    let stmt = &suite[i];
    if !module && suite.len() == 1 {
        if !matches!(stmt, Stmt::Pass(_)) {
            let range = stmt.start().to_usize()..line_end(ctx.source, stmt.end().to_usize());
            ctx.push(
                Group::FastRemovals,
                "remove-statement",
                range,
                "pass".into(),
                &[],
            );
        }
        return;
    }
    let range = removal_range(ctx.source, suite, i);
    ctx.push(
        Group::FastRemovals,
        "remove-statement",
        range,
        String::new(),
        &[],
    );
}

/// `remove-decorator`: drops one decorator line of a function or class.
pub fn decorators(ctx: &mut Ctx<'_>, decorators: &[Decorator]) {
    if ctx.group != Group::FastRemovals {
        return;
    }
    for decorator in decorators {
        let at = decorator.start().to_usize();
        if !is_line_start(ctx.source, at) {
            continue;
        }
        let range =
            line_start(ctx.source, at)..next_line_start(ctx.source, decorator.end().to_usize());
        ctx.push(
            Group::FastRemovals,
            "remove-decorator",
            range,
            String::new(),
            &[],
        );
    }
}
