//! Wrappers around the failing code go: a `def main():` called once is inlined at its call, and
//! a loop whose header makes the failing call shrinks to that call (real `minrepro`, real Python).

use crate::support::python::*;

const PROGRAM: &str = r#"def check(values):
    total = 0
    for v in values:
        total += v
    if total > 10:
        raise ValueError("too big: %d" % total)
    return [total]


def main():
    data = [4, 5, 6]
    for item in check(data):
        print(item)


if __name__ == "__main__":
    main()
"#;

#[test]
fn main_wrapper_and_loop_header_are_removed() {
    let dir = tempfile::tempdir().unwrap();
    let source = dir.path().join("wrapped.py");
    std::fs::write(&source, PROGRAM).unwrap();
    let (out, (after, was)) = reduce(&source, dir.path(), &["--err-msg", "too big: 15"]);
    assert!(after < was);
    let text = std::fs::read_to_string(&out).unwrap();
    for gone in ["def main", "main()", "for item", "print"] {
        assert!(!text.contains(gone), "{gone:?} left in:\n{text}");
    }
    let run = run_python(&out, None);
    assert!(all_output(&run).contains("too big: 15"), "{text}");
    assert!(last_stderr_line(&run).starts_with("ValueError"));
}
