//! `--launcher slurm` against a real single-node Slurm (see `slurm_support`): reductions through
//! `srun` give the local results byte for byte, and a timeout, SIGINT or SIGKILL of minrepro
//! leaves no job in `squeue` and no process behind. One test function owns the cluster (its
//! ports are fixed) and runs the scenarios in turn; without root or Slurm it is skipped with the
//! reason printed.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use crate::support::bundle::*;
use crate::support::procs::*;
use crate::support::slurm::{wait_until, Cluster};
use crate::support::*;

/// `minrepro bundle` on the three-object bundle with `predicate {bundle}` through Slurm.
fn slurm_bundle(area: &Area, cluster: &Cluster, out: &Path, predicate: &Path) -> Command {
    let work = area.root.path().join("work");
    std::fs::create_dir_all(&work).unwrap();
    let bundle = three_object_bundle(&area.input());
    let mut command = binary_command();
    command
        .env("TMPDIR", area.tmp())
        .env("SLURM_CONF", cluster.conf())
        .args(["bundle", "-q", "--launcher", "slurm", "--work-dir"])
        .arg(&work)
        .args(reduce_args(&bundle, out, predicate))
        .args(["--predicate-arg", "{bundle}", "-j", "2"])
        .stdin(Stdio::null());
    command
}

/// Waits until nothing of minrepro `pid` is left: no job, no tagged process, no recorded
/// predicate process, nothing in the work directory or TMPDIR.
fn assert_all_gone(cluster: &Cluster, area: &Area, pid: u32, pids: &Path, after: &str) {
    cluster.assert_no_jobs(after);
    wait_until(&format!("no process left after {after}"), || {
        let left = [survivors_of(pid), alive_pids(pids)].concat();
        left.is_empty().then_some(()).ok_or(format!("{left:?}"))
    });
    for dir in [area.root.path().join("work"), area.tmp()] {
        wait_until(&format!("{} empty after {after}", dir.display()), || {
            let left: Vec<_> = std::fs::read_dir(&dir).unwrap().flatten().collect();
            left.is_empty().then_some(()).ok_or(format!("{left:?}"))
        });
    }
}

fn bundle_results_equal_local_ones(cluster: &Cluster) {
    let area = Area::new();
    let predicate = gamma_predicate(&area.input());
    let local = area.out("local");
    let bundle = three_object_bundle(&area.input());
    area.reduce_cmd(&bundle, &local, &predicate)
        .args(["--predicate-arg", "{bundle}", "-j", "2"])
        .assert()
        .success();
    let remote = area.out("slurm");
    let output = slurm_bundle(&area, cluster, &remote, &predicate)
        .output()
        .unwrap();
    assert!(output.status.success(), "{output:?}");
    assert_eq!(tree(&local), tree(&remote), "srun changed the result");
    cluster.assert_no_jobs("a bundle reduction");
}

fn python_results_equal_local_ones(cluster: &Cluster) {
    let area = Area::new();
    let source =
        Path::new(env!("CARGO_MANIFEST_DIR")).join("../../examples/python/shape_mismatch.py");
    let work = area.root.path().join("work");
    std::fs::create_dir_all(&work).unwrap();
    let run = |out: &Path, extra: &[&str]| {
        let output = binary_command()
            .env("TMPDIR", area.tmp())
            .env("SLURM_CONF", cluster.conf())
            .arg("python")
            .arg(&source)
            .args(["--err-msg", "T.gemm K shape check failed", "-j", "2", "-o"])
            .arg(out)
            .args(extra)
            .output()
            .unwrap();
        assert!(output.status.success(), "{output:?}");
        String::from_utf8_lossy(&output.stderr).into_owned()
    };
    let local = area.out("local.py");
    // Value substitution's instrumented run is local, so it is off under a remote launcher:
    // the local run goes without it too, to compare like with like.
    run(&local, &["--backend", "subproc", "--no-value-substitution"]);
    let remote = area.out("slurm.py");
    let work_text = work.to_str().unwrap();
    let stderr = run(&remote, &["--launcher", "slurm", "--work-dir", work_text]);
    assert!(
        stderr.contains("note: --launcher slurm runs every candidate as a fresh interpreter"),
        "the runner backend falls back with a notice: {stderr}"
    );
    assert!(
        stderr.contains("runtime-value substitution is off under a remote --launcher"),
        "{stderr}"
    );
    assert_eq!(
        std::fs::read(&local).unwrap(),
        std::fs::read(&remote).unwrap()
    );
    cluster.assert_no_jobs("a python reduction");
}

