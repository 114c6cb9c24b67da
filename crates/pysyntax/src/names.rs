//! A static pre-filter for candidates: does an edit leave a name or attribute that the program
//! still uses without any definition?
//!
//! Most rejected candidates of a reduction remove a definition (`def`, `import`, an assignment,
//! a method, `self.x = …` in `__init__`) while a use remains, and die with `NameError` or
//! `AttributeError` without reaching the failure. [`NameUse`] summarizes, without regard to
//! scopes, which names a module binds and loads and which attribute names it defines and reads;
//! [`NameUse::loses_definition`] compares a candidate with the current text (and the number of
//! calls that no longer fit their function's signature, a `TypeError`). It is a heuristic:
//! a use in code that never runs makes it reject an edit that would have been accepted, but that
//! dead use can be removed by itself, after which the definition's removal passes the filter.
//! Dynamic lookups (`globals()`, `exec`, `from m import *`, `__getattr__`, `getattr`, …) switch
//! the corresponding half of the check off.

use std::collections::HashSet;

use rustc_hash::FxHashMap as HashMap;

use ruff_python_ast::visitor::{walk_expr, walk_pattern, walk_stmt, Visitor};
use ruff_python_ast::{self as ast, Expr, Stmt};

use crate::builtin_names::{BUILTIN_ATTRIBUTES, BUILTIN_NAMES};

/// Which names a module binds and loads, and which attribute names it defines and reads,
/// anywhere in the module (scopes ignored).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct NameUse {
    bound: HashSet<String>,
    loaded: HashSet<String>,
    attributes_defined: HashSet<String>,
    attributes_read: HashSet<String>,
    /// Names may be bound dynamically (`globals()`, `exec`, `from m import *`, …).
    dynamic_names: bool,
    /// Attributes may be found dynamically (`__getattr__`, `setattr`, `__dict__`, …).
    dynamic_attributes: bool,
    /// Calls that do not fit the signature of the module's function they call.
    mismatched_calls: usize,
}

/// Names whose use makes name bindings unpredictable.
const DYNAMIC_NAME_USES: &[&str] = &["globals", "locals", "vars", "exec", "eval", "__import__"];
/// Names whose use makes attribute definitions unpredictable.
const DYNAMIC_ATTRIBUTE_USES: &[&str] = &[
    "setattr",
    "getattr",
    "vars",
    "exec",
    "eval",
    "__getattr__",
    "__getattribute__",
    "__setattr__",
    "__dict__",
    "__slots__",
    "SimpleNamespace",
];

impl NameUse {
    /// The summary of `source`; `None` if it does not parse.
    pub fn of(source: &str) -> Option<NameUse> {
        crate::analyse(source, |parsed, _| NameUse::of_body(&parsed.syntax().body)).ok()
    }

    /// The summary of a module body.
    fn of_body(body: &[Stmt]) -> NameUse {
        let mut names = Counts::of(body).finish();
        names.mismatched_calls = crate::arity::mismatched_calls(body);
        names
    }

    /// Whether `candidate` (a summary of an edit of the text `self` summarizes) uses a name or
    /// an attribute that the current text defines but the candidate defines nowhere, or has
    /// more calls that do not fit their function's signature (see the `arity` module). Built-in
    /// names and attributes of built-in types never count (removing a definition that shadows
    /// one falls back to the built-in).
    pub fn loses_definition(&self, candidate: &NameUse) -> bool {
        let lost_name = !candidate.dynamic_names
            && candidate.loaded.iter().any(|name| {
                self.bound.contains(name)
                    && !candidate.bound.contains(name)
                    && counts_as_lost(Table::Loaded, name)
            });
        let lost_attribute = !candidate.dynamic_attributes
            && candidate.attributes_read.iter().any(|name| {
                self.attributes_defined.contains(name)
                    && !candidate.attributes_defined.contains(name)
                    && counts_as_lost(Table::AttributesRead, name)
            });
        lost_name || lost_attribute || candidate.mismatched_calls > self.mismatched_calls
    }
}

