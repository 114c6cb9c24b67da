//! Names declared and used in a parse, by their text and one level of scope: enough to guess
//! that a deletion takes away the only declaration of a name the rest of the text still uses
//! (C's `long f = amount / 100;` while `return f;` stays, `struct posting {…}` while
//! `struct posting p` stays), which almost never compiles. The guess only defers such sites
//! (ProbDD tries them after the others, alone, see `SyntaxAware`'s priors): it knows no real
//! scopes, and a use may go in the same candidate.
//!
//! A name is a named leaf whose kind is `identifier` or ends with `_identifier` (types,
//! fields, properties). It is declared where it sits in a parent's `name`, `declarator` or
//! `pattern` field (C's declarators, Rust's and JavaScript's item and binding names), except
//! the `name` of a type specifier without a `body` (`struct account *a` uses `account`). The
//! only scopes are the top-level items: a plain `identifier` declared in an item after the
//! item's first declaration (its own name) is the item's (parameters, locals), and the
//! item's uses of that text bind to it; every other name is global.
//!
//! Only the item-scoped names and the names that are not plain identifiers (types, fields)
//! strand; a global plain name (a function, a global variable) does not: a global is often
//! removed together with its last user in one set (a chain of functions each called by the
//! next goes in sets), and deferring it would try it alone, late, once per link (both
//! choices measured in bench/text).

use std::collections::HashMap;
use std::ops::Range;

use tree_sitter::{Node, Tree};

use crate::walk::preorder;

/// Fields whose name is declared there.
const DECLARING: [&str; 3] = ["name", "declarator", "pattern"];

/// Where each name is declared and used (start bytes, ascending).
#[derive(Debug, Clone, Default)]
pub(crate) struct Names {
    /// Every declaration: (start byte, name number), ascending.
    declarations: Vec<(usize, usize)>,
    /// Per name number: its declarations' and its uses' start bytes, ascending.
    declared: Vec<Vec<usize>>,
    used: Vec<Vec<usize>>,
}

impl Names {
    /// The names of `tree` (a parse of `text`).
    pub(crate) fn new(tree: &Tree, text: &str) -> Names {
        let leaves = leaves(tree, text);
        // Plain identifiers declared in a top-level item after its own name (parameters,
        // locals) are that item's: a use in the item binds to them, any other use to the
        // declarations outside every item's own scope.
        let local: std::collections::HashSet<(&str, usize)> = leaves
            .iter()
            .filter(|l| l.declared && l.local && l.plain)
            .map(|l| (l.name, l.item))
            .collect();
        let mut names = Names::default();
        let mut numbers: HashMap<(&str, Option<usize>), usize> = HashMap::new();
        for leaf in &leaves {
            let key = if local.contains(&(leaf.name, leaf.item)) && leaf.plain {
                (leaf.name, Some(leaf.item))
            } else {
                (leaf.name, None)
            };
            let next = numbers.len();
            let number = *numbers.entry(key).or_insert(next);
            if number == names.used.len() {
                names.declared.push(Vec::new());
                names.used.push(Vec::new());
            }
            if leaf.declared {
                names.declared[number].push(leaf.at);
                // Global plain names (functions, global variables) do not strand: a chain of
                // functions each called by the next goes in sets (see the module docs).
                if key.1.is_some() || !leaf.plain {
                    names.declarations.push((leaf.at, number));
                }
            } else {
                names.used[number].push(leaf.at);
            }
        }
        names
    }

    /// Whether removing the bytes of `removed` (disjoint ranges) takes away every declaration
    /// of some name while a use of it stays outside them.
    pub(crate) fn strands(&self, removed: &[Range<usize>]) -> bool {
        let within = |positions: &[usize]| -> usize {
            removed
                .iter()
                .map(|r| {
                    positions.partition_point(|&at| at < r.end)
                        - positions.partition_point(|&at| at < r.start)
                })
                .sum()
        };
        removed.iter().any(|r| {
            let first = self.declarations.partition_point(|&(at, _)| at < r.start);
            self.declarations[first..]
                .iter()
                .take_while(|&&(at, _)| at < r.end)
                .any(|&(_, number)| {
                    let (declared, used) = (&self.declared[number], &self.used[number]);
                    within(declared) == declared.len() && within(used) < used.len()
                })
        })
    }
}

/// A name in the text.
struct Leaf<'t> {
    name: &'t str,
    /// Its start byte.
    at: usize,
    /// Whether it is declared there (else used).
    declared: bool,
    /// Whether its kind is `identifier` (not a type's, a field's or a property's name).
    plain: bool,
    /// The top-level item it is in (the root's child, by number).
    item: usize,
    /// Whether it is declared in its item after the item's first declaration.
    local: bool,
}

/// The names of `tree`, in text order.
fn leaves<'t>(tree: &Tree, text: &'t str) -> Vec<Leaf<'t>> {
    let mut out = Vec::new();
    let (mut item, mut item_declared) = (0, false);
    preorder(tree, |cursor, depth, parent| {
        let node = cursor.node();
        if depth == 1 {
            item += 1;
            item_declared = false;
        }
        if node.child_count() != 0 || !node.is_named() || !is_name(node.kind()) {
            return;
        }
        let Some(name) = text.get(node.byte_range()) else {
            return;
        };
        let declared = cursor.field_name().is_some_and(|f| declares(parent, f));
        out.push(Leaf {
            name,
            at: node.start_byte(),
            declared,
            plain: node.kind() == "identifier",
            item,
            local: declared && item_declared,
        });
        item_declared |= declared;
    });
    out
}