/// `--launcher-arg` reaches `srun`: a partition that does not exist makes the probe step before
/// the first run fail, and the error quotes `srun`'s own message.
fn launcher_args_reach_srun(cluster: &Cluster) {
    let area = Area::new();
    let predicate = gamma_predicate(&area.input());
    let output = slurm_bundle(&area, cluster, &area.out("out"), &predicate)
        .arg("--launcher-arg=--partition=nosuchpartition")
        .output()
        .unwrap();
    let stderr = assert_fails(&output, 1, "a probe step");
    assert!(stderr.contains("Invalid partition"), "{stderr}");
    cluster.assert_no_jobs("a failed step");
}

/// A predicate that records its pid in `pids` and, when `hang_if` holds (a shell test on the
/// bundle `$1`), sleeps (with a background child) instead of judging the candidate.
fn hanging_predicate(dir: &Path, pids: &Path, hang_if: &str) -> PathBuf {
    let gamma = gamma_predicate(dir);
    script(
        dir,
        "hang.sh",
        &format!(
            "#!/bin/sh\necho $$ >> '{pids}'\nif {hang_if}; then\n  sleep 1000 &\n  echo $! >> '{pids}'\n  wait\nfi\nexec '{gamma}' \"$1\"\n",
            pids = pids.display(),
            gamma = gamma.display()
        ),
    )
}

fn a_hanging_step_is_killed_at_the_timeout(cluster: &Cluster) {
    let area = Area::new();
    let pids = area.root.path().join("pids");
    // Candidates whose metadata lost kernel gamma hang (they would be uninteresting anyway).
    let dir = area.input();
    let lost_gamma = "! grep -q '\"gamma\"' \"$(dirname \"$1\")/metadata.json\"";
    let predicate = hanging_predicate(&dir, &pids, lost_gamma);
    let out = area.out("out");
    let output = slurm_bundle(&area, cluster, &out, &predicate)
        .args(["--timeout", "2"])
        .output()
        .unwrap();
    assert!(output.status.success(), "{output:?}");
    let log = log(&out);
    let timeouts = log["transformations"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|t| t["predicate"]["status"] == "timeout")
        .count();
    assert!(timeouts > 0, "no candidate hung: {log}");
    assert_all_gone(cluster, &area, u32::MAX, &pids, "timeouts");
}

/// Starts a reduction whose every run hangs, waits until a step runs, sends `signal` to
/// minrepro and checks that everything is cleaned up.
fn signal_mid_run(cluster: &Cluster, signal: i32, expected_code: Option<i32>) {
    let area = Area::new();
    let pids = area.root.path().join("pids");
    let predicate = hanging_predicate(&area.input(), &pids, "true");
    let mut child = slurm_bundle(&area, cluster, &area.out("out"), &predicate)
        .args(["--timeout", "300"])
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let pid = child.id();
    wait_until("a step running the predicate", || {
        let started = alive_pids(&pids).len() >= 2 && !cluster.jobs().is_empty();
        started.then_some(()).ok_or("not yet".to_owned())
    });
    // SAFETY: signalling the child we started.
    unsafe {
        libc::kill(pid as i32, signal);
    }
    let status = child.wait().unwrap();
    use std::os::unix::process::ExitStatusExt;
    match expected_code {
        Some(code) => assert_eq!(status.code(), Some(code)),
        None => assert_eq!(status.signal(), Some(signal)),
    }
    assert!(!area.out("out").exists());
    assert_all_gone(cluster, &area, pid, &pids, &format!("signal {signal}"));
}

