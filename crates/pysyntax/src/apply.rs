//! Applying a selection of rewrites to a source.
//!
//! Selected rewrites are sorted by start (longer first on ties). A rewrite that starts inside an
//! earlier kept one is dropped: nested rewrites lose to the outer one, and of two overlapping
//! (not nested) rewrites the first wins. Rewrites with out-of-bounds ranges are ignored.
//! Finally, a block whose statements were all removed by the kept rewrites gets a `pass`.

use std::ops::Range;

use ruff_python_ast::Stmt;
use ruff_text_size::Ranged;

use crate::freeze::child_suites;
use crate::rewrites::span;
use crate::text::{indent_at, is_line_start, line_start, valid_range};
use crate::Rewrite;

/// One kept edit.
pub struct Edit {
    /// Byte range of the source the edit replaces.
    pub range: Range<usize>,
    replacement: String,
    /// Closing brackets that, right after this deletion, make a separator before it dangle.
    closers: &'static str,
}

/// For list-element removals (which take the separator after an element, or the trailing comma
/// of the last one), the closers before which a comma left in front of the removed element is
/// dropped too: `f(a, b)` minus `b` is `f(a)`, not `f(a, )`. A tuple's `(a, b)` keeps its comma.
fn dangling_comma_closers(kind: &str) -> &'static str {
    match kind {
        "remove-argument" | "remove-keyword" | "remove-base" => ")",
        "remove-parameter" => "):",
        "remove-element" => "]}",
        _ => "",
    }
}

/// See the module documentation.
pub fn apply(source: &str, selected: &[&Rewrite]) -> String {
    let mut edits = kept_edits(source, selected);
    if edits.iter().any(|e| e.replacement.is_empty()) {
        let suites = crate::validity::guarded(
            source,
            || match ruff_python_parser::parse_module(source) {
                Ok(parsed) => Suites::of(source, &parsed.syntax().body),
                Err(_) => Suites::default(),
            },
            Suites::default,
        );
        refill(source, &mut edits, &suites.unwrap_or_default());
    }
    splice(source, &edits, &[]).text
}

/// The edits of `selected` that apply (see the module documentation), sorted and disjoint,
/// before emptied blocks are refilled.
pub fn kept_edits(source: &str, selected: &[&Rewrite]) -> Vec<Edit> {
    let mut candidates: Vec<&Rewrite> = selected
        .iter()
        .copied()
        .filter(|r| valid_range(source, &r.range))
        .collect();
    candidates.sort_by_key(|r| (r.range.start, std::cmp::Reverse(r.range.end)));
    let mut edits: Vec<Edit> = Vec::with_capacity(candidates.len());
    let mut at = 0;
    for rewrite in candidates {
        if rewrite.range.start < at {
            continue;
        }
        at = rewrite.range.end;
        edits.push(Edit {
            range: rewrite.range.clone(),
            replacement: rewrite.replacement.clone(),
            closers: dangling_comma_closers(rewrite.kind),
        });
    }
    edits
}

/// A spliced text, with where given offsets of the source ended up.
pub struct Spliced {
    /// The new text.
    pub text: String,
    /// For every mark (a sorted offset of the source): its offset in `text`. A mark inside an
    /// edit maps to where that edit's replacement starts.
    pub marks: Vec<usize>,
    /// Whether a dropped dangling comma lay before an already mapped mark (the mapping of that
    /// mark is then off by the comma; callers should not trust `marks`).
    pub comma_crossed_mark: bool,
}

