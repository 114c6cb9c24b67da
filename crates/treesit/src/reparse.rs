//! Re-parsing a candidate from the parse of the text it was made from. A candidate differs from
//! its source in one span (everything between the longest common prefix and the longest common
//! suffix), so the source's tree, told of that one edit, lets tree-sitter reuse every subtree
//! outside it: checking a candidate then costs what its changed span costs, not what the whole
//! input costs (a fresh parse of a megabyte of C++ takes a third of a second).

use minrepro_text::SplicedSpan;
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

/// `tree` (the parse of `source`) told of each span `spans` replaced in `source` to make
/// `edited` (in text order, see `minrepro_text::splice_spans`): the text kept between two
/// spans stays reusable, where one edit from the first span to the last would make the parser
/// read all of it again.
pub fn tree_edited_by(tree: &Tree, source: &str, edited: &str, spans: &[SplicedSpan]) -> Tree {
    let mut tree = tree.clone();
    for edit in span_edits(source, edited, spans).iter().rev() {
        // Last first: an edit's positions in `source` still hold once the later ones are made.
        tree.edit(edit);
    }
    tree
}

/// The edits of `spans` (ascending, disjoint ranges of `source`), each in the positions of
/// `source` with the later spans already replaced (the order the tree is told of them): one
/// pass over the text for all of them.
fn span_edits(source: &str, edited: &str, spans: &[SplicedSpan]) -> Vec<InputEdit> {
    let (old, new) = (source.as_bytes(), edited.as_bytes());
    let mut points = Points::default();
    // Where a span's replacement is in `edited`: shifted by what the earlier spans added or
    // removed.
    let mut shift: isize = 0;
    let mut edits = Vec::with_capacity(spans.len());
    for (range, replaced_by) in spans {
        let start_position = points.advance(old, range.start);
        let old_end_position = points.advance(old, range.end);
        let in_edited = range.start.wrapping_add_signed(shift);
        let replacement = &new[in_edited..in_edited + replaced_by];
        edits.push(InputEdit {
            start_byte: range.start,
            old_end_byte: range.end,
            new_end_byte: range.start + replaced_by,
            start_position,
            old_end_position,
            new_end_position: point_after(start_position, replacement),
        });
        shift += *replaced_by as isize - range.len() as isize;
    }
    edits
}

/// A forward scan of a text's rows: the point of each offset asked, in ascending order.
#[derive(Default)]
struct Points {
    offset: usize,
    row: usize,
    line_start: usize,
}

impl Points {
    /// The point of `offset` (not before the last one asked) in `text`.
    fn advance(&mut self, text: &[u8], offset: usize) -> Point {
        for (at, &byte) in text[self.offset..offset].iter().enumerate() {
            if byte == b'\n' {
                self.row += 1;
                self.line_start = self.offset + at + 1;
            }
        }
        self.offset = offset;
        Point::new(self.row, offset - self.line_start)
    }
}

/// The point after `inserted` written at `start`.
fn point_after(start: Point, inserted: &[u8]) -> Point {
    match inserted.iter().rposition(|&b| b == b'\n') {
        Some(last) => Point::new(
            start.row + inserted.iter().filter(|&&b| b == b'\n').count(),
            inserted.len() - last - 1,
        ),
        None => Point::new(start.row, start.column + inserted.len()),
    }
}

/// The number of `ERROR` and `MISSING` nodes of `tree`.
pub fn error_count(tree: &tree_sitter::Tree) -> usize {
    let root = tree.root_node();
    if !root.has_error() {
        return 0;
    }
    let mut count = 0;
    let mut stack = vec![root];
    while let Some(node) = stack.pop() {
        if node.is_error() || node.is_missing() {
            count += 1;
        }
        if node.has_error() {
            let mut cursor = node.walk();
            stack.extend(node.children(&mut cursor));
        }
    }
    count
}

#[cfg(test)]
mod tests {
    use super::*;
    use minrepro_text::{splice_spans, Site};

    /// A few disjoint sites of `text` (ASCII), chosen by a small generator from `seed`, some
    /// replaced by text across lines.
    fn random_sites(text: &str, seed: u64) -> Vec<Site> {
        let mut state = seed
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        let mut next = |below: usize| {
            state = state.wrapping_mul(6364136223846793005).wrapping_add(1);
            (state >> 33) as usize % below.max(1)
        };
        let mut sites = Vec::new();
        let mut at = next(8);
        while at < text.len() {
            let end = (at + next(12)).min(text.len());
            let replacement = ["", "", "x", "\n", "a\nbc"][next(5)].to_owned();
            sites.push(Site {
                kind: "k",
                range: at..end,
                replacement,
            });
            at = end + 1 + next(40);
        }
        sites
    }

    #[test]
    fn each_span_edit_has_the_positions_of_its_own_bytes() {
        let text =
            "int f(void) {\n  return 1;\n}\n\nint g(int a,\n      int b) { return a + b; }\n";
        for seed in 0..200 {
            let sites = random_sites(text, seed);
            let selected: Vec<&Site> = sites.iter().collect();
            let (edited, spans) = splice_spans(text, &selected);
            let edits = span_edits(text, &edited, &spans);
            assert_eq!(edits.len(), spans.len());
            let old = text.as_bytes();
            for (edit, (range, _)) in edits.iter().zip(&spans) {
                assert_eq!(edit.start_position, point_at(old, edit.start_byte));
                assert_eq!(edit.old_end_position, point_at(old, edit.old_end_byte));
                // The text before the span, then its replacement.
                let site = sites.iter().find(|s| s.range == *range).unwrap();
                let new = format!("{}{}", &text[..range.start], site.replacement);
                assert_eq!(edit.new_end_byte, new.len());
                assert_eq!(edit.new_end_position, point_at(new.as_bytes(), new.len()));
            }
        }
    }

    #[test]
    fn a_tree_told_of_every_span_reparses_as_a_fresh_parse() {
        let syntax = crate::LoadedGrammar::new(crate::by_name("c").unwrap()).unwrap();
        let text: String = (0..40)
            .map(|i| format!("static int f{i}(int a) {{\n  return a + {i};\n}}\n"))
            .collect();
        let tree = syntax.parse(&text).unwrap();
        let functions: Vec<Site> = {
            let root = tree.root_node();
            let mut cursor = root.walk();
            let children: Vec<_> = root.named_children(&mut cursor).collect();
            children
                .iter()
                .map(|f| Site::removal("k", f.byte_range()))
                .collect()
        };
        for seed in 0..20u64 {
            // Every third to sixth function from an offset the seed picks.
            let selected: Vec<&Site> = functions
                .iter()
                .skip(seed as usize % 3)
                .step_by(3 + seed as usize % 4)
                .collect();
            let (edited, spans) = splice_spans(&text, &selected);
            let again = syntax.reparse_spans(&tree, &text, &edited, &spans).unwrap();
            let fresh = syntax.parse(&edited).unwrap();
            assert_eq!(shape(&again), shape(&fresh), "seed {seed}");
        }
    }

    /// Every node's kind and position, in walk order.
    fn shape(tree: &Tree) -> Vec<(&'static str, std::ops::Range<usize>, Point, Point)> {
        let mut out = Vec::new();
        let mut stack = vec![tree.root_node()];
        while let Some(node) = stack.pop() {
            out.push((
                node.kind(),
                node.byte_range(),
                node.start_position(),
                node.end_position(),
            ));
            let mut cursor = node.walk();
            stack.extend(node.children(&mut cursor));
        }
        out
    }

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
