//! Loop progress: `remove-statement` is not offered for what makes a `while` loop advance.

use crate::{rewrites, Group};

/// The statements (trimmed source text) `remove-statement` would remove from `source`.
fn removable(source: &str) -> Vec<String> {
    rewrites(source, Group::FastRemovals)
        .into_iter()
        .filter(|r| r.kind == "remove-statement")
        .map(|r| source[r.range].trim().to_owned())
        .collect()
}

#[test]
fn writes_to_what_the_test_reads_stay() {
    let source = "n = 0\ntotal = 0\nwhile n < 3 and self.pc < len(code):\n    total += n\n    n += 1\n    self.pc = n\n    code[0] = 1\n    log(n)\n";
    let found = removable(source);
    for kept in ["n += 1", "self.pc = n", "code[0] = 1"] {
        assert!(
            !found.iter().any(|s| s == kept),
            "{kept} offered: {found:?}"
        );
    }
    for offered in ["total += n", "log(n)", "n = 0"] {
        assert!(
            found.iter().any(|s| s == offered),
            "{offered} missing: {found:?}"
        );
    }
}

#[test]
fn method_calls_on_the_tested_value_and_blocks_holding_them_stay() {
    let source = "while chunks:\n    if ready:\n        chunks.pop()\n    other.pop()\n";
    let found = removable(source);
    assert!(
        !found.iter().any(|s| s.starts_with("if ready")),
        "{found:?}"
    );
    assert!(!found.iter().any(|s| s == "chunks.pop()"), "{found:?}");
    assert!(found.iter().any(|s| s == "other.pop()"), "{found:?}");
    // The loop itself can still go.
    assert!(
        found.iter().any(|s| s.starts_with("while chunks")),
        "{found:?}"
    );
}

#[test]
fn only_endless_loops_protect_break_and_return() {
    let endless = "def f():\n    while True:\n        x = g()\n        if x:\n            break\n        h()\n";
    let found = removable(endless);
    assert!(!found.iter().any(|s| s.starts_with("if x")), "{found:?}");
    assert!(found.iter().any(|s| s == "h()"), "{found:?}");
    let bounded = "while i < 3:\n    i = i + 1\n    if x:\n        break\n";
    assert!(removable(bounded).iter().any(|s| s.starts_with("if x")));
}

#[test]
fn nested_functions_and_for_loops_are_not_guarded() {
    let source = "while n < 3:\n    def step():\n        n = 5\n    n += 1\nfor i in range(3):\n    i += 1\n";
    let found = removable(source);
    assert!(found.iter().any(|s| s == "n = 5"), "{found:?}");
    assert!(found.iter().any(|s| s == "i += 1"), "{found:?}");
    assert!(!found.iter().any(|s| s == "n += 1"), "{found:?}");
}
