//! `minrepro python` on a project: the entry and the local modules it imports (directly or
//! through each other) that resolve inside the project root, reduced together as one set of
//! documents (see `minrepro_text::DocSet`), then inlined into one standalone file
//! ([`standalone`]). Modules outside the root (site-packages, the standard library) are never
//! read or written: candidates import them from where they are.
//!
//! Modules are found where the entry's own `sys.path[0]` finds them: below the entry's
//! directory (which must be inside the root). Documents are named relative to the root; the
//! entry comes first (it is the file candidates run, and it is never removed).

pub mod layout;
pub mod run;
pub mod standalone;

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use minrepro_driver::RunError;
use minrepro_text::{Content, Doc};

pub use layout::Search;
use layout::{imported_modules, is_package};

/// The project of an entry that imports local modules.
#[derive(Debug, Clone)]
pub struct Project {
    /// The root (absolute).
    pub root: PathBuf,
    /// The directories modules are found in (see [`Search`]).
    pub search: Search,
    /// The entry first, then each local module in the order it was found.
    pub docs: Vec<Doc>,
}

impl Project {
    /// The entry's name relative to the root.
    pub fn entry(&self) -> &str {
        &self.docs[0].name
    }
}

/// The root `--root` gives, else the nearest directory from the entry's upwards holding
/// `pyproject.toml` or `setup.py`, else `fallback` or the entry's directory. The search stops
/// at a version-control root (a directory holding `.git`, `.hg` or `.svn`): a project does not
/// reach beyond its repository, and a checkout inside another project's tree is its own.
pub fn root_of(
    entry_dir: &Path,
    root: Option<&Path>,
    fallback: Option<&Path>,
) -> Result<PathBuf, RunError> {
    if let Some(root) = root {
        let root = root
            .canonicalize()
            .map_err(|e| RunError::Usage(format!("--root {}: {e}", root.display())))?;
        if !entry_dir.starts_with(&root) {
            return Err(RunError::Usage(format!(
                "--root {} does not hold the source (in {})",
                root.display(),
                entry_dir.display()
            )));
        }
        return Ok(root);
    }
    let marked =
        |dir: &Path| dir.join("pyproject.toml").is_file() || dir.join("setup.py").is_file();
    let vcs_root = |dir: &Path| [".git", ".hg", ".svn"].iter().any(|m| dir.join(m).exists());
    for dir in entry_dir.ancestors() {
        if marked(dir) {
            return Ok(dir.to_path_buf());
        }
        if vcs_root(dir) {
            break;
        }
    }
    Ok(fallback.unwrap_or(entry_dir).to_path_buf())
}

/// The project of the entry `entry` (absolute path, its text `text`) under `root`: `None` when
/// it imports no local module (then it is reduced as a single file, exactly as before). The
/// modules in `stay` (the `--preload` ones: the runner's helpers import them once, so they must
/// stay modules) and their submodules are left out, as modules outside the root are.
///
/// A pytest test (`pytest`) finds modules in the root (`python -m pytest` puts its working
/// directory, the root, first on `sys.path`), and the conftest.py files on the way to it are
/// part of its project.
pub fn discover(
    entry: &Path,
    text: &str,
    root: &Path,
    stay: &[String],
    pytest: bool,
) -> Result<Option<Project>, RunError> {
    let failed = RunError::Failed;
    let entry_name = relative(entry, root)
        .ok_or_else(|| failed(format!("{} is outside the root", entry.display())))?;
    let search = match entry_name.rfind('/') {
        _ if pytest => crate::pytest::search(root, &entry_name),
        Some(at) => Search::one(&entry_name[..=at]),
        None => Search::one(""),
    };
    let mut docs = vec![Doc {
        name: entry_name.clone(),
        content: Content::Text(text.to_owned()),
    }];
    if pytest {
        for name in crate::pytest::conftests(root, &entry_name) {
            docs.push(Doc {
                content: Content::Text(read_module(root, &name)?),
                name,
            });
        }
    }
    let mut seen: BTreeSet<String> = docs.iter().map(|d| d.name.clone()).collect();
    let mut next = 0;
    while next < docs.len() {
        let name = docs[next].name.clone();
        let source = docs[next].content.text().unwrap_or_default().to_owned();
        next += 1;
        let facts = minrepro_pysyntax::module_facts(&source)
            .map_err(|p| failed(format!("{name} is not valid Python: {p}")))?;
        let importer = (next > 1).then(|| search.module_name(&name)).flatten();
        for import in &facts.imports {
            for module in imported_modules(import, importer.as_deref(), is_package(&name)) {
                if stay
                    .iter()
                    .any(|kept| module == *kept || module.starts_with(&format!("{kept}.")))
                {
                    continue;
                }
                let Some(found) = resolve(root, &search, &module) else {
                    continue;
                };
                if seen.insert(found.clone()) {
                    docs.push(Doc {
                        content: Content::Text(read_module(root, &found)?),
                        name: found,
                    });
                }
            }
        }
    }
    Ok((docs.len() > 1).then(|| Project {
        root: root.to_path_buf(),
        search,
        docs,
    }))
}

/// The root-relative name of the file of `module`, if it is a package's `__init__.py` or a
/// `.py` file below a search directory (see [`Search::candidates`]).
fn resolve(root: &Path, search: &Search, module: &str) -> Option<String> {
    search
        .candidates(module)
        .into_iter()
        .find(|name| root.join(name).is_file())
}

