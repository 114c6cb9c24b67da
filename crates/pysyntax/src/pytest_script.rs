//! A pytest test module turned into a plain script that runs the one test pytest ran: the
//! fixtures it needs (and the autouse ones) called directly, each value bound to its name (a
//! `yield` fixture's value is what it yields first), the parameters of the chosen
//! `parametrize` case bound to their names, the `pytest.mark` decorators of the test and the
//! fixture decorators gone, and the test function called at the end. What pytest itself would
//! have to supply (its built-in fixtures, indirect or parametrized fixtures, an `async` test)
//! makes the conversion refuse with the reason, so the caller keeps the pytest test.
//!
//! Only the text changes here; whether the script still fails as the test did is for the
//! caller to judge, by running it.

use std::collections::BTreeMap;
use std::ops::Range;

use ruff_python_ast::visitor::{walk_expr, walk_stmt, Visitor};
use ruff_python_ast::{self as ast, Expr, Stmt};
use ruff_text_size::Ranged;

/// The test a node id names in its module.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct PytestTest {
    /// The class holding the test method, if any (`TestOrders` of `TestOrders::test_total`).
    pub class: Option<String>,
    /// The test function's name, without its parameter id (`test_discount` of
    /// `test_discount[gold]`).
    pub function: String,
    /// The chosen case of each parametrized argument name: its index in its `parametrize`
    /// list (pytest's `callspec.indices`). An argument missing here is taken from a list of
    /// one case only.
    pub indices: BTreeMap<String, usize>,
}

/// A function decorated `@pytest.fixture` / `@fixture` (with or without a call).
struct Fixture<'a> {
    def: &'a ast::StmtFunctionDef,
    /// The name tests ask for (its `name=`, else the function's).
    name: String,
    autouse: bool,
    /// Its `params=`: pytest would run it once per value.
    parametrized: bool,
    decorator: Range<usize>,
}

/// `source`, a test module, as a plain script running `test` (see the module documentation);
/// `Err` says why it cannot be one.
pub fn pytest_script(source: &str, test: &PytestTest) -> Result<String, String> {
    crate::analyse(source, |parsed, _| {
        convert(source, &parsed.syntax().body, test)
    })
    .map_err(|p| format!("the test module is not valid Python: {p}"))?
}

fn convert(source: &str, body: &[Stmt], test: &PytestTest) -> Result<String, String> {
    let mut fixtures: Vec<Fixture> = Vec::new();
    for stmt in body {
        if let Stmt::FunctionDef(def) = stmt {
            if let Some(fixture) = fixture_of(def) {
                fixtures.push(fixture?);
            }
        }
    }
    let def = find_test(body, test)?;
    if def.is_async {
        return Err(format!("the test {} is a coroutine", test.function));
    }
    let mut removed: Vec<Range<usize>> = fixtures.iter().map(|f| f.decorator.clone()).collect();
    let mut parametrized: Vec<(Vec<String>, String)> = Vec::new();
    for decorator in &def.decorator_list {
        let expr = &decorator.expression;
        let callee = match expr {
            Expr::Call(call) => &call.func,
            other => other,
        };
        let chain = dotted(callee);
        if chain.first().map(String::as_str) == Some("pytest")
            && chain.get(1).map(String::as_str) == Some("mark")
        {
            if chain.get(2).map(String::as_str) == Some("parametrize") {
                let Expr::Call(call) = expr else {
                    return Err("a bare @pytest.mark.parametrize".into());
                };
                parametrized.push(chosen_case(source, call, test)?);
            }
            removed.push(decorator.range().into());
        }
    }
    let mut bound: Vec<String> = Vec::new();
    let mut lines: Vec<String> = Vec::new();
    let mut resolve = Resolve {
        fixtures: &fixtures,
        parametrized: &parametrized,
        bound: &mut bound,
        lines: &mut lines,
        pending: Vec::new(),
    };
    for fixture in fixtures.iter().filter(|f| f.autouse) {
        resolve.name(&fixture.name, None)?;
    }
    let skip_self = usize::from(test.class.is_some());
    let params: Vec<&ast::ParameterWithDefault> = def
        .parameters
        .posonlyargs
        .iter()
        .chain(&def.parameters.args)
        .skip(skip_self)
        .chain(&def.parameters.kwonlyargs)
        .collect();
    let mut call_args: Vec<String> = Vec::new();
    for param in &params {
        let name = param.parameter.name.as_str();
        if resolve.name(name, Some(param.default.is_some()))? {
            call_args.push(format!("{name}={name}"));
        }
    }
    let callee = match &test.class {
        Some(class) => format!("{class}().{}", test.function),
        None => test.function.clone(),
    };
    lines.push(format!("{callee}({})", call_args.join(", ")));
    let mut text = source.to_owned();
    removed.sort_by_key(|r| r.start);
    for range in removed.iter().rev() {
        let whole = whole_lines(&text, range);
        text.replace_range(whole, "");
    }
    if !text.is_empty() && !text.ends_with('\n') {
        text.push('\n');
    }
    text.push_str(&lines.join("\n"));
    text.push('\n');
    Ok(text)
}