/// Splices sorted, disjoint `edits` into `source`, mapping the sorted offsets `marks` to offsets
/// of the result.
pub fn splice(source: &str, edits: &[Edit], marks: &[usize]) -> Spliced {
    let mut out = String::with_capacity(source.len());
    let mut mapped = Vec::with_capacity(marks.len());
    let mut comma_crossed_mark = false;
    let mut at = 0;
    // Marks are mapped as the text before them is copied: a mark at or before an edit's start
    // maps into the copied prefix, a mark inside an edit to the start of its replacement.
    for edit in edits {
        for &mark in &marks[mapped.len()..] {
            if mark > edit.range.start {
                break;
            }
            mapped.push(out.len() + (mark - at));
        }
        out.push_str(&source[at..edit.range.start]);
        for &mark in &marks[mapped.len()..] {
            if mark >= edit.range.end {
                break;
            }
            mapped.push(out.len());
        }
        out.push_str(&edit.replacement);
        at = edit.range.end;
        let next = source[at..].trim_start().chars().next();
        if edit.replacement.is_empty() && next.is_some_and(|c| edit.closers.contains(c)) {
            let kept = out.trim_end().len();
            if out[..kept].ends_with(',') {
                out.truncate(kept - 1);
                comma_crossed_mark |= mapped.last().is_some_and(|&m| m >= kept - 1);
            }
        }
    }
    for &mark in &marks[mapped.len()..] {
        mapped.push(out.len() + (mark.min(source.len()) - at));
    }
    out.push_str(&source[at..]);
    Spliced {
        text: out,
        marks: mapped,
        comma_crossed_mark,
    }
}

/// The statement lists of a module, as [`refill`] needs them: every block below the module, in
/// the order the refills are decided.
#[derive(Debug, Default)]
pub struct Suites(Vec<SuiteInfo>);

/// One block: where its statements are and how a `pass` replacing them is written.
#[derive(Debug)]
struct SuiteInfo {
    /// Spans of the statements.
    statements: Vec<Range<usize>>,
    /// Where an edit emptying the block must start at the earliest (the first statement's line
    /// start for a block on its own lines, else the statement itself).
    region: usize,
    /// Whether the first statement starts its line.
    multi_line: bool,
    /// Offset of the first statement.
    first_start: usize,
}

impl Suites {
    /// The blocks of the module `body` of `source`.
    pub fn of(source: &str, body: &[Stmt]) -> Suites {
        let mut found = Vec::new();
        let mut stack: Vec<&[Stmt]> = child_suites_of(body);
        while let Some(suite) = stack.pop() {
            for stmt in suite {
                stack.extend(child_suites(stmt));
            }
            let Some(first) = suite.first() else {
                continue;
            };
            let first_start = first.start().to_usize();
            let multi_line = is_line_start(source, first_start);
            let region = if multi_line {
                line_start(source, first_start)
            } else {
                first_start
            };
            found.push(SuiteInfo {
                statements: suite.iter().map(span).collect(),
                region,
                multi_line,
                first_start,
            });
        }
        Suites(found)
    }
}

/// Gives every block that `edits` empty a `pass`: the edit removing its first statement writes
/// it instead.
pub fn refill(source: &str, edits: &mut [Edit], suites: &Suites) {
    for (k, replacement) in empty_blocks(source, edits, suites) {
        edits[k].replacement = replacement;
    }
}

/// For every block the edits empty: the index of the edit removing its first statement and the
/// `pass` that edit must write instead.
fn empty_blocks(source: &str, edits: &[Edit], suites: &Suites) -> Vec<(usize, String)> {
    let mut refills = Vec::new();
    if !edits.iter().any(|e| e.replacement.is_empty()) {
        return refills;
    }
    for suite in &suites.0 {
        let covering = |r: &Range<usize>| {
            let i = edits.partition_point(|e| e.range.start <= r.start);
            (i > 0).then(|| i - 1).filter(|&i| {
                let e = &edits[i];
                e.range.end >= r.end && e.replacement.is_empty() && e.range.start >= suite.region
            })
        };
        if !suite.statements.iter().all(|s| covering(s).is_some()) {
            continue;
        }
        let Some(k) = suite.statements.first().and_then(covering) else {
            continue;
        };
        let edit = &edits[k];
        let replacement = if suite.multi_line && edit.range.start == suite.region {
            let removed = &source[edit.range.clone()];
            let newline = ["\r\n", "\n", "\r"]
                .into_iter()
                .find(|n| removed.ends_with(n))
                .unwrap_or("");
            format!("{}pass{newline}", indent_at(source, suite.first_start))
        } else {
            "pass".to_string()
        };
        refills.push((k, replacement));
    }
    refills
}

/// The blocks directly inside the module's statements.
fn child_suites_of(body: &[Stmt]) -> Vec<&[Stmt]> {
    body.iter().flat_map(child_suites).collect()
}
