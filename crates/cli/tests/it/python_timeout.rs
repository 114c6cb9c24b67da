//! `--timeout-factor` (on by default, factor 10): candidates that hang are cut at a multiple of
//! the original's run time instead of the full `--timeout`, and the summary and `--stats-json`
//! report them.

use std::time::Duration;

use crate::support::python::*;

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

/// What a successful reduction printed and counted.
struct Reduced {
    stdout: String,
    stderr: String,
    stats: serde_json::Value,
    /// The result's text.
    text: String,
}

/// Reduces `program` to `needle` with the real interpreter and `flags` (plus --stats-json),
/// checks that the result still prints the needle, and returns the run's output and counters.
fn reduce(program: &str, needle: &str, flags: &[&str]) -> Reduced {
    let (dir, source, out) = spin_case();
    std::fs::write(&source, program).unwrap();
    let stats_path = dir.path().join("stats.json");
    let assert = python_command(&source, needle, &out)
        .arg("--python")
        .arg(python())
        .args(flags)
        .arg("--stats-json")
        .arg(&stats_path)
        .timeout(Duration::from_secs(900))
        .assert()
        .success();
    let output = assert.get_output();
    let stats = serde_json::from_str(&std::fs::read_to_string(&stats_path).unwrap()).unwrap();
    assert!(all_output(&run_python(&out, None)).contains(needle));
    Reduced {
        stdout: String::from_utf8_lossy(&output.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&output.stderr).into_owned(),
        stats,
        text: std::fs::read_to_string(&out).unwrap(),
    }
}

#[test]
fn hanging_candidates_are_cut_at_the_adaptive_limit() {
    // With --timeout 3600 alone, the first hanging candidate would outlive the watchdog.
    let flags = ["--timeout", "3600", "--timeout-factor", "2"];
    let run = reduce(SPIN, "needle 3", &flags);
    assert!(
        run.stderr
            .contains("candidates time out after 1.000 s (--timeout-factor 2;"),
        "{}",
        run.stderr
    );
    let stats = &run.stats;
    assert!(stats["timeouts"].as_u64().unwrap() >= 1, "{stats}");
    assert!(stats["complete"].as_bool().unwrap(), "{stats}");
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
            stderr.contains("--timeout-factor must be a finite number of at least 1, or `off`"),
            "{bad}: {stderr}"
        );
        assert!(!out.exists());
    }
}

/// A `while True` loop whose only exit depends on a removable statement: the helper call that
/// advances the counter (the `break` itself is never offered for removal, the call is). Removing
/// the call, or the helper's body, leaves the loop spinning.
const SPIN_FOREVER: &str = "\
state = {\"n\": 0}
def advance():
    state[\"n\"] += 1
total = 0
while True:
    total += state[\"n\"]
    if state[\"n\"] >= 3:
        break
    advance()
print(\"needle %d\" % total)
";

#[test]
fn hanging_candidates_are_cut_by_default_and_reported() {
    // Default settings: --timeout 60, adaptive limit on; no second chance (on a loaded
    // machine `auto` would re-judge them).
    let run = reduce(SPIN_FOREVER, "needle 6", &["--rejudge-timeouts", "never"]);
    assert!(
        run.stderr.contains("(--timeout-factor 10;"),
        "{}",
        run.stderr
    );
    let stats = &run.stats;
    let timeouts = stats["timeouts"].as_u64().unwrap();
    let limit = stats["run_limit_seconds"].as_f64().unwrap();
    assert!(timeouts >= 1, "{stats}");
    // The limit adapted to the original (a few milliseconds, more on a loaded machine): the 1 s
    // floor or ten times the original's time, far below --timeout 60.
    assert!((1.0..10.0).contains(&limit), "{stats}");
    assert_eq!(
        stats["timeout_seconds"].as_f64().unwrap(),
        (timeouts as f64 * limit * 1000.0).round() / 1000.0,
        "{stats}"
    );
    let plural = if timeouts == 1 { "" } else { "s" };
    let note = format!("; {timeouts} candidate{plural} timed out at {limit:.3} s, ");
    assert!(run.stdout.contains(&note), "{}", run.stdout);
}

#[test]
fn timeout_factor_off_waits_the_full_timeout() {
    let flags = ["--timeout", "2", "--timeout-factor", "off"];
    let run = reduce(SPIN_FOREVER, "needle 6", &flags);
    assert!(
        !run.stderr.contains("candidates time out after"),
        "{}",
        run.stderr
    );
    let stats = &run.stats;
    assert_eq!(stats["run_limit_seconds"].as_f64().unwrap(), 2.0, "{stats}");
    let timeouts = stats["timeouts"].as_u64().unwrap();
    assert!(timeouts >= 1, "{stats}");
    assert_eq!(
        stats["timeout_seconds"].as_f64().unwrap(),
        timeouts as f64 * 2.0
    );
}

/// `pad = 0` may go, but each new candidate without it is slow the first time it runs (it
/// sleeps 5 s, past the adaptive limit of 1 s; the check is frozen, so it stays).
const SLOW_ONCE: &str = "\
# autodd: freeze-start
import hashlib, os, time
source = open(__file__, \"rb\").read()
marks = os.environ.get(\"MARKS\")
if marks and source.count(b\"pad\" + b\" = 0\") == 0:
    mark = os.path.join(marks, hashlib.sha256(source).hexdigest())
    if not os.path.exists(mark):
        open(mark, \"w\").close()
        time.sleep(5)
# autodd: end-freeze
pad = 0
print(\"needle\")
";

#[test]
fn a_candidate_slow_once_is_re_judged_at_the_full_timeout_and_accepted() {
    let marks = tempfile::tempdir().unwrap();
    let env = format!("MARKS={}", marks.path().display());
    let base = ["--timeout", "30", "--timeout-factor", "1", "--env", &env];
    let always = [&base[..], &["--rejudge-timeouts", "always"]].concat();
    let run = reduce(SLOW_ONCE, "needle", &always);
    let stats = &run.stats;
    assert!(stats["rejudged_timeouts"].as_u64().unwrap() >= 1, "{stats}");
    assert!(
        stats["rejudged_interesting"].as_u64().unwrap() >= 1,
        "{stats}"
    );
    assert!(
        run.stdout.contains("re-judged at up to 30.000 s: "),
        "{}",
        run.stdout
    );
    assert!(!run.text.contains("pad = 0"), "{}", run.text);
    // Without a second chance a slow candidate is rejected (it goes only when proposed again:
    // timeouts are never cached).
    let marks = tempfile::tempdir().unwrap();
    let env = format!("MARKS={}", marks.path().display());
    let never = [
        "--timeout",
        "30",
        "--timeout-factor",
        "1",
        "--env",
        &env,
        "--rejudge-timeouts",
        "never",
    ];
    let run = reduce(SLOW_ONCE, "needle", &never);
    assert_eq!(run.stats["rejudged_timeouts"], 0, "{}", run.stats);
    assert!(
        run.stats["timeouts"].as_u64().unwrap() >= 1,
        "{}",
        run.stats
    );
    assert!(!run.stdout.contains("re-judged"), "{}", run.stdout);
}
