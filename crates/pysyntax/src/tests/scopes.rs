//! Scope-aware rewrites: `inline-variable` across scopes and `remove-parameter-with-arguments`.

use super::{assert_none, assert_rewrite, results};
use crate::Group::{Simplifications, SlowRemovals};
use crate::*;

const INLINE: &str = "inline-variable";
const REMOVE: &str = "remove-parameter-with-arguments";

#[test]
fn a_parameter_of_the_same_name_does_not_block_inlining() {
    let s = "def gemm(a, b):\n    return a @ b\na = m(1)\nprint(gemm(a, 2))\n";
    assert_rewrite(
        s,
        Simplifications,
        INLINE,
        "def gemm(a, b):\n    return a @ b\nprint(gemm(m(1), 2))\n",
    );
    // A local of the same name in another function, a comprehension variable, a lambda
    // parameter: none of them is the module's `a`.
    let s = "def f():\n    a = 2\n    return a\na = 1\nprint([a for a in r], lambda a: a, a)\n";
    assert_rewrite(
        s,
        Simplifications,
        INLINE,
        "def f():\n    a = 2\n    return a\nprint([a for a in r], lambda a: a, 1)\n",
    );
    // A load in a nested function sees the module's binding: it is the one use.
    assert_rewrite(
        "x = 1\ndef g():\n    return x\n",
        Simplifications,
        INLINE,
        "def g():\n    return 1\n",
    );
}

#[test]
fn uses_through_nested_scopes_count() {
    // The nested function's load and the module's load both see `a`: two uses.
    assert_none(
        "a = 1\ndef g():\n    return a\nprint(a)\n",
        Simplifications,
        INLINE,
    );
    // A function's local is loaded by a nested function and by itself.
    assert_none(
        "def f():\n    v = 1\n    def g():\n        return v\n    return v, g\n",
        Simplifications,
        INLINE,
    );
    // The comprehension's iterable is evaluated outside it: it loads the function's `v`.
    assert_none(
        "def f():\n    v = [1]\n    w = [v for v in v]\n    return v, w, w\n",
        Simplifications,
        INLINE,
    );
}

#[test]
fn shadowing_and_declarations_block_inlining() {
    // The nested function's `x` is its own local: the module's `x` has no use there.
    assert_none(
        "x = 1\ndef g():\n    x = 2\n    return x, x\n",
        Simplifications,
        INLINE,
    );
    // `global` in a function makes its assignment a second binding of the module's name.
    assert_none(
        "x = 1\ndef g():\n    global x\n    x = 2\nprint(x)\n",
        Simplifications,
        INLINE,
    );
    // `nonlocal` likewise for a function's local.
    assert_none(
        "def f():\n    v = 1\n    def g():\n        nonlocal v\n        v = 2\n    g()\n    return v\n",
        Simplifications,
        INLINE,
    );
    // `del` counts as a binding.
    assert_none("x = 1\nprint(x)\ndel x\n", Simplifications, INLINE);
    // A class body's loads of a name the class binds may read the module's name too.
    assert_none(
        "x = 1\nclass C:\n    y = x\n    x = 2\nprint(x)\n",
        Simplifications,
        INLINE,
    );
    // Class bodies are not visible from their methods: `v` here is the module's.
    assert_rewrite(
        "v = 2\nclass C:\n    v = 1\n    def m(self):\n        return v\n",
        Simplifications,
        INLINE,
        "class C:\n    v = 1\n    def m(self):\n        return 2\n",
    );
}

#[test]
fn dynamic_lookups_fall_back_to_module_wide_counts() {
    // With `exec`, the parameter `a` counts as a binding of `a` again.
    assert_none(
        "def gemm(a, b):\n    return a\na = 1\nprint(gemm(a, 2))\nexec('')\n",
        Simplifications,
        INLINE,
    );
    assert_none(
        "from m import *\ndef f(a):\n    return 0\na = 1\nprint(a)\n",
        Simplifications,
        INLINE,
    );
}

