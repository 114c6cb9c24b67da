//! Honest statistics, `-j` that changes nothing but the time, and progress during start-up
//! (issue 13, items 5–7): every launched predicate run is reported, the speculative ones that
//! were cancelled separately; results are byte-identical for every `-j`; the live line names
//! the pass, the item and the start-up step.

use std::path::{Path, PathBuf};

use crate::support::bundle::*;
use crate::support::*;

/// `count` code objects `o0.co`…, copies of the fixtures each with a unique trailer
/// `MARK-<i>;`, and metadata lists; returns the bundle's path.
fn marked_bundle(dir: &Path, count: usize) -> PathBuf {
    let fixtures = ["alpha.co", "beta.co", "gamma.co"];
    let mut objects = Vec::new();
    for i in 0..count {
        let path = copy_fixture(fixtures[i % 3], dir, &format!("objects/o{i}.co"));
        let mut bytes = std::fs::read(&path).unwrap();
        bytes.extend_from_slice(format!("MARK-{i};").as_bytes());
        std::fs::write(&path, bytes).unwrap();
        objects
            .push(serde_json::json!({"id": format!("o{i}"), "path": format!("objects/o{i}.co")}));
    }
    let kernels: Vec<_> = (0..8)
        .map(|i| serde_json::json!({"name": format!("k{i}")}))
        .collect();
    let bundle = serde_json::json!({
        "format": "comgr-hotswap-reducer-bundle",
        "version": 1,
        "code_objects": objects,
        "metadata": {"kernels": kernels, "selected_tests": ["t0", "t1", "t2", "t3"]},
    });
    let path = dir.join("bundle.json");
    std::fs::write(&path, serde_json::to_vec_pretty(&bundle).unwrap()).unwrap();
    path
}

/// A predicate that appends a line to `count_file` first thing, waits a little (so that runs
/// overlap under -j), and is interesting while objects 2 and 5 and kernel k3 remain.
fn counting_predicate(dir: &Path, count_file: &Path) -> PathBuf {
    script(
        dir,
        "count.sh",
        &format!(
            "#!/bin/sh\necho run >> '{}'\nsleep 0.05\n\
             cat \"$1\"/objects/* | grep -q 'MARK-2;' || exit 1\n\
             cat \"$1\"/objects/* | grep -q 'MARK-5;' || exit 1\n\
             grep -q '\"k3\"' \"$1/metadata.json\" || exit 1\n",
            count_file.display()
        ),
    )
}

#[test]
fn every_launched_run_is_counted_and_cancelled_ones_reported_separately() {
    let area = Area::new();
    let bundle = marked_bundle(&area.input(), 12);
    for jobs in ["1", "3"] {
        let count_file = area.out(&format!("count-{jobs}"));
        let predicate = counting_predicate(&area.input(), &count_file);
        let stats_file = area.out(&format!("stats-{jobs}.json"));
        let out = area.out(&format!("out-{jobs}"));
        area.reduce_cmd(&bundle, &out, &predicate)
            .arg("--predicate-arg={workspace}")
            .args(["-j", jobs, "--stats-json"])
            .arg(&stats_file)
            .assert()
            .success();
        let seen = std::fs::read_to_string(&count_file)
            .unwrap()
            .lines()
            .count();
        let stats = json(&stats_file);
        let launched = stats["predicate_runs"].as_u64().unwrap();
        let cancelled = stats["cancelled_runs"].as_u64().unwrap();
        if jobs == "1" {
            assert_eq!(launched, seen as u64, "-j {jobs}: {stats}");
            assert_eq!(cancelled, 0);
        } else {
            // Every run the predicate saw was reported. A cancelled run normally gets to its
            // first line (the cancel grace), but on a loaded machine one may be killed before
            // its shell starts: only cancelled runs may be missing from the count file.
            assert!(
                launched >= seen as u64 && launched - cancelled <= seen as u64,
                "-j {jobs}: {seen} seen, {stats}"
            );
        }
        // Decided candidates that ran are at most the runs launched minus those cancelled.
        let decided_runs =
            stats["candidates"].as_u64().unwrap() + 1 - stats["cache_hits"].as_u64().unwrap();
        assert!(
            decided_runs + cancelled <= seen as u64,
            "-j {jobs}: {stats}"
        );
        assert!(stats["wall_seconds"].as_f64() >= stats["startup_seconds"].as_f64());
    }
    assert!(area.tmp_is_empty());
}

