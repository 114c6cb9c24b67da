//! Templates simplified (clang_delta's `reduce-class-template-param`,
//! `template-arg-to-int`'s cousin and `instantiate-template-param`): a template parameter taken
//! out, its uses in the template made its default (or `int` for a type, `1` for a value) and
//! the matching argument dropped from every use of the template; and a template instantiated
//! when every use of it names the same arguments (`template <class T> struct B { T v; };`
//! used only as `B<long>` → `struct B { long v; };`, used as `B`). Only templates declared
//! once (no specialisation, no second declaration), only uses that spell their arguments.

use std::collections::HashMap;
use std::ops::Range;

use minrepro_text::Site;
use tree_sitter::{Node, Tree};

use super::{clean_of_kind, collect, combined, drop_element, list_elements, named_children};

/// Kind of a template parameter taken out.
pub const REMOVE_TEMPLATE_PARAM: &str = "remove-template-param";
/// Kind of a template instantiated with the one argument list its uses have.
pub const INSTANTIATE: &str = "instantiate-template";

/// A template's parameter: its name and what replaces its uses once it goes.
struct Parameter<'t> {
    name: &'t str,
    replacement: String,
}

/// The sites of `tree` (a parse of `text`).
pub fn template_sites(tree: &Tree, text: &str) -> Vec<Site> {
    let root = tree.root_node();
    let templates = clean_of_kind(root, "template_declaration");
    // Every name leaf by text: uses of templates and of parameters.
    let leaves = collect(root, |n| {
        n.child_count() == 0 && n.is_named() && n.kind().ends_with("identifier")
    });
    let mut by_name: HashMap<&str, Vec<Node<'_>>> = HashMap::new();
    for leaf in leaves {
        by_name
            .entry(&text[leaf.byte_range()])
            .or_default()
            .push(leaf);
    }
    let mut declared: HashMap<&str, usize> = HashMap::new();
    let entries: Vec<(Node<'_>, &str)> = templates
        .iter()
        .filter_map(|t| Some((*t, declared_name(*t, text)?)))
        .collect();
    for (_, name) in &entries {
        *declared.entry(name).or_default() += 1;
    }
    let mut sites = Vec::new();
    for (template, name) in entries {
        if declared[name] != 1 {
            continue;
        }
        let (Some(list), Some(item)) = (
            template.child_by_field_name("parameters"),
            named_children(template).last(),
        ) else {
            continue;
        };
        let parameters: Option<Vec<Parameter<'_>>> =
            named_children(list).map(|p| parameter(p, text)).collect();
        let Some(parameters) = parameters else {
            continue;
        };
        // Every use outside the template's own name: `X<args>`, each with its argument list.
        let mut uses = Vec::new();
        let mut plain = true;
        for leaf in &by_name[name] {
            if item.byte_range().contains(&leaf.start_byte()) && declares(*leaf) {
                continue;
            }
            match leaf.parent().filter(|p| {
                matches!(p.kind(), "template_type" | "template_function")
                    && p.child_by_field_name("name") == Some(*leaf)
            }) {
                Some(use_) => uses.extend(use_.child_by_field_name("arguments").map(|a| (use_, a))),
                None => plain = false,
            }
        }
        if !plain {
            continue;
        }
        let inside = |p: &Parameter<'_>| -> Vec<Range<usize>> {
            by_name
                .get(p.name)
                .into_iter()
                .flatten()
                .filter(|l| item.byte_range().contains(&l.start_byte()))
                .map(|l| l.byte_range())
                .collect()
        };
        if parameters.len() > 1 {
            for (index, parameter) in parameters.iter().enumerate() {
                let mut edits = vec![drop_element(list, index, list_elements(list).len())];
                edits.extend(
                    inside(parameter)
                        .into_iter()
                        .map(|r| (r, parameter.replacement.clone())),
                );
                for (_, arguments) in &uses {
                    if named_children(*arguments).count() == parameters.len() {
                        edits.push(drop_element(
                            *arguments,
                            index,
                            list_elements(*arguments).len(),
                        ));
                    }
                }
                sites.extend(combined(REMOVE_TEMPLATE_PARAM, text, edits));
            }
        }
        // One argument list for every use: the template made that instance.
        let spelled: Vec<&str> = uses.iter().map(|(_, a)| &text[a.byte_range()]).collect();
        if let Some(first) = spelled.first().filter(|f| spelled.iter().all(|s| s == *f)) {
            let (_, arguments) = uses[0];
            let values: Vec<&str> = named_children(arguments)
                .map(|a| &text[a.byte_range()])
                .collect();
            if values.len() != parameters.len() || first.contains(name) {
                continue;
            }
            let mut edits = vec![(template.start_byte()..item.start_byte(), String::new())];
            for (parameter, value) in parameters.iter().zip(&values) {
                edits.extend(
                    inside(parameter)
                        .into_iter()
                        .map(|r| (r, value.to_string())),
                );
            }
            for (_, arguments) in &uses {
                edits.push((arguments.byte_range(), String::new()));
            }
            sites.extend(combined(INSTANTIATE, text, edits));
        }
    }
    sites
}

