//! Real child processes against the predicate runner: cleanup of descendants, timeouts, escaped
//! daemons, flakiness, launch errors, identity changes and cancellation.

use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use minrepro_predicate::{Acceptance, CancelFlag, EvalError, Predicate, PredicateConfig, Status};

use crate::{config, executable, installed, processes_lock, script, script_in_temp};

/// A change to a configuration under test.
type Mutation = dyn Fn(&mut PredicateConfig);

fn lookup(state: &Path) -> impl Fn(&str) -> Option<String> + '_ {
    move |name| match name {
        "state" => Some(state.to_string_lossy().into_owned()),
        _ => None,
    }
}

/// Evaluates `config` once in a fresh workspace, with `{state}` naming `state`.
fn evaluate_once(config: PredicateConfig, state: &Path) -> minrepro_predicate::Outcome {
    let predicate = Predicate::new(config).unwrap();
    let ws = tempfile::tempdir().unwrap();
    predicate
        .evaluate(ws.path(), &lookup(state), &CancelFlag::new())
        .unwrap()
}

/// Waits (bounded) until a process no longer exists or is a zombie nobody will reap.
fn gone(pid: i32) -> bool {
    let until = Instant::now() + Duration::from_secs(5);
    loop {
        let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).unwrap_or_default();
        let state = stat
            .rsplit_once(')')
            .and_then(|(_, rest)| rest.trim_start().chars().next());
        if state.is_none() || state == Some('Z') && Instant::now() > until {
            return state.is_none();
        }
        if Instant::now() > until {
            return false;
        }
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// Asserts that every process listed in `dir/pids` is gone; `what` names them for the message.
fn assert_all_gone(dir: &Path, what: &str) {
    for pid in read_pids(&dir.join("pids")) {
        assert!(gone(pid), "{what}: process {pid} survived");
    }
}

fn read_pids(path: &Path) -> Vec<i32> {
    std::fs::read_to_string(path)
        .unwrap()
        .split_whitespace()
        .map(|p| p.parse().unwrap())
        .collect()
}

#[test]
fn background_descendants_die_after_a_normal_exit() {
    let _serial = processes_lock();
    let (dir, exe) = script_in_temp("sleep 1000 & echo $! >> \"$1/pids\"\n(sleep 1000; echo late) & echo $! >> \"$1/pids\"\nexit 0");
    let outcome = evaluate_once(config(&exe, &["{state}"]), dir.path());
    assert_eq!(outcome.status, Status::Interesting);
    let pids = read_pids(&dir.path().join("pids"));
    assert_eq!(pids.len(), 2);
    for pid in pids {
        assert!(gone(pid), "background process {pid} survived");
    }
}

#[test]
fn timeout_kills_the_whole_group_and_is_not_interesting() {
    let _serial = processes_lock();
    let (dir, exe) =
        script_in_temp("sleep 1000 & echo $! >> \"$1/pids\"\ntrap '' TERM\nsleep 1000\nexit 0");
    let mut cfg = config(&exe, &["{state}"]);
    cfg.timeout_secs = 0.5;
    let outcome = evaluate_once(cfg, dir.path());
    assert_eq!(outcome.status, Status::Timeout);
    assert_eq!(outcome.exit_codes, vec![None]);
    assert_all_gone(dir.path(), "after the timeout");
}

#[test]
fn no_member_of_a_killed_group_is_left_when_the_verdict_is_returned() {
    let _serial = processes_lock();
    // Many group members, grandchildren behind subshells: all are SIGKILLed at the
    // timeout, and the verdict must not be reported before the kernel has ended every one.
    let (dir, exe) = script_in_temp(
        "echo $$ > \"$1/pgid\"\nfor i in 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16; do (sh -c 'sleep 1000 & sleep 1000' & sleep 1000) & done\nsleep 1000\nexit 0",
    );
    let mut cfg = config(&exe, &["{state}"]);
    cfg.timeout_secs = 0.5;
    let outcome = evaluate_once(cfg, dir.path());
    assert_eq!(outcome.status, Status::Timeout);
    let pgid: i32 = std::fs::read_to_string(dir.path().join("pgid"))
        .unwrap()
        .trim()
        .parse()
        .unwrap();
    // No waiting here: signal 0 to the group fails only once no process of it exists.
    // SAFETY: signal 0 sends nothing.
    let status = unsafe { libc::kill(-pgid, 0) };
    assert_eq!(
        status, -1,
        "a process of group {pgid} outlived the run's verdict"
    );
}

#[test]
fn setsid_daemon_holding_stdout_does_not_hang_us_and_is_killed() {
    let _serial = processes_lock();
    if !installed("setsid") {
        eprintln!("setsid not installed; skipping");
        return;
    }
    let (dir, exe) = script_in_temp("setsid sh -c 'echo $$ >> \"$0/pids\"; exec sleep 1000' \"$1\" &\nwhile [ ! -s \"$1/pids\" ]; do sleep 0.01; done\necho done\nexit 0");
    let outcome = evaluate_once(config(&exe, &["{state}"]), dir.path());
    assert_eq!(outcome.status, Status::Interesting);
    assert!(outcome.last_run.stdout.head.contains("done"));
    assert_all_gone(dir.path(), "escaped daemon");
}

/// A script `dir/NAME` that counts its runs in `{state}/NAME.n` (its argument) and exits with the
/// shell arithmetic `exit_code` of `n`, the runs before this one.
fn counting_script(dir: &Path, name: &str, exit_code: &str) -> PathBuf {
    let counter = format!("\"$1/{name}.n\"");
    let body = format!(
        "n=$(cat {counter} 2>/dev/null || echo 0); echo $((n+1)) > {counter}; exit $(({exit_code}))"
    );
    script(dir, name, &body)
}

#[test]
fn disagreeing_runs_are_flaky() {
    let _serial = processes_lock();
    let dir = tempfile::tempdir().unwrap();
    // Exit FIRST, FIRST + 1, FIRST, … using a counter kept outside the workspace: 0 then 1, and
    // two different non-interesting codes (3 and 4), are both flaky.
    for (name, first, runs, codes) in [
        ("p.sh", 0, 2, vec![Some(0), Some(1)]),
        ("q.sh", 3, 3, vec![Some(3), Some(4), Some(3)]),
    ] {
        let exe = counting_script(dir.path(), name, &format!("n % 2 + {first}"));
        let mut cfg = config(&exe, &["{state}"]);
        cfg.runs = runs;
        let outcome = evaluate_once(cfg, dir.path());
        assert_eq!(outcome.status, Status::Flaky, "{name}");
        assert_eq!(outcome.exit_codes, codes, "{name}");
    }
}

#[test]
fn k_of_n_runs_stop_once_the_verdict_is_decided() {
    let _serial = processes_lock();
    let dir = tempfile::tempdir().unwrap();
    // Exits 1, 1, 0, 0, 1, 1, … (a counter outside the workspace): interesting in half the runs.
    for (name, runs, min, status, codes) in [
        // The second interesting run, the fourth, decides it.
        (
            "a.sh",
            4,
            2,
            Status::Interesting,
            vec![Some(1), Some(1), Some(0), Some(0)],
        ),
        // Two failures: the two runs left cannot make three interesting ones.
        ("b.sh", 4, 3, Status::Uninteresting, vec![Some(1), Some(1)]),
        (
            "c.sh",
            8,
            1,
            Status::Interesting,
            vec![Some(1), Some(1), Some(0)],
        ),
    ] {
        let exe = counting_script(dir.path(), name, "1 - n / 2 % 2");
        let mut cfg = config(&exe, &["{state}"]);
        cfg.runs = runs;
        cfg.min_interesting = Some(min);
        let outcome = evaluate_once(cfg, dir.path());
        assert_eq!(outcome.status, status, "{name}");
        assert_eq!(outcome.exit_codes, codes, "{name}");
        let interesting = codes.iter().filter(|c| **c == Some(0)).count() as u32;
        assert_eq!(outcome.interesting_runs, Some(interesting), "{name}");
        // The counter saw exactly the runs reported: no run beyond the decision.
        let made = std::fs::read_to_string(dir.path().join(format!("{name}.n"))).unwrap();
        assert_eq!(made.trim(), codes.len().to_string(), "{name}");
    }
}

#[test]
fn runs_in_the_workspace_with_null_stdin_and_substring_acceptance() {
    let _serial = processes_lock();
    let (_dir, exe) = script_in_temp("pwd; cat; echo \"needle in $1\" >&2; exit 7");
    let ws = tempfile::tempdir().unwrap();
    let ws_text = ws.path().to_string_lossy().into_owned();
    let evaluate = |substring: &str| {
        let mut cfg = config(&exe, &["{workspace}"]);
        cfg.acceptance = Acceptance {
            exit_code: Some(7),
            substring: Some(substring.into()),
            output_check: None,
        };
        Predicate::new(cfg)
            .unwrap()
            .evaluate(
                ws.path(),
                &|name| (name == "workspace").then(|| ws_text.clone()),
                &CancelFlag::new(),
            )
            .unwrap()
    };
    let outcome = evaluate("needle");
    assert_eq!(outcome.status, Status::Interesting);
    assert_eq!(outcome.last_run.stdout.head, "{workspace}\n");
    assert_eq!(outcome.last_run.stderr.head, "needle in {workspace}\n");
    // Same script, a substring that never appears: uninteresting although the exit code matches.
    let outcome = evaluate("haystack");
    assert_eq!(outcome.status, Status::Uninteresting);
}

#[test]
fn launch_errors_and_signals_are_reported() {
    let _serial = processes_lock();
    let dir = tempfile::tempdir().unwrap();
    let bad = executable(dir.path(), "bad.sh", "#!/nonexistent/interpreter\n");
    let predicate = Predicate::new(config(&bad, &[])).unwrap();
    let ws = tempfile::tempdir().unwrap();
    let outcome = predicate
        .evaluate(ws.path(), &|_| None, &CancelFlag::new())
        .unwrap();
    assert_eq!(outcome.status, Status::LaunchError);
    assert!(outcome
        .last_run
        .error
        .as_deref()
        .unwrap_or("")
        .contains("bad.sh"));
    let killer = script(dir.path(), "k.sh", "kill -SEGV $$");
    let predicate = Predicate::new(config(&killer, &[])).unwrap();
    let outcome = predicate
        .evaluate(ws.path(), &|_| None, &CancelFlag::new())
        .unwrap();
    assert_eq!(outcome.exit_codes, vec![Some(-11)]);
    assert_eq!(outcome.status, Status::Uninteresting);
}

#[test]
fn bad_configuration_is_rejected_with_one_line_errors() {
    let _serial = processes_lock();
    let (_dir, exe) = script_in_temp("exit 0");
    let cases: Vec<(Box<Mutation>, &str)> = vec![
        (Box::new(|c| c.runs = 0), "--predicate-runs"),
        (
            Box::new(|c| c.min_interesting = Some(2)),
            "--min-interesting 2",
        ),
        (
            Box::new(|c| c.min_interesting = Some(0)),
            "--min-interesting",
        ),
        (Box::new(|c| c.timeout_secs = f64::NAN), "--timeout"),
        (Box::new(|c| c.timeout_secs = 0.0), "--timeout"),
        (Box::new(|c| c.timeout_secs = f64::INFINITY), "--timeout"),
        (
            Box::new(|c| c.cache_tags = vec![String::new()]),
            "--cache-tag",
        ),
        (
            Box::new(|c| c.executable = "no-such-predicate-xyz".into()),
            "not found",
        ),
        (Box::new(|c| c.args = vec!["{bundel}".into()]), "{bundel}"),
        (
            Box::new(|c| c.cache_dependencies = vec![PathBuf::from("/no/such/dep")]),
            "--cache-dependency",
        ),
    ];
    for (mutate, needle) in cases {
        let mut cfg = config(&exe, &[]);
        mutate(&mut cfg);
        let error = Predicate::new(cfg).unwrap_err().to_string();
        assert!(error.contains(needle), "{error:?} lacks {needle:?}");
        assert!(!error.contains('\n'), "{error:?} is not one line");
    }
}

#[test]
fn regular_file_arguments_become_absolute_identities() {
    let _serial = processes_lock();
    let (dir, exe) = script_in_temp("exit 0");
    std::fs::write(dir.path().join("ref.json"), "{}").unwrap();
    let previous = std::env::current_dir().unwrap();
    std::env::set_current_dir(dir.path()).unwrap();
    let predicate = Predicate::new(config(&exe, &["ref.json", "--flag", "{workspace}"]));
    std::env::set_current_dir(previous).unwrap();
    let predicate = predicate.unwrap();
    let absolute = dir.path().join("ref.json").to_string_lossy().into_owned();
    assert_eq!(predicate.template().raw()[0], absolute);
    assert_eq!(predicate.template().raw()[1], "--flag");
    let identities: Vec<&Path> = predicate
        .identity_files()
        .iter()
        .map(|f| f.path.as_path())
        .collect();
    assert_eq!(
        identities,
        vec![exe.as_path(), dir.path().join("ref.json").as_path()]
    );
}

#[test]
fn identity_change_during_a_run_is_fatal_and_digest_tracks_identity() {
    let _serial = processes_lock();
    let dir = tempfile::tempdir().unwrap();
    let dep = dir.path().join("dep.bin");
    std::fs::write(&dep, "v1").unwrap();
    let exe = script(dir.path(), "p.sh", "echo v2 > \"$1/dep.bin\"; exit 0");
    let mut cfg = config(&exe, &["{state}"]);
    cfg.cache_dependencies = vec![dep.clone()];
    let predicate = Predicate::new(cfg.clone()).unwrap();
    let digest_v1 = predicate.config_digest().to_owned();
    let ws = tempfile::tempdir().unwrap();
    let error = predicate
        .evaluate(ws.path(), &lookup(dir.path()), &CancelFlag::new())
        .unwrap_err();
    match error {
        EvalError::Fatal(message) => assert!(message.contains("dep.bin"), "{message}"),
        other => panic!("expected a fatal error, got {other:?}"),
    }
    let again = Predicate::new(cfg).unwrap();
    assert_ne!(
        again.config_digest(),
        digest_v1,
        "dependency content is part of the digest"
    );
}

#[test]
fn cancellation_stops_a_run_and_kills_its_group() {
    let _serial = processes_lock();
    let (dir, exe) = script_in_temp("sleep 1000 & echo $! >> \"$1/pids\"\nsleep 1000");
    let predicate = Predicate::new(config(&exe, &["{state}"])).unwrap();
    let ws = tempfile::tempdir().unwrap();
    let cancel = CancelFlag::new();
    let remote = cancel.clone();
    let pids_path = dir.path().join("pids");
    let watcher = std::thread::spawn(move || {
        while !pids_path.exists() {
            std::thread::sleep(Duration::from_millis(10));
        }
        remote.cancel();
    });
    let error = predicate
        .evaluate(ws.path(), &lookup(dir.path()), &cancel)
        .unwrap_err();
    watcher.join().unwrap();
    assert_eq!(error, EvalError::Cancelled);
    assert_all_gone(dir.path(), "after cancellation");
}

#[test]
fn configuration_digest_is_sensitive_to_everything_a_verdict_depends_on() {
    let _serial = processes_lock();
    let (dir, exe) = script_in_temp("exit 0");
    let dep = dir.path().join("lib.so");
    std::fs::write(&dep, "lib v1").unwrap();
    let base = || {
        let mut c = config(&exe, &["{workspace}"]);
        c.cache_dependencies = vec![dep.clone()];
        c
    };
    let digest = |c: PredicateConfig| Predicate::new(c).unwrap().config_digest().to_owned();
    let reference = digest(base());
    assert_eq!(digest(base()), reference, "digest is deterministic");
    let variants: Vec<(&str, Box<Mutation>)> = vec![
        (
            "tag",
            Box::new(|c| c.cache_tags = vec!["gpu=gfx90a".into()]),
        ),
        ("runs", Box::new(|c| c.runs = 2)),
        ("min interesting", Box::new(|c| c.min_interesting = Some(1))),
        ("timeout", Box::new(|c| c.timeout_secs = 31.0)),
        ("exit code", Box::new(|c| c.acceptance.exit_code = Some(1))),
        (
            "substring",
            Box::new(|c| c.acceptance.substring = Some("x".into())),
        ),
        ("args", Box::new(|c| c.args.push("--more".into()))),
        ("env", Box::new(|c| c.env.push(("A".into(), "1".into())))),
    ];
    for (what, mutate) in variants {
        let mut c = base();
        mutate(&mut c);
        assert_ne!(digest(c), reference, "{what} must change the digest");
    }
    // Script content, script mode and dependency content.
    std::fs::write(&exe, "#!/bin/sh\nexit 0 # edited\n").unwrap();
    let after_content = digest(base());
    assert_ne!(after_content, reference, "script content");
    std::fs::set_permissions(&exe, std::fs::Permissions::from_mode(0o700)).unwrap();
    let after_mode = digest(base());
    assert_ne!(after_mode, after_content, "script mode");
    std::fs::write(&dep, "lib v2").unwrap();
    assert_ne!(digest(base()), after_mode, "dependency content");
}
