//! What one module of a program says about the others: its import statements, the names it
//! binds at its top level, every use of a name and every dotted attribute chain (`m.f`,
//! `pkg.mod.f`) with its range, and its `if __name__ == "__main__":` blocks. A front end that
//! inlines a program's own modules into one file splices the source by these ranges.

use std::ops::Range;

use ruff_python_ast::visitor::{walk_expr, walk_stmt, Visitor};
use ruff_python_ast::{self as ast, Expr, Stmt};
use ruff_text_size::Ranged;

use crate::SyntaxProblem;

/// One imported name of an import statement.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ImportedName {
    /// `a.b` of `import a.b`, `y` of `from x import y` (`*` for a star import).
    pub name: String,
    /// The `as` name, if any.
    pub asname: Option<String>,
}

/// An `import` or `from ... import` statement.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Import {
    /// The statement's range.
    pub range: Range<usize>,
    /// Whether it is a statement of the module's top level (not in a block, function or class).
    pub top_level: bool,
    /// `Some(module)` for `from module import ...` (`""` for `from . import x`), `None` for `import`.
    pub from: Option<String>,
    /// The dots of a relative `from` import.
    pub level: u32,
    /// The names imported.
    pub names: Vec<ImportedName>,
}

/// A use of a name: a `Name` expression, or the name of a `def`/`class` statement.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NameRef {
    /// The name.
    pub id: String,
    /// Its range.
    pub range: Range<usize>,
    /// Whether it binds the name (store, delete, definition).
    pub binds: bool,
    /// Whether it is at the module's top level (not in a function, class, lambda or
    /// comprehension scope).
    pub top_level: bool,
}

/// An attribute chain whose innermost value is a name: `a.b.c` is `["a", "b", "c"]`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AttrChain {
    /// The whole expression's range.
    pub range: Range<usize>,
    /// The name and the attributes, in order.
    pub chain: Vec<String>,
    /// Whether the expression is stored to or deleted.
    pub binds: bool,
}

/// What a module says about the modules it imports (see the module documentation).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ModuleFacts {
    /// Every import statement, in text order.
    pub imports: Vec<Import>,
    /// Every use of a name, in text order.
    pub names: Vec<NameRef>,
    /// Every attribute chain on a name, in text order (outer chains before their inner ones).
    pub attributes: Vec<AttrChain>,
    /// Names bound in some inner scope (parameters, locals, class attributes, `global`
    /// declarations): a top-level name of the same spelling cannot be renamed by its uses alone.
    pub inner_bindings: Vec<String>,
    /// The ranges of top-level `if __name__ == "__main__":` statements.
    pub main_blocks: Vec<Range<usize>>,
    /// The names top-level statements other than imports bind, in text order.
    pub top_level_bindings: Vec<String>,
}

/// The facts of `source` (see [`ModuleFacts`]); `Err` when it does not parse.
pub fn module_facts(source: &str) -> Result<ModuleFacts, SyntaxProblem> {
    crate::analyse(source, |parsed, _| {
        let mut walk = Walk {
            facts: ModuleFacts::default(),
            depth: 0,
            in_block: 0,
        };
        for stmt in &parsed.syntax().body {
            if is_main_block(stmt) {
                walk.facts.main_blocks.push(span(stmt));
            }
            walk.visit_stmt(stmt);
        }
        let mut facts = walk.facts;
        facts.inner_bindings.sort();
        facts.inner_bindings.dedup();
        facts
    })
}

fn span(node: &impl Ranged) -> Range<usize> {
    node.start().to_usize()..node.end().to_usize()
}

