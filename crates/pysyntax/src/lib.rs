//! Python syntax for minrepro's Python front end.
//!
//! Everything here is pure text-in, text-out: [`check_valid`] decides whether a candidate is valid
//! Python (parse + the semantic checks CPython does at compile time), [`token_count`] measures
//! size, [`freeze_regions`] validates freeze annotations, and [`rewrites`] lists the AutoDD-style
//! rewrites of a source, grouped as AutoDD groups them, which [`apply`] splices into the text.
//!
//! Rewrites splice source text by AST byte ranges, so whatever survives keeps its comments and
//! formatting; moved blocks are re-indented outside string literals only. Frozen code (see
//! [`freeze_regions`]) is never rewritten or discarded. [`KINDS`] lists every rewrite kind.
//!
//! A lexer pre-scan rejects sources nested beyond CPython's limits; shallow sources are parsed and
//! walked on the caller's thread, deeper ones on a thread with a 512 MiB stack (mostly untouched),
//! so nesting cannot overflow the caller's stack. Nothing here panics on any `&str` input.

#![warn(missing_docs)]

use std::ops::Range;

mod apply;
mod arity;
mod bindings;
mod builtin_names;
mod checker;
mod chunk_names;
mod comments;
mod cpython_limits;
mod freeze;
mod imports;
mod indent;
mod modules;
mod names;
mod origin;
mod prepared;
mod pytest_script;
mod rewrites;
mod scopes;
mod text;
mod tokens;
mod validity;
mod values;

#[cfg(test)]
mod tests;

pub use comments::without_comment_lines;
pub use imports::top_level_imports;
pub use modules::{module_facts, AttrChain, Import, ImportedName, ModuleFacts, NameRef};
pub use names::NameUse;
pub use origin::{definition_offset, qualified_name};
pub use prepared::{Edited, Prepared};
pub use pytest_script::{pytest_script, PytestTest};
pub use values::{instrument, value_rewrites, value_sites, RECORD_BEGIN, RECORD_END};

/// A source that is not valid Python, with the 1-based line of the problem.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SyntaxProblem {
    /// 1-based line number.
    pub line: usize,
    /// What is wrong.
    pub message: String,
}

impl std::fmt::Display for SyntaxProblem {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "line {}: {}", self.line, self.message)
    }
}

/// Checks that `source` is valid Python 3 (parse and compile-time semantic checks).
pub fn check_valid(source: &str) -> Result<(), SyntaxProblem> {
    check_valid_for(source, DEFAULT_MINOR)
}

/// The Python 3 minor version [`check_valid`] checks against (CPython 3.11).
pub const DEFAULT_MINOR: u8 = 11;

/// Like [`check_valid`], for Python 3.`minor` (syntax newer than that version is rejected, e.g.
/// `type X = int` before 3.12).
pub fn check_valid_for(source: &str, minor: u8) -> Result<(), SyntaxProblem> {
    validity::check(source, minor)
}

/// Where `source` is nested deeper than CPython's tokenizer or compiler accept (brackets,
/// indentation, operators of one logical line), if it is; only the iterative lexer runs.
pub fn beyond_cpython_nesting(source: &str) -> Option<SyntaxProblem> {
    cpython_limits::shallow(source).err()
}

/// Size of `source` in Python tokens (comments and non-logical newlines excluded); exactly what
/// is counted is documented in the `tokens` module: every lexer token except `Comment`,
/// `NonLogicalNewline` and `EndOfFile` (so `Newline`, `Indent` and `Dedent` count).
pub fn token_count(source: &str) -> usize {
    tokens::count(source)
}

/// A misuse of freeze annotations (e.g. `# autodd: freeze` on a multi-line statement, or an
/// unterminated `# autodd: freeze-start`), with the 1-based line it names.
pub type FreezeProblem = SyntaxProblem;

/// Validates the freeze annotations of `source` (a source that does not parse is reported as
/// such).
pub fn freeze_regions(source: &str) -> Result<(), FreezeProblem> {
    analyse(source, |_, frozen| frozen.problem.map_or(Ok(()), Err)).unwrap_or_else(Err)
}

