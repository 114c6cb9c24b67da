//! Width (`-j N` with `--fold`, the default, or `--exact`) through the binary: a rerun at the
//! same `-j N` writes the same bytes and decides the same candidates, in either mode; without a
//! flag `-j N` folds; with `--exact` every `-j N` gives `-j 1`'s result; and runs cancelled
//! mid-run at `-j 16` (folding or not) leave no process behind.

use std::fs;
use std::path::Path;

use crate::support::bundle::*;
use crate::support::procs::{alive_pids, survivors_of};
use crate::support::*;

/// Needed words of [`text_case`].
const NEEDED: [&str; 3] = ["needle_a", "needle_b", "needle_c"];

/// A 60-line text of bracketed calls in blocks, three lines (one word each) needed, and a
/// test script `t.sh` (running `prelude` first) that checks them.
fn text_case(dir: &Path, prelude: &str) {
    let mut lines = Vec::new();
    for i in 0..60 {
        let word = match i {
            7 => NEEDED[0].to_owned(),
            31 => NEEDED[1].to_owned(),
            50 => NEEDED[2].to_owned(),
            _ => format!("w{i}"),
        };
        if i % 10 == 0 {
            lines.push(format!("block_{i} {{"));
        }
        let indent = if i % 10 == 0 { "" } else { "    " };
        let (a, b, k) = (i % 5, i % 3, i % 7);
        lines.push(format!(
            "{indent}{word} = call_{k}({i}, [a{a}, b{b}], (c + {i}));"
        ));
        if i % 10 == 9 {
            lines.push("}".to_owned());
        }
    }
    fs::write(dir.join("input.txt"), lines.join("\n") + "\n").unwrap();
    let checks: Vec<String> = NEEDED
        .iter()
        .map(|n| format!("grep -q {n} input.txt"))
        .collect();
    script(
        dir,
        "t.sh",
        &format!("#!/bin/sh\n{prelude}\n{}\n", checks.join(" && ")),
    );
}

/// What a `minrepro file` run decided, from its `--stats-json`: candidates, accepted, sizes,
/// rounds and the per-pass counters (not the run counts and times, which speculation and
/// timing change); and its sequential steps (rounds of runs, the same on a rerun at one `-j`).
fn decided(stats: &Path) -> (String, u64) {
    let stats = json(stats);
    let fields = ["candidates", "accepted", "size_after", "rounds"];
    let mut kept: Vec<String> = fields.iter().map(|f| format!("{f}={}", stats[f])).collect();
    kept.push(format!("passes={}", stats["passes"]));
    (kept.join(" "), stats["sequential_steps"].as_u64().unwrap())
}

/// The flag of a mode of width: `--fold`, `--exact`, or none (the default, which folds).
fn mode_flag(fold: Option<bool>) -> Option<&'static str> {
    fold.map(|fold| if fold { "--fold" } else { "--exact" })
}

/// `minrepro file ./t.sh input.txt -o NAME -j JOBS [--fold|--exact]` in `dir`; returns the
/// output's bytes and what was [decided].
fn reduce_file(dir: &Path, name: &str, jobs: u32, fold: Option<bool>) -> (Vec<u8>, (String, u64)) {
    let stats = dir.join(format!("{name}.json"));
    let mut command = binary_command();
    command
        .current_dir(dir)
        .env("TMPDIR", dir)
        .args(["file", "./t.sh", "input.txt", "-q", "-o", name])
        .arg("-j")
        .arg(jobs.to_string())
        .arg("--stats-json")
        .arg(&stats);
    command.args(mode_flag(fold));
    let output = command.output().unwrap();
    assert!(output.status.success(), "{}", stderr(&output));
    (fs::read(dir.join(name)).unwrap(), decided(&stats))
}

#[test]
fn file_reruns_at_every_width_write_the_same_bytes_and_decide_the_same() {
    let dir = tempfile::tempdir().unwrap();
    text_case(dir.path(), "");
    let (one, one_decided) = reduce_file(dir.path(), "one", 1, Some(false));
    let wanted: String = NEEDED.iter().map(|n| format!("{n}\n")).collect();
    assert_eq!(String::from_utf8_lossy(&one), wanted);
    for jobs in [1, 4, 16] {
        for fold in [false, true] {
            let label = format!("-j {jobs} fold {fold}");
            let first = reduce_file(dir.path(), &format!("a{jobs}{fold}"), jobs, Some(fold));
            let again = reduce_file(dir.path(), &format!("b{jobs}{fold}"), jobs, Some(fold));
            assert_eq!(first, again, "{label}: a rerun differs");
            if fold {
                // Without a flag, -j N folds.
                let default = reduce_file(dir.path(), &format!("d{jobs}"), jobs, None);
                assert_eq!(default, first, "-j {jobs}: the default is not folding");
            }
            // Folding never ends larger than -j 1; the exact mode ends exactly where -j 1 does.
            assert!(first.0.len() <= one.len(), "{label}");
            if !fold || jobs == 1 {
                assert_eq!(first.0, one, "{label}");
                assert_eq!(first.1 .0, one_decided.0, "{label}");
            }
        }
    }
}

