//! Inlining with arguments ([`Group::Simplifications`]): a function or method called once
//! disappears into its call site, its parameters bound to the call's arguments.
//!
//! - `inline-call-expression`: a callee whose body is `return E` makes the call `(E)`, each
//!   parameter name in `E` replaced by its argument's text: `def area(w, h): return w * h` /
//!   `print(area(3, n))` → `print((3 * n))`. A parameter used more than once needs an argument
//!   that is a name or a literal (so no argument is evaluated twice); one never used drops its
//!   argument.
//! - `inline-call-body`: a callee of several statements, called by a whole statement `x = f(a)`
//!   or `f(a)` alone on its line, becomes `p = a` bindings, its statements and `x = E` (`E` of a
//!   final `return E`; `None` without one) in place of that statement. Its names then live in the
//!   caller's scope, so every name it binds must be unknown there, and no name it reads from the
//!   module may be shadowed there.
//! - `inline-class-attribute`: a class of constant class attributes only (`class C: X = 1`) whose
//!   one use is `C.X` becomes that constant.
//!
//! The callee is a module-level function or a method of a module-level class, without
//! decorators, type parameters or keyword-only parameters (`*args` / `**kwargs` only if unused),
//! its name bound once (for a method: once anywhere, never written as a string, no
//! `__getattr__`) and used exactly once, as the callee of a call passing each parameter at most
//! once without unpacking (missing ones need literal defaults). A method's receiver binds its
//! first parameter. Names are resolved per scope ([`crate::scopes`]); nothing is offered when
//! the scopes cannot be trusted. Rewrites are optimistic about evaluation order (the predicate
//! judges the candidate), never about validity of scoping.

use std::ops::Range;

use rustc_hash::FxHashMap as HashMap;

use ruff_python_ast::visitor::Visitor;
use ruff_python_ast::{self as ast, Expr, Stmt};
use ruff_text_size::Ranged;

use super::statements::removal_range;
use super::{is_bracketed, is_primary, span, Ctx};
use crate::scopes::{Count, Definition, Resolution, Use, MODULE};
use crate::text::line_end;
use crate::Group;

mod body;
mod sites;

use body::statements;
use sites::{Names, Sites};

/// Lists the inlining rewrites of a module whose names `resolution` resolves.
pub fn inline_with_arguments(ctx: &mut Ctx<'_>, body: &[Stmt], resolution: &Resolution<'_>) {
    if ctx.group != Group::Simplifications || resolution.dynamic {
        return;
    }
    let analysis = Analysis::new(body, resolution);
    for definition in &resolution.definitions {
        if let Some(callee) = analysis.callee(ctx, definition) {
            inline_call(ctx, &analysis, &callee);
        }
        class_attribute(ctx, &analysis, definition);
    }
}

/// What the rewrites need to know about the module, computed once.
struct Analysis<'r, 'a> {
    module: &'a [Stmt],
    resolution: &'r Resolution<'a>,
    counts: HashMap<(usize, &'a str), Count>,
    /// Bindings of each name, all scopes together.
    binds_anywhere: HashMap<&'a str, usize>,
    /// Loads of module-scope names: start and the scope the load stands in.
    module_loads: HashMap<&'a str, Vec<(usize, usize)>>,
    /// Attribute references by attribute name: start of the name and whether it is a load.
    attributes: HashMap<&'a str, Vec<(usize, bool)>>,
    /// Module-level classes by the scope of their body.
    classes: HashMap<usize, &'a Stmt>,
    sites: Sites<'a>,
}

impl<'r, 'a> Analysis<'r, 'a> {
    fn new(module: &'a [Stmt], resolution: &'r Resolution<'a>) -> Self {
        let counts = resolution.counts();
        let mut binds_anywhere: HashMap<&str, usize> = HashMap::default();
        for ((_, name), count) in &counts {
            *binds_anywhere.entry(name).or_default() += count.binds;
        }
        let mut module_loads: HashMap<&str, Vec<(usize, usize)>> = HashMap::default();
        for r in &resolution.references {
            if r.scope == MODULE && r.usage == Use::Load {
                let loads = module_loads.entry(r.name).or_default();
                // A class body's load may be listed twice (see `scopes`).
                if !loads.iter().any(|&(at, _)| at == r.at.start) {
                    loads.push((r.at.start, r.occurs));
                }
            }
        }
        let mut attributes: HashMap<&str, Vec<(usize, bool)>> = HashMap::default();
        for &(name, at, load) in &resolution.attributes {
            attributes.entry(name).or_default().push((at, load));
        }
        let classes = resolution
            .definitions
            .iter()
            .filter(|d| d.scope == MODULE && matches!(d.stmt, Stmt::ClassDef(_)))
            .map(|d| (d.body, d.stmt))
            .collect();
        let mut sites = Sites::default();
        sites.visit_body(module);
        Analysis {
            module,
            resolution,
            counts,
            binds_anywhere,
            module_loads,
            attributes,
            classes,
            sites,
        }
    }

