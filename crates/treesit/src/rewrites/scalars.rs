//! An aggregate variable made scalars (clang_delta's aggregate-to-scalar): when every use of a
//! struct variable names a field (`v.f`), of an array of structs an element's field
//! (`a[i].f`), or of an array of scalars an element (`a[i]`), the variable's declaration
//! becomes one scalar per field used (`long a_f;`, the field's own declarator renamed) and
//! every access that scalar (a struct of one field also where it is used whole, as a value:
//! `printf("%ld", v)` → `printf("%ld", v_f)`); when every use of an array indexes it, the array becomes one
//! element (`struct account a_0;`, `a[i]` → `a_0`). The elements of an array become one: a
//! reduction may merge them
//! where the predicate does not tell them apart (a program that prints one account of an
//! array of accounts needs one scalar: `accounts[bank].balance` → `accounts_0_0`, as C-Vise's
//! results have it).

use std::collections::HashSet;
use std::ops::Range;

use minrepro_text::Site;
use tree_sitter::{Node, Tree};

use super::{collect, combined, declarator_leaf, named_children, only_declarator, Identifiers};

/// Kind of the scalarisation of an aggregate variable.
pub const SCALARIZE: &str = "scalarize";

/// The sites of every aggregate variable of `tree` (a parse of `text`) whose uses all name a
/// field or index the array.
pub fn scalar_sites(tree: &Tree, text: &str) -> Vec<Site> {
    let root = tree.root_node();
    let declarations = collect(root, |n| n.kind() == "declaration");
    let leaves = collect(root, |n| n.child_count() == 0 && n.is_named());
    let taken: HashSet<&str> = leaves.iter().map(|n| &text[n.byte_range()]).collect();
    let identifiers = Identifiers::new(root, text);
    declarations
        .into_iter()
        .flat_map(|declaration| scalarize(declaration, root, &identifiers, &taken, text))
        .collect()
}

/// The sites making `declaration`'s variable scalars, if its uses allow it: one scalar per
/// field when every use names a field, else one element when every use indexes the array.
fn scalarize(
    declaration: Node<'_>,
    root: Node<'_>,
    identifiers: &Identifiers<'_>,
    taken: &HashSet<&str>,
    text: &str,
) -> Vec<Site> {
    let Some(variable) = Variable::of(declaration, root, text) else {
        return Vec::new();
    };
    let mut sites = Vec::new();
    // Each access (the indexing, if an array) of the variable.
    let mut bases = Vec::new();
    for use_ in identifiers.named_within(variable.name, variable.scope) {
        if use_.id() == variable.node.id() {
            continue;
        }
        let indexed = use_.parent().filter(|p| {
            p.kind() == "subscript_expression" && p.child_by_field_name("argument") == Some(use_)
        });
        match (variable.array, indexed) {
            (false, _) => bases.push(use_),
            (true, Some(indexing)) => bases.push(indexing),
            (true, None) => return Vec::new(),
        }
    }
    if bases.is_empty() {
        return Vec::new();
    }
    if let Some(body) = variable.fields {
        let only = only_field(body, text);
        let named_fields: Option<Vec<(Range<usize>, &str)>> = bases
            .iter()
            .map(|base| field_access(*base, text).or_else(|| whole_use(*base, only?)))
            .collect();
        let site = named_fields.and_then(|accesses| {
            let declare = |field: &str, scalar: &str| field_declaration(body, field, scalar, text);
            variable.site(&accesses, declare, taken, text)
        });
        sites.extend(site);
    }
    if variable.array {
        let accesses: Vec<(Range<usize>, &str)> =
            bases.iter().map(|b| (b.byte_range(), "")).collect();
        let element = &text[variable.element_type.byte_range()];
        let declare = |_: &str, scalar: &str| Some(format!("{element} {scalar};"));
        sites.extend(variable.site(&accesses, declare, taken, text));
    }
    sites
}

/// A variable declared alone in its declaration, with what scalarising it needs.
struct Variable<'t> {
    declaration: Node<'t>,
    /// Its name in the declarator.
    node: Node<'t>,
    name: &'t str,
    array: bool,
    element_type: Node<'t>,
    /// The field list of its (element) struct type, if the text defines it.
    fields: Option<Node<'t>>,
    /// Where its uses are: the whole text, or the block it is declared in.
    scope: Node<'t>,
}

