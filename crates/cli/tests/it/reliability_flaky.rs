//! Failures that happen only sometimes, end to end through the binary with real shell
//! predicates: `--predicate-runs N --min-interesting K` reduces a needle that reproduces in half
//! the runs, stops each candidate's runs once its verdict is decided, keeps its verdicts (with
//! their counts) in the cache so that a rerun agrees with them, refuses K > N, and refuses a
//! flaky original under the default with the rate it reproduced at and the flags to try (file,
//! bundle and python).
//!
//! The flaky predicates are deterministic, so these tests are not flaky themselves: a run's
//! verdict is a bit of SHA-256 over the candidate's digest and how many times that candidate
//! ran before (a counter file per candidate), so each candidate sees its own fixed sequence of
//! passes and failures, interesting in about half its runs. Every run appends `DIGEST VERDICT`
//! to a log; the tests read the runs made from it (-j 1, so no run is cancelled).

use std::collections::BTreeMap;
use std::fs;
use std::path::{Path, PathBuf};

use crate::support::bundle::{bundle_area, gamma_predicate, log, tree};
use crate::support::{
    assert_fails, assert_nothing_published, binary_command, bundle_json, json, script, stderr,
};

const NEEDLE_INPUT: &str = "alpha beta gamma\ndelta epsilon\nthe NEEDLE is here\nzeta eta\n\
    theta iota kappa\nlambda mu nu\nxi omicron pi\nrho sigma tau\n";

/// The shell lines that give this run's verdict for the candidate digest `$d`: `pass` (a bit of
/// SHA-256 over `$d` and the candidate's earlier runs, set with probability `rate`/16) or
/// `fail`, counted in `state`.
fn roll(state: &Path, rate: u32) -> String {
    let last = "0123456789abcdef".chars().nth(rate as usize - 1).unwrap();
    format!(
        "state='{state}'\n\
         n=$(cat \"$state/$d\" 2>/dev/null || echo 0); echo $((n + 1)) > \"$state/$d\"\n\
         case $(printf '%s-%s' \"$d\" \"$n\" | sha256sum | cut -c1) in\n\
         [0-{last}]) roll=pass;; *) roll=fail;; esac\n",
        state = state.display()
    )
}

/// A predicate `dir/NAME` on `{file}`: never interesting without `NEEDLE`; with it, interesting
/// with probability `rate`/16 per run (16: always). Logs `DIGEST no|yes|fail` to `state/log`.
fn needle_predicate(dir: &Path, name: &str, state: &Path, rate: u32) -> PathBuf {
    fs::create_dir_all(state).unwrap();
    let body = format!(
        "#!/bin/sh\nd=$(sha256sum < \"$1\" | cut -c1-16)\n{}\
         if ! grep -q NEEDLE \"$1\"; then echo \"$d no\" >> \"$state/log\"; exit 1; fi\n\
         if [ $roll = pass ]; then echo \"$d yes\" >> \"$state/log\"; exit 0; fi\n\
         echo \"$d fail\" >> \"$state/log\"; exit 1\n",
        roll(state, rate)
    );
    script(dir, name, &body)
}

/// A fresh directory with `in.txt` ([`NEEDLE_INPUT`]) and a [`needle_predicate`] `p.sh` of
/// `rate` logging to `state`; returns the directory, `state` and the predicate.
fn needle_setup(rate: u32) -> (tempfile::TempDir, PathBuf, PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    fs::write(dir.path().join("in.txt"), NEEDLE_INPUT).unwrap();
    let state = dir.path().join("state");
    let predicate = needle_predicate(dir.path(), "p.sh", &state, rate);
    (dir, state, predicate)
}

/// The text a reduction wrote to `dir/name`.
fn written(dir: &Path, name: &str) -> String {
    fs::read_to_string(dir.join(name)).unwrap()
}

