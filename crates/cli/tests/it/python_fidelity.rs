//! `--fidelity`: a reduced program fails where the original does (`origin`, the default), or
//! only with the same exception type (`type`), with the real binary and interpreter.

use std::path::{Path, PathBuf};

use crate::support::python::*;

/// `tests/fixtures/python/origin/NAME`.
fn fixture(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/python/origin")
        .join(name)
}

/// The last `File "...", line N, in NAME` line of a run's traceback.
fn innermost_frame(stderr: &[u8]) -> String {
    String::from_utf8_lossy(stderr)
        .lines()
        .rev()
        .find(|l| l.trim_start().starts_with("File \""))
        .unwrap_or_default()
        .trim()
        .to_owned()
}

/// Reduces `source` with `flags`; returns the text, the run's first message lines, and the
/// output's run (with `pythonpath`).
fn reduce_with(
    source: &Path,
    msg: &str,
    flags: &[&str],
    pythonpath: Option<&Path>,
) -> (String, String, std::process::Output) {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("out.py");
    let assert = python_command(source, msg, &out)
        .arg("--python")
        .arg(python())
        .args(flags)
        .assert()
        .success();
    let stderr = String::from_utf8_lossy(&assert.get_output().stderr).into_owned();
    let text = std::fs::read_to_string(&out).unwrap();
    let run = run_python(&out, pythonpath);
    (text, stderr, run)
}

/// The issue's own-code case: a KeyError raised in a method deep in a class hierarchy keeps its
/// method by default; `--fidelity type` lets it decay to a bare lookup at the top level.
#[test]
fn an_own_code_failure_keeps_its_method_unless_fidelity_is_type() {
    let source = fixture("pricing.py");
    let msg = "KeyError: 'platinum'";
    let (text, stderr, run) = reduce_with(&source, msg, &[], None);
    let first = stderr.lines().nth(1).unwrap_or_default();
    assert!(
        first.contains("fails in PricingEngine.resolve") && first.contains("KeyError"),
        "{stderr}"
    );
    assert!(text.contains("def resolve"), "{text}");
    assert!(all_output(&run).contains(msg), "{text}");
    let frame = innermost_frame(&run.stderr);
    assert!(frame.ends_with("in resolve"), "{frame}");
    assert!(last_stderr_line(&run).starts_with("KeyError"));

    let (loose, stderr, run) = reduce_with(&source, msg, &["--fidelity", "type"], None);
    assert!(stderr.contains("ends in an uncaught KeyError"), "{stderr}");
    assert!(!loose.contains("def resolve"), "{loose}");
    assert!(loose.len() < text.len(), "{loose} vs {text}");
    assert!(last_stderr_line(&run).starts_with("KeyError"));
}

/// A failure raised inside a library keeps calling the library function that raises it.
#[test]
fn a_library_failure_stays_inside_the_library_function() {
    let lib = fixture("lib");
    let env = format!("PYTHONPATH={}", lib.display());
    let msg = "K shape check failed";
    let (text, stderr, run) = reduce_with(&fixture("kernel.py"), msg, &["--env", &env], Some(&lib));
    assert!(stderr.contains("fails in _validate ("), "{stderr}");
    assert!(
        stderr.contains("shapelib/checks.py) with an uncaught ValueError"),
        "{stderr}"
    );
    assert!(text.contains("shapelib"), "{text}");
    let frame = innermost_frame(&run.stderr);
    assert!(
        frame.contains("shapelib/checks.py") && frame.ends_with("in _validate"),
        "{frame}\n{text}"
    );
    assert!(all_output(&run).contains(msg));
}

/// `--any-exception` is `--fidelity message`; both at once are refused.
#[test]
fn any_exception_and_fidelity_exclude_each_other() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("out.py");
    let stderr = stderr_of(
        python_command(&fixture("pricing.py"), "platinum", &out).args([
            "--any-exception",
            "--fidelity",
            "type",
        ]),
        2,
    );
    assert!(stderr.contains("--fidelity"), "{stderr}");
}
