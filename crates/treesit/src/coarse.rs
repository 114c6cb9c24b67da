//! Coarse cuts for the C-like grammars, searched before the syntax group descends into the
//! tree: what removes most of a large input (a preprocessed translation unit, a generated
//! program) in few predicate runs. C-Vise's first passes on such inputs are clang_delta's
//! `replace-function-def-with-decl` and `remove-unused-function`, then whole top-level forms
//! (topformflat level 0); here, from the parse:
//!
//! - every definition at namespace scope (in the file, in a namespace or a linkage
//!   specification's body, recursively) that nothing outside it names, deleted whole (an
//!   identifier reference count from the tree: no compiler);
//! - every function definition's body, at namespace scope or in a class, made `;` (with a
//!   constructor's initializer list): the definition becomes a declaration, which every test
//!   that only compiles accepts, and what only that body named is no longer named.
//!
//! A definition still named elsewhere is not offered: its deletion would mostly leave a use
//! undeclared, a run spent for nothing (the syntax group still tries it later, deferred). The
//! sites nest like the scopes (a namespace's deletion contains its definitions', a
//! definition's its body's), so the group is searched level by level, outer first, a level
//! again after it accepted something: the deletions and bodies that went leave other definitions
//! unnamed, and the re-listing offers them.

use std::collections::{HashMap, HashSet};
use std::ops::Range;

use minrepro_text::{LevelPolicy, Site};
use tree_sitter::{Node, Tree};

use crate::rewrites::named_children;
use crate::sites::{lines_of, Listing};
use crate::walk::preorder;

/// Kind of the deletion of a definition at namespace scope.
pub const DELETE_DEFINITION: &str = "delete-definition";
/// Kind of a function definition's body made `;`.
pub const BODY_TO_DECLARATION: &str = "body-to-declaration";

/// A level is searched again, on the new text, while it accepts something: the re-listing
/// counts the references again, and offers a definition that only what went named.
pub const LEVEL_POLICY: LevelPolicy = LevelPolicy {
    resweep: true,
    stop_after_fruitless: None,
};

/// Nodes whose named children are at namespace scope.
const SCOPES: [&str; 3] = [
    "translation_unit",
    "declaration_list",
    "linkage_specification",
];
/// Nodes below which a declared name is not at namespace scope (parameters, locals, members,
/// template parameters).
const INNER: [&str; 6] = [
    "parameter_list",
    "compound_statement",
    "field_declaration_list",
    "template_parameter_list",
    "lambda_expression",
    "initializer_list",
];
/// Fields whose leaf declares a name (see `names`).
const DECLARING: [&str; 2] = ["name", "declarator"];

/// The coarse sites of `tree` (a parse of `text`).
pub fn coarse_listing(tree: &Tree, text: &str) -> Listing {
    let refs = References::new(tree, text);
    let mut sites = Vec::new();
    let mut companions: HashMap<(usize, usize), Vec<Range<usize>>> = HashMap::new();
    let mut stack = vec![tree.root_node()];
    // One cursor for every node's children: this walk meets every named node.
    let mut cursor = tree.walk();
    while let Some(node) = stack.pop() {
        let scope = SCOPES.contains(&node.kind());
        for child in node.named_children(&mut cursor) {
            // Code that does not parse is left as it is (a deletion around it may still go).
            if child.is_error() || child.is_missing() {
                continue;
            }
            let definition = scope && !child.is_extra() && child.kind() != "string_literal";
            let forward = definition
                .then(|| refs.forward_only_outside(child.byte_range()))
                .flatten();
            if let Some(forward) = forward {
                let range = lines_of(text, child.byte_range());
                let mut with: Vec<Range<usize>> =
                    forward.into_iter().map(|r| lines_of(text, r)).collect();
                with.sort_by_key(|r| (r.start, r.end));
                with.dedup();
                with.retain(|r| r.end <= range.start || range.end <= r.start);
                if !with.is_empty() {
                    companions.insert((range.start, range.end), with);
                }
                sites.push(Site {
                    kind: DELETE_DEFINITION,
                    range,
                    replacement: String::new(),
                });
            }
            if child.kind() == "function_definition" {
                sites.extend(body_site(child));
            }
            stack.push(child);
        }
    }
    sites.sort_by_key(|s| (s.range.start, std::cmp::Reverse(s.range.end)));
    sites.dedup_by(|a, b| a.range == b.range && a.replacement == b.replacement);
    Listing::with_companions(sites, companions)
}

