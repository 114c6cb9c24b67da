//! The names of the single file: a module's top-level name that another file binds differently
//! is renamed (the module's last name part as a suffix); a value imported from a local module is
//! followed through re-exports to the definition's name.

use std::collections::BTreeMap;

use minrepro_text::Doc;

use super::{Target, Unit};

/// The name every file's own top-level names have in the single file.
pub(super) struct Names {
    /// (file, name) → its name there, for the names that change.
    pub(super) renamed: BTreeMap<(usize, String), String>,
    /// Module name → file.
    pub(super) modules: BTreeMap<String, usize>,
}

impl Names {
    /// The entry keeps its names; a module's name already taken by another file's different
    /// binding gets the module's last name part as a suffix.
    pub(super) fn assign(units: &[Unit], order: &[usize], docs: &[Doc]) -> Result<Names, String> {
        let mut taken: BTreeMap<String, String> = units[0].own.clone();
        let mut renamed = BTreeMap::new();
        for &i in order {
            let unit = &units[i];
            for (name, what) in &unit.own {
                match taken.get(name) {
                    None => {
                        taken.insert(name.clone(), what.clone());
                    }
                    Some(other) if other == what => {}
                    Some(_) => {
                        if what.starts_with("import ") || what.starts_with("from ") {
                            return Err(format!(
                                "{} imports {name}, which another file defines",
                                docs[i].name
                            ));
                        }
                        if unit.facts.inner_bindings.contains(name) {
                            return Err(format!(
                                "{name} of {} clashes with another file's and is also a local name there",
                                docs[i].name
                            ));
                        }
                        let module = unit.module.as_deref().unwrap_or("main");
                        let tail = module.rsplit('.').next().unwrap_or(module);
                        let mut new = format!("{name}_{tail}");
                        let mut n = 2;
                        while taken.contains_key(&new) {
                            new = format!("{name}_{tail}{n}");
                            n += 1;
                        }
                        taken.insert(new.clone(), what.clone());
                        renamed.insert((i, name.clone()), new);
                    }
                }
            }
        }
        // A module's name that is not its own (a builtin) must not meet another file's.
        for &i in order {
            let unit = &units[i];
            for r in unit.facts.names.iter().filter(|r| !r.binds) {
                let foreign = !unit.own.contains_key(&r.id) && !unit.aliases.contains_key(&r.id);
                if foreign
                    && taken.contains_key(&r.id)
                    && !unit.facts.inner_bindings.contains(&r.id)
                {
                    return Err(format!(
                        "{} uses {} (not its own), which another file defines",
                        docs[i].name, r.id
                    ));
                }
            }
        }
        let modules = units
            .iter()
            .enumerate()
            .filter_map(|(i, u)| Some((u.module.clone()?, i)))
            .collect();
        Ok(Names { renamed, modules })
    }

    /// The single file's name of `name` as file `i` binds it itself.
    pub(super) fn own(&self, i: usize, name: &str) -> String {
        self.renamed
            .get(&(i, name.to_owned()))
            .cloned()
            .unwrap_or_else(|| name.to_owned())
    }

    /// The single file's name of the value `name` of module `module`, following re-exports.
    pub(super) fn value(
        &self,
        units: &[Unit],
        module: &str,
        name: &str,
        depth: usize,
    ) -> Result<String, String> {
        let &i = self
            .modules
            .get(module)
            .ok_or_else(|| format!("the namespace package {module} has no {name}"))?;
        if depth > 32 {
            return Err(format!("{module}.{name} re-exports itself"));
        }
        let unit = &units[i];
        match unit.aliases.get(name) {
            Some(Target::Value(m, n)) => self.value(units, m, n, depth + 1),
            Some(Target::Module(m)) => Err(format!(
                "{module}.{name} is the module {m}, used as a value"
            )),
            None if unit.own.contains_key(name) => Ok(self.own(i, name)),
            None => Err(format!("{module} has no top-level {name}")),
        }
    }
}
