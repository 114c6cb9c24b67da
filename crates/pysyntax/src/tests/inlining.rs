//! Inlining with arguments: `inline-call-expression`, `inline-call-body` and
//! `inline-class-attribute`.

use super::*;
use crate::*;
use Group::*;

const EXPRESSION: &str = "inline-call-expression";
const BODY: &str = "inline-call-body";
const CLASS: &str = "inline-class-attribute";

#[test]
fn a_return_expression_replaces_the_call_with_arguments_substituted() {
    assert_rewrite(
        "def area(w, h):\n    return w * h\n\nprint(area(3, n + 1))\n",
        Simplifications,
        EXPRESSION,
        "\nprint((3 * (n + 1)))\n",
    );
    // Keyword arguments and literal defaults bind too; a primary needs no parentheses.
    assert_rewrite(
        "def label(name, sep=':'):\n    return name.upper() + sep\nx = label(name=k)\n",
        Simplifications,
        EXPRESSION,
        "x = (k.upper() + ':')\n",
    );
    assert_rewrite(
        "def get(d, k):\n    return d[k]\ny = get(table, 'a' + b)\n",
        Simplifications,
        EXPRESSION,
        "y = table[('a' + b)]\n",
    );
}

#[test]
fn a_call_before_the_definition_is_inlined_too() {
    assert_rewrite(
        "def main():\n    print(twice(4))\ndef twice(v):\n    return v + v\nmain()\n",
        Simplifications,
        EXPRESSION,
        "def main():\n    print((4 + 4))\nmain()\n",
    );
}

#[test]
fn a_method_called_once_binds_its_receiver() {
    assert_rewrite(
        "class Box:\n    def __init__(self, n):\n        self.n = n\n    def size(self, k):\n        return self.n * k\nprint(Box(2).size(3))\n",
        Simplifications,
        EXPRESSION,
        "class Box:\n    def __init__(self, n):\n        self.n = n\nprint((Box(2).n * 3))\n",
    );
    // The only method of its class leaves `pass`.
    assert_rewrite(
        "class W:\n    def render(self):\n        return self.name\nW().render()\n",
        Simplifications,
        EXPRESSION,
        "class W:\n    pass\nW().name\n",
    );
}

#[test]
fn an_argument_evaluated_twice_or_a_capture_is_not_inlined() {
    // `v` used twice with a call as argument: the call would run twice.
    assert_none(
        "def twice(v):\n    return v + v\nprint(twice(g()))\n",
        Simplifications,
        EXPRESSION,
    );
    // `scale` read from the module, shadowed by a local at the call site.
    assert_none(
        "scale = 2\ndef f(x):\n    return x * scale\ndef g():\n    scale = 3\n    return f(1)\ng()\n",
        Simplifications,
        EXPRESSION,
    );
    // Called twice, recursive, decorated, or a method named in a string: not inlined.
    for source in [
        "def f(x):\n    return x\nf(1)\nf(2)\n",
        "def f(x):\n    return f(x - 1)\n",
        "@d\ndef f(x):\n    return x\nf(1)\n",
        "class A:\n    def m(self):\n        return 1\nA().m()\ngetattr(A(), 'm')\n",
        "def f(x):\n    return [x for _ in y]\nf(1)\n",
    ] {
        assert_none(source, Simplifications, EXPRESSION);
    }
}

