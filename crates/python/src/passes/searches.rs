//! The searches a group pass opens over the rewrite sites of the current text (all of them, or
//! one [level](super::levels) of statement removals): ProbDD (`--strategy probdd`) or ddmin.
//!
//! Statement removals of a text longer than [`PROBDD_STATEMENTS_MAX_TOKENS`] use ddmin: ProbDD
//! keeps the text it started from and re-applies every accepted site to it in each candidate, and
//! every accepted removal re-prepares (parses) the text the name filter judges against; with the
//! many acceptances of statement removals on a large file that cost more engine time per
//! candidate (1.2 ms against 0.9 ms on the engine benchmark's 5,000-line file) than the runs it
//! saved. Below the limit a parse is cheap and ProbDD's fewer runs win.
//!
//! ProbDD's sets hold about 1 / prior = 10 sites at first, however long the list: on thousands of
//! sites of which few are needed (a 50,000-line file where one line fails) that is thousands of
//! runs where ddmin's halving needs tens. A list longer than [`PROBDD_MAX_SITES`] is searched
//! with ddmin whatever the strategy.

use std::collections::HashSet;
use std::sync::{Arc, Mutex};

use minrepro_engine::{Ddmin, ProbDd, Search};
use minrepro_pysyntax::{token_count, Group, Prepared};

use super::levels;
use super::{candidate, candidate_on, lock, signature, skips_failed_sites, BatchSites};
use super::{SharedState, Strategy};

/// ProbDD's prior probability that a rewrite site must stay unapplied.
const PROBDD_PRIOR: f64 = 0.1;

pub use crate::language::PROBDD_STATEMENTS_MAX_TOKENS;

/// Longest site list searched with ProbDD (see the module documentation).
pub const PROBDD_MAX_SITES: usize = 1000;

/// The last text asked about, prepared with its rewrite sites (a search asks for the same text
/// many times).
type SiteMemo = Arc<Mutex<Option<Arc<Prepared>>>>;

/// What the searches of one group pass share.
#[derive(Clone)]
pub struct SiteSearches {
    group: Group,
    state: Arc<SharedState>,
    /// Single rewrites that already failed alone (known when the pass's search started: the
    /// list must not change under ddmin between two acceptances); left out.
    skip: Arc<HashSet<[u8; 32]>>,
    memo: SiteMemo,
    /// What each ddmin proposal of the last batch applies (see `GroupSearch`).
    batch_sites: Arc<Mutex<Vec<BatchSites>>>,
}

impl SiteSearches {
    /// The searches of `group`; ddmin reports its proposals' sites to `batch_sites`.
    pub fn new(
        group: Group,
        state: &Arc<SharedState>,
        batch_sites: &Arc<Mutex<Vec<BatchSites>>>,
    ) -> Self {
        let skip = if skips_failed_sites(group) {
            lock(&state.failed_sites).clone()
        } else {
            HashSet::new()
        };
        SiteSearches {
            group,
            state: Arc::clone(state),
            skip: Arc::new(skip),
            memo: Arc::new(Mutex::new(None)),
            batch_sites: Arc::clone(batch_sites),
        }
    }

    /// A search over the sites of `current` at `level` (every site when `None`): ProbDD when
    /// the strategy asks for it and neither the list nor (for statement removals) the text is
    /// too long, else ddmin. `None` when there are no such sites.
    pub fn open(&self, current: &str, level: Option<usize>) -> Option<Box<dyn Search<String>>> {
        let probdd =
            self.state.strategy == Strategy::ProbDd && self.group != Group::Canonicalizations;
        // The token count (a lex) decides before a ProbDD base that ddmin would not use is
        // prepared (a parse and the site listing).
        let small = || {
            self.group != Group::FastRemovals
                || token_count(current) <= PROBDD_STATEMENTS_MAX_TOKENS
        };
        if probdd && small() {
            let base = self.fixed_sites(current, level);
            if base.sites().is_empty() {
                return None;
            }
            if base.sites().len() <= PROBDD_MAX_SITES {
                return Some(self.probdd(base));
            }
        } else if Self::positions(&self.prepared(current), level).is_empty() {
            return None;
        }
        Some(Box::new(self.ddmin(level)))
    }

