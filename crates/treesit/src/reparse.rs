//! Re-parsing a candidate from the parse of the text it was made from. A candidate differs from
//! its source in one span (everything between the longest common prefix and the longest common
//! suffix), so the source's tree, told of that one edit, lets tree-sitter reuse every subtree
//! outside it: checking a candidate then costs what its changed span costs, not what the whole
//! input costs (a fresh parse of a megabyte of C++ takes a third of a second).

use tree_sitter::{InputEdit, Point, Tree};

/// The one edit that turns `source` into `edited`: the bytes between their common prefix and
/// their common suffix (the suffix never overlapping the prefix), with tree-sitter's points.
pub fn edit_between(source: &str, edited: &str) -> InputEdit {
    let (old, new) = (source.as_bytes(), edited.as_bytes());
    let prefix = old.iter().zip(new).take_while(|(a, b)| a == b).count();
    let room = old.len().min(new.len()) - prefix;
    let suffix = old
        .iter()
        .rev()
        .zip(new.iter().rev())
        .take(room)
        .take_while(|(a, b)| a == b)
        .count();
    let (old_end, new_end) = (old.len() - suffix, new.len() - suffix);
    InputEdit {
        start_byte: prefix,
        old_end_byte: old_end,
        new_end_byte: new_end,
        start_position: point_at(old, prefix),
        old_end_position: point_at(old, old_end),
        new_end_position: point_at(new, new_end),
    }
}

/// The row and byte column of `offset` in `text`.
fn point_at(text: &[u8], offset: usize) -> Point {
    let before = &text[..offset];
    let row = before.iter().filter(|&&b| b == b'\n').count();
    let line_start = before
        .iter()
        .rposition(|&b| b == b'\n')
        .map_or(0, |at| at + 1);
    Point::new(row, offset - line_start)
}

/// `tree` (the parse of `source`) told of the edit that makes `edited`, ready to be handed to
/// the parser as the old tree of `edited`'s parse.
pub fn edited_tree(tree: &Tree, source: &str, edited: &str) -> Tree {
    let mut tree = tree.clone();
    tree.edit(&edit_between(source, edited));
    tree
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_edit_spans_what_changed_and_no_more() {
        let edit = edit_between("ab\ncd\nef", "ab\nef");
        assert_eq!(
            (edit.start_byte, edit.old_end_byte, edit.new_end_byte),
            (3, 6, 3)
        );
        assert_eq!(edit.start_position, Point::new(1, 0));
        assert_eq!(edit.old_end_position, Point::new(2, 0));
        assert_eq!(edit.new_end_position, Point::new(1, 0));
        // A repeated letter: the suffix may not reach back into the prefix.
        let edit = edit_between("aaa", "aa");
        assert_eq!(
            (edit.start_byte, edit.old_end_byte, edit.new_end_byte),
            (2, 3, 2)
        );
        let same = edit_between("x\ny", "x\ny");
        assert_eq!(
            (same.start_byte, same.old_end_byte, same.new_end_byte),
            (3, 3, 3)
        );
    }
}
