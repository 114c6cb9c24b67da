//! Messages that say what to do, end to end through the binary: a test without its run bit
//! (`chmod +x`), swapped operands (the test comes first), a missing input (a usage error, exit 2,
//! in every front end), no `{workspace}` placeholder in a shown traceback, the `--cwd` hint for
//! a relative path the program cannot open, log lines that say why a change that saves no
//! tokens counts, and the last line's sizes agreeing with the statistics line.

use std::fs;

use minrepro_testkit::temp_file;
use tempfile::TempDir;

use crate::support::python::run_python_in;
use crate::support::{assert_fails_naming, assert_success, run_in, script, stderr};

/// A directory holding `ring.c` and a `test.sh` that greps it, with its run bit or without.
fn ring_dir(executable: bool) -> TempDir {
    let (dir, _) = temp_file("ring.c", "int ring;\n");
    let test = "#!/bin/sh\ngrep -q ring ring.c\n";
    if executable {
        script(dir.path(), "test.sh", test);
    } else {
        fs::write(dir.path().join("test.sh"), test).unwrap();
    }
    dir
}

#[test]
fn a_test_without_its_run_bit_gets_the_chmod_line() {
    let dir = ring_dir(false);
    let out = run_in(dir.path(), &["file", "./test.sh", "ring.c", "-o", "o.c"]);
    assert_fails_naming(&out, 2, &["chmod +x ", "test.sh"]);
}

#[test]
fn swapped_operands_are_told_that_the_test_comes_first() {
    let dir = ring_dir(true);
    let out = run_in(dir.path(), &["file", "ring.c", "./test.sh", "-o", "o.c"]);
    let needles = ["the test comes first", "minrepro file ./test.sh ring.c"];
    assert_fails_naming(&out, 2, &needles);
}

#[test]
fn a_missing_input_is_a_usage_error_in_every_front_end() {
    let dir = tempfile::tempdir().unwrap();
    script(dir.path(), "test.sh", "#!/bin/sh\nexit 0\n");
    for (label, args) in [
        ("file", vec!["file", "./test.sh", "nope.c", "-o", "o.c"]),
        (
            "file --predicate",
            vec!["file", "nope.c", "--predicate", "true", "-o", "o.c"],
        ),
        (
            "python",
            vec!["python", "nope.py", "--err-msg", "x", "-o", "o.py"],
        ),
        (
            "bundle",
            vec![
                "bundle",
                "--bundle",
                "nope.json",
                "--output",
                "out",
                "--predicate",
                "true",
            ],
        ),
    ] {
        let out = run_in(dir.path(), &args);
        assert_eq!(out.status.code(), Some(2), "{label}: {}", stderr(&out));
        assert!(
            stderr(&out).contains("nope.") && stderr(&out).contains("No such file"),
            "{label}: {}",
            stderr(&out)
        );
    }
}

#[test]
fn a_traceback_in_a_message_names_files_without_placeholders() {
    let source = "def load():\n    raise KeyError('shape')\n\nload()\n";
    let (dir, _) = temp_file("pipeline.py", source);
    let out = run_python_in(dir.path(), "pipeline.py", "ValueError", "o.py", &[]);
    let text = assert_fails_naming(&out, 1, &["File \"pipeline.py\", line 2"]);
    assert!(!text.contains("{workspace}"), "{text}");
}

#[test]
fn a_relative_path_the_program_cannot_open_gets_the_cwd_hint() {
    let dir = tempfile::tempdir().unwrap();
    fs::create_dir(dir.path().join("data")).unwrap();
    fs::write(dir.path().join("data/orders.json"), "[1]\n").unwrap();
    fs::write(
        dir.path().join("data/report.py"),
        "import json\nrows = json.load(open('orders.json'))\nraise ValueError(rows)\n",
    )
    .unwrap();
    let reduce = |extra: &[&str]| {
        let extra = [&["-q"], extra].concat();
        run_python_in(
            dir.path(),
            "data/report.py",
            "ValueError: [1]",
            "o.py",
            &extra,
        )
    };
    let needles = ["relative path \"orders.json\"", "--cwd DIR"];
    assert_fails_naming(&reduce(&[]), 1, &needles);
    // What the hint says works.
    let out = reduce(&["--cwd", "data"]);
    assert!(out.status.success(), "{}", stderr(&out));
}

/// The `[pass] accepted: A -> B unit` lines of a plain log.
fn accepted_lines(text: &str) -> Vec<(u64, u64, String)> {
    text.lines()
        .filter_map(|line| {
            let rest = line.split_once("] accepted: ")?.1;
            let (before, rest) = rest.split_once(" -> ")?;
            let (after, rest) = rest.split_once(' ')?;
            Some((before.parse().ok()?, after.parse().ok()?, rest.to_owned()))
        })
        .collect()
}

#[test]
fn log_lines_say_why_a_change_that_saves_no_tokens_counts() {
    // Blank lines cost bytes, not tokens.
    let (dir, _) = temp_file("notes.txt", "alpha beta\n\n\n\ngamma needle delta\n\n\n");
    let test = "#!/bin/sh\ngrep -q needle notes.txt\n";
    script(dir.path(), "test.sh", test);
    let out = run_in(
        dir.path(),
        &["file", "./test.sh", "notes.txt", "-o", "o.txt"],
    );
    assert_success(&out);
    let lines = accepted_lines(&stderr(&out));
    assert!(!lines.is_empty(), "{}", stderr(&out));
    for (before, after, rest) in &lines {
        match after.cmp(before) {
            std::cmp::Ordering::Less => assert_eq!(rest, "tokens"),
            std::cmp::Ordering::Equal => assert!(rest.starts_with("tokens (same size, "), "{rest}"),
            std::cmp::Ordering::Greater => assert!(rest.starts_with("tokens (larger: "), "{rest}"),
        }
    }
    assert!(
        lines
            .iter()
            .any(|(b, a, rest)| a == b && rest.contains("fewer byte")),
        "no same-size change logged: {}",
        stderr(&out)
    );
}

#[test]
fn the_last_line_states_the_sizes_of_the_statistics_line() {
    let dir = tempfile::tempdir().unwrap();
    fs::write(dir.path().join("a.c"), "int keep;\nint drop_a;\n").unwrap();
    fs::write(dir.path().join("b.c"), "int drop_b;\n").unwrap();
    script(dir.path(), "test.sh", "#!/bin/sh\ngrep -q keep a.c\n");
    let out = run_in(
        dir.path(),
        &["file", "./test.sh", "a.c", "b.c", "-o", "out"],
    );
    assert!(out.status.success(), "{}", stderr(&out));
    let text = stderr(&out);
    let stats = text
        .lines()
        .find_map(|l| l.split_once(", size ").map(|(_, rest)| rest.to_owned()))
        .unwrap_or_else(|| panic!("no statistics line: {text}"));
    let (before, rest) = stats.split_once(" -> ").unwrap();
    let after = rest.split_once(' ').unwrap().0;
    let last = String::from_utf8_lossy(&out.stdout).into_owned();
    assert!(
        last.contains(&format!(
            "({after} tokens in 1 file, was {before} in 2 files"
        )),
        "{last} vs {stats}"
    );
}
