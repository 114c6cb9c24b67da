//! A reduction ends at a fixpoint: reducing its result again accepts nothing and writes the same
//! bytes; and no candidate the predicate alone can judge is forbidden by the name filter's guess.

use std::path::{Path, PathBuf};

use crate::support::python::*;

/// Reduces `source` (named `file_name` in a fresh directory) for `needle` with `flags`; returns
/// the result's bytes and the run's `--stats-json`.
fn reduce_named(
    source: &[u8],
    file_name: &str,
    needle: &str,
    flags: &[&str],
    pythonpath: Option<&Path>,
) -> (Vec<u8>, serde_json::Value) {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join(file_name);
    std::fs::write(&path, source).unwrap();
    let out = dir.path().join("out.py");
    let stats = dir.path().join("stats.json");
    let mut command = python_command(&path, needle, &out);
    command
        .args(["-q", "--python"])
        .arg(python())
        .args(flags)
        .arg("--stats-json")
        .arg(&stats)
        .current_dir(dir.path());
    if let Some(extra) = pythonpath {
        command.env("PYTHONPATH", extra);
    }
    command.assert().success();
    let stats = serde_json::from_str(&std::fs::read_to_string(&stats).unwrap()).unwrap();
    (std::fs::read(&out).unwrap(), stats)
}

/// Reduces `source` for `needle`, then its result again: nothing accepted, the same bytes.
fn assert_fixpoint(source: &Path, needle: &str, flags: &[&str], pythonpath: Option<&Path>) {
    let text = std::fs::read(source).unwrap();
    let file_name = source.file_name().unwrap().to_str().unwrap();
    let (first, _) = reduce_named(&text, file_name, needle, flags, pythonpath);
    let (second, stats) = reduce_named(&first, file_name, needle, flags, pythonpath);
    let name = source.display();
    assert_eq!(stats["accepted"], 0, "{name} {flags:?}: {stats}");
    assert_eq!(
        String::from_utf8_lossy(&second),
        String::from_utf8_lossy(&first),
        "{name} {flags:?}"
    );
}

/// The fidelity fixtures (`tests/fixtures/python/origin`).
fn origin_fixture(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/python/origin")
        .join(name)
}

/// Every example of `examples/python` and the fidelity fixtures the end-to-end tests reduce.
#[test]
fn the_examples_reduce_to_fixpoints() {
    let cases: [(PathBuf, &str, Option<PathBuf>); 9] = [
        (
            example("shape_mismatch.py"),
            "T.gemm K shape check failed",
            None,
        ),
        (example("control_flow.py"), "budget exceeded", None),
        (example("stdout_exit0.py"), "CHECKSUM MISMATCH", None),
        (example("main_guard.py"), "empty input", None),
        (example("fidelity.py"), "needle", None),
        (example("frozen.py"), "frozen failure 42", None),
        (
            example("sibling/main.py"),
            "sibling helper overflow",
            Some(example("sibling")),
        ),
        (origin_fixture("pricing.py"), "KeyError: 'platinum'", None),
        (
            origin_fixture("kernel.py"),
            "K shape check failed",
            Some(origin_fixture("lib")),
        ),
    ];
    for (source, needle, pythonpath) in &cases {
        assert_fixpoint(source, needle, &[], pythonpath.as_deref());
    }
    // Without runtime values the results are larger, with more left for a second run to find.
    for (source, needle, pythonpath) in &cases[..2] {
        let flags = ["--no-value-substitution"];
        assert_fixpoint(source, needle, &flags, pythonpath.as_deref());
    }
}

/// A word in a string that names an attribute used elsewhere (`T.sep`) is a guess of a
/// definition (`namedtuple("P", "sep")` would define it): the filter may try the string's
/// removal late, but the predicate judges it.
#[test]
fn a_string_statement_naming_a_used_attribute_is_removed() {
    let program =
        "import os as T\n\"sep\"\nprint(T.sep.join([\"nee\",\"dle\"]).replace(T.sep,\"\"))\n";
    let flags = ["--no-value-substitution"];
    let (out, stats) = reduce_named(program.as_bytes(), "s.py", "needle", &flags, None);
    let text = String::from_utf8(out).unwrap();
    assert!(!text.contains("\"sep\""), "{text}");
    // As small as the same program with a string that names nothing.
    let other = program.replace("\"sep\"", "\"xyz\"");
    let (plain, _) = reduce_named(other.as_bytes(), "s.py", "needle", &flags, None);
    assert_eq!(text, String::from_utf8(plain).unwrap());
    assert!(stats["size_after"].as_u64().unwrap() <= 30, "{stats}");
    // With runtime values (the default) the printed expression becomes its value: the program
    // is the message.
    let (out, _) = reduce_named(program.as_bytes(), "s.py", "needle", &[], None);
    assert_eq!(String::from_utf8(out).unwrap(), "print('needle')\n");
}
