//! `minrepro python --backend runner` against `--backend subproc` on every example program:
//! the same verdicts and the same reduced files, plus the fallback and usage rules of the runner.

use std::path::{Path, PathBuf};

use crate::support::python::*;
use crate::support::*;

/// Every example program with its message (see examples/python/README.md).
fn examples() -> Vec<(PathBuf, &'static str)> {
    vec![
        (example("shape_mismatch.py"), "T.gemm K shape check failed"),
        (example("control_flow.py"), "budget exceeded"),
        (example("stdout_exit0.py"), "CHECKSUM MISMATCH"),
        (example("main_guard.py"), "empty input"),
        (example("frozen.py"), "frozen failure 42"),
        (example("fidelity.py"), "needle"),
        (example("sibling/main.py"), "sibling helper overflow"),
    ]
}

fn reduce_with(source: &Path, msg: &str, dir: &Path, backend: &str) -> (String, (u64, u64)) {
    // Without the adaptive limit: on a loaded machine a candidate can outlast a 1 s limit under
    // one backend and not the other, and the comparison is about verdicts, not timing.
    let flags = [
        "--err-msg",
        msg,
        "--backend",
        backend,
        "--timeout-factor",
        "off",
    ];
    let (out, sizes) = reduce(source, dir, &flags);
    (std::fs::read_to_string(out).unwrap(), sizes)
}

#[test]
fn runner_and_subproc_reduce_every_example_identically() {
    for (source, msg) in examples() {
        let runner_dir = tempfile::tempdir().unwrap();
        let subproc_dir = tempfile::tempdir().unwrap();
        let (runner_text, runner_sizes) = reduce_with(&source, msg, runner_dir.path(), "runner");
        let (subproc_text, subproc_sizes) =
            reduce_with(&source, msg, subproc_dir.path(), "subproc");
        assert_eq!(
            runner_text,
            subproc_text,
            "{} reduced differently",
            source.display()
        );
        assert_eq!(runner_sizes, subproc_sizes);
        assert!(
            runner_sizes.0 < runner_sizes.1,
            "{} was not reduced",
            source.display()
        );
    }
}

#[test]
fn a_helper_that_cannot_start_falls_back_to_subproc_with_one_warning() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("out.py");
    let cache = dir.path().join("cache.json");
    // main_guard.py reduced into `out` with the cache, the real interpreter and `flags`.
    let reduce = |out: &Path, flags: &[&str]| {
        let assert = python_command(&example("main_guard.py"), "empty input", out)
            .args(flags)
            .arg("--python")
            .arg(python())
            .arg("--cache-file")
            .arg(&cache)
            .assert()
            .success();
        String::from_utf8_lossy(&assert.get_output().stderr).into_owned()
    };
    let stderr = reduce(&out, &["-q", "--preload", "no_such_module_for_minrepro"]);
    let warnings: Vec<&str> = stderr.lines().filter(|l| l.contains("warning")).collect();
    assert_eq!(warnings.len(), 1, "{stderr}");
    assert!(warnings[0].contains("no_such_module_for_minrepro") && warnings[0].contains("subproc"));
    assert!(all_output(&run_python(&out, None)).contains("empty input"));

    // The verdicts were reached by fresh interpreters, so they are filed under that backend: a
    // `--backend subproc` run answers everything from the cache (with `--timeout-factor off`:
    // the adaptive limit would run the original once to measure it).
    let flags = ["--backend", "subproc", "--timeout-factor", "off"];
    let stderr = reduce(&dir.path().join("again.py"), &flags);
    assert!(stderr.contains("predicate runs 0,"), "{stderr}");
}

#[test]
fn preload_is_a_usage_error_without_the_runner() {
    let cases: [(&[&str], &str); 2] = [
        (
            &["--backend", "subproc"],
            "--preload needs --backend runner",
        ),
        (
            &["--predicate", "python3", "--predicate-arg", "{file}"],
            "--preload has no effect with --predicate",
        ),
    ];
    for (flags, message) in cases {
        let dir = tempfile::tempdir().unwrap();
        let assert = minrepro()
            .arg("python")
            .arg(example("main_guard.py"))
            .args(["--err-msg", "empty input", "-o"])
            .arg(dir.path().join("out.py"))
            .args(flags)
            .args(["--preload", "json"])
            .assert()
            .code(2);
        let stderr = String::from_utf8_lossy(&assert.get_output().stderr).into_owned();
        assert!(stderr.contains(message), "{flags:?}: {stderr}");
        assert!(!dir.path().join("out.py").exists());
    }
}

