//! Sites: plain edits of a text (a byte range and its replacement), and applying a selection of
//! them.

use std::ops::Range;

/// One candidate edit: replace `range` of the text by `replacement`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Site {
    /// Which transformation proposes it (for logs), e.g. `remove-lines`, `unwrap-brackets`.
    pub kind: &'static str,
    /// Byte range of the text it replaces (on character boundaries).
    pub range: Range<usize>,
    /// The text put in its place.
    pub replacement: String,
}

impl Site {
    /// A site deleting `range`.
    pub fn remove(kind: &'static str, range: Range<usize>) -> Site {
        Site {
            kind,
            range,
            replacement: String::new(),
        }
    }
}

/// `text` with the `chosen` sites applied. Sites are taken by start (longest first on a tie);
/// a site overlapping one already taken is skipped, so a region and the regions nested in it
/// can be offered together and the outermost chosen one wins.
pub fn apply(text: &str, chosen: &[&Site]) -> String {
    let mut order: Vec<&Site> = chosen.to_vec();
    order.sort_by(|a, b| {
        (a.range.start, std::cmp::Reverse(a.range.end))
            .cmp(&(b.range.start, std::cmp::Reverse(b.range.end)))
    });
    let mut out = String::with_capacity(text.len());
    let mut at = 0;
    for site in order {
        if site.range.start < at || site.range.end > text.len() {
            continue;
        }
        out.push_str(&text[at..site.range.start]);
        out.push_str(&site.replacement);
        at = site.range.end;
    }
    out.push_str(&text[at..]);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn applies_in_order_and_skips_overlaps() {
        let text = "f(g(1), 2)";
        let outer = Site::remove("r", 1..10);
        let inner = Site {
            kind: "r",
            range: 3..6,
            replacement: "0".into(),
        };
        assert_eq!(apply(text, &[&inner, &outer]), "f");
        assert_eq!(apply(text, &[&inner]), "f(g0, 2)");
        assert_eq!(apply(text, &[]), text);
    }
}
