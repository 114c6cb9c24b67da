//! Each predicate run's private `TMPDIR` (also `TMP`, `TEMP`): a directory beside the
//! candidate's workspace, empty when the run starts and removed when it ends, whether it exited,
//! timed out or was cancelled. The script makes a `mktemp` file there and removes it only if it
//! ends normally, as test scripts do.

use std::path::{Path, PathBuf};
use std::time::Duration;

use minrepro_predicate::{CancelFlag, EvalError, Predicate, Status};

use crate::{config, processes_lock, script_in_temp};

/// A script that logs `$TMPDIR $TMP $TEMP` into `{state}/seen`, makes a `mktemp` file, then
/// runs `then` and removes the file.
const BODY: &str = "echo \"$TMPDIR $TMP $TEMP\" >> \"$1/seen\"\nt=$(mktemp) || exit 3\n\
                    touch \"$1/made\"\nTHEN\nrm -f \"$t\"";

/// The directory the one run logged, after checking that all three variables named it and that
/// it sat beside the workspace `ws`.
fn logged_dir(state: &Path, ws: &Path) -> PathBuf {
    let seen = std::fs::read_to_string(state.join("seen")).unwrap();
    let vars: Vec<&str> = seen.trim_end().split(' ').collect();
    assert_eq!(vars.len(), 3, "{seen}");
    assert!(vars.iter().all(|v| *v == vars[0]), "{seen}");
    let dir = PathBuf::from(vars[0]);
    assert_eq!(dir.parent(), ws.parent(), "{seen}");
    assert_ne!(dir, ws);
    dir
}

fn evaluate(
    then: &str,
    timeout: f64,
    cancel_when_made: bool,
) -> (Result<Status, EvalError>, PathBuf) {
    let (dir, exe) = script_in_temp(&BODY.replace("THEN", then));
    let mut cfg = config(&exe, &["{state}"]);
    cfg.timeout_secs = timeout;
    let predicate = Predicate::new(cfg).unwrap();
    let root = tempfile::tempdir().unwrap();
    let ws = root.path().join("ws");
    std::fs::create_dir(&ws).unwrap();
    let cancel = CancelFlag::new();
    let watcher = cancel_when_made.then(|| {
        let (remote, made) = (cancel.clone(), dir.path().join("made"));
        std::thread::spawn(move || {
            while !made.exists() {
                std::thread::sleep(Duration::from_millis(5));
            }
            remote.cancel();
        })
    });
    let state = dir.path().to_string_lossy().into_owned();
    let lookup = |name: &str| (name == "state").then(|| state.clone());
    let result = predicate
        .evaluate(&ws, &lookup, &cancel)
        .map(|outcome| outcome.status);
    if let Some(watcher) = watcher {
        watcher.join().unwrap();
    }
    let scratch = logged_dir(dir.path(), &ws);
    assert!(!scratch.exists(), "{} was left", scratch.display());
    // Only the workspace (its owner's to remove) is left in the root.
    let left: Vec<_> = std::fs::read_dir(root.path())
        .unwrap()
        .map(|e| e.unwrap().file_name())
        .collect();
    assert_eq!(left, vec![std::ffi::OsString::from("ws")]);
    (result, scratch)
}

#[test]
fn a_runs_tmpdir_is_removed_after_a_normal_end_a_timeout_and_a_cancellation() {
    let _serial = processes_lock();
    let (normal, _) = evaluate("exit 0", 30.0, false);
    assert_eq!(normal, Ok(Status::Interesting));
    // Killed at the timeout: the mktemp file was never removed by the script.
    let (timed_out, _) = evaluate("sleep 1000", 0.3, false);
    assert_eq!(timed_out, Ok(Status::Timeout));
    let (cancelled, _) = evaluate("sleep 1000", 30.0, true);
    assert_eq!(cancelled, Err(EvalError::Cancelled));
}