/// The name uses of a sequence of top-level statements, with counts: the counts of a module
/// are the sums of its parts' (see [`crate::chunk_names`]), and a name is in one of
/// [`NameUse`]'s sets when its count there is not zero.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub(crate) struct Counts {
    pub(crate) bound: HashMap<String, usize>,
    pub(crate) loaded: HashMap<String, usize>,
    pub(crate) attributes_stored: HashMap<String, usize>,
    pub(crate) attributes_read: HashMap<String, usize>,
    /// Keyword argument names and identifier-like string constants: `namedtuple("P", "x y")`,
    /// `dict(a=1)`, `getattr(o, "a")` may all define or name attributes.
    pub(crate) attribute_words: HashMap<String, usize>,
    pub(crate) star_imports: usize,
}

/// The list for `name` in `table`, made empty if missing (the key is cloned only then).
pub(crate) fn entry<'t, V: Default>(table: &'t mut HashMap<String, V>, name: &str) -> &'t mut V {
    if !table.contains_key(name) {
        table.insert(name.to_owned(), V::default());
    }
    table.get_mut(name).expect("just inserted")
}

/// Adds `theirs` to the counts `mine`.
pub(crate) fn add(mine: &mut HashMap<String, usize>, theirs: &HashMap<String, usize>) {
    for (name, count) in theirs {
        *entry(mine, name) += count;
    }
}

/// Subtracts `theirs` (counted in `mine` before) from `mine`; names that reach 0 go, so that
/// the table equals one summed without them.
pub(crate) fn subtract(mine: &mut HashMap<String, usize>, theirs: &HashMap<String, usize>) {
    for (name, count) in theirs {
        if let Some(total) = mine.get_mut(name) {
            *total -= count;
            if *total == 0 {
                mine.remove(name);
            }
        }
    }
}

/// One of the name tables of [`Counts`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Table {
    Bound,
    Loaded,
    AttributesStored,
    AttributesRead,
    AttributeWords,
}

impl Counts {
    /// The counts of `body`.
    pub(crate) fn of(body: &[Stmt]) -> Counts {
        let mut collector = Collector::default();
        collector.visit_body(body);
        collector.0
    }

    /// One of the tables.
    pub(crate) fn table(&self, table: Table) -> &HashMap<String, usize> {
        match table {
            Table::Bound => &self.bound,
            Table::Loaded => &self.loaded,
            Table::AttributesStored => &self.attributes_stored,
            Table::AttributesRead => &self.attributes_read,
            Table::AttributeWords => &self.attribute_words,
        }
    }

    /// Adds `other`'s counts to these.
    pub(crate) fn add(&mut self, other: &Counts) {
        for (mine, theirs) in self.tables_with(other) {
            add(mine, theirs);
        }
        self.star_imports += other.star_imports;
    }

    /// Subtracts `other`'s counts (added before) from these: exactly the counts summed
    /// without `other`.
    pub(crate) fn subtract(&mut self, other: &Counts) {
        for (mine, theirs) in self.tables_with(other) {
            subtract(mine, theirs);
        }
        self.star_imports -= other.star_imports;
    }

    /// These tables paired with `other`'s.
    #[allow(clippy::type_complexity)]
    fn tables_with<'s, 'o>(
        &'s mut self,
        other: &'o Counts,
    ) -> [(&'s mut HashMap<String, usize>, &'o HashMap<String, usize>); 5] {
        [
            (&mut self.bound, &other.bound),
            (&mut self.loaded, &other.loaded),
            (&mut self.attributes_stored, &other.attributes_stored),
            (&mut self.attributes_read, &other.attributes_read),
            (&mut self.attribute_words, &other.attribute_words),
        ]
    }

    /// The summary these counts give (without the call check).
    pub(crate) fn finish(self) -> NameUse {
        let (dynamic_names, dynamic_attributes) =
            dynamic_flags(self.star_imports > 0, |t, n| self.table(t).contains_key(n));
        let keys = |table: HashMap<String, usize>| table.into_keys().collect::<HashSet<_>>();
        // Any binding may become an attribute (class bodies, modules imported elsewhere).
        let mut attributes_defined = keys(self.attributes_stored);
        attributes_defined.extend(self.bound.keys().cloned());
        attributes_defined.extend(self.attribute_words.into_keys());
        NameUse {
            bound: keys(self.bound),
            loaded: keys(self.loaded),
            attributes_defined,
            attributes_read: keys(self.attributes_read),
            dynamic_names,
            dynamic_attributes,
            mismatched_calls: 0,
        }
    }
}