/// Whether a name leaf is where its item declares it (a class's `name`, a function's
/// declarator).
fn declares(leaf: Node<'_>) -> bool {
    leaf.parent().is_some_and(|p| {
        p.child_by_field_name("name") == Some(leaf) && p.kind().ends_with("_specifier")
            || p.kind() == "function_declarator"
                && p.child_by_field_name("declarator") == Some(leaf)
    })
}

/// The name of the class or function a template declares.
fn declared_name<'t>(template: Node<'_>, text: &'t str) -> Option<&'t str> {
    let item = named_children(template).last()?;
    let leaf = match item.kind() {
        // A specialisation (`struct S<T, int>`) declares `S` again.
        "class_specifier" | "struct_specifier" | "union_specifier" => {
            let name = item.child_by_field_name("name")?;
            match name.kind() {
                "template_type" => name.child_by_field_name("name")?,
                _ => name,
            }
        }
        "function_definition" | "declaration" => {
            let declarator = item.child_by_field_name("declarator")?;
            if declarator.kind() != "function_declarator" {
                return None;
            }
            declarator.child_by_field_name("declarator")?
        }
        _ => return None,
    };
    matches!(leaf.kind(), "type_identifier" | "identifier").then(|| &text[leaf.byte_range()])
}

/// A template parameter and what replaces its uses: its default, else `int` for a type and
/// `1` for a value (`None`: a kind not handled, a pack or a template template parameter).
fn parameter<'t>(node: Node<'t>, text: &'t str) -> Option<Parameter<'t>> {
    let (name, replacement) = match node.kind() {
        "type_parameter_declaration" => (named_children(node).last()?, "int".to_owned()),
        "optional_type_parameter_declaration" => (
            node.child_by_field_name("name")?,
            text[node.child_by_field_name("default_type")?.byte_range()].to_owned(),
        ),
        "parameter_declaration" => (node.child_by_field_name("declarator")?, "1".to_owned()),
        "optional_parameter_declaration" => (
            node.child_by_field_name("declarator")?,
            format!(
                "({})",
                &text[node.child_by_field_name("default_value")?.byte_range()]
            ),
        ),
        _ => return None,
    };
    matches!(name.kind(), "type_identifier" | "identifier").then(|| Parameter {
        name: &text[name.byte_range()],
        replacement,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rewrites::tests::{check, sites_of};

    #[test]
    fn a_parameter_goes_with_its_arguments_and_its_uses_take_the_default() {
        check(&[(
            "a type parameter and a value parameter with a default",
            "cpp",
            "template <typename T, int N = 4>\nstruct Box { T items[N]; };\nBox<long, 4> a;\nBox<char, 4> b;\n",
            REMOVE_TEMPLATE_PARAM,
            &[
                "template <int N = 4>\nstruct Box { int items[N]; };\nBox<4> a;\nBox<4> b;\n",
                "template <typename T>\nstruct Box { T items[(4)]; };\nBox<long> a;\nBox<char> b;\n",
            ],
        )]);
    }

    #[test]
    fn a_template_used_with_one_argument_list_is_instantiated() {
        check(&[
            (
                "a class template",
                "cpp",
                "template <class T> struct B { T v; T get() const { return v; } };\nB<long> x;\nlong f(B<long> b) { return b.get(); }\n",
                INSTANTIATE,
                &["struct B { long v; long get() const { return v; } };\nB x;\nlong f(B b) { return b.get(); }\n"],
            ),
            (
                "a function template",
                "cpp",
                "template <class T> T twice(T v) { return v + v; }\nint main() { return twice<int>(2); }\n",
                INSTANTIATE,
                &["int twice(int v) { return v + v; }\nint main() { return twice(2); }\n"],
            ),
        ]);
    }

    #[test]
    fn no_site_for_specialised_or_deduced_templates_or_broken_code() {
        let specialised = "template <class T, class U> struct S {};\ntemplate <class T> struct S<T, int> {};\nS<int, int> s;\n";
        assert!(sites_of("cpp", specialised, REMOVE_TEMPLATE_PARAM).is_empty());
        let deduced =
            "template <class T> T twice(T v) { return v + v; }\nint main() { return twice(2); }\n";
        assert!(sites_of("cpp", deduced, INSTANTIATE).is_empty());
        let broken = "template <class T, class U> struct S { T x +; };\nS<int, int> s;\n";
        assert!(sites_of("cpp", broken, REMOVE_TEMPLATE_PARAM).is_empty());
    }
}