/// Binds the names a test or fixture asks for, each once, after what it needs.
struct Resolve<'r, 'a> {
    fixtures: &'r [Fixture<'a>],
    parametrized: &'r [(Vec<String>, String)],
    bound: &'r mut Vec<String>,
    lines: &'r mut Vec<String>,
    /// The fixtures being resolved (a cycle is pytest's error, not a script).
    pending: Vec<String>,
}

impl Resolve<'_, '_> {
    /// Binds `name`; `has_default`: whether the asking parameter has a default (then a name
    /// nothing supplies is left to it), `None` for an autouse fixture. Whether it is bound.
    fn name(&mut self, name: &str, has_default: Option<bool>) -> Result<bool, String> {
        if self.bound.iter().any(|b| b == name) {
            return Ok(true);
        }
        if let Some((names, value)) = self
            .parametrized
            .iter()
            .find(|(n, _)| n.iter().any(|n| n == name))
        {
            self.lines.push(format!("{} = {value}", names.join(", ")));
            self.bound.extend(names.iter().cloned());
            return Ok(true);
        }
        let Some(fixture) = self.fixtures.iter().find(|f| f.name == name) else {
            return match has_default {
                Some(true) => Ok(false),
                _ if name == "request" => Err("the test needs pytest's `request` fixture".into()),
                _ => Err(format!(
                    "the test needs the fixture `{name}`, which the file does not define (pytest's own or a plugin's)"
                )),
            };
        };
        if fixture.parametrized {
            return Err(format!("the fixture `{name}` is parametrized (params=)"));
        }
        if self.pending.iter().any(|p| p == name) {
            return Err(format!("the fixture `{name}` asks for itself"));
        }
        self.pending.push(name.to_owned());
        let mut args = Vec::new();
        let parameters = &fixture.def.parameters;
        for param in parameters
            .posonlyargs
            .iter()
            .chain(&parameters.args)
            .chain(&parameters.kwonlyargs)
        {
            let asked = param.parameter.name.as_str();
            if self.name(asked, Some(param.default.is_some()))? {
                args.push(format!("{asked}={asked}"));
            }
        }
        self.pending.pop();
        let call = format!("{}({})", fixture.def.name.as_str(), args.join(", "));
        let value = match yields(fixture.def) {
            true => format!("next({call})"),
            false => call,
        };
        self.lines.push(format!("{name} = {value}"));
        self.bound.push(name.to_owned());
        Ok(true)
    }
}

/// The test function `test` names, at the top level or in its class.
fn find_test<'a>(body: &'a [Stmt], test: &PytestTest) -> Result<&'a ast::StmtFunctionDef, String> {
    let in_body = |body: &'a [Stmt]| {
        body.iter().find_map(|stmt| match stmt {
            Stmt::FunctionDef(def) if def.name.as_str() == test.function => Some(def),
            _ => None,
        })
    };
    let found = match &test.class {
        None => in_body(body),
        Some(class) => body.iter().find_map(|stmt| match stmt {
            Stmt::ClassDef(c) if c.name.as_str() == class => in_body(&c.body),
            _ => None,
        }),
    };
    found.ok_or_else(|| format!("the file defines no test function {}", test.function))
}

/// The fixture `def` is, if it is one; `Err` for a fixture a script cannot call.
fn fixture_of(def: &ast::StmtFunctionDef) -> Option<Result<Fixture<'_>, String>> {
    def.decorator_list.iter().find_map(|decorator| {
        let (callee, call) = match &decorator.expression {
            Expr::Call(call) => (&*call.func, Some(call)),
            other => (other, None),
        };
        let chain = dotted(callee);
        let is_fixture = chain == ["pytest", "fixture"] || chain == ["fixture"];
        if !is_fixture {
            return None;
        }
        let mut fixture = Fixture {
            def,
            name: def.name.to_string(),
            autouse: false,
            parametrized: false,
            decorator: decorator.range().into(),
        };
        for keyword in call.iter().flat_map(|c| c.arguments.keywords.iter()) {
            match (keyword.arg.as_ref().map(|a| a.as_str()), &keyword.value) {
                (Some("name"), Expr::StringLiteral(s)) => {
                    fixture.name = s.value.to_str().to_owned()
                }
                (Some("autouse"), Expr::BooleanLiteral(b)) => fixture.autouse = b.value,
                (Some("params"), _) => fixture.parametrized = true,
                (Some("name" | "autouse"), _) => {
                    return Some(Err(format!(
                        "the fixture {} has a computed name= or autouse=",
                        def.name
                    )))
                }
                _ => {}
            }
        }
        if def.is_async {
            return Some(Err(format!("the fixture {} is a coroutine", def.name)));
        }
        Some(Ok(fixture))
    })
}

