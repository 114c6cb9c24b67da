//! A tiny language for the tests: one group whose sites are the lines of the text (removed),
//! a text's size is its number of lines, and every text is valid.

use crate::language::{splice, Language, Policy, Prepared, Site, SiteInfo};

/// Lines, removed one by one.
pub struct Lines {
    /// The group's policy.
    pub policy: Policy,
}

/// A text with its lines as sites.
pub struct LinesText {
    source: String,
    sites: Vec<Site>,
}

impl Prepared for LinesText {
    type Site = Site;
    type Edited = String;

    fn source(&self) -> &str {
        &self.source
    }

    fn sites(&self) -> &[Site] {
        &self.sites
    }

    fn retain_sites(&mut self, keep: &mut dyn FnMut(&Site) -> bool) {
        self.sites.retain(|s| keep(s));
    }

    fn size(&self) -> usize {
        self.source.lines().count()
    }

    fn info(site: &Site) -> SiteInfo<'_> {
        site.info()
    }

    fn apply(&self, selected: &[&Site]) -> String {
        splice(&self.source, selected)
    }

    fn check(&self, edited: &String) -> Option<usize> {
        Some(edited.lines().count())
    }
}

impl Language for Lines {
    type Group = ();
    type Prepared = LinesText;

    fn groups(&self) -> Vec<()> {
        vec![()]
    }

    fn group_name(&self, _group: ()) -> &'static str {
        "lines"
    }

    fn policy(&self, _group: ()) -> Policy {
        self.policy
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
            at += line.len();
        }
        LinesText {
            source: text.to_owned(),
            sites,
        }
    }

    fn prepare_current(&self, text: &str) -> LinesText {
        self.prepare(text, ())
    }

    /// Lines differing only in letter case count as the same for a fruitless search.
    fn fruitless_key(&self, text: &str, _group: ()) -> Option<[u8; 32]> {
        Some(*blake3::hash(text.to_lowercase().as_bytes()).as_bytes())
    }

    fn is_valid(&self, _text: &str) -> bool {
        true
    }
}
