//! Helpers shared by every integration-test module: the binary under test, the repository's
//! files, executable scripts, a private area with its own TMPDIR (for both front ends), and small
//! readers of a run's results. Front-end specifics live in [`bundle`] and [`python`], process
//! hunting in [`procs`], the slot predicate in [`slots`] and the local Slurm cluster in [`slurm`].

use std::path::{Path, PathBuf};
use std::process::{Command as StdCommand, Output, Stdio};

pub mod bundle;
pub mod procs;
pub mod python;
pub mod slots;
pub mod slurm;

/// The `minrepro` binary under test.
pub fn binary() -> &'static Path {
    Path::new(env!("CARGO_BIN_EXE_minrepro"))
}

/// The `minrepro` binary under test as a command, with [`search_path`]: every test starts the
/// binary through this (or [`minrepro`]).
pub fn binary_command() -> StdCommand {
    let mut command = StdCommand::new(binary());
    command.env("PATH", search_path());
    command
}

/// The `minrepro` binary under test as an `assert_cmd` command (see [`binary_command`]).
pub fn minrepro() -> assert_cmd::Command {
    assert_cmd::Command::from_std(binary_command())
}

/// The PATH the binary under test runs with: the test process's own, with a directory first in
/// which `python3` is [`python::python`], so shell predicates that run `python3` start the same
/// fast interpreter as the Python front end's tests (not a slow pyenv shim).
pub fn search_path() -> &'static std::ffi::OsStr {
    static PATH: std::sync::OnceLock<std::ffi::OsString> = std::sync::OnceLock::new();
    PATH.get_or_init(|| {
        // In cargo's per-target scratch directory, one directory per interpreter (test processes
        // with another MINREPRO_TEST_PYTHON may run at the same time); a process setting up the
        // same one at the same time is why the link is made under a private name and renamed.
        use std::hash::{Hash, Hasher};
        let mut hasher = std::collections::hash_map::DefaultHasher::new();
        python::python().hash(&mut hasher);
        let bin = Path::new(env!("CARGO_TARGET_TMPDIR"))
            .join(format!("python-bin-{:016x}", hasher.finish()));
        std::fs::create_dir_all(&bin).unwrap();
        let staged = bin.join(format!("python3.{}", std::process::id()));
        std::fs::remove_file(&staged).ok();
        std::os::unix::fs::symlink(python::python(), &staged).unwrap();
        std::fs::rename(&staged, bin.join("python3")).unwrap();
        let inherited = std::env::var_os("PATH").unwrap_or_default();
        std::env::join_paths(std::iter::once(bin).chain(std::env::split_paths(&inherited))).unwrap()
    })
}

/// The repository root.
pub fn repo_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// The committed AMDGPU code-object fixtures.
pub fn fixtures() -> PathBuf {
    repo_root().join("crates/bundle/tests/fixtures")
}

/// `minrepro ARGS` ready to run in `dir`, with its temporary files there too.
pub fn command_in(dir: &Path, args: &[&str]) -> StdCommand {
    let mut command = binary_command();
    command.args(args).current_dir(dir).env("TMPDIR", dir);
    command
}

/// `minrepro ARGS` run to its end in `dir`, with its temporary files there too.
pub fn run_in(dir: &Path, args: &[&str]) -> Output {
    command_in(dir, args).output().unwrap()
}

/// `minrepro ARGS` started in `dir` (as [`run_in`]) and sent SIGINT once it wrote `out` shorter
/// than `len` bytes; asserts that it then exited 130 (interrupted, best result kept).
pub fn interrupt_once_smaller(dir: &Path, args: &[&str], out: &Path, len: usize) {
    let mut child = command_in(dir, args).spawn().unwrap();
    wait_until_smaller(out, len);
    assert!(send("INT", child.id()));
    assert_eq!(child.wait().unwrap().code(), Some(130));
}

