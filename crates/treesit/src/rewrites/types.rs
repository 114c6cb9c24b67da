//! Types simplified (clang_delta's `replace-simple-typedef`/`reduce-class-template-param`'s
//! cousin, C-Vise's `int` replacements, and `return-void`): every use of one type name made
//! `int` at once (`Point p` → `int p`, `std::vector<T> v` → `int v` for a template's uses), its
//! definition left for the deletions; a multi-word primitive type made `int` (`unsigned long`);
//! and a function's return value taken away: its type made `void`, each `return e;` made
//! `return;`, when no call uses the value (every call is a statement of its own).

use std::collections::BTreeMap;
use std::ops::Range;

use minrepro_text::Site;
use tree_sitter::{Node, Tree};

use super::{collect, combined, named_children, Identifiers};

/// Kind of every use of a type made `int`.
pub const TYPE_TO_INT: &str = "type-to-int";
/// Kind of a function's return value taken away.
pub const RETURN_VOID: &str = "return-void";

/// Fields of declarations and parameters that hold a type.
const TYPE_FIELD: &str = "type";

/// The sites of `tree` (a parse of `text`).
pub fn type_sites(tree: &Tree, text: &str) -> Vec<Site> {
    let root = tree.root_node();
    let holders = collect(root, |n| {
        n.child_by_field_name(TYPE_FIELD).is_some() && !n.has_error()
    });
    // Each written type (its text) → the ranges it is used at.
    let mut uses: BTreeMap<&str, Vec<Range<usize>>> = BTreeMap::new();
    for holder in holders {
        let Some(written) = holder.child_by_field_name(TYPE_FIELD) else {
            continue;
        };
        let replaceable = matches!(
            written.kind(),
            "type_identifier" | "template_type" | "qualified_identifier" | "sized_type_specifier"
        ) || (matches!(
            written.kind(),
            "struct_specifier" | "union_specifier" | "enum_specifier" | "class_specifier"
        ) && written.child_by_field_name("body").is_none());
        let text_of = &text[written.byte_range()];
        if replaceable && text_of != "int" && !text_of.contains('\n') {
            uses.entry(text_of).or_default().push(written.byte_range());
        }
    }
    let mut sites: Vec<Site> = uses
        .into_values()
        .filter_map(|ranges| {
            let edits = ranges.into_iter().map(|r| (r, "int".to_owned())).collect();
            combined(TYPE_TO_INT, text, edits)
        })
        .collect();
    let identifiers = Identifiers::new(root, text);
    for definition in named_children(root) {
        if definition.kind() == "function_definition" && !definition.has_error() {
            sites.extend(return_void(definition, &identifiers, text));
        }
    }
    sites
}

/// `definition`'s return value taken away, if it has one and no call uses it.
fn return_void(definition: Node<'_>, identifiers: &Identifiers<'_>, text: &str) -> Option<Site> {
    let written = definition.child_by_field_name(TYPE_FIELD)?;
    let declarator = definition.child_by_field_name("declarator")?;
    // A pointer or reference return is in the declarator: `int *f()`.
    if declarator.kind() != "function_declarator" || &text[written.byte_range()] == "void" {
        return None;
    }
    let callee = declarator.child_by_field_name("declarator")?;
    let name = &text[callee.byte_range()];
    if callee.kind() != "identifier" || name == "main" {
        return None;
    }
    let mut edits = vec![(written.byte_range(), "void".to_owned())];
    for use_ in identifiers.named_within(name, definition.parent()?) {
        if use_.id() == callee.id() {
            continue;
        }
        let call = use_.parent()?;
        let statement = call.parent()?;
        let ignored =
            call.kind() == "call_expression" && statement.kind() == "expression_statement";
        // A prototype (`int f(int);`) is made `void` too.
        let prototype = (call.kind() == "function_declarator")
            .then(|| statement.child_by_field_name(TYPE_FIELD))
            .flatten();
        match prototype {
            Some(written) => edits.push((written.byte_range(), "void".to_owned())),
            None if ignored => {}
            None => return None,
        }
    }
    let returns = collect(definition.child_by_field_name("body")?, |n| {
        n.kind() == "return_statement"
    });
    for statement in returns {
        if statement.named_child_count() > 0 {
            edits.push((statement.byte_range(), "return;".to_owned()));
        }
    }
    combined(RETURN_VOID, text, edits)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rewrites::tests::check;

    #[test]
    fn every_use_of_a_type_becomes_int() {
        check(&[
            (
                "a struct's uses, and a multi-word primitive type",
                "c",
                "struct P { int x; };\nstruct P make(struct P p, unsigned long n) { struct P q = p; return q; }\n",
                TYPE_TO_INT,
                &[
                    "struct P { int x; };\nint make(int p, unsigned long n) { int q = p; return q; }\n",
                    "struct P { int x; };\nstruct P make(struct P p, int n) { struct P q = p; return q; }\n",
                ],
            ),
            (
                "a template's uses",
                "cpp",
                "#include <vector>\nstd::vector<int> v;\nint f(std::vector<int> w) { return 0; }\n",
                TYPE_TO_INT,
                &["#include <vector>\nint v;\nint f(int w) { return 0; }\n"],
            ),
        ]);
    }

    #[test]
    fn a_value_no_call_uses_is_taken_away() {
        check(&[
            (
                "a value only statements call for, with its prototype",
                "c",
                "int f(int a);\nint f(int a) { if (a) return a + 1; return 2; }\nint main(void) { f(1); return 0; }\n",
                RETURN_VOID,
                &["void f(int a);\nvoid f(int a) { if (a) return; return; }\nint main(void) { f(1); return 0; }\n"],
            ),
            (
                "a value a call uses stays",
                "c",
                "int f(int a) { return a; }\nint main(void) { return f(1); }\n",
                RETURN_VOID,
                &[],
            ),
        ]);
        let broken = "int f(int a) { return a +; }\nint main(void) { f(1); return 0; }\n";
        assert!(crate::rewrites::tests::sites_of("c", broken, RETURN_VOID).is_empty());
    }
}