/// Whether nodes of `kind` are names.
fn is_name(kind: &str) -> bool {
    kind == "identifier" || kind.ends_with("_identifier")
}

/// Whether a node, in its `parent`'s `field`, declares its name.
fn declares(parent: Option<Node<'_>>, field: &str) -> bool {
    if !DECLARING.contains(&field) {
        return false;
    }
    let Some(parent) = parent else {
        return false;
    };
    // `struct account *a` names a type declared elsewhere; `struct account {…}` declares it.
    !(field == "name"
        && parent.kind().ends_with("_specifier")
        && parent.child_by_field_name("body").is_none())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::language::DEFERRED_PRIOR;
    use crate::sites::LITERAL;
    use crate::{by_name, LoadedGrammar};
    use minrepro_text::{Language, Prepared, Site};

    const LEDGER: &str = "struct account { long balance; };\nstatic struct account accounts[2];\nstatic long fee(long amount) { return amount / 100; }\nstatic long unused(long amount) { return amount; }\nint main(void) {\n  struct account *a = &accounts[0];\n  long f = fee(a->balance);\n  return f;\n}\n";

    fn names(name: &str, text: &str) -> Names {
        let tree = LoadedGrammar::new(by_name(name).unwrap())
            .unwrap()
            .parse(text)
            .unwrap();
        Names::new(&tree, text)
    }

    /// The byte range of the first line of `text` that starts with `start`.
    fn line(text: &str, start: &str) -> Range<usize> {
        let at = text.find(&format!("\n{start}")).map_or(0, |i| i + 1);
        at..at + text[at..].find('\n').unwrap() + 1
    }

    #[test]
    fn a_deletion_strands_a_name_whose_only_declaration_goes_while_it_is_used() {
        let c = names("c", LEDGER);
        // The struct's definition declares `account`, which `struct account *a` still uses;
        // functions and global variables are global plain names, which do not strand.
        assert!(c.strands(&[line(LEDGER, "struct account {")]));
        assert!(!c.strands(&[line(LEDGER, "static long fee")]));
        assert!(!c.strands(&[line(LEDGER, "static struct account accounts")]));
        // A field still used (`a->balance`) with its struct's body.
        let field = LEDGER.find("long balance;").unwrap();
        let field = field..field + "long balance;".len();
        assert!(c.strands(std::slice::from_ref(&field)));
        // A statement that only uses names, and a declaration that goes with its last use.
        assert!(!c.strands(&[line(LEDGER, "  return f;")]));
        let f = line(LEDGER, "  long f");
        assert!(c.strands(std::slice::from_ref(&f)));
        assert!(!c.strands(&[f, line(LEDGER, "  return f;")]));
        // Parameters and locals belong to their function: `fee`'s `amount` is used in its
        // body, `unused`'s `amount` does not keep it declared.
        let parameter = LEDGER.find("long amount").unwrap();
        let parameter = parameter..parameter + "long amount".len();
        assert!(c.strands(std::slice::from_ref(&parameter)));
    }

    #[test]
    fn rust_and_javascript_bindings_and_types_declare_their_names() {
        let rust = "struct S { a: i32 }\nfn main() {\n    let x = S { a: 1 };\n    println!(\"{}\", x.a);\n}\n";
        let r = names("rust", rust);
        assert!(r.strands(&[line(rust, "struct S")]));
        assert!(r.strands(&[line(rust, "    let x")]));
        assert!(!r.strands(&[line(rust, "    println!")]));
        let js = "function f() {\n  const x = 1;\n  console.log(x);\n}\n";
        let j = names("javascript", js);
        assert!(j.strands(&[line(js, "  const x")]));
        assert!(!j.strands(&[line(js, "  console.log")]));
    }

    #[test]
    fn stranding_sites_are_listed_as_deferred_and_start_from_a_higher_prior() {
        let syntax = LoadedGrammar::new(by_name("c").unwrap()).unwrap();
        let listing = syntax.listing(LEDGER);
        let deletion = |start: &str| {
            let range = line(LEDGER, start);
            listing
                .sites
                .iter()
                .find(|s| s.range == range && s.replacement.is_empty())
                .unwrap_or_else(|| panic!("no deletion of {start:?}"))
        };
        assert!(!listing.is_deferred(deletion("static long unused")));
        assert!(listing.is_deferred(deletion("  long f")));
        assert!(!listing.is_deferred(deletion("  return f;")));
        // The syntax group's ProbDD starts the deferred sites and the literals higher.
        let language = crate::SyntaxAware::new(by_name("c").unwrap(), crate::tests::Words);
        let language = language.unwrap();
        let prepared = language.prepare(LEDGER, crate::Group::Syntax);
        let priors = prepared.priors(0.2);
        let prior_of = |site: &Site| {
            let at = listing.sites.iter().position(|s| s == site).unwrap();
            priors[at]
        };
        assert_eq!(prior_of(deletion("  long f")), DEFERRED_PRIOR);
        assert_eq!(prior_of(deletion("static long unused")), 0.2);
        assert_eq!(priors.len(), listing.sites.len());
        let call = "int g(int a, int b);\nint main(void) { int x = 1; return g(x, 2); }\n";
        let prepared = language.prepare(call, crate::Group::Syntax);
        let sites = prepared.sites();
        let literal = sites.iter().position(|s| s.kind == LITERAL).unwrap();
        assert_eq!(prepared.priors(0.2)[literal], DEFERRED_PRIOR);
    }
}
