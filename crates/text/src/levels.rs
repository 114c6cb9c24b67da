//! Hierarchical order for nested sites such as statement removals (HDD, Misherghi and Su, ICSE'06): ddmin over the
//! outermost sites first, then over the sites one level deeper, and so on.
//!
//! Flat ddmin over every statement of a large program splits its chunks by count, so the sites
//! inside a class or function that goes as a whole inflate the list: at fine granularity they
//! cost one candidate each although their parent's removal decides them all. Level by level,
//! the inner sites of what goes are never listed on their own.
//!
//! A site's level is the number of sites of the same list whose range contains its own; sites
//! that only overlap count as disjoint.

use std::ops::Range;

/// The level of each site (by range), in the order of `ranges`.
pub fn levels(ranges: &[Range<usize>]) -> Vec<usize> {
    let mut order: Vec<usize> = (0..ranges.len()).collect();
    // Containers before what they contain: by start, then the longer first.
    order.sort_by_key(|&i| (ranges[i].start, std::cmp::Reverse(ranges[i].end), i));
    let mut level = vec![0; ranges.len()];
    // Ends of the chain of ranges containing the current one, outermost first.
    let mut open: Vec<usize> = Vec::new();
    for i in order {
        let range = &ranges[i];
        while open
            .last()
            .is_some_and(|&end| end < range.end || end <= range.start)
        {
            open.pop();
        }
        level[i] = open.len();
        open.push(range.end);
    }
    level
}

/// Positions of `levels` equal to `wanted`.
pub fn at_level(levels: &[usize], wanted: usize) -> Vec<usize> {
    (0..levels.len()).filter(|&i| levels[i] == wanted).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn levels_count_the_ranges_that_contain_a_site() {
        // class (0..100) > method (10..50) > statement (20..30); a second top-level 100..120;
        // a site with the method's exact range comes after it (equal ranges nest by position).
        let ranges = [0..100, 10..50, 20..30, 100..120, 10..50, 40..60];
        assert_eq!(levels(&ranges), vec![0, 1, 3, 0, 2, 1]);
        assert_eq!(at_level(&levels(&ranges), 1), vec![1, 5]);
        assert_eq!(at_level(&levels(&ranges), 3), vec![2]);
    }
}