/// The site making `definition`'s body `;` (with a constructor's initializer list before it).
fn body_site(definition: Node<'_>) -> Option<Site> {
    let body = definition.child_by_field_name("body")?;
    if body.kind() != "compound_statement" {
        return None;
    }
    let start = named_children(definition)
        .find(|c| c.kind() == "field_initializer_list")
        .map_or(body.start_byte(), |list| list.start_byte());
    // `auto f() {…}` deduces its type from the body: as a declaration it cannot be used.
    let deduced = definition
        .child_by_field_name("type")
        .is_some_and(|t| t.kind() == "placeholder_type_specifier" || t.kind() == "auto");
    (!deduced).then(|| Site {
        kind: BODY_TO_DECLARATION,
        range: start..body.end_byte(),
        replacement: ";".to_owned(),
    })
}

/// Where each name occurs, and which occurrences declare a name at namespace scope.
struct References<'t> {
    /// Every name leaf's start byte, by its text (ascending).
    occurrences: HashMap<&'t str, Vec<usize>>,
    /// The declaring leaves at namespace scope: (start byte, text), ascending.
    declared: Vec<(usize, &'t str)>,
    /// The forward declarations of each name at namespace scope (a prototype, an `extern`
    /// variable: a declaration without initializer or body that declares that name alone),
    /// ascending: they name a definition without using it, and go with it.
    forward: HashMap<&'t str, Vec<Range<usize>>>,
}

