//! The sizes of recent candidates, so that the engine's question "how large is the accepted
//! candidate?" is answered from the count its validity check already made, not by measuring
//! (e.g. lexing) the whole text again.

use std::collections::VecDeque;
use std::sync::Mutex;

use crate::lock::lock;

/// How many recent candidates are remembered: a whole batch of the engine's (its accepted
/// candidate is one of the last batch's).
const REMEMBERED: usize = minrepro_engine::MAX_BATCH + 1;

/// Texts with their sizes, newest last.
#[derive(Debug, Default)]
pub struct Sizes {
    recent: Mutex<VecDeque<(String, usize)>>,
}

impl Sizes {
    /// Remembers that `text` has size `size`.
    pub fn record(&self, text: &str, size: usize) {
        let mut recent = lock(&self.recent);
        if recent.len() == REMEMBERED {
            recent.pop_front();
        }
        recent.push_back((text.to_owned(), size));
    }

    /// The size of `text` if it is one of the recent texts.
    pub fn get(&self, text: &str) -> Option<usize> {
        let recent = lock(&self.recent);
        recent
            .iter()
            .rev()
            .find(|(known, _)| known.len() == text.len() && known == text)
            .map(|&(_, size)| size)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_recent_texts_are_known() {
        let sizes = Sizes::default();
        sizes.record("a", 1);
        assert_eq!(sizes.get("a"), Some(1));
        assert_eq!(sizes.get("b"), None);
        for i in 0..REMEMBERED {
            sizes.record(&i.to_string(), i);
        }
        assert_eq!(sizes.get("a"), None);
        assert_eq!(sizes.get("3"), Some(3));
    }
}
