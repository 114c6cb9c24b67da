//! Where a failure happens, as Python names it: the qualified name (`co_qualname`) of the code
//! object a traceback frame runs, found from the frame's line and function name (`co_name`, what
//! a traceback prints after `in`) in the file's source, and where that function is defined.
//!
//! A traceback names only the innermost name (`resolve`), but two classes may both have a
//! `resolve`; the qualified name (`PricingEngine.resolve`, `make.<locals>.check`) tells them apart.
//! It is the chain of the `def`s and `class`es whose lines hold the frame's line, cut after the
//! innermost one named like the frame: a frame's line may lie in a nested definition's header
//! (a default value, a decorator) that the enclosing code runs. Lambdas, comprehensions and
//! generator expressions (`<lambda>`, `<genexpr>`, …) are qualified by the definitions around them.

use ruff_python_ast::visitor::{walk_stmt, Visitor};
use ruff_python_ast::Stmt;
use ruff_text_size::Ranged;

use crate::text::line_of;

/// The qualified name of the code that frame line `line` (1-based) runs in a function named
/// `name` (`<module>` for module level), e.g. `PricingEngine.resolve`; `None` when `source` does
/// not parse or no definition named `name` holds the line (other code: `exec`, a stale file).
pub fn qualified_name(source: &str, line: usize, name: &str) -> Option<String> {
    if name == "<module>" {
        return Some(name.to_owned());
    }
    let chain = crate::analyse(source, |parsed, _| {
        let mut finder = Enclosing {
            source,
            line,
            chain: Vec::new(),
        };
        finder.visit_body(&parsed.syntax().body);
        finder.chain
    })
    .ok()?;
    let anonymous = name.starts_with('<');
    let keep = if anonymous {
        chain.len()
    } else {
        chain.iter().rposition(|d| d.name == name)? + 1
    };
    let mut parts: Vec<&str> = Vec::new();
    for (i, definition) in chain[..keep].iter().enumerate() {
        if i > 0 && chain[i - 1].function {
            parts.push("<locals>");
        }
        parts.push(&definition.name);
    }
    if anonymous {
        if chain.get(keep.wrapping_sub(1)).is_some_and(|d| d.function) {
            parts.push("<locals>");
        }
        parts.push(name);
    }
    Some(parts.join("."))
}

/// The byte offset where the function or class `qualified` (as [`qualified_name`] gives it) is
/// defined in `source` (its `def`/`class` keyword), if it is.
pub fn definition_offset(source: &str, qualified: &str) -> Option<usize> {
    let wanted: Vec<&str> = qualified.split('.').filter(|p| *p != "<locals>").collect();
    crate::analyse(source, |parsed, _| {
        let mut finder = Named {
            wanted: &wanted,
            depth: 0,
            found: None,
        };
        finder.find(&parsed.syntax().body);
        finder.found
    })
    .ok()
    .flatten()
}

/// A definition around the frame's line.
struct Definition {
    name: String,
    function: bool,
}

/// Collects the definitions whose lines hold `line`, outermost first.
struct Enclosing<'s> {
    source: &'s str,
    line: usize,
    chain: Vec<Definition>,
}

impl<'a> Visitor<'a> for Enclosing<'_> {
    fn visit_stmt(&mut self, stmt: &'a Stmt) {
        let (name, function) = match stmt {
            Stmt::FunctionDef(def) => (def.name.as_str(), true),
            Stmt::ClassDef(class) => (class.name.as_str(), false),
            _ => {
                if self.holds(stmt) {
                    walk_stmt(self, stmt);
                }
                return;
            }
        };
        if self.holds(stmt) {
            self.chain.push(Definition {
                name: name.to_owned(),
                function,
            });
            walk_stmt(self, stmt);
        }
    }
}

impl Enclosing<'_> {
    /// Whether `stmt`'s lines (decorators included) hold the frame's line.
    fn holds(&self, stmt: &Stmt) -> bool {
        let first = line_of(self.source, stmt.start().to_usize());
        let last = line_of(self.source, stmt.end().to_usize());
        (first..=last).contains(&self.line)
    }
}

