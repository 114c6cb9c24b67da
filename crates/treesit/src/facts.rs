//! What a grammar's `node-types.json` says about each node kind's children: for every field
//! (and the unnamed children) whether it is required, whether it repeats, and which named
//! kinds it accepts (supertypes such as `_expression` expanded to their concrete kinds).

use std::collections::{BTreeSet, HashMap};

use serde_json::Value;

use crate::GrammarError;

/// A field of a node kind, or its unnamed children.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Slot {
    /// Whether the slot may hold several nodes.
    pub multiple: bool,
    /// Whether the slot must hold at least one node.
    pub required: bool,
    /// The named node kinds the slot accepts.
    pub kinds: BTreeSet<String>,
    /// The kinds of each type the slot lists (a supertype such as `_expression` expanded, a
    /// concrete kind alone).
    pub families: Vec<BTreeSet<String>>,
}

impl Slot {
    /// Whether a node of kind `to` may replace one of kind `from` in this slot: both are the
    /// same kind or belong to one listed type (both expressions, both statements), not merely
    /// both accepted (a declaration is not replaced by its type specifier).
    pub fn compatible(&self, from: &str, to: &str) -> bool {
        from == to
            || self
                .families
                .iter()
                .any(|family| family.contains(from) && family.contains(to))
    }
}

/// The slots of every node kind of a grammar.
#[derive(Debug, Clone, Default)]
pub struct Facts {
    /// (parent kind, field name or `None` for the unnamed children) → slot.
    slots: HashMap<(String, Option<String>), Slot>,
}

impl Facts {
    /// Reads a grammar's `node-types.json`.
    pub fn parse(node_types: &str) -> Result<Facts, GrammarError> {
        let bad = |why: &str| GrammarError::NodeTypes(why.to_owned());
        let entries: Vec<Value> =
            serde_json::from_str(node_types).map_err(|e| bad(&e.to_string()))?;
        // Supertypes first: their subtypes, named or not.
        let mut subtypes: HashMap<&str, Vec<(&str, bool)>> = HashMap::new();
        for entry in &entries {
            if let (Some(name), Some(list)) = (entry["type"].as_str(), entry["subtypes"].as_array())
            {
                subtypes.insert(name, list.iter().filter_map(kind_of).collect());
            }
        }
        let mut facts = Facts::default();
        for entry in &entries {
            let Some(parent) = entry["type"].as_str() else {
                return Err(bad("an entry without a type"));
            };
            if entry["named"] != Value::Bool(true) {
                continue;
            }
            let mut add = |field: Option<String>, slot: &Value| {
                let types = slot["types"].as_array();
                let families: Vec<BTreeSet<String>> = types
                    .into_iter()
                    .flatten()
                    .map(|one| expand(Some(&vec![one.clone()]), &subtypes))
                    .filter(|family| !family.is_empty())
                    .collect();
                let slot = Slot {
                    multiple: slot["multiple"].as_bool().unwrap_or(false),
                    required: slot["required"].as_bool().unwrap_or(false),
                    kinds: families.iter().flatten().cloned().collect(),
                    families,
                };
                facts.slots.insert((parent.to_owned(), field), slot);
            };
            if let Some(fields) = entry["fields"].as_object() {
                for (name, slot) in fields {
                    add(Some(name.clone()), slot);
                }
            }
            if entry["children"].is_object() {
                add(None, &entry["children"]);
            }
        }
        Ok(facts)
    }

    /// The slot `field` (`None`: the unnamed children) of nodes of kind `parent`.
    pub fn slot(&self, parent: &str, field: Option<&str>) -> Option<&Slot> {
        // Owned keys: node-types are few, lookups are per node per preparation.
        self.slots
            .get(&(parent.to_owned(), field.map(str::to_owned)))
    }
}

fn kind_of(value: &Value) -> Option<(&str, bool)> {
    Some((value["type"].as_str()?, value["named"].as_bool()?))
}

/// The named concrete kinds of `types`, supertypes expanded (recursively, cycles ignored).
fn expand(
    types: Option<&Vec<Value>>,
    subtypes: &HashMap<&str, Vec<(&str, bool)>>,
) -> BTreeSet<String> {
    let mut out = BTreeSet::new();
    let mut stack: Vec<(&str, bool)> = types.into_iter().flatten().filter_map(kind_of).collect();
    let mut seen = BTreeSet::new();
    while let Some((kind, named)) = stack.pop() {
        if !named || !seen.insert(kind) {
            continue;
        }
        match subtypes.get(kind) {
            Some(list) => stack.extend(list.iter().copied()),
            None => {
                out.insert(kind.to_owned());
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn c_facts_know_optional_and_repeated_slots() {
        let facts = Facts::parse(tree_sitter_c::NODE_TYPES).unwrap();
        let alternative = facts.slot("if_statement", Some("alternative")).unwrap();
        assert!(!alternative.required);
        assert!(alternative.kinds.contains("else_clause"));
        let condition = facts.slot("if_statement", Some("condition")).unwrap();
        assert!(condition.required && !condition.multiple);
        let block = facts.slot("compound_statement", None).unwrap();
        assert!(block.multiple && !block.required);
        // `_statement` and `_expression` are expanded.
        assert!(block.kinds.contains("return_statement"));
        let args = facts.slot("argument_list", None).unwrap();
        assert!(args.kinds.contains("call_expression"));
        assert!(!args.kinds.iter().any(|k| k.starts_with('_')));
        assert!(block.compatible("if_statement", "compound_statement"));
        assert!(!block.compatible("declaration", "primitive_type"));
    }
}