    /// `scope` and the scopes around it, the module last.
    fn chain(&self, scope: usize) -> Vec<usize> {
        let mut chain = vec![scope];
        let mut at = scope;
        while at != MODULE {
            at = self.resolution.parents.get(at).copied().unwrap_or(MODULE);
            chain.push(at);
        }
        chain
    }

    /// Whether a scope of `chain` other than the module binds or uses `name` (`module`: the
    /// module counts too).
    fn known_in<'s>(&'s self, chain: &[usize], name: &'s str, module: bool) -> bool {
        chain
            .iter()
            .filter(|&&s| module || s != MODULE)
            .any(|&s| self.counts.contains_key(&(s, name)))
    }

    /// The count of `name` in `scope`.
    fn count<'s>(&'s self, scope: usize, name: &'s str) -> Option<&'s Count> {
        self.counts.get(&(scope, name))
    }

    /// The only load of module-scope `name` (start and scope it stands in), if it is bound once
    /// and loaded once.
    fn single_load(&self, name: &str) -> Option<(usize, usize)> {
        let count = self.count(MODULE, name)?;
        match self.module_loads.get(name).map(Vec::as_slice) {
            Some(&[load]) if count.binds == 1 && count.loads == 1 => Some(load),
            _ => None,
        }
    }

    /// `definition` as a function or method to inline, with its one call.
    fn callee(&self, ctx: &Ctx<'_>, definition: &Definition<'a>) -> Option<Callee<'a>> {
        let Stmt::FunctionDef(def) = definition.stmt else {
            return None;
        };
        let plain = !def.is_async
            && def.decorator_list.is_empty()
            && def.type_params.is_none()
            && def.parameters.kwonlyargs.is_empty();
        if !plain {
            return None;
        }
        let name = def.name.as_str();
        let (call, receiver, class, at_scope, suite) = if definition.scope == MODULE {
            let (at, occurs) = self.single_load(name)?;
            let call = *self.resolution.calls.get(&at)?;
            if !matches!(&*call.func, Expr::Name(n) if n.start().to_usize() == at) {
                return None;
            }
            (call, None, None, occurs, self.module)
        } else {
            let Stmt::ClassDef(class) = self.classes.get(&definition.scope)? else {
                return None;
            };
            let dunder = name.starts_with("__") && name.ends_with("__");
            let source = ctx.source;
            let named = source.contains(&format!("\"{name}\""))
                || source.contains(&format!("'{name}'"))
                || source.contains("__getattr");
            if dunder || named || self.binds_anywhere.get(name) != Some(&1) {
                return None;
            }
            let Some(&[(at, true)]) = self.attributes.get(name).map(Vec::as_slice) else {
                return None;
            };
            let call = *self.resolution.calls.get(&at)?;
            let Expr::Attribute(attribute) = &*call.func else {
                return None;
            };
            if attribute.attr.start().to_usize() != at {
                return None;
            }
            let base = base_name(&attribute.value)?;
            let occurs = self
                .resolution
                .references
                .iter()
                .find(|r| r.at.start == base && r.usage == Use::Load)?
                .occurs;
            let class_name = Some(class.name.as_str());
            (
                call,
                Some(&*attribute.value),
                class_name,
                occurs,
                &class.body[..],
            )
        };
        // Not a recursive call.
        let def_span = span(definition.stmt);
        if def_span.start <= call.start().to_usize() && call.end().to_usize() <= def_span.end {
            return None;
        }
        let index = suite
            .iter()
            .position(|s| std::ptr::eq(s, definition.stmt))?;
        Some(Callee {
            def,
            suite,
            index,
            scope: definition.body,
            call,
            receiver,
            class,
            at_scope,
        })
    }
}

/// The start of the name an expression's chain of attributes, calls and subscripts starts from
/// (`a.b().c` → `a`): it stands in the same scope as the whole expression.
fn base_name(expr: &Expr) -> Option<usize> {
    match expr {
        Expr::Name(n) => Some(n.start().to_usize()),
        Expr::Attribute(a) => base_name(&a.value),
        Expr::Call(c) => base_name(&c.func),
        Expr::Subscript(s) => base_name(&s.value),
        _ => None,
    }
}

