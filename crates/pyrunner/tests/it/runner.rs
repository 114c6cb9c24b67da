//! The fork server against a real python3: same observable results as a fresh interpreter,
//! descriptor-level capture, isolation, crashes, timeouts and helper deaths.

use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::time::Duration;

use minrepro_predicate::process::{run_child, RawRun, RunEnd, RunRequest};
use minrepro_predicate::{CancelFlag, Executor};
use minrepro_pyrunner::RunnerPool;

fn python() -> PathBuf {
    let out = std::process::Command::new("python3")
        .args(["-c", "import sys; print(sys.executable)"])
        .output()
        .expect("python3 is installed");
    PathBuf::from(String::from_utf8(out.stdout).unwrap().trim())
}

struct Case {
    dir: tempfile::TempDir,
    script: PathBuf,
}

fn case(source: &str) -> Case {
    let (dir, script) = minrepro_testkit::temp_file("cand.py", source);
    Case { dir, script }
}

fn run_with(
    executor: Option<&RunnerPool>,
    interpreter: &Path,
    case: &Case,
    timeout: f64,
) -> RawRun {
    let args = vec![OsString::from(&case.script)];
    let env = vec![(OsString::from("PYTHONHASHSEED"), OsString::from("0"))];
    let cancel = CancelFlag::new();
    let request = RunRequest {
        program: interpreter,
        args: &args,
        cwd: case.dir.path(),
        env: &env,
        timeout: Duration::from_secs_f64(timeout),
        needle: Some(b"NEEDLE"),
        workspace_text: case.dir.path().to_str(),
        cancel: &cancel,
        keep_stdout: None,
    };
    match executor {
        Some(pool) => pool.run(&request),
        None => run_child(&request),
    }
}

/// The interpreter and a fork-server pool started on it.
struct Warm {
    py: PathBuf,
    pool: RunnerPool,
}

impl Warm {
    fn start() -> Warm {
        let py = python();
        let pool =
            RunnerPool::start(&py, &[], &[("PYTHONDONTWRITEBYTECODE".into(), "1".into())]).unwrap();
        Warm { py, pool }
    }

    /// Runs `case` in the pool with a `timeout` in seconds.
    fn run(&self, case: &Case, timeout: f64) -> RawRun {
        run_with(Some(&self.pool), &self.py, case, timeout)
    }

    /// Runs a new case of `source` in the pool; the case (its directory) and the run.
    fn run_source(&self, source: &str, timeout: f64) -> (Case, RawRun) {
        let case = case(source);
        let run = self.run(&case, timeout);
        (case, run)
    }

    /// [`Warm::run_source`], asserting that the run ended as `end`.
    fn run_ending(&self, source: &str, timeout: f64, end: RunEnd) -> (Case, RawRun) {
        let (case, run) = self.run_source(source, timeout);
        assert_eq!(run.end, end, "{source:?}");
        (case, run)
    }
}

#[test]
fn results_equal_a_fresh_interpreter() {
    let warm = Warm::start();
    let programs = [
        "print('hello NEEDLE')\n",
        "import sys\nprint('out')\nsys.stderr.write('err NEEDLE\\n')\nsys.exit(3)\n",
        "def f(x):\n    raise ValueError('NEEDLE %d' % x)\n\nif __name__ == '__main__':\n    f(2)\n",
        "import sys\nsys.exit('fatal NEEDLE')\n",
        "x = [1, 2]\nprint(x[5])\n",
        "import os\nos.write(1, b'raw NEEDLE\\n')\nos._exit(4)\n",
        "import atexit\natexit.register(lambda: print('bye NEEDLE'))\nprint('main')\n",
        "print(__name__, __file__.endswith('cand.py'))\nimport sys\nprint(sys.argv[0].endswith('cand.py'), sys.path[0] == __import__('os').path.dirname(__file__))\n",
        "import os, signal\nos.kill(os.getpid(), signal.SIGSEGV)\n",
        "def broken(:\n    pass\n",
    ];
    for program in programs {
        let c = case(program);
        let fresh = run_with(None, &warm.py, &c, 30.0);
        let pooled = warm.run(&c, 30.0);
        assert_eq!(pooled.end, fresh.end, "exit status differs for {program:?}");
        assert_eq!(
            pooled.stdout, fresh.stdout,
            "stdout differs for {program:?}"
        );
        assert_eq!(
            pooled.stderr, fresh.stderr,
            "stderr differs for {program:?}"
        );
    }
}

#[test]
fn descriptor_level_output_is_captured() {
    let warm = Warm::start();
    let (_case, run) = warm.run_source("import os\nos.write(2, b'native NEEDLE\\n')\n", 30.0);
    assert_eq!(run.end, RunEnd::Exited(0));
    assert!(run.stderr.contains_needle);
    assert_eq!(run.stderr.head, "native NEEDLE\n");
}

#[test]
fn no_state_leaks_between_candidates() {
    let warm = Warm::start();
    let first =
        case("import json\njson.LEAK = 1\nimport builtins\nbuiltins.LEAK = 1\nGLOBAL = 1\n");
    assert_eq!(warm.run(&first, 30.0).end, RunEnd::Exited(0));
    let second = case(
        "import json, builtins\nprint(hasattr(json, 'LEAK'), hasattr(builtins, 'LEAK'), 'GLOBAL' in globals())\n",
    );
    let run = warm.run(&second, 30.0);
    assert_eq!(run.stdout.head, "False False False\n");
}

