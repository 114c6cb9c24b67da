//! A rewrite site as the text layer sees it ([`SiteInfo`]), the plain [`Site`] of languages that
//! need nothing more, and applying sites to a text ([`splice`]).

use std::ops::Range;

/// What the text layer needs to know about one site: a byte range of the text and what replaces
/// it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SiteInfo<'a> {
    /// The kind of edit, e.g. `remove-statement` (logged).
    pub kind: &'a str,
    /// Byte range of the text the site replaces.
    pub range: Range<usize>,
    /// The replacement text.
    pub replacement: &'a str,
}

/// A plain site for languages that need nothing more (see the crate documentation).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Site {
    /// The kind of edit (logged).
    pub kind: &'static str,
    /// Byte range of the text the site replaces.
    pub range: Range<usize>,
    /// The replacement text.
    pub replacement: String,
}

impl Site {
    /// A site deleting `range`.
    pub fn removal(kind: &'static str, range: Range<usize>) -> Site {
        Site {
            kind,
            range,
            replacement: String::new(),
        }
    }

    /// The site as the text layer sees it.
    pub fn info(&self) -> SiteInfo<'_> {
        SiteInfo {
            kind: self.kind,
            range: self.range.clone(),
            replacement: &self.replacement,
        }
    }
}

/// `text` with the `selected` sites replaced; the sites must not overlap and are applied in the
/// order of their starts.
pub fn splice(text: &str, selected: &[&Site]) -> String {
    splice_spans(text, selected).0
}

/// A span of a text that [`splice_spans`] replaced: its range in the text and the length of
/// its replacement.
pub type SplicedSpan = (Range<usize>, usize);

/// [`splice`], with the spans it replaced, in text order: what changed, for a consumer that
/// updates what it knew of `text` instead of recomputing it (an incremental parse).
pub fn splice_spans(text: &str, selected: &[&Site]) -> (String, Vec<SplicedSpan>) {
    let mut sorted: Vec<&Site> = selected.to_vec();
    sorted.sort_by_key(|s| (s.range.start, s.range.end));
    let mut out = String::with_capacity(text.len());
    let mut spans = Vec::with_capacity(sorted.len());
    let mut at = 0;
    for site in sorted {
        if site.range.start < at || site.range.end > text.len() {
            continue; // overlaps an earlier site: left out
        }
        out.push_str(&text[at..site.range.start]);
        out.push_str(&site.replacement);
        spans.push((site.range.clone(), site.replacement.len()));
        at = site.range.end;
    }
    out.push_str(&text[at..]);
    (out, spans)
}

/// The text without whitespace-only lines, for a language's tidy candidates
/// ([`Language::tidy_steps`](crate::Language::tidy_steps)); a byte order mark stays at the start (a first line holding only the mark counts as blank).
pub fn without_blank_lines(text: &str) -> String {
    let (bom, body) = match text.strip_prefix('\u{feff}') {
        Some(rest) => ("\u{feff}", rest),
        None => ("", text),
    };
    let lines = body
        .split_inclusive('\n')
        .filter(|line| !line.trim().is_empty());
    std::iter::once(bom).chain(lines).collect()
}

/// The ordering key of a candidate: size, then bytes, then the text itself (so that every
/// strictly decreasing sequence of candidates is finite).
pub fn size_key(size: usize, text: &str) -> (usize, usize, &str) {
    (size, text.len(), text)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn splice_applies_sites_in_text_order_and_skips_overlaps() {
        let site = |range: Range<usize>, replacement: &str| Site {
            kind: "k",
            range,
            replacement: replacement.to_owned(),
        };
        let (a, b, c) = (site(4..5, "X"), site(0..1, ""), site(4..6, "Y"));
        assert_eq!(splice("abcdefg", &[&a, &b]), "bcdXfg");
        assert_eq!(splice("abcdefg", &[&a, &c]), "abcdXfg");
        assert_eq!(splice("abc", &[]), "abc");
        // The spans are those applied, the overlapping one left out.
        let (text, spans) = splice_spans("abcdefg", &[&c, &b, &a]);
        assert_eq!(text, "bcdXfg");
        assert_eq!(spans, [(0..1, 0), (4..5, 1)]);
    }

    #[test]
    fn blank_lines_go_but_a_byte_order_mark_stays_first() {
        assert_eq!(
            without_blank_lines("a = 1\n\n  \r\nb = 2\n"),
            "a = 1\nb = 2\n"
        );
        assert_eq!(
            without_blank_lines("\u{feff}\r\nraise E\r\n"),
            "\u{feff}raise E\r\n"
        );
        assert_eq!(without_blank_lines("\u{feff}x\n\n"), "\u{feff}x\n");
    }
}