/// A function or method called once, with that call.
struct Callee<'a> {
    def: &'a ast::StmtFunctionDef,
    /// The statement list the `def` is in, and its index there.
    suite: &'a [Stmt],
    index: usize,
    /// The scope of the function's body.
    scope: usize,
    call: &'a ast::ExprCall,
    /// A method's receiver (`x` of `x.m(…)`).
    receiver: Option<&'a Expr>,
    /// A method's class name.
    class: Option<&'a str>,
    /// The scope the call stands in.
    at_scope: usize,
}

/// Each parameter with the expression bound to it (an argument, or a literal default), in
/// parameter order; `None` when the call does not fit plainly.
fn bindings<'a>(
    analysis: &Analysis<'_, 'a>,
    callee: &Callee<'a>,
) -> Option<Vec<(&'a str, &'a Expr)>> {
    let p = &callee.def.parameters;
    for star in [&p.vararg, &p.kwarg].into_iter().flatten() {
        if analysis
            .count(callee.scope, star.name.as_str())
            .is_some_and(|c| c.loads > 0)
        {
            return None;
        }
    }
    let parameters: Vec<&ast::ParameterWithDefault> = p.posonlyargs.iter().chain(&p.args).collect();
    let mut bound: Vec<Option<&Expr>> = vec![None; parameters.len()];
    let mut positional: Vec<&Expr> = callee.receiver.into_iter().collect();
    positional.extend(callee.call.arguments.args.iter());
    if positional.len() > parameters.len() || positional.iter().any(|a| a.is_starred_expr()) {
        return None;
    }
    for (slot, argument) in bound.iter_mut().zip(positional) {
        *slot = Some(argument);
    }
    for keyword in &callee.call.arguments.keywords {
        let name = keyword.arg.as_ref()?.as_str();
        let i = parameters
            .iter()
            .position(|q| q.parameter.name.as_str() == name)?;
        if i < usize::from(callee.receiver.is_some()) || bound[i].replace(&keyword.value).is_some()
        {
            return None;
        }
    }
    parameters
        .iter()
        .zip(bound)
        .map(|(q, b)| {
            let value = b.or_else(|| q.default.as_deref().filter(|d| constant(d)))?;
            Some((q.parameter.name.as_str(), value))
        })
        .collect()
}

/// Whether `expr` is a constant: literals, and displays and operators of constants.
fn constant(expr: &Expr) -> bool {
    match expr {
        e if e.is_literal_expr() => true,
        Expr::Tuple(t) => t.elts.iter().all(constant),
        Expr::List(l) => l.elts.iter().all(constant),
        Expr::Set(s) => s.elts.iter().all(constant),
        Expr::Dict(d) => d
            .items
            .iter()
            .all(|i| i.key.as_ref().is_some_and(constant) && constant(&i.value)),
        Expr::UnaryOp(u) => constant(&u.operand),
        Expr::BinOp(b) => constant(&b.left) && constant(&b.right),
        _ => false,
    }
}

/// Whether `expr` may stand for a parameter used several times (evaluating it twice is
/// harmless): a name or a literal.
fn simple(expr: &Expr) -> bool {
    matches!(expr, Expr::Name(_)) || (constant(expr) && !expr.is_tuple_expr())
}

/// `text` (the possibly edited text of `expr`) as the value of an assignment or an expression
/// statement.
fn value_text(ctx: &Ctx<'_>, expr: &Expr, text: String) -> String {
    if expr.is_named_expr() || ctx.breaks_line(span(expr)) {
        format!("({text})")
    } else {
        text
    }
}

/// `text` (the possibly edited text of `expr`) as an operand anywhere (see [`Ctx::operand`]).
fn operand_text(ctx: &Ctx<'_>, expr: &Expr, text: String) -> String {
    if is_bracketed(expr) || (is_primary(expr) && !ctx.breaks_line(span(expr))) {
        text
    } else {
        format!("({text})")
    }
}

/// Pushes the inlining of `callee` at its call, if its shape allows one.
fn inline_call(ctx: &mut Ctx<'_>, analysis: &Analysis<'_, '_>, callee: &Callee<'_>) {
    let Some(bound) = bindings(analysis, callee) else {
        return;
    };
    let body = &callee.def.body;
    let call = span(callee.call);
    let replaced = match body.as_slice() {
        [Stmt::Return(ast::StmtReturn {
            value: Some(value), ..
        })] => {
            expression(ctx, analysis, callee, &bound, value).map(|r| (EXPRESSION, vec![(call, r)]))
        }
        _ => statements(ctx, analysis, callee, &bound).map(|edits| (BODY, edits)),
    };
    let Some((kind, mut edits)) = replaced else {
        return;
    };
    let (removed, removal) = if callee.suite.len() == 1 {
        let stmt = &callee.suite[callee.index];
        let range = stmt.start().to_usize()..line_end(ctx.source, stmt.end().to_usize());
        (range, "pass".to_string())
    } else {
        (
            removal_range(ctx.source, callee.suite, callee.index),
            String::new(),
        )
    };
    edits.push((removed, removal));
    push_edits(ctx, kind, edits);
}

