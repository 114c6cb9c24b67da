//! Helpers shared by the reliability tests of `minrepro python`: a private area with its own
//! TMPDIR, finding surviving processes by their environment, checking that an output is valid and
//! reproduces, a run-counting `--predicate`, and staged hostile programs.

use std::path::{Path, PathBuf};
use std::process::{Command as StdCommand, Output, Stdio};
use std::time::{Duration, Instant};

use super::python::{compiles, python};

/// A private directory with `tmp/` (the TMPDIR of minrepro) and `in/` (inputs).
pub struct Area {
    /// The private directory.
    pub root: tempfile::TempDir,
}

impl Area {
    pub fn new() -> Self {
        let root = tempfile::tempdir().unwrap();
        std::fs::create_dir(root.path().join("tmp")).unwrap();
        std::fs::create_dir(root.path().join("in")).unwrap();
        Area { root }
    }
    pub fn input(&self) -> PathBuf {
        self.root.path().join("in")
    }
    pub fn tmp(&self) -> PathBuf {
        self.root.path().join("tmp")
    }
    pub fn out(&self) -> PathBuf {
        self.root.path().join("out.py")
    }
    pub fn assert_tmp_empty(&self) {
        let left: Vec<_> = std::fs::read_dir(self.tmp())
            .unwrap()
            .flatten()
            .map(|e| e.file_name())
            .collect();
        assert!(left.is_empty(), "left in TMPDIR: {left:?}");
    }
    pub fn command(&self, source: &Path, extra: &[&str]) -> StdCommand {
        let mut command = StdCommand::new(env!("CARGO_BIN_EXE_minrepro"));
        command
            .env("TMPDIR", self.tmp())
            .current_dir(self.root.path())
            .arg("python")
            .arg(source)
            .arg("-o")
            .arg(self.out())
            .arg("--python")
            .arg(python())
            .args(["-q"])
            .args(extra)
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped());
        command
    }
    /// Runs minrepro to the end; returns its pid and output.
    pub fn run(&self, source: &Path, extra: &[&str]) -> (u32, Output) {
        let child = self.command(source, extra).spawn().unwrap();
        let pid = child.id();
        (pid, child.wait_with_output().unwrap())
    }
}

pub use super::procs::{alive_pids, is_zombie, processes_with_env, survivors_of};

/// Asserts no process of minrepro `pid` survives (briefly waiting for SIGKILLed ones to go).
pub fn assert_no_survivors(pid: u32, pids_file: &Path) {
    let start = Instant::now();
    loop {
        let tagged = survivors_of(pid);
        let recorded = alive_pids(pids_file);
        if tagged.is_empty() && recorded.is_empty() {
            return;
        }
        if start.elapsed() > Duration::from_secs(5) {
            panic!("survivors: tagged {tagged:?}, recorded {recorded:?}");
        }
        std::thread::sleep(Duration::from_millis(100));
    }
}

/// Runs `file` with the real interpreter from `cwd`; returns stdout+stderr.
pub fn run_candidate(file: &Path, cwd: &Path) -> String {
    let out = StdCommand::new(python())
        .arg(file)
        .current_dir(cwd)
        .env("PYTHONDONTWRITEBYTECODE", "1")
        .output()
        .unwrap();
    format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    )
}

/// An existing output must be valid Python that still ends in `ValueError: ...needle...`.
pub fn assert_output_reproduces(area: &Area, needle: &str) {
    let out = area.out();
    assert!(
        compiles(&out),
        "output does not compile: {:?}",
        std::fs::read(&out)
    );
    let text = run_candidate(&out, area.root.path());
    let last = text.lines().rev().find(|l| !l.trim().is_empty());
    assert!(
        last.is_some_and(|l| l.starts_with("ValueError") && l.contains(needle)),
        "output does not reproduce: {text}"
    );
}

/// A `--predicate` script that records every run in `marker`, then runs the candidate.
pub fn marker_predicate(dir: &Path) -> (PathBuf, PathBuf) {
    let marker = dir.join("marker");
    let script = dir.join("pred.sh");
    std::fs::write(
        &script,
        format!(
            "#!/bin/sh\necho run >> '{}'\nexec '{}' \"$1\"\n",
            marker.display(),
            python().display()
        ),
    )
    .unwrap();
    make_executable(&script);
    (script, marker)
}

pub fn make_executable(path: &Path) {
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(path, std::fs::Permissions::from_mode(0o755)).unwrap();
}

pub fn one_error_line(output: &Output) -> String {
    let stderr = String::from_utf8_lossy(&output.stderr);
    let lines: Vec<&str> = stderr.lines().filter(|l| !l.trim().is_empty()).collect();
    assert_eq!(lines.len(), 1, "not one line: {stderr:?}");
    assert!(
        !lines[0].chars().any(char::is_control),
        "control characters in {:?}",
        lines[0]
    );
    assert!(!stderr.contains("panicked"), "{stderr}");
    lines[0].to_owned()
}

/// Sends `signal` (e.g. "-INT") to `pid`.
pub fn send(signal: &str, pid: u32) {
    StdCommand::new("kill")
        .args([signal, &pid.to_string()])
        .status()
        .unwrap();
}

/// A program whose frozen prologue counts its runs in `dir/count` and runs `hostile` (Python,
/// one statement per line) on run `stage` (runs 1 and 2 judge the original); every process it
/// starts should record its pid in `dir/pids`.
pub fn staged_program(dir: &Path, hostile: &str, stage: &str) -> String {
    let mut text = format!(
        "# autodd: freeze-start\nimport os, sys, time, signal, subprocess\nPIDS = {pids:?}\n_c = {count:?}\n_n = int(open(_c).read()) + 1 if os.path.exists(_c) else 1\nopen(_c, 'w').write(str(_n))\nif {stage}:\n",
        pids = dir.join("pids").display().to_string(),
        count = dir.join("count").display().to_string(),
    );
    for line in hostile.lines() {
        text.push_str(&format!("    {line}\n"));
    }
    text.push_str(
        "# autodd: end-freeze\na = 1\nprint('value', a)\nraise ValueError('needle %d' % a)\n",
    );
    text
}