/// Waits (at most a minute) until the file at `path` exists and is shorter than `len` bytes:
/// a reduction accepted a smaller candidate.
pub fn wait_until_smaller(path: &Path, len: usize) {
    let start = std::time::Instant::now();
    while std::fs::read(path).map_or(true, |b| b.len() >= len)
        && start.elapsed() < std::time::Duration::from_secs(60)
    {
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
}

/// Makes `path` executable (mode 0755).
pub fn make_executable(path: &Path) {
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(path, std::fs::Permissions::from_mode(0o755)).unwrap();
}

/// Writes an executable script `dir/name`.
pub fn script(dir: &Path, name: &str, body: &str) -> PathBuf {
    let path = dir.join(name);
    std::fs::write(&path, body).unwrap();
    make_executable(&path);
    path
}

/// A shell predicate `dir/exit-CODE.sh` that only exits `code`.
pub fn exiting(dir: &Path, code: i32) -> PathBuf {
    script(
        dir,
        &format!("exit-{code}.sh"),
        &format!("#!/bin/sh\nexit {code}\n"),
    )
}

/// A shell predicate `dir/name` that appends a line to `count` (after running `extra`) and then
/// exits `code`: [`runs`] tells how often it ran.
pub fn counting(dir: &Path, name: &str, count: &Path, code: i32, extra: &str) -> PathBuf {
    script(
        dir,
        name,
        &format!(
            "#!/bin/sh\n{extra}\necho run >> '{}'\nexit {code}\n",
            count.display()
        ),
    )
}

/// How many runs a counting predicate recorded in `count` (0 when it never ran).
pub fn runs(count: &Path) -> usize {
    std::fs::read_to_string(count).map_or(0, |t| t.lines().count())
}

/// A predicate `dir/mark.sh` that records every run in `dir/ran` and is always interesting;
/// returns both paths.
pub fn marking_predicate(dir: &Path) -> (PathBuf, PathBuf) {
    let marker = dir.join("ran");
    (counting(dir, "mark.sh", &marker, 0, ""), marker)
}

/// The names of the entries of `dir`, sorted.
pub fn names(dir: &Path) -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    names
}

/// Asserts a run exited with `code` and its stderr names `needle`; returns the stderr.
pub fn assert_fails(output: &Output, code: i32, needle: &str) -> String {
    assert_fails_naming(output, code, &[needle])
}

/// Asserts a run exited with `code` and its stderr names every one of `needles`; returns the
/// stderr.
pub fn assert_fails_naming(output: &Output, code: i32, needles: &[&str]) -> String {
    let stderr = stderr(output);
    assert_eq!(output.status.code(), Some(code), "{stderr}");
    for needle in needles {
        assert!(stderr.contains(needle), "{needle:?} not in {stderr}");
    }
    stderr
}

/// Asserts a run (of minrepro or a tool) succeeded, showing its status and both streams if not.
pub fn assert_success(output: &Output) {
    assert!(
        output.status.success(),
        "status {:?}\nstdout: {}\nstderr: {}",
        output.status,
        stdout(output),
        stderr(output)
    );
}

/// Asserts the file at `path` holds exactly `expected` (an input a run must leave alone).
pub fn assert_file_holds(path: &Path, expected: impl AsRef<[u8]>) {
    let found = std::fs::read(path).unwrap();
    assert!(
        found == expected.as_ref(),
        "{} changed: {:?}",
        path.display(),
        String::from_utf8_lossy(&found)
    );
}

/// Asserts a reduction failed (exit 1) naming `needle` and published nothing at `out`; returns
/// its stderr.
pub fn assert_nothing_published(output: &Output, out: &Path, needle: &str) -> String {
    let stderr = assert_fails(output, 1, needle);
    assert!(!out.exists(), "published after a failure: {stderr}");
    stderr
}

/// The JSON document in `path`.
pub fn json(path: &Path) -> serde_json::Value {
    serde_json::from_slice(&std::fs::read(path).unwrap()).unwrap()
}

/// An output's `metadata.json`.
pub fn metadata(out: &Path) -> serde_json::Value {
    json(&out.join("metadata.json"))
}

/// An output's `bundle.json`.
pub fn bundle_json(out: &Path) -> serde_json::Value {
    json(&out.join("bundle.json"))
}

/// A run's stderr as text.
pub fn stderr(output: &Output) -> String {
    String::from_utf8_lossy(&output.stderr).into_owned()
}

/// Runs `command`, asserts it succeeded, and returns its stdout as text.
pub fn success_stdout(command: &mut assert_cmd::Command) -> String {
    stdout(command.assert().success().get_output())
}

/// A run's stdout as text.
pub fn stdout(output: &Output) -> String {
    String::from_utf8_lossy(&output.stdout).into_owned()
}

/// A path as UTF-8 text (test paths always are).
pub fn text(path: &Path) -> &str {
    path.to_str().unwrap()
}

/// Sends `signal` (a name such as `INT`) to `pid` with kill(1); returns whether kill succeeded
/// (false when the process is already gone).
pub fn send(signal: &str, pid: u32) -> bool {
    StdCommand::new("kill")
        .arg(format!("-{signal}"))
        .arg(pid.to_string())
        .status()
        .is_ok_and(|s| s.success())
}

/// A private test area: `in/` for inputs, `tmp/` as minrepro's TMPDIR (so leftovers of a run
/// are seen), and room for outputs. Removed when dropped.
pub struct Area {
    /// Root of everything.
    pub root: tempfile::TempDir,
}

