//! Resumption after minrepro itself is SIGKILLed (a batch system's time limit, the OOM killer):
//! the same command with the same `--cache-file` replays the journalled verdicts and ends with
//! exactly the output of an uninterrupted run, for `file`, `python` and `bundle`, at `-j 1` and
//! `-j 4`. The predicate logs every run it starts and every run it finishes, with a digest of
//! the candidate: a candidate that finished before the kill and runs again after it is a
//! verdict paid twice. A kill during a journal write is the journal's last record cut short,
//! which is what such a kill leaves on disk. SIGTERM (what Slurm sends at a time limit) ends the
//! run cleanly, and the same command then replaces the partial output the run left.

use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::process::Stdio;

use crate::support::bundle::{tree, write_bundle};
use crate::support::*;

/// One front end's reduction: its arguments (output and cache given separately) and how to
/// read its result.
struct Case {
    subcommand: &'static str,
    args: Vec<OsString>,
    output_flag: &'static str,
    directory_output: bool,
    /// Runs the original afresh at every start (python: its adaptive limit needs the run time).
    reruns_original: bool,
}

/// The predicate script: logs `start DIGEST` and `end DIGEST` around `check` (a shell command
/// whose status is the verdict) into `log`; `files` names what to digest.
fn logging_predicate(area: &Area, files: &str, check: &str, log: &Path) -> PathBuf {
    area.script(
        "predicate.sh",
        &format!(
            "#!/bin/sh\nh=$(cat {files} 2>/dev/null | cksum | cut -d' ' -f1)\necho \"start $h\" >> '{log}'\n\
             {check}\ns=$?\necho \"end $h\" >> '{log}'\nexit $s\n",
            log = log.display()
        ),
    )
}

fn file_case(area: &Area, log: &Path) -> Case {
    let lines: Vec<String> = (0..48)
        .map(|i| match i {
            17 => "let needle = 1;".to_owned(),
            31 => "call(needle, 2);".to_owned(),
            _ => format!("let v{i} = f({i}, {});", i * 7 % 11),
        })
        .collect();
    let input = area.write_input("input.rs", lines.join("\n") + "\n");
    let predicate = logging_predicate(
        area,
        "\"$1\"",
        "grep -q 'let needle' \"$1\" && grep -q 'call(needle' \"$1\"",
        log,
    );
    Case {
        subcommand: "file",
        args: vec![
            "--predicate".into(),
            predicate.into(),
            "--predicate-arg={file}".into(),
            input.into(),
        ],
        output_flag: "-o",
        directory_output: false,
        reruns_original: false,
    }
}

fn python_case(area: &Area, log: &Path) -> Case {
    let mut source = String::from("import os\n\n");
    for i in 0..14 {
        source.push_str(&format!(
            "def f{i}(x):\n    y = x * {i}\n    return y + {}\n\n",
            i % 3
        ));
    }
    source.push_str("total = f3(2) + f7(1)\nraise ValueError('needle %d' % total)\n");
    let input = area.write_input("program.py", source);
    let check = format!(
        "'{}' -S \"$1\" 2>&1 | grep -q 'ValueError: needle'",
        python::python().display()
    );
    let predicate = logging_predicate(area, "\"$1\"", &check, log);
    Case {
        subcommand: "python",
        args: vec![
            input.into(),
            "--python".into(),
            python::python().into(),
            "--predicate".into(),
            predicate.into(),
            "--predicate-arg={file}".into(),
        ],
        output_flag: "-o",
        directory_output: false,
        reruns_original: true,
    }
}

