//! Rewrites that remove wrappers around the code that matters: `inline-function-call`,
//! `for-to-iter` / `while-to-test` / `if-to-test` and `remove-parentheses`.

use super::*;
use Group::*;

#[test]
fn header_expression_needs_a_call_and_no_other_clause() {
    for (s, kind) in [
        ("for a in b:\n    pass\n", "for-to-iter"),
        ("for a in f():\n    g()\n", "for-to-iter"),
        ("if f():\n    pass\n    g()\n", "if-to-test"),
        ("for a in f():\n    pass\nelse:\n    h()\n", "for-to-iter"),
        ("while x < 1:\n    pass\n", "while-to-test"),
        ("if f():\n    pass\nelse:\n    h()\n", "if-to-test"),
        ("if f():\n    pass\nelif h():\n    pass\n", "if-to-test"),
        ("if lambda: f():\n    pass\n", "if-to-test"),
        ("if f():  # autodd: freeze\n    pass\n", "if-to-test"),
    ] {
        assert_none(s, FastRemovals, kind);
    }
}

const PARENS: &str = "remove-parentheses";

#[test]
fn remove_parentheses_leaves_needed_ones() {
    for s in [
        "f(x)\n",
        "class A(B): pass\n",
        "y = (a + b) * c\n",
        "t = (1, 2)\n",
        "c = (1).real\n",
        "s = (\"a\"\n     \"b\")\n",
        "s = (a\n     .b)\n",
        "x = (yield)\n",
        "match p:\n    case A(1): pass\n",
        "f((x))  # autodd: freeze\n",
    ] {
        let got = results(s, Simplifications, PARENS);
        assert!(got.is_empty(), "{s:?}: {got:#?}");
    }
}
