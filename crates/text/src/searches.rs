//! The searches a group pass opens over the sites of the current text (all of them, or one
//! [level](crate::levels) of nested sites): ProbDD (under [`Strategy::ProbDd`], when the group's
//! policy allows it) or ddmin.
//!
//! A group's policy may cap the text size ProbDD searches (`probdd_max_size`): ProbDD keeps the
//! text it started from and re-applies every accepted site to it in each candidate, and every
//! acceptance re-prepares the text candidates are judged against, which on a large text can cost
//! more than the runs ProbDD saves.
//!
//! ProbDD's sets hold about 1 / prior = 10 sites at first, however long the list: on thousands of
//! sites of which few are needed (a 50,000-line file where one line fails) that is thousands of
//! runs where ddmin's halving needs tens. A list longer than [`PROBDD_MAX_SITES`] is searched
//! with ddmin whatever the strategy.

use std::collections::HashSet;
use std::sync::{Arc, Mutex};

use minrepro_engine::{Ddmin, ProbDd, Search};

use crate::language::{Language, Prepared, Strategy};
use crate::levels;
use crate::passes::{candidate, candidate_on, identities, lock, BatchSites, SharedState};

/// ProbDD's prior probability that a site must stay unapplied.
pub(crate) const PROBDD_PRIOR: f64 = 0.1;

/// Highest learned prior (see [`Language::learns_prior`]): at one half ProbDD tries single
/// sites.
pub(crate) const PROBDD_MAX_PRIOR: f64 = 0.5;

/// Longest site list searched with ProbDD (see the module documentation).
pub const PROBDD_MAX_SITES: usize = 1000;

/// A prepared text without its skipped sites, with the identities of the sites it kept (empty
/// for a group that does not skip failed sites).
struct Sited<P> {
    prepared: Arc<P>,
    ids: Arc<Vec<[u8; 32]>>,
}

impl<P> Clone for Sited<P> {
    fn clone(&self) -> Self {
        Sited {
            prepared: Arc::clone(&self.prepared),
            ids: Arc::clone(&self.ids),
        }
    }
}

/// The last text asked about, prepared with its sites (a search asks for the same text many
/// times).
type SiteMemo<P> = Arc<Mutex<Option<Sited<P>>>>;

/// What the searches of one group pass share.
pub(crate) struct SiteSearches<L: Language> {
    group: L::Group,
    state: Arc<SharedState<L>>,
    /// Whether the group skips single sites that already failed alone.
    skips_failed: bool,
    /// Single sites that already failed alone (known when the pass's search started: the list
    /// must not change under ddmin between two acceptances); left out.
    skip: Arc<HashSet<[u8; 32]>>,
    memo: SiteMemo<L::Prepared>,
    /// What each ddmin proposal of the last batch applies (see `GroupSearch`).
    batch_sites: Arc<Mutex<Vec<BatchSites>>>,
}

impl<L: Language> Clone for SiteSearches<L> {
    fn clone(&self) -> Self {
        SiteSearches {
            group: self.group,
            state: Arc::clone(&self.state),
            skips_failed: self.skips_failed,
            skip: Arc::clone(&self.skip),
            memo: Arc::clone(&self.memo),
            batch_sites: Arc::clone(&self.batch_sites),
        }
    }
}

impl<L: Language> SiteSearches<L> {
    /// The searches of `group`; ddmin reports its proposals' sites to `batch_sites`.
    pub(crate) fn new(
        group: L::Group,
        state: &Arc<SharedState<L>>,
        batch_sites: &Arc<Mutex<Vec<BatchSites>>>,
    ) -> Self {
        let skips_failed = state.language().policy(group).skip_failed;
        let skip = if skips_failed {
            lock(&state.failed_sites).clone()
        } else {
            HashSet::new()
        };
        SiteSearches {
            group,
            state: Arc::clone(state),
            skips_failed,
            skip: Arc::new(skip),
            memo: Arc::new(Mutex::new(None)),
            batch_sites: Arc::clone(batch_sites),
        }
    }

    /// A search over the sites of `current` at `level` (every site when `None`): ProbDD when
    /// the strategy and policy ask for it and neither the list nor the text is too long, else
    /// ddmin. `None` when there are no such sites.
    pub(crate) fn open(
        &self,
        current: &str,
        level: Option<usize>,
    ) -> Option<Box<dyn Search<String>>> {
        let policy = self.state.language().policy(self.group);
        let probdd = self.state.strategy == Strategy::ProbDd && policy.probdd;
        // The size (e.g. a lex) decides before a ProbDD base that ddmin would not use is
        // prepared (e.g. a parse and the site listing).
        let small = || {
            policy
                .probdd_max_size
                .is_none_or(|max| self.state.language().size(current) <= max)
        };
        if probdd && small() {
            let (base, ids) = self.without_skipped(current, level);
            if base.sites().is_empty() {
                return None;
            }
            if base.sites().len() <= PROBDD_MAX_SITES {
                return Some(self.probdd(base, ids));
            }
        } else if Self::positions(&self.prepared(current).prepared, level).is_empty() {
            return None;
        }
        Some(Box::new(self.ddmin(level)))
    }

