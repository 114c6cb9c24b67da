//! Rewrites beyond what a grammar lets go or hoist, for the C-like grammars
//! ([`crate::Grammar::rewrites`]): what C-Reduce's and C-Vise's `clang_delta` does that
//! deletions cannot, each as one site that edits several places at once: a function inlined
//! into all its calls ([`inline_function`]) and an aggregate variable whose accesses all name a field
//! (or an element) made one scalar per field ([`scalars`]). Such sites are few (one per
//! function or variable) and each is tried alone (swept): they change what a program computes
//! only where a reduction may (merging the elements of an array), and a predicate decides.

pub mod classes;
pub mod inline_function;
pub mod locals;
pub mod scalars;
pub mod scopes;
pub mod templates;
pub mod types;

use std::collections::HashMap;
use std::ops::Range;

use minrepro_text::Site;
use tree_sitter::{Node, Tree};

pub use inline_function::INLINE;
pub use scalars::SCALARIZE;

/// The rewrite sites of `tree` (a parse of `text`): inlinings, scalarisations, variables moved
/// between scopes.
pub fn rewrite_sites(tree: &Tree, text: &str) -> Vec<Site> {
    let mut sites = inline_function::inline_sites(tree, text);
    sites.extend(scalars::scalar_sites(tree, text));
    sites.extend(locals::local_sites(tree, text));
    sites.extend(scopes::scope_sites(tree, text));
    sites.extend(classes::class_sites(tree, text));
    sites.extend(types::type_sites(tree, text));
    sites.extend(templates::template_sites(tree, text));
    // Code that does not parse is left as it is: no site whose edits span it.
    let mut errors = Vec::new();
    collect_errors(tree.root_node(), &mut errors);
    sites.retain(|s| {
        errors
            .iter()
            .all(|e| e.end <= s.range.start || s.range.end <= e.start)
    });
    sites
}

/// The byte ranges of the `ERROR` and `MISSING` nodes of `node`'s subtree: code that does not
/// parse, which no rewrite edits.
pub(crate) fn collect_errors(node: Node<'_>, out: &mut Vec<Range<usize>>) {
    if !node.has_error() && !node.is_missing() {
        return;
    }
    if node.is_error() || node.is_missing() {
        out.push(node.byte_range());
        return;
    }
    for child in children(node) {
        collect_errors(child, out);
    }
}

/// Whether `node` lies inside `outer`.
fn within(node: Node<'_>, outer: Node<'_>) -> bool {
    outer.start_byte() <= node.start_byte() && node.end_byte() <= outer.end_byte()
}

/// The named children of `node`, in order. Walked with one cursor: tree-sitter finds a child
/// by its index by walking the siblings before it, so indexing every child of a node costs the
/// square of their number (a translation unit's thousands of top-level declarations).
pub(crate) fn named_children<'t>(node: Node<'t>) -> impl Iterator<Item = Node<'t>> {
    children(node).filter(|child| child.is_named())
}

/// The children of `node`, in order, walked with one cursor (see [`named_children`]).
fn children<'t>(node: Node<'t>) -> impl Iterator<Item = Node<'t>> {
    let mut cursor = node.walk();
    let mut more = cursor.goto_first_child();
    std::iter::from_fn(move || {
        let child = more.then(|| cursor.node())?;
        more = cursor.goto_next_sibling();
        Some(child)
    })
}

/// The function definitions at the top of `root` that parse without error: a rewrite edits a
/// function only where the tree says exactly what its parts are.
fn clean_functions(root: Node<'_>) -> impl Iterator<Item = Node<'_>> {
    named_children(root).filter(|d| d.kind() == "function_definition" && !d.has_error())
}

/// Every node of `node`'s subtree (itself included) that `pick` selects, in text order.
fn collect<'t>(node: Node<'t>, mut pick: impl FnMut(Node<'t>) -> bool) -> Vec<Node<'t>> {
    let mut out = Vec::new();
    let mut cursor = node.walk();
    let mut stack = vec![node];
    while let Some(next) = stack.pop() {
        if pick(next) {
            out.push(next);
        }
        let children: Vec<Node<'t>> = next.children(&mut cursor).collect();
        stack.extend(children.into_iter().rev());
    }
    out
}

/// The nodes of `kind` in `node`'s subtree that parse without error: a rewrite edits a node
/// only where the tree says exactly what its parts are.
fn clean_of_kind<'t>(node: Node<'t>, kind: &str) -> Vec<Node<'t>> {
    collect(node, |n| n.kind() == kind && !n.has_error())
}

/// Every identifier (`kind`: `identifier`) of a tree by its text, in text order: looked up once
/// per function or variable instead of walking the tree again (a generated file has thousands).
struct Identifiers<'t>(HashMap<&'t str, Vec<Node<'t>>>);

