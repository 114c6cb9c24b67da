//! The fidelity guard: which exception a traceback ends in, and the check built on it.

use std::path::Path;

use minrepro_predicate::{CapturedStream, RunRecord};
use minrepro_python::guard::{
    exception_type, innermost_frame, needle_outside_traceback, same_exception_check,
    same_origin_check, same_origin_check_in, Frame, Inlined, Origin,
};

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
    assert!((check.check)(&run(PLAIN), Path::new("/")));
    let type_error = PLAIN.replace("ValueError: needle", "TypeError: bad operand");
    assert!(!(check.check)(&run(&type_error), Path::new("/")));
    assert!(!(check.check)(&run(""), Path::new("/")));
    assert!(check.description.contains("ValueError"));
    let clean = same_exception_check(None);
    assert!((clean.check)(&run(""), Path::new("/")));
    assert!((clean.check)(&run("warning: needle\n"), Path::new("/")));
    assert!(!(clean.check)(&run(&type_error), Path::new("/")));
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

#[test]
fn the_innermost_frame_is_the_last_frame_line_of_the_final_traceback() {
    let nested = "Traceback (most recent call last):\n  File \"{workspace}/p.py\", line 9, in <module>\n    E().resolve('x')\n  File \"{workspace}/p.py\", line 3, in resolve\n    return self.tiers[tier]\n           ~~~~~~~~~~^^^^^^\nKeyError: 'x'\n";
    assert_eq!(
        innermost_frame(nested),
        Some(Frame {
            file: "{workspace}/p.py".into(),
            line: 3,
            function: "resolve".into()
        })
    );
    let group = "  + Exception Group Traceback (most recent call last):\n  |   File \"/l/m.py\", line 4, in run\n  |     raise ExceptionGroup(\"g\", [ValueError(1)])\n  | ExceptionGroup: g (1 sub-exception)\n  +-+---- 1 ----\n    | ValueError: 1\n";
    assert_eq!(
        innermost_frame(group).map(|f| f.function),
        Some("run".into())
    );
    // A syntax error's location names no function.
    let syntax = "  File \"/x/p.py\", line 3\n    print(\nSyntaxError: '(' was never closed\n";
    assert_eq!(innermost_frame(syntax), None);
}

#[test]
fn the_origin_check_compares_file_and_qualified_function() {
    let program = "class A:\n    def resolve(self, k):\n        return {}[k]\n\nclass B:\n    def resolve(self, k):\n        return {}[k]\n";
    let (dir, _) = minrepro_testkit::temp_file("p.py", program);
    let failing_in = |line: usize| {
        format!("Traceback (most recent call last):\n  File \"{{workspace}}/p.py\", line 9, in <module>\n    x()\n  File \"{{workspace}}/p.py\", line {line}, in resolve\n    return {{}}[k]\nKeyError: 'x'\n")
    };
    let read = |file: &str| (file == "{workspace}/p.py").then(|| program.to_owned());
    let origin = Origin::of(&failing_in(3), &read).unwrap();
    assert_eq!(origin.function, "A.resolve");
    assert!(origin.in_program());
    let check = same_origin_check("KeyError", origin);
    assert!(check.description.contains("A.resolve"));
    assert!((check.check)(&run(&failing_in(3)), dir.path()));
    // The same name in another class, another type, another file: all refused.
    assert!(!(check.check)(&run(&failing_in(7)), dir.path()));
    let value_error = failing_in(3).replace("KeyError", "ValueError");
    assert!(!(check.check)(&run(&value_error), dir.path()));
    let elsewhere = failing_in(3).replace("line 3", "line 3x").replace(
        "File \"{workspace}/p.py\", line 3x",
        "File \"/lib/q.py\", line 3",
    );
    assert!(!(check.check)(&run(&elsewhere), dir.path()));
}

#[test]
fn the_origin_check_follows_a_project_failure_into_its_entry() {
    let module = "class DiscountError(ValueError):\n    pass\n\ndef apply():\n    raise DiscountError('x')\n";
    let entry = "class DiscountError(ValueError):\n    pass\n\ndef apply():\n    raise DiscountError('x')\napply()\n";
    let (dir, _) = minrepro_testkit::temp_path("project");
    std::fs::write(dir.path().join("main.py"), entry).unwrap();
    std::fs::write(dir.path().join("errors.py"), module).unwrap();
    let failing = |file: &str, kind: &str| {
        format!("Traceback (most recent call last):\n  File \"{{workspace}}/{file}\", line 5, in apply\n    raise DiscountError('x')\n{kind}: x\n")
    };
    let read = |file: &str| (file == "{workspace}/errors.py").then(|| module.to_owned());
    let original = failing("errors.py", "errors.DiscountError");
    let origin = Origin::of(&original, &read).unwrap();
    let inlined = Inlined {
        file: "{workspace}/main.py".into(),
        kind: Some("DiscountError".into()),
    };
    let check = same_origin_check_in("errors.DiscountError", origin, Some(inlined));
    // In the module under its qualified name, or inlined into the entry under its bare one.
    assert!((check.check)(&run(&original), dir.path()));
    assert!((check.check)(
        &run(&failing("main.py", "DiscountError")),
        dir.path()
    ));
    // Another type, or no exception at all, is refused wherever it is raised.
    assert!(!(check.check)(
        &run(&failing("main.py", "ValueError")),
        dir.path()
    ));
    let no_exception =
        "Traceback (most recent call last):\n  File \"{workspace}/main.py\", line 5, in apply\n";
    assert!(!(check.check)(&run(no_exception), dir.path()));
}
