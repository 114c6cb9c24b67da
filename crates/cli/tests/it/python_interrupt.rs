//! SIGINT during `minrepro python`: exit 130, the output is absent or a valid earlier candidate,
//! and no temporary directory is left behind.

use std::time::{Duration, Instant};

use crate::support::python::*;
use crate::support::*;

#[test]
fn sigint_stops_cleanly() {
    let dir = tempfile::tempdir().unwrap();
    let tmp = dir.path().join("tmp");
    std::fs::create_dir(&tmp).unwrap();
    let source = dir.path().join("slow.py");
    // Every candidate sleeps (frozen code is never removed), so the reduction takes a while.
    let mut text =
        String::from("import time  # autodd: freeze\ntime.sleep(0.3)  # autodd: freeze\n");
    for i in 0..12 {
        text.push_str(&format!("value_{i} = {i} * 3\n"));
    }
    text.push_str("raise KeyError('slow needle')\n");
    std::fs::write(&source, &text).unwrap();
    let out = dir.path().join("out.py");
    let mut child = std::process::Command::new(binary())
        .arg("python")
        .arg(&source)
        .args(["--err-msg", "slow needle", "-q", "-o"])
        .arg(&out)
        .arg("--python")
        .arg(python())
        .env("TMPDIR", &tmp)
        .spawn()
        .unwrap();
    // Wait until the reduction is under way (a candidate was accepted, or some time passed).
    let start = Instant::now();
    while !out.exists() && start.elapsed() < Duration::from_secs(20) {
        std::thread::sleep(Duration::from_millis(50));
    }
    assert!(send("INT", child.id()));
    let status = child.wait().unwrap();
    assert_eq!(status.code(), Some(130));
    if out.exists() {
        assert!(compiles(&out));
        let run = run_python(&out, None);
        assert!(all_output(&run).contains("slow needle"));
    }
    let left: Vec<_> = std::fs::read_dir(&tmp).unwrap().flatten().collect();
    assert!(left.is_empty(), "left behind: {left:?}");
}
