//! A project's kept modules inlined into its entry: one standalone file. Each module's text goes,
//! in dependency order (a module after those it imports, as Python runs them), where the entry
//! first imports a local module; imports of local modules go (`from .x import y`, `from pkg import
//! mod`, `import pkg.mod as m`: the names they bind become the definitions' names, `m.f` becomes
//! `f`), a module's `if __name__ == "__main__":` block goes (it did not run on import), and a
//! top-level name two files define differently is renamed in the later module (`name_module`).
//!
//! [`Standalone`] offers it as the set's one cross-document rewrite, so the engine judges the single
//! file like any candidate; [`inline_all`] says why a set cannot be one file.

use std::collections::BTreeMap;
use std::ops::Range;

use minrepro_pysyntax::{module_facts, Import, ModuleFacts};
use minrepro_text::{Content, Doc, SetRewrites};

use super::layout::{from_module, is_conftest, is_package, prefixes, Search};
use names::Names;

mod names;
#[cfg(test)]
mod tests;

/// What a name a module binds by importing a local module stands for.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Target {
    /// A local module (`import pkg.mod as m`, `from pkg import mod`).
    Module(String),
    /// A name of a local module (`from .x import y`).
    Value(String, String),
}

/// One file of the set, analysed.
struct Unit {
    /// Its module name (`None`: the entry).
    module: Option<String>,
    text: String,
    facts: ModuleFacts,
    /// Names bound by imports of local modules, and what they stand for.
    aliases: BTreeMap<String, Target>,
    /// The statements importing local modules.
    local_imports: Vec<Range<usize>>,
    /// `from __future__ import ...` statements.
    futures: Vec<Range<usize>>,
    /// What each name the file binds itself is (`def`, an assignment, `import numpy as np`).
    own: BTreeMap<String, String>,
    /// The local modules it imports (packages on the way included), in order.
    deps: Vec<usize>,
}

/// The set `docs` (entry first) as one file, or why it cannot be.
pub fn inline_all(docs: &[Doc], search: &Search) -> Result<Doc, String> {
    let modules: BTreeMap<String, usize> = docs
        .iter()
        .enumerate()
        .skip(1)
        .filter_map(|(i, d)| Some((search.module_name(&d.name)?, i)))
        .collect();
    let mut units = Vec::new();
    for (i, doc) in docs.iter().enumerate() {
        let text = doc
            .content
            .text()
            .ok_or_else(|| format!("{} is not text", doc.name))?;
        let module = (i > 0).then(|| search.module_name(&doc.name)).flatten();
        if i > 0 && module.is_none() {
            return Err(format!("{} is not a module the entry can import", doc.name));
        }
        units.push(analyse(doc, text, module, &modules)?);
    }
    // pytest loads the conftest.py files on the way to a test before the test module itself:
    // inlined, their fixtures come first, as if the entry imported them before anything.
    let conftests: Vec<usize> = (1..docs.len())
        .filter(|&i| is_conftest(&docs[i].name) && !units[0].deps.contains(&i))
        .collect();
    units[0].deps.splice(0..0, conftests.iter().copied());
    let order = dependency_order(&units, docs)?;
    let names = Names::assign(&units, &order, docs)?;
    let mut block = String::new();
    let mut futures = String::new();
    for &i in &order {
        let unit = &units[i];
        for range in &unit.futures {
            futures.push_str(&unit.text[range.clone()]);
            futures.push('\n');
        }
        let mut text = edited(unit, i, &units, &names, docs)?;
        if !text.is_empty() && !text.ends_with('\n') {
            text.push('\n');
        }
        block.push_str(&text);
    }
    let entry = &units[0];
    let mut text = edited(entry, 0, &units, &names, docs)?;
    // The entry's edits keep its first local import's range free (it became ""), so the block
    // goes at its start, shifted by the edits before it; with conftest files only, at the top.
    let at = match entry.local_imports.first() {
        Some(first) => shifted(entry, &names, 0, first.start, &units, docs)?,
        None if !conftests.is_empty() => 0,
        None => return Err("the entry imports no local module".into()),
    };
    text.insert_str(at, &block);
    text.insert_str(0, &futures);
    Ok(Doc {
        name: docs[0].name.clone(),
        content: Content::Text(text),
    })
}

