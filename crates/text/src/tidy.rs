//! [`TidyPass`]: the last, cosmetic pass of a round.

use std::sync::Arc;

use minrepro_engine::{OneShot, Pass, Proposal, Search};
use serde_json::json;

use crate::language::{size_key, Language};
use crate::state::SharedState;

/// A last, cosmetic pass: the language's [`tidy`](Language::tidy) candidate (e.g. without
/// blank and comment-only lines), proposed once when it is smaller and valid, and judged like
/// any other candidate.
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
        let language = &self.state.language;
        Box::new(OneShot::new(Box::new(move |current: &String| {
            let (kind, text) = language.tidy(current)?;
            let smaller =
                size_key(language.size(&text), &text) < size_key(language.size(current), current);
            (smaller && language.is_valid(&text)).then(|| Proposal {
                case: text,
                change: json!({"group": "tidy", "rewrites": [{"kind": kind}]}),
            })
        })))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::language::{Policy, Strategy};
    use crate::testlang::Lines;

    #[test]
    fn without_a_tidy_candidate_the_tidy_pass_proposes_nothing() {
        let state = SharedState::new(
            Lines {
                policy: Policy::default(),
            },
            "a\n",
            Strategy::Ddmin,
            1,
        );
        let tidy = TidyPass::new(&state);
        let mut search = tidy.search(&"a\n".to_owned());
        assert!(search.next_batch(&"a\n".to_owned()).unwrap().is_empty());
        assert!(search.next_batch(&"a\n".to_owned()).is_none());
    }
}
