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
struct Edit {
    range: Range<usize>,
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
    if edits.iter().any(|e| e.replacement.is_empty()) {
        let refills = crate::validity::guarded(source, || empty_blocks(source, &edits), Vec::new);
        for (k, replacement) in refills.unwrap_or_default() {
            edits[k].replacement = replacement;
        }
    }
    splice(source, &edits)
}

/// Splices sorted, disjoint `edits` into `source`.
fn splice(source: &str, edits: &[Edit]) -> String {
    let mut out = String::with_capacity(source.len());
    let mut at = 0;
    for edit in edits {
        out.push_str(&source[at..edit.range.start]);
        out.push_str(&edit.replacement);
        at = edit.range.end;
        let next = source[at..].trim_start().chars().next();
        if edit.replacement.is_empty() && next.is_some_and(|c| edit.closers.contains(c)) {
            let kept = out.trim_end().len();
            if out[..kept].ends_with(',') {
                out.truncate(kept - 1);
            }
        }
    }
    out.push_str(&source[at..]);
    out
}

/// For every block the edits empty: the index of the edit removing its first statement and the
/// `pass` that edit must write instead.
fn empty_blocks(source: &str, edits: &[Edit]) -> Vec<(usize, String)> {
    let mut refills = Vec::new();
    let parsed = ruff_python_parser::parse_module(source);
    let Ok(parsed) = parsed else {
        return refills;
    };
    let mut stack: Vec<&[Stmt]> = child_suites_of(&parsed.syntax().body);
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
        let covering = |s: &Stmt| {
            let r = span(s);
            let i = edits.partition_point(|e| e.range.start <= r.start);
            (i > 0).then(|| i - 1).filter(|&i| {
                let e = &edits[i];
                e.range.end >= r.end && e.replacement.is_empty() && e.range.start >= region
            })
        };
        if !suite.iter().all(|s| covering(s).is_some()) {
            continue;
        }
        let Some(k) = covering(first) else {
            continue;
        };
        let edit = &edits[k];
        let replacement = if multi_line && edit.range.start == region {
            let removed = &source[edit.range.clone()];
            let newline = ["\r\n", "\n", "\r"]
                .into_iter()
                .find(|n| removed.ends_with(n))
                .unwrap_or("");
            format!("{}pass{newline}", indent_at(source, first_start))
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