/// Each candidate's runs in order, by digest, from a predicate's log.
fn runs_by_candidate(state: &Path) -> BTreeMap<String, Vec<String>> {
    let mut runs: BTreeMap<String, Vec<String>> = BTreeMap::new();
    for line in fs::read_to_string(state.join("log"))
        .unwrap_or_default()
        .lines()
    {
        let (digest, verdict) = line.split_once(' ').unwrap();
        runs.entry(digest.into()).or_default().push(verdict.into());
    }
    runs
}

fn run_count(state: &Path) -> usize {
    runs_by_candidate(state).values().map(Vec::len).sum()
}

/// `minrepro file --predicate PREDICATE --predicate-arg {file} in.txt -o OUT -q ARGS` in `dir`.
fn reduce(dir: &Path, predicate: &Path, out: &str, args: &[&str]) -> std::process::Output {
    binary_command()
        .current_dir(dir)
        .env("TMPDIR", dir)
        .arg("file")
        .arg("--predicate")
        .arg(predicate)
        .args(["--predicate-arg", "{file}", "in.txt", "-o", out, "-q"])
        .args(args)
        .output()
        .unwrap()
}

fn succeeded(output: &std::process::Output) {
    assert!(output.status.success(), "{}", stderr(output));
}

#[test]
fn a_needle_interesting_in_half_the_runs_is_reduced_to_with_8_runs_and_1_needed() {
    let (dir, state, predicate) = needle_setup(8);
    let flags = [
        "--predicate-runs",
        "8",
        "--min-interesting",
        "1",
        "--cache-file",
        "cache.json",
    ];
    succeeded(&reduce(dir.path(), &predicate, "out.txt", &flags));
    let reduced = written(dir.path(), "out.txt");
    assert_eq!(reduced.trim(), "NEEDLE");

    let runs = runs_by_candidate(&state);
    let mut failed_then_passed = 0;
    for (digest, verdicts) in &runs {
        if verdicts[0] == "no" {
            // Without the needle no run is interesting: all 8 are needed to say so. (The empty
            // text is judged twice: by the front end's check of empty files and as a candidate.)
            assert!(verdicts.len() % 8 == 0, "{digest}: {verdicts:?}");
            assert!(verdicts.iter().all(|v| v == "no"), "{digest}: {verdicts:?}");
            continue;
        }
        // With it: failures until the first interesting run, which ends the candidate's runs.
        let passes = verdicts.iter().filter(|v| *v == "yes").count();
        assert!(verdicts.len() <= 8 && passes <= 1, "{digest}: {verdicts:?}");
        assert!(passes == 1 || verdicts.len() == 8, "{digest}: {verdicts:?}");
        if passes == 1 {
            assert_eq!(verdicts.last().unwrap(), "yes", "{digest}: {verdicts:?}");
            failed_then_passed += usize::from(verdicts.len() > 1);
        }
    }
    // The predicate really failed on candidates with the needle, and K of N carried them.
    assert!(failed_then_passed >= 2, "{runs:?}");
    // Decided candidates stopped early: fewer runs than 8 per candidate.
    let made = run_count(&state);
    assert!(
        made < 8 * runs.len(),
        "{made} runs for {} candidates",
        runs.len()
    );

    // The same command with the same cache agrees with every verdict already paid for: the
    // predicate (whose next runs would roll differently) does not run again.
    let cache = written(dir.path(), "cache.json");
    assert!(cache.contains("\"interesting_runs\""), "counts are cached");
    succeeded(&reduce(dir.path(), &predicate, "again.txt", &flags));
    assert_eq!(run_count(&state), made, "a rerun ran the predicate again");
    assert_eq!(written(dir.path(), "again.txt"), reduced);
}

