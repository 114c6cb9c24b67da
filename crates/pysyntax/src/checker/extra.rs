//! Compile-time errors CPython reports that ruff's semantic checker does not: too many nested
//! blocks, `break`/`continue`/`return` in `except*`, and assignments to `__debug__` through
//! attributes or keyword arguments. (`default 'except:' must be last`, `nonlocal and global` and
//! tab consistency are checked where the visitor meets them, and in `limits`.)

use ruff_python_ast::{Expr, Stmt};
use ruff_text_size::Ranged;

use super::Checker;

/// CPython's `CO_MAXBLOCKS`.
const MAX_BLOCKS: usize = 20;

impl Checker<'_> {
    /// Runs `f` inside `n` more compile-time blocks opened by the statement at `at`; CPython
    /// allows at most [`MAX_BLOCKS`] per function ("too many statically nested blocks").
    pub(super) fn in_blocks(&mut self, n: usize, at: usize, f: impl FnOnce(&mut Self)) {
        let Some(frame) = self.frames.last_mut() else {
            return f(self);
        };
        frame.blocks += n;
        if frame.blocks > MAX_BLOCKS && frame.blocks - n <= MAX_BLOCKS {
            self.extra
                .push((at, "too many statically nested blocks".into()));
        }
        f(self);
        if let Some(frame) = self.frames.last_mut() {
            frame.blocks -= n;
        }
    }

    /// Reports `break`/`continue`/`return` in an `except*` block.
    pub(super) fn star_error(&mut self, stmt: &Stmt) {
        let message = "'break', 'continue' and 'return' cannot appear in an except* block";
        self.extra.push((stmt.start().to_usize(), message.into()));
    }

    /// Reports assignments to `__debug__` that ruff's checker lets through.
    pub(super) fn debug_assignment(&mut self, expr: &Expr) {
        let bad = match expr {
            Expr::Attribute(a) => {
                a.attr.as_str() == "__debug__"
                    && a.ctx.is_store()
                    && self.aug_target != Some(a.range)
            }
            Expr::Call(c) => c
                .arguments
                .keywords
                .iter()
                .any(|k| k.arg.as_ref().is_some_and(|a| a.as_str() == "__debug__")),
            _ => false,
        };
        if bad {
            let at = match expr {
                Expr::Call(c) => c
                    .arguments
                    .keywords
                    .iter()
                    .find(|k| k.arg.as_ref().is_some_and(|a| a.as_str() == "__debug__"))
                    .map_or(expr.start(), |k| k.start()),
                _ => expr.start(),
            };
            self.extra
                .push((at.to_usize(), "cannot assign to __debug__".into()));
        }
    }
}
