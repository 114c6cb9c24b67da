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
