//! `remove-parameter-with-arguments` ([`Group::SlowRemovals`]): a parameter its function never
//! reads goes, together with the matching argument of every call, in one rewrite:
//! `def f(a, b): return a` / `f(1, g())` → `def f(a): return a` / `f(1)`. Removing either half
//! alone breaks every call (and the arity pre-filter rejects it unrun); removing both keeps them.
//!
//! Candidates, with names resolved per scope ([`crate::scopes`]; nothing when the scopes cannot
//! be trusted):
//! - a module-level, undecorated `def f(p1, …, pn)` with positional parameters only (defaults
//!   allowed; no `/`, `*`, `*args`, `**kwargs`), `f` bound once, and every load of `f` the
//!   callee of a call that supplies each parameter without a default exactly once, by position
//!   or keyword, and nothing else (no unpacking);
//! - a module-level class `C` without decorators or bases whose one `__init__(self, p1, …, pn)`
//!   is such a function, every load of `C` such a call; classes that may build instances
//!   otherwise (`type(self)(…)`, `self.__class__(…)`, `__new__`, an explicit `__init__` call
//!   anywhere) are left out;
//! - a method `def m(self, p1, …, pn)` of that form, not a dunder, whose name is bound nowhere
//!   else in the module (no other method, attribute or variable `m`), every attribute `x.m` of
//!   the module such a call (`x.m(…)`), and the name never written as a string.
//!
//! A parameter is unused when the function's scope binds it once (as the parameter) and no load
//! resolves to it, nested scopes included. Each unused parameter gets a rewrite, and all of a
//! function's unused parameters together get one more. The rewrite spans from the first edited
//! site to the last; the text in between is kept (frozen code there stays as it is).

use rustc_hash::FxHashMap as HashMap;
use std::ops::Range;

use ruff_python_ast::token::TokenKind;
use ruff_python_ast::{self as ast, Stmt};
use ruff_text_size::Ranged;

use super::{span, Ctx};
use crate::scopes::{Count, Resolution, Use, MODULE};
use crate::Group;

/// The rewrite's kind.
const KIND: &str = "remove-parameter-with-arguments";

/// Lists the `remove-parameter-with-arguments` rewrites of a module whose names `resolution`
/// resolves.
pub fn remove_with_arguments(ctx: &mut Ctx<'_>, resolution: &Resolution<'_>) {
    if ctx.group != Group::SlowRemovals || resolution.dynamic {
        return;
    }
    let counts = resolution.counts();
    let mut binds_anywhere: HashMap<&str, usize> = HashMap::default();
    for ((_, name), count) in &counts {
        *binds_anywhere.entry(name).or_default() += count.binds;
    }
    let uses = Uses::of(resolution);
    let body_scopes: HashMap<*const Stmt, usize> = resolution
        .definitions
        .iter()
        .map(|d| (d.stmt as *const Stmt, d.body))
        .collect();
    for definition in &resolution.definitions {
        let callable = if definition.scope == MODULE {
            callable(definition.stmt, definition.body, &body_scopes)
        } else if resolution.class_scopes[definition.scope] {
            method(definition.stmt, definition.body)
        } else {
            None
        };
        let Some(callable) = callable else {
            continue;
        };
        let binds = if callable.method {
            binds_anywhere.get(callable.name).copied()
        } else {
            counts.get(&(MODULE, callable.name)).map(|c| c.binds)
        };
        if binds != Some(1) {
            continue;
        }
        let Some(calls) = calls_of(resolution, &uses, &callable) else {
            continue;
        };
        let unused: Vec<usize> = callable
            .parameters
            .iter()
            .enumerate()
            .skip(callable.skipped)
            .filter(|(_, p)| unused(&counts, callable.scope, p.name()))
            .map(|(i, _)| i - callable.skipped)
            .collect();
        // The text checks last: they read the whole source.
        if unused.is_empty() || used_otherwise(ctx, definition.stmt, &callable) {
            continue;
        }
        let mut selections: Vec<Vec<usize>> = unused.iter().map(|&i| vec![i]).collect();
        if unused.len() > 1 {
            selections.push(unused.clone());
        }
        for removed in selections {
            push(ctx, &callable, &calls, &removed);
        }
    }
}

/// A function, class or method whose parameters may go with their arguments.
struct Callable<'a> {
    /// The name calls use.
    name: &'a str,
    /// Whether calls name it as an attribute (`x.m(…)`).
    method: bool,
    /// Its (positional) parameters, `self` included for a class or method.
    parameters: &'a [ast::ParameterWithDefault],
    /// Leading parameters that calls do not pass (`self`).
    skipped: usize,
    /// The scope of the function's body.
    scope: usize,
}

impl Callable<'_> {
    /// The names of the parameters calls pass, with whether each has a default.
    fn passed(&self) -> Vec<(&str, bool)> {
        self.parameters[self.skipped..]
            .iter()
            .map(|p| (p.name().as_str(), p.default.is_some()))
            .collect()
    }
}

