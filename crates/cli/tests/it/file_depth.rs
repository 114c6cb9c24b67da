//! Deep nesting end to end through the binary (issue 41): a chain of nested brackets is cut by
//! bisection over its depth (`brackets-depth`, `syntax-depth`) to exactly the depth the test
//! needs in about log2(depth) candidates, not one level per run; the result is the same for
//! -j 1 and -j 2; and `minrepro python` hands a source nested beyond CPython's parser to `file`'s
//! passes when a --predicate judges it, saying so.

use std::fs;
use std::path::Path;

use minrepro_testkit::nested_chain;

use crate::support::{self, assert_file_holds, run_in, stderr};

/// A test (run in the candidate's directory) that accepts `file` when its brackets `open` and
/// `close` balance, nest at least `needed` deep, and the innermost `1` is still there.
fn needs_depth(dir: &Path, file: &str, open: char, close: char, needed: usize) {
    let body = format!(
        "#!/bin/sh\nexec python3 -S -c '\nimport sys\nd = m = 0\ntext = open(\"{file}\").read()\n\
         for c in text:\n    if c == \"{open}\":\n        d += 1\n        m = max(m, d)\n    \
         elif c == \"{close}\":\n        d -= 1\n        if d < 0: sys.exit(1)\n\
         sys.exit(0 if d == 0 and m >= {needed} and \"1\" in text else 1)\n'\n"
    );
    support::script(dir, "test.sh", &body);
}

/// Deepest nesting of `open` in `text`.
fn depth(text: &str, open: char, close: char) -> usize {
    let (mut d, mut deepest) = (0usize, 0);
    for c in text.chars() {
        if c == open {
            d += 1;
            deepest = deepest.max(d);
        } else if c == close {
            d -= 1;
        }
    }
    deepest
}

/// `levels` nested lists, a key at every 50th level, `1` innermost (JSON).
fn nested_lists(levels: usize) -> String {
    let keyed = |level, text: &str| format!("[{text}, {{\"k{level}\": 0}}]");
    nested_chain(levels, "1", 50, keyed, |text| format!("[{text}]")) + "\n"
}

#[test]
fn a_deep_chain_is_cut_to_the_depth_the_test_needs_in_log_candidates() {
    // With the JSON grammar (syntax-depth) and without (brackets-depth).
    for language in ["json", "none"] {
        let dir = tempfile::tempdir().unwrap();
        let text = nested_lists(3000);
        fs::write(dir.path().join("nest.json"), &text).unwrap();
        needs_depth(dir.path(), "nest.json", '[', ']', 30);
        let mut outputs = Vec::new();
        for jobs in ["1", "2"] {
            let (out, stats) = (format!("out-{jobs}.json"), format!("stats-{jobs}.json"));
            let args = [
                "file",
                "./test.sh",
                "nest.json",
                "-o",
                &out,
                "-q",
                "-j",
                jobs,
            ];
            let more = ["--language", language, "--stats-json", &stats];
            let run = run_in(dir.path(), &[&args[..], &more].concat());
            assert!(run.status.success(), "{language}: {}", stderr(&run));
            let reduced = fs::read_to_string(dir.path().join(&out)).unwrap();
            assert_eq!(depth(&reduced, '[', ']'), 30, "{language} -j {jobs}");
            let stats = support::json(&dir.path().join(&stats));
            let pass = if language == "none" {
                "brackets-depth"
            } else {
                "syntax-depth"
            };
            let depth_candidates = stats["passes"][pass]["candidates"].as_u64().unwrap();
            // 4 x log2(3000) = 46; one level per run would take 2,300.
            assert!(
                (1..=46).contains(&depth_candidates),
                "{language} -j {jobs}: {depth_candidates} candidates of {pass}: {stats}"
            );
            outputs.push(reduced);
        }
        assert_eq!(outputs[0], outputs[1], "{language}: -j 1 and -j 2 differ");
        assert_file_holds(&dir.path().join("nest.json"), &text);
    }
}

#[test]
fn python_nested_beyond_cpython_is_reduced_by_file_passes_under_a_predicate() {
    let dir = tempfile::tempdir().unwrap();
    let mut call = "1".to_owned();
    for level in 0..400 {
        call = format!("wrap{}({call})", level % 3);
    }
    let text = format!("x = {call}\nprint(x)\n");
    fs::write(dir.path().join("calls.py"), &text).unwrap();
    needs_depth(dir.path(), "calls.py", '(', ')', 40);
    let args = [
        "python",
        "calls.py",
        "-o",
        "out.py",
        "--predicate",
        "./test.sh",
    ];
    let run = run_in(dir.path(), &args);
    let err = stderr(&run);
    assert!(run.status.success(), "{err}");
    assert!(
        err.contains("is nested beyond what CPython parses"),
        "{err}"
    );
    assert!(err.contains("minrepro file's passes"), "{err}");
    let reduced = fs::read_to_string(dir.path().join("out.py")).unwrap();
    assert_eq!(depth(&reduced, '(', ')'), 40, "{reduced}");
    assert!(reduced.len() < text.len() / 2);
    // Without a --predicate the source is refused, as CPython would refuse it.
    let refused = run_in(
        dir.path(),
        &["python", "calls.py", "-o", "out2.py", "--err-msg", "x"],
    );
    assert_eq!(refused.status.code(), Some(1), "{}", stderr(&refused));
    assert!(stderr(&refused).contains("too many nested parentheses"));
    assert!(!dir.path().join("out2.py").exists());
}
