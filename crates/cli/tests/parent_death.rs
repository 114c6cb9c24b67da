//! When minrepro itself is killed with SIGKILL (no chance to clean up), the predicate it was
//! running dies with it instead of running on unsupervised.

mod bundle_support;

use std::time::{Duration, Instant};

use bundle_support::*;

#[test]
fn the_running_predicate_dies_with_a_killed_minrepro() {
    let area = Area::new();
    let bundle = three_object_bundle(&area.input());
    let pid_file = area.out("predicate.pid");
    // The original is judged quickly; the first candidate's run then becomes a long sleep.
    let predicate = script(
        &area.input(),
        "slow.sh",
        &format!(
            "#!/bin/sh\nif [ -f '{0}' ]; then echo $$ > '{0}.running'; exec sleep 1000; fi\ntouch '{0}'\nexit 0\n",
            pid_file.display()
        ),
    );
    let mut child = std::process::Command::new(env!("CARGO_BIN_EXE_minrepro"))
        .env("TMPDIR", area.tmp())
        .args(["bundle", "-q", "--bundle"])
        .arg(&bundle)
        .arg("--output")
        .arg(area.out("out"))
        .arg("--predicate")
        .arg(&predicate)
        .spawn()
        .unwrap();
    let running = area.out("predicate.pid.running");
    let give_up = Instant::now() + Duration::from_secs(60);
    while !running.exists() && Instant::now() < give_up {
        std::thread::sleep(Duration::from_millis(20));
    }
    let pid: i32 = std::fs::read_to_string(&running)
        .unwrap()
        .trim()
        .parse()
        .unwrap();
    child.kill().unwrap();
    child.wait().unwrap();
    let give_up = Instant::now() + Duration::from_secs(10);
    let alive = |pid: i32| {
        let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).unwrap_or_default();
        !stat.is_empty() && !stat.contains(") Z ")
    };
    while alive(pid) && Instant::now() < give_up {
        std::thread::sleep(Duration::from_millis(20));
    }
    assert!(!alive(pid), "predicate {pid} outlived a SIGKILLed minrepro");
}