#[test]
fn clearly_decided_candidates_cost_fewer_than_n_runs() {
    // Always interesting with the needle: 3 of 4 runs decide "interesting", 2 failures decide
    // "not interesting" (the 2 runs left cannot make 3).
    let (dir, state, predicate) = needle_setup(16);
    let flags = ["--predicate-runs", "4", "--min-interesting", "3"];
    succeeded(&reduce(dir.path(), &predicate, "out.txt", &flags));
    assert_eq!(written(dir.path(), "out.txt").trim(), "NEEDLE");
    let runs = runs_by_candidate(&state);
    assert!(runs.len() > 5, "{runs:?}");
    for (digest, verdicts) in &runs {
        // (The empty text is judged twice, see above: two candidates of 2 runs each.)
        let (verdict, each) = if verdicts[0] == "yes" {
            ("yes", 3)
        } else {
            ("no", 2)
        };
        assert!(verdicts.len() % each == 0, "{digest}: {verdicts:?}");
        assert!(
            verdicts.iter().all(|v| v == verdict),
            "{digest}: {verdicts:?}"
        );
    }
}

#[test]
fn more_interesting_runs_than_runs_is_refused_before_anything_runs() {
    let (dir, state, predicate) = needle_setup(16);
    let refusals: [(&[&str], &str); 3] = [
        (
            &["--predicate-runs", "4", "--min-interesting", "5"],
            "--min-interesting 5 needs at least 5 runs per candidate, but --predicate-runs is 4: \
             give --predicate-runs 5 or more, or a --min-interesting of at most 4",
        ),
        // Without --predicate-runs there is one run per candidate.
        (&["--min-interesting", "2"], "but --predicate-runs is 1"),
        (&["--min-interesting", "0"], "--min-interesting"),
    ];
    for (flags, message) in refusals {
        assert_fails(
            &reduce(dir.path(), &predicate, "out.txt", flags),
            2,
            message,
        );
    }
    assert_eq!(run_count(&state), 0, "the predicate ran");
    assert!(!dir.path().join("out.txt").exists());
}

#[test]
fn a_flaky_original_is_refused_under_the_default_with_its_rate_and_the_flags_to_try() {
    let dir = tempfile::tempdir().unwrap();
    fs::write(dir.path().join("in.txt"), NEEDLE_INPUT).unwrap();
    let counter = dir.path().join("count");
    // Interesting on every other run (0, 2, …) while the needle is there.
    let predicate = script(
        dir.path(),
        "p.sh",
        &format!(
            "#!/bin/sh\nn=$(cat '{c}' 2>/dev/null || echo 0); echo $((n + 1)) > '{c}'\n\
             grep -q NEEDLE \"$1\" && exit $((n % 2))\nexit 1\n",
            c = counter.display()
        ),
    );
    let out = reduce(
        dir.path(),
        &predicate,
        "out.txt",
        &["--predicate-runs", "4"],
    );
    let message = assert_nothing_published(&out, &dir.path().join("out.txt"), "is flaky");
    assert!(message.contains("exit codes 0, 1, 0, 1"), "{message}");
    assert!(
        message.contains("interesting in 2 of 4 runs: try --predicate-runs 7 --min-interesting 1"),
        "{message}"
    );
    // The flags it suggests reduce it.
    let out = reduce(
        dir.path(),
        &predicate,
        "out.txt",
        &["--predicate-runs", "7", "--min-interesting", "1"],
    );
    succeeded(&out);
    assert_eq!(written(dir.path(), "out.txt").trim(), "NEEDLE");
}

