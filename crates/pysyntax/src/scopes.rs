//! Scope resolution of a module's names, for rewrites that must know which binding a use sees
//! (`inline-variable`, `remove-parameter-with-arguments`).
//!
//! Python's rules, as CPython's symbol table applies them: a module, every function (`def`,
//! `lambda`), class body and comprehension is a scope; a name bound anywhere in a function is
//! local to all of it unless declared `global` or `nonlocal` there; a load of a name that is not
//! local looks in the enclosing function scopes, skipping class bodies, then in the module.
//! Comprehension targets are local to the comprehension, whose first iterable is evaluated in
//! the enclosing scope; a walrus binds in the nearest enclosing scope that is not a
//! comprehension. Defaults, annotations, decorators and class bases are evaluated where the
//! `def`/`class` is.
//!
//! Conservative choices, so that a count never says "one" when there may be more: `del`,
//! `global` and `nonlocal` count as bindings; a load in a class body of a name the class binds
//! also counts as a load of the module's name (`LOAD_NAME` falls back to the globals while the
//! class binding does not exist yet). Star imports and dynamic lookups (`exec`, `eval`,
//! `locals()`, `globals()`, `vars()`, `__import__`) set [`Resolution::dynamic`]: callers then
//! do not trust the resolution.

use std::ops::Range;

use rustc_hash::{FxHashMap as HashMap, FxHashSet as HashSet};

use ruff_python_ast::visitor::{walk_expr, walk_pattern, walk_stmt, Visitor};
use ruff_python_ast::{self as ast, Expr, Stmt};
use ruff_text_size::Ranged;

use crate::rewrites::span;

/// The module's scope (always index 0).
pub(crate) const MODULE: usize = 0;

/// What kind of code a scope is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    Module,
    Function,
    Class,
    Comprehension,
}

/// One scope: its kind, its parent and the names it binds or declares.
#[derive(Debug)]
struct Scope<'a> {
    kind: Kind,
    parent: usize,
    bound: HashSet<&'a str>,
    globals: Vec<&'a str>,
    nonlocals: Vec<&'a str>,
}

/// Whether a reference reads its name or binds it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Use {
    /// A load.
    Load,
    /// An assignment, `del`, parameter, import, `def`/`class` name, capture or declaration.
    Bind,
}

/// One reference to a name, resolved.
#[derive(Debug, Clone)]
pub(crate) struct Reference<'a> {
    /// The name.
    pub(crate) name: &'a str,
    /// Where it is (for a name expression, its range).
    pub(crate) at: Range<usize>,
    /// Load or binding.
    pub(crate) usage: Use,
    /// The scope the reference stands in (for a walrus target, the scope it binds in).
    pub(crate) occurs: usize,
    /// The scope whose binding of `name` the reference means.
    pub(crate) scope: usize,
}

/// How often a name of a scope is bound and loaded, and where its last load is.
#[derive(Debug, Default, Clone)]
pub(crate) struct Count {
    /// Bindings.
    pub(crate) binds: usize,
    /// Loads.
    pub(crate) loads: usize,
    /// The last load's range.
    pub(crate) load_at: Range<usize>,
}

/// A `def` or `class` statement with the scope it stands in and the scope of its body.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Definition<'a> {
    /// The statement.
    pub(crate) stmt: &'a Stmt,
    /// The scope the statement binds its name in (before `global` is taken into account).
    pub(crate) scope: usize,
    /// The scope of its body.
    pub(crate) body: usize,
}

/// Every name reference of a module, resolved to scopes (see the module documentation).
#[derive(Debug, Default)]
pub(crate) struct Resolution<'a> {
    /// In source order of their scopes' walks.
    pub(crate) references: Vec<Reference<'a>>,
    /// Every `def` and `class`.
    pub(crate) definitions: Vec<Definition<'a>>,
    /// Calls whose callee is a name or an attribute (`x.m(…)`), by the start of that name
    /// (`m`).
    pub(crate) calls: HashMap<usize, &'a ast::ExprCall>,
    /// Every attribute reference (`x.m`): the attribute's name, its start and whether it is a
    /// load.
    pub(crate) attributes: Vec<(&'a str, usize, bool)>,
    /// Whether each scope is a class body.
    pub(crate) class_scopes: Vec<bool>,
    /// The parent of each scope (the module's is itself).
    pub(crate) parents: Vec<usize>,
    /// Whether names may be bound or read dynamically.
    pub(crate) dynamic: bool,
    /// The scope a name expression means, by its start.
    by_start: HashMap<usize, usize>,
}

/// Names whose use makes bindings unpredictable.
const DYNAMIC: &[&str] = &["exec", "eval", "locals", "globals", "vars", "__import__"];