impl Area {
    /// A fresh area.
    pub fn new() -> Self {
        let root = tempfile::tempdir().unwrap();
        std::fs::create_dir(root.path().join("tmp")).unwrap();
        std::fs::create_dir(root.path().join("in")).unwrap();
        Area { root }
    }

    /// The input directory.
    pub fn input(&self) -> PathBuf {
        self.root.path().join("in")
    }

    /// Writes `contents` to `in/NAME` and returns its path.
    pub fn write_input(&self, name: &str, contents: impl AsRef<[u8]>) -> PathBuf {
        let path = self.input().join(name);
        std::fs::write(&path, contents).unwrap();
        path
    }

    /// Writes an executable script `in/NAME` and returns its path.
    pub fn script(&self, name: &str, body: &str) -> PathBuf {
        script(&self.input(), name, body)
    }

    /// Path for an output (not created).
    pub fn out(&self, name: &str) -> PathBuf {
        self.root.path().join(name)
    }

    /// The private TMPDIR.
    pub fn tmp(&self) -> PathBuf {
        self.root.path().join("tmp")
    }

    /// Whether the private TMPDIR is empty (no leftover candidate workspaces).
    pub fn tmp_is_empty(&self) -> bool {
        std::fs::read_dir(self.tmp()).unwrap().next().is_none()
    }

    /// Asserts the private TMPDIR is empty, naming what was left.
    pub fn assert_tmp_empty(&self) {
        let left = names(&self.tmp());
        assert!(left.is_empty(), "left in TMPDIR: {left:?}");
    }

    /// Names in the area's root that contain any of `parts` (leftovers next to an output).
    pub fn root_names_with(&self, parts: &[&str]) -> Vec<String> {
        let mut found = names(self.root.path());
        found.retain(|n| parts.iter().any(|p| n.contains(p)));
        found
    }

    /// `minrepro SUBCOMMAND -q` run from the area with the private TMPDIR, no stdin and piped
    /// output, ready for more arguments; spawn it to learn its pid.
    pub fn process(&self, subcommand: &str) -> StdCommand {
        let mut command = binary_command();
        command
            .env("TMPDIR", self.tmp())
            .current_dir(self.root.path())
            .args([subcommand, "-q"])
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped());
        command
    }
}

/// Polls `done` every 20 ms until it holds or `seconds` have passed; returns whether it holds.
/// Only an upper bound on how long something may take, never a timing assertion.
pub fn wait_for(seconds: u64, mut done: impl FnMut() -> bool) -> bool {
    let give_up = std::time::Instant::now() + std::time::Duration::from_secs(seconds);
    while !done() {
        if std::time::Instant::now() >= give_up {
            return done();
        }
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    true
}

/// Spawns `command` and waits for it; returns its pid and output.
pub fn run_with_pid(command: &mut StdCommand) -> (u32, Output) {
    let child = command.spawn().unwrap();
    let pid = child.id();
    (pid, child.wait_with_output().unwrap())
}

/// Runs `command` to the end with piped output; returns its pid, its output and the peak RSS (KiB)
/// of that one process. The peak is read with `wait4` for its pid: `RUSAGE_CHILDREN` would report
/// the largest of every child of this process, which runs other tests side by side.
pub fn run_measured(command: &mut StdCommand) -> (u32, Output, i64) {
    use std::io::Read;
    use std::os::unix::process::ExitStatusExt;
    // Reaped below with wait4, which std's handle cannot do.
    #[allow(clippy::zombie_processes)]
    let mut child = command
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let pid = child.id();
    let mut err = child.stderr.take().unwrap();
    let stderr = std::thread::spawn(move || {
        let mut bytes = Vec::new();
        err.read_to_end(&mut bytes).unwrap();
        bytes
    });
    let mut stdout = Vec::new();
    child
        .stdout
        .take()
        .unwrap()
        .read_to_end(&mut stdout)
        .unwrap();
    let stderr = stderr.join().unwrap();
    let mut status = 0;
    // SAFETY: waits for our own child (its handle never waits for it) and fills the structs we
    // pass; a specific pid, so no other test's child is reaped.
    let usage = unsafe {
        let mut usage: libc::rusage = std::mem::zeroed();
        let waited = libc::wait4(pid as i32, &mut status, 0, &mut usage);
        assert_eq!(waited, pid as i32, "wait4 failed");
        usage
    };
    let status = std::process::ExitStatus::from_raw(status);
    let output = Output {
        status,
        stdout,
        stderr,
    };
    (pid, output, usage.ru_maxrss)
}
