//! [`ConfirmPass`]: the fixpoint check. A reduction must end only when a whole round of every
//! group changes nothing, yet the group passes remember what they saw fail on earlier texts and
//! leave it untried on the final one:
//!
//! - sites that failed alone on an earlier text ([`GroupSpec::skip_failed`]: the identity of a site
//!   is its neighbourhood, and an edit elsewhere can make it removable);
//! - whole searches skipped on a text with a known fruitless key, and priors learned on earlier
//!   texts (ProbDD's sets then differ from a fresh search's: two string literals shortened
//!   together, which fail one at a time);
//! - and they never run candidates that [`Prepared::admissible`] refuses: a static guess (a word
//!   in a string taken for an attribute's definition, a use in code that never runs) that may
//!   order candidates but must never forbid one the predicate alone can judge.
//!
//! The engine runs this pass only in a round that changed nothing before it ([`Pass::confirms`]).
//! It searches every group whose spec asks for it ([`GroupSpec::confirm`]) once more, in round
//! order, without that memory (exactly what a fresh reduction of the text would search first),
//! then sweeps each of their sites alone without the admissibility guess, under the size and
//! growth rules only. What the round already tried on this very text is answered by the verdict
//! cache without a run. After an acceptance the sweep goes on at the same position of the new
//! text's list (as [`SweepSearch`](crate::sweep) does), and the engine starts another round.
//!
//! Determinism: the searches are the group passes' own; a sweep batch holds the next candidates
//! in order (as many as the engine's [`Width`] asks for), exactly what `-j 1` tries one after
//! the other while they fail. When the engine folds, the sites of a window's interesting
//! candidates are [combined](Search::combine) into one candidate.
//!
//! [`GroupSpec::skip_failed`]: crate::GroupSpec::skip_failed
//! [`GroupSpec::confirm`]: crate::GroupSpec::confirm
//! [`Prepared::admissible`]: crate::Prepared::admissible

use std::sync::Arc;

use minrepro_engine::{Pass, Proposal, Search, Width};

use crate::candidate::unguessed_candidate;
use crate::language::{Language, Prepared};
use crate::passes::{group_passes, GroupPass};
use crate::spec::Growth;
use crate::state::{Memory, SharedState};

/// The fixpoint check of one reduction (see the module documentation).
pub struct ConfirmPass<L: Language> {
    state: Arc<SharedState<L>>,
    /// The passes of the groups checked, in round order.
    passes: Vec<GroupPass<L>>,
}

impl<L: Language> ConfirmPass<L> {
    /// The fixpoint check of the reduction `state` belongs to.
    pub fn new(state: &Arc<SharedState<L>>) -> Self {
        let passes = group_passes(state)
            .into_iter()
            .filter(|p| state.spec(p.group).confirm)
            .collect();
        ConfirmPass {
            state: Arc::clone(state),
            passes,
        }
    }
}

impl<L: Language> Pass<String> for ConfirmPass<L> {
    fn name(&self) -> String {
        "fixpoint-check".to_owned()
    }

    fn confirms(&self) -> bool {
        true
    }

    fn search(&self, _current: &String) -> Box<dyn Search<String> + '_> {
        Box::new(ConfirmSearch {
            pass: self,
            saved: None,
            stage: 0,
            inner: None,
            group: 0,
            position: 0,
            proposed: Vec::new(),
            memo: None,
            width: Width::SEQUENTIAL,
        })
    }
}

/// The fresh searches of the checked groups, then the sweep over their sites.
struct ConfirmSearch<'a, L: Language> {
    pass: &'a ConfirmPass<L>,
    /// The passes' memory, set aside while the check runs (put back when it is dropped).
    saved: Option<Memory>,
    /// Index into `pass.passes` of the group searched now; their number: the sweep.
    stage: usize,
    inner: Option<Box<dyn Search<String> + 'a>>,
    /// Index into `pass.passes` of the group swept now.
    group: usize,
    /// The position, in the current text's site list of that group, the next batch starts at.
    position: usize,
    /// The positions of the last sweep batch's proposals, in batch order.
    proposed: Vec<usize>,
    /// The current text prepared for the group swept now.
    memo: Option<Arc<L::Prepared>>,
    /// The engine's width (sweep candidates per batch; told to every inner search).
    width: Width,
}

impl<L: Language> Drop for ConfirmSearch<'_, L> {
    fn drop(&mut self) {
        if let Some(saved) = self.saved.take() {
            self.pass.state.restore_memory(saved);
        }
    }
}

