//! Statement-level transformations and `apply`: input text → expected output text, valid Python.

use super::*;
use crate::*;
use Group::*;

#[test]
fn remove_only_statement_of_block_gives_pass() {
    assert_rewrite(
        "if x:\n    f()  # c\ny\n",
        FastRemovals,
        "remove-statement",
        "if x:\n    pass\ny\n",
    );
    assert_rewrite(
        "def f(): return 1\n",
        FastRemovals,
        "remove-statement",
        "def f(): pass\n",
    );
    // `pass` alone is not "removed" into `pass`
    let all = results("if x:\n    pass\n", FastRemovals, "remove-statement");
    assert_eq!(all, vec![String::new()]);
}

#[test]
fn apply_refills_blocks_emptied_by_several_removals() {
    let s = "if x:\n    a = 1\n    b = 2\nelse:\n    c = 3\nd = 4\n";
    let all = rewrites(s, FastRemovals);
    let chosen = picked(&all, |r| {
        r.kind == "remove-statement"
            && (s[r.range.clone()].contains("a = 1") || s[r.range.clone()].contains("b = 2"))
            && !s[r.range.clone()].contains("if")
    });
    assert_eq!(chosen.len(), 2);
    let out = apply(s, &chosen);
    assert_eq!(out, "if x:\n    pass\nelse:\n    c = 3\nd = 4\n");
    assert!(check_valid(&out).is_ok());
    // header-line bodies
    let s = "while x: a; b\n";
    let all = rewrites(s, FastRemovals);
    let chosen = picked(&all, |r| {
        r.kind == "remove-statement" && !s[r.range.clone()].contains("while")
    });
    assert_eq!(chosen.len(), 2);
    assert_eq!(apply(s, &chosen), "while x: pass\n");
    // nested: the outer removal wins, no `pass` appears inside it
    let s = "a = 0\nif x:\n    b = 1\n    c = 2\n";
    let all = rewrites(s, FastRemovals);
    let chosen = picked(&all, |r| r.kind == "remove-statement");
    assert_eq!(apply(s, &chosen), "");
}

#[test]
fn apply_outer_wins_and_overlap_keeps_first() {
    let s = "abcdef";
    let outer = edit("x", 1..5, "X");
    let inner = edit("y", 2..3, "Y");
    let overlapping = edit("z", 4..6, "Z");
    let bogus = edit("b", 5..99, "B");
    assert_eq!(apply(s, &[&inner, &outer]), "aXf");
    assert_eq!(apply(s, &[&overlapping, &outer, &bogus]), "aXf");
    assert_eq!(apply(s, &[&inner, &overlapping]), "abYdZ");
}

#[test]
fn break_left_outside_a_loop_is_rejected_by_check_valid() {
    let s = "for i in x:\n    break\n";
    let out = results(s, FastRemovals, "for-to-body");
    assert_eq!(out, vec!["i = 0\nbreak\n".to_string()]);
    assert!(check_valid(&out[0]).is_err());
}
