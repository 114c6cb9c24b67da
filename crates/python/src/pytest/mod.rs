//! `minrepro python --pytest NODEID`: a failing pytest test reduced with the conftest.py files
//! and local modules it depends on, then turned into a plain script ([`plain`]).
//!
//! Candidates run pytest through `bootstrap.py` (`PYTHON -c BOOTSTRAP -x -q -p
//! no:cacheprovider NODEID`, the same as `python -m pytest ...` with one plugin object): it
//! prints the exception pytest reported as an uncaught exception's traceback on stderr, so the
//! fidelity guard reads a test's failure exactly as it reads a script's. Runs start in the
//! candidate's workspace, a copy of the project root holding the candidate's files, so the node
//! id is relative to the root and the root is `sys.path[0]`, as for `python -m pytest` there.

pub mod plain;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use minrepro_driver::RunError;
use minrepro_engine::Progress;
use minrepro_pysyntax::PytestTest;

use crate::checks::shell_quoted;
use crate::project::{Project, Search};
use crate::source::Source;

/// The pytest entry every candidate runs (see the module documentation).
const BOOTSTRAP: &str = include_str!("bootstrap.py");

/// The line after the traceback naming the chosen parametrize case.
const CASE_LINE: &str = "minrepro-pytest-case: ";

/// The test `--pytest` names.
#[derive(Debug, Clone)]
pub struct NodeId {
    /// The test file, as given (relative to the current directory, or absolute).
    pub file: PathBuf,
    /// What follows the file in the node id (`TestX::test_y[gold]`).
    pub rest: String,
    /// The class and function it names.
    pub test: PytestTest,
}

impl NodeId {
    /// The node id `--pytest` gives, if any.
    pub fn of(arg: Option<&str>) -> Result<Option<NodeId>, RunError> {
        let Some(arg) = arg else { return Ok(None) };
        let usage = |why: &str| RunError::Usage(format!("--pytest {arg}: {why}"));
        let (file, rest) = arg
            .split_once("::")
            .ok_or_else(|| usage("expected FILE::TEST (a node id as pytest prints it)"))?;
        let parts: Vec<&str> = rest.split("::").collect();
        let function = parts[parts.len() - 1];
        let function = function.split_once('[').map_or(function, |(f, _)| f);
        if function.is_empty() || parts.iter().any(|p| p.is_empty()) {
            return Err(usage("the test's name is empty"));
        }
        let class = match parts.as_slice() {
            [_] => None,
            [class, _] => Some((*class).to_owned()),
            _ => return Err(usage("a test in a nested class is not supported")),
        };
        Ok(Some(NodeId {
            file: PathBuf::from(file),
            rest: rest.to_owned(),
            test: PytestTest {
                class,
                function: function.to_owned(),
                indices: BTreeMap::new(),
            },
        }))
    }

    /// The arguments of every candidate's run, the test file being `entry` (root-relative).
    /// `tmp_path`'s directories go below the candidate's workspace (the run's directory), which
    /// minrepro removes, instead of pytest's default under TMPDIR, which nothing removes.
    pub fn predicate_args(&self, entry: &str) -> Vec<String> {
        let node = format!("{entry}::{}", self.rest);
        let basetemp = "--basetemp=.pytest-tmp";
        [
            "-c",
            BOOTSTRAP,
            "-x",
            "-q",
            "-p",
            "no:cacheprovider",
            basetemp,
            &node,
        ]
        .map(str::to_owned)
        .to_vec()
    }
}

/// The root `--root` gives, else the nearest marked directory (see `project::root_of`), else
/// the current directory when it holds the test (there `python -m pytest` finds the project's
/// modules), else the test's directory.
pub fn root_of(test_dir: &Path, root: Option<&Path>) -> Result<PathBuf, RunError> {
    let fallback = std::env::current_dir()
        .ok()
        .and_then(|dir| dir.canonicalize().ok())
        .filter(|dir| test_dir.starts_with(dir));
    crate::project::root_of(test_dir, root, fallback.as_deref())
}

/// The conftest.py files pytest loads for the test `entry` (root-relative): in the root and
/// every directory down to the test's, outermost first.
pub fn conftests(root: &Path, entry: &str) -> Vec<String> {
    let mut dirs = vec![String::new()];
    let parts: Vec<&str> = entry.split('/').collect();
    for n in 1..parts.len() {
        dirs.push(format!("{}/", parts[..n].join("/")));
    }
    dirs.into_iter()
        .map(|dir| format!("{dir}conftest.py"))
        .filter(|name| root.join(name).is_file())
        .collect()
}

/// Makes `source`, the test file, a file of the project under `root` (candidates hold it under
/// its root-relative name, and nothing of the original tree is on their `sys.path`), and says
/// how its candidates run.
pub fn take_root(
    source: &mut Source,
    root: &Path,
    node: &NodeId,
    project: Option<&Project>,
    progress: &Progress,
) -> Result<(), RunError> {
    let name = match project {
        Some(found) => found.entry().to_owned(),
        None => crate::project::relative(&source.path, root).ok_or_else(|| {
            RunError::Failed(format!("{} is outside the root", source.path.display()))
        })?,
    };
    let others = project.map_or(0, |found| found.docs.len() - 1);
    progress.message(&format!(
        "candidates run `python -m pytest -x -q -p no:cacheprovider {name}::{}` in a copy of {} \
         holding the candidate's files; the test file and {others} conftest and local module \
         files are reduced together",
        node.rest,
        root.display()
    ));
    source.project_root = Some(root.to_path_buf());
    source.file_name = name;
    Ok(())
}