/// The text of the module file `name`: UTF-8 Python.
fn read_module(root: &Path, name: &str) -> Result<String, RunError> {
    let bytes = std::fs::read(root.join(name))
        .map_err(|e| RunError::Failed(format!("cannot read the module {name}: {e}")))?;
    let text = String::from_utf8(bytes).map_err(|_| {
        RunError::Failed(format!(
            "the module {name} is not UTF-8 text (a project's modules must be)"
        ))
    })?;
    if text.contains('\0') {
        return Err(RunError::Failed(format!(
            "the module {name} holds a NUL byte"
        )));
    }
    Ok(text)
}

/// The entries of the search path `path` (`:`-separated) that are not inside `root`.
pub fn outside_root(path: &str, root: &Path) -> String {
    path.split(':')
        .filter(|entry| {
            let dir = Path::new(if entry.is_empty() { "." } else { entry });
            let dir = dir.canonicalize().unwrap_or_else(|_| dir.to_path_buf());
            !dir.starts_with(root)
        })
        .collect::<Vec<_>>()
        .join(":")
}

/// `path` relative to `root`, `/`-separated.
pub(crate) fn relative(path: &Path, root: &Path) -> Option<String> {
    let rel = path.strip_prefix(root).ok()?;
    let parts: Vec<String> = rel
        .components()
        .map(|c| c.as_os_str().to_string_lossy().into_owned())
        .collect();
    (!parts.is_empty()).then(|| parts.join("/"))
}

/// The name the exception type `kind` prints as once the project's modules are inlined into
/// its entry `entry` (relative to `root`; modules found in `search`, see [`Project::search`]):
/// a class a local module defines prints qualified (`shop.discounts.DiscountError`), the same
/// class defined in the single file (`__main__`) bare (`DiscountError`); so does a class of a
/// pytest test module, which pytest imports under its file's stem. `None` when `kind` is not
/// qualified by a local module.
pub fn inlined_type_name(kind: &str, root: &Path, search: &Search, entry: &str) -> Option<String> {
    let (module, name) = kind.rsplit_once('.')?;
    let stem = entry.rsplit('/').next()?.strip_suffix(".py")?;
    let local = search
        .candidates(module)
        .iter()
        .any(|file| root.join(file).is_file())
        || module == stem;
    local.then(|| name.to_owned())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_default_root_does_not_climb_out_of_a_repository() {
        let (_dir, top) = minrepro_testkit::temp_path("roots");
        let repo = top.join("outer/repo");
        std::fs::create_dir_all(repo.join(".git")).unwrap();
        std::fs::create_dir_all(repo.join("src")).unwrap();
        std::fs::write(top.join("outer/pyproject.toml"), "").unwrap();
        let src = repo.join("src");
        assert_eq!(root_of(&src, None, None).unwrap(), src);
        assert_eq!(root_of(&src, None, Some(&repo)).unwrap(), repo);
        std::fs::write(repo.join("setup.py"), "").unwrap();
        assert_eq!(root_of(&src, None, None).unwrap(), repo);
        // Without a repository, the nearest marked directory upwards.
        std::fs::remove_dir(repo.join(".git")).unwrap();
        std::fs::remove_file(repo.join("setup.py")).unwrap();
        assert_eq!(root_of(&src, None, None).unwrap(), top.join("outer"));
    }

    #[test]
    fn finds_local_modules_through_each_other_and_leaves_the_rest() {
        let (_dir, root) = minrepro_testkit::temp_path("project");
        std::fs::create_dir(&root).unwrap();
        let root = root.canonicalize().unwrap();
        let root = root.as_path();
        std::fs::write(root.join("pyproject.toml"), "").unwrap();
        std::fs::create_dir_all(root.join("app/pkg")).unwrap();
        std::fs::write(root.join("app/pkg/__init__.py"), "from .core import run\n").unwrap();
        std::fs::write(root.join("app/pkg/core.py"), "import os\ndef run(): pass\n").unwrap();
        std::fs::write(root.join("app/unused.py"), "").unwrap();
        let entry = root.join("app/main.py");
        let text = "import os\nfrom pkg import run\nrun()\n";
        std::fs::write(&entry, text).unwrap();
        let found = root_of(&root.join("app"), None, None).unwrap();
        assert_eq!(found, root);
        let project = discover(&entry, text, &found, &[], false).unwrap().unwrap();
        let names: Vec<&str> = project.docs.iter().map(|d| d.name.as_str()).collect();
        assert_eq!(
            names,
            ["app/main.py", "app/pkg/__init__.py", "app/pkg/core.py"]
        );
        assert_eq!(project.search, Search::one("app/"));
        assert!(discover(&entry, "import os\n", &found, &[], false)
            .unwrap()
            .is_none());
        // A pytest test's conftest.py files are in its set, and it finds modules in its
        // basedir (app/, which has no __init__.py: pytest puts it first on sys.path), then in
        // the root.
        std::fs::write(root.join("app/conftest.py"), "from pkg import run\n").unwrap();
        let test = discover(&entry, "import os\n", &found, &[], true)
            .unwrap()
            .unwrap();
        let names: Vec<&str> = test.docs.iter().map(|d| d.name.as_str()).collect();
        assert_eq!(
            names,
            [
                "app/main.py",
                "app/conftest.py",
                "app/pkg/__init__.py",
                "app/pkg/core.py"
            ]
        );
        assert_eq!(test.search, Search(vec!["app/".into(), String::new()]));
        // A preloaded package stays a module: then nothing local is left to reduce with it.
        let stay = ["pkg".to_owned()];
        assert!(discover(&entry, text, &found, &stay, false)
            .unwrap()
            .is_none());
    }
}
