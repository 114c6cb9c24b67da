//! Variables moved between scopes (clang_delta's `local-to-global`, `param-to-local`,
//! `param-to-global`), for the C-like grammars:
//!
//! - a local variable of a function made a variable at file scope, declared right before the
//!   function, its initialiser left in place as an assignment (`int i = 0;` → `i = 0;`): a
//!   global starts at zero, so the assignment may go next where a local's would leave it
//!   uninitialised (`int main(){int i;for(i=0;;i++);}` → `int i;int main(){for(;;i++);}`);
//! - a parameter made a local of its function (declared first in the body, uninitialised) or a
//!   variable at file scope, its argument dropped from every call and its declaration from every
//!   prototype: the signature shrinks, and what the argument computed may go.
//!
//! Only names that occur nowhere else in the file (no capture, no clash), only functions whose
//! every use is a direct call with one argument per parameter.

use minrepro_text::Site;
use tree_sitter::{Node, Tree};

use super::{
    clean_functions, collect, combined, declarator_leaf, drop_element, named_children,
    only_declarator, Identifiers,
};
use crate::sites::lines_of;

/// Kind of a local variable made global.
pub const LOCAL_TO_GLOBAL: &str = "local-to-global";
/// Kind of a parameter made a local.
pub const PARAM_TO_LOCAL: &str = "param-to-local";
/// Kind of a parameter made global.
pub const PARAM_TO_GLOBAL: &str = "param-to-global";

/// The sites of `tree` (a parse of `text`).
pub fn local_sites(tree: &Tree, text: &str) -> Vec<Site> {
    let root = tree.root_node();
    let identifiers = Identifiers::new(root, text);
    let mut sites = Vec::new();
    for definition in clean_functions(root) {
        let Some(body) = definition.child_by_field_name("body") else {
            continue;
        };
        let declarations = collect(body, |n| n.kind() == "declaration");
        for declaration in declarations {
            sites.extend(local_to_global(declaration, definition, &identifiers, text));
        }
        sites.extend(parameter_sites(definition, &identifiers, text));
    }
    sites
}

/// The name a one-declarator declaration declares and that declarator.
fn single<'t>(declaration: Node<'t>, text: &'t str) -> Option<(&'t str, Node<'t>, Node<'t>)> {
    let declarator = &only_declarator(declaration)?;
    let leaf = declarator_leaf(*declarator, "identifier")?;
    Some((&text[leaf.byte_range()], *declarator, leaf))
}

/// A local declaration of `function` made global, if its name occurs only in `function`.
fn local_to_global(
    declaration: Node<'_>,
    function: Node<'_>,
    identifiers: &Identifiers<'_>,
    text: &str,
) -> Option<Site> {
    // A `for` loop's declaration and a static local stay.
    let parent = declaration.parent()?;
    if parent.kind() != "compound_statement" || text[declaration.byte_range()].contains("static") {
        return None;
    }
    let (name, declarator, _) = single(declaration, text)?;
    if !only_within(identifiers, name, function) {
        return None;
    }
    let (global, local) = match declarator.kind() {
        "init_declarator" => {
            let value = declarator.child_by_field_name("value")?;
            let inner = declarator.child_by_field_name("declarator")?;
            let head = &text[declaration.start_byte()..declarator.start_byte()];
            let global = format!("{head}{};", &text[inner.byte_range()]);
            if value.kind() == "initializer_list" || head.contains("const") {
                // An aggregate's or a constant's initialiser moves with it (valid where it is
                // constant).
                (
                    format!("{};", &text[declaration.start_byte()..value.end_byte()]),
                    String::new(),
                )
            } else {
                (global, format!("{name} = {};", &text[value.byte_range()]))
            }
        }
        _ => (text[declaration.byte_range()].to_owned(), String::new()),
    };
    let at = lines_of(text, function.byte_range()).start;
    let in_place = if local.is_empty() {
        lines_of(text, declaration.byte_range())
    } else {
        declaration.byte_range()
    };
    combined(
        LOCAL_TO_GLOBAL,
        text,
        vec![(at..at, format!("{global}\n")), (in_place, local)],
    )
}

/// Whether every identifier called `name` lies inside `scope`.
fn only_within(identifiers: &Identifiers<'_>, name: &str, scope: Node<'_>) -> bool {
    identifiers.count(name) == identifiers.named_within(name, scope).len()
}