/// How to run the output `file` when it stays a pytest test: in `output` when that is a
/// directory holding it (its modules are found there, as in the root).
pub fn how_to_run(python: &str, output: &Path, file: &str, node: &NodeId) -> String {
    let command = |file: &str| {
        [python, "-m", "pytest", &format!("{file}::{}", node.rest)]
            .iter()
            .map(|w| shell_quoted(w))
            .collect::<Vec<_>>()
            .join(" ")
    };
    match Path::new(file).strip_prefix(output) {
        Ok(inside) if !inside.as_os_str().is_empty() => format!(
            "cd {} && {}",
            shell_quoted(&output.to_string_lossy()),
            command(&inside.to_string_lossy())
        ),
        _ => command(file),
    }
}

/// Where a pytest test `entry` (root-relative) finds modules: in its default ("prepend")
/// import mode pytest puts the test's basedir (the nearest directory upwards from the test's
/// own without an `__init__.py`) first on `sys.path`, and `python -m pytest` puts the root (its
/// working directory) there as well.
pub fn search(root: &Path, entry: &str) -> Search {
    let mut dir = match entry.rfind('/') {
        Some(at) => entry[..=at].to_owned(),
        None => String::new(),
    };
    while !dir.is_empty() && root.join(&dir).join("__init__.py").is_file() {
        let parent = dir[..dir.len() - 1].rfind('/').map_or(0, |at| at + 1);
        dir.truncate(parent);
    }
    let mut dirs = vec![dir];
    if !dirs[0].is_empty() {
        dirs.push(String::new());
    }
    Search(dirs)
}

/// A hint when the original's run could not import pytest (`stderr`: its output's tail).
pub fn missing_pytest_hint(stderr: &str) -> Option<String> {
    stderr.contains("No module named 'pytest'").then(|| {
        "\nhint: --pytest runs pytest with the interpreter --python names, and it cannot import \
         pytest: install pytest for it, or pass --python PATH of one that can"
            .to_owned()
    })
}

/// The chosen parametrize case a candidate's run names (see `bootstrap.py`).
pub fn case_indices(stderr: &str) -> BTreeMap<String, usize> {
    stderr
        .lines()
        .rev()
        .find_map(|line| line.strip_prefix(CASE_LINE))
        .and_then(|json| serde_json::from_str(json).ok())
        .unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn node_ids_name_a_file_an_optional_class_and_a_test() {
        let node = NodeId::of(Some("tests/test_a.py::TestX::test_y[gold-2]"))
            .unwrap()
            .unwrap();
        assert_eq!(node.file, Path::new("tests/test_a.py"));
        assert_eq!(node.test.class.as_deref(), Some("TestX"));
        assert_eq!(node.test.function, "test_y");
        let args = node.predicate_args("t/test_a.py");
        assert_eq!(args.last().unwrap(), "t/test_a.py::TestX::test_y[gold-2]");
        for bad in ["tests/test_a.py", "a.py::", "a.py::A::B::test"] {
            assert!(NodeId::of(Some(bad)).is_err(), "{bad}");
        }
        assert!(NodeId::of(None).unwrap().is_none());
    }

    #[test]
    fn the_case_line_gives_the_parametrize_indices() {
        let stderr = "Traceback (most recent call last):\nValueError: x\nminrepro-pytest-case: {\"tier\": 2}\n";
        assert_eq!(
            case_indices(stderr),
            BTreeMap::from([("tier".to_owned(), 2)])
        );
        assert!(case_indices("nothing\n").is_empty());
    }

    #[test]
    fn conftests_are_found_from_the_root_down() {
        let (_dir, root) = minrepro_testkit::temp_path("conftests");
        std::fs::create_dir_all(root.join("tests/unit")).unwrap();
        for name in ["conftest.py", "tests/unit/conftest.py"] {
            std::fs::write(root.join(name), "").unwrap();
        }
        assert_eq!(
            conftests(&root, "tests/unit/test_a.py"),
            ["conftest.py", "tests/unit/conftest.py"]
        );
        // Modules: in the basedir first (tests/unit/ without __init__.py), then the root.
        let dirs = |entry: &str| search(&root, entry).0;
        assert_eq!(dirs("tests/unit/test_a.py"), ["tests/unit/", ""]);
        std::fs::write(root.join("tests/unit/__init__.py"), "").unwrap();
        assert_eq!(dirs("tests/unit/test_a.py"), ["tests/", ""]);
        std::fs::write(root.join("tests/__init__.py"), "").unwrap();
        assert_eq!(dirs("tests/unit/test_a.py"), [""]);
        assert_eq!(dirs("test_a.py"), [""]);
    }
}
