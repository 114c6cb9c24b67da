//! Reliability: hostile predicates. Whatever the predicate does on one of its runs (hang, ignore
//! SIGTERM, leave daemons holding its pipes, print hundreds of megabytes, close its pipes, crash,
//! vandalize or remove its workspace, write outside it) or on the original's run (hang, crash,
//! flood, flake), afterwards: the inputs are kept, the private TMPDIR is empty, no process of
//! ours is alive, and the output is complete and verified, or a clear error and none exists.

use std::path::{Path, PathBuf};

use crate::support::bundle::*;
use crate::support::procs::*;
use crate::support::*;

/// A predicate that is interesting (exit 0) on its first run, does `hostile` on its second run,
/// and is uninteresting (exit 1) afterwards. Every process it starts records its pid in `pids`.
fn staged_predicate(dir: &Path, name: &str, hostile: &str) -> PathBuf {
    let count = dir.join(format!("{name}.count"));
    script(
        dir,
        &format!("{name}.sh"),
        &format!(
            r#"#!/bin/sh
echo $$ >> '{pids}'
n=$(cat '{count}' 2>/dev/null || echo 0); n=$((n + 1)); echo $n > '{count}'
if [ $n -eq 1 ]; then exit 0; fi
if [ $n -eq 2 ]; then
{hostile}
fi
exit 1
"#,
            pids = dir.join("pids").display(),
            count = count.display(),
        ),
    )
}