#[test]
fn an_unused_parameter_goes_with_every_argument() {
    let s = "def f(a, b, c):\n    return a + c\nx = f(1, g(), 3)\nprint(f(4, 5, 6))\n";
    assert_rewrite(
        s,
        SlowRemovals,
        REMOVE,
        "def f(a, c):\n    return a + c\nx = f(1, 3)\nprint(f(4, 6))\n",
    );
    assert_eq!(results(s, SlowRemovals, REMOVE).len(), 1);
    // The last parameter takes the comma before it; all of them may go.
    let s = "def f(a, b):\n    return 0\nf(1, 2)\nf(3, 4,)\n";
    assert_rewrite(
        s,
        SlowRemovals,
        REMOVE,
        "def f(a):\n    return 0\nf(1)\nf(3,)\n",
    );
    assert_rewrite(
        s,
        SlowRemovals,
        REMOVE,
        "def f(b):\n    return 0\nf(2)\nf(4,)\n",
    );
    assert_rewrite(
        s,
        SlowRemovals,
        REMOVE,
        "def f():\n    return 0\nf()\nf()\n",
    );
    assert_eq!(results(s, SlowRemovals, REMOVE).len(), 3);
    // A call inside a removed argument goes with it; recursive calls are edited too.
    assert_rewrite(
        "def f(a, b):\n    return f(a, 0) if a else 1\nf(f(1, 2), 3)\n",
        SlowRemovals,
        REMOVE,
        "def f(a):\n    return f(a) if a else 1\nf(f(1))\n",
    );
}

#[test]
fn an_unused_init_parameter_goes_with_every_argument() {
    let s = "class Item:\n    def __init__(self, sku, name, qty):\n        self.sku = sku\n        self.qty = qty\n\nitems = [Item('a', 'bolt', 3), Item('b', n, 4)]\n";
    assert_rewrite(
        s,
        SlowRemovals,
        REMOVE,
        "class Item:\n    def __init__(self, sku, qty):\n        self.sku = sku\n        self.qty = qty\n\nitems = [Item('a', 3), Item('b', 4)]\n",
    );
    // Bases, a subclass, an explicit `__init__` call, `type(self)(…)`: left alone.
    for other in [
        "class Item(Base):\n    def __init__(self, a):\n        pass\nItem(1)\n",
        "class Item:\n    def __init__(self, a):\n        pass\nclass Sub(Item):\n    pass\nItem(1)\n",
        "class Item:\n    def __init__(self, a):\n        pass\n    def reset(self):\n        self.__init__(0)\nItem(1)\n",
        "class Item:\n    def __init__(self, a):\n        pass\n    def copy(self):\n        return type(self)(0)\nItem(1)\n",
    ] {
        assert_none(other, SlowRemovals, REMOVE);
    }
}

#[test]
fn keyword_arguments_are_matched_by_name() {
    let s = "def f(a, b, c):\n    return a\nf(1, c=3, b=2)\nf(4, 5, c=6)\n";
    assert_rewrite(
        s,
        SlowRemovals,
        REMOVE,
        "def f(a, c):\n    return a\nf(1, c=3)\nf(4, c=6)\n",
    );
    assert_rewrite(
        s,
        SlowRemovals,
        REMOVE,
        "def f(a):\n    return a\nf(1)\nf(4)\n",
    );
}

#[test]
fn a_parameter_with_a_default_goes_where_it_is_passed() {
    let s = "def f(a, b=1, c=2):\n    return a + c\nf(1)\nf(1, 2)\nf(1, c=3, b=4)\n";
    assert_rewrite(
        s,
        SlowRemovals,
        REMOVE,
        "def f(a, c=2):\n    return a + c\nf(1)\nf(1)\nf(1, c=3)\n",
    );
    // A call without a parameter that has no default: a TypeError already, left alone.
    assert_none("def f(a, b=1):\n    return b\nf()\n", SlowRemovals, REMOVE);
}

