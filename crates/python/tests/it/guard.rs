//! The fidelity guard: which exception a traceback ends in, and the check built on it.

use minrepro_predicate::{CapturedStream, RunRecord};
use minrepro_python::guard::{exception_type, needle_outside_traceback, same_exception_check};

const PLAIN: &str = "Traceback (most recent call last):\n  File \"/x/p.py\", line 3, in <module>\n    raise ValueError(\"needle\")\nValueError: needle\n";

/// A run whose stderr is `stderr` (head and tail alike).
fn run(stderr: &str) -> RunRecord {
    RunRecord {
        exit_code: Some(1),
        stdout: CapturedStream::default(),
        stderr: CapturedStream {
            head: stderr.to_owned(),
            tail: stderr.to_owned(),
            contains_needle: true,
        },
        error: None,
    }
}

#[test]
fn the_exception_type_is_read_off_the_last_top_level_traceback() {
    let chained = format!(
        "{PLAIN}\nDuring handling of the above exception, another exception occurred:\n\nTraceback (most recent call last):\n  File \"p.py\", line 5, in <module>\n    foo()\nNameError: name 'foo' is not defined\n"
    );
    let syntax_error =
        "  File \"/x/p.py\", line 3\n    print(f\"needle\")\nIndentationError: unexpected indent\n";
    // A traceback longer than the captured tail: its header is lost.
    let mut cut = String::from("ne 9, in f\n    g()\n");
    for i in 0..50 {
        cut.push_str(&format!("  File \"/x/p.py\", line {i}, in f\n    g()\n"));
    }
    cut.push_str("RecursionError: maximum recursion depth exceeded\n");
    let cases: Vec<(&str, String, Option<&str>)> = vec![
        ("plain", PLAIN.into(), Some("ValueError")),
        (
            "dotted",
            "Traceback (most recent call last):\n  File \"p.py\", line 1, in <module>\npkg.mod.MyError: boom: more\n".into(),
            Some("pkg.mod.MyError"),
        ),
        (
            "bare",
            "Traceback (most recent call last):\n  File \"p.py\", line 1, in <module>\nKeyboardInterrupt\n".into(),
            Some("KeyboardInterrupt"),
        ),
        (
            "multi-line message",
            "Traceback (most recent call last):\n  File \"p.py\", line 1, in <module>\nValueError: line one\nline two: not a type\n".into(),
            Some("ValueError"),
        ),
        ("chained: the last", chained, Some("NameError")),
        (
            "exception group",
            "  + Exception Group Traceback (most recent call last):\n  |   File \"p.py\", line 1, in <module>\n  |     raise ExceptionGroup(\"g\", [ValueError(1)])\n  | ExceptionGroup: g (1 sub-exception)\n  +-+---------------- 1 ----------------\n    | ValueError: 1\n    +------------------------------------\n".into(),
            Some("ExceptionGroup"),
        ),
        ("syntax error without a header", syntax_error.into(), Some("IndentationError")),
        (
            "syntax error after output",
            format!("some output\n{syntax_error}"),
            Some("IndentationError"),
        ),
        ("cut before its header", cut, Some("RecursionError")),
        ("empty", String::new(), None),
        ("no traceback", "ValueError: needle\n".into(), None),
        (
            "no exception line",
            "Traceback (most recent call last):\n  File\n".into(),
            None,
        ),
        (
            "not a type",
            "Traceback (most recent call last):\n  File \"p\"\nnot a type!: x\n".into(),
            None,
        ),
    ];
    for (name, stderr, expected) in cases {
        assert_eq!(exception_type(&stderr).as_deref(), expected, "{name}");
    }
}

#[test]
fn the_check_compares_exception_types() {
    let check = same_exception_check(Some("ValueError"));
    assert!((check.check)(&run(PLAIN)));
    let type_error = PLAIN.replace("ValueError: needle", "TypeError: bad operand");
    assert!(!(check.check)(&run(&type_error)));
    assert!(!(check.check)(&run("")));
    assert!(check.description.contains("ValueError"));
    let clean = same_exception_check(None);
    assert!((clean.check)(&run("")));
    assert!((clean.check)(&run("warning: needle\n")));
    assert!(!(clean.check)(&run(&type_error)));
    assert_ne!(clean.description, check.description);
}

#[test]
fn a_needle_only_in_a_warning_is_noticed() {
    let warned = run("p.py:3: DeprecationWarning: old api\n  warn()\nTraceback (most recent call last):\n  File \"p.py\", line 9, in <module>\nKeyError: ''\n");
    let note = needle_outside_traceback(&warned, "old api", "KeyError").unwrap();
    assert!(
        note.contains("not in its final traceback (a KeyError)"),
        "{note}"
    );
    assert_eq!(
        needle_outside_traceback(&warned, "KeyError", "KeyError"),
        None
    );
    let clean = run("old api\n");
    assert_eq!(
        needle_outside_traceback(&clean, "old api", "KeyError"),
        None
    );
}
