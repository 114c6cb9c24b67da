//! Reliability property test of `minrepro python`: random small but valid Python modules
//! (assignments, functions, classes, `if`/`for`/`while`/`with`/`try`, calls, prints) ending in a
//! `raise` whose message depends on the values computed before it.
//!
//! Each case generates one program and one fault. The program reduces (real `python3`; the
//! runner backend, about a quarter with `--backend subproc`, `-j 1..3`) to an output that compiles
//! and, run by `python3`, still prints the message. The program with the fault is refused with
//! exit 1 and a clear message before any predicate run: a `--predicate` that appends to a
//! counter file proves it (the counter stays absent; for an original that does not reproduce,
//! it holds exactly the one run that judged the original, and no candidate ran). The seed is
//! fixed, so CI runs the same cases every time.

use std::collections::BTreeSet;
use std::path::Path;

use crate::support::procs::*;
use crate::support::python::*;
use crate::support::*;
use proptest::prelude::*;
use proptest::test_runner::{FileFailurePersistence, RngSeed, TestRunner};

/// One generated statement: a kind and three numbers that pick variables and constants.
type Step = (u8, u16, u16, u16);

#[derive(Debug, Clone)]
struct Input {
    steps: Vec<Step>,
    jobs: u8,
    /// Which fault the second half of the case injects (see [`corrupt`]).
    fault_kind: u8,
    /// Where the fault goes (a line or byte index, taken modulo the length).
    fault_at: usize,
    /// `--backend subproc` instead of the runner (slower: an interpreter per run).
    subproc: bool,
}

fn input() -> impl Strategy<Value = Input> {
    (
        prop::collection::vec((0u8..13, any::<u16>(), any::<u16>(), any::<u16>()), 2..7),
        1u8..4,
        0..FAULT_KINDS as u8,
        any::<usize>(),
        prop::bool::weighted(0.25),
    )
        .prop_map(|(steps, jobs, fault_kind, fault_at, subproc)| Input {
            steps,
            jobs,
            fault_kind,
            fault_at,
            subproc,
        })
}

/// Builds a valid module from `steps`: every name is defined before it is used, every value
/// stays small (below 1,007), every loop ends, and the last line raises
/// `ValueError('needle <N>')` with N below 1,000.
fn program(steps: &[Step]) -> String {
    // Rewrites can turn a loop into an endless one (`v = v + 7` -> `v = v`): a frozen prologue
    // ends such a candidate after 0.1 s of CPU time (not wall time, so a loaded machine does not
    // end a good one), far sooner than a --timeout would.
    let mut text = String::from(
        "# autodd: freeze-start\nimport signal\nsignal.setitimer(signal.ITIMER_VIRTUAL, 0.1)\n# autodd: end-freeze\nimport contextlib\nv0 = 7\n",
    );
    let mut vars = 1usize; // v0 .. v{vars-1} are defined
    let (mut funcs, mut classes) = (0usize, 0usize);
    for &(kind, a, b, c) in steps {
        let var = |n: u16| format!("v{}", n as usize % vars);
        let k = c % 1000;
        let new = format!("v{vars}");
        let line = match kind {
            0 => {
                let op = ["+", "-", "*"][b as usize % 3];
                format!("{new} = ({} {op} {}) % 1000\n", var(a), var(b))
            }
            1 => {
                funcs += 1;
                format!(
                    "def f{}(a, b={k}):\n    t = a * {}\n    return (t + b) % 1000\n",
                    funcs - 1,
                    b % 10
                )
            }
            2 if funcs > 0 => format!("{new} = f{}({})\n", b as usize % funcs, var(a)),
            3 => {
                classes += 1;
                format!(
                    "class C{}:\n    k = {k}\n\n    def __init__(self, x):\n        self.x = x\n\n    def get(self):\n        return (self.x + self.k) % 1000\n",
                    classes - 1
                )
            }
            4 if classes > 0 => format!("{new} = C{}({}).get()\n", b as usize % classes, var(a)),
            5 => format!(
                "if {} > {k}:\n    {new} = ({} + 1) % 1000\nelse:\n    {new} = {}\n",
                var(a),
                var(b),
                b % 1000
            ),
            6 => {
                let x = var(a);
                format!("for i in range({}):\n    {x} = ({x} + i) % 1000\n", b % 20)
            }
            7 => {
                let x = var(a);
                format!("while {x} < {k}:\n    {x} = {x} + 7\n")
            }
            8 => format!(
                "with contextlib.nullcontext({}) as w:\n    {new} = (w * 3) % 1000\n",
                var(a)
            ),
            9 => {
                let x = var(a);
                format!(
                    "try:\n    {new} = {k} // ({x} - {x})\nexcept ZeroDivisionError:\n    {new} = ({x} + {k}) % 1000\nfinally:\n    print('finally')\n"
                )
            }
            10 => format!("print('p{k}', {})\n", var(a)),
            11 => format!("{new} = len([{}, {k}, {}]) + {}\n", var(a), var(b), k % 100),
            _ => format!("{new} = {k}\n"),
        };
        if line.contains(&new) {
            vars += 1;
        }
        text.push_str(&line);
    }
    let (a, b) = steps.last().map_or((0, 0), |s| (s.1, s.2));
    text.push_str(&format!(
        "raise ValueError('needle <%d>' % ((v{} + v{}) % 1000))\n",
        a as usize % vars,
        b as usize % vars
    ));
    text
}

