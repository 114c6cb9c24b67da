//! Rewrites that remove wrappers around the code that matters: `inline-function-call`,
//! `for-to-iter` / `while-to-test` / `if-to-test` and `remove-parentheses`.

use super::*;
use Group::*;

const CALL: &str = "inline-function-call";

#[test]
fn inline_function_call_replaces_the_call_by_the_body() {
    let s = "import os\ndef main():\n    x = os.sep  # c\n    for i in x:\n        print(i)\ny = 1\nmain()  # go\n";
    assert_rewrite(
        s,
        FastRemovals,
        CALL,
        "import os\ny = 1\nx = os.sep  # c\nfor i in x:\n    print(i)  # go\n",
    );
    // a body on the header line, a call inside a block
    assert_rewrite(
        "def main(): a = 1; print(a)\nif x:\n    main()\n",
        FastRemovals,
        CALL,
        "if x:\n    a = 1; print(a)\n",
    );
    assert_rewrite(
        "def main():\n    if x:\n        f()\n\nif y:\n    main()\nz = 2\n",
        FastRemovals,
        CALL,
        "\nif y:\n    if x:\n        f()\nz = 2\n",
    );
}

#[test]
fn inline_function_call_keeps_line_ends_and_tabs() {
    assert_rewrite(
        "def main():\r\n\tif x:\r\n\t\tf()\r\nif y:\r\n    main()\r\n",
        FastRemovals,
        CALL,
        "if y:\r\n    if x:\r\n    \tf()\r\n",
    );
}

#[test]
fn inline_function_call_ignores_unused_varargs() {
    assert_rewrite(
        "def main(*args, **kwargs):\n    f(x)\nmain()\n",
        FastRemovals,
        CALL,
        "f(x)\n",
    );
}

#[test]
fn inline_function_call_keeps_multi_line_strings_as_written() {
    assert_rewrite(
        "def main():\n    print('''a\n    b''')\nmain()\n",
        FastRemovals,
        CALL,
        "print('''a\n    b''')\n",
    );
}

#[test]
fn inline_function_call_needs_one_bare_call_of_a_plain_function() {
    for s in [
        // parameters, decorators, async
        "def main(a):\n    f()\nmain(1)\n",
        "def main(*a):\n    f(a)\nmain()\n",
        "def main(*, k):\n    f()\nmain()\n",
        "@d\ndef main():\n    f()\nmain()\n",
        "async def main():\n    f()\nmain()\n",
        // the body needs a function around it
        "def main():\n    return f()\nmain()\n",
        "def main():\n    if x:\n        yield 1\nmain()\n",
        "def main():\n    global g\n    g = 1\nmain()\n",
        "def main():\n    print(await f())\nmain()\n",
        // two calls, another use, another binding, a call with arguments or used as a value
        "def main():\n    f()\nmain()\nmain()\n",
        "def main():\n    f()\nmain()\ng = main\n",
        "def main():\n    f()\nmain()\nmain = 1\n",
        "def main():\n    f()\nx = main()\n",
        "def main():\n    f()\nmain(*a)\n",
        // the call before the definition, or sharing its line
        "main()\ndef main():\n    f()\n",
        "def main():\n    f()\nmain(); g()\n",
        "def main():\n    f()\nif x: main()\n",
        // calls inside a function or class are not at module scope
        "def main():\n    f()\ndef g():\n    main()\n",
        "def main():\n    f()\nclass C:\n    main()\n",
    ] {
        assert_none(s, FastRemovals, CALL);
    }
}

#[test]
fn inline_function_call_allows_function_only_code_in_nested_scopes() {
    assert_rewrite(
        "def main():\n    def g():\n        return (yield)\n    h = lambda: 1\n    g()\nmain()\n",
        FastRemovals,
        CALL,
        "def g():\n    return (yield)\nh = lambda: 1\ng()\n",
    );
}

#[test]
fn inline_function_call_respects_frozen_code() {
    assert_none(
        "def main():\n    f()\nmain()  # autodd: freeze\n",
        FastRemovals,
        CALL,
    );
    assert_none(
        "def main():  # autodd: freeze\n    f()\nmain()\n",
        FastRemovals,
        CALL,
    );
    // frozen code inside the moved body or between the two stays as it is
    assert_rewrite(
        "def main():\n    f()  # autodd: freeze\nx = 1  # autodd: freeze\nmain()\n",
        FastRemovals,
        CALL,
        "x = 1  # autodd: freeze\nf()  # autodd: freeze\n",
    );
}

#[test]
fn compound_statement_to_header_expression() {
    assert_rewrite(
        "for a, b in p.run(t).items():\n    pass\nx\n",
        FastRemovals,
        "for-to-iter",
        "p.run(t).items()\nx\n",
    );
    assert_rewrite(
        "def f():\n    while g(\n        1):  # c\n        ...\n",
        FastRemovals,
        "while-to-test",
        "def f():\n    g(\n        1)\n",
    );
    assert_rewrite(
        "if (check(x)\n    and y):\n    pass\n",
        FastRemovals,
        "if-to-test",
        "(check(x)\n    and y)\n",
    );
    assert_rewrite(
        "if (y := f()): pass\n",
        FastRemovals,
        "if-to-test",
        "(y := f())\n",
    );
}

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
fn remove_parentheses_around_atoms() {
    assert_rewrite("b = (1)\n", Simplifications, PARENS, "b = 1\n");
    assert_rewrite("f((x))\n", Simplifications, PARENS, "f(x)\n");
    assert_rewrite(
        "f(((\"\"\"a\nb\"\"\")))\n",
        Simplifications,
        PARENS,
        "f(\"\"\"a\nb\"\"\")\n",
    );
    assert_rewrite("(a.b)(c)[0]\n", Simplifications, PARENS, "a.b(c)[0]\n");
    assert_rewrite(
        "if(x):\n    pass\n",
        Simplifications,
        PARENS,
        "if x:\n    pass\n",
    );
    assert_rewrite(
        "y = not(x)or z\n",
        Simplifications,
        PARENS,
        "y = not x or z\n",
    );
    assert_rewrite("g(((1, 2)))\n", Simplifications, PARENS, "g((1, 2))\n");
    assert_rewrite(
        "s = f\"{(x)!r}\"\n",
        Simplifications,
        PARENS,
        "s = f\"{x!r}\"\n",
    );
    assert_rewrite(
        "c = (1.5).real\n",
        Simplifications,
        PARENS,
        "c = 1.5.real\n",
    );
    // all but one layer around anything else
    assert_rewrite(
        "y = ((a + b)) * c\n",
        Simplifications,
        PARENS,
        "y = (a + b) * c\n",
    );
}

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

#[test]
fn call_of_a_call_result_to_the_inner_call() {
    assert_rewrite(
        "x = p.run(t)()\n",
        Simplifications,
        "call-to-callee",
        "x = p.run(t)\n",
    );
    assert_rewrite(
        "f(1)(2)(3)\n",
        Simplifications,
        "call-to-callee",
        "f(1)(2)\n",
    );
    assert_none("f(1)\n", Simplifications, "call-to-callee");
    assert_none("a.f(1)\n", Simplifications, "call-to-callee");
}