/// Whether `stmt` is `if __name__ == "__main__":` (either operand order).
fn is_main_block(stmt: &Stmt) -> bool {
    let Stmt::If(s) = stmt else { return false };
    let Expr::Compare(c) = s.test.as_ref() else {
        return false;
    };
    if c.ops.len() != 1 || !matches!(c.ops[0], ast::CmpOp::Eq) {
        return false;
    }
    let is_name = |e: &Expr| matches!(e, Expr::Name(n) if n.id.as_str() == "__name__");
    let is_main = |e: &Expr| matches!(e, Expr::StringLiteral(s) if s.value.to_str() == "__main__");
    let (left, right) = (c.left.as_ref(), &c.comparators[0]);
    (is_name(left) && is_main(right)) || (is_main(left) && is_name(right))
}

/// The dotted chain of an attribute expression on a name.
fn chain_of(expr: &Expr) -> Option<Vec<String>> {
    match expr {
        Expr::Name(n) => Some(vec![n.id.to_string()]),
        Expr::Attribute(a) => {
            let mut chain = chain_of(&a.value)?;
            chain.push(a.attr.to_string());
            Some(chain)
        }
        _ => None,
    }
}

struct Walk {
    facts: ModuleFacts,
    /// Nesting of scopes (functions, classes, lambdas, comprehensions).
    depth: usize,
    /// Nesting of compound statements at any scope.
    in_block: usize,
}

impl Walk {
    fn bind(&mut self, id: &str, range: Range<usize>) {
        self.facts.names.push(NameRef {
            id: id.to_owned(),
            range,
            binds: true,
            top_level: self.depth == 0,
        });
        self.note_binding(id);
    }

    fn note_binding(&mut self, id: &str) {
        if self.depth > 0 {
            self.facts.inner_bindings.push(id.to_owned());
        } else if !self.facts.top_level_bindings.iter().any(|b| b == id) {
            self.facts.top_level_bindings.push(id.to_owned());
        }
    }

    fn scoped(&mut self, f: impl FnOnce(&mut Self)) {
        self.depth += 1;
        f(self);
        self.depth -= 1;
    }
}

impl<'a> Visitor<'a> for Walk {
    fn visit_stmt(&mut self, stmt: &'a Stmt) {
        match stmt {
            Stmt::Import(i) => {
                self.import(span(stmt), None, 0, &i.names);
                return;
            }
            Stmt::ImportFrom(i) => {
                let module = i.module.as_ref().map_or(String::new(), |m| m.to_string());
                self.import(span(stmt), Some(module), i.level, &i.names);
                return;
            }
            Stmt::FunctionDef(f) => {
                self.bind(&f.name, span(&f.name));
                for decorator in &f.decorator_list {
                    self.visit_decorator(decorator);
                }
                self.scoped(|w| {
                    w.visit_parameters(&f.parameters);
                    if let Some(returns) = &f.returns {
                        w.visit_annotation(returns);
                    }
                    w.visit_body(&f.body);
                });
                return;
            }
            Stmt::ClassDef(c) => {
                self.bind(&c.name, span(&c.name));
                for decorator in &c.decorator_list {
                    self.visit_decorator(decorator);
                }
                if let Some(arguments) = &c.arguments {
                    self.visit_arguments(arguments);
                }
                self.scoped(|w| w.visit_body(&c.body));
                return;
            }
            Stmt::Global(g) => {
                for name in &g.names {
                    self.facts.inner_bindings.push(name.to_string());
                }
            }
            Stmt::Nonlocal(g) => {
                for name in &g.names {
                    self.facts.inner_bindings.push(name.to_string());
                }
            }
            Stmt::Try(t) => {
                for handler in &t.handlers {
                    let ast::ExceptHandler::ExceptHandler(h) = handler;
                    if let Some(name) = &h.name {
                        self.bind(name, span(name));
                    }
                }
            }
            _ => {}
        }
        let compound = matches!(
            stmt,
            Stmt::If(_)
                | Stmt::For(_)
                | Stmt::While(_)
                | Stmt::With(_)
                | Stmt::Try(_)
                | Stmt::Match(_)
        );
        self.in_block += usize::from(compound);
        walk_stmt(self, stmt);
        self.in_block -= usize::from(compound);
    }