#[test]
fn bundle_reruns_at_every_width_write_the_same_output_and_log() {
    let (area, bundle, predicate) = gamma_area();
    let reduce = |name: &str, jobs: u32, fold: Option<bool>| {
        let out = area.out(name);
        let mut command = area.reduce_cmd(&bundle, &out, &predicate);
        command.arg("--predicate-arg").arg("{bundle}");
        command.arg("-j").arg(jobs.to_string());
        command.args(mode_flag(fold));
        command.assert().success();
        let log = fs::read(out.join("reduction-log.json")).unwrap();
        (tree(&out), log)
    };
    let one = reduce("one", 1, Some(false));
    for jobs in [1, 4, 16] {
        for fold in [false, true] {
            let label = format!("-j {jobs} fold {fold}");
            let first = reduce(&format!("a{jobs}{fold}"), jobs, Some(fold));
            let again = reduce(&format!("b{jobs}{fold}"), jobs, Some(fold));
            assert_eq!(first.1, again.1, "{label}: the log differs on a rerun");
            assert_eq!(first.0, again.0, "{label}: the output differs on a rerun");
            if !fold || jobs == 1 {
                assert_eq!(first, one, "{label}");
            } else {
                let default = reduce(&format!("d{jobs}"), jobs, None);
                assert_eq!(default, first, "-j {jobs}: the default is not folding");
            }
        }
    }
}

/// `minrepro file` at `-j 16` (folding or not) on a text case whose runs record their pids;
/// after it exits, no run went on and no process of one is alive. Returns the runs it
/// cancelled (from `--stats-json`), started and finished.
fn run_recording_pids(fold: bool) -> (u64, usize, usize) {
    let dir = tempfile::tempdir().unwrap();
    let (pids, finished) = (dir.path().join("pids"), dir.path().join("finished"));
    // Each run starts a long sleeper, records its own pid and the sleeper's, waits 0.2 s, then
    // stops its sleeper and notes that it finished. A run cancelled while it waits is killed
    // by minrepro with its sleeper; one left running would note its end after minrepro's.
    let prelude = format!(
        "sleep 30 & sleeper=$!\necho \"$$ $sleeper\" >> '{}'\nsleep 0.2\nkill $sleeper\necho $$ >> '{}'",
        pids.display(),
        finished.display()
    );
    text_case(dir.path(), &prelude);
    let stats = dir.path().join("stats.json");
    let mut command = binary_command();
    command
        .current_dir(dir.path())
        .env("TMPDIR", dir.path())
        .args(["file", "./t.sh", "input.txt", "-q", "-o", "out", "-j", "16"])
        .arg("--stats-json")
        .arg(&stats);
    command.arg(if fold { "--fold" } else { "--exact" });
    let (pid, output) = run_with_pid(&mut command);
    assert!(output.status.success(), "{}", stderr(&output));
    let finished_at_exit = fs::read_to_string(&finished).unwrap();
    // Long enough for a run minrepro left going to reach its end (not a timing assertion:
    // nothing may happen in it).
    std::thread::sleep(std::time::Duration::from_millis(600));
    assert_eq!(
        fs::read_to_string(&finished).unwrap(),
        finished_at_exit,
        "fold {fold}: a candidate's run went on after minrepro exited"
    );
    assert_eq!(
        alive_pids(&pids),
        Vec::<String>::new(),
        "fold {fold}: a sleeper survived"
    );
    assert_eq!(survivors_of(pid), Vec::<String>::new(), "fold {fold}");
    let started = fs::read_to_string(&pids).unwrap().lines().count();
    let cancelled = json(&stats)["cancelled_runs"].as_u64().unwrap();
    (cancelled, started, finished_at_exit.lines().count())
}

#[test]
fn runs_cancelled_at_sixteen_jobs_leave_no_process() {
    let (fold_cancelled, fold_started, fold_ended) = run_recording_pids(true);
    let (cancelled, started, ended) = run_recording_pids(false);
    // Runs were really cancelled mid-run (started, killed before noting their end): the
    // exact mode cancels the runs beyond each batch's accepted candidate.
    assert!(
        cancelled > 0 && started > ended,
        "{cancelled}: {started} started, {ended} ended"
    );
    // Every run that did not finish is one minrepro cancelled (some are cancelled before
    // their script records its pid).
    assert!(fold_started - fold_ended <= fold_cancelled as usize);
    assert!(started - ended <= cancelled as usize);
}
