//! One engine [`Pass`] per group of a [`Language`]: a ddmin or ProbDD search over the group's
//! sites in the current text, level by level when the group's [`GroupSpec`](crate::GroupSpec)
//! says so, or a sweep. Which candidates are admissible is `candidate`'s; the state the passes share is
//! `state`'s; the last, cosmetic pass is `tidy`'s.

use std::sync::{Arc, Mutex};

use minrepro_engine::{Exhausted, Pass, Proposal, Search, Sequence, Width};

use crate::candidate::BatchSites;
use crate::language::Language;
use crate::lock::lock;
use crate::searches::{LevelSearch, SiteSearches};
use crate::spec::{Growth, LevelPolicy, SearchSpec};
use crate::state::SharedState;
use crate::sweep::SweepSearch;

/// The pass of one group.
pub struct GroupPass<L: Language> {
    /// The group.
    pub group: L::Group,
    state: Arc<SharedState<L>>,
}

/// Every group's pass, in round order.
pub fn group_passes<L: Language>(state: &Arc<SharedState<L>>) -> Vec<GroupPass<L>> {
    state
        .specs
        .iter()
        .map(|spec| GroupPass {
            group: spec.group,
            state: Arc::clone(state),
        })
        .collect()
}

/// A group's search (ddmin, ProbDD, or a sequence of levels) that also marks every text it
/// searches as current, records the single sites ddmin ran alone and saw fail, and charges
/// accepted growing candidates to the budget.
///
/// A dry one (a copy made by [`Search::fork`], or a search [peeked](Pass::peek) over a text
/// that may never be current) does none of that: the engine runs its batches ahead of the
/// decision, and what it leaves in the shared state must not depend on how far ahead the
/// engine got.
struct GroupSearch<'a, L: Language> {
    inner: Box<dyn Search<String> + 'a>,
    /// Where ddmin's candidate builder reports the sites of each proposal it builds (its copies
    /// too: a copy shares the builder).
    batch_sites: Arc<Mutex<Vec<BatchSites>>>,
    /// Sites applied by each proposal of the last batch, in batch order, with the identity of
    /// a proposal that applies a single site (taken from `batch_sites` as the batch is made).
    last_sites: Vec<BatchSites>,
    dry: bool,
    /// Whether the inner search can be copied without sharing more than memos keyed by text
    /// (ProbDD and ddmin, flat or level by level).
    forks: bool,
    may_grow: bool,
    /// Whether the group skips single sites that failed alone (their identities are recorded).
    skip_failed: bool,
    group: L::Group,
    state: Arc<SharedState<L>>,
    /// The group's name and the fruitless key of the text the search started from, if any.
    fruitless_key: Option<(&'static str, [u8; 32])>,
    /// Whether the search proposed anything, and whether any proposal was accepted.
    proposed: bool,
    accepted_any: bool,
    /// For a group that learns its prior: the number of its sites when the search started.
    sites_before: Option<usize>,
}

impl<L: Language> GroupSearch<'_, L> {
    /// Records the single sites of the last batch's `rejected` proposals as failed (for a
    /// group that skips those) and charges the `accepted` ones to the growth budget.
    fn record(&mut self, accepted: &[usize], rejected: &[usize]) {
        self.accepted_any |= !accepted.is_empty();
        if self.dry {
            return;
        }
        let batch = &self.last_sites;
        if self.skip_failed {
            let singles = rejected.iter().filter_map(|&i| batch.get(i)?.1);
            lock(&self.state.failed_sites).extend(singles);
        }
        if self.may_grow && !accepted.is_empty() {
            let spent: usize = accepted
                .iter()
                .filter_map(|&i| batch.get(i))
                .map(|b| b.0)
                .sum();
            let left = self.state.growth_budget(self.group).unwrap_or(0);
            self.state
                .set_growth_budget(self.group, left.saturating_sub(spent));
        }
    }
}