/// How many faults [`corrupt`] knows.
const FAULT_KINDS: usize = 7;

/// `text` with one of seven faults: a syntax error, a NUL byte, a byte that is not UTF-8, an
/// unmatched bracket, `return` or `break` outside their scope (rejected after parsing), or an
/// error message it does not print (the original does not reproduce). Returns the bytes, the
/// `--err-msg` and the text the error line must contain.
fn corrupt(text: &str, msg: &str, kind: u8, at: usize) -> (Vec<u8>, String, &'static str) {
    let starts: Vec<usize> = std::iter::once(0)
        .chain(text.match_indices('\n').map(|(i, _)| i + 1))
        .filter(|&i| i < text.len())
        .collect();
    let line_start = starts[at % starts.len()];
    let insert_line = |line: &str| {
        let mut bytes = text.as_bytes().to_vec();
        bytes.splice(line_start..line_start, line.bytes());
        bytes
    };
    let insert_byte = |byte: u8| {
        let mut bytes = text.as_bytes().to_vec();
        bytes.insert(at % text.len(), byte);
        bytes
    };
    let msg = msg.to_owned();
    match kind {
        0 => (insert_line("def broken(:\n"), msg, "is not valid Python"),
        1 => (insert_byte(0), msg, "cannot contain NUL bytes"),
        2 => (insert_byte(0xff), msg, "is not UTF-8 text"),
        3 => (insert_line(")\n"), msg, "is not valid Python"),
        4 => (insert_line("return 1\n"), msg, "is not valid Python"),
        5 => (insert_line("break\n"), msg, "is not valid Python"),
        _ => (
            text.as_bytes().to_vec(),
            "needle <1000>".into(),
            "does not appear in the output of",
        ),
    }
}

/// The message the program raises, from a real run: `needle <N>`.
fn raised_message(file: &Path) -> String {
    let output = all_output(&run_python(file, None));
    let last = output.lines().rev().find(|l| !l.trim().is_empty()).unwrap();
    let message = last
        .strip_prefix("ValueError: ")
        .unwrap_or_else(|| panic!("the generated program does not end in ValueError: {output}"));
    assert!(message.starts_with("needle <"), "{output}");
    message.to_owned()
}

fn check(input: &Input) -> Result<(), TestCaseError> {
    let backend = if input.subproc { "subproc" } else { "runner" };
    let kind = input.fault_kind;
    eprintln!(
        "case: {} steps, {backend}, -j {}, fault {kind}",
        input.steps.len(),
        input.jobs,
    );
    let area = Area::new();
    let source = area.input().join("prog.py");
    let text = program(&input.steps);
    std::fs::write(&source, &text).unwrap();
    let msg = raised_message(&source);
    let jobs = input.jobs.to_string();
    reduces_and_reproduces(&area, &source, &text, &msg, backend, &jobs)?;
    rejected_before_any_run(&area, &source, &text, &msg, &jobs, kind, input.fault_at)
}

/// The valid program reduces to an output that compiles and still prints `msg`.
fn reduces_and_reproduces(
    area: &Area,
    source: &Path,
    text: &str,
    msg: &str,
    backend: &str,
    jobs: &str,
) -> Result<(), TestCaseError> {
    let (pid, output) = area.python_run(
        source,
        &["--err-msg", msg, "--backend", backend, "-j", jobs],
    );
    let stderr = String::from_utf8_lossy(&output.stderr);
    prop_assert_eq!(output.status.code(), Some(0), "{}\n{}", text, stderr);
    let (after, before) = sizes(&output.stdout);
    prop_assert!(after <= before);
    prop_assert!(compiles(&area.out_py()), "{}", text);
    let reduced = all_output(&run_python(&area.out_py(), None));
    prop_assert!(
        reduced.contains(msg),
        "{}\nreduced to an output printing {}",
        text,
        reduced
    );
    prop_assert_eq!(std::fs::read_to_string(source).unwrap(), text);
    assert_no_survivors(pid, &area.input().join("pids"));
    area.assert_tmp_empty();
    std::fs::remove_file(area.out_py()).unwrap();
    Ok(())
}

