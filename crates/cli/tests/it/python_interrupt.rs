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
    // Every run of the program (the original's, value recordings, candidates) appends a byte to
    // `runs` and sleeps (frozen code is never removed), so the reduction takes a while and the
    // test can tell when it is under way.
    let runs = dir.path().join("runs");
    let mut text = format!(
        "import time  # autodd: freeze\n\
         open({:?}, 'a').write('x')  # autodd: freeze\n\
         time.sleep(0.3)  # autodd: freeze\n",
        runs.to_str().unwrap()
    );
    for i in 0..12 {
        text.push_str(&format!("value_{i} = {i} * 3\n"));
    }
    text.push_str("raise KeyError('slow needle')\n");
    std::fs::write(&source, &text).unwrap();
    let out = dir.path().join("out.py");
    let mut child = binary_command()
        .arg("python")
        .arg(&source)
        .args(["--err-msg", "slow needle", "-q", "-o"])
        .arg(&out)
        .arg("--python")
        .arg(python())
        .env("TMPDIR", &tmp)
        .spawn()
        .unwrap();
    // Interrupt once four runs have started: the reduction needs about a dozen, so it is
    // surely unfinished however slowly the machine runs it (a wait for the output file was
    // not: on a loaded machine the reduction could finish between the first write and the
    // signal). The time bound only keeps a broken build from hanging the test.
    let started = || std::fs::metadata(&runs).map_or(0, |m| m.len());
    let start = Instant::now();
    while started() < 4 && start.elapsed() < Duration::from_secs(120) {
        std::thread::sleep(Duration::from_millis(20));
    }
    assert!(started() >= 4, "the reduction never got under way");
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
