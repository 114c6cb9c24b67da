//! A tiny language for the tests: one group whose sites are the lines of the text (removed),
//! and the `!` ending a line (removed: the size stays), a text's size is its number of lines,
//! and every text is valid.

use std::sync::Arc;

use crate::language::Language;
use crate::plain::{Measure, SitesText};
use crate::site::Site;
use crate::spec::{GroupSpec, Growth, LevelPolicy, ProbDdSpec, SearchSpec};

/// Lines, removed one by one.
#[derive(Debug, Clone, Copy, Default)]
pub struct Lines {
    /// Searched with ProbDD (else ddmin).
    pub probdd: bool,
    /// Searched level by level (plain HDD).
    pub levels: bool,
    /// Which candidates may be proposed.
    pub growth: Growth,
    /// Sites that failed alone are left out later.
    pub skip_failed: bool,
    /// Checked once more before the reduction ends.
    pub confirm: bool,
}

/// A text's number of lines.
pub struct LineCount;

impl Measure for LineCount {
    fn measure(&self, text: &str) -> usize {
        text.lines().count()
    }
}

/// A text with its lines as sites.
pub type LinesText = SitesText<LineCount>;

impl Language for Lines {
    type Group = ();
    type Prepared = LinesText;

    /// Lines differing only in letter case count as the same for a fruitless search.
    fn groups(&self) -> Vec<GroupSpec<()>> {
        let search = if self.probdd {
            SearchSpec::ProbDd(ProbDdSpec::default())
        } else {
            SearchSpec::Ddmin
        };
        let spec = GroupSpec::new((), "lines", search)
            .growth(self.growth)
            .skip_failed(self.skip_failed)
            .confirm(self.confirm)
            .fruitless(Some(Arc::new(|text: &str| {
                *blake3::hash(text.to_lowercase().as_bytes()).as_bytes()
            })));
        vec![if self.levels {
            spec.levels(LevelPolicy::default())
        } else {
            spec
        }]
    }

    fn size(&self, text: &str) -> usize {
        text.lines().count()
    }

    fn prepare(&self, text: &str, _group: ()) -> LinesText {
        let mut sites = Vec::new();
        let mut at = 0;
        for line in text.split_inclusive('\n') {
            sites.push(Site {
                kind: "remove-line",
                range: at..at + line.len(),
                replacement: String::new(),
            });
            if let Some(bang) = line.trim_end_matches('\n').strip_suffix('!') {
                sites.push(Site {
                    kind: "remove-bang",
                    range: at + bang.len()..at + bang.len() + 1,
                    replacement: String::new(),
                });
            }
            at += line.len();
        }
        SitesText::new(text, sites, LineCount)
    }

    fn prepare_current(&self, text: &str) -> LinesText {
        self.prepare(text, ())
    }

    fn is_valid(&self, _text: &str) -> bool {
        true
    }
}

/// Parenthesised regions, removed whole (nested regions are sites of deeper levels), searched
/// level by level under a [`LevelPolicy`], or swept left to right; a text's size is its number
/// of characters.
pub struct Parens {
    /// How the level search moves between levels.
    pub levels: LevelPolicy,
    /// Whether ProbDD searches the levels (else ddmin).
    pub probdd: bool,
    /// Whether the regions are swept left to right instead ([`SearchSpec::Sweep`]), skipping
    /// those that failed alone.
    pub sweeps: bool,
    /// Candidates refused without a run (`SitesText::refusing`).
    pub refused: Option<fn(&str) -> bool>,
}

/// The kind of the removal of a region `(!…)`, which ProbDD tries late.
const DEFERRED: &str = "remove-deferred-parens";

/// A text's number of characters.
pub struct CharCount;

impl Measure for CharCount {
    fn measure(&self, text: &str) -> usize {
        text.chars().count()
    }
}

impl Language for Parens {
    type Group = ();
    type Prepared = SitesText<CharCount>;

    fn groups(&self) -> Vec<GroupSpec<()>> {
        let search = match (self.sweeps, self.probdd) {
            (true, _) => SearchSpec::Sweep,
            (false, true) => SearchSpec::ProbDd(ProbDdSpec::default()),
            (false, false) => SearchSpec::Ddmin,
        };
        let spec = GroupSpec::new((), "parens", search)
            .levels(self.levels)
            .skip_failed(self.sweeps);
        vec![spec]
    }

    fn size(&self, text: &str) -> usize {
        text.chars().count()
    }

    fn prepare(&self, text: &str, _group: ()) -> SitesText<CharCount> {
        let mut sites = Vec::new();
        let mut open = Vec::new();
        for (at, c) in text.char_indices() {
            match c {
                '(' => open.push(at),
                ')' => {
                    if let Some(start) = open.pop() {
                        // `(!…)` is deferred (see `SitesText::deferring`).
                        let deferred = text[start..].starts_with("(!");
                        sites.push(Site {
                            kind: if deferred { DEFERRED } else { "remove-parens" },
                            range: start..at + 1,
                            replacement: String::new(),
                        });
                    }
                }
                _ => {}
            }
        }
        sites.sort_by_key(|s| s.range.start);
        SitesText::new(text, sites, CharCount)
            .deferring(DEFERRED, 0.9)
            .refusing(self.refused)
    }

    fn prepare_current(&self, text: &str) -> SitesText<CharCount> {
        SitesText::new(text, Vec::new(), CharCount)
    }

    fn is_valid(&self, _text: &str) -> bool {
        true
    }

    /// Every space removed, then only the spaces ending a line, then every space again (a
    /// duplicate).
    fn tidy_steps(&self, text: &str) -> Vec<(&'static str, String)> {
        let squeezed = text.replace(' ', "");
        let trimmed: String = text
            .split_inclusive('\n')
            .map(|line| match line.strip_suffix('\n') {
                Some(body) => format!("{}\n", body.trim_end()),
                None => line.trim_end().to_owned(),
            })
            .collect();
        vec![
            ("squeeze", squeezed.clone()),
            ("trim", trimmed),
            ("squeeze", squeezed),
        ]
    }
}