impl<'t> Identifiers<'t> {
    /// The identifiers of `root`'s subtree (`text` is its source).
    fn new(root: Node<'t>, text: &'t str) -> Identifiers<'t> {
        let all = collect(root, |n| n.kind() == "identifier");
        let mut by_name: HashMap<&'t str, Vec<Node<'t>>> = HashMap::new();
        for node in all {
            by_name
                .entry(&text[node.byte_range()])
                .or_default()
                .push(node);
        }
        Identifiers(by_name)
    }

    /// The number of identifiers named `name`.
    fn count(&self, name: &str) -> usize {
        self.0.get(name).map_or(0, Vec::len)
    }

    /// The identifiers named `name` inside `scope`.
    fn named_within(&self, name: &str, scope: Node<'_>) -> Vec<Node<'t>> {
        self.0.get(name).map_or(Vec::new(), |nodes| {
            nodes
                .iter()
                .copied()
                .filter(|n| within(*n, scope))
                .collect()
        })
    }
}

/// The identifiers (`kind`: `identifier`) of `node`'s subtree named `name`.
fn named<'t>(node: Node<'t>, name: &str, text: &str) -> Vec<Node<'t>> {
    collect(node, |n| {
        n.kind() == "identifier" && &text[n.byte_range()] == name
    })
}

/// The leaf of `kind` a declarator declares (`*p`, `x = 1`, `a[3]`: an `identifier`, or a
/// struct's `field_identifier`), if it is a plain one (not a function's).
fn declarator_leaf<'t>(declarator: Node<'t>, kind: &str) -> Option<Node<'t>> {
    match declarator.kind() {
        k if k == kind => Some(declarator),
        "pointer_declarator" | "init_declarator" | "array_declarator" => {
            declarator_leaf(declarator.child_by_field_name("declarator")?, kind)
        }
        _ => None,
    }
}

/// The name a declarator declares, if it is a plain one (see [`declarator_leaf`]).
fn declared_name<'t>(declarator: Node<'_>, text: &'t str) -> Option<&'t str> {
    declarator_leaf(declarator, "identifier").map(|leaf| &text[leaf.byte_range()])
}

/// The declarators of every node of `kinds` (declarations) in `node`'s subtree.
fn declarators<'t>(node: Node<'t>, kinds: &[&str]) -> Vec<Node<'t>> {
    let declarations = collect(node, |n| kinds.contains(&n.kind()));
    let mut out = Vec::new();
    for declaration in declarations {
        let mut cursor = declaration.walk();
        out.extend(declaration.children_by_field_name("declarator", &mut cursor));
    }
    out
}

/// One site of `kind` applying every edit (disjoint ranges) at once: the text from the first
/// edit's start to the last one's end, edited; `None` when edits overlap.
fn combined(
    kind: &'static str,
    text: &str,
    mut edits: Vec<(Range<usize>, String)>,
) -> Option<Site> {
    edits.sort_by_key(|(r, _)| r.start);
    if edits.windows(2).any(|w| w[0].0.end > w[1].0.start) {
        return None;
    }
    let start = edits.first()?.0.start;
    let end = edits.last()?.0.end;
    let mut replacement = String::new();
    let mut at = start;
    for (range, by) in &edits {
        replacement.push_str(&text[at..range.start]);
        replacement.push_str(by);
        at = range.end;
    }
    Some(Site {
        kind,
        range: start..end,
        replacement,
    })
}
/// The declarator of a declaration that declares exactly one name (`int a;`, not `int a, b;`).
pub(crate) fn only_declarator(declaration: Node<'_>) -> Option<Node<'_>> {
    let mut cursor = declaration.walk();
    let mut declarators = declaration.children_by_field_name("declarator", &mut cursor);
    let first = declarators.next()?;
    declarators.next().is_none().then_some(first)
}

/// The elements of a bracketed list (its named children that are not comments).
pub(crate) fn list_elements(list: Node<'_>) -> Vec<Node<'_>> {
    named_children(list).filter(|n| !n.is_extra()).collect()
}

/// The edit dropping element `index` of the `count` elements of a bracketed list (with a
/// comma): `(a, b)` → `(b)`; the last one → `(void)` in a parameter list, `()` elsewhere.
pub(crate) fn drop_element(list: Node<'_>, index: usize, count: usize) -> (Range<usize>, String) {
    let elements = list_elements(list);
    if count == 1 {
        let inner = list.start_byte() + 1..list.end_byte() - 1;
        let empty = if list.kind() == "parameter_list" {
            "void"
        } else {
            ""
        };
        return (inner, empty.to_owned());
    }
    let range = if index + 1 < elements.len() {
        elements[index].start_byte()..elements[index + 1].start_byte()
    } else {
        elements[index - 1].end_byte()..elements[index].end_byte()
    };
    (range, String::new())
}

#[cfg(test)]
mod tests;