impl<L: Language> ConfirmSearch<'_, L> {
    /// `current` prepared with the sites of `group` (a text seen for the first time is marked
    /// as current).
    fn prepared(&mut self, current: &str, group: L::Group) -> Arc<L::Prepared> {
        if let Some(prepared) = self.memo.as_ref().filter(|p| p.source() == current) {
            return Arc::clone(prepared);
        }
        let state = &self.pass.state;
        state.mark_current(current);
        let prepared = Arc::new(state.language.prepare(current, group));
        state.follow(&prepared);
        self.memo = Some(Arc::clone(&prepared));
        prepared
    }

    /// The sweep's next batch (see the module documentation).
    fn sweep(&mut self, current: &str) -> Option<Vec<Proposal<String>>> {
        self.proposed.clear();
        let state = Arc::clone(&self.pass.state);
        loop {
            let group = self.pass.passes.get(self.group)?.group;
            let prepared = self.prepared(current, group);
            let mut batch = Vec::new();
            let mut at = self.position;
            while at < prepared.sites().len() && batch.len() < self.width.batch {
                if let Some(proposal) = unguessed_candidate(group, &state, &*prepared, &[at]) {
                    batch.push(proposal);
                    self.proposed.push(at);
                }
                at += 1;
            }
            self.position = at;
            if !batch.is_empty() {
                return Some(batch);
            }
            self.group += 1;
            self.position = 0;
            self.memo = None;
        }
    }
}

impl<L: Language> Search<String> for ConfirmSearch<'_, L> {
    fn next_batch(&mut self, current: &String) -> Option<Vec<Proposal<String>>> {
        if self.saved.is_none() {
            self.saved = Some(self.pass.state.take_memory());
        }
        while self.stage < self.pass.passes.len() {
            let pass = &self.pass.passes[self.stage];
            let width = self.width;
            let inner = self.inner.get_or_insert_with(|| {
                let mut search = pass.search(current);
                search.set_width(width);
                search
            });
            if let Some(batch) = inner.next_batch(current) {
                return Some(batch);
            }
            self.inner = None;
            self.stage += 1;
        }
        self.sweep(current)
    }

    fn feedback(&mut self, accepted: Option<usize>) {
        if let Some(inner) = &mut self.inner {
            inner.feedback(accepted);
            return;
        }
        self.swept(accepted.as_slice());
    }

    fn set_width(&mut self, width: Width) {
        self.width = width;
        if let Some(inner) = &mut self.inner {
            inner.set_width(width);
        }
    }

    fn combine(&self, current: &String, indices: &[usize]) -> Option<Proposal<String>> {
        if let Some(inner) = &self.inner {
            return inner.combine(current, indices);
        }
        let prepared = self
            .memo
            .as_ref()
            .filter(|p| p.source() == current.as_str())?;
        let group = self.pass.passes.get(self.group)?.group;
        let positions: Vec<usize> = indices
            .iter()
            .filter_map(|&k| self.proposed.get(k).copied())
            .collect();
        unguessed_candidate(group, &self.pass.state, &**prepared, &positions)
    }

    fn feedback_fold(&mut self, accepted: &[usize], rejected: &[usize]) {
        if let Some(inner) = &mut self.inner {
            inner.feedback_fold(accepted, rejected);
            return;
        }
        self.swept(accepted);
    }
}

impl<L: Language> ConfirmSearch<'_, L> {
    /// After the sweep proposals at `accepted` (batch indices, ascending) became the current
    /// text together: the sweep goes on at the first one's position (what followed it is
    /// there in the new text's list), and a budgeted group is charged one per site.
    fn swept(&mut self, accepted: &[usize]) {
        let Some(&at) = accepted.first().and_then(|&k| self.proposed.get(k)) else {
            return;
        };
        self.position = at;
        let state = &self.pass.state;
        let group = self.pass.passes[self.group].group;
        if state.spec(group).growth == Growth::Budgeted {
            let left = state.growth_budget(group).unwrap_or(0);
            state.set_growth_budget(group, left.saturating_sub(accepted.len()));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::language::Strategy;
    use crate::lock::lock;
    use crate::testlang::Lines;
    use minrepro_engine::run_search;

    #[test]
    fn the_check_searches_without_the_memory_of_failed_sites_and_puts_it_back() {
        let checked = Lines {
            confirm: true,
            skip_failed: true,
            ..Lines::default()
        };
        let text = "a\nb\nc\n".to_owned();
        for jobs in [1, 2] {
            let state = SharedState::new(checked, &text, Strategy::Ddmin);
            let width = minrepro_engine::Width::of(jobs, true);
            // Every site failed alone before: the group pass skips them all.
            let prepared = state.language.prepare(&text, ());
            let ids = crate::candidate::identities(state.spec(()), &prepared);
            lock(&state.failed_sites).extend(ids.iter().copied());
            let keeps_b = |p: &Proposal<String>| p.case.contains('b');
            let group = &group_passes(&state)[0];
            let mut search = group.search(&text);
            search.set_width(width);
            assert_eq!(
                run_search(&mut *search, text.clone(), &mut |p| keeps_b(p)),
                text
            );
            let pass = ConfirmPass::new(&state);
            assert!(pass.confirms());
            let mut search = pass.search(&text);
            search.set_width(width);
            let end = run_search(&mut *search, text.clone(), &mut |p| keeps_b(p));
            drop(search);
            assert_eq!(end, "b\n", "-j {jobs}");
            // Put back, with what the check saw fail.
            let failed = lock(&state.failed_sites);
            assert!(ids.iter().all(|id| failed.contains(id)), "-j {jobs}");
        }
        // A group that does not ask for it is not checked.
        let state = SharedState::new(Lines::default(), "a\n", Strategy::Ddmin);
        let pass = ConfirmPass::new(&state);
        let a = "a\n".to_owned();
        assert!(pass.search(&a).next_batch(&a).is_none());
    }
}
