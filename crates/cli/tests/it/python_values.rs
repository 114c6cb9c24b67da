//! Runtime-value substitution end to end: computed values become literals, a third-party
//! module's call survives, `--no-value-substitution` turns it off; values without a literal
//! become the calls that rebuild them (an own class's `Linear()`, a library array's `zeros`).

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

/// A model whose layers are called in a loop: the shape error is the program's own.
const MODEL: &str = r#"class ShapeError(ValueError):
    pass

class Tensor:
    def __init__(self, rows, cols):
        self.rows, self.cols = rows, cols

    def matmul(self, other):
        if self.cols != other.rows:
            raise ShapeError(f"mismatch: {self.cols} != {other.rows}")
        return Tensor(self.rows, other.cols)

class Linear:
    def __init__(self, fan_in, fan_out):
        self.weight = Tensor(fan_in, fan_out)

    def __call__(self, x):
        return x.matmul(self.weight)

class Model:
    def __init__(self, width, hidden):
        self.layers = [Linear(width, hidden), Linear(width, 3)]

    def forward(self, x):
        for layer in self.layers:
            x = layer(x)
        return x

Model(4, 8).forward(Tensor(2, 4))
"#;

#[test]
fn an_instance_of_the_program_s_class_becomes_its_constructor_call() {
    let area = Area::new();
    let source = area.write_input("model.py", MODEL);
    let output = area
        .python_cmd(&source, &["--err-msg", "mismatch: 8 != 4"])
        .output()
        .unwrap();
    assert!(output.status.success(), "{}", all_output(&output));
    let text = std::fs::read_to_string(area.out_py()).unwrap();
    // The layer called in the loop is rebuilt where it is called; the model and loop go.
    assert!(text.contains("Linear()()"), "{text}");
    assert!(!text.contains("Model") && !text.contains("for "), "{text}");
    let run = run_python(&area.out_py(), None);
    assert!(all_output(&run).contains("in matmul"), "{text}");
    assert!(last_stderr_line(&run).starts_with("ShapeError"));
}

/// A stand-in array library (third-party code: outside the program and the standard library)
/// that fails inside its own `broadcast_to`.
const ARRAYS: &str = r#"int64 = "int64"

class Array:
    def __init__(self, shape, dtype="float64"):
        self.shape, self.dtype = tuple(shape), dtype

def zeros(shape, dtype="float64"):
    return Array(shape, dtype)

def arange(n):
    return Array((n,), "int64")

def reshape(a, rows, cols):
    return Array((rows, cols), a.dtype)

def broadcast_to(a, shape):
    if a.shape != shape and a.shape[0] != 1:
        raise ValueError(f"cannot broadcast {a.shape} to {shape}")
    return Array(shape, a.dtype)
"#;

#[test]
fn a_library_s_failure_gets_its_array_rebuilt_by_zeros() {
    let area = Area::new();
    let lib = area.input().join("lib");
    std::fs::create_dir_all(lib.join("arrays")).unwrap();
    std::fs::write(lib.join("arrays/__init__.py"), ARRAYS).unwrap();
    let source = area.write_input(
        "grid.py",
        r#"import arrays as ar

PROFILES = {"bench": (3, 4), "field": (5, 4)}

class Grid:
    def __init__(self, name):
        self.rows, self.cols = PROFILES[name]
        self.values = ar.reshape(ar.arange(self.rows * self.cols), self.rows, self.cols)

    def calibrate(self, baseline):
        return ar.broadcast_to(baseline, (self.rows, self.cols))

reference = None
for name in ["bench", "field"]:
    grid = Grid(name)
    if reference is None:
        reference = grid.values
    grid.calibrate(reference)
"#,
    );
    let pythonpath = format!("PYTHONPATH={}", lib.display());
    let output = area
        .python_cmd(
            &source,
            &[
                "--err-msg",
                "cannot broadcast (3, 4) to (5, 4)",
                "--env",
                &pythonpath,
            ],
        )
        .output()
        .unwrap();
    assert!(output.status.success(), "{}", all_output(&output));
    let text = std::fs::read_to_string(area.out_py()).unwrap();
    // The grid that built the array is gone; the library still fails in broadcast_to.
    assert!(text.contains("ar.zeros((3, 4)"), "{text}");
    assert!(!text.contains("Grid") && !text.contains("arange"), "{text}");
    let run = run_python(&area.out_py(), Some(&lib));
    assert!(all_output(&run).contains("in broadcast_to"), "{text}");
    assert!(last_stderr_line(&run).starts_with("ValueError"));
    area.assert_tmp_empty();
}
