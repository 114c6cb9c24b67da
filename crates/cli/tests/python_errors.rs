//! `minrepro python` refuses bad inputs clearly and writes nothing.

mod python_support;

use python_support::*;

#[test]
fn uninteresting_original_shows_its_output() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("out.py");
    let stderr = stderr_of(
        python_command(&example("control_flow.py"), "no such message", &out)
            .arg("--python")
            .arg(python()),
        1,
    );
    assert!(stderr.contains("not interesting"), "{stderr}");
    assert!(
        stderr.contains("RuntimeError: budget exceeded for gamma"),
        "{stderr}"
    );
    assert!(!out.exists());
}

#[test]
fn syntax_error_names_the_line() {
    let dir = tempfile::tempdir().unwrap();
    let source = dir.path().join("bad.py");
    std::fs::write(&source, "x = 1\nprint('needle')\ndef f(:\n    pass\n").unwrap();
    let out = dir.path().join("out.py");
    let stderr = stderr_of(&mut python_command(&source, "needle", &out), 1);
    assert!(stderr.contains("not valid Python: line 3"), "{stderr}");
    assert!(!out.exists());
}

#[test]
fn output_equal_to_source_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let source = dir.path().join("p.py");
    let text = "print('needle')\nprint('more')\n";
    std::fs::write(&source, text).unwrap();
    std::fs::create_dir(dir.path().join("sub")).unwrap();
    let same = dir.path().join("sub/../p.py");
    let stderr = stderr_of(&mut python_command(&source, "needle", &same), 1);
    assert!(stderr.contains("is the source file"), "{stderr}");
    assert_eq!(std::fs::read_to_string(&source).unwrap(), text);
}

#[test]
fn unreadable_source_and_empty_message() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("out.py");
    let stderr = stderr_of(
        &mut python_command(&dir.path().join("missing.py"), "needle", &out),
        1,
    );
    assert!(stderr.contains("cannot read"), "{stderr}");
    python_command(&example("control_flow.py"), "", &out)
        .assert()
        .code(2);
    minrepro()
        .arg("python")
        .arg(example("control_flow.py"))
        .arg("-o")
        .arg(&out)
        .assert()
        .code(2);
    assert!(!out.exists());
}

#[test]
fn nothing_to_remove_still_writes_the_output() {
    let dir = tempfile::tempdir().unwrap();
    let source = dir.path().join("tiny.py");
    std::fs::write(&source, "print('needle')\n").unwrap();
    let (out, (after, was)) = reduce(&source, dir.path(), &["--err-msg", "needle"]);
    assert_eq!(after, was);
    assert_eq!(std::fs::read_to_string(out).unwrap(), "print('needle')\n");
}

#[test]
fn bad_interpreter_and_stray_predicate_args() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("out.py");
    let source = example("control_flow.py");
    let stderr = stderr_of(
        python_command(&source, "budget", &out).args(["--python", "/nonexistent/python3"]),
        1,
    );
    assert!(stderr.contains("--python"), "{stderr}");
    python_command(&source, "budget", &out)
        .args(["--predicate-arg", "{file}"])
        .assert()
        .code(2);
    assert!(!out.exists());
}

#[test]
fn bad_freeze_annotations_name_the_line() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("out.py");
    for (text, line) in [
        (
            "x = 1\ny = max(\n    1, 2)  # autodd: freeze\nprint('needle')\n",
            "line 3",
        ),
        (
            "x = 1\n# autodd: freeze-start\ny = 2\nprint('needle')\n",
            "line 2",
        ),
    ] {
        let source = dir.path().join("frozen.py");
        std::fs::write(&source, text).unwrap();
        let stderr = stderr_of(&mut python_command(&source, "needle", &out), 1);
        assert!(stderr.contains("freeze annotation"), "{stderr}");
        assert!(stderr.contains(line), "{stderr}");
        assert!(!out.exists());
    }
}

/// `--timeout` is checked while the flags are parsed, with the same words in both front ends:
/// a value the run could not honour (or that would overflow a deadline) is a usage error, never a
/// panic, and nothing runs.
#[test]
fn unusable_timeouts_are_usage_errors_in_both_front_ends() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("out.py");
    let bundle_out = dir.path().join("reduced");
    for bad in ["nan", "inf", "0", "-1", "1e30"] {
        let python = stderr_of(
            python_command(&example("control_flow.py"), "budget", &out)
                .arg("--timeout")
                .arg(bad),
            2,
        );
        let bundle = stderr_of(
            assert_cmd::Command::cargo_bin("minrepro")
                .unwrap()
                .args([
                    "bundle",
                    "--code-object",
                    "/dev/null",
                    "--predicate",
                    "true",
                ])
                .arg("--output")
                .arg(&bundle_out)
                .arg("--timeout")
                .arg(bad),
            2,
        );
        for stderr in [&python, &bundle] {
            assert!(
                stderr.contains(&format!("invalid value '{bad}' for '--timeout"))
                    && stderr.contains("must be a positive number of seconds"),
                "{bad}: {stderr}"
            );
            assert!(!stderr.contains("panicked"), "{stderr}");
        }
        assert!(!out.exists() && !bundle_out.exists());
    }
}
