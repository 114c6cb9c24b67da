//! SIGKILL of `minrepro python` itself (no chance to clean up) while the runner backend runs a
//! candidate: the helper interpreter sees its protocol pipe close, kills the candidate's process
//! group and every process tagged with minrepro's run tag, and exits; the forked candidate also
//! dies with the helper (PR_SET_PDEATHSIG). Survivors are looked for by a marker variable unique
//! to the test case (inherited by minrepro, its helpers and every descendant), by minrepro's run
//! tag, and by the pids the candidate recorded (its own, its helper's, its children's).

use std::path::Path;
use std::time::{Duration, Instant};

use crate::support::procs::*;
use crate::support::python::*;
use crate::support::*;

const MARKER_VAR: &str = "MINREPRO_TEST_MARKER";

/// Every candidate (run 3 on) starts a child in its own group, a `setsid` child, and a forked
/// `setsid` daemon without exec, records all pids and its helper's, signals that it is running,
/// then does `body` forever.
fn hostile(body: &str) -> String {
    let record = "open(PIDS, 'a').write('%d\\n' % ";
    format!(
        "p = subprocess.Popen(['sleep', '1000'])\n{record}p.pid)\n\
         q = subprocess.Popen(['sleep', '1000'], start_new_session=True)\n{record}q.pid)\n\
         if os.fork() == 0:\n    os.setsid()\n    {record}os.getpid())\n    time.sleep(1000)\n    os._exit(0)\n\
         {record}os.getpid())\n{record}os.getppid())\n\
         open(os.path.join(os.path.dirname(PIDS), 'running'), 'a').write('%d %d\\n' % (os.getpid(), os.getppid()))\n{body}"
    )
}

/// Kills whatever the test left (only after a failure) so that it does not outlive the test.
fn kill_leftovers(marker: &str, pids_file: &Path) {
    let leftovers = processes_with_env(marker);
    let recorded = alive_pids(pids_file);
    for pid in leftovers
        .iter()
        .filter_map(|p| p.split(':').next())
        .chain(recorded.iter().map(String::as_str))
    {
        if let Ok(pid) = pid.parse::<i32>() {
            signal(pid, libc::SIGKILL);
        }
    }
}

/// Starts minrepro on a hostile program with the runner backend and `-j jobs`; returns once a
/// candidate is running (minrepro's child handle, and the marker variable's environment entry).
fn start_victim(area: &Area, body: &str, jobs: &str) -> (std::process::Child, String) {
    let (source, _) = area.stage("victim.py", &hostile(body), "_n >= 3");
    let marker = format!(
        "sigkill-{}-{}",
        std::process::id(),
        area.root.path().display()
    );
    let flags = [&staged_flags("runner", "600")[..], &["-j", jobs]].concat();
    let child = area
        .python_cmd(&source, &flags)
        .env(MARKER_VAR, &marker)
        .spawn()
        .unwrap();
    let running = area.input().join("running");
    wait_for(60, || running.exists());
    assert!(running.exists(), "no candidate started");
    // Let the candidate (and with -j 2 possibly a second one) settle into its loop.
    std::thread::sleep(Duration::from_millis(300));
    let marker_entry = format!("{MARKER_VAR}={marker}");
    assert!(
        !processes_with_env(&marker_entry).is_empty(),
        "the marker does not find the running processes"
    );
    (child, marker_entry)
}

/// The pids the first candidate recorded in `running`: its own and its helper's.
fn candidate_and_helper(area: &Area) -> (i32, i32) {
    let text = std::fs::read_to_string(area.input().join("running")).unwrap();
    let pids: Vec<i32> = text
        .split_whitespace()
        .map(|p| p.parse().unwrap())
        .collect();
    (pids[0], pids[1])
}

fn signal(pid: i32, signal: i32) {
    // SAFETY: plain kill(2) of a process this test started.
    unsafe {
        libc::kill(pid, signal);
    }
}

#[test]
fn a_sigkilled_minrepro_leaves_no_runner_helper_or_candidate() {
    let cases = [
        ("sleeping, -j 1", "time.sleep(1000)", "1"),
        ("spinning, -j 2", "while True:\n    pass", "2"),
    ];
    for (label, body, jobs) in cases {
        let area = Area::new();
        let (mut child, marker_entry) = start_victim(&area, body, jobs);
        let pid = child.id();
        let pids_file = area.input().join("pids");
        child.kill().unwrap();
        child.wait().unwrap();
        let give_up = Instant::now() + Duration::from_secs(20);
        loop {
            let marked = processes_with_env(&marker_entry);
            let tagged = survivors_of(pid);
            let recorded = alive_pids(&pids_file);
            if marked.is_empty() && tagged.is_empty() && recorded.is_empty() {
                break;
            }
            if Instant::now() > give_up {
                kill_leftovers(&marker_entry, &pids_file);
                panic!(
                    "{label}: survivors of a SIGKILLed minrepro: marked {marked:?}, tagged \
                     {tagged:?}, recorded {recorded:?}"
                );
            }
            std::thread::sleep(Duration::from_millis(50));
        }
        // A child, a setsid child, a forked daemon, the candidate and its helper.
        let recorded = std::fs::read_to_string(&pids_file).unwrap();
        assert!(
            recorded.lines().count() >= 5,
            "{label}: the candidate recorded too few pids: {recorded}"
        );
    }
}

#[test]
fn a_forked_candidate_dies_with_its_helper() {
    // minrepro is stopped (it cannot react) and the helper SIGKILLed (it cannot clean up): only
    // the candidate's own PR_SET_PDEATHSIG can end it. Its descendants in other process groups
    // are out of reach of that signal; they are cleaned up by the test.
    let area = Area::new();
    let (mut child, marker_entry) = start_victim(&area, "time.sleep(1000)", "1");
    let pids_file = area.input().join("pids");
    let (candidate, helper) = candidate_and_helper(&area);
    signal(child.id() as i32, libc::SIGSTOP);
    signal(helper, libc::SIGKILL);
    let give_up = Instant::now() + Duration::from_secs(20);
    let alive = |pid: i32| !is_zombie(&pid.to_string());
    while alive(candidate) && Instant::now() < give_up {
        std::thread::sleep(Duration::from_millis(20));
    }
    let survived = alive(candidate);
    child.kill().unwrap();
    child.wait().unwrap();
    kill_leftovers(&marker_entry, &pids_file);
    assert!(
        !survived,
        "candidate {candidate} outlived its SIGKILLed helper"
    );
}
