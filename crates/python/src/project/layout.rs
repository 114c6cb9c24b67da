//! Module names of a project's files: a file's dotted name relative to the directory modules are
//! found in (the entry's directory, `sys.path[0]`), and the modules an import statement names.

use minrepro_pysyntax::Import;

/// The directories a project's modules are found in, as `sys.path` lists them, first first:
/// each a `/`-terminated prefix of root-relative names, or "" for the root.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Search(pub Vec<String>);

impl Search {
    /// One directory.
    pub fn one(dir: &str) -> Search {
        Search(vec![dir.to_owned()])
    }

    /// The module name of the file `doc`: the first directory's that holds it.
    pub fn module_name(&self, doc: &str) -> Option<String> {
        self.0.iter().find_map(|dir| module_name(doc, dir))
    }

    /// The root-relative files a module `module` may be, in the order Python looks (each
    /// directory in turn, a package before a module).
    pub fn candidates(&self, module: &str) -> Vec<String> {
        let path = module.replace('.', "/");
        self.0
            .iter()
            .flat_map(|dir| {
                [
                    format!("{dir}{path}/__init__.py"),
                    format!("{dir}{path}.py"),
                ]
            })
            .collect()
    }
}

/// `pkg/mod.py` → `pkg.mod`, `pkg/__init__.py` → `pkg`, relative to `search` (a `/`-terminated
/// prefix of the root-relative name, or ""); `None` outside it or for a file that is no module.
pub fn module_name(doc: &str, search: &str) -> Option<String> {
    let rel = doc.strip_prefix(search)?;
    let stem = rel.strip_suffix(".py")?;
    let stem = stem.strip_suffix("/__init__").unwrap_or(stem);
    (!stem.is_empty() && stem != "__init__").then(|| stem.replace('/', "."))
}

/// Whether `doc` is a package's `__init__.py`.
pub fn is_package(doc: &str) -> bool {
    doc == "__init__.py" || doc.ends_with("/__init__.py")
}

/// Whether `doc` is a conftest.py file (pytest loads it itself, nobody imports it).
pub fn is_conftest(doc: &str) -> bool {
    doc == "conftest.py" || doc.ends_with("/conftest.py")
}

/// The absolute module `import`'s `from` part names in the module `importer` (`None`: the
/// entry, whose relative imports fail), or `None` when a relative import climbs too far.
pub fn from_module(import: &Import, importer: Option<&str>, package: bool) -> Option<String> {
    let from = import.from.as_deref()?;
    if import.level == 0 {
        return Some(from.to_owned());
    }
    let mut parts: Vec<&str> = importer?.split('.').collect();
    if !package {
        parts.pop();
    }
    for _ in 1..import.level {
        parts.pop()?;
    }
    if !from.is_empty() {
        parts.push(from);
    }
    (!parts.is_empty()).then(|| parts.join("."))
}

/// `a`, `a.b`, `a.b.c` of `a.b.c`.
pub fn prefixes(name: &str) -> Vec<String> {
    let parts: Vec<&str> = name.split('.').collect();
    (1..=parts.len()).map(|n| parts[..n].join(".")).collect()
}

/// Every module `import` may import (each package on the way, and for `from X import n` also
/// `X.n`, which may be a submodule).
pub fn imported_modules(import: &Import, importer: Option<&str>, package: bool) -> Vec<String> {
    let mut found = Vec::new();
    match &import.from {
        None => {
            for name in &import.names {
                found.extend(prefixes(&name.name));
            }
        }
        Some(_) => {
            if let Some(from) = from_module(import, importer, package) {
                found.extend(prefixes(&from));
                for name in import.names.iter().filter(|n| n.name != "*") {
                    found.push(format!("{from}.{}", name.name));
                }
            }
        }
    }
    found.dedup();
    found
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_files_and_resolves_relative_imports() {
        assert_eq!(
            module_name("app/pkg/mod.py", "app/").as_deref(),
            Some("pkg.mod")
        );
        assert_eq!(module_name("pkg/__init__.py", "").as_deref(), Some("pkg"));
        assert_eq!(module_name("other/x.py", "app/"), None);
        let facts =
            minrepro_pysyntax::module_facts("from ..base import f\nfrom . import g\n").unwrap();
        let (up, here) = (&facts.imports[0], &facts.imports[1]);
        assert_eq!(
            from_module(up, Some("pkg.sub.mod"), false).as_deref(),
            Some("pkg.base")
        );
        assert_eq!(from_module(here, Some("pkg"), true).as_deref(), Some("pkg"));
        assert_eq!(from_module(here, None, false), None);
        assert_eq!(imported_modules(here, Some("pkg"), true), ["pkg", "pkg.g"]);
    }
}
