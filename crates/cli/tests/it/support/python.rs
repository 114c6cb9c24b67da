//! Helpers of the `minrepro python` tests: the real interpreter, the example programs, checks on
//! reduced files, a run-counting `--predicate` and staged hostile programs.

use std::path::{Path, PathBuf};
use std::process::{Command as StdCommand, Output};
use std::sync::OnceLock;

use super::{make_executable, minrepro, run_with_pid, Area};

impl Area {
    /// Where `minrepro python` writes its output in the area.
    pub fn out_py(&self) -> PathBuf {
        self.out("out.py")
    }

    /// `minrepro python SOURCE -o OUT --python PYTHON -q EXTRA` in the area (see
    /// [`Area::process`]).
    pub fn python_cmd(&self, source: &Path, extra: &[&str]) -> StdCommand {
        let mut command = self.process("python");
        command
            .arg(source)
            .arg("-o")
            .arg(self.out_py())
            .arg("--python")
            .arg(python())
            .args(extra);
        command
    }

    /// Writes [`staged_program`] (`hostile` on run `stage`) to `in/NAME`; returns its path and
    /// text.
    pub fn stage(&self, name: &str, hostile: &str, stage: &str) -> (PathBuf, String) {
        let source = self.input().join(name);
        let text = staged_program(&self.input(), hostile, stage);
        std::fs::write(&source, &text).unwrap();
        (source, text)
    }

    /// Runs `minrepro python` to the end; returns its pid and output.
    pub fn python_run(&self, source: &Path, extra: &[&str]) -> (u32, Output) {
        run_with_pid(&mut self.python_cmd(source, extra))
    }
}

/// `examples/python/NAME`.
pub fn example(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../examples/python")
        .join(name)
}

/// The interpreter the tests run Python with: `$MINREPRO_TEST_PYTHON` when set, else the
/// system's `/usr/bin/python3` when it runs, else the real executable behind `python3`. Why the
/// system's first: a pyenv `python3` is a shell-script shim (~170 ms a start on this kind of
/// machine, ~35 ms for `/usr/bin/python3`), and thousands of candidate runs pay that start-up.
pub fn python() -> &'static Path {
    static PYTHON: OnceLock<PathBuf> = OnceLock::new();
    PYTHON.get_or_init(|| {
        if let Some(chosen) = std::env::var_os("MINREPRO_TEST_PYTHON") {
            return PathBuf::from(chosen);
        }
        let system = Path::new("/usr/bin/python3");
        let runs = |program: &Path| {
            StdCommand::new(program)
                .args(["-c", "import sys; print(sys.executable)"])
                .output()
                .ok()
                .filter(|out| out.status.success())
                .map(|out| PathBuf::from(String::from_utf8(out.stdout).unwrap().trim()))
        };
        runs(system)
            .or_else(|| runs(Path::new("python3")))
            .expect("python3 runs")
    })
}

/// Runs `file` as the main script from `cwd` with `pythonpath` on the module search path.
pub fn run_python(file: &Path, pythonpath: Option<&Path>) -> Output {
    let mut command = std::process::Command::new(python());
    command.arg(file).env("PYTHONDONTWRITEBYTECODE", "1");
    if let Some(dir) = pythonpath {
        command.env("PYTHONPATH", dir);
    }
    command.output().expect("python runs")
}

/// stdout and stderr of a run, concatenated.
pub fn all_output(output: &Output) -> String {
    format!(
        "{}{}",
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    )
}

/// The last non-empty stderr line of a run.
pub fn last_stderr_line(output: &Output) -> String {
    String::from_utf8_lossy(&output.stderr)
        .lines()
        .rev()
        .find(|l| !l.trim().is_empty())
        .unwrap_or_default()
        .to_owned()
}

/// Whether `file` compiles with the real interpreter (read as bytes, as `python FILE` does, so
/// a BOM or a coding declaration is honoured).
pub fn compiles(file: &Path) -> bool {
    std::process::Command::new(python())
        .args([
            "-c",
            "import sys; compile(open(sys.argv[1], 'rb').read(), sys.argv[1], 'exec')",
        ])
        .arg(file)
        .status()
        .expect("python runs")
        .success()
}

/// `(after, before)` token counts from the success line `... (N tokens, was M)`.
pub fn sizes(stdout: &[u8]) -> (u64, u64) {
    let text = String::from_utf8_lossy(stdout);
    let line = text
        .lines()
        .find(|l| l.starts_with("minrepro python: wrote "))
        .unwrap_or_else(|| panic!("no success line in {text:?}"));
    let inner = line.rsplit_once('(').unwrap().1;
    let mut numbers = inner
        .split(|c: char| !c.is_ascii_digit())
        .filter(|s| !s.is_empty())
        .map(|s| s.parse::<u64>().unwrap());
    (numbers.next().unwrap(), numbers.next().unwrap())
}