/// One hostile predicate: a label, the shell code it runs on its second run (`PIDS` is replaced
/// by the file that records its processes, `INPUTDIR` by the input directory), and `--timeout`.
type Hostile = (&'static str, &'static str, &'static str);

// The hostile cases are four tests rather than one: most of their time is spent waiting on
// timeouts and killed process groups, and as one test they were the suite's longest (about 50 s
// of waiting, one case after another).

#[test]
fn hostile_predicates_that_hang_leave_nothing_behind() {
    check_hostile_predicates(&[
        ("hangs", "sleep 1000", "2"),
        (
            "ignores SIGTERM",
            "trap '' TERM INT HUP; sleep 1000 & echo $! >> PIDS; wait; sleep 1000",
            "2",
        ),
    ]);
}

#[test]
fn hostile_predicates_that_leave_children_holding_pipes_leave_nothing_behind() {
    check_hostile_predicates(&[
        ("background job holds stdout", "sleep 1000 & echo $! >> PIDS; exit 1", "30"),
        (
            "setsid daemon holds stdout",
            "setsid sh -c 'echo $$ >> PIDS; exec sleep 1000' & sleep 0.2; exit 1",
            "30",
        ),
        (
            "double-forked setsid daemon",
            "(setsid sh -c 'echo $$ >> PIDS; trap \"\" TERM; exec sleep 1000' &) ; sleep 0.2; exit 1",
            "30",
        ),
    ]);
}

#[test]
fn hostile_predicates_that_flood_or_close_their_output_leave_nothing_behind() {
    check_hostile_predicates(&[
        ("prints 200 MB", "head -c 200000000 /dev/zero; exit 1", "60"),
        (
            "prints 100 MB without newlines to stderr",
            "head -c 100000000 /dev/urandom | tr -d '\\n' >&2; exit 1",
            "60",
        ),
        (
            "exits before reading anything, pipes closed",
            "exec >&- 2>&- <&-; exit 1",
            "30",
        ),
    ]);
}

#[test]
fn hostile_predicates_that_crash_or_vandalize_leave_nothing_behind() {
    check_hostile_predicates(&[
        ("crashes with SIGSEGV", "kill -SEGV $$", "30"),
        ("crashes with SIGKILL", "kill -KILL $$", "30"),
        ("vandalizes its workspace", "rm -f \"$1\"; rm -rf objects; echo junk > metadata.json; chmod 000 .; exit 0", "30"),
        ("removes its workspace", "rm -rf \"$(pwd)\"; exit 0", "30"),
        ("writes next to the original input", "echo pwned > INPUTDIR/../written-by-predicate; echo pwned > INPUTDIR/objects/new.co; exit 0", "30"),
    ]);
}

/// Reduces a bundle with each hostile predicate at `-j 1` and `-j 3`: the reduction succeeds,
/// its output verifies, the inputs are kept, and no process, temporary or staging file is left.
fn check_hostile_predicates(cases: &[Hostile]) {
    let pids_of = |dir: &Path| dir.join("pids").display().to_string();
    for &(label, hostile, timeout) in cases {
        for jobs in ["1", "3"] {
            let (area, bundle) = bundle_area();
            let hostile = hostile
                .replace("PIDS", &format!("'{}'", pids_of(&area.input())))
                .replace("INPUTDIR", &format!("'{}'", area.input().display()));
            let name = format!("p{}", label.len());
            let predicate = staged_predicate(&area.input(), &name, &hostile);
            std::fs::remove_file(area.input().join("pids")).ok();
            let before = tree(&area.input());
            let out = area.out("out");
            let extra = ["--predicate-arg={bundle}", "--timeout", timeout, "-j", jobs];
            let (pid, output) = run_reduction(&area, &bundle, &out, &predicate, &extra);
            let stderr = stderr(&output);
            let label = format!("{label} (-j {jobs})");
            assert_eq!(output.status.code(), Some(0), "{label}: {stderr}");
            verify_output(&out);
            // Apart from the one hostile run, only the original is interesting: nothing was
            // removed (the hostile run's verdict never counts as interesting except where it
            // exits 0, and then its candidate was genuinely judged interesting).
            let kept = std::fs::read_dir(out.join("objects")).unwrap().count();
            assert!((1..=3).contains(&kept), "{label}");
            // The input tree gained the predicate's bookkeeping only.
            let ours = |n: &str| n.ends_with(".count") || n == "pids" || n == "objects/new.co";
            assert_inputs_kept(&area, &before, ours, &label);
            assert_clean_processes(&label, pid, &area.input().join("pids"));
            assert!(area.tmp_is_empty(), "{label}: TMPDIR not empty");
            assert_no_staging(area.root.path());
            std::fs::remove_file(area.root.path().join("written-by-predicate")).ok();
        }
    }
}

#[test]
fn hostile_original_runs_are_clear_errors() {
    // The original itself hangs, crashes, floods or flakes: a clear error, nothing published.
    for (label, body, extra, needle) in [
        ("hang", "sleep 1000", vec!["--timeout", "1"], "timeout"),
        (
            "sigterm-proof hang",
            "trap '' TERM; sleep 1000",
            vec!["--timeout", "1"],
            "timeout",
        ),
        ("segfault", "kill -SEGV $$", vec![], "exit codes [-11]"),
        (
            "flood",
            "head -c 50000000 /dev/zero; exit 3",
            vec![],
            "exit codes [3]",
        ),
        (
            "flaky",
            "n=$(cat \"$D/c\" 2>/dev/null || echo 0); echo $((n+1)) > \"$D/c\"; exit $((n % 2))",
            vec!["--predicate-runs", "2"],
            "flaky",
        ),
    ] {
        let (area, bundle) = bundle_area();
        let predicate = area.script(
            "p.sh",
            &format!(
                "#!/bin/sh\nD='{}'\necho $$ >> \"$D/pids\"\n{body}\n",
                area.input().display()
            ),
        );
        let before = tree(&area.input());
        let out = area.out("out");
        let (pid, output) = run_reduction(&area, &bundle, &out, &predicate, &extra);
        let stderr = assert_nothing_published(&output, &out, needle);
        assert!(stderr.contains("not interesting"), "{label}: {stderr}");
        assert_inputs_kept(&area, &before, |n| n == "pids" || n == "c", label);
        assert!(area.tmp_is_empty(), "{label}");
        assert_clean_processes(label, pid, &area.input().join("pids"));
    }
}

#[test]
fn a_signal_death_can_be_the_interesting_behaviour() {
    // Crashes with SIGSEGV while gamma is present (the crash is what is being reduced).
    let (area, bundle, predicate) = predicate_area(
        "segv.sh",
        "#!/bin/sh\nif grep -q gamma \"$(dirname \"$1\")\"/objects/*; then kill -SEGV $$; fi\nexit 0\n",
    );
    let out = area.out("out");
    let extra = ["--predicate-arg={bundle}", "--interesting-exit-code=-11"];
    let (_, output) = run_reduction(&area, &bundle, &out, &predicate, &extra);
    assert!(output.status.success(), "{}", stderr(&output));
    verify_output(&out);
    let objects = names(&out.join("objects"));
    assert_eq!(objects.len(), 1);
    assert!(objects[0].contains("gamma"));
    assert_eq!(log(&out)["reproduction"]["interesting_exit_code"], -11);
}
