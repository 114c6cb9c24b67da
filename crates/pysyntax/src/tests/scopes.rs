//! Scope-aware rewrites: `inline-variable` across scopes and `remove-parameter-with-arguments`.

use super::{assert_none, assert_rewrite, results};
use crate::Group::SlowRemovals;
use crate::*;

const REMOVE: &str = "remove-parameter-with-arguments";

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