/// Pushes one rewrite made of disjoint edits, keeping the text between them.
fn push_edits(ctx: &mut Ctx<'_>, kind: &'static str, mut edits: Vec<(Range<usize>, String)>) {
    edits.sort_by_key(|(r, _)| (r.start, r.end));
    if edits.windows(2).any(|w| w[0].0.end > w[1].0.start) {
        return;
    }
    let (Some(first), Some(last)) = (edits.first(), edits.last()) else {
        return;
    };
    let range = first.0.start..last.0.end;
    let mut text = String::new();
    let mut kept = Vec::new();
    for (i, (r, replacement)) in edits.iter().enumerate() {
        if i > 0 {
            let between = edits[i - 1].0.end..r.start;
            text.push_str(ctx.text(between.clone()));
            kept.push(between);
        }
        text.push_str(replacement);
    }
    ctx.push(Group::Simplifications, kind, range, text, &kept);
}

/// The call's replacement for a callee `return value` (see the module documentation).
fn expression(
    ctx: &Ctx<'_>,
    analysis: &Analysis<'_, '_>,
    callee: &Callee<'_>,
    bound: &[(&str, &Expr)],
    value: &Expr,
) -> Option<String> {
    let mut names = Names::default();
    names.visit_expr(value);
    if names.nested {
        return None;
    }
    let chain = analysis.chain(callee.at_scope);
    let mut edits: Vec<(Range<usize>, String)> = Vec::new();
    for (at, name) in &names.loads {
        match bound.iter().find(|(p, _)| p == name) {
            Some(&(_, argument)) => edits.push((at.clone(), ctx.operand(argument))),
            // A name the callee reads from the module must mean the same at the call.
            None if analysis.known_in(&chain, name, false) => return None,
            None => {}
        }
    }
    for &(parameter, argument) in bound {
        let uses = names.loads.iter().filter(|(_, n)| *n == parameter).count();
        if uses > 1 && !simple(argument) {
            return None;
        }
    }
    let whole = span(value);
    let text = ctx.spliced(whole.clone(), &edits);
    let single = matches!(edits.as_slice(), [(r, _)] if *r == whole);
    let bare =
        single || ((is_primary(value) || is_bracketed(value)) && !ctx.breaks_line(whole.clone()));
    Some(if bare { text } else { format!("({text})") })
}

/// Pushes `inline-class-attribute` for a class of constants whose one use is `C.X`.
fn class_attribute(ctx: &mut Ctx<'_>, analysis: &Analysis<'_, '_>, definition: &Definition<'_>) {
    let Stmt::ClassDef(class) = definition.stmt else {
        return;
    };
    let plain = definition.scope == MODULE
        && class.decorator_list.is_empty()
        && class.type_params.is_none()
        && class.arguments.as_ref().is_none_or(|a| a.is_empty());
    if !plain {
        return;
    }
    let mut values: HashMap<&str, &Expr> = HashMap::default();
    for stmt in &class.body {
        let (target, value) = match stmt {
            Stmt::Pass(_) => continue,
            Stmt::Expr(e) if e.value.is_string_literal_expr() => continue,
            Stmt::Assign(a) => match a.targets.as_slice() {
                [target] => (target, &*a.value),
                _ => return,
            },
            Stmt::AnnAssign(a) => match &a.value {
                Some(value) => (&*a.target, &**value),
                None => return,
            },
            _ => return,
        };
        let Expr::Name(name) = target else {
            return;
        };
        if !constant(value) || values.insert(name.id.as_str(), value).is_some() {
            return;
        }
    }
    let Some((at, _)) = analysis.single_load(class.name.as_str()) else {
        return;
    };
    let Some(&(attribute, load)) = analysis.sites.attributes.get(&at) else {
        return;
    };
    let Some(value) = values.get(attribute.attr.as_str()).filter(|_| load) else {
        return;
    };
    let Some(index) = analysis
        .module
        .iter()
        .position(|s| std::ptr::eq(s, definition.stmt))
    else {
        return;
    };
    let removed = removal_range(ctx.source, analysis.module, index);
    let site = (span(attribute), ctx.operand(value));
    push_edits(ctx, CLASS_ATTRIBUTE, vec![(removed, String::new()), site]);
}

/// The `inline-call-expression` kind.
const EXPRESSION: &str = "inline-call-expression";
/// The `inline-call-body` kind.
const BODY: &str = "inline-call-body";
/// The `inline-class-attribute` kind.
const CLASS_ATTRIBUTE: &str = "inline-class-attribute";