/// The argument names of a `parametrize(...)` and the source of the chosen case's values.
fn chosen_case(
    source: &str,
    call: &ast::ExprCall,
    test: &PytestTest,
) -> Result<(Vec<String>, String), String> {
    let arguments = &call.arguments;
    if arguments
        .keywords
        .iter()
        .any(|k| k.arg.as_ref().is_some_and(|a| a.as_str() == "indirect"))
    {
        return Err("a parametrize is indirect (its values go through fixtures)".into());
    }
    let (Some(names), Some(values)) = (arguments.args.first(), arguments.args.get(1)) else {
        return Err("a parametrize without literal names and values".into());
    };
    let names: Vec<String> = match names {
        Expr::StringLiteral(s) => s
            .value
            .to_str()
            .split(',')
            .map(|n| n.trim().to_owned())
            .filter(|n| !n.is_empty())
            .collect(),
        Expr::List(ast::ExprList { elts, .. }) | Expr::Tuple(ast::ExprTuple { elts, .. }) => elts
            .iter()
            .map(|e| match e {
                Expr::StringLiteral(s) => Ok(s.value.to_str().to_owned()),
                _ => Err("a parametrize names its arguments by a computed value".to_owned()),
            })
            .collect::<Result<_, _>>()?,
        _ => return Err("a parametrize names its arguments by a computed value".into()),
    };
    let cases = match values {
        Expr::List(ast::ExprList { elts, .. }) | Expr::Tuple(ast::ExprTuple { elts, .. }) => elts,
        _ => return Err("a parametrize's cases are not a literal list".into()),
    };
    let index = match names.first().and_then(|n| test.indices.get(n)) {
        Some(&index) => index,
        None if cases.len() == 1 => 0,
        None => {
            return Err(format!(
                "which case of parametrize({:?}) ran is not known",
                names.join(",")
            ))
        }
    };
    let case = cases
        .get(index)
        .ok_or_else(|| format!("parametrize({:?}) has no case {index}", names.join(",")))?;
    let text = |e: &Expr| source[e.range()].to_owned();
    let value = match case {
        Expr::Call(param) if dotted(&param.func) == ["pytest", "param"] => param
            .arguments
            .args
            .iter()
            .map(text)
            .collect::<Vec<_>>()
            .join(", "),
        // One name gets the case itself (a tuple case stays a tuple); several unpack it.
        other => text(other),
    };
    if value.is_empty() {
        return Err("a pytest.param without values".into());
    }
    Ok((names, value))
}

/// `a.b.c` as `["a", "b", "c"]`; empty for anything else.
fn dotted(expr: &Expr) -> Vec<String> {
    match expr {
        Expr::Name(n) => vec![n.id.to_string()],
        Expr::Attribute(a) => {
            let mut chain = dotted(&a.value);
            if !chain.is_empty() {
                chain.push(a.attr.to_string());
            }
            chain
        }
        _ => Vec::new(),
    }
}

/// Whether `def`'s own body yields (a generator fixture).
fn yields(def: &ast::StmtFunctionDef) -> bool {
    struct Own(bool);
    impl Visitor<'_> for Own {
        fn visit_stmt(&mut self, stmt: &Stmt) {
            if !matches!(stmt, Stmt::FunctionDef(_) | Stmt::ClassDef(_)) {
                walk_stmt(self, stmt);
            }
        }
        fn visit_expr(&mut self, expr: &Expr) {
            match expr {
                Expr::Yield(_) | Expr::YieldFrom(_) => self.0 = true,
                Expr::Lambda(_) => {}
                _ => walk_expr(self, expr),
            }
        }
    }
    let mut own = Own(false);
    for stmt in &def.body {
        own.visit_stmt(stmt);
    }
    own.0
}

/// `range` (a decorator, after its `@`) widened to its whole lines, with the line break.
fn whole_lines(text: &str, range: &Range<usize>) -> Range<usize> {
    let start = text[..range.start].rfind('\n').map_or(0, |p| p + 1);
    let end = text[range.end..]
        .find('\n')
        .map_or(text.len(), |p| range.end + p + 1);
    start..end
}

#[cfg(test)]
mod tests;