/// The guardian on its own: told that its minrepro ran Slurm steps, it cancels every job of the
/// user named after one of that minrepro's runs, once minrepro is gone (its pipe closes), and
/// only those.
fn the_guardian_cancels_the_jobs_of_its_runs(cluster: &Cluster) {
    use std::io::Write;
    let prefix = "999999999-0123456789abcdef-";
    let start = |name: &str| {
        let child = Command::new("srun")
            .args(["--quiet", "--quiet", "--ntasks=1"])
            .arg(format!("--job-name={name}"))
            .args(["sleep", "1000"])
            .env("SLURM_CONF", cluster.conf())
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        Srun(child)
    };
    let mut ours = start(&format!("minrepro-{prefix}7"));
    let other_name = "minrepro-999999999-fedcba9876543210-7";
    let other = start(other_name);
    wait_until("both jobs running", || {
        let jobs = cluster.jobs();
        (jobs.len() == 2).then_some(()).ok_or(format!("{jobs:?}"))
    });
    let mut guardian = binary_command()
        .args(["__minrepro-guardian", prefix])
        .env("SLURM_CONF", cluster.conf())
        .stdin(Stdio::piped())
        .spawn()
        .unwrap();
    let mut pipe = guardian.stdin.take().unwrap();
    pipe.write_all(b"slurm\0").unwrap();
    drop(pipe); // as if minrepro died
    assert!(guardian.wait().unwrap().success());
    let status = ours.0.wait().unwrap();
    assert!(
        !status.success(),
        "the cancelled step ended with {status:?}"
    );
    wait_until("only the other minrepro's job left", || {
        let left = cluster.jobs();
        (left == [other_name])
            .then_some(())
            .ok_or(format!("{left:?}"))
    });
    drop(other);
    cluster.assert_no_jobs("the guardian");
}

/// An `srun` started by a test, ended with SIGTERM (which ends its remote task at once) when
/// dropped, also when the test fails.
struct Srun(std::process::Child);

impl Drop for Srun {
    fn drop(&mut self) {
        // SAFETY: signalling the child we started and have not reaped.
        unsafe {
            libc::kill(self.0.id() as i32, libc::SIGTERM);
        }
        let _ = self.0.wait();
    }
}

#[test]
fn slurm_launcher_against_a_real_cluster() {
    let Some(cluster) = Cluster::start() else {
        return;
    };
    bundle_results_equal_local_ones(&cluster);
    python_results_equal_local_ones(&cluster);
    launcher_args_reach_srun(&cluster);
    a_hanging_step_is_killed_at_the_timeout(&cluster);
    signal_mid_run(&cluster, libc::SIGINT, Some(130));
    signal_mid_run(&cluster, libc::SIGTERM, Some(130));
    signal_mid_run(&cluster, libc::SIGKILL, None);
    the_guardian_cancels_the_jobs_of_its_runs(&cluster);
}

/// Usage errors need no cluster: they are found before anything runs.
#[test]
fn launcher_flags_are_checked_before_anything_runs() {
    let (area, bundle, predicate) = gamma_area();
    let not_dir = area.input().join("bundle.json");
    let cases: [(&[&str], &str); 4] = [
        (&["--launcher", "slurm"], "--work-dir"),
        (
            &["--launcher-arg=--partition=gpu"],
            "--launcher-arg needs --launcher slurm",
        ),
        (
            &["--work-dir", "/nonexistent/minrepro"],
            "--work-dir /nonexistent/minrepro",
        ),
        (
            &["--work-dir", not_dir.to_str().unwrap()],
            "is not a directory",
        ),
    ];
    for (flags, message) in cases {
        let output = area
            .reduce_cmd(&bundle, &area.out("out"), &predicate)
            .args(flags)
            .output()
            .unwrap();
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert_eq!(output.status.code(), Some(2), "{flags:?}: {stderr}");
        assert!(stderr.contains(message), "{flags:?}: {stderr}");
    }
}
