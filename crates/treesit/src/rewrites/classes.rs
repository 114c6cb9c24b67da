//! Classes simplified (clang_delta's `remove-base-class`, `empty-struct-to-int`'s neighbours,
//! and C-Vise's body emptying): one base class taken out of a class's base clause
//! (`struct D : A, B {` → `struct D : B {`, the clause gone with its last base), and a function
//! body made `{}` (a method's or a function's: the declaration stays a definition, so what
//! needs one, a virtual method's final overrider or an inline function, still has it). The
//! members themselves go with the syntax group's deletions, and a body becomes `;` in the
//! coarse group.

use std::ops::Range;

use minrepro_text::Site;
use tree_sitter::{Node, Tree};

use super::clean_of_kind;

/// Kind of a base class taken out.
pub const REMOVE_BASE: &str = "remove-base-class";
/// Kind of a function body made empty.
pub const EMPTY_BODY: &str = "empty-body";

/// The sites of `tree` (a parse of `text`).
pub fn class_sites(tree: &Tree, text: &str) -> Vec<Site> {
    let root = tree.root_node();
    let clauses = clean_of_kind(root, "base_class_clause");
    let mut sites: Vec<Site> = clauses
        .into_iter()
        .flat_map(|clause| base_sites(clause, text))
        .collect();
    let bodies = clean_of_kind(root, "function_definition");
    for definition in bodies {
        let Some(body) = definition.child_by_field_name("body") else {
            continue;
        };
        let empty = text[body.byte_range()]
            .trim_start_matches('{')
            .trim_end_matches('}')
            .trim()
            .is_empty();
        if body.kind() == "compound_statement" && !empty {
            sites.push(Site {
                kind: EMPTY_BODY,
                range: body.byte_range(),
                replacement: "{}".to_owned(),
            });
        }
    }
    sites
}

/// One site per base of a base clause (`: public A, B`), removing it with its comma, or the
/// whole clause with its last base.
fn base_sites(clause: Node<'_>, text: &str) -> Vec<Site> {
    // Each base: from its first token (an access specifier, `virtual`) to its type's end.
    let mut bases: Vec<Range<usize>> = Vec::new();
    let mut start: Option<usize> = None;
    let mut cursor = clause.walk();
    for child in clause.children(&mut cursor) {
        match child.kind() {
            ":" => {}
            "," => start = None,
            _ if child.is_extra() => {}
            _ => {
                let from = *start.get_or_insert(child.start_byte());
                if child.is_named() && child.kind() != "access_specifier" {
                    bases.push(from..child.end_byte());
                }
            }
        }
    }
    if bases.len() == 1 {
        // The clause with the blanks before it: `struct D : B {` → `struct D {`.
        let before = text[..clause.start_byte()].trim_end().len();
        return vec![Site {
            kind: REMOVE_BASE,
            range: before..clause.end_byte(),
            replacement: String::new(),
        }];
    }
    (0..bases.len())
        .map(|i| {
            let range = if i + 1 < bases.len() {
                bases[i].start..bases[i + 1].start
            } else {
                bases[i - 1].end..bases[i].end
            };
            Site {
                kind: REMOVE_BASE,
                range,
                replacement: String::new(),
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rewrites::tests::check;

    #[test]
    fn each_base_goes_alone_and_the_clause_with_the_last() {
        check(&[
            (
                "each of two bases alone, a lone base with its clause",
                "cpp",
                "struct A {};\nstruct B {};\nstruct D : public A, virtual B { int x; };\nstruct E : A {};\n",
                REMOVE_BASE,
                &[
                    "struct A {};\nstruct B {};\nstruct D : virtual B { int x; };\nstruct E : A {};\n",
                    "struct A {};\nstruct B {};\nstruct D : public A { int x; };\nstruct E : A {};\n",
                    "struct A {};\nstruct B {};\nstruct D : public A, virtual B { int x; };\nstruct E {};\n",
                ],
            ),
            (
                "a template's base",
                "cpp",
                "template <class T> struct L : L<T*> { };\n",
                REMOVE_BASE,
                &["template <class T> struct L { };\n"],
            ),
        ]);
    }

    #[test]
    fn bodies_become_empty_unless_they_are() {
        check(&[
            (
                "a method's body and a function's, not an empty one",
                "cpp",
                "struct S { int f() { return 1; } void g() {} };\nint h(int a) { return a; }\n",
                EMPTY_BODY,
                &[
                    "struct S { int f() {} void g() {} };\nint h(int a) { return a; }\n",
                    "struct S { int f() { return 1; } void g() {} };\nint h(int a) {}\n",
                ],
            ),
            (
                "a C function's body",
                "c",
                "int h(int a) { return a; }\n",
                EMPTY_BODY,
                &["int h(int a) {}\n"],
            ),
        ]);
        let broken = "int h(int a) { return a +; }\n";
        assert!(crate::rewrites::tests::sites_of("c", broken, EMPTY_BODY).is_empty());
    }
}
