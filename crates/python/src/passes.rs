//! One engine [`Pass`] per rewrite group of `minrepro_pysyntax`: a ddmin search over the group's
//! rewrite sites in the current text. At granularity n the site list is split into n chunks and
//! candidate i applies chunk i; sites are re-derived from the current text for every batch.
//!
//! Only valid Python is proposed, never the current text itself. Termination: outside the
//! canonicalization group a candidate must be strictly smaller than the current text in the order
//! (tokens, bytes, text); a canonicalization may grow the text, but never beyond the original's
//! token count and never back into a text that was already current once. So every round either
//! reaches a text never seen before in a finite set, or changes nothing.

use std::collections::HashSet;
use std::sync::{Arc, Mutex};

use minrepro_engine::{Ddmin, Pass, Proposal, Search};
use minrepro_pysyntax::{apply, check_valid, rewrites, token_count, Group, Rewrite};
use serde_json::json;

use crate::oracle::size_key;

/// State shared by every group pass of one reduction.
#[derive(Debug)]
pub struct SharedState {
    original_tokens: usize,
    seen: Mutex<HashSet<[u8; 32]>>,
}

impl SharedState {
    /// State for a reduction of `original`.
    pub fn new(original: &str) -> Arc<Self> {
        Arc::new(SharedState {
            original_tokens: token_count(original),
            seen: Mutex::new(HashSet::new()),
        })
    }

    /// Records `text` as a text that has been current.
    fn mark_current(&self, text: &str) {
        let mut seen = self.seen.lock().unwrap_or_else(|e| e.into_inner());
        seen.insert(*blake3::hash(text.as_bytes()).as_bytes());
    }

    /// Whether `text` has been current before.
    fn was_current(&self, text: &str) -> bool {
        let seen = self.seen.lock().unwrap_or_else(|e| e.into_inner());
        seen.contains(blake3::hash(text.as_bytes()).as_bytes())
    }
}

/// The pass of one rewrite group.
#[derive(Debug)]
pub struct GroupPass {
    group: Group,
    state: Arc<SharedState>,
}

/// Every group's pass, in round order.
pub fn group_passes(state: &Arc<SharedState>) -> Vec<GroupPass> {
    Group::ALL
        .iter()
        .map(|&group| GroupPass {
            group,
            state: Arc::clone(state),
        })
        .collect()
}

/// The rewrite sites of the last text asked about (a search asks for the same text many times).
type SiteMemo = Arc<Mutex<Option<(String, Arc<Vec<Rewrite>>)>>>;

fn sites(memo: &SiteMemo, text: &str, group: Group) -> Arc<Vec<Rewrite>> {
    let mut memo = memo.lock().unwrap_or_else(|e| e.into_inner());
    if let Some((memo_text, list)) = memo.as_ref() {
        if memo_text == text {
            return Arc::clone(list);
        }
    }
    let list = Arc::new(rewrites(text, group));
    *memo = Some((text.to_owned(), Arc::clone(&list)));
    list
}

/// The candidate applying `chosen` sites of `current`, if it is admissible (see module docs).
fn candidate(
    group: Group,
    state: &SharedState,
    current: &str,
    all: &[Rewrite],
    chosen: &[usize],
) -> Option<Proposal<String>> {
    let selected: Vec<&Rewrite> = chosen.iter().filter_map(|&i| all.get(i)).collect();
    let text = apply(current, &selected);
    if text == current || check_valid(&text).is_err() {
        return None;
    }
    let admissible = if group == Group::Canonicalizations {
        token_count(&text) <= state.original_tokens && !state.was_current(&text)
    } else {
        size_key(&text) < size_key(current)
    };
    if !admissible {
        return None;
    }
    let change = json!({
        "group": group.name(),
        "rewrites": selected
            .iter()
            .map(|r| json!({"kind": r.kind, "start": r.range.start, "end": r.range.end}))
            .collect::<Vec<_>>(),
    });
    Some(Proposal { case: text, change })
}

impl Pass<String> for GroupPass {
    fn name(&self) -> String {
        self.group.name().to_owned()
    }

    fn search(&self, _current: &String) -> Box<dyn Search<String> + '_> {
        let group = self.group;
        let memo: SiteMemo = Arc::new(Mutex::new(None));
        let length_memo = Arc::clone(&memo);
        let state = Arc::clone(&self.state);
        Box::new(Ddmin::new(
            0,
            move |current: &String| sites(&length_memo, current, group).len(),
            move |current: &String, chunk: &[usize]| {
                state.mark_current(current);
                let all = sites(&memo, current, group);
                candidate(group, &state, current, &all, chunk)
            },
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rewrite(range: std::ops::Range<usize>, replacement: &str) -> Rewrite {
        Rewrite {
            kind: "test",
            range,
            replacement: replacement.into(),
        }
    }

    #[test]
    fn smaller_candidates_only_outside_canonicalizations() {
        let state = SharedState::new("x = 10\ny = 2\n");
        let current = "x = 10\ny = 2\n";
        let all = vec![rewrite(4..6, "5"), rewrite(4..6, "100"), rewrite(0..0, "")];
        let shrink = candidate(Group::IntegerReduction, &state, current, &all, &[0]).unwrap();
        assert_eq!(shrink.case, "x = 5\ny = 2\n");
        assert_eq!(shrink.change["group"], "integer-reduction");
        assert!(candidate(Group::IntegerReduction, &state, current, &all, &[1]).is_none());
        // A no-op is never proposed.
        assert!(candidate(Group::SlowRemovals, &state, current, &all, &[2]).is_none());
    }

    #[test]
    fn canonicalizations_may_grow_but_never_revisit() {
        let original = "x = 10\n";
        let state = SharedState::new(original);
        let all = vec![rewrite(4..6, "(10)")];
        // Growing in bytes (not tokens beyond the original's count is allowed).
        let grown = candidate(Group::Canonicalizations, &state, original, &all, &[0]);
        if token_count("x = (10)\n") <= token_count(original) {
            assert!(grown.is_some());
        }
        state.mark_current("x = (10)\n");
        assert!(candidate(Group::Canonicalizations, &state, original, &all, &[0]).is_none());
    }

    #[test]
    fn passes_follow_group_order() {
        let state = SharedState::new("");
        let names: Vec<String> = group_passes(&state).iter().map(|p| p.name()).collect();
        let expected: Vec<String> = Group::ALL.iter().map(|g| g.name().to_owned()).collect();
        assert_eq!(names, expected);
    }
}