/// Whether names and attributes may be found dynamically, given whether there is a star import
/// and which names are in which table.
pub(crate) fn dynamic_flags(star_import: bool, has: impl Fn(Table, &str) -> bool) -> (bool, bool) {
    let uses = |list: &[&str]| {
        list.iter()
            .any(|n| has(Table::Loaded, n) || has(Table::Bound, n))
    };
    let dynamic_names = star_import || uses(DYNAMIC_NAME_USES);
    let dynamic_attributes = star_import
        || uses(DYNAMIC_ATTRIBUTE_USES)
        || DYNAMIC_ATTRIBUTE_USES
            .iter()
            .any(|n| has(Table::AttributesRead, n) || has(Table::AttributesStored, n));
    (dynamic_names, dynamic_attributes)
}

/// Whether a lost name or attribute counts: not one of the built-ins the program falls back to.
pub(crate) fn counts_as_lost(table: Table, name: &str) -> bool {
    match table {
        Table::Loaded => !BUILTIN_NAMES.contains(&name),
        _ => !BUILTIN_ATTRIBUTES.contains(&name),
    }
}

/// The AST walk behind [`Counts::of`].
#[derive(Default)]
struct Collector(Counts);

impl Collector {
    fn bind(&mut self, name: &str) {
        *self.0.bound.entry(name.to_owned()).or_default() += 1;
    }

    fn note(table: &mut HashMap<String, usize>, name: &str) {
        *table.entry(name.to_owned()).or_default() += 1;
    }
}

impl<'a> Visitor<'a> for Collector {
    fn visit_stmt(&mut self, stmt: &'a Stmt) {
        for name in crate::bindings::statement_bindings(stmt) {
            self.bind(name);
        }
        if let Stmt::ImportFrom(i) = stmt {
            self.0.star_imports += i.names.iter().filter(|a| a.name.as_str() == "*").count();
        }
        walk_stmt(self, stmt);
    }

    fn visit_expr(&mut self, expr: &'a Expr) {
        match expr {
            Expr::Name(n) => {
                if n.ctx.is_load() {
                    Self::note(&mut self.0.loaded, &n.id);
                } else {
                    self.bind(n.id.as_str());
                }
            }
            Expr::Attribute(a) => {
                if a.ctx.is_load() {
                    Self::note(&mut self.0.attributes_read, &a.attr);
                } else {
                    Self::note(&mut self.0.attributes_stored, &a.attr);
                }
            }
            Expr::StringLiteral(s) => {
                let text = s.value.to_str();
                for word in text.split(|c: char| c.is_whitespace() || c == ',') {
                    if !word.is_empty() && word.len() <= 64 {
                        Self::note(&mut self.0.attribute_words, word);
                    }
                }
            }
            _ => {}
        }
        walk_expr(self, expr);
    }

    fn visit_parameter(&mut self, parameter: &'a ast::Parameter) {
        self.bind(parameter.name.as_str());
        ast::visitor::walk_parameter(self, parameter);
    }

    fn visit_keyword(&mut self, keyword: &'a ast::Keyword) {
        if let Some(arg) = &keyword.arg {
            Self::note(&mut self.0.attribute_words, arg);
        }
        ast::visitor::walk_keyword(self, keyword);
    }

    fn visit_pattern(&mut self, pattern: &'a ast::Pattern) {
        let captured = crate::bindings::pattern_binding(pattern);
        if let Some(name) = captured {
            self.bind(name.as_str());
        }
        if let ast::Pattern::MatchClass(c) = pattern {
            for keyword in &c.arguments.keywords {
                Self::note(&mut self.0.attributes_read, &keyword.attr);
            }
        }
        walk_pattern(self, pattern);
    }
}

#[cfg(test)]
mod tests {
    use super::NameUse;

    /// Whether the edit from `current` to `candidate` loses a used definition.
    fn loses(current: &str, candidate: &str) -> bool {
        let before = NameUse::of(current).expect("current parses");
        let after = NameUse::of(candidate).expect("candidate parses");
        before.loses_definition(&after)
    }