impl<'t> References<'t> {
    fn new(tree: &Tree, text: &'t str) -> References<'t> {
        let mut occurrences: HashMap<&'t str, Vec<usize>> = HashMap::new();
        let mut declared = Vec::new();
        // Depths (in the walk) of the INNER nodes the walk is in.
        let mut inner: Vec<usize> = Vec::new();
        preorder(tree, |cursor, depth, parent| {
            let node = cursor.node();
            while inner.last().is_some_and(|&d| d >= depth) {
                inner.pop();
            }
            if INNER.contains(&node.kind()) {
                inner.push(depth);
            }
            if node.child_count() != 0 || !node.is_named() || !is_name(node.kind()) {
                return;
            }
            let Some(name) = text.get(node.byte_range()) else {
                return;
            };
            occurrences.entry(name).or_default().push(node.start_byte());
            let declares = cursor
                .field_name()
                .is_some_and(|f| DECLARING.contains(&f) && !names_a_type(parent, f));
            if declares && inner.is_empty() {
                declared.push((node.start_byte(), name));
            }
        });
        let forward = forward_declarations(tree, &declared);
        References {
            occurrences,
            declared,
            forward,
        }
    }

    /// The forward declarations outside `range` of the names declared at namespace scope inside
    /// it, when those are all the names' occurrences outside it (`None`: a name is used
    /// outside).
    fn forward_only_outside(&self, range: Range<usize>) -> Option<Vec<Range<usize>>> {
        let first = self.declared.partition_point(|&(at, _)| at < range.start);
        let mut seen = HashSet::new();
        let mut forward = Vec::new();
        let names = self.declared[first..]
            .iter()
            .take_while(|&&(at, _)| at < range.end)
            .filter(|&&(_, name)| seen.insert(name));
        for &(_, name) in names {
            let all = &self.occurrences[name];
            let count = |r: &Range<usize>| {
                all.partition_point(|&at| at < r.end) - all.partition_point(|&at| at < r.start)
            };
            let mut covered = count(&range);
            for declaration in self.forward.get(name).into_iter().flatten() {
                if declaration.end <= range.start || range.end <= declaration.start {
                    covered += count(declaration);
                    forward.push(declaration.clone());
                }
            }
            if covered < all.len() {
                return None;
            }
        }
        Some(forward)
    }
}

/// The forward declarations among the children of `tree`'s namespace scopes, by the one name
/// each declares (`declared`: the declaring leaves at namespace scope, ascending).
fn forward_declarations<'t>(
    tree: &Tree,
    declared: &[(usize, &'t str)],
) -> HashMap<&'t str, Vec<Range<usize>>> {
    let mut forward: HashMap<&'t str, Vec<Range<usize>>> = HashMap::new();
    let mut stack = vec![tree.root_node()];
    while let Some(node) = stack.pop() {
        for child in named_children(node) {
            if SCOPES.contains(&child.kind()) || child.kind() == "namespace_definition" {
                stack.push(child);
            }
            let Some(name) = SCOPES
                .contains(&node.kind())
                .then(|| forward_name(child, declared))
                .flatten()
            else {
                continue;
            };
            forward.entry(name).or_default().push(child.byte_range());
        }
    }
    for ranges in forward.values_mut() {
        ranges.sort_by_key(|r| r.start);
    }
    forward
}

/// The name `node` declares when it is a forward declaration: a `declaration` without an
/// initializer, a body or an error, declaring one name at namespace scope.
fn forward_name<'t>(node: Node<'_>, declared: &[(usize, &'t str)]) -> Option<&'t str> {
    if node.kind() != "declaration" || node.has_error() {
        return None;
    }
    let mut cursor = node.walk();
    let plain = node
        .children_by_field_name("declarator", &mut cursor)
        .all(|d| d.kind() != "init_declarator");
    let bodies = node
        .child_by_field_name("type")
        .is_some_and(|t| t.child_by_field_name("body").is_some());
    if !plain || bodies {
        return None;
    }
    let range = node.byte_range();
    let first = declared.partition_point(|&(at, _)| at < range.start);
    let mut names = declared[first..]
        .iter()
        .take_while(|&&(at, _)| at < range.end)
        .map(|&(_, name)| name);
    let name = names.next()?;
    names.all(|other| other == name).then_some(name)
}

/// Whether a node, in its `parent`'s `field`, names a type declared elsewhere (`struct a *p`).
fn names_a_type(parent: Option<Node<'_>>, field: &str) -> bool {
    field == "name"
        && parent.is_some_and(|parent| {
            parent.kind().ends_with("_specifier") && parent.child_by_field_name("body").is_none()
        })
}

/// Whether nodes of `kind` are names.
fn is_name(kind: &str) -> bool {
    kind == "identifier" || kind.ends_with("_identifier")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{by_name, LoadedGrammar};
    use minrepro_text::splice;

    fn listing(grammar: &str, text: &str) -> (LoadedGrammar, Listing) {
        let syntax = LoadedGrammar::new(by_name(grammar).unwrap()).unwrap();
        let tree = syntax.parse(text).unwrap();
        let listing = coarse_listing(&tree, text);
        (syntax, listing)
    }

    /// [`listing`]'s listing, every site of which is checked to leave a clean parse when
    /// applied alone: what the coarse group offers must stay valid code.
    fn valid_listing(grammar: &str, text: &str) -> Listing {
        let (syntax, listing) = listing(grammar, text);
        for site in &listing.sites {
            let out = splice(text, &[site]);
            assert_eq!(syntax.errors(&out), 0, "{out}");
        }
        listing
    }

    #[test]
    fn definitions_go_whole_and_bodies_become_declarations() {
        let text = "static int used(int a) { return a + 1; }\nstatic int unused(int b) { return b; }\nint main(void) { return used(2); }\n";
        let listing = valid_listing("c", text);
        let kinds: Vec<(&str, &str)> = listing
            .sites
            .iter()
            .map(|s| (s.kind, &text[s.range.clone()]))
            .collect();
        assert_eq!(
            kinds,
            // `used` is named by main: not offered whole.
            [
                (BODY_TO_DECLARATION, "{ return a + 1; }"),
                (
                    DELETE_DEFINITION,
                    "static int unused(int b) { return b; }\n"
                ),
                (BODY_TO_DECLARATION, "{ return b; }"),
                (DELETE_DEFINITION, "int main(void) { return used(2); }\n"),
                (BODY_TO_DECLARATION, "{ return used(2); }"),
            ]
        );
    }

    #[test]
    fn namespaces_classes_and_templates_nest_and_stay_valid() {
        let text = "namespace n {\nstruct A {\n  A() : x(1) { x = 2; }\n  int get() const { return x; }\n  int x;\n};\ntemplate <typename T> T id(T v) { return v; }\nauto later() { return 3; }\n}\nextern \"C\" {\nint c_api(int);\n}\nint main() { n::A a; return a.get() + n::id(1); }\n";
        let listing = valid_listing("cpp", text);
        let texts: Vec<&str> = listing
            .sites
            .iter()
            .map(|s| &text[s.range.clone()])
            .collect();
        assert!(texts.contains(&": x(1) { x = 2; }"), "{texts:?}");
        assert!(texts.contains(&"{ return x; }"));
        assert!(texts.contains(&"{ return v; }"));
        // A deduced return type needs its body.
        assert!(!texts.contains(&"{ return 3; }"));
        // The namespace holds `A` and `id`, both named by main; `later` and `c_api` are not.
        let offered = |start: &str| texts.iter().any(|t| t.starts_with(start));
        assert!(!offered("namespace n"));
        assert!(!offered("struct A"));
        assert!(!offered("template <typename T>"));
        assert!(offered("auto later"));
        assert!(offered("int c_api"));
    }

    #[test]
    fn a_definition_named_only_by_its_prototypes_goes_with_them() {
        let text = "static int helper(int);\nstatic int used(void);\nextern int count;\nint count = 3;\nstatic int helper(int a) { return a + count; }\nstatic int used(void) { return 2; }\nint main(void) { return used(); }\n";
        let (syntax, first) = listing("c", text);
        let whole = |start: &str| {
            first
                .sites
                .iter()
                .find(|s| s.kind == DELETE_DEFINITION && text[s.range.clone()].starts_with(start))
        };
        // `helper` is named only by its prototype: it goes with it, alone it is never offered
        // (a prototype left without its definition makes gcc warn).
        let helper = whole("static int helper(int a)").expect("helper offered");
        assert_eq!(
            companion_texts(&first, helper, text),
            ["static int helper(int);\n"]
        );
        let out = remove(&first, &[helper], text);
        assert!(!out.contains("helper"), "{out}");
        assert_eq!(syntax.errors(&out), 0, "{out}");
        // `used` is called by main; `count` is used by helper.
        assert!(whole("static int used(void) {").is_none());
        assert!(whole("int count = 3").is_none());
        assert!(whole("static int helper(int);").is_none());
        // Once helper is gone, count is named only by its extern declaration.
        let (_, again) = listing("c", &out);
        let count = again
            .sites
            .iter()
            .find(|s| out[s.range.clone()].starts_with("int count = 3"))
            .expect("count offered");
        assert_eq!(
            companion_texts(&again, count, &out),
            ["extern int count;\n"]
        );
        // Every selection of the sites re-parses cleanly, and the order is the same each time.
        assert_eq!(again.sites, listing("c", &out).1.sites);
        for site in &first.sites {
            let out = remove(&first, &[site], text);
            assert_eq!(syntax.errors(&out), 0, "{out}");
        }
        let all: Vec<&Site> = first.sites.iter().collect();
        assert_eq!(syntax.errors(&remove(&first, &all, text)), 0);
    }

    /// The texts `listing` deletes together with `site`.
    fn companion_texts<'t>(listing: &Listing, site: &Site, text: &'t str) -> Vec<&'t str> {
        let ranges = listing.companions_of(site).iter();
        ranges.map(|r| &text[r.clone()]).collect()
    }

    /// `text` without the `sites` of `listing` (and their companions).
    fn remove(listing: &Listing, sites: &[&Site], text: &str) -> String {
        let removals = listing.removals(sites);
        let plain: Vec<&Site> = removals.iter().map(|c| c.as_ref()).collect();
        splice(text, &plain)
    }

    #[test]
    fn nothing_is_offered_inside_code_that_does_not_parse() {
        let text = "int f(void) { return 1; }\n) ] int x [ (\nint g(void) { return 2; }\n";
        let (syntax, listing) = listing("c", text);
        let tree = syntax.parse(text).unwrap();
        let mut errors = Vec::new();
        crate::rewrites::collect_errors(tree.root_node(), &mut errors);
        assert!(!errors.is_empty());
        for site in &listing.sites {
            for error in &errors {
                let r = &site.range;
                let disjoint = r.end <= error.start || error.end <= r.start;
                let around = r.start <= error.start && error.end <= r.end;
                assert!(disjoint || around, "{:?} in {error:?}", site);
            }
        }
        // `f` still goes, and its body may become a declaration.
        assert!(listing.sites.len() >= 2, "{:?}", listing.sites);
    }
}
