//! `minrepro python` refuses bad inputs clearly and writes nothing.

use crate::support::python::*;
use crate::support::*;

#[test]
fn uninteresting_original_shows_its_output() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("out.py");
    refused(
        python_command(&example("control_flow.py"), "no such message", &out)
            .arg("--python")
            .arg(python()),
        &out,
        &[
            "--err-msg \"no such message\" does not appear in the output of the program (case-sensitive)",
            "--- its last lines on stderr ---",
            "RuntimeError: budget exceeded for gamma",
        ],
    );
}

#[test]
fn syntax_error_names_the_line() {
    let area = Area::new();
    let source = area.write_input("bad.py", "x = 1\nprint('needle')\ndef f(:\n    pass\n");
    let out = area.out_py();
    let mut command = python_command(&source, "needle", &out);
    refused(&mut command, &out, &["not valid Python: line 3"]);
}

#[test]
fn output_equal_to_source_is_refused() {
    let area = Area::new();
    let text = "print('needle')\nprint('more')\n";
    let source = area.write_input("p.py", text);
    std::fs::create_dir(area.input().join("sub")).unwrap();
    let same = area.input().join("sub/../p.py");
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
        2, // a missing input is a usage error
    );
    assert!(stderr.contains("missing.py"), "{stderr}");
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
    let area = Area::new();
    let source = area.write_input("tiny.py", "print('needle')\n");
    let (out, (after, was)) = reduce(&source, area.root.path(), &["--err-msg", "needle"]);
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
        let mut command = python_command(&source, "needle", &out);
        refused(&mut command, &out, &["freeze annotation", line]);
    }
}

/// `--timeout` is checked while the flags are parsed, with the same words in every front end:
/// a value the run could not honour (or that would overflow a deadline) is a usage error, never a
/// panic, and nothing runs.
#[test]
fn unusable_timeouts_are_usage_errors_in_every_front_end() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("out.py");
    let bundle_out = dir.path().join("reduced");
    let file_out = dir.path().join("out.txt");
    for bad in ["nan", "inf", "0", "-1", "1e30"] {
        let python = stderr_of(
            python_command(&example("control_flow.py"), "budget", &out)
                .arg("--timeout")
                .arg(bad),
            2,
        );
        let bundle = stderr_of(
            minrepro()
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
        let file = stderr_of(
            minrepro()
                .args(["file", "true"])
                .arg(example("control_flow.py"))
                .arg("-o")
                .arg(&file_out)
                .arg("--timeout")
                .arg(bad),
            2,
        );
        for stderr in [&python, &bundle, &file] {
            assert!(
                stderr.contains(&format!("invalid value '{bad}' for '--timeout"))
                    && stderr.contains("must be a positive number of seconds"),
                "{bad}: {stderr}"
            );
            assert!(!stderr.contains("panicked"), "{stderr}");
        }
        assert!(!out.exists() && !bundle_out.exists() && !file_out.exists());
    }
}

#[test]
fn an_existing_output_is_refused_unless_forced() {
    let area = Area::new();
    let source = area.write_input("p.py", "x = 1\nraise ValueError('needle')\n");
    let notes = area.input().join("notes.txt");
    std::fs::write(&notes, "my notes\n").unwrap();
    let stderr = stderr_of(&mut python_command(&source, "needle", &notes), 1);
    assert!(
        stderr.contains("notes.txt already exists") && stderr.contains("--force"),
        "{stderr}"
    );
    assert_eq!(std::fs::read_to_string(&notes).unwrap(), "my notes\n");
    python_command(&source, "needle", &notes)
        .arg("--force")
        .assert()
        .code(0);
    assert_eq!(
        std::fs::read_to_string(&notes).unwrap(),
        "raise ValueError('needle')\n"
    );
}

#[test]
fn a_needle_found_only_in_a_warning_is_pointed_out() {
    let area = Area::new();
    let source = area.write_input(
        "p.py",
        "import warnings\nwarnings.warn('old api', DeprecationWarning, stacklevel=1)\n\
         table = {'a': 1}\nprint(table[''])\n",
    );
    let out = area.out_py();
    let mut command = python_command(&source, "old api", &out);
    command.env("PYTHONWARNINGS", "always");
    let output = command.output().unwrap();
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(0), "{stderr}");
    assert!(
        stderr.contains("--err-msg \"old api\" appears in the original's output, but not in its final traceback (a KeyError)"),
        "{stderr}"
    );
    // Said once, at the start.
    assert_eq!(stderr.matches("not in its final traceback").count(), 1);
}

#[test]
fn an_original_slower_than_the_timeout_is_explained() {
    let area = Area::new();
    let source = area.write_input(
        "slow.py",
        "import time\ntime.sleep(30)\nraise ValueError('x')\n",
    );
    let out = area.out_py();
    refused(
        python_command(&source, "x", &out).args(["--timeout", "0.5"]),
        &out,
        &["the original run took longer than --timeout 0.5 s"],
    );
}

/// Errors are red on a terminal (a real pseudo-terminal from `script`), plain when piped or
/// with NO_COLOR; both front ends answer --version.
#[test]
fn colour_only_on_a_terminal_and_versions() {
    let command = format!(
        "{} python /nonexistent/p.py --err-msg x -o /nonexistent/o.py",
        binary().display()
    );
    let on_terminal = |no_color: &str| {
        let output = std::process::Command::new("script")
            .args(["-qec", &command, "/dev/null"])
            .env("NO_COLOR", no_color)
            .output()
            .expect("script(1) from util-linux runs the command on a pseudo-terminal");
        String::from_utf8_lossy(&output.stdout).into_owned()
    };
    let coloured = on_terminal("");
    assert!(coloured.contains("\x1b[1;31merror:\x1b[0m"), "{coloured:?}");
    let plain = on_terminal("1");
    assert!(
        plain.contains("error:") && !plain.contains('\x1b'),
        "{plain:?}"
    );
    let piped = stderr_of(
        &mut python_command(
            std::path::Path::new("/nonexistent/p.py"),
            "x",
            std::path::Path::new("/nonexistent/o.py"),
        ),
        2,
    );
    assert!(
        piped.contains("error:") && !piped.contains('\x1b'),
        "{piped:?}"
    );
    for front_end in ["python", "bundle"] {
        let output = minrepro().args([front_end, "--version"]).output().unwrap();
        let stdout = String::from_utf8_lossy(&output.stdout);
        assert!(output.status.success(), "{front_end}: {output:?}");
        assert!(
            stdout.contains(env!("CARGO_PKG_VERSION")),
            "{front_end}: {stdout}"
        );
    }
}
