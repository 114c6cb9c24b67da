//! A preorder walk of a whole tree with each node's depth, for the passes that read every node
//! once (names, references).
//!
//! The depth is counted by the walk itself: `TreeCursor::depth` recounts the cursor's whole
//! stack on every call, which makes a walk that asks it at every node quadratic in the nesting
//! (a 1,000-level input then costs a million steps per listing). So is each node's parent:
//! `Node::parent` searches down from the root through the earlier siblings at every level,
//! which over a whole tree (every declared name asks for its parent) costs the square of a
//! translation unit's top-level declarations.

use tree_sitter::{Node, Tree, TreeCursor};

/// Calls `visit(cursor, depth, parent)` at every node of `tree` in preorder (the root at depth 0
/// and without a parent; the cursor stands on the node, so its field name is at hand).
pub(crate) fn preorder<'t>(
    tree: &'t Tree,
    mut visit: impl FnMut(&TreeCursor<'t>, usize, Option<Node<'t>>),
) {
    let mut cursor = tree.walk();
    // The ancestors of the cursor's node, the root first: its depth is their number.
    let mut ancestors: Vec<Node<'t>> = Vec::new();
    loop {
        visit(&cursor, ancestors.len(), ancestors.last().copied());
        let node = cursor.node();
        if cursor.goto_first_child() {
            ancestors.push(node);
            continue;
        }
        while !cursor.goto_next_sibling() {
            if !cursor.goto_parent() {
                return;
            }
            ancestors.pop();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn depths_and_parents_are_the_cursors_own() {
        let mut parser = crate::by_name("json").unwrap().parser().unwrap();
        let tree = parser.parse("[1, [2, [3]], {\"a\": [4]}]", None).unwrap();
        let mut seen = 0;
        preorder(&tree, |cursor, depth, parent| {
            assert_eq!(depth, cursor.depth() as usize, "{:?}", cursor.node());
            assert_eq!(parent, cursor.node().parent());
            seen += 1;
        });
        assert!(seen > 10, "{seen} nodes");
    }
}