/// `stmt` (at module level) as a [`Callable`], if it is one (see the module documentation).
fn callable<'a>(
    stmt: &'a Stmt,
    body: usize,
    body_scopes: &HashMap<*const Stmt, usize>,
) -> Option<Callable<'a>> {
    match stmt {
        Stmt::FunctionDef(f) => Some(Callable {
            name: f.name.as_str(),
            method: false,
            parameters: plain_parameters(f)?,
            skipped: 0,
            scope: body,
        }),
        Stmt::ClassDef(c) => {
            let plain =
                c.decorator_list.is_empty() && c.arguments.as_ref().is_none_or(|a| a.is_empty());
            if !plain {
                return None;
            }
            let mut inits = c.body.iter().filter(|s| match s {
                Stmt::FunctionDef(f) => matches!(f.name.as_str(), "__init__" | "__new__"),
                _ => false,
            });
            let (Some(init @ Stmt::FunctionDef(f)), None) = (inits.next(), inits.next()) else {
                return None;
            };
            let parameters = plain_parameters(f)?;
            (f.name.as_str() == "__init__" && !parameters.is_empty()).then_some(Callable {
                name: c.name.as_str(),
                method: false,
                parameters,
                skipped: 1,
                scope: *body_scopes.get(&(init as *const Stmt))?,
            })
        }
        _ => None,
    }
}

/// `stmt` (directly in a class body) as a [`Callable`] method, if it is one and not a dunder
/// (those are called implicitly).
fn method(stmt: &Stmt, body: usize) -> Option<Callable<'_>> {
    let Stmt::FunctionDef(f) = stmt else {
        return None;
    };
    let name = f.name.as_str();
    let parameters = plain_parameters(f)?;
    let dunder = name.starts_with("__") && name.ends_with("__");
    (!dunder && !parameters.is_empty()).then_some(Callable {
        name,
        method: true,
        parameters,
        skipped: 1,
        scope: body,
    })
}

/// Whether `callable` (defined by `stmt`) may be called other than through the calls found,
/// read off the text (attribute reads and strings are not resolved): a method whose name is
/// written as a string (`getattr(o, "m")`) or that `__getattr__` may stand for; a class whose
/// instances may be made without a call of its name (`type(self)(…)`, `self.__class__(…)`), or
/// when `__init__` is called explicitly anywhere.
fn used_otherwise(ctx: &Ctx<'_>, stmt: &Stmt, callable: &Callable<'_>) -> bool {
    let source = ctx.source;
    if callable.method {
        let name = callable.name;
        source.contains(&format!("\"{name}\""))
            || source.contains(&format!("'{name}'"))
            || source.contains("__getattr")
    } else if matches!(stmt, Stmt::ClassDef(_)) {
        let text = ctx.text(span(stmt));
        text.contains("__class__") || text.contains("type(") || source.contains(".__init__")
    } else {
        false
    }
}

/// The positional parameters of an undecorated `def` that has nothing else (no `/`, `*`,
/// `*args`, `**kwargs`).
fn plain_parameters(f: &ast::StmtFunctionDef) -> Option<&[ast::ParameterWithDefault]> {
    let p = &f.parameters;
    let plain = f.decorator_list.is_empty()
        && p.posonlyargs.is_empty()
        && p.vararg.is_none()
        && p.kwonlyargs.is_empty()
        && p.kwarg.is_none();
    plain.then_some(&p.args[..])
}

/// The arguments of one call: their ranges in source order and, per passed parameter, the
/// index of the argument that supplies it (`None`: the default is used).
struct CallSites {
    items: Vec<Range<usize>>,
    of_parameter: Vec<Option<usize>>,
}

/// Where a module's names are loaded and its attribute names referenced.
#[derive(Default)]
struct Uses<'a> {
    /// Starts of the loads of each module-scope name.
    module_loads: HashMap<&'a str, Vec<usize>>,
    /// Starts of the attribute references (`x.m`) of each attribute name, with whether each is
    /// a load.
    attributes: HashMap<&'a str, Vec<(usize, bool)>>,
}