    #[test]
    fn removing_a_used_definition_is_caught() {
        let current = "import os\ndef f():\n    return os.sep\nx = 1\nprint(f(), x)\n";
        assert!(loses(
            current,
            "def f():\n    return os.sep\nx = 1\nprint(f(), x)\n"
        ));
        assert!(loses(current, "import os\nx = 1\nprint(f(), x)\n"));
        assert!(loses(
            current,
            "import os\ndef f():\n    return os.sep\nprint(f(), x)\n"
        ));
        // The use goes with the definition: fine.
        assert!(!loses(current, "import os\nx = 1\nprint(x)\n"));
        // Removing a use only: fine.
        assert!(!loses(
            current,
            "import os\ndef f():\n    return os.sep\nx = 1\n"
        ));
    }

    #[test]
    fn every_binding_form_counts() {
        let binds =
            "import a.x\nfrom m import b\nfor c in []: pass\ndef f(d, *e, g=1, **h): pass\n\
                     try:\n    pass\nexcept E as k:\n    pass\nmatch 1:\n    case [*m]: pass\n\
                     lambda n: 0\n[p for p in ()]\nwith o as q: pass\n";
        for name in [
            "a", "b", "c", "d", "e", "g", "h", "k", "m", "n", "p", "q", "f",
        ] {
            let use_it = format!("print({name})\n");
            assert!(loses(&format!("{binds}{use_it}"), &use_it), "{name}");
        }
    }

    #[test]
    fn builtins_and_names_never_defined_do_not_count() {
        // `len` shadowed by a definition: removing it falls back to the built-in.
        assert!(!loses(
            "def len(x):\n    return 0\nprint(len([]))\n",
            "print(len([]))\n"
        ));
        // A name the current text never defines (the failure itself may be a NameError).
        assert!(!loses("print(undefined)\nx = 1\n", "print(undefined)\n"));
    }

    #[test]
    fn attributes_defined_by_methods_or_stores_count() {
        let current = "class A:\n    def __init__(self):\n        self.v = 1\n    def m(self):\n        return self.v\nprint(A().m())\n";
        let without_method =
            "class A:\n    def __init__(self):\n        self.v = 1\nprint(A().m())\n";
        assert!(loses(current, without_method));
        let without_store = "class A:\n    def __init__(self):\n        pass\n    def m(self):\n        return self.v\nprint(A().m())\n";
        assert!(loses(current, without_store));
        // Attributes of built-in types (`.append`) never count, even when a class defines one.
        let list_use = "class B:\n    def append(self, x): pass\nl = []\nl.append(1)\n";
        assert!(!loses(
            list_use,
            "class B:\n    pass\nl = []\nl.append(1)\n"
        ));
    }

    #[test]
    fn a_parameter_removed_without_its_argument_is_caught() {
        let current = "def f(a, b):\n    return a\nprint(f(1, 2))\n";
        assert!(loses(current, "def f(a):\n    return a\nprint(f(1, 2))\n"));
        assert!(loses(current, "def f(a, b):\n    return a\nprint(f(1))\n"));
        assert!(!loses(current, "def f(a):\n    return a\nprint(f(1))\n"));
    }

    #[test]
    fn dynamic_lookups_switch_the_check_off() {
        assert!(!loses(
            "x = 1\nprint(globals()['x'], x)\n",
            "print(globals()['x'], x)\n"
        ));
        assert!(!loses(
            "from m import *\nx = 1\nprint(x)\n",
            "from m import *\nprint(x)\n"
        ));
        let current =
            "class A:\n    def m(self): pass\n    def __getattr__(self, n): return 1\nA().m()\n";
        let candidate = "class A:\n    def __getattr__(self, n): return 1\nA().m()\n";
        assert!(!loses(current, candidate));
        // namedtuple-style field names in strings define attributes.
        let current = "P = namedtuple('P', 'x y')\nclass Q:\n    x = 1\nprint(P(1, 2).x)\n";
        assert!(!loses(
            current,
            "P = namedtuple('P', 'x y')\nprint(P(1, 2).x)\n"
        ));
    }
}