    /// The prepared `current` without the skipped sites; a text seen for the first time is also
    /// marked as current (it is).
    fn prepared(&self, current: &str) -> Arc<Prepared> {
        let mut memo = lock(&self.memo);
        if let Some(prepared) = memo.as_ref() {
            if prepared.source() == current {
                return Arc::clone(prepared);
            }
        }
        self.state.mark_current(current);
        let mut prepared = Prepared::new(current, self.group, self.state.minor);
        if !self.skip.is_empty() {
            prepared.retain_sites(|site| !self.skip.contains(&signature(current, site)));
        }
        let prepared = Arc::new(prepared);
        self.state.follow(&prepared);
        *memo = Some(Arc::clone(&prepared));
        prepared
    }

    /// Positions (in the prepared text's sites) of the sites at `level` (all when `None`).
    fn positions(prepared: &Prepared, level: Option<usize>) -> Vec<usize> {
        match level {
            None => (0..prepared.sites().len()).collect(),
            Some(level) => levels::at_level(&levels_of(prepared), level),
        }
    }

    /// ddmin over the sites at `level` of the current text (every site when `None`), re-derived
    /// for every batch.
    fn ddmin(&self, level: Option<usize>) -> Ddmin<String> {
        let length = self.clone();
        let build = self.clone();
        let inner = Ddmin::new(
            0,
            move |current: &String| Self::positions(&length.prepared(current), level).len(),
            move |current: &String, chunk: &[usize]| {
                let prepared = build.prepared(current);
                let positions = Self::positions(&prepared, level);
                let chosen: Vec<usize> = chunk
                    .iter()
                    .filter_map(|&i| positions.get(i).copied())
                    .collect();
                let all = prepared.sites();
                let proposal = candidate(build.group, &build.state, &prepared, all, &chosen)?;
                let single = match chosen.as_slice() {
                    [only] if skips_failed_sites(build.group) => {
                        all.get(*only).map(|site| signature(current, site))
                    }
                    _ => None,
                };
                lock(&build.batch_sites).push((chosen.len(), single));
                Some(proposal)
            },
        );
        // A sequential run decides one candidate at a time: candidates built after the
        // accepted one of a batch would be wasted (each is a whole text, checked and filtered).
        if self.state.jobs == 1 {
            inner.with_max_batch(1)
        } else {
            inner
        }
    }

    /// `current` prepared with the sites at `level` (all when `None`) that are not skipped:
    /// the fixed base of a ProbDD search.
    fn fixed_sites(&self, current: &str, level: Option<usize>) -> Prepared {
        let mut base = Prepared::new(current, self.group, self.state.minor);
        if let Some(level) = level {
            let mut at_level = levels_of(&base).into_iter().map(|l| l == level);
            base.retain_sites(|_| at_level.next().unwrap_or(false));
        }
        if !self.skip.is_empty() {
            base.retain_sites(|site| !self.skip.contains(&signature(current, site)));
        }
        base
    }

    /// ProbDD over the sites of `base`, which stay fixed for the whole search: a candidate
    /// applies every site accepted so far plus the new set to the base text. A single site whose
    /// removal alone failed is remembered as failed (for the groups that skip those).
    fn probdd(&self, base: Prepared) -> Box<dyn Search<String>> {
        let base = Arc::new(base);
        let state = Arc::clone(&self.state);
        state.follow(&base);
        let group = self.group;
        // The current text, prepared with its chunks for the name filter.
        let judged = Mutex::new(Arc::clone(&base));
        let (failed_state, failed_base) = (Arc::clone(&state), Arc::clone(&base));
        let width = state.jobs;
        let search = ProbDd::new(
            base.sites().len(),
            PROBDD_PRIOR,
            move |current: &String, applied: &[usize]| {
                state.mark_current(current);
                let judged = {
                    let mut judged = lock(&judged);
                    if judged.source() != current.as_str() {
                        let next = Arc::new(Prepared::chunked(current, state.minor));
                        state.follow(&next);
                        *judged = next;
                    }
                    Arc::clone(&judged)
                };
                candidate_on(group, &state, &base, &judged, base.sites(), applied)
            },
        )
        .with_width(width);
        if !skips_failed_sites(group) {
            return Box::new(search);
        }
        Box::new(search.on_failed_alone(move |i| {
            if let Some(site) = failed_base.sites().get(i) {
                let failed = signature(failed_base.source(), site);
                lock(&failed_state.failed_sites).insert(failed);
            }
        }))
    }
}

/// The [level](levels::levels) of each site of `prepared`.
fn levels_of(prepared: &Prepared) -> Vec<usize> {
    let ranges: Vec<_> = prepared.sites().iter().map(|s| s.range.clone()).collect();
    levels::levels(&ranges)
}
