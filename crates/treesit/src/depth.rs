//! The depth chains of a parse tree: named nodes nested in nodes of the same kind (calls in
//! calls' arguments, blocks in blocks, arrays in arrays), as the text layer's depth sites
//! (`minrepro_text::depth_chains`), cut by bisection in the group `syntax-depth`.

use minrepro_text::Site;
use tree_sitter::Tree;

/// The levels of `tree`'s depth chains, as `minrepro_text::depth_sites`. The walk is
/// iterative: a tree nested tens of thousands deep is fine.
pub fn depth_sites(tree: &Tree) -> Vec<Site> {
    let mut nodes = Vec::new();
    let mut cursor = tree.walk();
    loop {
        let node = cursor.node();
        let range = node.byte_range();
        if node.is_named() && !node.is_extra() && !node.is_error() && !range.is_empty() {
            nodes.push((u32::from(node.kind_id()), range));
        }
        if cursor.goto_first_child() {
            continue;
        }
        while !cursor.goto_next_sibling() {
            if !cursor.goto_parent() {
                return minrepro_text::depth_sites(&minrepro_text::depth_chains(&nodes));
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::by_name;

    #[test]
    fn nested_calls_are_one_chain_cut_from_the_top() {
        let grammar = by_name("python").unwrap();
        let mut text = "x".to_owned();
        for level in 0..9 {
            text = format!("f{level}({text}, {level})");
        }
        let text = format!("y = {text}\n");
        let tree = grammar.parser().unwrap().parse(&text, None).unwrap();
        let sites = depth_sites(&tree);
        // Eight levels of calls (the arguments' lists interleave with them: not a chain of
        // their own), two parts each.
        assert_eq!(sites.len(), 16, "{sites:?}");
        let two: Vec<&Site> = sites[..4].iter().collect();
        let cut = minrepro_text::splice(&text, &two);
        assert!(cut.starts_with("y = f6(f5("), "{cut}");
        assert!(cut.ends_with(", 5), 6)\n"), "{cut}");
        let tree = grammar.parser().unwrap().parse(&cut, None).unwrap();
        assert!(!tree.root_node().has_error());
    }
}