fn bundle_case(area: &Area, log: &Path) -> Case {
    let contents: Vec<Vec<u8>> = (0..16)
        .map(|i| match i {
            11 => b"object with gamma inside".to_vec(),
            _ => format!("object {i}").into_bytes(),
        })
        .collect();
    let contents: Vec<&[u8]> = contents.iter().map(Vec::as_slice).collect();
    let mut kernels: Vec<serde_json::Value> = (0..12)
        .map(|i| serde_json::json!({"name": format!("k{i}")}))
        .collect();
    kernels.insert(5, serde_json::json!({"name": "gamma"}));
    let cases: Vec<serde_json::Value> = (0..4)
        .map(|c| serde_json::json!({"name": c, "arguments": (0..8).map(|a| c * 10 + a * 3).collect::<Vec<_>>()}))
        .collect();
    let metadata = serde_json::json!({"kernels": kernels, "cases": cases});
    let bundle = write_bundle(&area.input(), &contents, metadata, None);
    let gamma = crate::support::bundle::gamma_predicate(&area.input());
    let check = format!("'{}' \"$1\"", gamma.display());
    let files = "\"${1%/*}\"/* \"${1%/*}\"/objects/*";
    let predicate = logging_predicate(area, files, &check, log);
    Case {
        subcommand: "bundle",
        args: vec![
            "--bundle".into(),
            bundle.into(),
            "--predicate".into(),
            predicate.into(),
            "--predicate-arg={bundle}".into(),
        ],
        output_flag: "--output",
        directory_output: true,
        reruns_original: false,
    }
}

/// How many verdicts the killed run paid for and the resumed run paid for again: per candidate,
/// the runs finished before the kill and started after it beyond the uninterrupted run's count
/// of its runs (which may run a candidate twice: the empty file of the front end's check and of
/// the text reduction, or a cancelled speculative run that is run again).
fn paid_twice(baseline: &[String], before: &[String], after: &[String]) -> usize {
    let count = |lines: &[String], kind: &str| {
        let mut counts = std::collections::BTreeMap::<String, usize>::new();
        for digest in digests(lines, kind) {
            *counts.entry(digest.to_owned()).or_default() += 1;
        }
        counts
    };
    let (baseline, finished, started) = (
        count(baseline, "start"),
        count(before, "end"),
        count(after, "start"),
    );
    started
        .iter()
        .map(|(digest, &again)| {
            let paid = finished.get(digest).copied().unwrap_or(0);
            let needed = baseline.get(digest).copied().unwrap_or(0);
            match paid {
                0 => 0,
                _ => (paid + again).saturating_sub(needed.max(paid)),
            }
        })
        .sum()
}

/// What a run's log says: the digests of the runs started, and of those finished.
fn log_lines(log: &Path) -> Vec<String> {
    std::fs::read_to_string(log)
        .unwrap_or_default()
        .lines()
        .map(str::to_owned)
        .collect()
}

fn digests<'a>(lines: &'a [String], kind: &str) -> Vec<&'a str> {
    lines
        .iter()
        .filter_map(|l| l.strip_prefix(kind)?.strip_prefix(' '))
        .collect()
}

impl Case {
    fn command(
        &self,
        area: &Area,
        jobs: usize,
        output: &Path,
        cache: &Path,
    ) -> std::process::Command {
        let mut command = area.process(self.subcommand);
        command
            .args(&self.args)
            .arg(self.output_flag)
            .arg(output)
            .arg("--cache-file")
            .arg(cache)
            .arg(format!("-j{jobs}"));
        command
    }

    /// The result, byte for byte (a directory as every file's path, size and digest).
    fn result(&self, output: &Path) -> Vec<(String, usize, u64)> {
        if self.directory_output {
            tree(output)
        } else {
            let bytes = std::fs::read(output).unwrap();
            let text = String::from_utf8_lossy(&bytes).into_owned();
            vec![(text, bytes.len(), 0)]
        }
    }
}

/// How a run is stopped: after `fraction` of the uninterrupted run's runs, by `signal`, the
/// journal's last record then torn when `tear` (SIGKILL only).
#[derive(Clone, Copy)]
struct Kill {
    fraction: f64,
    tear: bool,
    signal: &'static str,
}

const fn kill(fraction: f64, tear: bool) -> Kill {
    Kill {
        fraction,
        tear,
        signal: "KILL",
    }
}

