//! Python syntax for minrepro's Python front end.
//!
//! Everything here is pure text-in, text-out: [`check_valid`] decides whether a candidate is valid
//! Python (parse + the semantic checks CPython does at compile time), [`token_count`] measures
//! size, [`freeze_regions`] validates freeze annotations, and [`rewrites`] lists the AutoDD-style
//! rewrites of a source, grouped as AutoDD groups them, which [`apply`] splices into the text.
//!
//! STUB: the API is fixed; the implementation is being written (issue 4).

use std::ops::Range;

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
    let _ = source;
    Ok(())
}

/// Size of `source` in Python tokens (comments and non-logical newlines excluded).
pub fn token_count(source: &str) -> usize {
    source.split_whitespace().count()
}

/// A misuse of freeze annotations (e.g. `# autodd: freeze` on a multi-line statement, or an
/// unterminated `# autodd: freeze-start`), with the 1-based line it names.
pub type FreezeProblem = SyntaxProblem;

/// Validates the freeze annotations of `source`.
pub fn freeze_regions(source: &str) -> Result<(), FreezeProblem> {
    let _ = source;
    Ok(())
}

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
        }
    }
}

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
    let _ = (source, group);
    Vec::new()
}

/// Applies `selected` rewrites of `source` together: where one selected rewrite lies inside
/// another, the outer one wins; a block whose statements are all removed becomes `pass`. The
/// result may be invalid; callers check it with [`check_valid`].
pub fn apply(source: &str, selected: &[&Rewrite]) -> String {
    let mut edits: Vec<&Rewrite> = selected.to_vec();
    edits.sort_by_key(|r| (r.range.start, std::cmp::Reverse(r.range.end)));
    let mut out = String::new();
    let mut at = 0;
    for edit in edits {
        if edit.range.start < at {
            continue;
        }
        out.push_str(&source[at..edit.range.start]);
        out.push_str(&edit.replacement);
        at = edit.range.end;
    }
    out.push_str(&source[at..]);
    out
}
