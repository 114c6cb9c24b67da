//! A predicate that checks the slot machinery from the inside, shared by the local slot tests and
//! the Slurm tests: it takes its slot's lock (a `flock` on `LOCKS/slot-N`, released by the
//! kernel even when the run is killed) and records a loud error if the lock is already held, so
//! two running candidates with the same slot cannot go unnoticed.

use std::path::{Path, PathBuf};

use super::script;

/// Writes the slot-checking predicate into `dir`. Arguments: `{slot} LOCKS INNER ARGS…`; it
/// checks that `{slot}`, `MINREPRO_SLOT`, `GPU_A` and `GPU_B` agree, holds the slot's lock while
/// it runs `INNER ARGS…` (its exit code is the verdict), appends the slot to `LOCKS/slots`, and
/// appends any violation to `LOCKS/errors`. With `SLOT_TEST_WAIT=1` in its environment, runs
/// wait (at most 5 s, until one run saw it) for another slot to be held at the same time and
/// then create `LOCKS/overlap`: proof that runs did overlap.
pub fn slot_predicate(dir: &Path) -> PathBuf {
    script(
        dir,
        "slot-check.py",
        r#"#!/usr/bin/python3 -S
import fcntl, os, subprocess, sys, time
slot, locks, inner = sys.argv[1], sys.argv[2], sys.argv[3:]
env = os.environ

def fail(message):
    with open(os.path.join(locks, "errors"), "a") as f:
        f.write(message + "\n")
    sys.exit(90)

values = [slot, env.get("MINREPRO_SLOT"), env.get("GPU_A"), env.get("GPU_B")]
if len(set(values)) != 1:
    fail("slot values disagree: %r" % values)
mine = os.open(os.path.join(locks, "slot-" + slot), os.O_CREAT | os.O_RDWR)
try:
    fcntl.flock(mine, fcntl.LOCK_EX | fcntl.LOCK_NB)
except OSError:
    fail("slot %s is already held by a running candidate" % slot)
with open(os.path.join(locks, "slots"), "a") as f:
    f.write(slot + "\n")

def other_held():
    for name in os.listdir(locks):
        if not name.startswith("slot-") or name == "slot-" + slot:
            continue
        fd = os.open(os.path.join(locks, name), os.O_RDWR)
        try:
            fcntl.flock(fd, fcntl.LOCK_SH | fcntl.LOCK_NB)
        except OSError:
            return True
        finally:
            os.close(fd)
    return False

overlap = os.path.join(locks, "overlap")
if env.get("SLOT_TEST_WAIT") == "1" and not os.path.exists(overlap):
    deadline = time.monotonic() + 5
    while time.monotonic() < deadline and not os.path.exists(overlap):
        if other_held():
            open(overlap, "w").close()
            break
        time.sleep(0.02)
sys.exit(subprocess.call(inner))
"#,
    )
}

/// The slots recorded in `LOCKS/slots`, and the violations in `LOCKS/errors` (empty if none).
pub fn recorded(locks: &Path) -> (Vec<u32>, String) {
    let slots = std::fs::read_to_string(locks.join("slots"))
        .unwrap_or_default()
        .lines()
        .map(|l| l.parse().unwrap())
        .collect();
    let errors = std::fs::read_to_string(locks.join("errors")).unwrap_or_default();
    (slots, errors)
}

/// Forgets what earlier runs recorded in `locks`.
pub fn reset(locks: &Path) {
    for name in ["slots", "errors", "overlap"] {
        let _ = std::fs::remove_file(locks.join(name));
    }
}