    /// The prepared `current` without the skipped sites; a text seen for the first time is also
    /// marked as current (it is).
    fn prepared(&self, current: &str) -> Sited<L::Prepared> {
        let mut memo = lock(&self.memo);
        if let Some(sited) = memo.as_ref() {
            if sited.prepared.source() == current {
                return sited.clone();
            }
        }
        self.state.mark_current(current);
        let (prepared, ids) = self.without_skipped(current, None);
        let sited = Sited {
            prepared: Arc::new(prepared),
            ids: Arc::new(ids),
        };
        self.state.follow(&sited.prepared);
        *memo = Some(sited.clone());
        sited
    }

    /// `current` prepared with the sites at `level` (all when `None`) that are not skipped, and
    /// their identities (when the group skips failed sites; computed over all of the group's
    /// sites, so a site's identity does not depend on the level or on what is skipped).
    fn without_skipped(&self, current: &str, level: Option<usize>) -> (L::Prepared, Vec<[u8; 32]>) {
        let mut base = self.state.language().prepare(current, self.group);
        let ids = if self.skips_failed {
            identities(self.state.language(), self.group, &base)
        } else {
            Vec::new()
        };
        let mut keep: Vec<bool> = match level {
            Some(level) => levels_of(&base).into_iter().map(|l| l == level).collect(),
            None => vec![true; base.sites().len()],
        };
        for (keep, id) in keep.iter_mut().zip(&ids) {
            *keep &= !self.skip.contains(id);
        }
        if keep.iter().any(|k| !k) {
            let mut kept = keep.iter().copied();
            base.retain_sites(&mut |_| kept.next().unwrap_or(false));
        }
        let ids = ids
            .into_iter()
            .zip(&keep)
            .filter_map(|(id, &k)| k.then_some(id))
            .collect();
        (base, ids)
    }

    /// Positions (in the prepared text's sites) of the sites at `level` (all when `None`).
    fn positions(prepared: &L::Prepared, level: Option<usize>) -> Vec<usize> {
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
            move |current: &String| {
                Self::positions(&length.prepared(current).prepared, level).len()
            },
            move |current: &String, chunk: &[usize]| {
                let Sited { prepared, ids } = build.prepared(current);
                let positions = Self::positions(&prepared, level);
                let chosen: Vec<usize> = chunk
                    .iter()
                    .filter_map(|&i| positions.get(i).copied())
                    .collect();
                let proposal = candidate(build.group, &build.state, &*prepared, &chosen)?;
                let single = match chosen.as_slice() {
                    [only] if build.skips_failed => ids.get(*only).copied(),
                    _ => None,
                };
                lock(&build.batch_sites).push((chosen.len(), single));
                Some(proposal)
            },
        );
        // Each candidate is a whole text, checked and filtered: none built in vain.
        inner.for_jobs(self.state.jobs)
    }

    /// ProbDD over the sites of `base`, which stay fixed for the whole search: a candidate
    /// applies every site accepted so far plus the new set to the base text. A single site whose
    /// application alone failed is remembered as failed (for the groups that skip those).
    fn probdd(&self, base: L::Prepared, ids: Vec<[u8; 32]>) -> Box<dyn Search<String>> {
        let base = Arc::new(base);
        let state = Arc::clone(&self.state);
        state.follow(&base);
        let group = self.group;
        // The current text, prepared for judging candidates against it.
        let judged = Mutex::new(Arc::clone(&base));
        let failed_state = Arc::clone(&state);
        let width = state.jobs;
        let prior = state.prior(group);
        let search = ProbDd::new(
            base.sites().len(),
            prior,
            move |current: &String, applied: &[usize]| {
                state.mark_current(current);
                let judged = {
                    let mut judged = lock(&judged);
                    if judged.source() != current.as_str() {
                        let next = Arc::new(state.language().prepare_current(current));
                        state.follow(&next);
                        *judged = next;
                    }
                    Arc::clone(&judged)
                };
                candidate_on(group, &state, &*base, &*judged, applied)
            },
        )
        .with_width(width);
        if !self.skips_failed {
            return Box::new(search);
        }
        Box::new(search.on_failed_alone(move |i| {
            if let Some(&failed) = ids.get(i) {
                lock(&failed_state.failed_sites).insert(failed);
            }
        }))
    }
}

/// The [level](levels::levels) of each site of `prepared`.
fn levels_of<P: Prepared>(prepared: &P) -> Vec<usize> {
    let ranges: Vec<_> = prepared.sites().iter().map(|s| P::info(s).range).collect();
    levels::levels(&ranges)
}