/// The program with fault `kind` is refused with exit 1 and a clear message before any run.
fn rejected_before_any_run(
    area: &Area,
    source: &Path,
    text: &str,
    msg: &str,
    jobs: &str,
    kind: u8,
    at: usize,
) -> Result<(), TestCaseError> {
    let (bytes, err_msg, expected) = corrupt(text, msg, kind, at);
    std::fs::write(source, &bytes).unwrap();
    let (predicate, counter) = marker_predicate(&area.input());
    let predicate = predicate.to_string_lossy().into_owned();
    let with_predicate = [
        "--err-msg",
        &err_msg,
        "--predicate",
        &predicate,
        "--predicate-arg",
        "{file}",
        "-j",
        jobs,
    ];
    let with_runner = ["--err-msg", &err_msg, "--backend", "runner", "-j", jobs];
    for extra in [&with_predicate[..], &with_runner[..]] {
        let (_, output) = area.python_run(source, extra);
        let label = format!("fault {kind} in\n{}", String::from_utf8_lossy(&bytes));
        prop_assert_eq!(output.status.code(), Some(1), "{}: {:?}", label, output);
        let stderr = String::from_utf8_lossy(&output.stderr);
        prop_assert!(!stderr.contains("panicked"), "{}: {}", label, stderr);
        let line = if kind >= 6 {
            // Followed by the original's last output lines, to show what it printed instead.
            stderr.lines().next().unwrap_or_default().to_owned()
        } else {
            // One line that names the file.
            let line = one_error_line(&output);
            prop_assert!(line.contains("prog.py"), "{}: {}", label, line);
            line
        };
        prop_assert!(
            line.starts_with("minrepro python: error: ") && line.contains(expected),
            "{}: {}",
            label,
            line
        );
        let runs = std::fs::read_to_string(&counter).unwrap_or_default();
        // Only an original that parses is judged, once (which also shows that the counter
        // works); no candidate ever runs.
        let expected_runs = if kind >= 6 { 1 } else { 0 };
        prop_assert_eq!(runs.lines().count(), expected_runs, "{}", label);
        prop_assert!(!area.out_py().exists(), "{}", label);
        prop_assert_eq!(std::fs::read(source).unwrap(), bytes.clone());
        area.assert_tmp_empty();
    }
    Ok(())
}

/// A fixed seed, so that CI runs the same cases every time (checked to cover every fault kind
/// and both backends by `the_fixed_seed_covers_every_fault_and_both_backends`).
fn config() -> ProptestConfig {
    ProptestConfig {
        cases: 10,
        rng_seed: RngSeed::Fixed(SEED),
        failure_persistence: Some(Box::new(FileFailurePersistence::Direct(
            "tests/reliability_python_props.proptest-regressions",
        ))),
        ..ProptestConfig::default()
    }
}

const SEED: u64 = 14;

proptest! {
    #![proptest_config(config())]

    #[test]
    fn random_programs_reduce_to_reproducing_outputs_and_faulty_ones_never_run(input in input()) {
        check(&input)?;
    }
}

#[test]
fn the_fixed_seed_covers_every_fault_and_both_backends() {
    // The same runner and strategy as the property test, with a check that costs nothing.
    let seen = std::cell::RefCell::new((BTreeSet::new(), 0usize, 0usize));
    let mut runner = TestRunner::new(ProptestConfig {
        failure_persistence: None,
        ..config()
    });
    runner
        .run(&input(), |input| {
            let mut seen = seen.borrow_mut();
            seen.0.insert(input.fault_kind);
            seen.1 += usize::from(input.subproc);
            seen.2 += 1;
            Ok(())
        })
        .unwrap();
    let (kinds, subproc, cases) = seen.into_inner();
    assert_eq!(kinds.len(), FAULT_KINDS, "fault kinds covered: {kinds:?}");
    assert!(
        (2..cases).contains(&subproc),
        "{subproc} of {cases} cases use subproc"
    );
}

#[test]
fn the_generated_programs_are_valid_and_varied() {
    // Every kind of statement appears in some program, and each such program runs to its raise.
    let steps: Vec<Step> = (0u8..13)
        .flat_map(|k| [(k, 3, 5, 400), (k, 11, 2, 999)])
        .collect();
    let text = program(&steps);
    for needle in [
        "def f0", "class C0", "if ", "for ", "while ", "with ", "try:", "print(",
    ] {
        assert!(text.contains(needle), "{needle} missing from\n{text}");
    }
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("p.py");
    std::fs::write(&file, &text).unwrap();
    raised_message(&file);
}
