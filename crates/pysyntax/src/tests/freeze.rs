//! Freeze annotations: all forms, their errors, and protection of enclosing code.

use super::*;
use crate::*;
use Group::*;

/// Every rewrite of every group.
fn all_rewrites(source: &str) -> Vec<Rewrite> {
    Group::ALL
        .iter()
        .flat_map(|&g| rewrites(source, g))
        .collect()
}

/// Asserts that no rewrite of `source` touches bytes of `frozen` unless it keeps the text.
#[track_caller]
fn assert_survives(source: &str, frozen: &str) {
    let strip = |s: &str| {
        s.lines()
            .map(|l| l.trim_start())
            .collect::<Vec<_>>()
            .join("\n")
    };
    assert!(source.contains(frozen));
    for r in all_rewrites(source) {
        let out = apply(source, &[&r]);
        assert!(
            strip(&out).contains(&strip(frozen)),
            "{r:?} lost frozen {frozen:?}:\n{out}"
        );
    }
}

#[test]
fn freeze_single_line() {
    let s = "a = f(2)  # autodd: freeze\nb = g(4)\n";
    assert_eq!(freeze_regions(s), Ok(()));
    assert_survives(s, "a = f(2)  # autodd: freeze");
    assert_rewrite(
        s,
        FastRemovals,
        "remove-statement",
        "a = f(2)  # autodd: freeze\n",
    );
    assert_eq!(frozen_ranges(s), vec![0..26]);
    // `if C: <frozen>` → `<frozen>` keeps it, removing the `if` does not
    let s = "if c:\n    a()  # autodd: freeze\nb = 1\n";
    assert_rewrite(
        s,
        FastRemovals,
        "if-to-body",
        "a()  # autodd: freeze\nb = 1\n",
    );
    assert!(!results(s, FastRemovals, "remove-statement").contains(&"b = 1\n".to_string()));
    assert_survives(s, "a()  # autodd: freeze");
}

#[test]
fn freeze_single_line_errors() {
    let p = freeze_regions("x = 1\na = f(\n    1)  # autodd: freeze\n").unwrap_err();
    assert_eq!(p.line, 3);
    let p = freeze_regions("if x:  # autodd: freeze\n    pass\n").unwrap_err();
    assert_eq!(p.line, 1);
    let p = freeze_regions("x = 1\n# autodd: freeze\n").unwrap_err();
    assert_eq!(p.line, 2);
    assert!(freeze_regions("a = 1; b = 2  # autodd: freeze\n").is_ok());
}

#[test]
fn freeze_blocks() {
    let s = "x = 5\nif c:\n    # autodd: freeze-start\n    a = g(3)\n    b = [1, 2]\n    # autodd: end-freeze\n    y = 7\n";
    assert_eq!(freeze_regions(s), Ok(()));
    assert_survives(
        s,
        "# autodd: freeze-start\n    a = g(3)\n    b = [1, 2]\n    # autodd: end-freeze",
    );
    assert_rewrite(s, FastRemovals, "remove-statement", "x = 5\nif c:\n    # autodd: freeze-start\n    a = g(3)\n    b = [1, 2]\n    # autodd: end-freeze\n");
    assert_rewrite(
        s,
        FastRemovals,
        "if-to-body",
        "x = 5\n# autodd: freeze-start\na = g(3)\nb = [1, 2]\n# autodd: end-freeze\ny = 7\n",
    );
    assert!(results(s, IntegerReduction, "halve-integer").len() == 2); // 5 and 7 only
}

#[test]
fn freeze_block_errors() {
    let p = freeze_regions("a = 1\n# autodd: freeze-start\nb = 2\n").unwrap_err();
    assert_eq!(p.line, 2);
    assert!(p.message.contains("never closed"));
    let p = freeze_regions("a = 1\n\n# autodd: end-freeze\n").unwrap_err();
    assert_eq!(p.line, 3);
    // a source that does not parse is reported as such
    assert!(freeze_regions("if x:\n").is_err());
    // unterminated: everything after the start is still protected
    let s = "a = 2\n# autodd: freeze-start\nb = 4\n";
    assert_survives(s, "b = 4");
}

#[test]
fn freeze_with_block() {
    let s = "from m import __freeze__\nif c:\n    with __freeze__:\n        x = f(2)\n    z = 4\n";
    assert_eq!(freeze_regions(s), Ok(()));
    assert_survives(s, "with __freeze__:\n        x = f(2)");
    assert_survives(s, "from m import __freeze__");
    assert_rewrite(
        s,
        FastRemovals,
        "if-to-body",
        "from m import __freeze__\nwith __freeze__:\n    x = f(2)\nz = 4\n",
    );
    assert_rewrite(
        s,
        FastRemovals,
        "remove-statement",
        "from m import __freeze__\nif c:\n    with __freeze__:\n        x = f(2)\n",
    );
}

#[test]
fn freeze_calls() {
    let s = "import autodd\ny = __freeze__(f(2)) + 3\nz = autodd.__freeze__([1, 2])\n";
    assert_survives(s, "__freeze__(f(2))");
    assert_survives(s, "autodd.__freeze__([1, 2])");
    assert_rewrite(
        s,
        Simplifications,
        "binop-to-left",
        "import autodd\ny = __freeze__(f(2))\nz = autodd.__freeze__([1, 2])\n",
    );
    assert_none(s, Simplifications, "assign-to-one");
    assert_none(s, Simplifications, "call-to-arg");
}

#[test]
fn future_imports_stay_first() {
    let s = "\"\"\"doc\"\"\"\nfrom __future__ import annotations\nimport os\nx: int = 2\n";
    assert_survives(s, "from __future__ import annotations");
    for r in all_rewrites(s) {
        let out = apply(s, &[&r]);
        let at = out.find("from __future__").unwrap_or(0);
        let before = out[..at].trim();
        // only the (possibly shortened or removed) docstring may precede it
        assert!(
            before.is_empty() || before.starts_with("\"\"\"") && before.ends_with("\"\"\""),
            "{out}"
        );
    }
}
