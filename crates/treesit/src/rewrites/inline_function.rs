//! A function inlined into its calls (clang_delta's simple inliner, as C-Reduce and C-Vise use
//! it), for the C-like grammars ([`Grammar::rewrites`]): one site per function whose every use
//! is a call that can take its body, replacing the definition and every call at once.
//!
//! A call `x -= fee(p.amount);` of `long fee(long amount) { long f = amount / 100; return f; }`
//! becomes `long f = p.amount / 100; x -= f;`: the body's statements go right before the
//! statement of the call (in braces when that statement is not in a block), the parameters are
//! replaced by the arguments (in parentheses unless they are primary expressions) and the call
//! by the returned expression. A parameter that the body assigns, or whose argument has side
//! effects and is used twice, becomes a local initialised with its argument instead. Only
//! bodies whose one `return` is their last statement (or that return nothing, called as a
//! statement), only calls in expression statements, declarations, `return`s and `if`
//! conditions (a loop's condition runs more than once), and no function whose locals would
//! clash with the names of a caller. Deleting the definition is what makes the site smaller:
//! removals and hoistings cannot take a function's header away while its body is needed.

use std::collections::HashSet;
use std::ops::Range;

use minrepro_text::Site;
use tree_sitter::{Node, Tree};

use super::{
    clean_functions, collect, combined, declarators, declared_name, named, named_children, within,
    Identifiers,
};
use crate::sites::lines_of;

/// Kind of the inlining of a function into all its calls.
pub const INLINE: &str = "inline-function";

/// Expression kinds that need no parentheses where an argument or a returned value goes.
const PRIMARY: [&str; 11] = [
    "identifier",
    "number_literal",
    "string_literal",
    "char_literal",
    "true",
    "false",
    "null",
    "field_expression",
    "subscript_expression",
    "call_expression",
    "parenthesized_expression",
];

/// Kinds the nearest statement around a call may have for the call to be inlined.
const HOSTS: [&str; 4] = [
    "expression_statement",
    "declaration",
    "return_statement",
    "if_statement",
];

/// One site per function of `tree` (a parse of `text`) that can be inlined into all its calls.
pub fn inline_sites(tree: &Tree, text: &str) -> Vec<Site> {
    let root = tree.root_node();
    let identifiers = Identifiers::new(root, text);
    let mut sites = Vec::new();
    for definition in clean_functions(root) {
        if let Some(site) = inline_function(definition, &identifiers, text) {
            sites.push(site);
        }
    }
    sites
}

/// A function's parts that inlining needs.
struct Function<'t> {
    name: &'t str,
    /// Each parameter: its declaration's text and its name.
    parameters: Vec<(&'t str, &'t str)>,
    body: Node<'t>,
    /// The `return` that ends the body, if any.
    returned: Option<Node<'t>>,
    /// Names the body declares.
    locals: HashSet<&'t str>,
    /// Every identifier text of the body.
    mentioned: HashSet<&'t str>,
}

/// The site inlining `definition` into its calls, if every use of its name allows it.
fn inline_function<'t>(
    definition: Node<'t>,
    identifiers: &Identifiers<'t>,
    text: &'t str,
) -> Option<Site> {
    let function = function(definition, text)?;
    let mut calls = Vec::new();
    let root = definition.parent()?;
    for use_ in identifiers.named_within(function.name, root) {
        if within(use_, definition) {
            continue;
        }
        let parent = use_.parent()?;
        if parent.kind() == "call_expression"
            && parent.child_by_field_name("function") == Some(use_)
        {
            calls.push(parent);
        } else if !is_prototype(parent) {
            return None;
        }
    }
    if calls.is_empty() {
        return None;
    }
    let mut edits = vec![(lines_of(text, definition.byte_range()), String::new())];
    for &call in &calls {
        edits.push(inline_call(&function, call, calls.len(), text)?);
    }
    // Two calls with preludes in one statement, or a call in another's arguments, overlap:
    // no site.
    combined(INLINE, text, edits)
}

