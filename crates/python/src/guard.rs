//! The fidelity guard: the type of the uncaught exception a Python run ends in, read from the
//! tail of its stderr, and an [`OutputCheck`] requiring a candidate to end the same way: in an
//! exception of the same type, or, when the original ends without one, without a traceback.

use std::sync::Arc;

use minrepro_predicate::{OutputCheck, RunRecord};

/// Header line of a plain traceback.
const HEADER: &str = "Traceback (most recent call last):";
/// Header line of a top-level exception-group traceback (Python 3.11+).
const GROUP_HEADER: &str = "  + Exception Group Traceback (most recent call last):";

/// The exception type named by the last top-level traceback in `stderr`, e.g. `ValueError`,
/// `pkg.mod.MyError` or `KeyboardInterrupt`; `None` when there is no (recognizable) traceback.
///
/// The exception line is the first line after the last traceback header that is not indented
/// relative to the header (frame and source lines are), so multi-line messages and notes after it
/// do not matter; with chained exceptions the last (outermost raised) one counts. A syntax error
/// in the main script is printed without a header, starting with a `  File "...", line N` line
/// that does not follow a header; such a line starts a traceback too. Without either (a traceback
/// longer than the captured tail), the last `  File "...` frame line starts it.
pub fn exception_type(stderr: &str) -> Option<String> {
    let lines: Vec<&str> = stderr.lines().collect();
    let is_header = |line: &str| line.trim_end() == HEADER || line.trim_end() == GROUP_HEADER;
    let starts = |index: usize| {
        let line = lines[index];
        if is_header(line) {
            return true;
        }
        let previous = index.checked_sub(1).map(|i| lines[i]);
        line.starts_with("  File \"")
            && previous.is_none_or(|p| !p.starts_with(char::is_whitespace) && !is_header(p))
    };
    // A traceback longer than the captured tail has lost its header: then its last frame line
    // starts it.
    let start = (0..lines.len())
        .rev()
        .find(|&index| starts(index))
        .or_else(|| lines.iter().rposition(|l| l.starts_with("  File \"")))?;
    let indent = if lines[start].trim_end() == GROUP_HEADER {
        "  + ".len()
    } else {
        0
    };
    let line = lines[start + 1..].iter().find_map(|line| {
        let rest = line.get(indent..)?;
        let first = rest.chars().next()?;
        (!first.is_whitespace()).then_some(rest)
    })?;
    let name = line
        .split_once(':')
        .map_or(line, |(name, _)| name)
        .trim_end();
    is_dotted_name(name).then(|| name.to_owned())
}

/// Whether `name` is a dotted Python identifier (`ValueError`, `a.b.C`).
fn is_dotted_name(name: &str) -> bool {
    !name.is_empty()
        && name.split('.').all(|part| {
            let mut chars = part.chars();
            chars.next().is_some_and(|c| c.is_alphabetic() || c == '_')
                && chars.all(|c| c.is_alphanumeric() || c == '_')
        })
}

/// A check that accepts a run only when its stderr ends like the original's: in an exception of
/// type `expected`, or without an uncaught exception when `expected` is `None`.
pub fn same_exception_check(expected: Option<&str>) -> OutputCheck {
    let wanted = expected.map(str::to_owned);
    let description = match expected {
        Some(kind) => format!("python-uncaught-exception-type={kind}"),
        None => "python-no-uncaught-exception".to_owned(),
    };
    OutputCheck {
        description,
        check: Arc::new(move |record: &RunRecord| exception_type(&record.stderr.tail) == wanted),
    }
}

/// When the original ends in an uncaught exception but `needle` occurs only outside its final
/// traceback (a warning, a log line before it), the sentence to tell the user once; `None`
/// otherwise. The fidelity guard keeps the exception type, not the line that matched.
pub fn needle_outside_traceback(run: &RunRecord, needle: &str, exception: &str) -> Option<String> {
    let stderr = &run.stderr.tail;
    let start = stderr.rfind("Traceback (most recent call last):")?;
    let traceback = &stderr[start..];
    if traceback.contains(needle) {
        return None;
    }
    // The tail is bounded: a needle seen only in a cut-off part still counts as "elsewhere".
    Some(format!(
        "note: --err-msg {needle:?} appears in the original's output, but not in its final \
         traceback (a {exception}); it matched a warning or another line. The reduction keeps \
         that line and the {exception}, not the cause of the line: pick an --err-msg from the \
         traceback if the {exception} is the failure you mean"
    ))
}

#[cfg(test)]
mod tests {
    use super::*;
    use minrepro_predicate::CapturedStream;

    const PLAIN: &str = "Traceback (most recent call last):\n  File \"/x/p.py\", line 3, in <module>\n    raise ValueError(\"needle\")\nValueError: needle\n";

    #[test]
    fn plain_traceback() {
        assert_eq!(exception_type(PLAIN).as_deref(), Some("ValueError"));
    }

