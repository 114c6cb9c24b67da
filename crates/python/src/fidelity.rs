//! The fidelity guard a run asks for (`--fidelity`), read off the original's run, and how the
//! run tells the user where the failure must stay.

use minrepro_engine::Progress;
use minrepro_predicate::{OutputCheck, RunRecord};

use crate::source::Source;
use crate::{guard, project, Fidelity, PythonArgs};

/// The fidelity guard `--fidelity` asks for, read off the original's run `first`, with its
/// one-line explanation; and, when the failure must stay in a function of the program itself,
/// that function's file (relative to the workspace) and qualified name (so the language does
/// not offer to inline it away); and how the original fails (`Expected`, with whether the
/// failure must stay in a library's function).
pub(crate) fn fidelity_guard(
    args: &PythonArgs,
    first: &minrepro_predicate::RunRecord,
    source: &Source,
    progress: &Progress,
) -> (Option<OutputCheck>, Option<(String, String)>, Expected) {
    let level = args.fidelity_level();
    if level == Fidelity::Message {
        return (None, None, Expected::default());
    }
    let found = guard::exception_type(&first.stderr.tail);
    let own_file = format!("{{workspace}}/{}", source.file_name);
    let read = |file: &str| match (file.strip_prefix("{workspace}/"), &source.project_root) {
        _ if file == own_file => Some(source.text.clone()),
        (Some(name), Some(root)) => std::fs::read_to_string(root.join(name)).ok(),
        _ => std::fs::read_to_string(file).ok(),
    };
    let origin = match (&found, level) {
        (Some(_), Fidelity::Origin) => guard::Origin::of(&first.stderr.tail, &read),
        _ => None,
    };
    progress.message(&match (&found, &origin) {
        (Some(kind), Some(origin)) => format!(
            "the original fails {} with an uncaught {kind}; candidates must fail there too (--fidelity type keeps only the exception type)",
            where_shown(origin, &source.file_name),
        ),
        (Some(kind), None) => format!(
            "the original ends in an uncaught {kind}; candidates must too (--fidelity message turns this off)"
        ),
        (None, _) => "the original ends without an uncaught Python exception; candidates must too (--fidelity message turns this off)".to_owned(),
    });
    if let (Some(kind), Some(needle)) = (&found, args.err_msg.as_deref()) {
        if let Some(note) = guard::needle_outside_traceback(first, needle, kind) {
            progress.message(&note);
        }
    }
    let expected = Expected {
        kind: found.clone(),
        function: origin.as_ref().map(|o| o.function.clone()),
        in_library: origin.as_ref().is_some_and(|o| !o.in_program()),
    };
    match (found, origin) {
        (Some(kind), Some(origin)) => {
            let keep = (origin.in_program() && origin.function != "<module>").then(|| {
                let file = origin
                    .file
                    .strip_prefix("{workspace}/")
                    .unwrap_or(&origin.file);
                (file.to_owned(), origin.function.clone())
            });
            // A project's modules may be inlined into its entry: the function may move there,
            // and a class a local module defines then prints without its module's name. So
            // does a class of a pytest test module once the test is a plain script.
            let moves = origin.file != own_file || args.pytest.is_some();
            let inlined =
                (source.project_root.is_some() && origin.in_program() && moves).then(|| {
                    guard::Inlined {
                        kind: source.project_root.as_ref().and_then(|root| {
                            let name = &source.file_name;
                            let search = match args.pytest {
                                Some(_) => crate::pytest::search(root, name),
                                None => project::Search::one(
                                    name.rfind('/').map_or("", |at| &name[..=at]),
                                ),
                            };
                            project::inlined_type_name(&kind, root, &search, name)
                        }),
                        file: own_file,
                    }
                });
            let check = guard::same_origin_check_in(&kind, origin, inlined);
            (Some(check), keep, expected)
        }
        (found, _) => (
            Some(guard::same_exception_check(found.as_deref())),
            None,
            expected,
        ),
    }
}

/// How the original fails, as far as the guard keeps it.
#[derive(Debug, Clone, Default)]
pub(crate) struct Expected {
    /// The uncaught exception's type (`None`: without one, or not kept).
    kind: Option<String>,
    /// The qualified name of the function raising it, at `--fidelity origin`.
    function: Option<String>,
    /// Whether that function is a library's: every candidate must then still call the library
    /// and fail inside it, so values library code produced may be substituted too.
    pub(crate) in_library: bool,
}

impl Expected {
    /// Which check the run `run` fails, in words: `--err-msg`, the exception's type, or where it
    /// is raised. Types and functions are compared by their last names (a class a local module
    /// defines prints bare once inlined).
    pub(crate) fn failed_check(&self, run: &RunRecord, err_msg: Option<&str>) -> String {
        let tail = &run.stderr.tail;
        let found = guard::exception_type(tail);
        let ends = match &found {
            Some(kind) => format!("it ends in {kind}"),
            None => "it ends without an uncaught exception".to_owned(),
        };
        let last = |name: &str| name.rsplit('.').next().unwrap_or(name).to_owned();
        if let Some(needle) = err_msg {
            if !run.stdout.contains_needle && !run.stderr.contains_needle {
                return format!("--err-msg {needle:?} is not in its output ({ends})");
            }
        }
        if self.kind.as_deref().map(last) != found.as_deref().map(last) {
            let wanted = self.kind.as_deref().unwrap_or("no uncaught exception");
            return format!("the exception-type check failed: {ends}, not {wanted}");
        }
        let raised = guard::innermost_frame(tail).map(|frame| frame.function);
        match &self.function {
            Some(function) if raised.as_deref() != Some(last(function).as_str()) => format!(
                "the origin check failed: its {} is raised in {}, not in {function}",
                found.unwrap_or_default(),
                raised.as_deref().unwrap_or("no function")
            ),
            _ => "it failed the same way once more, alone: the reduction's verdict was not \
                  stable (flaky or timed out)"
                .to_owned(),
        }
    }
}

/// Where a failure happens, as the user knows it: `in F (the program NAME)`, `at the top level
/// of the program NAME`, `in F (/path/of/the/library.py)`.
fn where_shown(origin: &guard::Origin, file_name: &str) -> String {
    let file = match origin.file.strip_prefix("{workspace}/") {
        Some(name) if name == file_name => format!("the program {file_name}"),
        Some(module) => format!("the program's module {module}"),
        None => origin.file.clone(),
    };
    match origin.function.as_str() {
        "<module>" => format!("at the top level of {file}"),
        function => format!("in {function} ({file})"),
    }
}