impl<'a> Uses<'a> {
    fn of(resolution: &Resolution<'a>) -> Uses<'a> {
        let mut uses = Uses::default();
        for r in &resolution.references {
            if r.scope == MODULE && r.usage == Use::Load {
                uses.module_loads
                    .entry(r.name)
                    .or_default()
                    .push(r.at.start);
            }
        }
        for &(name, at, load) in &resolution.attributes {
            uses.attributes.entry(name).or_default().push((at, load));
        }
        uses
    }
}

/// Every call of `callable`, if every reference to it is a call that supplies each parameter
/// exactly once, by position or by keyword, and nothing else (and there is at least one call).
fn calls_of(
    resolution: &Resolution<'_>,
    uses: &Uses<'_>,
    callable: &Callable<'_>,
) -> Option<Vec<CallSites>> {
    let name = callable.name;
    let mut references: Vec<usize> = if callable.method {
        let attributes = uses.attributes.get(name).map_or(&[][..], |v| &v[..]);
        attributes
            .iter()
            .map(|&(at, load)| load.then_some(at))
            .collect::<Option<_>>()?
    } else {
        uses.module_loads.get(name).cloned().unwrap_or_default()
    };
    // A class body's load may be listed twice (see `scopes`).
    references.sort_unstable();
    references.dedup();
    let passed = callable.passed();
    let calls = references
        .into_iter()
        .map(|at| call_sites(resolution.calls.get(&at)?, &passed))
        .collect::<Option<Vec<_>>>()?;
    (!calls.is_empty()).then_some(calls)
}

/// The [`CallSites`] of `call` if it supplies each of the parameters `passed` (names, with
/// whether each has a default) at most once, each one without a default, and nothing else.
fn call_sites(call: &ast::ExprCall, passed: &[(&str, bool)]) -> Option<CallSites> {
    let arguments = &call.arguments;
    let positional = arguments.args.len();
    let unpacked = arguments.args.iter().any(ast::Expr::is_starred_expr);
    if unpacked || positional > passed.len() {
        return None;
    }
    // Without unpacking, keywords follow every positional argument.
    let of_parameter = passed
        .iter()
        .enumerate()
        .map(|(i, &(name, default))| {
            if i < positional {
                return Some(Some(i));
            }
            let mut keywords = arguments.keywords.iter();
            let by_name = keywords.position(|k| k.arg.as_ref().is_some_and(|a| a.as_str() == name));
            match by_name {
                Some(j) => Some(Some(positional + j)),
                None => default.then_some(None),
            }
        })
        .collect::<Option<Vec<Option<usize>>>>()?;
    let matched = of_parameter.iter().flatten().count();
    if matched != positional + arguments.keywords.len() {
        return None;
    }
    let items = arguments
        .iter_source_order()
        .map(|a| match a {
            ast::ArgOrKeyword::Arg(e) => span(e),
            ast::ArgOrKeyword::Keyword(k) => span(k),
        })
        .collect();
    Some(CallSites {
        items,
        of_parameter,
    })
}

/// Whether the parameter `name` of the function whose body is `scope` is bound only as the
/// parameter and never loaded.
fn unused(counts: &HashMap<(usize, &str), Count>, scope: usize, name: &str) -> bool {
    counts
        .get(&(scope, name))
        .is_some_and(|c| c.binds == 1 && c.loads == 0)
}

/// Pushes the rewrite removing the passed parameters `removed` (sorted indices, `self` not
/// counted) and the matching arguments of `calls`.
fn push(ctx: &mut Ctx<'_>, callable: &Callable<'_>, calls: &[CallSites], removed: &[usize]) {
    let parameters: Vec<Range<usize>> = callable.parameters.iter().map(span).collect();
    let in_list: Vec<usize> = removed.iter().map(|i| i + callable.skipped).collect();
    let mut sites = removals(ctx, &parameters, &in_list);
    for call in calls {
        let mut arguments: Vec<usize> = removed
            .iter()
            .filter_map(|&i| call.of_parameter[i])
            .collect();
        arguments.sort_unstable();
        sites.extend(removals(ctx, &call.items, &arguments));
    }
    sites.sort_by_key(|r| (r.start, std::cmp::Reverse(r.end)));
    // A call inside a removed argument goes with it.
    let mut disjoint: Vec<Range<usize>> = Vec::with_capacity(sites.len());
    for site in sites {
        match disjoint.last() {
            Some(last) if site.start < last.end => {
                if site.end > last.end {
                    return;
                }
            }
            _ => disjoint.push(site),
        }
    }
    let (Some(first), Some(last)) = (disjoint.first(), disjoint.last()) else {
        return;
    };
    let range = first.start..last.end;
    let kept: Vec<Range<usize>> = disjoint.windows(2).map(|w| w[0].end..w[1].start).collect();
    let replacement: String = kept.iter().map(|k| ctx.text(k.clone())).collect();
    ctx.push(Group::SlowRemovals, KIND, range, replacement, &kept);
}

/// The ranges that remove the `removed` elements (sorted indices) of a comma-separated list
/// with element ranges `items`, leaving a list without a dangling comma: a run of removed
/// elements goes with the separator after it, or, at the end of the list, with the one before
/// it; all of them go with a trailing comma.
fn removals(ctx: &Ctx<'_>, items: &[Range<usize>], removed: &[usize]) -> Vec<Range<usize>> {
    let mut runs: Vec<(usize, usize)> = Vec::new();
    for &i in removed {
        match runs.last_mut() {
            Some((_, end)) if *end + 1 == i => *end = i,
            _ => runs.push((i, i)),
        }
    }
    runs.into_iter()
        .filter(|&(_, b)| b < items.len())
        .map(|(a, b)| {
            if let Some(next) = items.get(b + 1) {
                items[a].start..next.start
            } else if a > 0 {
                items[a - 1].end..items[b].end
            } else {
                let end = match ctx.token_after(items[b].end) {
                    Some(t) if t.kind() == TokenKind::Comma => t.end().to_usize(),
                    _ => items[b].end,
                };
                items[a].start..end
            }
        })
        .collect()
}