/// What is wrong with a source file: its Python, or its freeze annotations.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SourceProblem {
    /// Not valid Python (see [`check_valid_for`]).
    Invalid(SyntaxProblem),
    /// Valid Python with a misused freeze annotation (see [`freeze_regions`]).
    Freeze(FreezeProblem),
}

/// [`check_valid_for`], then [`freeze_regions`], from one parse.
pub fn check_source(source: &str, minor: u8) -> Result<(), SourceProblem> {
    let frozen = validity::check_standalone_with(source, minor, |body, tokens| {
        freeze::find(source, body, tokens).problem
    });
    match frozen {
        Err(problem) => Err(SourceProblem::Invalid(problem)),
        Ok((_, Some(problem))) => Err(SourceProblem::Freeze(problem)),
        Ok((_, None)) => Ok(()),
    }
}

/// Byte ranges of `source` that freeze annotations protect (sorted by start, possibly
/// overlapping); empty if `source` does not parse.
pub fn frozen_ranges(source: &str) -> Vec<Range<usize>> {
    analyse(source, |_, frozen| frozen.ranges).unwrap_or_default()
}

/// Parses `source` on a large stack and runs `f` on its body and frozen ranges; `Err` if
/// `source` does not parse.
fn analyse<T: Send>(
    source: &str,
    f: impl FnOnce(&Parsed, freeze::Frozen) -> T + Send,
) -> Result<T, SyntaxProblem> {
    let internal = || {
        Err(SyntaxProblem {
            line: 1,
            message: "internal error while parsing".into(),
        })
    };
    let run = || {
        let parsed = ruff_python_parser::parse_module(source).map_err(|e| SyntaxProblem {
            line: text::line_of(source, ruff_text_size::Ranged::start(&e).to_usize()),
            message: e.error.to_string(),
        })?;
        let frozen = freeze::find(source, &parsed.syntax().body, parsed.tokens());
        Ok(f(&parsed, frozen))
    };
    validity::guarded(source, run, internal)?
}

/// A parsed module.
type Parsed = ruff_python_parser::Parsed<ruff_python_ast::ModModule>;

/// AutoDD's groups of rewrites, in the order a round applies them.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Group {
    /// Statement removal, `if`/`for` simplifications.
    FastRemovals,
    /// `with … as V` and `*args, **kwargs` canonicalizations.
    Canonicalizations,
    /// Assignment, call, binary-operator and argument simplifications.
    Simplifications,
    /// Halving integer constants.
    IntegerReduction,
    /// Slower expression-level removals (list elements, keyword arguments, parameters).
    SlowRemovals,
    /// An expression replaced by the literal it evaluated to in an instrumented run (see
    /// [`value_rewrites`]); not in [`Group::ALL`]: [`rewrites`] lists none (it has no values).
    ValueSubstitution,
}

impl Group {
    /// Every group in round order.
    pub const ALL: [Group; 5] = [
        Group::FastRemovals,
        Group::Canonicalizations,
        Group::Simplifications,
        Group::IntegerReduction,
        Group::SlowRemovals,
    ];

    /// Stable name for logs.
    pub fn name(self) -> &'static str {
        match self {
            Group::FastRemovals => "fast-removals",
            Group::Canonicalizations => "canonicalizations",
            Group::Simplifications => "simplifications",
            Group::IntegerReduction => "integer-reduction",
            Group::SlowRemovals => "slow-removals",
            Group::ValueSubstitution => "value-substitution",
        }
    }
}

