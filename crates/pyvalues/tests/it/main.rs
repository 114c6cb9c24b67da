//! The recorder with a real `python3`: what an instrumented run records, its cache and its limit.

use std::path::PathBuf;
use std::time::Duration;

use minrepro_pyvalues::{Program, ValueRecorder};

/// A recorder for a program named `prog.py` run by `python3`, runs below `temp`.
fn recorder(temp: &tempfile::TempDir, timeout: Duration) -> ValueRecorder {
    let program = Program {
        python: PathBuf::from("python3"),
        file_name: "prog.py".into(),
        ..Program::default()
    };
    ValueRecorder::new(program, temp.path().to_path_buf(), timeout, true)
}

/// The literal recorded for the expression `expr` of `text`, if any.
fn recorded_for(
    values: &[(std::ops::Range<usize>, String)],
    text: &str,
    expr: &str,
) -> Option<String> {
    values
        .iter()
        .find(|(range, _)| &text[range.clone()] == expr)
        .map(|(_, literal)| literal.clone())
}

#[test]
fn each_expression_gets_the_literal_of_its_last_evaluation_once_per_text() {
    // (program, expression, the literal recorded for it)
    let cases = [
        (
            "def total(xs):\n    return sum(xs)\n\nn = total([1, 2, 3])\nraise ValueError('n=%d' % n)\n",
            "total([1, 2, 3])",
            "6",
        ),
        // In a loop, the evaluation closest before the failure.
        (
            "for i in range(3):\n    label = 'item %d' % i\n    if i == 2:\n        raise KeyError(label)\n",
            "'item %d' % i",
            "'item 2'",
        ),
    ];
    for (text, expr, literal) in cases {
        let temp = tempfile::tempdir().unwrap();
        let recorder = recorder(&temp, Duration::from_secs(120));
        let values = recorder.values(text);
        assert_eq!(
            recorded_for(&values, text, expr).as_deref(),
            Some(literal),
            "{values:?}"
        );
        assert_eq!(recorder.values(text), values);
        let cost = recorder.cost();
        assert_eq!(
            (cost.runs, cost.failed),
            (1, 0),
            "the second call is cached"
        );
        let left = std::fs::read_dir(temp.path()).unwrap().count();
        assert_eq!(left, 0, "run directories are removed");
    }
}

#[test]
fn a_run_past_its_limit_records_nothing_and_counts_as_failed() {
    let temp = tempfile::tempdir().unwrap();
    let recorder = recorder(&temp, Duration::from_millis(500));
    let text = "n = 1 + 1\nwhile True:\n    n = n + 0\n";
    let values = recorder.values(text);
    assert!(values.is_empty(), "{values:?}");
    let cost = recorder.cost();
    assert_eq!((cost.runs, cost.failed), (1, 1));
}