#[test]
fn outputs_and_logs_are_byte_identical_at_every_jobs_count() {
    let area = Area::new();
    let bundle = marked_bundle(&area.input(), 6);
    let predicate = script(
        &area.input(),
        "needs.sh",
        "#!/bin/sh\n\
         cat \"$1\"/objects/* | grep -q 'MARK-1;' || exit 1\n\
         cat \"$1\"/objects/* | grep -q 'MARK-4;' || exit 1\n\
         grep -q '\"t2\"' \"$1/metadata.json\" || exit 1\n",
    );
    let run = |jobs: &str| {
        let out = area.out(&format!("out-{jobs}"));
        area.reduce_cmd(&bundle, &out, &predicate)
            .arg("--predicate-arg={workspace}")
            .args(["--allow-remove-section=.debug_*", "--exact", "-j", jobs])
            .assert()
            .success();
        tree(&out)
    };
    let sequential = run("1");
    let log = sequential
        .iter()
        .find(|(name, ..)| name == "reduction-log.json");
    assert!(log.is_some(), "{sequential:?}");
    assert_eq!(
        sequential
            .iter()
            .filter(|(n, ..)| n.starts_with("objects/"))
            .count(),
        2
    );
    assert_eq!(sequential, run("2"), "-j 2 differs from -j 1");
    assert_eq!(sequential, run("4"), "-j 4 differs from -j 1");
    assert!(area.tmp_is_empty());
}

#[test]
fn start_up_is_announced_before_sections_are_listed() {
    let area = Area::new();
    let bundle = marked_bundle(&area.input(), 3);
    let predicate = exiting(&area.input(), 0);
    let output = binary_command()
        .env("TMPDIR", area.tmp())
        .arg("bundle")
        .args(reduce_args(&bundle, &area.out("out"), &predicate))
        .arg("--allow-remove-section=.debug_*")
        .output()
        .unwrap();
    assert!(output.status.success());
    let stderr = String::from_utf8_lossy(&output.stderr);
    let first = stderr.lines().next().unwrap_or_default();
    assert_eq!(
        first, "minrepro bundle: listing the sections of 3 code object(s)",
        "{stderr}"
    );
    let stats = stderr.lines().find(|l| l.contains("wall time")).unwrap();
    assert!(stats.contains("(start-up "), "{stats}");
}

#[test]
fn the_live_line_names_the_start_up_step_pass_and_item() {
    // script(1) gives the child a pseudo-terminal and copies what it prints to our stdout.
    let Ok(version) = std::process::Command::new("script")
        .arg("--version")
        .output()
    else {
        eprintln!("script(1) is not installed; skipping the terminal test");
        return;
    };
    assert!(version.status.success());
    let area = Area::new();
    let bundle = marked_bundle(&area.input(), 3);
    let predicate = script(
        &area.input(),
        "slow.sh",
        "#!/bin/sh\nsleep 0.12\ncat \"$1\"/objects/* | grep -q 'MARK-1;'\n",
    );
    let mut command_line = format!(
        "TMPDIR='{}' '{}' bundle",
        area.tmp().display(),
        env!("CARGO_BIN_EXE_minrepro")
    );
    for arg in reduce_args(&bundle, &area.out("out"), &predicate) {
        command_line.push_str(&format!(" '{}'", arg.to_string_lossy()));
    }
    command_line.push_str(" '--predicate-arg={workspace}' '--allow-remove-section=.debug_*'");
    let output = std::process::Command::new("script")
        .args(["-qec", &command_line, "/dev/null"])
        .output()
        .unwrap();
    assert!(output.status.success());
    let screen = String::from_utf8_lossy(&output.stdout);
    for expected in [
        "[listing sections: object o0 (1/3)] | 0 s",
        "[objects] ",
        "[metadata.kernels: list kernels] ",
        "[sections: object o1] ",
    ] {
        assert!(screen.contains(expected), "{expected:?} not in {screen:?}");
    }
    assert!(area.tmp_is_empty());
}
