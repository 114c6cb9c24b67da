//! A real single-node Slurm cluster for the `--launcher slurm` tests, started and stopped with
//! `scripts/slurm-local.sh` (slurmctld and slurmd on 127.0.0.1, configuration in a temporary
//! directory). Slurm's ports are fixed, so one test function owns the cluster and runs every
//! scenario in turn.

use std::path::PathBuf;
use std::process::Command;
use std::time::{Duration, Instant};

/// A running cluster; stopped when dropped (also when a scenario panics).
pub struct Cluster {
    dir: tempfile::TempDir,
    /// A host-wide lock held while the cluster runs: test processes of other checkouts on this
    /// host wait for it instead of fighting over the fixed ports.
    _lock: std::os::unix::net::UnixListener,
}

/// Takes the host-wide lock of the test clusters (blocking until another test process is done):
/// a Unix socket bound to an abstract name, which exists only while its holder lives and leaves
/// no file anywhere (a lock file in /tmp would stay behind).
fn lock_host() -> std::os::unix::net::UnixListener {
    use std::os::linux::net::SocketAddrExt;
    let name = std::os::unix::net::SocketAddr::from_abstract_name(b"minrepro-slurm-test-lock")
        .expect("an abstract socket name");
    loop {
        match std::os::unix::net::UnixListener::bind_addr(&name) {
            Ok(listener) => return listener,
            Err(e) if e.kind() == std::io::ErrorKind::AddrInUse => {
                std::thread::sleep(Duration::from_millis(200))
            }
            Err(e) => panic!("cannot take the Slurm test lock: {e}"),
        }
    }
}

fn script() -> PathBuf {
    super::repo_root().join("scripts/slurm-local.sh")
}

impl Cluster {
    /// Starts the cluster, or says on stderr why it cannot and returns `None` (not root, Slurm
    /// missing and not installable, another cluster on the ports). With `MINREPRO_REQUIRE_SLURM=1`
    /// (for CI) not starting is a failure instead.
    pub fn start() -> Option<Cluster> {
        let lock = lock_host();
        let dir = tempfile::Builder::new()
            .prefix("minrepro-slurm-test-")
            .tempdir()
            .unwrap();
        let output = Command::new(script())
            .arg("start")
            .env("MINREPRO_SLURM_DIR", dir.path())
            .output()
            .expect("scripts/slurm-local.sh runs");
        if output.status.success() {
            return Some(Cluster { dir, _lock: lock });
        }
        let reason = String::from_utf8_lossy(&output.stderr).trim().to_owned();
        if std::env::var_os("MINREPRO_REQUIRE_SLURM").is_some_and(|v| v == "1") {
            panic!("MINREPRO_REQUIRE_SLURM=1, but Slurm did not start: {reason}");
        }
        eprintln!("skipping the Slurm tests: {reason}");
        None
    }

    /// The configuration every Slurm command must be pointed at (`SLURM_CONF`).
    pub fn conf(&self) -> PathBuf {
        self.dir.path().join("slurm.conf")
    }

    /// Names of the jobs Slurm still knows as pending, running or completing.
    pub fn jobs(&self) -> Vec<String> {
        let output = Command::new("squeue")
            .args(["--noheader", "--format=%j"])
            .env("SLURM_CONF", self.conf())
            .output()
            .expect("squeue runs");
        assert!(output.status.success(), "squeue failed: {output:?}");
        String::from_utf8_lossy(&output.stdout)
            .lines()
            .map(str::to_owned)
            .collect()
    }

    /// Waits until no job is left; panics with the jobs if some stay for a minute.
    pub fn assert_no_jobs(&self, after: &str) {
        wait_until(&format!("no Slurm job left after {after}"), || {
            let jobs = self.jobs();
            jobs.is_empty().then_some(()).ok_or(format!("{jobs:?}"))
        });
    }
}

impl Drop for Cluster {
    fn drop(&mut self) {
        let _ = Command::new(script())
            .arg("stop")
            .env("MINREPRO_SLURM_DIR", self.dir.path())
            .status();
    }
}

/// Polls `check` until it returns `Ok`; panics with its last complaint after a minute. Only an
/// upper bound on how long cleanup may take, never a timing assertion.
pub fn wait_until<T>(what: &str, mut check: impl FnMut() -> Result<T, String>) -> T {
    let until = Instant::now() + Duration::from_secs(60);
    loop {
        match check() {
            Ok(value) => return value,
            Err(complaint) if Instant::now() >= until => panic!("{what}: still {complaint}"),
            Err(_) => std::thread::sleep(Duration::from_millis(100)),
        }
    }
}