#[test]
fn an_unused_method_parameter_goes_with_every_argument() {
    let s = "class L:\n    def post(self, debit, credit, amount):\n        return debit + amount\nl = L()\nl.post('a', '', 3)\nL().post(1, 2, amount=4)\n";
    assert_rewrite(
        s,
        SlowRemovals,
        REMOVE,
        "class L:\n    def post(self, debit, amount):\n        return debit + amount\nl = L()\nl.post('a', 3)\nL().post(1, amount=4)\n",
    );
    for other in [
        // The attribute read without a call, assigned, or the name bound elsewhere.
        "class L:\n    def post(self, a):\n        return 0\nL().post(1)\ng = L().post\n",
        "class L:\n    def post(self, a):\n        return 0\nL().post(1)\nL().post = 1\n",
        "class L:\n    def post(self, a):\n        return 0\nclass M:\n    def post(self, a):\n        return 1\nL().post(1)\n",
        "class L:\n    def post(self, a):\n        return 0\npost = 1\nL().post(1)\n",
        // Named in a string, a dunder, a static method.
        "class L:\n    def post(self, a):\n        return 0\ngetattr(L(), 'post')(1)\nL().post(1)\n",
        "class L:\n    def __call__(self, a):\n        return 0\nL().__call__(1)\n",
        "class L:\n    @staticmethod\n    def post(a):\n        return 0\nL.post(1)\n",
    ] {
        assert_none(other, SlowRemovals, REMOVE);
    }
}

#[test]
fn used_or_unclear_parameters_stay() {
    for source in [
        // Used in a nested function, a lambda, a comprehension.
        "def f(a):\n    def g():\n        return a\n    return g\nf(1)\n",
        "def f(a):\n    return lambda: a\nf(1)\n",
        "def f(a):\n    return [x for x in a]\nf(1)\n",
        // Rebound or deleted in the body.
        "def f(a):\n    a = 2\nf(1)\n",
        "def f(a):\n    del a\nf(1)\n",
        // A reference to `f` that is not a call, a keyword or a starred argument, a wrong arity.
        "def f(a):\n    return 0\ng = f\nf(1)\n",
        "def f(a):\n    return 0\nf(b=1)\n",
        "def f(a):\n    return 0\nf(1, a=1)\n",
        "def f(a):\n    return 0\nf(**k)\n",
        "def f(a):\n    return 0\nf(*x)\n",
        "def f(a):\n    return 0\nf(1, 2)\n",
        // *args, defaults, decorators, a second definition, no call at all.
        "def f(a, *r):\n    return 0\nf(1)\n",
        "@d\ndef f(a):\n    return 0\nf(1)\n",
        "def f(a):\n    return 0\ndef f(a):\n    return 1\nf(1)\n",
        "def f(a):\n    return 0\n",
        // Dynamic lookups.
        "def f(a):\n    return locals()\nf(1)\n",
        // A function that is not at module level.
        "def h():\n    def f(a):\n        return 0\n    return f(1)\n",
    ] {
        assert_none(source, SlowRemovals, REMOVE);
    }
    // A parameter that is used stays while an unused one goes.
    let s = "def f(a, b):\n    return [b for _ in ()]\nf(1, 2)\n";
    assert_eq!(
        results(s, SlowRemovals, REMOVE),
        ["def f(b):\n    return [b for _ in ()]\nf(2)\n"]
    );
}

#[test]
fn frozen_calls_block_the_rewrite_but_frozen_code_between_stays() {
    let frozen_call = "def f(a):\n    return 0\nf(1)  # autodd: freeze\n";
    assert_none(frozen_call, SlowRemovals, REMOVE);
    let frozen_between = "def f(a):\n    return 0\nprint('x')  # autodd: freeze\nf(1)\n";
    assert_rewrite(
        frozen_between,
        SlowRemovals,
        REMOVE,
        "def f():\n    return 0\nprint('x')  # autodd: freeze\nf()\n",
    );
}

#[test]
fn the_pre_filter_and_the_prepared_check_accept_the_rewrite() {
    let s = "def f(a, b):\n    return a\n\n\nx = 1\n\n\nprint(f(x, 2))\n";
    let prepared = Prepared::new(s, SlowRemovals, DEFAULT_MINOR);
    let site = prepared
        .sites()
        .iter()
        .find(|r| r.kind == REMOVE)
        .expect("a site");
    let edited = prepared.apply(&[site]);
    assert_eq!(
        edited.text(),
        "def f(a):\n    return a\n\n\nx = 1\n\n\nprint(f(x))\n"
    );
    assert_eq!(prepared.check(&edited), Ok(token_count(edited.text())));
    assert!(!prepared.loses_definition(&edited));
    let before = NameUse::of(s).expect("parses");
    let after = NameUse::of(edited.text()).expect("parses");
    assert!(!before.loses_definition(&after));
}
