//! Inlining with arguments: `inline-call-expression`, `inline-call-body` and
//! `inline-class-attribute`.

use super::*;
use crate::*;
use Group::*;

const EXPRESSION: &str = "inline-call-expression";
const BODY: &str = "inline-call-body";
const CLASS: &str = "inline-class-attribute";

#[test]
fn a_receiver_expression_is_named_after_its_class() {
    let init = "class StackVM:\n    def __init__(self, code):\n        self.code = code\n";
    assert_rewrite(
        &format!("{init}    def run(self):\n        op = self.code[0]\n        print(op)\nStackVM([1]).run()\n"),
        Simplifications,
        BODY,
        &format!("{init}stack_vm = StackVM([1])\nop = stack_vm.code[0]\nprint(op)\n"),
    );
    // The name is taken: `self` it stays.
    assert_rewrite(
        &format!("{init}    def run(self):\n        op = self.code[0]\n        print(op)\nstack_vm = 1\nStackVM([stack_vm]).run()\n"),
        Simplifications,
        BODY,
        &format!("{init}stack_vm = 1\nself = StackVM([stack_vm])\nop = self.code[0]\nprint(op)\n"),
    );
}

#[test]
fn frozen_code_is_never_inlined_away() {
    // A frozen callee body, a frozen call: nothing offered.
    for source in [
        "def f(x):\n    return x + 1  # autodd: freeze\nprint(f(2))\n",
        "def f(x):\n    return x + 1\nprint(f(2))  # autodd: freeze\n",
        "class C:\n    X = 1  # autodd: freeze\nprint(C.X)\n",
    ] {
        for kind in [EXPRESSION, BODY, CLASS] {
            assert_none(source, Simplifications, kind);
        }
    }
    // Frozen code between the definition and the call stays as it is.
    let source = "def f(x):\n    return x + 1\nassert 1  # autodd: freeze\nprint(f(2))\n";
    assert_rewrite(
        source,
        Simplifications,
        EXPRESSION,
        "assert 1  # autodd: freeze\nprint((2 + 1))\n",
    );
}

#[test]
fn a_method_keeps_its_first_parameter() {
    let source = "class A:\n    def m(self, x):\n        return x\n    if flag:\n        def n(this):\n            return 1\n    @staticmethod\n    def s(a, b):\n        return b\n    @classmethod\n    def c(cls, y):\n        def inner(p):\n            return p\n        return y\ndef f(a, b):\n    return b\n";
    let all = results(source, SlowRemovals, "remove-parameter");
    for kept in ["def m(self", "def n(this)", "def c(cls"] {
        assert!(
            all.iter().all(|r| r.contains(kept)),
            "{kept} lost: {all:#?}"
        );
    }
    // `x`, `a` and `b` of the static method, `y`, `p` of a nested function, `a` and `b` of `f`.
    assert_eq!(all.len(), 7, "{all:#?}");
    assert!(all.iter().any(|r| r.contains("def s(b)")));
    assert!(all.iter().any(|r| r.contains("def inner()")));
}
