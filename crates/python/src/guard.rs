//! The fidelity guard: the type of the uncaught exception a Python run ends in and where it was
//! raised, read from the tail of its stderr, and an [`OutputCheck`] requiring a candidate to end
//! the same way: in an exception of the same type (and, at `--fidelity origin`, raised in the
//! same function of the same file), or, when the original ends without one, without a traceback.

use std::collections::HashMap;
use std::path::Path;
use std::sync::{Arc, Mutex};

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
    let traceback = final_traceback(&lines)?;
    let line = &lines[traceback.exception][traceback.indent..];
    let name = line
        .split_once(':')
        .map_or(line, |(name, _)| name)
        .trim_end();
    is_dotted_name(name).then(|| name.to_owned())
}

/// The final traceback of a stderr's lines: where it starts, how far its lines are indented
/// (exception groups prefix theirs with `  | `), and its exception line.
struct Traceback {
    start: usize,
    indent: usize,
    exception: usize,
}

/// Finds the final traceback (see [`exception_type`]).
fn final_traceback(lines: &[&str]) -> Option<Traceback> {
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
    let exception = (start + 1..lines.len()).find(|&i| {
        lines[i]
            .get(indent..)
            .and_then(|rest| rest.chars().next())
            .is_some_and(|first| !first.is_whitespace())
    })?;
    Some(Traceback {
        start,
        indent,
        exception,
    })
}

/// A traceback frame: `File "FILE", line LINE, in FUNCTION`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Frame {
    /// The file as printed (a candidate's own file as `{workspace}/NAME`).
    pub file: String,
    /// 1-based line number.
    pub line: usize,
    /// The code's name (`co_name`: `resolve`, `<module>`, `<lambda>`).
    pub function: String,
}

/// The innermost frame of the final traceback in `stderr` (the code that raised), if it has one
/// that names its function (a syntax error's location names none).
pub fn innermost_frame(stderr: &str) -> Option<Frame> {
    let lines: Vec<&str> = stderr.lines().collect();
    let traceback = final_traceback(&lines)?;
    lines[traceback.start..traceback.exception]
        .iter()
        .rev()
        .filter_map(|line| line.get(traceback.indent..))
        .find_map(|line| parse_frame(line.strip_prefix("  File \"")?))
}

/// Parses `PATH", line N, in NAME`.
fn parse_frame(rest: &str) -> Option<Frame> {
    let (file, rest) = rest.rsplit_once("\", line ")?;
    let (line, function) = rest.split_once(", in ")?;
    Some(Frame {
        file: file.to_owned(),
        line: line.parse().ok()?,
        function: function.trim_end().to_owned(),
    })
}

/// Where a failure happens: the innermost frame's file and the qualified name of its code.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Origin {
    /// The file as printed (a candidate's own file as `{workspace}/NAME`).
    pub file: String,
    /// The qualified name (`PricingEngine.resolve`; the bare `co_name` when the file cannot be
    /// read or its definitions do not hold the line).
    pub function: String,
}

impl Origin {
    /// The origin of the final traceback in `stderr`; `read` gives a file's text by its printed
    /// name (`None`: unreadable).
    pub fn of(stderr: &str, read: &dyn Fn(&str) -> Option<String>) -> Option<Origin> {
        let frame = innermost_frame(stderr)?;
        let function = qualify(&frame, read(&frame.file));
        Some(Origin {
            file: frame.file,
            function,
        })
    }

    /// Whether the failure is in the candidate's own file (not a library or sibling module).
    pub fn in_program(&self) -> bool {
        self.file.starts_with(WORKSPACE)
    }
}

/// How a candidate's own file is printed in captured output.
const WORKSPACE: &str = "{workspace}/";

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
        check: Arc::new(move |record: &RunRecord, _: &Path| {
            exception_type(&record.stderr.tail) == wanted
        }),
    }
}

/// A check that accepts a run only when it ends in an uncaught exception of type `kind` raised
/// where the original's was: the innermost frame in the same file (the candidate's own file, or
/// the same library file) and code of the same qualified name. The candidate's file is read from
/// its workspace; other files' names are remembered per frame, as they do not change.
pub fn same_origin_check(kind: &str, origin: Origin) -> OutputCheck {
    same_origin_check_in(kind, origin, None)
}

/// Where a project's failure may also be once its modules are inlined into its entry.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Inlined {
    /// The entry, as `{workspace}/NAME`: the failing function may move there.
    pub file: String,
    /// The exception type's name there, when a local module defines it: the class then prints
    /// without its module's name (`shop.errors.DiscountError` becomes `DiscountError`).
    pub kind: Option<String>,
}

/// [`same_origin_check`], also accepting what `inlined` says the failure may become.
pub fn same_origin_check_in(kind: &str, origin: Origin, inlined: Option<Inlined>) -> OutputCheck {
    let mut description = format!(
        "python-uncaught-exception-type={kind} origin={}:{}",
        origin.file, origin.function
    );
    let also = inlined.as_ref().map(|i| i.file.clone());
    let bare = inlined.and_then(|i| i.kind);
    if let Some(also) = &also {
        description.push_str(&format!(" or {also}"));
    }
    if let Some(bare) = &bare {
        description.push_str(&format!(" (or type {bare})"));
    }
    let kind = kind.to_owned();
    let known: Mutex<HashMap<(String, usize, String), String>> = Mutex::default();
    let check = move |record: &RunRecord, workspace: &Path| {
        let tail = &record.stderr.tail;
        let found = exception_type(tail);
        let same_type =
            found.as_deref() == Some(kind.as_str()) || (found.is_some() && found == bare);
        if !same_type {
            return false;
        }
        let Some(frame) = innermost_frame(tail) else {
            return false;
        };
        if frame.file != origin.file && also.as_ref() != Some(&frame.file) {
            return false;
        }
        let function = if let Some(name) = frame.file.strip_prefix(WORKSPACE) {
            qualify(&frame, std::fs::read_to_string(workspace.join(name)).ok())
        } else {
            let key = (frame.file.clone(), frame.line, frame.function.clone());
            let mut known = known.lock().unwrap_or_else(|e| e.into_inner());
            known
                .entry(key)
                .or_insert_with(|| qualify(&frame, std::fs::read_to_string(&frame.file).ok()))
                .clone()
        };
        function == origin.function
    };
    OutputCheck {
        description,
        check: Arc::new(check),
    }
}

/// The qualified name of `frame`'s code, read off `text` (its file's source), or its bare name.
fn qualify(frame: &Frame, text: Option<String>) -> String {
    text.and_then(|text| minrepro_pysyntax::qualified_name(&text, frame.line, &frame.function))
        .unwrap_or_else(|| frame.function.clone())
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
