//! When minrepro itself is killed with SIGKILL (no chance to clean up), nothing of it survives:
//! the predicate it was running dies with it (PR_SET_PDEATHSIG), and its guardian process kills
//! the predicate's descendants (in the predicate's group, `setsid` daemons, double-forked
//! daemons) and removes the temporary directory. Survivors are looked for by a marker variable
//! unique to the test (inherited by minrepro, its guardian and every descendant) and by the pids
//! the predicate's processes recorded.

use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use crate::support::bundle::*;
use crate::support::procs::*;
use crate::support::python::staged_flags;
use crate::support::*;

const MARKER_VAR: &str = "MINREPRO_TEST_MARKER";

#[test]
fn the_running_predicate_dies_with_a_killed_minrepro() {
    let (area, bundle) = bundle_area();
    let pid_file = area.out("predicate.pid");
    // The original is judged quickly; the first candidate's run then becomes a long sleep.
    let predicate = area.script(
        "slow.sh",
        &format!(
            "#!/bin/sh\nif [ -f '{0}' ]; then echo $$ > '{0}.running'; exec sleep 1000; fi\ntouch '{0}'\nexit 0\n",
            pid_file.display()
        ),
    );
    let (mut command, _) = marked_bundle(&area, "killed", &bundle, &predicate);
    let mut child = command.spawn().unwrap();
    let running = area.out("predicate.pid.running");
    wait_for(60, || running.exists());
    let pid: i32 = std::fs::read_to_string(&running)
        .unwrap()
        .trim()
        .parse()
        .unwrap();
    child.kill().unwrap();
    child.wait().unwrap();
    wait_for(10, || alive_pids(&running).is_empty());
    assert!(
        alive_pids(&running).is_empty(),
        "predicate {pid} outlived a SIGKILLed minrepro"
    );
}

/// A shell script that leaves (a) a background child in its process group, (b) a `setsid`
/// daemon in its own session holding stdout and (c) a double-forked `setsid` daemon whose parent
/// exits at once; each records its pid in `pids`.
fn descendants_script(dir: &Path, pids: &Path) -> std::path::PathBuf {
    let pids = pids.display();
    script(
        dir,
        "descendants.sh",
        &format!(
            "#!/bin/sh\n\
             sleep 1000 &\necho $! >> '{pids}'\n\
             setsid sh -c \"echo \\$\\$ >> '{pids}'; exec sleep 1000\" &\n\
             ( setsid sh -c \"echo \\$\\$ >> '{pids}'; exec sleep 1000\" </dev/null >/dev/null 2>&1 & )\n"
        ),
    )
}

/// A unique marker for one test case, and its environment entry.
fn marker(tag: &str, area_root: &Path) -> (String, String) {
    let value = format!("{tag}-{}-{}", std::process::id(), area_root.display());
    let entry = format!("{MARKER_VAR}={value}");
    (value, entry)
}

/// `minrepro bundle` reducing `bundle` into `out` with `predicate`, its output discarded, under
/// the marker for `tag`; returns the command and the marker's environment entry.
fn marked_bundle(area: &Area, tag: &str, bundle: &Path, predicate: &Path) -> (Command, String) {
    let (value, entry) = marker(tag, area.root.path());
    let mut command = binary_command();
    command
        .env("TMPDIR", area.tmp())
        .env(MARKER_VAR, &value)
        .args(["bundle", "-q"])
        .args(reduce_args(bundle, &area.out("out"), predicate))
        .stdout(Stdio::null())
        .stderr(Stdio::null());
    (command, entry)
}

fn count_lines(file: &Path) -> usize {
    std::fs::read_to_string(file)
        .unwrap_or_default()
        .lines()
        .count()
}

/// Waits until `running` exists and `pids` lists at least `expected` pids, then checks that the
/// marked processes include a guardian.
fn wait_for_descendants(running: &Path, pids: &Path, expected: usize, marker_entry: &str) {
    wait_for(90, || running.exists() && count_lines(pids) >= expected);
    assert!(
        running.exists() && count_lines(pids) >= expected,
        "the predicate did not start its descendants"
    );
    let marked = processes_with_env(marker_entry);
    assert!(
        marked.iter().any(|p| p.contains("minrepro-guardian")),
        "no guardian runs: {marked:?}"
    );
}

