//! Calls that do not fit the signature of the module's own function they call (a `TypeError` at
//! run time), counted for [`crate::NameUse`]: an edit that removes a parameter but not the
//! argument (or the reverse) makes the count grow.
//!
//! Only unambiguous calls are checked: `f(…)` where `f` is bound once in the module, by an
//! undecorated `def` (or a class without decorators whose one `__init__` is undecorated), and
//! `x.m(…)` where `m` is the name of exactly one `def` of the module, a method directly in a
//! class body. Calls with `*args` or `**kwargs` are skipped.

use std::collections::HashMap;

use ruff_python_ast::visitor::{walk_expr, walk_stmt, Visitor};
use ruff_python_ast::{self as ast, Expr, Stmt};

use crate::rewrites::inline::Counter;

/// What a call must supply.
#[derive(Debug, Clone)]
struct Signature {
    /// Positional parameters (after dropping `self`/`cls` of a method), with whether each has a
    /// default.
    positional: Vec<(String, bool)>,
    vararg: bool,
    /// Keyword-only parameters, with whether each has a default.
    keyword_only: Vec<(String, bool)>,
    kwarg: bool,
}

impl Signature {
    fn of(parameters: &ast::Parameters, drop_first: bool) -> Signature {
        let positional: Vec<(String, bool)> = parameters
            .posonlyargs
            .iter()
            .chain(&parameters.args)
            .skip(usize::from(drop_first))
            .map(|p| (p.parameter.name.to_string(), p.default.is_some()))
            .collect();
        Signature {
            positional,
            vararg: parameters.vararg.is_some(),
            keyword_only: parameters
                .kwonlyargs
                .iter()
                .map(|p| (p.parameter.name.to_string(), p.default.is_some()))
                .collect(),
            kwarg: parameters.kwarg.is_some(),
        }
    }

    /// Whether `positional` arguments and the `keywords` fit.
    fn accepts(&self, positional: usize, keywords: &[&str]) -> bool {
        if positional > self.positional.len() && !self.vararg {
            return false;
        }
        let by_position = &self.positional[positional.min(self.positional.len())..];
        let known = |k: &&str| {
            by_position.iter().any(|(n, _)| n == k) || self.keyword_only.iter().any(|(n, _)| n == k)
        };
        if !self.kwarg && !keywords.iter().all(known) {
            return false;
        }
        let supplied =
            |(name, default): &(String, bool)| *default || keywords.contains(&name.as_str());
        by_position.iter().all(supplied) && self.keyword_only.iter().all(supplied)
    }
}

/// Definitions found in a module: functions by name (`None` when ambiguous), methods by name.
#[derive(Default)]
struct Definitions {
    functions: HashMap<String, Vec<Option<Signature>>>,
    methods: HashMap<String, Vec<Option<Signature>>>,
}

impl Definitions {
    fn collect(&mut self, body: &[Stmt], in_class: bool) {
        for stmt in body {
            match stmt {
                Stmt::FunctionDef(f) => {
                    let signature = f
                        .decorator_list
                        .is_empty()
                        .then(|| Signature::of(&f.parameters, in_class));
                    let table = if in_class {
                        &mut self.methods
                    } else {
                        &mut self.functions
                    };
                    table.entry(f.name.to_string()).or_default().push(signature);
                    self.collect(&f.body, false);
                }
                Stmt::ClassDef(c) => {
                    let inits: Vec<&ast::StmtFunctionDef> = c
                        .body
                        .iter()
                        .filter_map(|s| match s {
                            Stmt::FunctionDef(f) if f.name.as_str() == "__init__" => Some(f),
                            _ => None,
                        })
                        .collect();
                    let signature = match inits[..] {
                        [init] if c.decorator_list.is_empty() && init.decorator_list.is_empty() => {
                            Some(Signature::of(&init.parameters, true))
                        }
                        _ => None,
                    };
                    self.functions
                        .entry(c.name.to_string())
                        .or_default()
                        .push(signature);
                    self.collect(&c.body, true);
                }
                _ => {
                    for suite in crate::freeze::child_suites(stmt) {
                        self.collect(suite, in_class);
                    }
                }
            }
        }
    }
}

