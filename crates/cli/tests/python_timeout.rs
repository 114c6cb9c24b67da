//! `--timeout-factor`: candidates that hang are cut at a multiple of the original's run time
//! instead of the full `--timeout`.

mod python_support;

use std::time::Duration;

use python_support::*;

/// The loop needs its increment, made by a helper function (statement removal does not offer
/// what visibly advances a `while` loop, but a call elsewhere is not recognised): removing the
/// call or the helper's body spins forever. The message needs all three iterations, so the
/// loop itself cannot go.
const SPIN: &str = "\
state = {\"n\": 0}
def advance():
    state[\"n\"] += 1
total = 0
while state[\"n\"] < 3:
    total += state[\"n\"]
    advance()
print(\"needle %d\" % total)
";

/// A private directory with `spin.py` (SPIN) and the path of the output.
fn spin_case() -> (tempfile::TempDir, std::path::PathBuf, std::path::PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let source = dir.path().join("spin.py");
    std::fs::write(&source, SPIN).unwrap();
    let out = dir.path().join("out.py");
    (dir, source, out)
}

#[test]
fn hanging_candidates_are_cut_at_the_adaptive_limit() {
    let (dir, source, out) = spin_case();
    let stats = dir.path().join("stats.json");
    // With --timeout 3600 alone, the first hanging candidate would outlive the watchdog.
    let assert = python_command(&source, "needle 3", &out)
        .arg("--python")
        .arg(python())
        .args(["--timeout", "3600", "--timeout-factor", "2", "--stats-json"])
        .arg(&stats)
        .timeout(Duration::from_secs(600))
        .assert()
        .success();
    let stderr = String::from_utf8_lossy(&assert.get_output().stderr).into_owned();
    assert!(
        stderr.contains("candidates time out after 1.000 s (--timeout-factor 2)"),
        "{stderr}"
    );
    let stats: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&stats).unwrap()).unwrap();
    assert!(stats["timeouts"].as_u64().unwrap() >= 1, "{stats}");
    assert!(stats["complete"].as_bool().unwrap(), "{stats}");
    let run = run_python(&out, None);
    assert!(all_output(&run).contains("needle 3"));
}

#[test]
fn timeout_factor_below_one_is_refused() {
    let (_dir, source, out) = spin_case();
    for bad in ["0", "0.5", "-1", "nan", "inf"] {
        let stderr = stderr_of(
            python_command(&source, "needle 3", &out).args(["--timeout-factor", bad]),
            2,
        );
        assert!(
            stderr.contains("--timeout-factor must be a finite number of at least 1"),
            "{bad}: {stderr}"
        );
        assert!(!out.exists());
    }
}