impl<L: Language> Search<String> for GroupSearch<'_, L> {
    fn next_batch(&mut self, current: &String) -> Option<Vec<Proposal<String>>> {
        if self.dry {
            return self.inner.next_batch(current);
        }
        self.state.mark_current(current);
        lock(&self.batch_sites).clear();
        let batch = self.inner.next_batch(current);
        self.last_sites = lock(&self.batch_sites).clone();
        match (&batch, self.fruitless_key) {
            (Some(_), _) => self.proposed = true,
            // Only a search that ran to its end and proposed something is recorded (an empty
            // one costs nothing, and the engine's look-ahead opens searches it never finishes).
            (None, Some(key)) if self.proposed && !self.accepted_any => {
                lock(&self.state.fruitless).insert(key);
            }
            (None, _) => {}
        }
        if batch.is_none() {
            let before = self.sites_before.take().unwrap_or(0);
            if self.proposed && before > 0 {
                let after = self.state.language.count_sites(current, self.group);
                let share = after.min(before) as f64 / before as f64;
                let name = self.state.spec(self.group).name;
                lock(&self.state.kept_shares).insert(name, share);
            }
        }
        batch
    }

    fn feedback(&mut self, accepted: Option<usize>) {
        let decided = accepted.unwrap_or(self.last_sites.len());
        let rejected: Vec<usize> = (0..decided).collect();
        self.record(accepted.as_slice(), &rejected);
        self.inner.feedback(accepted);
    }

    fn combine(&self, current: &String, indices: &[usize]) -> Option<Proposal<String>> {
        self.inner.combine(current, indices)
    }

    fn set_width(&mut self, width: Width) {
        self.inner.set_width(width);
    }

    fn feedback_fold(&mut self, accepted: &[usize], rejected: &[usize]) {
        self.record(accepted, rejected);
        self.inner.feedback_fold(accepted, rejected);
    }

    fn fork(&self, max_batch: usize) -> Option<Box<dyn Search<String> + '_>> {
        if !self.forks {
            return None;
        }
        Some(Box::new(GroupSearch {
            inner: self.inner.fork(max_batch)?,
            batch_sites: Arc::clone(&self.batch_sites),
            last_sites: Vec::new(),
            dry: true,
            forks: true,
            may_grow: self.may_grow,
            skip_failed: self.skip_failed,
            group: self.group,
            state: Arc::clone(&self.state),
            fruitless_key: None,
            proposed: self.proposed,
            accepted_any: self.accepted_any,
            sites_before: None,
        }))
    }
}

impl<L: Language> Pass<String> for GroupPass<L> {
    fn name(&self) -> String {
        self.state.spec(self.group).name.to_owned()
    }

    fn search(&self, current: &String) -> Box<dyn Search<String> + '_> {
        self.open(current, false)
    }

    fn peek(&self, current: &String) -> Option<Box<dyn Search<String> + '_>> {
        Some(self.open(current, true))
    }
}

impl<L: Language> GroupPass<L> {
    /// The group's search over `current`; a `dry` one leaves the shared state as it is (see
    /// [`GroupSearch`]).
    fn open(&self, current: &str, dry: bool) -> Box<dyn Search<String> + '_> {
        let group = self.group;
        let spec = self.state.spec(group);
        let fruitless_key = spec.fruitless.as_ref().map(|key| (spec.name, key(current)));
        if fruitless_key.is_some_and(|key| lock(&self.state.fruitless).contains(&key)) {
            return Box::new(Exhausted);
        }
        let may_grow = spec.growth == Growth::Budgeted;
        if may_grow && !dry && self.state.growth_budget(group).is_none() {
            // Counted once: later searches must not pay a parse for it.
            let sites = self.state.language.count_sites(current, group);
            self.state.set_growth_budget(group, sites);
        }
        let batch_sites = Arc::new(Mutex::new(Vec::new()));
        let sites = SiteSearches::new(group, &self.state, &batch_sites);
        let inner: Box<dyn Search<String>> = match (spec.search, spec.levels) {
            (SearchSpec::Bisect, _) => Box::new(crate::depth::search(group, &self.state)),
            (SearchSpec::Sweep, _) => Box::new(SweepSearch::of(&sites)),
            (_, Some(levels)) if levels != LevelPolicy::default() => {
                Box::new(LevelSearch::new(sites, levels))
            }
            (_, Some(_)) => Box::new(Sequence::new(Arc::new(move |level, current: &String| {
                sites.open(current, Some(level))
            }))),
            (_, None) => sites
                .open(current, None)
                .unwrap_or_else(|| Box::new(Exhausted)),
        };
        let learns = spec.probdd_spec().is_some_and(|p| p.learns_prior) && !dry;
        let forks = matches!(spec.search, SearchSpec::ProbDd(_) | SearchSpec::Ddmin)
            && spec
                .levels
                .is_none_or(|levels| levels == LevelPolicy::default());
        Box::new(GroupSearch {
            inner,
            batch_sites,
            last_sites: Vec::new(),
            dry,
            forks,
            may_grow,
            skip_failed: spec.skip_failed,
            group,
            state: Arc::clone(&self.state),
            fruitless_key,
            proposed: false,
            accepted_any: false,
            sites_before: learns.then(|| self.state.language.count_sites(current, group)),
        })
    }
}
#[cfg(test)]
mod tests;