/// The facts of one file and what its local imports bind.
fn analyse(
    doc: &Doc,
    text: &str,
    module: Option<String>,
    modules: &BTreeMap<String, usize>,
) -> Result<Unit, String> {
    let facts = module_facts(text).map_err(|p| format!("{} is not valid Python: {p}", doc.name))?;
    let package = is_package(&doc.name);
    let is_local = |m: &str| {
        modules.contains_key(m) || modules.keys().any(|k| k.starts_with(&format!("{m}.")))
    };
    let mut unit = Unit {
        module,
        text: text.to_owned(),
        facts: ModuleFacts::default(),
        aliases: BTreeMap::new(),
        local_imports: Vec::new(),
        futures: Vec::new(),
        own: BTreeMap::new(),
        deps: Vec::new(),
    };
    for import in &facts.imports {
        let from = from_module(import, unit.module.as_deref(), package);
        if import.from.as_deref() == Some("__future__") && import.level == 0 {
            unit.futures.push(import.range.clone());
            continue;
        }
        let local: Vec<bool> = match (&import.from, &from) {
            (None, _) => import.names.iter().map(|n| is_local(&n.name)).collect(),
            (Some(_), Some(from)) => vec![is_local(from); import.names.len()],
            (Some(_), None) => vec![false; import.names.len()],
        };
        if !local.iter().any(|&l| l) {
            if import.top_level {
                for name in &import.names {
                    let bound = bound_name(import, name);
                    unit.own.insert(bound, import_signature(import, name));
                }
            }
            continue;
        }
        if local.iter().any(|&l| !l) {
            return Err(format!(
                "{} imports local and other modules in one statement",
                doc.name
            ));
        }
        if !import.top_level {
            return Err(format!(
                "{} imports a local module inside a function, class or block",
                doc.name
            ));
        }
        unit.local_imports.push(import.range.clone());
        bind_local(&mut unit, import, from.as_deref(), modules, &doc.name)?;
    }
    for name in &facts.top_level_bindings {
        unit.own
            .entry(name.clone())
            .or_insert_with(|| format!("{}:{name}", doc.name));
    }
    unit.facts = facts;
    Ok(unit)
}

/// The name `import` binds for `name`.
fn bound_name(import: &Import, name: &minrepro_pysyntax::ImportedName) -> String {
    match (&name.asname, &import.from) {
        (Some(asname), _) => asname.clone(),
        (None, None) => name.name.split('.').next().unwrap_or("").to_owned(),
        (None, Some(_)) => name.name.clone(),
    }
}

/// What a name bound by a third-party import is: two files binding it alike do not clash.
fn import_signature(import: &Import, name: &minrepro_pysyntax::ImportedName) -> String {
    let bound = bound_name(import, name);
    match &import.from {
        None if name.asname.is_some() => format!("import {} as {bound}", name.name),
        None => format!("import {bound}"),
        Some(from) => format!(
            "from {from}:{} import {} as {bound}",
            import.level, name.name
        ),
    }
}

