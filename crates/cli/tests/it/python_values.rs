//! Runtime-value substitution end to end: computed values become literals, a third-party
//! module's call survives, `--no-value-substitution` turns it off.

use crate::support::python::*;
use crate::support::*;

/// A toy GEMM check whose message is computed through a plan dict, a class and a function.
const SHAPES: &str = r#"class Tensor:
    def __init__(self, shape):
        self.shape = shape

def plan(m, n, k):
    tiles = {"m": m // 2, "n": n, "k": k * 2}
    return tiles

def make(p):
    return Tensor((p["m"], p["k"])), Tensor((p["k"] // 2, p["n"]))

class ShapeError(Exception):
    pass

def check(a, b):
    if a.shape[1] != b.shape[0]:
        raise ShapeError(f"K shape check failed: {a.shape[1]} != {b.shape[0]}")

p = plan(256, 64, 64)
a, b = make(p)
check(a, b)
"#;

#[test]
fn a_computed_message_gets_literal_values() {
    let area = Area::new();
    let source = area.write_input("shapes.py", SHAPES);
    let stats = area.out("stats.json");
    let mut command = area.python_cmd(&source, &["--err-msg", "K shape check failed"]);
    command.arg("--stats-json").arg(&stats);
    let output = command.output().unwrap();
    assert!(output.status.success(), "{}", all_output(&output));
    let text = std::fs::read_to_string(area.out_py()).unwrap();
    assert!(text.contains("128") && text.contains("64"), "{text}");
    assert!(
        !text.contains("shape["),
        "the shapes are literals now:\n{text}"
    );
    assert!(!text.contains("plan"), "the plan is gone:\n{text}");
    let run = run_python(&area.out_py(), None);
    assert!(all_output(&run).contains("K shape check failed: 128 != 64"));
    assert!(last_stderr_line(&run).starts_with("ShapeError"));
    let stats = json(&stats);
    assert!(
        stats["value_recording_runs"].as_u64().unwrap() >= 1,
        "{stats}"
    );
    area.assert_tmp_empty();
}

#[test]
fn no_value_substitution_turns_the_recording_off() {
    let area = Area::new();
    let source = area.write_input("shapes.py", SHAPES);
    let stats = area.out("stats.json");
    let mut command = area.python_cmd(
        &source,
        &[
            "--err-msg",
            "K shape check failed",
            "--no-value-substitution",
        ],
    );
    command.arg("--stats-json").arg(&stats);
    let output = command.output().unwrap();
    assert!(output.status.success(), "{}", all_output(&output));
    let stats = json(&stats);
    assert!(stats.get("value_recording_runs").is_none(), "{stats}");
    let run = run_python(&area.out_py(), None);
    assert!(last_stderr_line(&run).starts_with("ShapeError"));
}

/// A "wrong result" bug: the third-party `wrong.double` returns 65 for 64; the program checks
/// it against its own computation. Substituting the call's value (or the variable holding it)
/// would drop the library from the reproducer.
#[test]
fn a_third_party_call_with_a_wrong_result_is_kept() {
    let area = Area::new();
    let lib = area.input().join("lib");
    std::fs::create_dir_all(lib.join("wrong")).unwrap();
    std::fs::write(
        lib.join("wrong/__init__.py"),
        "def double(n):\n    return n + 1\n",
    )
    .unwrap();
    let source = area.write_input(
        "check.py",
        r#"import wrong

def expected(n):
    factor = 2
    return n * factor

def run(n):
    got = wrong.double(n)
    want = expected(n)
    if got != want:
        raise AssertionError(f"double({n}) gave {got}, expected {want}")

for n in [64]:
    run(n)
"#,
    );
    let pythonpath = format!("PYTHONPATH={}", lib.display());
    for backend in ["runner", "subproc"] {
        let output = area
            .python_cmd(
                &source,
                &[
                    "--err-msg",
                    "gave 65, expected 128",
                    "--env",
                    &pythonpath,
                    "--backend",
                    backend,
                    "--force",
                ],
            )
            .output()
            .unwrap();
        assert!(output.status.success(), "{}", all_output(&output));
        let text = std::fs::read_to_string(area.out_py()).unwrap();
        assert!(text.contains("import wrong"), "{backend}:\n{text}");
        assert!(text.contains("wrong.double("), "{backend}:\n{text}");
        // The program's own computation may become a literal.
        assert!(!text.contains("factor"), "{backend}:\n{text}");
        let run = run_python(&area.out_py(), Some(&lib));
        assert!(all_output(&run).contains("gave 65"), "{backend}:\n{text}");
        assert!(last_stderr_line(&run).starts_with("AssertionError"));
    }
    area.assert_tmp_empty();
}