/// The reduction of `make`'s case at `-j jobs` uninterrupted, then stopped as each of `kills`
/// says and started again with the same command:
/// the same result, at most `jobs` verdicts paid twice (the runs going when it was killed; one more
/// when a record was torn, and the original for python), and nothing left behind.
fn killed_and_resumed(make: fn(&Area, &Path) -> Case, jobs: usize, kills: &[Kill]) {
    let area = Area::new();
    let log = area.out("runs.log");
    let case = make(&area, &log);
    let label = format!("{} -j {jobs}", case.subcommand);
    let baseline = area.out("baseline");
    let output = case
        .command(&area, jobs, &baseline, &area.out("baseline.cache"))
        .output()
        .unwrap();
    assert!(output.status.success(), "{label}: {}", stderr(&output));
    let expected = case.result(&baseline);
    let baseline_log = log_lines(&log);
    let uninterrupted = digests(&baseline_log, "start").len();
    assert!(uninterrupted > 20, "{label}: only {uninterrupted} runs");
    for (
        number,
        &Kill {
            fraction,
            tear,
            signal,
        },
    ) in kills.iter().enumerate()
    {
        let label =
            format!("{label}, SIG{signal} {number} after {fraction} of the runs, torn {tear}");
        std::fs::remove_file(&log).unwrap();
        let (out, cache) = (
            area.out(&format!("out{number}")),
            area.out(&format!("c{number}.json")),
        );
        let mut child = case
            .command(&area, jobs, &out, &cache)
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        let target = (uninterrupted as f64 * fraction) as usize;
        let reached = wait_for(120, || digests(&log_lines(&log), "start").len() >= target);
        assert!(send(signal, child.id()), "{label}: already finished");
        child.wait().unwrap();
        assert!(reached, "{label}: never reached {target} runs");
        // The guardian ends the predicates still running and removes the workspaces.
        assert!(
            wait_for(30, || area.tmp_is_empty()),
            "{label}: {:?}",
            names(&area.tmp())
        );
        let journal = area.out(&format!("c{number}.json.journal"));
        if tear {
            let bytes = std::fs::read(&journal).unwrap();
            let body = &bytes[..bytes.len() - 1];
            let last = body.iter().rposition(|b| *b == b'\n').unwrap() + 1;
            assert!(bytes.len() - last > 10, "{label}: no record to tear");
            std::fs::write(&journal, &bytes[..last + (bytes.len() - last) / 2]).unwrap();
        }
        let before = log_lines(&log);
        let resumed = case.command(&area, jobs, &out, &cache).output().unwrap();
        assert!(resumed.status.success(), "{label}: {}", stderr(&resumed));
        assert_eq!(
            case.result(&out),
            expected,
            "{label}: not the uninterrupted result"
        );
        let after = log_lines(&log)[before.len()..].to_vec();
        let repeated = paid_twice(&baseline_log, &before, &after);
        assert!(
            repeated <= jobs + usize::from(tear) + usize::from(case.reruns_original),
            "{label}: {repeated} verdicts paid twice ({} runs before the kill, {} after)",
            digests(&before, "start").len(),
            digests(&after, "start").len()
        );
        // Shown with --nocapture: the figures of docs/scale.md.
        println!(
            "{label}: uninterrupted {uninterrupted} runs; killed after {}, resumed {}, {repeated} paid twice",
            digests(&before, "start").len(),
            digests(&after, "start").len()
        );
        assert!(!journal.exists(), "{label}: the journal was not compacted");
        if case.subcommand == "bundle" {
            // Compacted into the original reducer's format, which it can read.
            let format = &json(&cache)["format"];
            assert_eq!(format, "comgr-hotswap-reduction-cache", "{label}");
        }
        area.assert_tmp_empty();
    }
}

#[test]
fn a_killed_file_reduction_resumes_to_the_same_result() {
    killed_and_resumed(file_case, 1, &[kill(0.5, false), kill(0.3, true)]);
    let term = Kill {
        signal: "TERM",
        ..kill(0.4, false)
    };
    killed_and_resumed(file_case, 4, &[kill(0.5, false), kill(0.7, true), term]);
}

#[test]
fn a_killed_python_reduction_resumes_to_the_same_result() {
    killed_and_resumed(python_case, 1, &[kill(0.5, true)]);
    killed_and_resumed(python_case, 4, &[kill(0.4, false)]);
}

#[test]
fn a_killed_bundle_reduction_resumes_to_the_same_result() {
    killed_and_resumed(bundle_case, 1, &[kill(0.5, false)]);
    killed_and_resumed(bundle_case, 4, &[kill(0.5, true)]);
}