/// Records what a local import binds, and the modules it imports.
fn bind_local(
    unit: &mut Unit,
    import: &Import,
    from: Option<&str>,
    modules: &BTreeMap<String, usize>,
    doc: &str,
) -> Result<(), String> {
    let add_dep = |unit: &mut Unit, module: &str| {
        for prefix in prefixes(module) {
            // A module's own package and the packages around it are already initialising when
            // it runs (Python imports a parent before its submodules): no cycle.
            let enclosing = |own: &str| own == prefix || own.starts_with(&format!("{prefix}."));
            if unit.module.as_deref().is_some_and(enclosing) {
                continue;
            }
            if let Some(&i) = modules.get(&prefix) {
                if !unit.deps.contains(&i) {
                    unit.deps.push(i);
                }
            }
        }
    };
    for name in &import.names {
        if name.name == "*" {
            return Err(format!("{doc} imports * from a local module"));
        }
        let bound = bound_name(import, name);
        let target = match from {
            None => {
                add_dep(unit, &name.name);
                match &name.asname {
                    Some(_) => Target::Module(name.name.clone()),
                    None => Target::Module(bound.clone()),
                }
            }
            Some(from) => {
                let sub = format!("{from}.{}", name.name);
                if modules.contains_key(&sub) {
                    add_dep(unit, &sub);
                    Target::Module(sub)
                } else {
                    add_dep(unit, from);
                    Target::Value(from.to_owned(), name.name.clone())
                }
            }
        };
        unit.aliases.insert(bound, target);
    }
    Ok(())
}

/// The files reachable from the entry, each after the local modules it imports; an error on a
/// circular import.
fn dependency_order(units: &[Unit], docs: &[Doc]) -> Result<Vec<usize>, String> {
    fn visit(
        i: usize,
        units: &[Unit],
        docs: &[Doc],
        state: &mut Vec<u8>,
        out: &mut Vec<usize>,
    ) -> Result<(), String> {
        match state[i] {
            2 => return Ok(()),
            1 => return Err(format!("{} is part of a circular import", docs[i].name)),
            _ => {}
        }
        state[i] = 1;
        for &dep in &units[i].deps {
            visit(dep, units, docs, state, out)?;
        }
        state[i] = 2;
        out.push(i);
        Ok(())
    }
    let mut state = vec![0u8; units.len()];
    let mut out = Vec::new();
    for &dep in &units[0].deps {
        visit(dep, units, docs, &mut state, &mut out)?;
    }
    if out.contains(&0) {
        return Err(format!("a module imports the entry {}", docs[0].name));
    }
    Ok(out)
}

/// The edits of file `i`: (range, replacement), sorted, not overlapping.
fn edits(
    unit: &Unit,
    i: usize,
    units: &[Unit],
    names: &Names,
    docs: &[Doc],
) -> Result<Vec<(Range<usize>, String)>, String> {
    let mut out: Vec<(Range<usize>, String)> = Vec::new();
    for range in unit.local_imports.iter().chain(&unit.futures) {
        out.push((range.clone(), statement_gone(&unit.text, range)));
    }
    if i > 0 {
        for range in &unit.facts.main_blocks {
            out.push((range.clone(), String::new()));
        }
    }
    // Attribute chains on module names: `m.f` → f's name.
    let mut covered: Vec<Range<usize>> = Vec::new();
    for chain in &unit.facts.attributes {
        if covered
            .iter()
            .any(|c| c.start <= chain.range.start && chain.range.end <= c.end)
        {
            continue;
        }
        let Some(Target::Module(base)) = unit.aliases.get(&chain.chain[0]) else {
            continue;
        };
        let mut module = base.clone();
        let mut k = 1;
        while k < chain.chain.len() - 1
            && names
                .modules
                .contains_key(&format!("{module}.{}", chain.chain[k]))
        {
            module = format!("{module}.{}", chain.chain[k]);
            k += 1;
        }
        if k != chain.chain.len() - 1 {
            continue; // an inner chain (`pkg.mod` of `pkg.mod.f`) is covered by the outer one
        }
        if chain.binds {
            return Err(format!(
                "{} assigns to an attribute of the module {module}",
                docs[i].name
            ));
        }
        let value = names.value(units, &module, &chain.chain[k], 0)?;
        out.push((chain.range.clone(), value));
        covered.push(chain.range.clone());
    }
    for r in &unit.facts.names {
        let in_chain = covered
            .iter()
            .any(|c| c.start <= r.range.start && r.range.end <= c.end);
        let new = match unit.aliases.get(&r.id) {
            Some(_) if in_chain => continue,
            Some(_) if r.binds || unit.facts.inner_bindings.contains(&r.id) => {
                return Err(format!(
                    "{} rebinds {}, a name it imports from a local module",
                    docs[i].name, r.id
                ))
            }
            Some(Target::Module(m)) => {
                return Err(format!("{} uses the module {m} as a value", docs[i].name))
            }
            Some(Target::Value(m, n)) => names.value(units, m, n, 0)?,
            None => match names.renamed.get(&(i, r.id.clone())) {
                Some(new) => new.clone(),
                None => continue,
            },
        };
        if new != r.id {
            out.push((r.range.clone(), new));
        }
    }
    out.sort_by_key(|(r, _)| (r.start, r.end));
    // Edits inside a removed statement or block go with it.
    let mut kept: Vec<(Range<usize>, String)> = Vec::new();
    for (range, new) in out {
        if let Some((last, _)) = kept.last() {
            if range.start < last.end {
                if range.end <= last.end {
                    continue;
                }
                return Err(format!("{}: overlapping edits", docs[i].name));
            }
        }
        kept.push((range, new));
    }
    Ok(kept)
}