#[test]
fn a_preloaded_module_is_usable_by_candidates() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("heavy.py"), "READY = 'loaded once'\n").unwrap();
    let source = dir.path().join("uses_heavy.py");
    std::fs::write(
        &source,
        "import heavy\nunused = [1, 2, 3]\nprint('state:', heavy.READY)\nraise RuntimeError('preload check ' + heavy.READY)\n",
    )
    .unwrap();
    let (out, (after, before)) = reduce(
        &source,
        dir.path(),
        &[
            "--err-msg",
            "preload check loaded once",
            "--preload",
            "heavy",
        ],
    );
    assert!(after < before);
    let text = std::fs::read_to_string(&out).unwrap();
    assert!(
        text.contains("import heavy") && !text.contains("unused"),
        "{text}"
    );
}

/// The instrumented runs of value substitution fork from the warm helper too: the preloaded
/// module is imported once per helper, never by a recording run.
#[test]
fn value_recording_runs_fork_from_the_warm_helper() {
    let dir = tempfile::tempdir().unwrap();
    let log = dir.path().join("imports.log");
    std::fs::write(
        dir.path().join("counted.py"),
        format!(
            "with open({:?}, 'a') as f:\n    f.write('imported\\n')\nSCALE = 3\n",
            log.display().to_string()
        ),
    )
    .unwrap();
    let source = dir.path().join("uses_counted.py");
    std::fs::write(
        &source,
        "import counted\nwidth = 2 * 7\nunused = [1, 2, 3]\nraise ValueError('width %d scaled' % (width * counted.SCALE))\n",
    )
    .unwrap();
    let stats = dir.path().join("stats.json");
    let stats_flag = stats.to_string_lossy().into_owned();
    let (out, (after, before)) = reduce(
        &source,
        dir.path(),
        &[
            "--err-msg",
            "width 42 scaled",
            "--preload",
            "counted",
            "--stats-json",
            &stats_flag,
        ],
    );
    assert!(after < before, "{}", std::fs::read_to_string(&out).unwrap());
    let stats: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&stats).unwrap()).unwrap();
    assert!(
        stats["value_recording_runs"].as_u64().unwrap() >= 1,
        "{stats}"
    );
    // One helper at -j 1 (and the probe of the original shares it): one import.
    let imports = std::fs::read_to_string(&log).unwrap().lines().count();
    assert_eq!(imports, 1, "{stats}");
}

/// `tests/fixtures/python/preload`: a program outside its libraries' directory that imports a
/// module counting its imports, one starting a thread and one failing to import.
fn preload_fixture() -> (PathBuf, PathBuf) {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/python/preload");
    (root.join("program/prog.py"), root.join("lib"))
}

/// Reduces the preload fixture with `extra` flags; returns minrepro's stderr and how often the
/// counting module was imported.
fn reduce_preload_fixture(extra: &[&str]) -> (String, usize) {
    let (source, lib) = preload_fixture();
    let dir = tempfile::tempdir().unwrap();
    let log = dir.path().join("imports.log");
    let out = dir.path().join("out.py");
    let assert = python_command(&source, "total is 13", &out)
        .arg("--python")
        .arg(python())
        .arg("--env")
        .arg(format!("PYTHONPATH={}", lib.display()))
        .arg("--env")
        .arg(format!("COUNTED_LOG={}", log.display()))
        .args(["--no-value-substitution", "-j", "1"])
        .args(extra)
        .assert()
        .success();
    let stderr = String::from_utf8_lossy(&assert.get_output().stderr).into_owned();
    let imports = std::fs::read_to_string(&log).unwrap().lines().count();
    (stderr, imports)
}

/// The program's third-party top-level imports are preloaded by default (the counting module is
/// imported by the helpers only, not once per candidate); a module whose import fails or starts
/// a thread is left out with a notice; --no-auto-preload imports it in every candidate.
#[test]
fn top_level_imports_are_preloaded_unless_unfit_or_turned_off() {
    let (stderr, imports) = reduce_preload_fixture(&[]);
    assert!(
        stderr.contains("the runner's helpers import counted once for all candidates"),
        "{stderr}"
    );
    assert!(
        stderr.contains("not preloading threaded: its import started 1 thread"),
        "{stderr}"
    );
    assert!(
        stderr.contains("not preloading broken: its import failed (ImportError: broken needs"),
        "{stderr}"
    );
    let (off, runs) = reduce_preload_fixture(&["--no-auto-preload"]);
    assert!(!off.contains("preload"), "{off}");
    // One helper, and the one replaced once `threaded` had made it unfit.
    assert!(imports <= 2, "{imports} imports with preloading");
    assert!(runs > 20, "{runs} imports without");
}
