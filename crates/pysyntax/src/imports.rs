//! The modules a program imports at its top level: what a warm helper may import once for all
//! candidates, since every candidate that keeps those statements imports them again.

use ruff_python_ast::Stmt;

/// The absolute modules imported by module-level statements of `source` (also inside module-level
/// `if`/`try`/`with` blocks, not in functions or classes), each once, in text order:
/// `import a.b as c` gives `a.b`, `from a.b import c` gives `a.b`; relative imports and
/// `__future__` are left out. Empty when `source` does not parse.
pub fn top_level_imports(source: &str) -> Vec<String> {
    crate::analyse(source, |parsed, _| {
        let mut found = Vec::new();
        collect(&parsed.syntax().body, &mut found);
        found
    })
    .unwrap_or_default()
}

/// Adds `name` to `found` unless it is there or is `__future__`.
fn add(found: &mut Vec<String>, name: &str) {
    if name != "__future__" && !found.iter().any(|f| f == name) {
        found.push(name.to_owned());
    }
}

fn collect(body: &[Stmt], found: &mut Vec<String>) {
    for stmt in body {
        match stmt {
            Stmt::Import(import) => {
                for alias in &import.names {
                    add(found, alias.name.as_str());
                }
            }
            Stmt::ImportFrom(from) if from.level == 0 => {
                if let Some(module) = &from.module {
                    add(found, module.as_str());
                }
            }
            Stmt::If(s) => {
                collect(&s.body, found);
                for clause in &s.elif_else_clauses {
                    collect(&clause.body, found);
                }
            }
            Stmt::Try(s) => {
                collect(&s.body, found);
                for handler in &s.handlers {
                    let ruff_python_ast::ExceptHandler::ExceptHandler(h) = handler;
                    collect(&h.body, found);
                }
                collect(&s.orelse, found);
                collect(&s.finalbody, found);
            }
            Stmt::With(s) => collect(&s.body, found),
            _ => {}
        }
    }
}

#[cfg(test)]
mod tests {
    use super::top_level_imports;

    #[test]
    fn module_level_imports_are_listed_once_in_order() {
        let source = "\
from __future__ import annotations
import os, numpy as np
import tilelang.language as T
from torch import nn
from . import sibling
try:
    import yaml
except ImportError:
    import json
def f():
    import scipy
import numpy
";
        assert_eq!(
            top_level_imports(source),
            ["os", "numpy", "tilelang.language", "torch", "yaml", "json"]
        );
        assert!(top_level_imports("import (").is_empty());
    }
}