/// For each parameter of `definition`: the parameter made a local, and made global.
fn parameter_sites(definition: Node<'_>, identifiers: &Identifiers<'_>, text: &str) -> Vec<Site> {
    let Some(declarator) = definition.child_by_field_name("declarator") else {
        return Vec::new();
    };
    if declarator.kind() != "function_declarator" {
        return Vec::new();
    }
    let (Some(callee), Some(list), Some(body)) = (
        declarator.child_by_field_name("declarator"),
        declarator.child_by_field_name("parameters"),
        definition.child_by_field_name("body"),
    ) else {
        return Vec::new();
    };
    if callee.kind() != "identifier" {
        return Vec::new();
    }
    let name = &text[callee.byte_range()];
    if name == "main" {
        return Vec::new();
    }
    let parameters: Vec<Node<'_>> = named_children(list)
        .filter(|p| p.kind() == "parameter_declaration")
        .collect();
    // Every use of the function: a call with one argument per parameter, or a prototype's
    // declarator (whose parameter list shrinks too).
    let mut lists = Vec::new();
    for use_ in identifiers.named_within(name, definition.parent().unwrap_or(definition)) {
        if use_.id() == callee.id() {
            continue;
        }
        let parent = match use_.parent() {
            Some(p) => p,
            None => return Vec::new(),
        };
        let list = match parent.kind() {
            "call_expression" if parent.child_by_field_name("function") == Some(use_) => {
                parent.child_by_field_name("arguments")
            }
            "function_declarator" if parent.child_by_field_name("declarator") == Some(use_) => {
                parent.child_by_field_name("parameters")
            }
            _ => None,
        };
        match list {
            Some(list) if named_children(list).count() == parameters.len() => lists.push(list),
            _ => return Vec::new(),
        }
    }
    let mut sites = Vec::new();
    for (index, parameter) in parameters.iter().enumerate() {
        let Some(leaf) = parameter
            .child_by_field_name("declarator")
            .and_then(|d| declarator_leaf(d, "identifier"))
        else {
            continue;
        };
        let variable = &text[leaf.byte_range()];
        // The name occurs only in the function and in the prototypes' parameter lists.
        let inside = identifiers.named_within(variable, definition).len()
            + lists
                .iter()
                .filter(|l| l.kind() == "parameter_list")
                .map(|l| identifiers.named_within(variable, *l).len())
                .sum::<usize>();
        if inside != identifiers.count(variable) {
            continue;
        }
        let declaration = format!("{};", &text[parameter.byte_range()]);
        let mut edits = vec![drop_element(list, index, parameters.len())];
        for list in &lists {
            edits.push(drop_element(*list, index, parameters.len()));
        }
        let open = body.start_byte() + 1;
        let mut local = edits.clone();
        local.push((open..open, format!("\n{declaration}")));
        sites.extend(combined(PARAM_TO_LOCAL, text, local));
        let at = lines_of(text, definition.byte_range()).start;
        let mut global = edits;
        global.push((at..at, format!("{declaration}\n")));
        sites.extend(combined(PARAM_TO_GLOBAL, text, global));
    }
    sites
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rewrites::tests::{check, rewritten, sites_of};

    #[test]
    fn a_local_becomes_global_and_its_initialiser_an_assignment() {
        check(&[
            (
                "a local without an initialiser",
                "c",
                "int main(){int i;for(i=0;;i++);}\n",
                LOCAL_TO_GLOBAL,
                &["int i;\nint main(){for(i=0;;i++);}\n"],
            ),
            (
                "a local with an initialiser",
                "c",
                "int f(void) {\n  long n = 3;\n  return n;\n}\n",
                LOCAL_TO_GLOBAL,
                &["long n;\nint f(void) {\n  n = 3;\n  return n;\n}\n"],
            ),
        ]);
    }

    #[test]
    fn no_local_moves_whose_name_occurs_elsewhere() {
        let text = "int i;\nint f(void) { int i = 2; return i; }\nint g(void) { int j; int k, l; return 0; }\n";
        let moved = rewritten(text, LOCAL_TO_GLOBAL);
        // Only `j`: `i` clashes, `k, l` are two declarators.
        assert_eq!(moved.len(), 1);
        assert!(moved[0].starts_with("int i;\nint f(void) { int i = 2; return i; }\nint j;\n"));
    }

    #[test]
    fn a_parameter_becomes_a_local_or_a_global_and_calls_lose_its_argument() {
        let text = "int f(int a, int b);\nint f(int a, int b) { return a + b; }\nint main(void) { return f(1, 2); }\n";
        let local = rewritten(text, PARAM_TO_LOCAL);
        assert_eq!(
            local[0],
            "int f(int b);\nint f(int b) {\nint a; return a + b; }\nint main(void) { return f(2); }\n"
        );
        assert_eq!(
            local[1],
            "int f(int a);\nint f(int a) {\nint b; return a + b; }\nint main(void) { return f(1); }\n"
        );
        let global = rewritten(text, PARAM_TO_GLOBAL);
        assert_eq!(
            global[0],
            "int f(int b);\nint a;\nint f(int b) { return a + b; }\nint main(void) { return f(2); }\n"
        );
        let one = "int g(int v) { return v; }\nint main(void) { return g(3); }\n";
        assert_eq!(
            rewritten(one, PARAM_TO_LOCAL),
            ["int g(void) {\nint v; return v; }\nint main(void) { return g(); }\n"]
        );
    }

    #[test]
    fn no_parameter_moves_when_the_function_is_used_otherwise_or_in_broken_code() {
        let taken =
            "int f(int a) { return a; }\nint (*p)(int) = f;\nint main(void) { return f(1); }\n";
        assert!(rewritten(taken, PARAM_TO_LOCAL).is_empty());
        let main = "int main(int argc, char **argv) { return argc; }\n";
        assert!(rewritten(main, PARAM_TO_LOCAL).is_empty());
        let broken = "int f(int a) { return a +; }\nint main(void) { int q; return f(1); }\n";
        assert!(sites_of("c", broken, PARAM_TO_LOCAL).is_empty());
        assert_eq!(sites_of("c", broken, LOCAL_TO_GLOBAL).len(), 1);
    }
}
