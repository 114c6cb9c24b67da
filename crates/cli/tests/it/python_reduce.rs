//! End-to-end reductions of the example programs with the real `minrepro` binary and a real
//! Python interpreter.

use crate::support::python::*;
use crate::support::*;

/// The README's main command: the shape-mismatch example.
#[test]
fn shape_mismatch_readme_example() {
    let source = example("shape_mismatch.py");
    let before = std::fs::read(&source).unwrap();
    let reduced = reduce_example(
        "shape_mismatch.py",
        "T.gemm K shape check failed",
        &[],
        None,
    );
    assert_eq!(std::fs::read(&source).unwrap(), before, "source untouched");
    reduced.assert_still_fails(3, "ValueError");
    assert!(compiles(&reduced.out));
}

#[test]
fn failure_inside_if_for_with() {
    reduce_example("control_flow.py", "budget exceeded", &[], None)
        .assert_still_fails(2, "RuntimeError");
}

#[test]
fn failure_on_stdout_with_exit_zero() {
    let reduced = reduce_example("stdout_exit0.py", "CHECKSUM MISMATCH", &[], None);
    reduced.assert_shrunk(2);
    assert!(String::from_utf8_lossy(&reduced.run.stdout).contains("CHECKSUM MISMATCH"));
}

#[test]
fn failure_behind_main_guard() {
    reduce_example("main_guard.py", "empty input", &[], None).assert_still_fails(2, "LookupError");
}

#[test]
fn frozen_code_is_kept_in_all_three_forms() {
    let reduced = reduce_example("frozen.py", "frozen failure 42", &[], None);
    reduced.assert_shrunk(1);
    let text = reduced.text();
    for kept in [
        "setup_marker = \"kept by the line annotation\"  # autodd: freeze",
        "class _Freeze:",
        "    def __exit__(self, *exc):\n        return False",
        "__freeze__ = _Freeze()",
        "with __freeze__:\n    kept_by_with = len(unused) + 100",
        "__freeze__(7 * 6)",
    ] {
        assert!(text.contains(kept), "{kept:?} missing from:\n{text}");
    }
    assert!(
        !text.contains("extra = sum(unused)"),
        "unfrozen code kept:\n{text}"
    );
    assert!(reduced.output().contains("frozen failure 42"));
}

#[test]
fn parallel_jobs_give_the_same_result() {
    let one = reduce_example("control_flow.py", "budget exceeded", &[], None);
    let two = reduce_example("control_flow.py", "budget exceeded", &["-j", "2"], None);
    assert_eq!(one.text(), two.text());
}

#[test]
fn sibling_import_from_the_source_directory() {
    let pythonpath = example("sibling");
    let reduced = reduce_example(
        "sibling/main.py",
        "sibling helper overflow",
        &[],
        Some(&pythonpath),
    );
    reduced.assert_shrunk(1);
    assert!(reduced.text().contains("helper"), "{}", reduced.text());
    assert!(reduced.output().contains("sibling helper overflow"));
    assert!(
        !example("sibling/__pycache__").exists(),
        "no bytecode written next to the source"
    );
}

/// With the guard the result still raises ValueError; without it the reduction may let a
/// NameError traceback echo the needle from the raising line (and then gets smaller).
#[test]
fn fidelity_guard_keeps_the_exception_type() {
    let guarded = reduce_example("fidelity.py", "needle", &[], None);
    guarded.assert_still_fails(1, "ValueError");
    let loose = reduce_example("fidelity.py", "needle", &["--any-exception"], None);
    assert!(loose.output().contains("needle"));
    assert!(
        loose.after < guarded.after,
        "{} vs {}",
        loose.after,
        guarded.after
    );
    let last = last_stderr_line(&loose.run);
    assert!(
        !last.starts_with("ValueError"),
        "without the guard the type decays: {last}"
    );
}

/// A general predicate without --err-msg: exit status 0 means interesting; nothing runs Python.
#[test]
fn general_predicate() {
    let dir = tempfile::tempdir().unwrap();
    let (out, (after, was)) = reduce(
        &example("control_flow.py"),
        dir.path(),
        &[
            "--predicate",
            "grep",
            "--predicate-arg",
            "-q",
            "--predicate-arg",
            "budget exceeded",
            "--predicate-arg",
            "{file}",
        ],
    );
    assert!(after * 3 < was, "{after} vs {was}");
    assert!(std::fs::read_to_string(out)
        .unwrap()
        .contains("budget exceeded"));
}