    fn visit_expr(&mut self, expr: &'a Expr) {
        match expr {
            Expr::Name(n) => {
                let binds = !n.ctx.is_load();
                self.facts.names.push(NameRef {
                    id: n.id.to_string(),
                    range: span(expr),
                    binds,
                    top_level: self.depth == 0,
                });
                if binds {
                    self.note_binding(n.id.as_str());
                }
            }
            Expr::Attribute(a) => {
                if let Some(chain) = chain_of(expr) {
                    self.facts.attributes.push(AttrChain {
                        range: span(expr),
                        chain,
                        binds: !a.ctx.is_load(),
                    });
                }
            }
            Expr::Lambda(_)
            | Expr::ListComp(_)
            | Expr::SetComp(_)
            | Expr::DictComp(_)
            | Expr::Generator(_) => {
                self.scoped(|w| walk_expr(w, expr));
                return;
            }
            _ => {}
        }
        walk_expr(self, expr);
    }

    fn visit_parameter(&mut self, parameter: &'a ast::Parameter) {
        self.facts.inner_bindings.push(parameter.name.to_string());
        ast::visitor::walk_parameter(self, parameter);
    }
}

impl Walk {
    fn import(
        &mut self,
        range: Range<usize>,
        from: Option<String>,
        level: u32,
        aliases: &[ast::Alias],
    ) {
        let names: Vec<ImportedName> = aliases
            .iter()
            .map(|a| ImportedName {
                name: a.name.to_string(),
                asname: a.asname.as_ref().map(|n| n.to_string()),
            })
            .collect();
        for name in &names {
            let bound = match (&name.asname, &from) {
                (Some(asname), _) => asname.clone(),
                (None, None) => name.name.split('.').next().unwrap_or("").to_owned(),
                (None, Some(_)) => name.name.clone(),
            };
            if self.depth > 0 {
                self.facts.inner_bindings.push(bound);
            }
        }
        self.facts.imports.push(Import {
            range,
            top_level: self.depth == 0 && self.in_block == 0,
            from,
            level,
            names,
        });
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lists_imports_names_chains_and_main_blocks() {
        let source = "\
import os, pkg.mod as m
from .util import scale as s
def f(x):
    import json
    return m.g(x) + pkg.mod.h
class C:
    attr = 1
y = [i for i in f(2)]
if __name__ == \"__main__\":
    f(1)
";
        let facts = module_facts(source).unwrap();
        assert_eq!(facts.imports.len(), 3);
        assert!(facts.imports[0].top_level && facts.imports[0].from.is_none());
        assert_eq!(facts.imports[0].names[1].asname.as_deref(), Some("m"));
        assert_eq!(facts.imports[1].from.as_deref(), Some("util"));
        assert_eq!(facts.imports[1].level, 1);
        assert!(!facts.imports[2].top_level);
        let chains: Vec<Vec<&str>> = facts
            .attributes
            .iter()
            .map(|a| a.chain.iter().map(String::as_str).collect())
            .collect();
        assert_eq!(
            chains,
            [vec!["m", "g"], vec!["pkg", "mod", "h"], vec!["pkg", "mod"]]
        );
        assert_eq!(facts.top_level_bindings, ["f", "C", "y"]);
        assert!(facts.inner_bindings.contains(&"x".to_owned()));
        assert!(facts.inner_bindings.contains(&"attr".to_owned()));
        assert!(facts.inner_bindings.contains(&"i".to_owned()));
        assert!(facts.inner_bindings.contains(&"json".to_owned()));
        assert_eq!(facts.main_blocks.len(), 1);
        assert!(source[facts.main_blocks[0].clone()].starts_with("if __name__"));
        let def_f = facts.names.iter().find(|n| n.id == "f").unwrap();
        assert!(def_f.binds && def_f.top_level);
    }
}