/// `definition`'s name, parameters, body and locals, if it is a function inlining handles.
fn function<'t>(definition: Node<'t>, text: &'t str) -> Option<Function<'t>> {
    let mut declarator = definition.child_by_field_name("declarator")?;
    while declarator.kind() == "pointer_declarator" {
        declarator = declarator.child_by_field_name("declarator")?;
    }
    if declarator.kind() != "function_declarator" {
        return None;
    }
    let name = declarator.child_by_field_name("declarator")?;
    if name.kind() != "identifier" {
        return None;
    }
    let mut parameters = Vec::new();
    for parameter in named_children(declarator.child_by_field_name("parameters")?) {
        if parameter.kind() == "comment" {
            continue;
        }
        if parameter.kind() != "parameter_declaration" {
            return None;
        }
        let Some(declarator) = parameter.child_by_field_name("declarator") else {
            // `(void)`.
            continue;
        };
        parameters.push((
            &text[parameter.byte_range()],
            declared_name(declarator, text)?,
        ));
    }
    let body = definition.child_by_field_name("body")?;
    let returns = collect(body, |n| n.kind() == "return_statement");
    let jumps = collect(body, |n| {
        matches!(n.kind(), "labeled_statement" | "goto_statement")
    });
    let last = named_children(body)
        .filter(|n| n.kind() != "comment")
        .last();
    let returned = match returns.as_slice() {
        [] => None,
        [only] if Some(*only) == last => Some(*only),
        _ => return None,
    };
    if !jumps.is_empty() {
        return None;
    }
    let mut mentioned = HashSet::new();
    let names = collect(body, |n| n.kind() == "identifier");
    for node in &names {
        mentioned.insert(&text[node.byte_range()]);
    }
    if mentioned.contains(&text[name.byte_range()]) {
        return None;
    }
    let locals = declarators(body, &["declaration"])
        .into_iter()
        .map(|d| declared_name(d, text))
        .collect::<Option<HashSet<&str>>>()?;
    Some(Function {
        name: &text[name.byte_range()],
        parameters,
        body,
        returned,
        locals,
        mentioned,
    })
}

/// The edit (range, replacement) inlining `function` at `call` (one of `calls` calls): the
/// call's statement with the body's statements before it, or only the call.
fn inline_call(
    function: &Function<'_>,
    call: Node<'_>,
    calls: usize,
    text: &str,
) -> Option<(Range<usize>, String)> {
    let arguments: Vec<Node<'_>> = named_children(call.child_by_field_name("arguments")?)
        .filter(|n| n.kind() != "comment")
        .collect();
    if arguments.len() != function.parameters.len() {
        return None;
    }
    let host = host_statement(call)?;
    let caller = enclosing(host, "function_definition")?;
    let caller_names = collect(caller, |n| n.kind() == "identifier");
    let caller_names: HashSet<&str> = caller_names.iter().map(|n| &text[n.byte_range()]).collect();
    // The caller's parameters and locals.
    let caller_declared: HashSet<&str> =
        declarators(caller, &["declaration", "parameter_declaration"])
            .into_iter()
            .filter_map(|d| declared_name(d, text))
            .collect();
    // Parameters substituted by their arguments, or declared as locals.
    let mut copies = String::new();
    let mut substitutions: Vec<(&str, String)> = Vec::new();
    let mut locals = function.locals.clone();
    for (&(declaration, name), argument) in function.parameters.iter().zip(&arguments) {
        let argument_text = &text[argument.byte_range()];
        let uses = named(function.body, name, text);
        let effects = has_side_effects(*argument);
        if assigned(&uses) || (effects && uses.len() > 1) {
            copies.push_str(&format!("{declaration} = {argument_text};\n"));
            locals.insert(name);
        } else {
            substitutions.push((name, parenthesized(*argument, argument_text)));
        }
    }
    // A local of the callee must not capture a caller's name, nor a caller's local hide a
    // global the body uses.
    if locals.iter().any(|l| caller_names.contains(l))
        || function.mentioned.iter().any(|m| {
            let parameter = function.parameters.iter().any(|(_, p)| p == m);
            !locals.contains(m) && !parameter && caller_declared.contains(m)
        })
    {
        return None;
    }
    let body_start = function.body.start_byte() + 1;
    let body_end = function
        .returned
        .map_or(function.body.end_byte() - 1, |r| r.start_byte());
    let statements = substitute(function.body, body_start..body_end, &substitutions, text);
    let indent = indentation(text, host.start_byte());
    let prelude = reindent(&format!("{copies}{}", statements.trim()), &indent);
    if !prelude.is_empty() && calls > 1 {
        return None;
    }
    let value = function
        .returned
        .and_then(|r| named_children(r).find(|n| n.kind() != "comment"));
    let whole_statement = host.kind() == "expression_statement"
        && named_children(host).next().map(|n| n.id()) == Some(call.id());
    let value_text = match value {
        Some(value) => {
            let substituted = substitute(value, value.byte_range(), &substitutions, text);
            parenthesized(value, &substituted)
        }
        None if whole_statement => String::new(),
        None => return None,
    };
    // Nothing goes before the statement: only the call changes (several calls of a function
    // without locals may share a statement).
    if prelude.is_empty() && !whole_statement {
        return Some((call.byte_range(), value_text));
    }
    let rewritten_host = if whole_statement {
        String::new()
    } else {
        let host_range = host.byte_range();
        format!(
            "{}{value_text}{}",
            &text[host_range.start..call.start_byte()],
            &text[call.end_byte()..host_range.end]
        )
    };
    let in_block = host
        .parent()
        .is_some_and(|p| p.kind() == "compound_statement");
    if !in_block && host.kind() == "declaration" {
        return None;
    }
    let joined = [prelude.as_str(), rewritten_host.as_str()]
        .iter()
        .filter(|s| !s.is_empty())
        .copied()
        .collect::<Vec<_>>()
        .join(&format!("\n{indent}"));
    // A branch or loop body needs a statement: braces around the prelude, or `;` for none.
    let replacement = match (in_block, prelude.is_empty(), joined.is_empty()) {
        (true, _, _) | (false, true, false) => joined,
        (false, true, true) => ";".to_owned(),
        (false, false, _) => format!("{{\n{joined}\n}}"),
    };
    Some((host.byte_range(), replacement))
}