    #[test]
    fn dotted_bare_and_multiline() {
        let dotted = "Traceback (most recent call last):\n  File \"p.py\", line 1, in <module>\npkg.mod.MyError: boom: more\n";
        assert_eq!(exception_type(dotted).as_deref(), Some("pkg.mod.MyError"));
        let bare = "Traceback (most recent call last):\n  File \"p.py\", line 1, in <module>\nKeyboardInterrupt\n";
        assert_eq!(exception_type(bare).as_deref(), Some("KeyboardInterrupt"));
        let multi = "Traceback (most recent call last):\n  File \"p.py\", line 1, in <module>\nValueError: line one\nline two: not a type\n";
        assert_eq!(exception_type(multi).as_deref(), Some("ValueError"));
    }

    #[test]
    fn chained_takes_the_last() {
        let chained = format!(
            "{PLAIN}\nDuring handling of the above exception, another exception occurred:\n\nTraceback (most recent call last):\n  File \"p.py\", line 5, in <module>\n    foo()\nNameError: name 'foo' is not defined\n"
        );
        assert_eq!(exception_type(&chained).as_deref(), Some("NameError"));
    }

    #[test]
    fn exception_group() {
        let group = "  + Exception Group Traceback (most recent call last):\n  |   File \"p.py\", line 1, in <module>\n  |     raise ExceptionGroup(\"g\", [ValueError(1)])\n  | ExceptionGroup: g (1 sub-exception)\n  +-+---------------- 1 ----------------\n    | ValueError: 1\n    +------------------------------------\n";
        assert_eq!(exception_type(group).as_deref(), Some("ExceptionGroup"));
    }

    #[test]
    fn syntax_error_of_the_main_script_has_no_header() {
        let bare = "  File \"/x/p.py\", line 3\n    print(f\"needle\")\nIndentationError: unexpected indent\n";
        assert_eq!(exception_type(bare).as_deref(), Some("IndentationError"));
        let after_output = format!("some output\n{bare}");
        assert_eq!(
            exception_type(&after_output).as_deref(),
            Some("IndentationError")
        );
    }

    #[test]
    fn traceback_cut_before_its_header() {
        let mut cut = String::from("ne 9, in f\n    g()\n");
        for i in 0..50 {
            cut.push_str(&format!("  File \"/x/p.py\", line {i}, in f\n    g()\n"));
        }
        cut.push_str("RecursionError: maximum recursion depth exceeded\n");
        assert_eq!(exception_type(&cut).as_deref(), Some("RecursionError"));
    }

    #[test]
    fn no_traceback() {
        assert_eq!(exception_type(""), None);
        assert_eq!(exception_type("ValueError: needle\n"), None);
        assert_eq!(
            exception_type("Traceback (most recent call last):\n  File\n"),
            None
        );
        assert_eq!(
            exception_type("Traceback (most recent call last):\n  File \"p\"\nnot a type!: x\n"),
            None
        );
    }

    #[test]
    fn check_compares_types() {
        let record = |stderr: &str| RunRecord {
            exit_code: Some(1),
            stdout: CapturedStream {
                head: String::new(),
                tail: String::new(),
                contains_needle: false,
            },
            stderr: CapturedStream {
                head: stderr.to_owned(),
                tail: stderr.to_owned(),
                contains_needle: true,
            },
            error: None,
        };
        let check = same_exception_check(Some("ValueError"));
        assert!((check.check)(&record(PLAIN)));
        let type_error = PLAIN.replace("ValueError: needle", "TypeError: bad operand");
        assert!(!(check.check)(&record(&type_error)));
        assert!(!(check.check)(&record("")));
        assert!(check.description.contains("ValueError"));
        let clean = same_exception_check(None);
        assert!((clean.check)(&record("")));
        assert!((clean.check)(&record("warning: needle\n")));
        assert!(!(clean.check)(&record(&type_error)));
        assert_ne!(clean.description, check.description);
    }

    #[test]
    fn a_needle_only_in_a_warning_is_noticed() {
        let run = |stderr: &str| RunRecord {
            exit_code: Some(1),
            stdout: CapturedStream::default(),
            stderr: CapturedStream {
                head: stderr.into(),
                tail: stderr.into(),
                contains_needle: true,
            },
            error: None,
        };
        let warned = run("p.py:3: DeprecationWarning: old api\n  warn()\nTraceback (most recent call last):\n  File \"p.py\", line 9, in <module>\nKeyError: ''\n");
        let note = needle_outside_traceback(&warned, "old api", "KeyError").unwrap();
        assert!(
            note.contains("not in its final traceback (a KeyError)"),
            "{note}"
        );
        assert_eq!(
            needle_outside_traceback(&warned, "KeyError", "KeyError"),
            None
        );
        let clean = run("old api\n");
        assert_eq!(
            needle_outside_traceback(&clean, "old api", "KeyError"),
            None
        );
    }
}