impl<'a> Resolution<'a> {
    /// The resolution of a module body.
    pub(crate) fn of(body: &'a [Stmt]) -> Resolution<'a> {
        let mut walker = Walker {
            scopes: vec![Scope {
                kind: Kind::Module,
                parent: MODULE,
                bound: HashSet::default(),
                globals: Vec::new(),
                nonlocals: Vec::new(),
            }],
            current: MODULE,
            raw: Vec::new(),
            resolution: Resolution::default(),
        };
        walker.visit_body(body);
        let Walker {
            scopes,
            raw,
            mut resolution,
            ..
        } = walker;
        resolution.class_scopes = scopes.iter().map(|s| s.kind == Kind::Class).collect();
        resolution.parents = scopes.iter().map(|s| s.parent).collect();
        for (reference, named) in raw {
            let occurs = reference.occurs;
            let scope = resolve(&scopes, occurs, reference.name, reference.usage);
            if named {
                resolution.by_start.insert(reference.at.start, scope);
            }
            let class_local = scopes[occurs].kind == Kind::Class && scope == occurs;
            if class_local && reference.usage == Use::Load {
                resolution.references.push(Reference {
                    scope: MODULE,
                    ..reference.clone()
                });
            }
            resolution.references.push(Reference { scope, ..reference });
        }
        resolution
    }

    /// The scope the name expression starting at `start` means.
    pub(crate) fn scope_of(&self, start: usize) -> Option<usize> {
        self.by_start.get(&start).copied()
    }

    /// Bindings and loads per scope and name.
    pub(crate) fn counts(&self) -> HashMap<(usize, &'a str), Count> {
        let mut counts: HashMap<(usize, &'a str), Count> = HashMap::default();
        for reference in &self.references {
            let count = counts.entry((reference.scope, reference.name)).or_default();
            match reference.usage {
                Use::Bind => count.binds += 1,
                Use::Load => {
                    count.loads += 1;
                    count.load_at = reference.at.clone();
                }
            }
        }
        counts
    }
}

/// The scope whose binding of `name` a reference in scope `occurs` means.
fn resolve(scopes: &[Scope<'_>], occurs: usize, name: &str, usage: Use) -> usize {
    let scope = &scopes[occurs];
    if scope.globals.contains(&name) {
        return MODULE;
    }
    let local = usage == Use::Bind || scope.bound.contains(&name);
    if local && !scope.nonlocals.contains(&name) {
        return occurs;
    }
    // Enclosing function scopes (class bodies are not visible from nested scopes), then the
    // module.
    let mut at = occurs;
    while at != MODULE {
        at = scopes[at].parent;
        let outer = &scopes[at];
        if outer.kind == Kind::Class {
            continue;
        }
        if outer.globals.contains(&name) {
            return MODULE;
        }
        if outer.bound.contains(&name) && !outer.nonlocals.contains(&name) {
            return at;
        }
    }
    MODULE
}

/// The walk that records scopes and unresolved references (with whether each is a name
/// expression).
struct Walker<'a> {
    scopes: Vec<Scope<'a>>,
    current: usize,
    raw: Vec<(Reference<'a>, bool)>,
    resolution: Resolution<'a>,
}

impl<'a> Walker<'a> {
    /// Records a reference in scope `scope` (a binding also makes the name local there).
    fn note(&mut self, name: &'a str, at: Range<usize>, usage: Use, scope: usize, named: bool) {
        if usage == Use::Bind {
            self.scopes[scope].bound.insert(name);
        }
        self.raw.push((
            Reference {
                name,
                at,
                usage,
                occurs: scope,
                scope,
            },
            named,
        ));
    }

    /// Records a binding in the current scope that is not a name expression.
    fn bind(&mut self, name: &'a str, at: Range<usize>) {
        self.note(name, at, Use::Bind, self.current, false);
    }

    /// Runs `f` in a new scope of `kind` (a child of the current one); returns its index.
    fn scoped(&mut self, kind: Kind, f: impl FnOnce(&mut Self)) -> usize {
        let index = self.scopes.len();
        self.scopes.push(Scope {
            kind,
            parent: self.current,
            bound: HashSet::default(),
            globals: Vec::new(),
            nonlocals: Vec::new(),
        });
        let outer = std::mem::replace(&mut self.current, index);
        f(self);
        self.current = outer;
        index
    }

    /// Visits the defaults and annotations of `parameters` (evaluated in the current scope).
    fn parameter_values(&mut self, parameters: &'a ast::Parameters) {
        for parameter in parameters.iter() {
            if let Some(annotation) = parameter.annotation() {
                self.visit_expr(annotation);
            }
            if let Some(default) = parameter.default() {
                self.visit_expr(default);
            }
        }
    }

    /// Binds the names of `parameters` in the current scope.
    fn parameter_names(&mut self, parameters: &'a ast::Parameters) {
        for parameter in parameters.iter() {
            let name = parameter.name();
            self.bind(name.as_str(), span(name));
        }
    }

    /// A comprehension: the first iterable in the current scope, the rest in its own.
    fn comprehension(&mut self, generators: &'a [ast::Comprehension], elements: &[&'a Expr]) {
        if let Some(first) = generators.first() {
            self.visit_expr(&first.iter);
        }
        self.scoped(Kind::Comprehension, |w| {
            for (i, generator) in generators.iter().enumerate() {
                if i > 0 {
                    w.visit_expr(&generator.iter);
                }
                w.visit_expr(&generator.target);
                for condition in &generator.ifs {
                    w.visit_expr(condition);
                }
            }
            for element in elements {
                w.visit_expr(element);
            }
        });
    }
}

impl<'a> Visitor<'a> for Walker<'a> {
    fn visit_stmt(&mut self, stmt: &'a Stmt) {
        match stmt {
            Stmt::FunctionDef(f) => {
                for decorator in &f.decorator_list {
                    self.visit_expr(&decorator.expression);
                }
                if let Some(type_params) = &f.type_params {
                    self.visit_type_params(type_params);
                }
                self.parameter_values(&f.parameters);
                if let Some(returns) = &f.returns {
                    self.visit_expr(returns);
                }
                self.bind(f.name.as_str(), span(&f.name));
                let scope = self.current;
                let body = self.scoped(Kind::Function, |w| {
                    w.parameter_names(&f.parameters);
                    w.visit_body(&f.body);
                });
                let definition = Definition { stmt, scope, body };
                self.resolution.definitions.push(definition);
            }
            Stmt::ClassDef(c) => {
                for decorator in &c.decorator_list {
                    self.visit_expr(&decorator.expression);
                }
                if let Some(type_params) = &c.type_params {
                    self.visit_type_params(type_params);
                }
                if let Some(arguments) = &c.arguments {
                    self.visit_arguments(arguments);
                }
                self.bind(c.name.as_str(), span(&c.name));
                let scope = self.current;
                let body = self.scoped(Kind::Class, |w| w.visit_body(&c.body));
                let definition = Definition { stmt, scope, body };
                self.resolution.definitions.push(definition);
            }
            Stmt::Global(g) => {
                for name in &g.names {
                    self.scopes[self.current].globals.push(name.as_str());
                    self.bind(name.as_str(), span(name));
                }
            }
            Stmt::Nonlocal(n) => {
                for name in &n.names {
                    self.scopes[self.current].nonlocals.push(name.as_str());
                    self.bind(name.as_str(), span(name));
                }
            }
            _ => {
                if let Stmt::ImportFrom(i) = stmt {
                    if i.names.iter().any(|a| a.name.as_str() == "*") {
                        self.resolution.dynamic = true;
                    }
                }
                for name in crate::bindings::statement_bindings(stmt) {
                    self.bind(name, span(stmt));
                }
                walk_stmt(self, stmt);
            }
        }
    }

    fn visit_expr(&mut self, expr: &'a Expr) {
        match expr {
            Expr::Name(n) => {
                let usage = if n.ctx.is_load() {
                    if DYNAMIC.contains(&n.id.as_str()) {
                        self.resolution.dynamic = true;
                    }
                    Use::Load
                } else {
                    Use::Bind
                };
                self.note(n.id.as_str(), span(expr), usage, self.current, true);
            }
            Expr::Named(named) => {
                self.visit_expr(&named.value);
                let mut scope = self.current;
                while self.scopes[scope].kind == Kind::Comprehension {
                    scope = self.scopes[scope].parent;
                }
                if let Expr::Name(n) = &*named.target {
                    self.note(n.id.as_str(), span(&*named.target), Use::Bind, scope, true);
                }
            }
            Expr::Lambda(lambda) => {
                if let Some(parameters) = &lambda.parameters {
                    self.parameter_values(parameters);
                }
                self.scoped(Kind::Function, |w| {
                    if let Some(parameters) = &lambda.parameters {
                        w.parameter_names(parameters);
                    }
                    w.visit_expr(&lambda.body);
                });
            }
            Expr::ListComp(c) => self.comprehension(&c.generators, &[&c.elt]),
            Expr::SetComp(c) => self.comprehension(&c.generators, &[&c.elt]),
            Expr::Generator(c) => self.comprehension(&c.generators, &[&c.elt]),
            Expr::DictComp(c) => {
                let mut elements: Vec<&'a Expr> = c.key.iter().map(|k| &**k).collect();
                elements.push(&c.value);
                self.comprehension(&c.generators, &elements);
            }
            Expr::Call(call) => {
                let callee = match &*call.func {
                    Expr::Name(n) => Some(n.start()),
                    Expr::Attribute(a) => Some(a.attr.start()),
                    _ => None,
                };
                if let Some(callee) = callee {
                    self.resolution.calls.insert(callee.to_usize(), call);
                }
                walk_expr(self, expr);
            }
            Expr::Attribute(a) => {
                let at = a.attr.start().to_usize();
                let load = a.ctx.is_load();
                self.resolution.attributes.push((a.attr.as_str(), at, load));
                walk_expr(self, expr);
            }
            _ => walk_expr(self, expr),
        }
    }

    fn visit_pattern(&mut self, pattern: &'a ast::Pattern) {
        if let Some(name) = crate::bindings::pattern_binding(pattern) {
            self.bind(name.as_str(), span(name));
        }
        walk_pattern(self, pattern);
    }
}