impl<'t> Variable<'t> {
    /// `declaration`'s variable, if it declares one plain or one-dimensional array variable
    /// (no initializer) whose type a scalar can take.
    fn of(declaration: Node<'t>, root: Node<'t>, text: &'t str) -> Option<Variable<'t>> {
        if declaration.has_error() {
            return None;
        }
        let declarator = &only_declarator(declaration)?;
        let (node, array) = match declarator.kind() {
            "identifier" => (*declarator, false),
            "array_declarator" => {
                let inner = declarator.child_by_field_name("declarator")?;
                (inner.kind() == "identifier").then_some((inner, true))?
            }
            _ => return None,
        };
        let element_type = declaration.child_by_field_name("type")?;
        let fields = struct_body(element_type, root, text);
        if fields.is_none() && !array {
            return None;
        }
        let scope = match declaration.parent()?.kind() {
            "translation_unit" => root,
            "compound_statement" => declaration.parent()?,
            _ => return None,
        };
        Some(Variable {
            declaration,
            node,
            name: &text[node.byte_range()],
            array,
            element_type,
            fields,
            scope,
        })
    }

    /// The site replacing each access (range, field or "") by the scalar of its field, and
    /// the declaration by the scalars' (`declare(field, scalar)`), under names the text does
    /// not have (`a_field`, `a_0` for an element).
    fn site(
        &self,
        accesses: &[(Range<usize>, &str)],
        declare: impl Fn(&str, &str) -> Option<String>,
        taken: &HashSet<&str>,
        text: &str,
    ) -> Option<Site> {
        let mut scalars: Vec<(&str, String)> = Vec::new();
        for &(_, field) in accesses {
            if scalars.iter().any(|(f, _)| *f == field) {
                continue;
            }
            let base = if field.is_empty() {
                format!("{}_0", self.name)
            } else {
                format!("{}_{field}", self.name)
            };
            let fresh = (0..)
                .map(|n| match n {
                    0 => base.clone(),
                    n => format!("{base}{n}"),
                })
                .find(|c| !taken.contains(c.as_str()) && scalars.iter().all(|(_, s)| s != c))?;
            scalars.push((field, fresh));
        }
        // Storage class and qualifiers stay (`static`).
        let prefix = &text[self.declaration.start_byte()..self.element_type.start_byte()];
        let declared: Option<Vec<String>> = scalars
            .iter()
            .map(|(field, scalar)| Some(format!("{prefix}{}", declare(field, scalar)?)))
            .collect();
        let mut edits = vec![(self.declaration.byte_range(), declared?.join("\n"))];
        for (range, field) in accesses {
            let scalar = &scalars.iter().find(|(f, _)| f == field)?.1;
            edits.push((range.clone(), scalar.clone()));
        }
        combined(SCALARIZE, text, edits)
    }
}

/// The access `base.field` and its field, if `base` is the object of a `.` access.
fn field_access<'t>(base: Node<'_>, text: &'t str) -> Option<(Range<usize>, &'t str)> {
    let parent = base.parent()?;
    let dotted = parent.kind() == "field_expression"
        && parent.child_by_field_name("argument") == Some(base)
        && parent.child_by_field_name("operator")?.kind() == ".";
    let field = parent.child_by_field_name("field")?;
    dotted.then(|| (parent.byte_range(), &text[field.byte_range()]))
}

/// The name of the one field of the struct `body`, if it has exactly one.
fn only_field<'t>(body: Node<'_>, text: &'t str) -> Option<&'t str> {
    let mut names = Vec::new();
    for declaration in named_children(body).filter(|n| n.kind() == "field_declaration") {
        let mut cursor = declaration.walk();
        for declarator in declaration.children_by_field_name("declarator", &mut cursor) {
            names.push(&text[declarator_leaf(declarator, "field_identifier")?.byte_range()]);
        }
    }
    match names.as_slice() {
        [only] => Some(*only),
        _ => None,
    }
}

/// `base` used whole as a value (`printf("%ld", v)`), standing for the one field `only` of
/// its struct: a struct of one field holds just that value (passed, assigned, printed alike),
/// but not where its address is taken or a field named.
fn whole_use<'t>(base: Node<'_>, only: &'t str) -> Option<(Range<usize>, &'t str)> {
    let parent = base.parent()?;
    let addressed = matches!(parent.kind(), "pointer_expression" | "field_expression");
    (!addressed).then(|| (base.byte_range(), only))
}

/// The field list of the struct `specifier` names (its own body, or the body of a struct of
/// that name defined in the text), if it is a struct.
fn struct_body<'t>(specifier: Node<'t>, root: Node<'t>, text: &str) -> Option<Node<'t>> {
    if specifier.kind() != "struct_specifier" {
        return None;
    }
    if let Some(body) = specifier.child_by_field_name("body") {
        return Some(body);
    }
    let name = &text[specifier.child_by_field_name("name")?.byte_range()];
    let definitions = collect(root, |n| {
        n.kind() == "struct_specifier"
            && n.child_by_field_name("body").is_some()
            && n.child_by_field_name("name").map(|m| &text[m.byte_range()]) == Some(name)
    });
    definitions.first()?.child_by_field_name("body")
}

/// The declaration of `field` of the struct `body` as a variable named `scalar` (`char
/// name[16];` → `char a_name[16];`).
fn field_declaration(body: Node<'_>, field: &str, scalar: &str, text: &str) -> Option<String> {
    for declaration in named_children(body).filter(|n| n.kind() == "field_declaration") {
        let mut cursor = declaration.walk();
        let declarators: Vec<Node<'_>> = declaration
            .children_by_field_name("declarator", &mut cursor)
            .collect();
        for declarator in &declarators {
            let Some(name) = declarator_leaf(*declarator, "field_identifier") else {
                continue;
            };
            if &text[name.byte_range()] != field {
                continue;
            }
            let type_text = text[declaration.start_byte()..declarators[0].start_byte()].trim_end();
            let before = &text[declarator.start_byte()..name.start_byte()];
            let after = &text[name.end_byte()..declarator.end_byte()];
            return Some(format!("{type_text} {before}{scalar}{after};"));
        }
    }
    None
}