/// SIGKILLs `child`, then waits (bounded) until no marked process and no recorded pid is alive
/// and `tmp` is empty; on failure kills the leftovers and panics.
fn kill_and_expect_nothing_left(
    label: &str,
    mut child: Child,
    marker_entry: &str,
    pids: &Path,
    tmp: &Path,
) {
    child.kill().unwrap();
    child.wait().unwrap();
    let left_in_tmp = || -> Vec<_> {
        std::fs::read_dir(tmp)
            .unwrap()
            .flatten()
            .map(|e| e.file_name())
            .collect()
    };
    let give_up = Instant::now() + Duration::from_secs(20);
    loop {
        let marked = processes_with_env(marker_entry);
        let recorded = alive_pids(pids);
        let files = left_in_tmp();
        if marked.is_empty() && recorded.is_empty() && files.is_empty() {
            return;
        }
        if Instant::now() > give_up {
            for pid in marked
                .iter()
                .filter_map(|p| p.split(':').next())
                .chain(recorded.iter().map(String::as_str))
                .filter_map(|p| p.parse::<i32>().ok())
            {
                // SAFETY: kill(2) of a process this test started (found by its marker or pid).
                unsafe {
                    libc::kill(pid, libc::SIGKILL);
                }
            }
            panic!(
                "{label}: left by a SIGKILLed minrepro: processes {marked:?}, recorded pids \
                 {recorded:?}, in TMPDIR {files:?}"
            );
        }
        std::thread::sleep(Duration::from_millis(50));
    }
}

#[test]
fn a_sigkilled_bundle_reduction_leaves_no_descendant_and_no_temporary_directory() {
    let (area, bundle) = bundle_area();
    let before = tree(&area.input());
    let pids = area.out("pids");
    let running = area.out("running");
    let descendants = descendants_script(area.root.path(), &pids);
    let judged = area.out("judged");
    // The original is judged quickly; the next run starts the descendants and sleeps.
    let predicate = script(
        area.root.path(),
        "hostile.sh",
        &format!(
            "#!/bin/sh\nif [ -f '{judged}' ]; then '{descendants}'; echo $$ >> '{pids}'; touch '{running}'; exec sleep 1000; fi\ntouch '{judged}'\nexit 0\n",
            judged = judged.display(),
            descendants = descendants.display(),
            pids = pids.display(),
            running = running.display(),
        ),
    );
    let (mut command, entry) = marked_bundle(&area, "bundle", &bundle, &predicate);
    let child = command.spawn().unwrap();
    wait_for_descendants(&running, &pids, 4, &entry);
    kill_and_expect_nothing_left("bundle", child, &entry, &pids, &area.tmp());
    assert_eq!(tree(&area.input()), before, "the input changed");
    assert!(!area.out("out").exists());
}

#[test]
fn a_sigkilled_python_reduction_leaves_no_descendant_and_no_temporary_directory() {
    for backend in ["subproc", "runner"] {
        let area = Area::new();
        let pids = area.input().join("pids");
        let running = area.input().join("running");
        let descendants = descendants_script(area.root.path(), &pids);
        // Runs 1 and 2 judge the original; run 3 starts the descendants and sleeps.
        let body = format!(
            "subprocess.run(['sh', {descendants:?}])\n\
             open(PIDS, 'a').write('%d\\n' % os.getpid())\n\
             open({running:?}, 'w').close()\n\
             time.sleep(1000)",
            descendants = descendants.display().to_string(),
            running = running.display().to_string(),
        );
        let (source, text) = area.stage("victim.py", &body, "_n >= 3");
        let (value, entry) = marker(backend, area.root.path());
        let child = area
            .python_cmd(&source, &staged_flags(backend, "600"))
            .env(MARKER_VAR, &value)
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        wait_for_descendants(&running, &pids, 4, &entry);
        kill_and_expect_nothing_left(backend, child, &entry, &pids, &area.tmp());
        assert_eq!(
            std::fs::read_to_string(&source).unwrap(),
            text,
            "{backend}: the input changed"
        );
    }
}

#[test]
fn no_guardian_remains_after_a_normal_run() {
    let (area, bundle) = bundle_area();
    let predicate = exiting(area.root.path(), 0);
    let (mut command, entry) = marked_bundle(&area, "normal", &bundle, &predicate);
    let status = command.status().unwrap();
    assert!(status.success());
    wait_for(20, || processes_with_env(&entry).is_empty());
    assert_eq!(processes_with_env(&entry), Vec::<String>::new());
    assert!(area.tmp_is_empty());
}