/// The blanks before `at` on its line (empty when something else precedes it).
fn indentation(text: &str, at: usize) -> String {
    let start = text[..at].rfind('\n').map_or(0, |i| i + 1);
    let before = &text[start..at];
    if before.chars().all(|c| c == ' ' || c == '\t') {
        before.to_owned()
    } else {
        String::new()
    }
}

/// `lines` (a body's statements, the first one's indentation already trimmed) with the common
/// indentation of the other lines replaced by `indent`, so that the statements line up with
/// the statement they go before (nested lines keep their extra indentation).
fn reindent(lines: &str, indent: &str) -> String {
    let rest = lines.lines().skip(1).filter(|l| !l.trim().is_empty());
    let common = rest
        .map(|l| l.len() - l.trim_start().len())
        .min()
        .unwrap_or(0);
    let mut out = String::new();
    for (i, line) in lines.lines().enumerate() {
        if i > 0 {
            out.push('\n');
            if !line.trim().is_empty() {
                out.push_str(indent);
                out.push_str(line.get(common..).unwrap_or(line.trim_start()));
            }
        } else {
            out.push_str(line);
        }
    }
    out
}

/// The outermost statement the call's value flows into, if it is one inlining handles.
fn host_statement(call: Node<'_>) -> Option<Node<'_>> {
    let mut node = call;
    loop {
        node = node.parent()?;
        match node.kind() {
            kind if HOSTS.contains(&kind) => return Some(node),
            "compound_statement"
            | "function_definition"
            | "translation_unit"
            | "for_statement"
            | "while_statement"
            | "do_statement"
            | "switch_statement"
            | "lambda_expression" => return None,
            _ => {}
        }
    }
}

/// `text[range]` (inside `node`) with every identifier named in `substitutions` replaced.
fn substitute(
    node: Node<'_>,
    range: Range<usize>,
    substitutions: &[(&str, String)],
    text: &str,
) -> String {
    let names = collect(node, |n| n.kind() == "identifier");
    let mut out = String::new();
    let mut at = range.start;
    for name in names {
        let r = name.byte_range();
        if r.start < range.start || r.end > range.end {
            continue;
        }
        if let Some((_, by)) = substitutions.iter().find(|(p, _)| *p == &text[r.clone()]) {
            out.push_str(&text[at..r.start]);
            out.push_str(by);
            at = r.end;
        }
    }
    out.push_str(&text[at..range.end]);
    out
}

/// `node`'s text in parentheses unless it is a primary expression.
fn parenthesized(node: Node<'_>, node_text: &str) -> String {
    if PRIMARY.contains(&node.kind()) {
        node_text.to_owned()
    } else {
        format!("({node_text})")
    }
}

/// Whether one of `uses` (of a name) assigns it, increments it or takes its address.
fn assigned(uses: &[Node<'_>]) -> bool {
    uses.iter().any(|use_| {
        let Some(parent) = use_.parent() else {
            return false;
        };
        match parent.kind() {
            "assignment_expression" => parent.child_by_field_name("left") == Some(*use_),
            "update_expression" => true,
            "pointer_expression" => parent.child(0).is_some_and(|op| op.kind() == "&"),
            _ => false,
        }
    })
}

/// Whether evaluating `node` may have side effects (a call, an assignment, an increment).
fn has_side_effects(node: Node<'_>) -> bool {
    let effect = |n: Node<'_>| {
        matches!(
            n.kind(),
            "call_expression" | "assignment_expression" | "update_expression"
        )
    };
    !collect(node, effect).is_empty()
}

/// Whether `node` (the parent of a function's name) is a prototype's declarator.
fn is_prototype(node: Node<'_>) -> bool {
    node.kind() == "function_declarator"
        && node
            .parent()
            .is_some_and(|p| matches!(p.kind(), "declaration" | "pointer_declarator"))
}

/// The nearest ancestor of `node` of `kind`.
fn enclosing<'t>(node: Node<'t>, kind: &str) -> Option<Node<'t>> {
    let mut at = node;
    loop {
        at = at.parent()?;
        if at.kind() == kind {
            return Some(at);
        }
    }
}
