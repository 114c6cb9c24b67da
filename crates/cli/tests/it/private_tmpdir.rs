//! Each predicate run has a private `TMPDIR` (also `TMP`, `TEMP`), removed after the run: what a
//! compiler or `mktemp` leaves there when a run is cancelled, times out, is interrupted or
//! outlives a SIGKILLed minrepro never reaches the user's `TMPDIR`. The predicate compiles with
//! gcc (which writes `cc*.s` into `$TMPDIR` and leaves it when killed) and holds a `mktemp`
//! file that it removes only when it ends normally.

use std::path::{Path, PathBuf};
use std::process::Stdio;

use crate::support::*;

/// A C file of `n` functions; only `needle` matters.
fn c_source(area: &Area) -> PathBuf {
    let mut text = String::new();
    for i in 0..24 {
        text.push_str(&format!(
            "int f{i}(int x) {{ return x * {i} + {}; }}\n",
            i % 5
        ));
    }
    text.push_str("int needle(void) { return 42; }\n");
    area.write_input("input.c", text)
}

/// The predicate: a `mktemp` file and a gcc compilation in `$TMPDIR`, some time while both
/// exist (so that cancellations and kills find them), then clean-up only on a normal end. It
/// logs the `TMPDIR` each run saw (and the other two variables) into `seen`.
fn predicate(area: &Area, seen: &Path) -> PathBuf {
    area.script(
        "compile.sh",
        &format!(
            "#!/bin/sh\necho \"$TMPDIR $TMP $TEMP\" >> '{seen}'\nt=$(mktemp) || exit 3\n\
             gcc -c \"$1\" -o \"$t.o\" || exit 4\nsleep 0.1\ngrep -q needle \"$1\"\ns=$?\n\
             rm -f \"$t\" \"$t.o\"\nexit $s\n",
            seen = seen.display()
        ),
    )
}

fn gcc_available() -> bool {
    std::process::Command::new("gcc")
        .arg("--version")
        .stdout(Stdio::null())
        .status()
        .is_ok_and(|s| s.success())
}

/// Every run saw one directory as all three variables, inside minrepro's temporary root in the
/// user's TMPDIR, never the user's TMPDIR itself.
fn assert_private(area: &Area, seen: &Path) {
    let text = std::fs::read_to_string(seen).unwrap();
    assert!(!text.is_empty(), "no run was logged");
    let user = area.tmp();
    for line in text.lines() {
        let vars: Vec<&str> = line.split(' ').collect();
        assert_eq!(vars.len(), 3, "{line}");
        assert!(vars.iter().all(|v| *v == vars[0]), "{line}");
        let dir = Path::new(vars[0]);
        let inside = dir.strip_prefix(&user).unwrap_or_else(|_| panic!("{line}"));
        let root = inside
            .components()
            .next()
            .unwrap()
            .as_os_str()
            .to_string_lossy();
        assert!(
            root.starts_with("minrepro-") && inside.components().count() == 2,
            "{line}"
        );
    }
}

#[test]
fn predicates_leave_nothing_in_the_users_tmpdir() {
    if !gcc_available() {
        eprintln!("skipped: gcc is not installed");
        return;
    }
    let area = Area::new();
    let source = c_source(&area);
    let seen = area.out("seen");
    let predicate = predicate(&area, &seen);
    let command = |out: &str, stats: Option<&str>| {
        let mut command = area.process("file");
        command
            .args(["-j", "4", "--exact", "--timeout", "30"])
            .arg("--predicate")
            .arg(&predicate)
            .arg("--predicate-arg={file}")
            .arg(&source)
            .arg("-o")
            .arg(area.out(out));
        if let Some(stats) = stats {
            command.arg("--stats-json").arg(area.out(stats));
        }
        command
    };
    // A whole run: speculative runs are cancelled as their batches are decided.
    let output = command("whole.c", Some("whole.json")).output().unwrap();
    assert!(output.status.success(), "{}", stderr(&output));
    let cancelled = json(&area.out("whole.json"))["cancelled_runs"]
        .as_u64()
        .unwrap();
    assert!(
        cancelled > 0,
        "no run was cancelled; the test shows nothing"
    );
    area.assert_tmp_empty();
    // An interrupt while runs are going.
    for (signal, label) in [("INT", "interrupted"), ("KILL", "SIGKILLed")] {
        let lines_before = std::fs::read_to_string(&seen).unwrap().lines().count();
        let mut child = command(label, None)
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        let started = wait_for(60, || {
            std::fs::read_to_string(&seen).unwrap().lines().count() >= lines_before + 12
        });
        assert!(send(signal, child.id()), "{label}: already gone");
        child.wait().unwrap();
        assert!(started, "{label}: too few runs started");
        // After a SIGKILL the guardian ends the runs and removes minrepro's temporary root.
        let clean = wait_for(30, || area.tmp_is_empty());
        assert!(clean, "{label}: left in TMPDIR: {:?}", names(&area.tmp()));
    }
    assert_private(&area, &seen);
}
