//! Canonicalizations and expression-level transformations: input text → expected output text,
//! valid Python.

use super::*;
use crate::*;
use Group::*;

#[test]
fn removing_the_last_elements_together_deletes_their_union() {
    let s = "x = [1, 2, 3]\n";
    let all = rewrites(s, SlowRemovals);
    let every = picked(&all, |r| r.kind == "remove-element");
    let last_two = &every[1..];
    assert_eq!(last_two.len(), 2);
    assert_eq!(apply(s, last_two), "x = [1]\n");
    assert_eq!(apply(s, &every), "x = []\n");
}

#[test]
fn remove_parameters() {
    let s = "def f(a, /, b=2, *c, d, **e):\n    pass\n";
    assert_rewrite(
        s,
        SlowRemovals,
        "remove-parameter",
        "def f(b=2, *c, d, **e):\n    pass\n",
    );
    assert_rewrite(
        s,
        SlowRemovals,
        "remove-parameter",
        "def f(a, /, *c, d, **e):\n    pass\n",
    );
    // removing `*c` makes `d` positional after a default: listed, but invalid
    assert!(results(s, SlowRemovals, "remove-parameter")
        .contains(&"def f(a, /, b=2, d, **e):\n    pass\n".to_string()));
    assert!(check_valid("def f(a, /, b=2, d, **e):\n    pass\n").is_err());
    assert_rewrite(
        s,
        SlowRemovals,
        "remove-parameter",
        "def f(a, /, b=2, *c, **e):\n    pass\n",
    );
    assert_rewrite(
        s,
        SlowRemovals,
        "remove-parameter",
        "def f(a, /, b=2, *c, d):\n    pass\n",
    );
    assert_rewrite(
        "g = lambda x, y: x\n",
        SlowRemovals,
        "remove-parameter",
        "g = lambda x: x\n",
    );
}

#[test]
fn rewrites_are_sorted_and_never_no_ops() {
    let s = "x = 1\nif a:\n    y = [1, 2]\n    z = f(g(1), 2)\n";
    for group in Group::ALL {
        let all = rewrites(s, group);
        for pair in all.windows(2) {
            let key = |r: &Rewrite| (r.range.start, std::cmp::Reverse(r.range.end));
            assert!(key(&pair[0]) <= key(&pair[1]), "{pair:?}");
        }
        for r in &all {
            assert_ne!(s[r.range.clone()], r.replacement, "{r:?}");
        }
        assert_eq!(all, rewrites(s, group));
    }
}

#[test]
fn inline_a_variable_used_once() {
    let s = "def main():\n    p = Pipeline(a + b)\n    x = 1\n    p.run(x)\nmain()\n";
    assert_rewrite(
        s,
        Simplifications,
        "inline-variable",
        "def main():\n    x = 1\n    Pipeline(a + b).run(x)\nmain()\n",
    );
    // Operators get parentheses; a use on the same line works too.
    assert_rewrite(
        "n = a + b; print(n * 2)\n",
        Simplifications,
        "inline-variable",
        "print((a + b) * 2)\n",
    );
    let all = results(s, Simplifications, "inline-variable");
    assert_eq!(all.len(), 2, "{all:#?}");
}

#[test]
fn comprehension_to_element_when_the_element_needs_no_loop_variable() {
    assert_rewrite(
        "for s in xs:\n    {'': {}['k'] for t in s}\n",
        Simplifications,
        "comprehension-to-element",
        "for s in xs:\n    {}['k']\n",
    );
    assert_rewrite(
        "y = [f(s) for t in u]\n",
        Simplifications,
        "comprehension-to-element",
        "y = f(s)\n",
    );
    assert_rewrite(
        "y = g(a + b for t in u)\n",
        Simplifications,
        "comprehension-to-element",
        "y = g((a + b))\n",
    );
    // Only the dict's key qualifies here; an element reading a bound name never does.
    assert_eq!(
        results(
            "d = {k: v for v in u}\n",
            Simplifications,
            "comprehension-to-element"
        ),
        ["d = k\n"]
    );
    assert_none(
        "y = {t + 1 for (a, t) in u if a}\n",
        Simplifications,
        "comprehension-to-element",
    );
    assert_none(
        "y = [a for b in u for a in b]\n",
        Simplifications,
        "comprehension-to-element",
    );
}
