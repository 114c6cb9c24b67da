//! A line diff of the original and the result, for reading: the result of a reduction is mostly
//! a subsequence of the original's lines, with some lines edited. Each result line is matched to
//! the next equal line of the original at or after the previous match (the earliest match keeps
//! every line of a pure subsequence), original lines skipped over are removed, and a result line
//! with no match ahead is added. Linear in the lines (with a binary search per line), so a
//! 100,000-line original is no problem; it is not a minimal diff when lines move.

use std::collections::HashMap;

/// One row of a side-by-side diff.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Row<'a> {
    /// The same line on both sides.
    Kept(&'a str),
    /// Only in the original.
    Removed(&'a str),
    /// Only in the result.
    Added(&'a str),
}

/// The rows that turn `original` into `result`.
pub fn rows<'a>(original: &'a str, result: &'a str) -> Vec<Row<'a>> {
    let before: Vec<&str> = original.lines().collect();
    let after: Vec<&str> = result.lines().collect();
    let mut positions: HashMap<&str, Vec<usize>> = HashMap::new();
    for (index, line) in before.iter().enumerate() {
        positions.entry(line).or_default().push(index);
    }
    let mut rows = Vec::new();
    let mut next = 0;
    for line in &after {
        let found = positions.get(line).and_then(|list| {
            let at = list.partition_point(|&p| p < next);
            list.get(at).copied()
        });
        match found {
            Some(index) => {
                rows.extend(before[next..index].iter().map(|l| Row::Removed(l)));
                rows.push(Row::Kept(line));
                next = index + 1;
            }
            None => rows.push(Row::Added(line)),
        }
    }
    rows.extend(before[next..].iter().map(|l| Row::Removed(l)));
    rows
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_subsequence_keeps_every_line_and_edits_show_both_sides() {
        let rows = rows("a\nb\nc\nd\n", "a\nc\nD\n");
        assert_eq!(
            rows,
            vec![
                Row::Kept("a"),
                Row::Removed("b"),
                Row::Kept("c"),
                Row::Added("D"),
                Row::Removed("d"),
            ]
        );
        assert_eq!(super::rows("x\n", ""), vec![Row::Removed("x")]);
    }
}
