//! Statement-level transformations and `apply`: input text → expected output text, valid Python.

use super::*;
use crate::*;
use Group::*;

#[test]
fn remove_statement_alone_on_its_line() {
    assert_rewrite(
        "a = 1\nb = 2  # c\nc = 3\n",
        FastRemovals,
        "remove-statement",
        "a = 1\nc = 3\n",
    );
}

#[test]
fn remove_statement_sharing_a_line() {
    let s = "a = 1; b = 2; c = 3\n";
    assert_rewrite(s, FastRemovals, "remove-statement", "b = 2; c = 3\n");
    assert_rewrite(s, FastRemovals, "remove-statement", "a = 1; c = 3\n");
    assert_rewrite(s, FastRemovals, "remove-statement", "a = 1; b = 2; \n");
}

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
fn remove_compound_and_decorated_statements() {
    let s = "@dec\ndef f():\n    return 1\n\nx = f()\n";
    assert_rewrite(s, FastRemovals, "remove-statement", "\nx = f()\n");
    assert_rewrite(
        s,
        FastRemovals,
        "remove-decorator",
        "def f():\n    return 1\n\nx = f()\n",
    );
}

#[test]
fn apply_refills_blocks_emptied_by_several_removals() {
    let s = "if x:\n    a = 1\n    b = 2\nelse:\n    c = 3\nd = 4\n";
    let all = rewrites(s, FastRemovals);
    let picked: Vec<&Rewrite> = all
        .iter()
        .filter(|r| {
            r.kind == "remove-statement"
                && (s[r.range.clone()].contains("a = 1") || s[r.range.clone()].contains("b = 2"))
                && !s[r.range.clone()].contains("if")
        })
        .collect();
    assert_eq!(picked.len(), 2);
    let out = apply(s, &picked);
    assert_eq!(out, "if x:\n    pass\nelse:\n    c = 3\nd = 4\n");
    assert!(check_valid(&out).is_ok());
    // header-line bodies
    let s = "while x: a; b\n";
    let all = rewrites(s, FastRemovals);
    let picked: Vec<&Rewrite> = all
        .iter()
        .filter(|r| r.kind == "remove-statement" && !s[r.range.clone()].contains("while"))
        .collect();
    assert_eq!(picked.len(), 2);
    assert_eq!(apply(s, &picked), "while x: pass\n");
    // nested: the outer removal wins, no `pass` appears inside it
    let s = "a = 0\nif x:\n    b = 1\n    c = 2\n";
    let all = rewrites(s, FastRemovals);
    let picked: Vec<&Rewrite> = all
        .iter()
        .filter(|r| r.kind == "remove-statement")
        .collect();
    assert_eq!(apply(s, &picked), "");
}

#[test]
fn apply_outer_wins_and_overlap_keeps_first() {
    let s = "abcdef";
    let outer = Rewrite {
        kind: "x",
        range: 1..5,
        replacement: "X".into(),
    };
    let inner = Rewrite {
        kind: "y",
        range: 2..3,
        replacement: "Y".into(),
    };
    let overlapping = Rewrite {
        kind: "z",
        range: 4..6,
        replacement: "Z".into(),
    };
    let bogus = Rewrite {
        kind: "b",
        range: 5..99,
        replacement: "B".into(),
    };
    assert_eq!(apply(s, &[&inner, &outer]), "aXf");
    assert_eq!(apply(s, &[&overlapping, &outer, &bogus]), "aXf");
    assert_eq!(apply(s, &[&inner, &overlapping]), "abYdZ");
}

#[test]
fn if_to_body_and_else() {
    let s = "def g():\n    if c:\n        a = 1\n        # note\n        b = 2\n    else:\n        d = 3\n    return 0\n";
    assert_rewrite(
        s,
        FastRemovals,
        "if-to-body",
        "def g():\n    a = 1\n    # note\n    b = 2\n    return 0\n",
    );
    assert_rewrite(
        s,
        FastRemovals,
        "if-to-else",
        "def g():\n    d = 3\n    return 0\n",
    );
    // no else: no if-to-else
    let s = "if c:\n    a = 1\n";
    assert_rewrite(s, FastRemovals, "if-to-body", "a = 1\n");
    assert_none(s, FastRemovals, "if-to-else");
}