#[test]
fn bundle_k_of_n_verdicts_are_kept_in_the_original_reducer_s_cache_format() {
    let (area, bundle) = bundle_area();
    let gamma = gamma_predicate(&area.input());
    let state = area.out("state");
    fs::create_dir_all(&state).unwrap();
    // Interesting in about half the runs while gamma's conditions hold, never otherwise.
    let flaky = area.script(
        "flaky-gamma.sh",
        &format!(
            "#!/bin/sh\nd=$(cat \"$(dirname \"$1\")\"/*.json | sha256sum | cut -c1-16)\n{}\
             echo \"$d $roll\" >> \"$state/log\"\n[ $roll = pass ] || exit 1\nexec '{}' \"$@\"\n",
            roll(&state, 8),
            gamma.display()
        ),
    );
    let cache = area.out("cache.json");
    let reduce_to = |name: &str| {
        let out = area.out(name);
        area.reduce_cmd(&bundle, &out, &flaky)
            .args(["--predicate-arg={bundle}", "--predicate-runs", "8"])
            .args(["--min-interesting", "1", "--cache-file"])
            .arg(&cache)
            .assert()
            .success();
        out
    };
    let out = reduce_to("reduced");
    let objects = bundle_json(&out)["code_objects"].clone();
    assert_eq!(objects.as_array().unwrap().len(), 1, "{objects}");
    assert_eq!(objects[0]["id"], "gamma");
    assert_eq!(log(&out)["predicate"]["min_interesting"], 1);
    // Verdicts of disagreeing runs are stored as the original stores any verdict.
    let document = json(&cache);
    assert_eq!(document["format"], "comgr-hotswap-reduction-cache");
    let entries = document["entries"].as_object().unwrap();
    let mixed = entries.values().filter(|entry| {
        let codes = entry["exit_codes"].as_array().unwrap();
        entry["status"] == "interesting" && codes.len() > 1 && codes.contains(&1.into())
    });
    assert!(mixed.count() >= 1, "{document}");
    // Replayed from that cache, nothing runs again and the output is the same.
    let made = run_count(&state);
    let again = reduce_to("again");
    assert_eq!(run_count(&state), made, "a rerun ran the predicate again");
    assert_eq!(tree(&again), tree(&out));

    // Under the default the same original is flaky, refused with its rate.
    let refused = area.out("refused");
    let output = area
        .reduce_cmd(&bundle, &refused, &flaky)
        .args(["--predicate-arg={bundle}", "--predicate-runs", "6"])
        .output()
        .unwrap();
    let message = assert_nothing_published(&output, &refused, "original input is not interesting");
    assert!(message.contains("predicate status flaky"), "{message}");
    assert!(
        message.contains(" of 6 runs: try --predicate-runs "),
        "{message}"
    );
}

#[test]
fn python_reduces_a_program_that_fails_in_about_half_its_runs() {
    let area = crate::support::Area::new();
    let state = area.out("state");
    fs::create_dir_all(&state).unwrap();
    // Raises in every other run of each version of the program (counted per SHA-256 of its
    // text, starting with a raise), never when the raise is gone: flaky at exactly half its
    // runs, so that the verdicts the test expects do not depend on chance.
    let source = area.write_input(
        "flaky.py",
        format!(
            "import hashlib, os\n\n\ndef unrelated(y):\n    return y + 1\n\n\n\
             text = open(__file__, 'rb').read()\n\
             digest = hashlib.sha256(text).hexdigest()[:16]\n\
             counter = os.path.join({state:?}, digest)\n\
             n = int(open(counter).read()) if os.path.exists(counter) else 0\n\
             open(counter, 'w').write(str(n + 1))\n\
             print(unrelated(3))\n\
             if n % 2 == 0:\n\
             \x20   raise ValueError('boom')\n",
            state = state.display().to_string()
        ),
    );
    let output = area
        .python_cmd(&source, &["--err-msg", "boom", "--predicate-runs", "6"])
        .output()
        .unwrap();
    let message = assert_nothing_published(&output, &area.out_py(), "the original is flaky");
    assert!(
        message.contains(" of 6 runs: try --predicate-runs "),
        "{message}"
    );
    let flags = ["--err-msg", "boom", "--predicate-runs", "8"];
    let output = area
        .python_cmd(&source, &flags)
        .args(["--min-interesting", "1"])
        .output()
        .unwrap();
    succeeded(&output);
    let reduced = fs::read_to_string(area.out_py()).unwrap();
    assert!(reduced.contains("raise ValueError('boom')"), "{reduced}");
    assert!(!reduced.contains("unrelated"), "{reduced}");
}
