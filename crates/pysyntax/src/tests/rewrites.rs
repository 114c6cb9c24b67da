//! The table of rewrite expectations, `rewrites.json`: one rewrite kind on one source, what it
//! must offer. Each entry has `test` (the subject it belongs to), `kind`, `source` and `gives`:
//! texts that some rewrite of that kind must give, each valid Python; an empty `gives` says
//! that no rewrite of that kind is offered. `note` says why where it is not plain. The group is
//! the kind's own (`KINDS`).

use serde_json::Value;

use super::{assert_none, assert_rewrite};
use crate::KINDS;

#[test]
fn every_rewrite_expectation_holds() {
    let table: Vec<Value> = serde_json::from_str(include_str!("rewrites.json")).unwrap();
    assert!(table.len() > 150, "{} entries", table.len());
    for entry in &table {
        let field = |name: &str| {
            entry[name]
                .as_str()
                .unwrap_or_else(|| panic!("{name}: {entry}"))
        };
        let kind = field("kind");
        let &(_, group) = KINDS
            .iter()
            .find(|(k, _)| *k == kind)
            .unwrap_or_else(|| panic!("unknown kind {kind}"));
        // On failure, the panic below follows this line in the test's captured output.
        println!("{} ({kind})", field("test"));
        let gives = entry["gives"].as_array().expect("gives: a list of texts");
        if gives.is_empty() {
            assert_none(field("source"), group, kind);
        }
        for expected in gives {
            assert_rewrite(field("source"), group, kind, expected.as_str().unwrap());
        }
    }
}