#[test]
fn timeout_kills_grandchildren_and_the_helper_survives() {
    let warm = Warm::start();
    let source = "import subprocess, time, os\np = subprocess.Popen(['sleep', '1000'])\nopen(os.path.join(os.getcwd(), 'pid'), 'w').write(str(p.pid))\ntime.sleep(1000)\n";
    let (c, _) = warm.run_ending(source, 1.0, RunEnd::TimedOut);
    let pid: i32 = std::fs::read_to_string(c.dir.path().join("pid"))
        .unwrap()
        .trim()
        .parse()
        .unwrap();
    std::thread::sleep(Duration::from_millis(100));
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).unwrap_or_default();
    assert!(
        stat.is_empty() || stat.contains(") Z"),
        "grandchild {pid} survived: {stat}"
    );
    let after = warm.run(&case("print('NEEDLE')\n"), 30.0);
    assert_eq!(after.end, RunEnd::Exited(0));
    assert_eq!(warm.pool.restarts(), 0);
}

#[test]
fn helper_death_mid_run_restarts_and_retries_once() {
    let warm = Warm::start();
    // The candidate kills its helper (its parent) the first time only; the retry on a fresh
    // helper succeeds.
    let source = "import os, signal\nmark = os.path.join(os.getcwd(), 'killed')\nif not os.path.exists(mark):\n    open(mark, 'w').close()\n    os.kill(os.getppid(), signal.SIGKILL)\n    import time; time.sleep(5)\nprint('second NEEDLE')\n";
    let (_case, run) = warm.run_ending(source, 30.0, RunEnd::Exited(0));
    assert!(run.stdout.contains_needle);
    assert_eq!(warm.pool.restarts(), 1);
}

#[test]
fn two_threads_share_the_pool() {
    let warm = Warm::start();
    std::thread::scope(|scope| {
        for i in 0..2 {
            let warm = &warm;
            scope.spawn(move || {
                for j in 0..5 {
                    let source =
                        format!("import time\ntime.sleep(0.05)\nprint('NEEDLE {i} {j}')\n");
                    let (_case, run) = warm.run_source(&source, 30.0);
                    assert_eq!(run.stdout.head, format!("NEEDLE {i} {j}\n"));
                }
            });
        }
    });
}

#[test]
fn a_failing_preload_is_reported_for_fallback() {
    let py = python();
    let error = RunnerPool::start(&py, &["no_such_module_xyz".into()], &[])
        .err()
        .unwrap();
    assert!(error.to_string().contains("no_such_module_xyz"), "{error}");
}

/// The helper's command line, as `ps` shows it, is one short line: the source arrives on stdin.
#[test]
fn helper_command_line_is_short() {
    let _warm = Warm::start();
    let me = std::process::id().to_string();
    let mut helpers = Vec::new();
    for entry in std::fs::read_dir("/proc").unwrap().flatten() {
        let dir = entry.path();
        let (Ok(stat), Ok(cmdline)) = (
            std::fs::read_to_string(dir.join("stat")),
            std::fs::read(dir.join("cmdline")),
        ) else {
            continue;
        };
        // Field 4 of /proc/PID/stat (after the parenthesized name) is the parent's pid.
        let after_name = stat.rsplit_once(") ").map(|(_, rest)| rest).unwrap_or("");
        let parent = after_name.split(' ').nth(1).unwrap_or("");
        if parent == me && cmdline.windows(15).any(|w| w == b"minrepro-runner") {
            helpers.push(String::from_utf8_lossy(&cmdline).replace('\0', " "));
        }
    }
    // Tests running at the same time in this process may have helpers of their own.
    assert!(!helpers.is_empty());
    for line in &helpers {
        assert!(line.len() < 300 && !line.contains("def main"), "{line}");
    }
}

/// What a preloaded module made at import (here a temporary directory, removed by its weakref
/// finalizer at exit) belongs to the helper: a candidate's exit leaves it for the candidates
/// after it, while the candidate's own finalizers still run at its exit.
#[test]
fn a_candidate_exit_leaves_what_the_helper_imported() {
    let (modules, _) = minrepro_testkit::temp_file(
        "made_at_import.py",
        "import tempfile\nDIRECTORY = tempfile.TemporaryDirectory()\n",
    );
    let py = python();
    let env = [(
        "PYTHONPATH".to_owned(),
        modules.path().to_string_lossy().into_owned(),
    )];
    let pool = RunnerPool::start(&py, &["made_at_import".into()], &env).unwrap();
    let source = "import os, weakref, made_at_import\nclass Own: pass\nown = Own()\nweakref.finalize(own, print, 'own finalizer NEEDLE')\nprint(os.path.isdir(made_at_import.DIRECTORY.name))\n";
    let candidate = case(source);
    for _ in 0..2 {
        let run = run_with(Some(&pool), &py, &candidate, 30.0);
        assert_eq!(run.end, RunEnd::Exited(0));
        assert_eq!(run.stdout.head, "True\nown finalizer NEEDLE\n");
    }
}
