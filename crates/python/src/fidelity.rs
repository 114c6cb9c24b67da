//! The fidelity guard a run asks for (`--fidelity`), read off the original's run, and how the
//! run tells the user where the failure must stay.

use minrepro_engine::Progress;
use minrepro_predicate::OutputCheck;

use crate::source::Source;
use crate::{guard, project, Fidelity, PythonArgs};

/// The fidelity guard `--fidelity` asks for, read off the original's run `first`, with its
/// one-line explanation; and, when the failure must stay in a function of the program itself,
/// that function's file (relative to the workspace) and qualified name (so the language does
/// not offer to inline it away).
pub(crate) fn fidelity_guard(
    args: &PythonArgs,
    first: &minrepro_predicate::RunRecord,
    source: &Source,
    progress: &Progress,
) -> (Option<OutputCheck>, Option<(String, String)>) {
    let level = args.fidelity_level();
    if level == Fidelity::Message {
        return (None, None);
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
            // and a class a local module defines then prints without its module's name.
            let inlined =
                (source.project_root.is_some() && origin.in_program() && origin.file != own_file)
                    .then(|| guard::Inlined {
                        kind: source.project_root.as_ref().and_then(|root| {
                            let name = &source.file_name;
                            let search = match args.pytest {
                                Some(_) => "",
                                None => name.rfind('/').map_or("", |at| &name[..=at]),
                            };
                            project::inlined_type_name(&kind, root, search, name)
                        }),
                        file: own_file,
                    });
            let check = guard::same_origin_check_in(&kind, origin, inlined);
            (Some(check), keep)
        }
        (found, _) => (Some(guard::same_exception_check(found.as_deref())), None),
    }
}

/// Where a failure happens, as the user knows it: `in F (the program NAME)`, `at the top level
/// of the program NAME`, `in F (/path/of/the/library.py)`.
fn where_shown(origin: &guard::Origin, file_name: &str) -> String {
    let file = match origin.in_program() {
        true => format!("the program {file_name}"),
        false => origin.file.clone(),
    };
    match origin.function.as_str() {
        "<module>" => format!("at the top level of {file}"),
        function => format!("in {function} ({file})"),
    }
}