/// Reduces `source` into `dir/out.py` with `extra` flags; asserts success and returns the output
/// path and the `(after, before)` sizes.
pub fn reduce(source: &Path, dir: &Path, extra: &[&str]) -> (PathBuf, (u64, u64)) {
    let out = dir.join("out.py");
    let assert = minrepro()
        .arg("python")
        .arg(source)
        .arg("-o")
        .arg(&out)
        .args(["-q", "--python"])
        .arg(python())
        .args(extra)
        .assert()
        .success();
    let sizes = sizes(&assert.get_output().stdout);
    (out, sizes)
}

/// A finished reduction of an example program, its output run by the real interpreter.
pub struct Reduced {
    /// Keeps the output's directory alive.
    pub _dir: tempfile::TempDir,
    /// The `--err-msg` it was reduced for.
    pub msg: String,
    /// The reduced file.
    pub out: PathBuf,
    /// Its size in tokens.
    pub after: u64,
    /// The original's size in tokens.
    pub was: u64,
    /// The reduced file run by `python3` from the current directory.
    pub run: Output,
}

impl Reduced {
    /// Asserts the output is at most `1/factor` of the original's size.
    pub fn assert_shrunk(&self, factor: u64) {
        let (after, was) = (self.after, self.was);
        assert!(
            after * factor < was,
            "{after} tokens is not 1/{factor} of {was}"
        );
    }

    /// Asserts the output is at most `1/factor` of the original's size and still fails as the
    /// original did: its run prints the `--err-msg` and ends with an `exception` traceback line.
    pub fn assert_still_fails(&self, factor: u64, exception: &str) {
        self.assert_shrunk(factor);
        let output = self.output();
        assert!(
            output.contains(&self.msg),
            "{:?} missing from:\n{output}",
            self.msg
        );
        let last = last_stderr_line(&self.run);
        assert!(last.starts_with(exception), "{last}");
    }

    /// stdout and stderr of the output's run.
    pub fn output(&self) -> String {
        all_output(&self.run)
    }

    /// The reduced text.
    pub fn text(&self) -> String {
        std::fs::read_to_string(&self.out).unwrap()
    }
}

/// Reduces `examples/python/NAME` for `--err-msg MSG` with `extra` flags into a fresh directory,
/// then runs the output (with `pythonpath` on the module search path).
pub fn reduce_example(name: &str, msg: &str, extra: &[&str], pythonpath: Option<&Path>) -> Reduced {
    let dir = tempfile::tempdir().unwrap();
    let flags = [&["--err-msg", msg][..], extra].concat();
    let (out, (after, was)) = reduce(&example(name), dir.path(), &flags);
    let run = run_python(&out, pythonpath);
    Reduced {
        _dir: dir,
        msg: msg.to_owned(),
        out,
        after,
        was,
        run,
    }
}

/// `minrepro python SOURCE --err-msg MSG -o OUT`, ready for more flags.
pub fn python_command(source: &Path, err_msg: &str, out: &Path) -> assert_cmd::Command {
    let mut command = minrepro();
    command
        .arg("python")
        .arg(source)
        .args(["--err-msg", err_msg, "-o"])
        .arg(out);
    command
}

/// `minrepro python SOURCE --err-msg MSG -o OUT --python PYTHON EXTRA` run to its end in `dir`
/// (see [`super::run_in`]), with every path relative to `dir`.
pub fn run_python_in(dir: &Path, source: &str, err_msg: &str, out: &str, extra: &[&str]) -> Output {
    let python = python().to_str().unwrap();
    let args = [
        "python",
        source,
        "--err-msg",
        err_msg,
        "-o",
        out,
        "--python",
        python,
    ];
    super::run_in(dir, &[&args[..], extra].concat())
}

/// Runs `command`, asserts its exit code, and returns its stderr.
pub fn stderr_of(command: &mut assert_cmd::Command, code: i32) -> String {
    let assert = command.assert().code(code);
    String::from_utf8_lossy(&assert.get_output().stderr).into_owned()
}

/// Runs `command`, which must fail (exit 1) naming every one of `needles` and write nothing at
/// `out`; returns its stderr.
pub fn refused(command: &mut assert_cmd::Command, out: &Path, needles: &[&str]) -> String {
    let stderr = stderr_of(command, 1);
    for needle in needles {
        assert!(stderr.contains(needle), "{needle:?} not in {stderr}");
    }
    assert!(!out.exists(), "{} was written", out.display());
    stderr
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
    let out = area.out_py();
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

/// `--err-msg needle --backend BACKEND --timeout SECONDS`: how a staged program is reduced.
pub fn staged_flags<'a>(backend: &'a str, timeout: &'a str) -> [&'a str; 6] {
    [
        "--err-msg",
        "needle",
        "--backend",
        backend,
        "--timeout",
        timeout,
    ]
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