/// Every rewrite `kind` with its group, in group order. See the `rewrites` modules for what each
/// does: statement removal (`remove-statement`, `remove-decorator`, `remove-handler`,
/// `remove-else`, `remove-finally`), block hoisting (`if-to-body`, `if-to-else`, `for-to-body`,
/// `while-to-body`, `with-to-body`, `try-to-body`, `try-to-handler`, `def-to-body`,
/// `class-to-body`), a function called once inlined
/// (`inline-function-call`), a compound statement to its header's expression (`for-to-iter`,
/// `while-to-test`, `if-to-test`), canonicalizations (`with-as-to-assign`, `add-varargs`),
/// expression simplifications (grouping parentheses too: `remove-parentheses`), constant
/// reduction and list-element removals.
pub const KINDS: &[(&str, Group)] = &[
    ("remove-statement", Group::FastRemovals),
    ("remove-decorator", Group::FastRemovals),
    ("if-to-body", Group::FastRemovals),
    ("if-to-else", Group::FastRemovals),
    ("for-to-body", Group::FastRemovals),
    ("while-to-body", Group::FastRemovals),
    ("with-to-body", Group::FastRemovals),
    ("try-to-body", Group::FastRemovals),
    ("try-to-handler", Group::FastRemovals),
    ("def-to-body", Group::FastRemovals),
    ("class-to-body", Group::FastRemovals),
    ("remove-handler", Group::FastRemovals),
    ("remove-else", Group::FastRemovals),
    ("remove-finally", Group::FastRemovals),
    ("inline-function-call", Group::FastRemovals),
    ("for-to-iter", Group::FastRemovals),
    ("while-to-test", Group::FastRemovals),
    ("if-to-test", Group::FastRemovals),
    ("with-as-to-assign", Group::Canonicalizations),
    ("add-varargs", Group::Canonicalizations),
    ("assign-to-one", Group::Simplifications),
    ("assign-to-value", Group::Simplifications),
    ("call-to-arg", Group::Simplifications),
    ("binop-to-left", Group::Simplifications),
    ("binop-to-right", Group::Simplifications),
    ("ifexp-to-body", Group::Simplifications),
    ("ifexp-to-else", Group::Simplifications),
    ("attribute-to-value", Group::Simplifications),
    ("call-to-receiver", Group::Simplifications),
    ("call-to-callee", Group::Simplifications),
    ("subscript-to-value", Group::Simplifications),
    ("unary-to-operand", Group::Simplifications),
    ("boolop-to-operand", Group::Simplifications),
    ("compare-to-operand", Group::Simplifications),
    ("comprehension-to-element", Group::Simplifications),
    ("inline-variable", Group::Simplifications),
    ("inline-call-expression", Group::Simplifications),
    ("inline-call-body", Group::Simplifications),
    ("inline-class-attribute", Group::Simplifications),
    ("remove-parentheses", Group::Simplifications),
    ("registry-lookup", Group::Simplifications),
    ("await-to-callee", Group::Simplifications),
    ("halve-integer", Group::IntegerReduction),
    ("shorten-string", Group::IntegerReduction),
    ("empty-to-zero", Group::IntegerReduction),
    ("remove-element", Group::SlowRemovals),
    ("remove-argument", Group::SlowRemovals),
    ("remove-keyword", Group::SlowRemovals),
    ("remove-base", Group::SlowRemovals),
    ("remove-parameter", Group::SlowRemovals),
    ("remove-default", Group::SlowRemovals),
    ("remove-import", Group::SlowRemovals),
    ("remove-parameter-with-arguments", Group::SlowRemovals),
    ("substitute-value", Group::ValueSubstitution),
];

/// One rewrite of one syntax node.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Rewrite {
    /// Transformation name, e.g. `remove-statement`, `if-to-body`.
    pub kind: &'static str,
    /// Byte range of the source the rewrite replaces.
    pub range: Range<usize>,
    /// Replacement text (already indented for its position).
    pub replacement: String,
}

/// Every rewrite of `group` applicable to `source`, in source order, never touching frozen code.
/// Rewrites whose result equals the source are not listed.
pub fn rewrites(source: &str, group: Group) -> Vec<Rewrite> {
    analyse(source, |parsed, frozen| {
        list_rewrites(source, parsed, &frozen.ranges, group)
    })
    .unwrap_or_default()
}

/// The rewrites of `group` in the parsed `source`, outside the `frozen` ranges.
fn list_rewrites(
    source: &str,
    parsed: &Parsed,
    frozen: &[Range<usize>],
    group: Group,
) -> Vec<Rewrite> {
    let mut ctx = rewrites::Ctx::new(source, parsed.tokens(), frozen, group);
    rewrites::list(&mut ctx, &parsed.syntax().body);
    ctx.out
}

/// Applies `selected` rewrites of `source` together: where one selected rewrite lies inside
/// another, the outer one wins; a block whose statements are all removed becomes `pass`. The
/// result may be invalid; callers check it with [`check_valid`].
pub fn apply(source: &str, selected: &[&Rewrite]) -> String {
    apply::apply(source, selected)
}
