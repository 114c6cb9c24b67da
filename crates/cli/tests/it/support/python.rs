//! Helpers shared by the `minrepro python` end-to-end tests: the real binary, the real
//! interpreter, the example programs and checks on reduced files.

#![allow(dead_code)]

use std::path::{Path, PathBuf};
use std::process::Output;
use std::sync::OnceLock;

pub use super::python_reliability as reliability;

/// The `minrepro` binary under test.
pub fn minrepro() -> assert_cmd::Command {
    assert_cmd::Command::new(env!("CARGO_BIN_EXE_minrepro"))
}

/// `examples/python/NAME`.
pub fn example(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../examples/python")
        .join(name)
}

/// The real interpreter behind `python3` (pyenv shims are slow scripts).
pub fn python() -> &'static Path {
    static PYTHON: OnceLock<PathBuf> = OnceLock::new();
    PYTHON.get_or_init(|| {
        let out = std::process::Command::new("python3")
            .args(["-c", "import sys; print(sys.executable)"])
            .output()
            .expect("python3 runs");
        PathBuf::from(String::from_utf8(out.stdout).unwrap().trim())
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

/// Runs `command`, asserts its exit code, and returns its stderr.
pub fn stderr_of(command: &mut assert_cmd::Command, code: i32) -> String {
    let assert = command.assert().code(code);
    String::from_utf8_lossy(&assert.get_output().stderr).into_owned()
}
