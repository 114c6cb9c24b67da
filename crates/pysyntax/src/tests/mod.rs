//! Crate tests: validity, tokens, freeze annotations, each transformation, `apply`.

mod chunk_names;
mod comments;
mod expressions;
mod freeze;
mod inline_call;
mod loop_progress;
mod prepared;
mod rewrites;
mod robustness;
mod scopes;
mod symtable;
mod transformations;
mod validity;
mod values;
mod wrappers;

use crate::*;

/// Results of applying, one at a time, each `kind` rewrite of `group` to `source`.
pub(crate) fn results(source: &str, group: Group, kind: &str) -> Vec<String> {
    rewrites(source, group)
        .iter()
        .filter(|r| r.kind == kind)
        .map(|r| apply(source, &[r]))
        .collect()
}

/// A rewrite of `range` by `replacement`.
pub(crate) fn edit(
    kind: &'static str,
    range: std::ops::Range<usize>,
    replacement: &str,
) -> Rewrite {
    Rewrite {
        kind,
        range,
        replacement: replacement.to_owned(),
    }
}

/// The rewrites among `all` that `keep` accepts, by reference (as `apply` takes them).
pub(crate) fn picked(all: &[Rewrite], keep: impl Fn(&Rewrite) -> bool) -> Vec<&Rewrite> {
    all.iter().filter(|r| keep(r)).collect()
}

/// Asserts that some `kind` rewrite of `source` gives `expected`, which is valid Python.
#[track_caller]
pub(crate) fn assert_rewrite(source: &str, group: Group, kind: &str, expected: &str) {
    assert!(check_valid(source).is_ok(), "input invalid: {source}");
    let all = results(source, group, kind);
    assert!(
        all.iter().any(|r| r == expected),
        "no {kind} rewrite of\n{source}\ngives\n{expected}\ngot: {all:#?}"
    );
    if let Err(e) = check_valid(expected) {
        panic!("expected output invalid ({e}):\n{expected}");
    }
}

/// Asserts that no `kind` rewrite of `source` exists.
#[track_caller]
pub(crate) fn assert_none(source: &str, group: Group, kind: &str) {
    let all = results(source, group, kind);
    assert!(all.is_empty(), "unexpected {kind} rewrites: {all:#?}");
}
