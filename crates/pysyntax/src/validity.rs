//! Validity checks: ruff's parser plus its semantic syntax checks (driven by
//! [`checker`](crate::checker)), plus the few compile-time errors CPython reports that ruff does
//! not (see [`limits`](crate::limits) and the checker's extra errors).
//!
//! The parser and the AST visitors are recursive, so everything runs on a dedicated thread with a
//! large stack ([`STACK_SIZE`]). Sources nested deeper than CPython accepts are rejected up front
//! (see [`guarded`]), so the stack is never exhausted; shallow sources skip the extra thread.

use ruff_python_ast::token::Tokens;
use ruff_python_ast::{self as ast, PythonVersion};
use ruff_python_parser::{parse_unchecked, Mode, ParseOptions};
use ruff_text_size::TextRange;

use crate::bindings::globals;
use crate::checker::Checker;
use crate::cpython_limits::inconsistent_tabs;
use crate::text::line_of;
use crate::SyntaxProblem;

/// Stack size of the checking thread (virtual memory; only touched pages are committed).
pub const STACK_SIZE: usize = 512 << 20;

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

/// Runs `f` (which parses or walks `source`) safely: `Err` if `source` is nested beyond
/// CPython's limits, else `f`'s result, computed on the calling thread when `source` is shallow
/// and on a large-stack thread otherwise (`internal()` if `f` panics or the thread fails).
pub fn guarded<T: Send>(
    source: &str,
    f: impl FnOnce() -> T + Send,
    internal: impl FnOnce() -> T,
) -> Result<T, SyntaxProblem> {
    if crate::cpython_limits::shallow(source)? {
        // A panic in the parser must not reach the caller either.
        let result = std::panic::catch_unwind(std::panic::AssertUnwindSafe(f));
        Ok(result.unwrap_or_else(|_| internal()))
    } else {
        Ok(on_big_stack(f).unwrap_or_else(internal))
    }
}

/// Checks `source` for Python 3.`minor`.
pub fn check(source: &str, minor: u8) -> Result<(), SyntaxProblem> {
    check_standalone(source, minor).map(|_| ())
}

/// Like [`check`], and for a valid `source` also whether its module scope stands alone: no
/// `global` declaration at module scope (CPython compares those with every module-level use)
/// and no `__future__` anywhere (future imports must come first in the whole file). The
/// incremental checks of [`Prepared`](crate::Prepared) rely on this to check one part of a
/// module on its own.
pub fn check_standalone(source: &str, minor: u8) -> Result<bool, SyntaxProblem> {
    check_standalone_with(source, minor, |_, _| ()).map(|(alone, ())| alone)
}

/// [`check_standalone`], and for a valid `source` also `then` of its module body and tokens
/// (from the same parse: callers that need more than the verdict parse once).
pub(crate) fn check_standalone_with<T: Send>(
    source: &str,
    minor: u8,
    then: impl FnOnce(&[ast::Stmt], &Tokens) -> T + Send,
) -> Result<(bool, T), SyntaxProblem> {
    let internal = || {
        Err(SyntaxProblem {
            line: 1,
            message: "internal error while checking".into(),
        })
    };
    guarded(source, || check_here(source, minor, then), internal)?
}

/// Checks `source` on the current thread (needs a large stack for deeply nested sources); `Ok`
/// tells whether its module scope stands alone (see [`check_standalone`]), with `then`'s result.
fn check_here<T>(
    source: &str,
    minor: u8,
    then: impl FnOnce(&[ast::Stmt], &Tokens) -> T,
) -> Result<(bool, T), SyntaxProblem> {
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
        return Ok((false, then(&[], parsed.tokens())));
    };
    if let Some(at) = inconsistent_tabs(source, parsed.tokens()) {
        return Err(SyntaxProblem {
            line: line_of(source, at),
            message: "inconsistent use of tabs and spaces in indentation".into(),
        });
    }
    let mut found = Checker::run(source, version, &module.body);
    found.sort();
    match found.into_iter().next() {
        Some((at, message)) => Err(problem(TextRange::empty(offset(at)), message)),
        None => {
            let alone = globals(&module.body).is_empty() && !source.contains("__future__");
            Ok((alone, then(&module.body, parsed.tokens())))
        }
    }
}

/// A byte offset as a [`TextSize`](ruff_text_size::TextSize).
fn offset(at: usize) -> ruff_text_size::TextSize {
    ruff_text_size::TextSize::try_from(at).unwrap_or_default()
}