#[test]
fn a_body_of_statements_is_spliced_before_the_call_statement() {
    assert_rewrite(
        "def check(a, limit):\n    total = a * 2\n    if total > limit:\n        raise ValueError(total)\n    return total\n\nresult = check(n, 10)\n",
        Simplifications,
        BODY,
        "\ntotal = n * 2\nif total > 10:\n    raise ValueError(total)\nresult = total\n",
    );
    // An argument that is no name or literal, or a parameter rebound, keeps a binding.
    assert_rewrite(
        "def check(a, limit):\n    total = a * 2\n    return total\nresult = check(n + 1, 10)\n",
        Simplifications,
        BODY,
        "a = n + 1\ntotal = a * 2\nresult = total\n",
    );
    assert_rewrite(
        "def f(a, b):\n    a = a + b.real\n    return a\nx = f(n, 2)\n",
        Simplifications,
        BODY,
        "a = n\nb = 2\na = a + b.real\nx = a\n",
    );
    // A method's receiver replaces `self`.
    assert_rewrite(
        "class C:\n    def __init__(self):\n        self.v = []\n    def add(self, x):\n        self.v.append(x)\n        print(self.v, x)\nc = C()\nc.add('a b')\n",
        Simplifications,
        BODY,
        "class C:\n    def __init__(self):\n        self.v = []\nc = C()\nc.v.append('a b')\nprint(c.v, 'a b')\n",
    );
    // An expression statement inside a block; an argument named like its parameter is not rebound.
    assert_rewrite(
        "def report(items):\n    for i in items:\n        print(i)\nif True:\n    report(items)\n",
        Simplifications,
        BODY,
        "if True:\n    for i in items:\n        print(i)\n",
    );
}

#[test]
fn a_body_is_spliced_before_the_statement_evaluating_the_call() {
    let source = "def words(text):\n    out = text.split()\n    return out\n\ndef main():\n    for w in words(t):\n        print(w)\n";
    assert_rewrite(
        source,
        Simplifications,
        BODY,
        "\ndef main():\n    out = t.split()\n    for w in out:\n        print(w)\n",
    );
    assert_rewrite(
        "def f(a):\n    b = a * 2\n    return b + 1\nraise E(f(3))\n",
        Simplifications,
        BODY,
        "b = 3 * 2\nraise E((b + 1))\n",
    );
}

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
fn a_local_named_like_the_calls_own_target_is_fine() {
    assert_rewrite(
        "def build(p):\n    plan = p * 2\n    return 1, plan\nk, plan = build(3)\nprint(plan)\n",
        Simplifications,
        BODY,
        "plan = 3 * 2\nk, plan = 1, plan\nprint(plan)\n",
    );
    // Not when the statement reads it, or it is bound elsewhere too.
    for source in [
        "def build(p):\n    plan = p\n    return plan\nplan = build(plan)\n",
        "def build(p):\n    plan = p\n    return plan\nplan = 0\nplan = build(1)\n",
    ] {
        assert_none(source, Simplifications, BODY);
    }
}

#[test]
fn a_body_whose_names_clash_at_the_call_site_is_not_spliced() {
    // `total` is a module name already.
    assert_none(
        "total = 0\ndef f(a):\n    total = a\n    return total\nx = f(1)\nprint(total)\n",
        Simplifications,
        BODY,
    );
    // An early `return`, a `yield`, or the call inside an expression: no splice.
    for source in [
        "def f(a):\n    if a:\n        return 1\n    return 2\nx = f(1)\n",
        "def f(a):\n    b = a\n    yield b\nx = f(1)\n",
        "def f(a):\n    b = a\n    return b\nx = c or f(1)\n",
        "def f(a):\n    b = a\n    return b\nx = [f(i) for i in c]\n",
        "def f(a):\n    b = a\n    return b\nwhile f(1):\n    pass\n",
    ] {
        assert_none(source, Simplifications, BODY);
    }
}

#[test]
fn a_class_of_constants_used_once_becomes_the_constant() {
    assert_rewrite(
        "class Config:\n    X = 1\n    Y = (2, 3)\nprint(Config.Y)\n",
        Simplifications,
        CLASS,
        "print((2, 3))\n",
    );
    for source in [
        "class C:\n    X = f()\nprint(C.X)\n",
        "class C(Base):\n    X = 1\nprint(C.X)\n",
        "class C:\n    X = 1\nprint(C.X, C.X)\n",
        "class C:\n    X = 1\n    def m(self): pass\nprint(C.X)\n",
    ] {
        assert_none(source, Simplifications, CLASS);
    }
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
fn dynamic_scopes_switch_inlining_off() {
    assert_none(
        "from m import *\ndef f(x):\n    return x\nprint(f(1))\n",
        Simplifications,
        EXPRESSION,
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
