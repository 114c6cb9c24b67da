//! A predicate that prints 100 MB: memory stays bounded and the needle at the very end is found.
//! Peak RSS is a property of the whole process, so the measurement runs in a process of its own
//! (this test binary again, filtered to the one measuring test), undisturbed by the other tests.

use std::path::Path;

use minrepro_predicate::{CancelFlag, Predicate, Status, OUTPUT_HEAD_LIMIT};

use crate::{config, script};

fn peak_rss_kib() -> u64 {
    let status = std::fs::read_to_string("/proc/self/status").unwrap();
    status
        .lines()
        .find_map(|l| l.strip_prefix("VmHWM:"))
        .and_then(|v| v.split_whitespace().next())
        .and_then(|v| v.parse().ok())
        .unwrap()
}

/// Set in the environment of the process that measures.
const MEASURING: &str = "MINREPRO_TEST_MEASURE_PEAK_RSS";

#[test]
fn hundred_megabytes_of_output_stay_bounded() {
    let output = std::process::Command::new(std::env::current_exe().unwrap())
        .args(["--exact", "huge_output::measured_in_a_process_of_its_own"])
        .args(["--ignored", "--test-threads=1", "--nocapture"])
        .env(MEASURING, "1")
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&output.stdout);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(output.status.success(), "{stdout}{stderr}");
    assert!(
        stdout.contains("1 passed"),
        "the measuring test did not run: {stdout}"
    );
}

#[test]
#[ignore = "run by hundred_megabytes_of_output_stay_bounded in a process of its own"]
fn measured_in_a_process_of_its_own() {
    if std::env::var_os(MEASURING).is_none() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let exe = script(
        dir.path(),
        "loud.sh",
        "head -c 100000000 /dev/zero | tr '\\0' x\necho NEEDLE-AT-END\nexit 0",
    );
    let mut config = config(&exe, &[]);
    config.acceptance.substring = Some("NEEDLE-AT-END".into());
    config.timeout_secs = 120.0;
    let predicate = Predicate::new(config).unwrap();
    let before = peak_rss_kib();
    let outcome = predicate
        .evaluate(Path::new(dir.path()), &|_| None, &CancelFlag::new())
        .unwrap();
    let growth_kib = peak_rss_kib().saturating_sub(before);
    assert_eq!(outcome.status, Status::Interesting);
    assert!(outcome.last_run.stdout.contains_needle);
    assert!(outcome.last_run.stdout.head.ends_with("<truncated>"));
    assert!(outcome.last_run.stdout.head.len() <= OUTPUT_HEAD_LIMIT + 16);
    assert!(outcome.last_run.stdout.tail.ends_with("NEEDLE-AT-END\n"));
    // 100 MB went through; we may hold a few buffers, never the stream.
    assert!(growth_kib < 20 * 1024, "peak RSS grew by {growth_kib} KiB");
}
