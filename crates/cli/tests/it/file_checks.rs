//! `minrepro file`'s checks of the test and the output, end to end through the binary: a test
//! that judges the output with `--err-msg` (alone and with `--interesting-exit-code`), a test
//! that accepts empty files (refused; `--allow-empty` reduces anyway), and `--force` replacing
//! an earlier result but never an input or a directory of other files.

use std::fs;

use crate::file_cli::minrepro;
use crate::support::{
    assert_fails, assert_fails_naming, assert_file_holds, assert_nothing_published, stderr,
};

/// A JSON "validator" that exits 1 both for the bug and for a parse error: only its message
/// tells them apart.
const VALIDATOR: &str = "import json, sys\n\
try:\n    doc = json.load(open(sys.argv[1]))\n\
except ValueError as e:\n    sys.exit(f'parse error: {e}')\n\
if any(isinstance(x, dict) and x.get('deep') == 'needle' for x in doc.get('items', [])):\n    \
sys.exit('bug: needle inside items')\n";

const DOC: &str = "{\n  \"name\": \"demo\",\n  \"items\": [1, 2, {\"deep\": \"needle\"}],\n  \"other\": {\"a\": true, \"b\": null}\n}\n";

fn setup() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    fs::write(dir.path().join("check.py"), VALIDATOR).unwrap();
    fs::write(dir.path().join("doc.json"), DOC).unwrap();
    dir
}

const VALIDATE: [&str; 5] = [
    "doc.json",
    "--predicate",
    "python3",
    "--predicate-arg=check.py",
    "--predicate-arg={file}",
];

#[test]
fn an_exit_code_that_a_parse_error_shares_is_refused_as_accepting_empty_files() {
    let dir = setup();
    let mut args = VALIDATE.to_vec();
    args.extend(["--interesting-exit-code", "1", "-o", "out.json"]);
    let out = minrepro(dir.path(), &args);
    let needles = ["also accepts an empty file", "--err-msg", "--allow-empty"];
    assert_fails_naming(&out, 1, &needles);
    assert!(!dir.path().join("out.json").exists(), "nothing is written");
}

#[test]
fn err_msg_tells_the_bug_from_a_parse_error() {
    let dir = setup();
    let mut args = VALIDATE.to_vec();
    args.extend(["--err-msg", "bug: needle", "-o", "out.json", "-q"]);
    let out = minrepro(dir.path(), &args);
    assert!(out.status.success(), "{}", stderr(&out));
    let result = fs::read_to_string(dir.path().join("out.json")).unwrap();
    let compact: String = result.split_whitespace().collect();
    assert_eq!(compact, "{\"items\":[{\"deep\":\"needle\"}]}", "{result:?}");

    // Combined with an exit code that the bug never exits with: the original does not
    // reproduce, and the message names both conditions' outcome.
    let mut args = VALIDATE.to_vec();
    args.extend([
        "--err-msg",
        "bug: needle",
        "--interesting-exit-code",
        "3",
        "-o",
        "other.json",
    ]);
    let out = minrepro(dir.path(), &args);
    assert_fails_naming(&out, 1, &["exited with 1", "exit code 3"]);
    assert!(!dir.path().join("other.json").exists());

    // A message the test never prints.
    let mut args = VALIDATE.to_vec();
    args.extend(["--err-msg", "segfault", "-o", "other.json"]);
    let out = minrepro(dir.path(), &args);
    assert_fails(&out, 1, "--err-msg \"segfault\" does not appear");
}

#[test]
fn err_msg_works_with_a_test_script_too() {
    let dir = setup();
    crate::support::script(
        dir.path(),
        "test.sh",
        &format!(
            "#!/bin/sh\nexec python3 {} doc.json\n",
            dir.path().join("check.py").display()
        ),
    );
    let out = minrepro(
        dir.path(),
        &[
            "./test.sh",
            "doc.json",
            "--err-msg",
            "bug: needle",
            "-o",
            "out.json",
            "-q",
        ],
    );
    assert!(out.status.success(), "{}", stderr(&out));
    let result = fs::read_to_string(dir.path().join("out.json")).unwrap();
    assert!(
        result.contains("needle") && !result.contains("demo"),
        "{result:?}"
    );
}

#[test]
fn allow_empty_reduces_a_test_that_accepts_anything() {
    let dir = setup();
    let out = minrepro(
        dir.path(),
        &[
            "doc.json",
            "--predicate",
            "true",
            "--allow-empty",
            "-o",
            "out.json",
            "-q",
        ],
    );
    assert!(out.status.success(), "{}", stderr(&out));
    assert_file_holds(&dir.path().join("out.json"), "");
}

#[test]
fn several_files_are_emptied_together_for_the_check() {
    let dir = tempfile::tempdir().unwrap();
    fs::write(dir.path().join("a.c"), "int a;\n").unwrap();
    fs::write(dir.path().join("b.c"), "int b;\n").unwrap();
    // Interesting unless a.c holds something it does not: an empty a.c passes.
    crate::support::script(dir.path(), "test.sh", "#!/bin/sh\n! grep -q zzz a.c\n");
    let out = minrepro(dir.path(), &["./test.sh", "a.c", "b.c", "-o", "out"]);
    assert_nothing_published(&out, &dir.path().join("out"), "also accepts empty files");
}

#[test]
fn force_replaces_an_earlier_result_but_nothing_else() {
    let dir = setup();
    let mut args = VALIDATE.to_vec();
    args.extend(["--err-msg", "bug: needle", "-o", "out.json", "-q"]);
    fs::write(dir.path().join("out.json"), "old").unwrap();
    let out = minrepro(dir.path(), &args);
    assert_fails(&out, 1, "--force");
    assert_file_holds(&dir.path().join("out.json"), "old");
    args.push("--force");
    let out = minrepro(dir.path(), &args);
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(fs::read_to_string(dir.path().join("out.json"))
        .unwrap()
        .contains("needle"));

    // -o naming the input itself is refused even with --force.
    let mut args = VALIDATE.to_vec();
    args.extend(["--err-msg", "bug: needle", "-o", "doc.json", "--force"]);
    let out = minrepro(dir.path(), &args);
    assert_fails(&out, 1, "is an input");
    assert_file_holds(&dir.path().join("doc.json"), DOC);
}

#[test]
fn force_replaces_a_directory_only_when_it_holds_an_earlier_result() {
    let dir = tempfile::tempdir().unwrap();
    fs::create_dir(dir.path().join("src")).unwrap();
    fs::write(dir.path().join("src/a.c"), "int keep;\nint drop1;\n").unwrap();
    fs::write(dir.path().join("src/b.c"), "int drop2;\n").unwrap();
    crate::support::script(dir.path(), "test.sh", "#!/bin/sh\ngrep -q keep src/a.c\n");
    let reduce = || {
        minrepro(
            dir.path(),
            &["./test.sh", "src", "-o", "out", "--force", "-q"],
        )
    };
    let out = reduce();
    assert!(out.status.success(), "{}", stderr(&out));
    let again = reduce();
    assert!(again.status.success(), "{}", stderr(&again));
    assert!(fs::read_to_string(dir.path().join("out/src/a.c"))
        .unwrap()
        .contains("keep"));
    // A file of another name in it: the directory is not an earlier result.
    fs::write(dir.path().join("out/notes.txt"), "mine").unwrap();
    let refused = reduce();
    assert_fails(&refused, 1, "notes.txt");
    assert_file_holds(&dir.path().join("out/notes.txt"), "mine");
}
