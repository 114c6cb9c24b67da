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

#[test]
fn try_to_handler_keeps_the_handler_name_bound() {
    let s = "try:\n    a()\nexcept E as e:\n    raise F(e)\nexcept G:\n    pass\nx()\n";
    assert_rewrite(
        s,
        FastRemovals,
        "try-to-handler",
        "e = 0\nraise F(e)\nx()\n",
    );
    // A handler that does nothing is left to statement removal: one rewrite only.
    assert_eq!(results(s, FastRemovals, "try-to-handler").len(), 1);
    assert_rewrite(
        "def f():\n    try:\n        a()\n    except:\n        b()\n        c()\n",
        FastRemovals,
        "try-to-handler",
        "def f():\n    b()\n    c()\n",
    );
}

#[test]
fn def_to_body_runs_the_body_where_the_function_is_defined() {
    let s = "class C:\n    @d\n    def __call__(self):\n        raise E('x')\nC()()\n";
    assert_rewrite(
        s,
        FastRemovals,
        "def-to-body",
        "class C:\n    raise E('x')\nC()()\n",
    );
    assert_rewrite(
        "def f(a, *b, k=1, **c):\n    g(1)\n    h()\n",
        FastRemovals,
        "def-to-body",
        "g(1)\nh()\n",
    );
    // A body that reads a parameter, returns, yields, awaits or declares nonlocal stays put.
    for body in [
        "g(a)",
        "return 1",
        "yield 1",
        "nonlocal q",
        "h(lambda: a)",
        "class K:\n        def m(s):\n            return 1",
    ] {
        // (`o` itself may go: it reads no parameter.)
        let s = format!("def o():\n    q = 1\n    def f(a):\n        {body}\n    f(1)\n");
        let all = results(&s, FastRemovals, "def-to-body");
        assert!(all.iter().all(|r| r.contains("def f(a):")), "{all:#?}");
    }
    assert_none("async def f():\n    g()\n", FastRemovals, "def-to-body");
    assert_none("def f():\n    pass\n", FastRemovals, "def-to-body");
    // A nested function's body does not run: its returns and reads do not count.
    assert_rewrite(
        "def f(a):\n    def g():\n        return 1\n    g()\n",
        FastRemovals,
        "def-to-body",
        "def g():\n    return 1\ng()\n",
    );
}

#[test]
fn class_to_body_once_its_methods_are_gone() {
    assert_rewrite(
        "class ShapeError(ValueError):\n    pass\nclass L(B):\n    x = 1\n    raise ShapeError(x)\nL()\n",
        FastRemovals,
        "class-to-body",
        "class ShapeError(ValueError):\n    pass\nx = 1\nraise ShapeError(x)\nL()\n",
    );
    assert_none("class C:\n    pass\n", FastRemovals, "class-to-body");
    // Not before frozen code: the failure would happen before the frozen code runs.
    let s = "class C:\n    raise E()\nc = C()  # autodd: freeze\nclass D:\n    raise F()\n";
    assert_eq!(
        results(s, FastRemovals, "class-to-body"),
        ["class C:\n    raise E()\nc = C()  # autodd: freeze\nraise F()\n"]
    );
    let s = "def f():\n    g()  # autodd: freeze\nf()\n";
    assert_none(s, FastRemovals, "def-to-body");
    assert_none(
        "class C:\n    raise E()\n    def m(self):\n        pass\n",
        FastRemovals,
        "class-to-body",
    );
}
