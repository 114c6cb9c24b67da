//! Calls that do not fit the signature of the module's own function they call (a `TypeError` at
//! run time), counted for [`crate::NameUse`]: an edit that removes a parameter but not the
//! argument (or the reverse) makes the count grow.
//!
//! Only unambiguous calls are checked: `f(…)` where `f` is bound once in the module, by an
//! undecorated `def` (or a class without decorators whose one `__init__` is undecorated), and
//! `x.m(…)` where `m` is the name of exactly one `def` of the module, a method directly in a
//! class body. Calls with `*args` or `**kwargs` are skipped.

use rustc_hash::FxHashMap as HashMap;

use ruff_python_ast::visitor::{walk_expr, walk_stmt, Visitor};
use ruff_python_ast::{self as ast, Expr, Stmt};

use crate::rewrites::inline_variable::Counter;

/// What a call must supply.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Signature {
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

/// A function's definitions by name, in definition order (`None`: a signature not known).
pub(crate) type Table = HashMap<String, Vec<Option<Signature>>>;

/// What a call calls: a name, or a method by its attribute name.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub(crate) enum Callee {
    /// `f(…)`.
    Name(String),
    /// `x.m(…)`.
    Attribute(String),
}

/// A call without unpacked arguments, to a name or an attribute.
#[derive(Debug, Clone)]
pub(crate) struct Call {
    pub(crate) callee: Callee,
    positional: usize,
    keywords: Vec<String>,
}

impl Call {
    /// Whether the call does not fit `signature` (the one it unambiguously calls, if any).
    pub(crate) fn mismatched(&self, signature: Option<&Signature>) -> bool {
        let keywords: Vec<&str> = self.keywords.iter().map(String::as_str).collect();
        signature.is_some_and(|s| !s.accepts(self.positional, &keywords))
    }
}

/// The inputs of the check, from a sequence of top-level statements. Everything composes over
/// the statements of a module: tables concatenate, bind counts add up, calls concatenate (so a
/// module's inputs are those of its parts, see [`crate::chunk_names`]).
#[derive(Debug, Default)]
pub(crate) struct Inputs {
    /// Bindings per name, as counted by the `inline-variable` rewrite.
    pub(crate) binds: HashMap<String, usize>,
    /// Module functions and classes (a class with its `__init__`'s signature).
    pub(crate) functions: Table,
    /// Methods directly in a class body.
    pub(crate) methods: Table,
    /// Every call that can be checked.
    pub(crate) calls: Vec<Call>,
}

impl Inputs {
    /// The inputs of `body`.
    pub(crate) fn of(body: &[Stmt]) -> Inputs {
        let mut inputs = Inputs::default();
        inputs.collect(body, false);
        let mut counter = Counter::default();
        counter.visit_body(body);
        inputs.binds = counter
            .counts
            .into_iter()
            .filter(|(_, c)| c.binds > 0)
            .map(|(name, c)| (name, c.binds))
            .collect();
        let mut calls = CallCollector::default();
        calls.visit_body(body);
        inputs.calls = calls.calls;
        inputs
    }

    /// The number of calls that do not fit the signature they unambiguously call.
    pub(crate) fn mismatches(&self) -> usize {
        self.calls
            .iter()
            .filter(|call| call.mismatched(self.resolve(&call.callee)))
            .count()
    }

    /// The signature `callee` unambiguously calls in a module with these inputs.
    pub(crate) fn resolve(&self, callee: &Callee) -> Option<&Signature> {
        fn entries<'t>(table: &'t Table, name: &str) -> Vec<&'t Option<Signature>> {
            table
                .get(name)
                .map(|v| v.iter().collect())
                .unwrap_or_default()
        }
        let name = callee_name(callee);
        let binds = self.binds.get(name).copied().unwrap_or(0);
        let functions = entries(&self.functions, name);
        let methods = entries(&self.methods, name);
        resolve(callee, binds, &functions, &methods)
    }

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
    Inputs::of(body).mismatches()
}

/// The name a callee's resolution depends on.
pub(crate) fn callee_name(callee: &Callee) -> &str {
    match callee {
        Callee::Name(name) | Callee::Attribute(name) => name,
    }
}

/// The signature `callee` unambiguously calls, given its name's bindings and its name's
/// entries in the module's function and method tables: `f` bound once, by the one `def` or
/// class of that name with a known signature, and no method of that name; `x.m` when `m` is
/// one method with a known signature and no function or class.
pub(crate) fn resolve<'s>(
    callee: &Callee,
    binds: usize,
    functions: &[&'s Option<Signature>],
    methods: &[&'s Option<Signature>],
) -> Option<&'s Signature> {
    let single = |entries: &[&'s Option<Signature>]| match entries {
        [Some(signature)] => Some(signature),
        _ => None,
    };
    match callee {
        Callee::Name(_) if binds == 1 && methods.is_empty() => single(functions),
        Callee::Attribute(_) if functions.is_empty() => single(methods),
        _ => None,
    }
}

/// Collects every call that can be checked.
#[derive(Default)]
struct CallCollector {
    calls: Vec<Call>,
}

impl<'a> Visitor<'a> for CallCollector {
    fn visit_stmt(&mut self, stmt: &'a Stmt) {
        walk_stmt(self, stmt);
    }

    fn visit_expr(&mut self, expr: &'a Expr) {
        if let Expr::Call(call) = expr {
            let arguments = &call.arguments;
            let unpacked = arguments.args.iter().any(Expr::is_starred_expr)
                || arguments.keywords.iter().any(|k| k.arg.is_none());
            let callee = match &*call.func {
                Expr::Name(n) => Some(Callee::Name(n.id.to_string())),
                Expr::Attribute(a) => Some(Callee::Attribute(a.attr.to_string())),
                _ => None,
            };
            if let (false, Some(callee)) = (unpacked, callee) {
                self.calls.push(Call {
                    callee,
                    positional: arguments.args.len(),
                    keywords: arguments
                        .keywords
                        .iter()
                        .filter_map(|k| k.arg.as_ref().map(|a| a.to_string()))
                        .collect(),
                });
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
        for source in [
            // Decorated, defined twice, rebound, or called with unpacking.
            "@d\ndef f(a): pass\nf()\n",
            "def f(a): pass\ndef f(): pass\nf()\n",
            "def f(a): pass\nf = g\nf()\n",
            "def f(a): pass\nf(*x)\n",
            // A method name shared by two classes.
            "class A:\n    def m(self): pass\nclass B:\n    def m(self, x): pass\no.m()\n",
        ] {
            assert_eq!(count(source), 0, "{source}");
        }
    }
}
