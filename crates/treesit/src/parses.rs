//! What one parse can serve twice: a candidate's check parses it (`crate::reparse`), and the
//! candidate, once accepted, is the next text prepared, whose listing wants that same parse.
//! The checks remember the parses of the last candidates that passed; the prepare takes one
//! when its text is among them. A miss only costs the parse the prepare would have made anyway,
//! and a parse is the same tree whichever text it started from.

use std::collections::VecDeque;
use std::sync::Mutex;

use minrepro_text::{Edited, SplicedSpan};
use tree_sitter::Tree;

/// Parses remembered: the accepted candidate is one of the last checked (the engine checks a
/// batch, at most its width of candidates, before it runs them), and each entry holds a copy of
/// its text, so the memory stays a few texts' worth.
const REMEMBERED: usize = 8;

/// A candidate of a syntax-aware prepared text: its text and, when it was spliced from the
/// prepared text's sites, the spans replaced (its check re-parses from the source's tree told
/// of each span, see `crate::reparse::tree_edited_by`).
#[derive(Debug)]
pub struct EditedSyntax {
    pub(crate) text: String,
    pub(crate) spans: Option<Vec<SplicedSpan>>,
}

/// A candidate whose spans are not known: its check re-parses from one edit spanning every
/// change.
impl From<String> for EditedSyntax {
    fn from(text: String) -> Self {
        EditedSyntax { text, spans: None }
    }
}

impl Edited for EditedSyntax {
    fn text(&self) -> &str {
        &self.text
    }

    fn into_text(self) -> String {
        self.text
    }
}

/// The parses of the last candidates whose checks passed, newest last.
#[derive(Debug, Default)]
pub(crate) struct RecentParses {
    recent: Mutex<VecDeque<(String, Tree)>>,
}

impl RecentParses {
    /// Remembers `tree` as the parse of `text`, forgetting the oldest beyond [`REMEMBERED`].
    pub(crate) fn remember(&self, text: &str, tree: &Tree) {
        let mut recent = self.recent.lock().unwrap_or_else(|e| e.into_inner());
        if recent.iter().any(|(known, _)| known == text) {
            return;
        }
        if recent.len() == REMEMBERED {
            recent.pop_front();
        }
        recent.push_back((text.to_owned(), tree.clone()));
    }

    /// The remembered parse of `text`, if any.
    pub(crate) fn parse_of(&self, text: &str) -> Option<Tree> {
        let recent = self.recent.lock().unwrap_or_else(|e| e.into_inner());
        let found = recent.iter().rev().find(|(known, _)| known == text);
        found.map(|(_, tree)| tree.clone())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_last_parses_are_found_by_their_text_and_the_oldest_go() {
        let syntax = crate::LoadedGrammar::new(crate::by_name("c").unwrap()).unwrap();
        let recent = RecentParses::default();
        let texts: Vec<String> = (0..=REMEMBERED)
            .map(|i| format!("int x{};", "_".repeat(i)))
            .collect();
        for text in &texts {
            recent.remember(text, &syntax.parse(text).unwrap());
            recent.remember(text, &syntax.parse(text).unwrap());
        }
        assert!(recent.parse_of(&texts[0]).is_none());
        for text in &texts[1..] {
            let tree = recent.parse_of(text).expect("remembered");
            assert_eq!(tree.root_node().byte_range(), 0..text.len());
        }
        assert!(recent.parse_of("int y;").is_none());
    }
}