/// Finds the definition whose names from the module down are `wanted`.
struct Named<'w> {
    wanted: &'w [&'w str],
    depth: usize,
    found: Option<usize>,
}

impl Named<'_> {
    fn find(&mut self, body: &[Stmt]) {
        for stmt in body {
            if self.found.is_some() {
                return;
            }
            self.stmt(stmt);
        }
    }

    fn stmt(&mut self, stmt: &Stmt) {
        let (name, body, at) = match stmt {
            Stmt::FunctionDef(def) => (def.name.as_str(), &def.body, def.start()),
            Stmt::ClassDef(class) => (class.name.as_str(), &class.body, class.start()),
            Stmt::If(s) => {
                self.find(&s.body);
                for clause in &s.elif_else_clauses {
                    self.find(&clause.body);
                }
                return;
            }
            Stmt::For(s) => return self.find_all([&s.body[..], &s.orelse[..]]),
            Stmt::While(s) => return self.find_all([&s.body[..], &s.orelse[..]]),
            Stmt::With(s) => return self.find(&s.body),
            Stmt::Try(s) => {
                self.find_all([&s.body[..], &s.orelse[..], &s.finalbody[..]]);
                for handler in &s.handlers {
                    let ruff_python_ast::ExceptHandler::ExceptHandler(h) = handler;
                    self.find(&h.body);
                }
                return;
            }
            _ => return,
        };
        if self.wanted.get(self.depth) != Some(&name) {
            return;
        }
        if self.depth + 1 == self.wanted.len() {
            // `def` or `class` after the decorators.
            let keyword = decorated_start(stmt).unwrap_or(at.to_usize());
            self.found = Some(keyword);
            return;
        }
        self.depth += 1;
        self.find(body);
        self.depth -= 1;
    }

    fn find_all<const N: usize>(&mut self, bodies: [&[Stmt]; N]) {
        for body in bodies {
            self.find(body);
        }
    }
}

/// Where a decorated definition's own line starts: after its last decorator.
fn decorated_start(stmt: &Stmt) -> Option<usize> {
    let decorators = match stmt {
        Stmt::FunctionDef(def) => &def.decorator_list,
        Stmt::ClassDef(class) => &class.decorator_list,
        _ => return None,
    };
    decorators.last().map(|d| d.end().to_usize())
}

#[cfg(test)]
mod tests {
    use super::{definition_offset, qualified_name};

    const SOURCE: &str = "\
class A:
    def resolve(self, k):
        return {}[k]

class B:
    def resolve(self, k):
        return {}[k]

def make(n=len('ab')):
    def check(x):
        return [y for y in x]
    f = lambda: 1
    return check

B().resolve('x')
";

    #[test]
    fn frames_are_qualified_by_the_definitions_around_their_line() {
        let cases = [
            (3, "resolve", Some("A.resolve")),
            (7, "resolve", Some("B.resolve")),
            (11, "check", Some("make.<locals>.check")),
            (
                11,
                "<listcomp>",
                Some("make.<locals>.check.<locals>.<listcomp>"),
            ),
            (12, "<lambda>", Some("make.<locals>.<lambda>")),
            (15, "<module>", Some("<module>")),
            // A default value runs in the enclosing code: the module, not `make`.
            (9, "<module>", Some("<module>")),
            (3, "missing", None),
        ];
        for (line, name, expected) in cases {
            assert_eq!(
                qualified_name(SOURCE, line, name).as_deref(),
                expected,
                "line {line} {name}"
            );
        }
        assert_eq!(qualified_name("def (", 1, "f"), None);
    }

    #[test]
    fn definitions_are_found_by_qualified_name() {
        let at = |q: &str| definition_offset(SOURCE, q).map(|o| &SOURCE[o..o + 12]);
        assert_eq!(at("B.resolve"), Some("def resolve("));
        assert_eq!(at("make.<locals>.check"), Some("def check(x)"));
        assert_eq!(at("A"), Some("class A:\n   "));
        assert_eq!(at("C.resolve"), None);
        let decorated = "@dec\ndef f():\n    pass\n";
        let offset = definition_offset(decorated, "f").unwrap();
        assert!(decorated[offset..].trim_start().starts_with("def f"));
    }
}