/// A general predicate combined with --err-msg: the message must appear in its output.
#[test]
fn general_predicate_with_err_msg() {
    let dir = tempfile::tempdir().unwrap();
    let python = python().to_string_lossy().into_owned();
    let (out, (after, was)) = reduce(
        &example("main_guard.py"),
        dir.path(),
        &[
            "--predicate",
            &python,
            "--predicate-arg",
            "-X",
            "--predicate-arg",
            "dev",
            "--predicate-arg",
            "{file}",
            "--err-msg",
            "empty input",
        ],
    );
    assert!(after < was);
    assert!(all_output(&run_python(&out, None)).contains("empty input"));
}

/// `--backend subproc` and a persistent cache: a second run answers from the cache and gives
/// the same result. It runs only the original, to measure it for the adaptive time limit; with
/// `--timeout-factor off` nothing runs.
#[test]
fn subproc_backend_and_persistent_cache() {
    let dir = tempfile::tempdir().unwrap();
    let cache = dir.path().join("cache.json");
    let cache_text = cache.to_string_lossy().into_owned();
    let (source, msg) = (example("stdout_exit0.py"), "CHECKSUM MISMATCH");
    let flags = ["--backend", "subproc", "--cache-file", &cache_text];
    let (out, first) = reduce(
        &source,
        dir.path(),
        &[&["--err-msg", msg][..], &flags].concat(),
    );
    let first_text = std::fs::read(&out).unwrap();
    assert!(cache.exists());
    for (extra, runs) in [(None, 1), (Some("off"), 0)] {
        let second_dir = tempfile::tempdir().unwrap();
        let mut command = python_command(&source, msg, &second_dir.path().join("out.py"));
        command.arg("--python").arg(python()).args(flags);
        if let Some(factor) = extra {
            command.args(["--timeout-factor", factor]);
        }
        let assert = command.assert().success();
        let stderr = String::from_utf8_lossy(&assert.get_output().stderr).into_owned();
        assert!(
            stderr.contains(&format!("predicate runs {runs},")),
            "{stderr}"
        );
        assert_eq!(sizes(&assert.get_output().stdout), first);
        assert_eq!(
            std::fs::read(second_dir.path().join("out.py")).unwrap(),
            first_text
        );
    }
}

/// Every predicate run is counted once in the statistics, and the original runs once: a
/// `--predicate` that logs each call agrees with the `predicate runs N` figure.
#[test]
fn statistics_count_every_predicate_run_once() {
    let dir = tempfile::tempdir().unwrap();
    let (script, calls) = marker_predicate(dir.path());
    let out = dir.path().join("out.py");
    let assert = python_command(&example("main_guard.py"), "empty input", &out)
        .arg("--python")
        .arg(python())
        .arg("--predicate")
        .arg(&script)
        .args(["--predicate-arg", "{file}"])
        .assert()
        .success();
    let stderr = String::from_utf8_lossy(&assert.get_output().stderr).into_owned();
    let reported: usize = stderr
        .split("predicate runs ")
        .nth(1)
        .and_then(|rest| rest.split(',').next())
        .and_then(|n| n.parse().ok())
        .unwrap_or_else(|| panic!("no statistics line in {stderr}"));
    let logged = std::fs::read_to_string(&calls).unwrap().lines().count();
    assert_eq!(logged, reported, "{stderr}");
    assert!(logged > 1);
}

/// `--stats-json` reports exactly the candidate executions a counting predicate sees (both runs
/// of the original included) and the sizes the run prints; it may not name the source.
#[test]
fn stats_json_counts_every_predicate_run() {
    let dir = tempfile::tempdir().unwrap();
    let counter = dir.path().join("runs.txt");
    let stats = dir.path().join("stats.json");
    let script = format!("echo run >> '{}'; exec \"$0\" \"$1\"", counter.display());
    let (_, (after, was)) = reduce(
        &example("control_flow.py"),
        dir.path(),
        &[
            "--err-msg",
            "budget exceeded",
            "--predicate",
            "sh",
            "--predicate-arg=-c",
            "--predicate-arg",
            &script,
            "--predicate-arg",
            "{python}",
            "--predicate-arg",
            "{file}",
            "--stats-json",
            stats.to_str().unwrap(),
        ],
    );
    let value = json(&stats);
    let counted = std::fs::read_to_string(&counter).unwrap().lines().count() as u64;
    assert_eq!(value["predicate_runs"].as_u64(), Some(counted), "{value}");
    assert_eq!(value["complete"], true);
    assert_eq!(value["size_before"].as_u64(), Some(was));
    assert_eq!(value["size_after"].as_u64(), Some(after));
    assert!(
        value["passes"]["fast-removals"]["candidates"]
            .as_u64()
            .unwrap()
            > 0
    );

    let source = example("control_flow.py");
    minrepro()
        .arg("python")
        .arg(&source)
        .args(["--err-msg", "budget exceeded", "-o"])
        .arg(dir.path().join("out2.py"))
        .arg("--stats-json")
        .arg(&source)
        .assert()
        .code(2);
}

