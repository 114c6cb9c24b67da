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

#[test]
fn a_value_without_a_literal_is_recorded_as_the_call_that_rebuilds_it() {
    let temp = tempfile::tempdir().unwrap();
    let recorder = recorder(&temp, Duration::from_secs(120));
    let text = "\
class Linear:
    def __call__(self):
        return 1
class Config:
    def __init__(self, width):
        self.width = width
layer = Linear()
config = Config(3)
print(layer, config)
";
    let values = recorder.values(text);
    // Its own class, built without arguments: the constructor call.
    assert_eq!(
        recorded_for(&values, text, "layer").as_deref(),
        Some("Linear()")
    );
    // A constructor that needs an argument is no rebuild.
    assert_eq!(recorded_for(&values, text, "config"), None, "{values:?}");
}

#[test]
fn a_library_array_is_rebuilt_by_its_module_s_zeros_when_the_failure_is_the_library_s() {
    let temp = tempfile::tempdir().unwrap();
    // A library outside the program's directory and the standard library: third-party code.
    let lib = temp.path().join("lib");
    std::fs::create_dir(&lib).unwrap();
    std::fs::write(
        lib.join("arrays.py"),
        "\
int64 = 'int64'
class Array:
    def __init__(self, shape, dtype='float64'):
        self.shape, self.dtype = tuple(shape), dtype
def zeros(shape, dtype='float64'):
    return Array(shape, dtype)
def arange(n):
    return Array((n,), 'int64')
",
    )
    .unwrap();
    let runs = temp.path().join("runs");
    std::fs::create_dir(&runs).unwrap();
    let program = Program {
        python: PathBuf::from("python3"),
        file_name: "prog.py".into(),
        env: vec![("PYTHONPATH".into(), lib.display().to_string())],
        ..Program::default()
    };
    let text = "import arrays as ar\na = ar.arange(12)\nb = ar.zeros((2, 3))\nprint(a, b)\n";
    for library_failure in [false, true] {
        let recorder = ValueRecorder::new(
            program.clone(),
            runs.clone(),
            Duration::from_secs(120),
            true,
        )
        .library_failure(library_failure);
        let values = recorder.values(text);
        let a = recorded_for(&values, text, "a");
        let b = recorded_for(&values, text, "b");
        if library_failure {
            // The same type, shape and dtype; the dtype written only where zeros' differs.
            assert_eq!(a.as_deref(), Some("ar.zeros((12,), dtype=ar.int64)"));
            assert_eq!(b.as_deref(), Some("ar.zeros((2, 3))"));
        } else {
            // The library made them: kept, unless the library's own failure is the bug.
            assert_eq!((a, b), (None, None), "{values:?}");
        }
    }
}
