//! A predicate that prints 100 MB: memory stays bounded and the needle at the very end is found.
//! (Its own test binary, so the peak-RSS reading is not disturbed by other tests.)

use std::path::Path;

use minrepro_predicate::{
    Acceptance, CancelFlag, Predicate, PredicateConfig, Status, OUTPUT_HEAD_LIMIT,
};

fn peak_rss_kib() -> u64 {
    let status = std::fs::read_to_string("/proc/self/status").unwrap();
    status
        .lines()
        .find_map(|l| l.strip_prefix("VmHWM:"))
        .and_then(|v| v.split_whitespace().next())
        .and_then(|v| v.parse().ok())
        .unwrap()
}

#[test]
fn hundred_megabytes_of_output_stay_bounded() {
    let dir = tempfile::tempdir().unwrap();
    let exe = dir.path().join("loud.sh");
    std::fs::write(
        &exe,
        "#!/bin/sh\nhead -c 100000000 /dev/zero | tr '\\0' x\necho NEEDLE-AT-END\nexit 0\n",
    )
    .unwrap();
    std::os::unix::fs::PermissionsExt::set_mode(
        &mut std::fs::metadata(&exe).unwrap().permissions(),
        0o755,
    );
    std::fs::set_permissions(&exe, std::os::unix::fs::PermissionsExt::from_mode(0o755)).unwrap();
    let config = PredicateConfig {
        executable: exe.to_string_lossy().into_owned(),
        args: Vec::new(),
        placeholders: Vec::new(),
        acceptance: Acceptance {
            exit_code: Some(0),
            substring: Some("NEEDLE-AT-END".into()),
            output_check: None,
        },
        runs: 1,
        timeout_secs: 120.0,
        cache_tags: Vec::new(),
        cache_dependencies: Vec::new(),
        env: Vec::new(),
    };
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
