//! C++ scopes taken away (clang_delta's `remove-namespace`, `simplify-nested-class`,
//! `remove-nested-function`'s qualified names): a namespace's body put in its place, with every
//! qualification by its name and every `using namespace` of it dropped at once; and a scope's
//! qualification `S::` dropped from every qualified name (`n::A::get` → `A::get` where `n` is
//! the scope named). Names may then clash or no longer resolve: the predicate decides, and the
//! rewrite is one site per namespace or scope name, swept.

use std::collections::BTreeMap;
use std::ops::Range;

use minrepro_text::Site;
use tree_sitter::{Node, Tree};

use super::{clean_of_kind, collect, combined};
use crate::sites::lines_of;

/// Kind of a namespace's body put in its place.
pub const REMOVE_NAMESPACE: &str = "remove-namespace";
/// Kind of a scope's qualifications dropped.
pub const UNQUALIFY: &str = "unqualify";

/// The sites of `tree` (a parse of `text`).
pub fn scope_sites(tree: &Tree, text: &str) -> Vec<Site> {
    let root = tree.root_node();
    let qualified = collect(root, |n| {
        n.kind().starts_with("qualified_") && !n.has_error()
    });
    // Each scope's name → the ranges of its `S::` prefixes.
    let mut prefixes: BTreeMap<&str, Vec<Range<usize>>> = BTreeMap::new();
    for node in &qualified {
        if let Some((scope, range)) = prefix(*node, text) {
            prefixes.entry(scope).or_default().push(range);
        }
    }
    let usings = collect(root, |n| n.kind() == "using_declaration");
    let mut sites = Vec::new();
    let namespaces = clean_of_kind(root, "namespace_definition");
    for namespace in namespaces {
        let Some(body) = namespace.child_by_field_name("body") else {
            continue;
        };
        let name = namespace
            .child_by_field_name("name")
            .map(|n| &text[n.byte_range()]);
        let inner = body.start_byte() + 1..body.end_byte().saturating_sub(1);
        let mut edits = vec![
            (namespace.start_byte()..inner.start, String::new()),
            (inner.end..namespace.end_byte(), String::new()),
        ];
        if let Some(name) = name {
            for range in prefixes.get(name).into_iter().flatten() {
                edits.push((range.clone(), String::new()));
            }
            for using in &usings {
                let written = &text[using.byte_range()];
                if written.starts_with("using namespace")
                    && written.trim_end_matches(';').trim().ends_with(name)
                {
                    edits.push((lines_of(text, using.byte_range()), String::new()));
                }
            }
        }
        sites.extend(combined(REMOVE_NAMESPACE, text, edits));
    }
    for ranges in prefixes.values() {
        let edits = ranges.iter().map(|r| (r.clone(), String::new())).collect();
        sites.extend(combined(UNQUALIFY, text, edits));
    }
    sites
}

/// A qualified name's scope's text and the range of its `S::` (the scope and the `::`).
fn prefix<'t>(node: Node<'_>, text: &'t str) -> Option<(&'t str, Range<usize>)> {
    let scope = node.child_by_field_name("scope")?;
    let name = node.child_by_field_name("name")?;
    // `S<T>::x` and `::x` are left alone: only a plain name is a scope that can go.
    if !matches!(
        scope.kind(),
        "namespace_identifier" | "type_identifier" | "identifier"
    ) {
        return None;
    }
    Some((
        &text[scope.byte_range()],
        scope.start_byte()..name.start_byte(),
    ))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rewrites::tests::{check, sites_of};

    #[test]
    fn a_namespace_goes_with_its_qualifications_and_usings() {
        check(&[(
            "a namespace, its qualifications and its using",
            "cpp",
            "namespace n {\nstruct A { int x; };\nint get(A a) { return a.x; }\n}\nusing namespace n;\nint main() { n::A a{1}; return n::get(a); }\n",
            REMOVE_NAMESPACE,
            &["\nstruct A { int x; };\nint get(A a) { return a.x; }\n\nint main() { A a{1}; return get(a); }\n"],
        )]);
    }

    #[test]
    fn a_scope_is_dropped_from_every_qualified_name() {
        check(&[
            (
                "a class scope, in a definition and a use",
                "cpp",
                "struct B { static int k; };\nint B::k = 1;\nint main() { return B::k; }\n",
                UNQUALIFY,
                &["struct B { static int k; };\nint k = 1;\nint main() { return k; }\n"],
            ),
            (
                "template scopes and global qualification are left alone",
                "cpp",
                "template <class T> struct S { static int v; };\nint main() { return S<int>::v + ::f(); }\n",
                UNQUALIFY,
                &[],
            ),
        ]);
    }

    #[test]
    fn nothing_is_offered_in_code_that_does_not_parse() {
        let text = "namespace n { int f() { return ( ; } }\nint main() { return n::f(); }\n";
        assert!(sites_of("cpp", text, REMOVE_NAMESPACE).is_empty());
        let text = "namespace n { int f(); }\nint main() { return n::f() + ( n::f ; }\n";
        let syntax = crate::LoadedGrammar::new(crate::by_name("cpp").unwrap()).unwrap();
        let mut errors = Vec::new();
        crate::rewrites::collect_errors(syntax.parse(text).unwrap().root_node(), &mut errors);
        assert!(!errors.is_empty());
        for site in sites_of("cpp", text, UNQUALIFY) {
            assert!(errors
                .iter()
                .all(|e| e.end <= site.range.start || site.range.end <= e.start));
        }
    }
}