/// A program that reads a data file by a relative path, takes an argument and an environment
/// variable, and fails only when all three reach it.
const READS_CWD_ARGS_AND_ENV: &str = "\
import json, os, sys
unused = [1, 2, 3]
orders = json.load(open('orders.json'))
mode = sys.argv[1]
region = os.environ['REGION']
raise ValueError('order check failed: %d %s %s' % (orders['count'], mode, region))
";

/// The message only the full setup produces: the data file's count, the argument, the variable.
const FULL_SETUP_MESSAGE: &str = "order check failed: 3 --strict eu";

#[test]
fn candidates_run_in_the_callers_directory_with_args_and_env() {
    let dir = tempfile::tempdir().unwrap();
    let data = dir.path().join("data");
    std::fs::create_dir(&data).unwrap();
    std::fs::write(data.join("orders.json"), r#"{"count": 3}"#).unwrap();
    let source = dir.path().join("prog.py");
    std::fs::write(&source, READS_CWD_ARGS_AND_ENV).unwrap();
    let out = dir.path().join("min.py");
    let run = |extra: &[&str], cwd: &std::path::Path, out: &std::path::Path| {
        let mut command = python_command(&source, FULL_SETUP_MESSAGE, out);
        command
            .current_dir(cwd)
            .args(["--arg", "--strict", "--env", "REGION=eu"])
            .args(extra);
        command.output().unwrap()
    };
    // The value recorder runs like a candidate: it sees the directory, the argument and the
    // variable, so the message's computed fields become the literals they evaluated to.
    let substituted_out = dir.path().join("substituted.py");
    let output = run(&[], &data, &substituted_out);
    assert_eq!(output.status.code(), Some(0), "{output:?}");
    let substituted = std::fs::read_to_string(&substituted_out).unwrap();
    assert!(substituted.contains(FULL_SETUP_MESSAGE), "{substituted}");
    assert!(!substituted.contains("orders.json"), "{substituted}");
    // Without value substitution candidates must read the file, the argument and the variable
    // themselves. By default they run where minrepro was started: the relative read works.
    let run = |extra: &[&str], cwd: &std::path::Path, out: &std::path::Path| {
        run(&[&["--no-value-substitution"], extra].concat(), cwd, out)
    };
    let output = run(&[], &data, &out);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(0), "{stderr}");
    let reduced = std::fs::read_to_string(&out).unwrap();
    assert!(!reduced.contains("unused"), "{reduced}");
    assert!(reduced.contains("orders.json"), "{reduced}");
    // The summary names the output and how to run it, --arg included.
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(
        stdout.contains(&format!("run it with: python3 {} --strict", out.display())),
        "{stdout}"
    );
    // --cwd picks the directory from anywhere.
    let out2 = dir.path().join("min2.py");
    let data_text = data.to_string_lossy().into_owned();
    let output = run(&["--cwd", &data_text], dir.path(), &out2);
    assert_eq!(output.status.code(), Some(0), "{output:?}");
    assert_eq!(std::fs::read_to_string(&out2).unwrap(), reduced);
    // --isolated-cwd gives each candidate an empty directory: the original cannot find its data.
    let out3 = dir.path().join("min3.py");
    let output = run(&["--isolated-cwd"], &data, &out3);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(1), "{stderr}");
    assert!(
        stderr.contains("does not appear in the output of the program")
            && stderr.contains("FileNotFoundError"),
        "{stderr}"
    );
    assert!(!out3.exists());
    // Without the environment variable the original does not fail the same way.
    let mut command = python_command(&source, FULL_SETUP_MESSAGE, &out3);
    command.current_dir(&data).args(["--arg", "--strict"]);
    let stderr = stderr_of(&mut command, 1);
    assert!(stderr.contains("KeyError: 'REGION'"), "{stderr}");
}
