//! `--timeout-factor`: candidates that hang are stopped at the adaptive limit, not at
//! --timeout (checked through --stats-json, not through wall-clock time).

mod python_support;

use python_support::*;

/// A program whose candidates mostly hang: the loop ends only through the exit, after the
/// print, once the counter reaches 3.
const HANGS: &str = "\
import os

n = 0
while True:
    n += 1
    if n == 3:
        print(\"needle\", flush=True)
        os._exit(0)
";

/// Reduces [`HANGS`] with `extra` arguments; returns the --stats-json value and the output.
fn reduce_hanging(extra: &[&str]) -> (serde_json::Value, String) {
    let dir = tempfile::tempdir().unwrap();
    let source = dir.path().join("hangs.py");
    std::fs::write(&source, HANGS).unwrap();
    let stats = dir.path().join("stats.json");
    let out = dir.path().join("out.py");
    minrepro()
        .arg("python")
        .arg(&source)
        .arg("-o")
        .arg(&out)
        .arg("--python")
        .arg(python())
        .args(["--err-msg", "needle", "-q", "--stats-json"])
        .arg(&stats)
        .args(extra)
        .assert()
        .success();
    let value = serde_json::from_slice(&std::fs::read(&stats).unwrap()).unwrap();
    (value, std::fs::read_to_string(&out).unwrap())
}

#[test]
fn hanging_candidates_stop_at_the_adaptive_limit() {
    let (value, out) = reduce_hanging(&["--timeout", "10", "--timeout-factor", "1"]);
    // The predicate's limit: max(1 x the original's run time, 0.5 s), below --timeout.
    let limit = value["candidate_timeout_seconds"].as_f64().unwrap();
    assert!((0.5..10.0).contains(&limit), "{value}");
    let timed_out = value["timed_out_candidates"].as_u64().unwrap();
    assert!(timed_out >= 1, "no candidate hung: {value}");
    assert_eq!(out.trim(), "print(\"needle\")", "{out}");
    let again = reduce_hanging(&["--timeout", "10", "--timeout-factor", "1"]).1;
    assert_eq!(again, out, "the same result every time");
}

#[test]
fn without_the_factor_candidates_get_the_whole_timeout() {
    // Each hanging candidate takes the whole --timeout here: keep it short.
    let (value, _) = reduce_hanging(&["--timeout", "1"]);
    assert_eq!(
        value["candidate_timeout_seconds"].as_f64(),
        Some(1.0),
        "{value}"
    );
    assert!(
        value["timed_out_candidates"].as_u64().unwrap() >= 1,
        "{value}"
    );
}

#[test]
fn a_factor_below_one_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let source = dir.path().join("hangs.py");
    std::fs::write(&source, HANGS).unwrap();
    minrepro()
        .arg("python")
        .arg(&source)
        .arg("-o")
        .arg(dir.path().join("out.py"))
        .args(["--err-msg", "needle", "--timeout-factor", "0.5"])
        .assert()
        .code(2);
}