/// What replaces a removed statement: nothing when it is alone on its line, else `pass`.
fn statement_gone(text: &str, range: &Range<usize>) -> String {
    let line_start = text[..range.start].rfind('\n').map_or(0, |p| p + 1);
    let rest = &text[range.end..];
    let line_end = rest.find('\n').unwrap_or(rest.len());
    let after = rest[..line_end].trim();
    let alone = text[line_start..range.start].trim().is_empty()
        && (after.is_empty() || after.starts_with('#'));
    match alone {
        true => String::new(),
        false => "pass".to_owned(),
    }
}

/// File `i`'s text with its edits.
fn edited(
    unit: &Unit,
    i: usize,
    units: &[Unit],
    names: &Names,
    docs: &[Doc],
) -> Result<String, String> {
    let mut text = unit.text.clone();
    for (range, new) in edits(unit, i, units, names, docs)?.into_iter().rev() {
        text.replace_range(range, &new);
    }
    Ok(text)
}

/// Where offset `at` of file `i`'s text is in its edited text.
fn shifted(
    unit: &Unit,
    names: &Names,
    i: usize,
    at: usize,
    units: &[Unit],
    docs: &[Doc],
) -> Result<usize, String> {
    let mut pos = at as isize;
    for (range, new) in edits(unit, i, units, names, docs)? {
        if range.end <= at {
            pos += new.len() as isize - range.len() as isize;
        }
    }
    Ok(pos as usize)
}

/// The set's one rewrite: every kept module inlined into the entry (see the module
/// documentation).
#[derive(Debug, Clone)]
pub struct Standalone {
    /// The directories modules are found in (see `Project::search`).
    pub search: Search,
    /// The Python 3 minor version the file must be valid for.
    pub minor: u8,
}

impl SetRewrites for Standalone {
    fn name(&self) -> &'static str {
        "inline-modules"
    }

    fn sites(&self, docs: &[Doc]) -> Vec<(usize, Range<usize>)> {
        match docs.len() > 1 && inline_all(docs, &self.search).is_ok() {
            true => vec![(0, 0..0)],
            false => Vec::new(),
        }
    }

    fn apply(&self, docs: &[Doc], chosen: &[usize]) -> Option<Vec<Doc>> {
        if chosen.is_empty() {
            return Some(docs.to_vec());
        }
        let doc = inline_all(docs, &self.search).ok()?;
        let valid = minrepro_pysyntax::check_valid_for(doc.content.text()?, self.minor).is_ok();
        valid.then(|| vec![doc])
    }
}