/// The number of calls in `body` that do not fit the signature they unambiguously call.
pub fn mismatched_calls(body: &[Stmt]) -> usize {
    let mut definitions = Definitions::default();
    definitions.collect(body, false);
    let mut counter = Counter::default();
    counter.visit_body(body);
    let mut checker = CallChecker {
        definitions: &definitions,
        counter: &counter,
        mismatches: 0,
    };
    checker.visit_body(body);
    checker.mismatches
}

/// The one known signature of a name defined exactly once.
fn single(found: Option<&Vec<Option<Signature>>>) -> Option<&Signature> {
    match found.map(|v| &v[..]) {
        Some([Some(signature)]) => Some(signature),
        _ => None,
    }
}

/// Walks every call and checks it against its definition.
struct CallChecker<'d> {
    definitions: &'d Definitions,
    counter: &'d Counter,
    mismatches: usize,
}

impl CallChecker<'_> {
    fn signature(&self, func: &Expr) -> Option<&Signature> {
        match func {
            Expr::Name(n) => {
                let bound_once = self
                    .counter
                    .counts
                    .get(n.id.as_str())
                    .is_some_and(|c| c.binds == 1);
                let name = n.id.as_str();
                let unique = bound_once && !self.definitions.methods.contains_key(name);
                unique
                    .then(|| single(self.definitions.functions.get(name)))
                    .flatten()
            }
            Expr::Attribute(a) => {
                let name = a.attr.as_str();
                let unique = !self.definitions.functions.contains_key(name);
                unique
                    .then(|| single(self.definitions.methods.get(name)))
                    .flatten()
            }
            _ => None,
        }
    }
}

impl<'a> Visitor<'a> for CallChecker<'_> {
    fn visit_stmt(&mut self, stmt: &'a Stmt) {
        walk_stmt(self, stmt);
    }

    fn visit_expr(&mut self, expr: &'a Expr) {
        if let Expr::Call(call) = expr {
            let arguments = &call.arguments;
            let unpacked = arguments.args.iter().any(Expr::is_starred_expr)
                || arguments.keywords.iter().any(|k| k.arg.is_none());
            if !unpacked {
                if let Some(signature) = self.signature(&call.func) {
                    let keywords: Vec<&str> = arguments
                        .keywords
                        .iter()
                        .filter_map(|k| k.arg.as_ref().map(|a| a.as_str()))
                        .collect();
                    if !signature.accepts(arguments.args.len(), &keywords) {
                        self.mismatches += 1;
                    }
                }
            }
        }
        walk_expr(self, expr);
    }
}

#[cfg(test)]
mod tests {
    use super::mismatched_calls;

    fn count(source: &str) -> usize {
        let parsed = ruff_python_parser::parse_module(source).expect("parses");
        mismatched_calls(&parsed.syntax().body)
    }

    #[test]
    fn calls_that_fit_are_not_counted() {
        assert_eq!(
            count("def f(a, b=1, *, c, d=2): pass\nf(1, c=3)\nf(1, 2, c=3, d=4)\n"),
            0
        );
        assert_eq!(count("def f(a, *r, **k): pass\nf(1, 2, 3, x=1)\n"), 0);
        assert_eq!(
            count(
                "class A:\n    def __init__(self, x): pass\n    def m(self, y): pass\nA(1).m(2)\n"
            ),
            0
        );
    }

    #[test]
    fn missing_or_extra_arguments_are_counted() {
        assert_eq!(count("def f(a, b): pass\nf(1)\nf(1, 2, 3)\nf(1, c=2)\n"), 3);
        assert_eq!(
            count("class A:\n    def __init__(self, x): pass\n    def m(self, y): pass\nA().m()\n"),
            2
        );
    }

    #[test]
    fn ambiguous_calls_are_not_checked() {
        // Decorated, defined twice, rebound, or called with unpacking.
        assert_eq!(count("@d\ndef f(a): pass\nf()\n"), 0);
        assert_eq!(count("def f(a): pass\ndef f(): pass\nf()\n"), 0);
        assert_eq!(count("def f(a): pass\nf = g\nf()\n"), 0);
        assert_eq!(count("def f(a): pass\nf(*x)\n"), 0);
        // A method name shared by two classes.
        assert_eq!(
            count("class A:\n    def m(self): pass\nclass B:\n    def m(self, x): pass\no.m()\n"),
            0
        );
    }
}
