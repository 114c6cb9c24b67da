//! [`TidyPass`]: the last, cosmetic pass of a round.

use std::sync::Arc;

use minrepro_engine::{Pass, Proposal, Search};
use serde_json::json;

use crate::language::Language;
use crate::site::size_key;
use crate::state::SharedState;

/// A last, cosmetic pass: the language's [`tidy_steps`](Language::tidy_steps) candidates (e.g.
/// every whitespace normalisation at once, then only without blank lines), proposed once in one
/// batch, those that are smaller and valid, and judged like any other candidates (the first
/// interesting one is accepted).
pub struct TidyPass<L: Language> {
    state: Arc<SharedState<L>>,
}

impl<L: Language> TidyPass<L> {
    /// The tidy pass of the reduction `state` belongs to.
    pub fn new(state: &Arc<SharedState<L>>) -> Self {
        TidyPass {
            state: Arc::clone(state),
        }
    }
}

impl<L: Language> Pass<String> for TidyPass<L> {
    fn name(&self) -> String {
        "tidy".to_owned()
    }

    fn search(&self, _current: &String) -> Box<dyn Search<String> + '_> {
        Box::new(TidySearch {
            language: &self.state.language,
            done: false,
        })
    }
}

/// The tidy candidates of the text current when first asked, in one batch, once.
struct TidySearch<'a, L> {
    language: &'a L,
    done: bool,
}

impl<L: Language> Search<String> for TidySearch<'_, L> {
    fn next_batch(&mut self, current: &String) -> Option<Vec<Proposal<String>>> {
        if std::mem::replace(&mut self.done, true) {
            return None;
        }
        let language = self.language;
        let now = size_key(language.size(current), current);
        let mut batch: Vec<Proposal<String>> = Vec::new();
        for (kind, text) in language.tidy_steps(current) {
            let smaller = size_key(language.size(&text), &text) < now;
            if smaller && !batch.iter().any(|p| p.case == text) && language.is_valid(&text) {
                batch.push(Proposal {
                    case: text,
                    change: json!({"group": "tidy", "rewrites": [{"kind": kind}]}),
                });
            }
        }
        Some(batch)
    }

    fn feedback(&mut self, _accepted: Option<usize>) {}
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::language::Strategy;
    use crate::testlang::{Lines, Parens};
    use minrepro_engine::run_search;

    #[test]
    fn without_a_tidy_candidate_the_tidy_pass_proposes_nothing() {
        let state = SharedState::new(Lines::default(), "a\n", Strategy::Ddmin);
        let tidy = TidyPass::new(&state);
        let mut search = tidy.search(&"a\n".to_owned());
        assert!(search.next_batch(&"a\n".to_owned()).unwrap().is_empty());
        assert!(search.next_batch(&"a\n".to_owned()).is_none());
    }

    #[test]
    fn the_tidy_steps_are_proposed_in_order_once_each_and_the_first_interesting_one_wins() {
        let language = Parens {
            levels: Default::default(),
            probdd: false,
            sweeps: false,
            refused: None,
        };
        let text = "a ( b ) \nc\n".to_owned();
        let state = SharedState::new(language, &text, Strategy::Ddmin);
        let tidy = TidyPass::new(&state);
        let mut seen = Vec::new();
        let mut search = tidy.search(&text);
        let end = run_search(&mut *search, text.clone(), &mut |p| {
            seen.push(p.case.clone());
            !p.case.contains("(b)")
        });
        // The duplicate is left out; the squeezed text is not interesting, the trimmed one is.
        assert_eq!(seen, ["a(b)\nc\n", "a ( b )\nc\n"]);
        assert_eq!(end, "a ( b )\nc\n");
        // Nothing smaller: nothing proposed.
        let mut search = tidy.search(&"a\n".to_owned());
        assert!(search.next_batch(&"a\n".to_owned()).unwrap().is_empty());
    }
}
