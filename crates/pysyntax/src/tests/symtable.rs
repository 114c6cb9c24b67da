//! [`crate::scopes::Resolution`] against CPython's `symtable` module: for every name expression
//! of real modules (the benchmark cases, standard-library modules) and a module of corner cases,
//! whether it means the module's name, a local of its scope or an enclosing function's.

/// For every name expression of a module (walrus targets excepted): `line:column name where`,
/// where `where` is `module`, `local` or `enclosing` by CPython's symbol table of the scope the
/// expression stands in (`?` for a name it does not list: an annotation that is never
/// evaluated).
const SYMTABLE: &str = r#"
import ast, sys, symtable
source = sys.stdin.buffer.read().decode("utf-8")
tree = ast.parse(source)
top = symtable.symtable(source, "module.py", "exec")
used = set()
def child(table, name, line, decorators=()):
    lines = {line} | {d.lineno for d in decorators}
    for c in table.get_children():
        if c.get_id() not in used and c.get_name() == name and c.get_lineno() in lines:
            used.add(c.get_id())
            return c
    raise SystemExit("no table %s at %d" % (name, line))
walrus = set()
out = []
def where(table, name):
    if table.get_type() == "module":
        return "module"
    try:
        s = table.lookup(name)
    except KeyError:
        # Not evaluated (an annotation under `from __future__ import annotations`).
        return "?"
    if s.is_global():
        return "module"
    if s.is_free():
        return "enclosing"
    return "local"
def args_outside(a, table):
    for d in a.defaults + [d for d in a.kw_defaults if d]:
        visit(d, table)
    for p in a.posonlyargs + a.args + a.kwonlyargs + [a.vararg, a.kwarg]:
        if p and p.annotation:
            visit(p.annotation, table)
COMPS = {ast.ListComp: "listcomp", ast.SetComp: "setcomp", ast.DictComp: "dictcomp", ast.GeneratorExp: "genexpr"}
def visit(node, table):
    if isinstance(node, ast.Name):
        if id(node) not in walrus:
            out.append("%d:%d %s %s" % (node.lineno, node.col_offset, node.id, where(table, node.id)))
        return
    if isinstance(node, ast.NamedExpr):
        walrus.add(id(node.target))
    if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
        for d in node.decorator_list:
            visit(d, table)
        args_outside(node.args, table)
        if node.returns:
            visit(node.returns, table)
        inner = child(table, node.name, node.lineno, node.decorator_list)
        for s in node.body:
            visit(s, inner)
        return
    if isinstance(node, ast.Lambda):
        args_outside(node.args, table)
        visit(node.body, child(table, "lambda", node.lineno))
        return
    if isinstance(node, ast.ClassDef):
        for d in node.decorator_list + node.bases + [k.value for k in node.keywords]:
            visit(d, table)
        inner = child(table, node.name, node.lineno, node.decorator_list)
        for s in node.body:
            visit(s, inner)
        return
    if type(node) in COMPS:
        visit(node.generators[0].iter, table)
        inner = child(table, COMPS[type(node)], node.lineno)
        for i, g in enumerate(node.generators):
            if i:
                visit(g.iter, inner)
            visit(g.target, inner)
            for c in g.ifs:
                visit(c, inner)
        for e in ([node.key, node.value] if isinstance(node, ast.DictComp) else [node.elt]):
            visit(e, inner)
        return
    for c in ast.iter_child_nodes(node):
        visit(c, table)
for s in tree.body:
    visit(s, top)
print("\n".join(sorted(out)))
"#;

/// The same listing from [`crate::scopes::Resolution`].
fn resolved_names(source: &str) -> String {
    use crate::scopes::{Resolution, MODULE};
    let parsed = ruff_python_parser::parse_module(source).expect("parses");
    let resolution = Resolution::of(&parsed.syntax().body);
    let mut seen = std::collections::HashSet::new();
    let mut out = Vec::new();
    for r in &resolution.references {
        // The name expression's own resolution (not the module load a class body adds), once.
        let walrus_target = r.usage == crate::scopes::Use::Bind
            && crate::text::line_start(source, r.at.start) != r.at.start
            && source[r.at.end..].trim_start().starts_with(":=");
        if resolution.scope_of(r.at.start) != Some(r.scope) || walrus_target {
            continue;
        }
        if !seen.insert(r.at.start) {
            continue;
        }
        let place = if r.occurs == MODULE || r.scope == MODULE {
            "module"
        } else if r.scope == r.occurs {
            "local"
        } else {
            "enclosing"
        };
        let line = crate::text::line_of(source, r.at.start);
        let column = r.at.start - crate::text::line_start(source, r.at.start);
        out.push(format!("{line}:{column} {} {place}", r.name));
    }
    out.sort();
    out.join("\n")
}

#[test]
fn resolution_agrees_with_cpython_symtable() {
    let tricky = "x = 1\nclass C:\n    x = x\n    y = [x for _ in ()]\n    def m(self):\n        return x\n\
                  def f(a, b=x):\n    c = a\n    def g():\n        nonlocal c\n        c = b\n        return [c for c in c]\n    global d\n    d = lambda e, a=a: (e, a, c)\n    return g\n\
                  def h():\n    del x\n    if (n := 1):\n        return n\n";
    let mut modules = super::prepared::corpus();
    modules.push(("tricky.py".to_string(), tricky.to_string()));
    for (name, text) in modules {
        // The module goes through stdin: no scratch file to leave behind.
        let mut child = std::process::Command::new("python3")
            .args(["-c", SYMTABLE])
            .stdin(std::process::Stdio::piped())
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::piped())
            .spawn()
            .expect("python3 runs");
        let mut stdin = child.stdin.take().expect("stdin");
        std::io::Write::write_all(&mut stdin, text.as_bytes()).expect("write module");
        drop(stdin);
        let output = child.wait_with_output().expect("python3 ends");
        assert!(
            output.status.success(),
            "{name}: {}",
            String::from_utf8_lossy(&output.stderr)
        );
        let stdout = String::from_utf8_lossy(&output.stdout);
        let expected: Vec<&str> = stdout.lines().collect();
        let got = resolved_names(&text);
        let got: Vec<&str> = got.lines().collect();
        assert_eq!(expected.len(), got.len(), "{name}: name expressions");
        assert!(expected.len() > 3, "{name}: {stdout}");
        let differences: Vec<_> = expected
            .iter()
            .zip(&got)
            .filter(|(e, g)| e != g && !e.ends_with(" ?"))
            .take(5)
            .collect();
        assert!(
            differences.is_empty(),
            "{name}: first differences (cpython, ours): {differences:#?}"
        );
    }
}