#[test]
fn elif_counts_as_else() {
    let s = "if a:\n    x = 1\nelif b:\n    x = 2\nelse:\n    x = 3\n";
    assert_rewrite(
        s,
        FastRemovals,
        "if-to-else",
        "if b:\n    x = 2\nelse:\n    x = 3\n",
    );
    assert_rewrite(s, FastRemovals, "if-to-body", "x = 1\n");
}

#[test]
fn if_to_body_keeps_multiline_strings() {
    let s = "if c:\n    s = \"\"\"\n    keep\n  this\n    \"\"\"\n    t = 1\n";
    assert_rewrite(
        s,
        FastRemovals,
        "if-to-body",
        "s = \"\"\"\n    keep\n  this\n    \"\"\"\nt = 1\n",
    );
}

#[test]
fn header_line_bodies_move_too() {
    assert_rewrite("if c: a(); b()\n", FastRemovals, "if-to-body", "a(); b()\n");
    assert_rewrite(
        "for i in x: f(i)\n",
        FastRemovals,
        "for-to-body",
        "i = 0\nf(i)\n",
    );
}

#[test]
fn for_to_body_assigns_zeros_shaped_like_target() {
    let s = "for i, (a, b) in enumerate(p):\n    print(i, a, b)\n";
    assert_rewrite(
        s,
        FastRemovals,
        "for-to-body",
        "i, (a, b) = 0, (0, 0)\nprint(i, a, b)\n",
    );
    let s = "def f():\n    for [x, *y] in z:\n        g(x)\n    else:\n        h()\n";
    assert_rewrite(
        s,
        FastRemovals,
        "for-to-body",
        "def f():\n    [x, *y] = [0, 0]\n    g(x)\n",
    );
}

#[test]
fn while_and_try_to_body() {
    assert_rewrite(
        "while x:\n    y()\n",
        FastRemovals,
        "while-to-body",
        "y()\n",
    );
    let s = "try:\n    a()\nexcept E:\n    b()\nexcept F:\n    c()\nfinally:\n    d()\n";
    assert_rewrite(s, FastRemovals, "try-to-body", "a()\n");
    assert_rewrite(
        s,
        FastRemovals,
        "remove-handler",
        "try:\n    a()\nexcept F:\n    c()\nfinally:\n    d()\n",
    );
}

#[test]
fn with_to_body_keeps_targets_bound() {
    let s = "def f():\n    with open(p) as (a, b), lock:\n        g(a)\n        h(b)\n    x()\n";
    assert_rewrite(
        s,
        FastRemovals,
        "with-to-body",
        "def f():\n    (a, b) = (0, 0)\n    g(a)\n    h(b)\n    x()\n",
    );
    assert_rewrite("with m: y()\n", FastRemovals, "with-to-body", "y()\n");
    assert_rewrite(
        "async def f():\n    async with m:\n        await y()\n",
        FastRemovals,
        "with-to-body",
        "async def f():\n    await y()\n",
    );
}

#[test]
fn break_left_outside_a_loop_is_rejected_by_check_valid() {
    let s = "for i in x:\n    break\n";
    let out = results(s, FastRemovals, "for-to-body");
    assert_eq!(out, vec!["i = 0\nbreak\n".to_string()]);
    assert!(check_valid(&out[0]).is_err());
}

#[test]
fn remove_clauses() {
    let s = "if a:\n    x = 1\nelif b:\n    x = 2\nelse:\n    x = 3\n";
    assert_rewrite(
        s,
        FastRemovals,
        "remove-else",
        "if a:\n    x = 1\nelse:\n    x = 3\n",
    );
    assert_rewrite(
        s,
        FastRemovals,
        "remove-else",
        "if a:\n    x = 1\nelif b:\n    x = 2\n",
    );
    let s = "for i in x:\n    f(i)\nelse:\n    g()\n";
    assert_rewrite(s, FastRemovals, "remove-else", "for i in x:\n    f(i)\n");
    let s = "try:\n    a()\nexcept E:\n    b()\nelse:\n    c()\nfinally:\n    d()\n";
    assert_rewrite(
        s,
        FastRemovals,
        "remove-else",
        "try:\n    a()\nexcept E:\n    b()\nfinally:\n    d()\n",
    );
    assert_rewrite(
        s,
        FastRemovals,
        "remove-finally",
        "try:\n    a()\nexcept E:\n    b()\nelse:\n    c()\n",
    );
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
