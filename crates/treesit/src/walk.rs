//! A preorder walk of a whole tree with each node's depth, for the passes that read every node
//! once (names, references).
//!
//! The depth is counted by the walk itself: `TreeCursor::depth` recounts the cursor's whole
//! stack on every call, which makes a walk that asks it at every node quadratic in the nesting
//! (a 1,000-level input then costs a million steps per listing).

use tree_sitter::{Tree, TreeCursor};

/// Calls `visit(cursor, depth)` at every node of `tree` in preorder (the root at depth 0; the
/// cursor stands on the node, so its field name is at hand).
pub(crate) fn preorder<'t>(tree: &'t Tree, mut visit: impl FnMut(&TreeCursor<'t>, usize)) {
    let mut cursor = tree.walk();
    let mut depth = 0;
    loop {
        visit(&cursor, depth);
        if cursor.goto_first_child() {
            depth += 1;
            continue;
        }
        while !cursor.goto_next_sibling() {
            if !cursor.goto_parent() {
                return;
            }
            depth -= 1;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn depths_are_the_cursors_own() {
        let mut parser = crate::by_name("json").unwrap().parser().unwrap();
        let tree = parser.parse("[1, [2, [3]], {\"a\": [4]}]", None).unwrap();
        let mut seen = 0;
        preorder(&tree, |cursor, depth| {
            assert_eq!(depth, cursor.depth() as usize, "{:?}", cursor.node());
            seen += 1;
        });
        assert!(seen > 10, "{seen} nodes");
    }
}
