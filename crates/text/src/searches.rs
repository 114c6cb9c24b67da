//! The searches a group pass opens over the sites of the current text (all of them, or one
//! [level](crate::levels) of nested sites): ProbDD (under [`Strategy::ProbDd`], when the group's
//! policy allows it) or ddmin.
//!
//! A group's spec may cap the text size ProbDD searches ([`ProbDdSpec::max_size`](crate::ProbDdSpec)): ProbDD keeps the
//! text it started from and re-applies every accepted site to it in each candidate, and every
//! acceptance re-prepares the text candidates are judged against, which on a large text can cost
//! more than the runs ProbDD saves.
//!
//! A group searched level by level goes through the levels in a [`LevelSearch`] when its
//! [`LevelPolicy`] asks for more than plain HDD (re-sweeps, stopping after fruitless levels).
//!
//! ProbDD's sets hold about 1 / prior = 10 sites at first, however long the list: on thousands of
//! sites of which few are needed (a 50,000-line file where one line fails) that is thousands of
//! runs where ddmin's halving needs tens. A list longer than [`PROBDD_MAX_SITES`] is searched
//! with ddmin whatever the strategy.

use std::collections::HashSet;
use std::sync::{Arc, Mutex};

use minrepro_engine::{Ddmin, InnerSearch, ProbDd, Proposal, Search, Width};

use crate::candidate::BatchSites;
use crate::candidate::{candidate, candidate_on, identities};
use crate::language::{Language, Prepared, Strategy};
use crate::levels;
use crate::lock::lock;
use crate::spec::{LevelPolicy, PROBDD_MAX_PRIOR};
use crate::state::SharedState;

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
    /// The group searched.
    pub(crate) group: L::Group,
    /// The reduction's shared state.
    pub(crate) state: Arc<SharedState<L>>,
    /// Whether the group skips single sites that already failed alone.
    pub(crate) skips_failed: bool,
    /// Single sites that already failed alone (known when the pass's search started: the list
    /// must not change under ddmin between two acceptances), and those a level re-sweep leaves
    /// out; left out.
    pub(crate) skip: Arc<HashSet<[u8; 32]>>,
    /// For a group whose levels are re-swept ([`LevelPolicy::resweep`]): the single sites that
    /// failed alone since the last acceptance (ProbDD reports them here; ddmin's go through
    /// `batch_sites`).
    level_failed: Option<Arc<Mutex<HashSet<[u8; 32]>>>>,
    /// Of those, the sites the language deferred ([`Prepared::priors`] above the search's
    /// prior): kept out of the group's later re-sweeps while their identity stays, also after
    /// an acceptance (a deferred site's identity changes when it stops being deferred).
    deferred_failed: Option<Arc<Mutex<HashSet<[u8; 32]>>>>,
    /// ProbDD's prior when not the group's (a re-sweep expects most sites to be needed).
    prior: Option<f64>,
    memo: SiteMemo<L::Prepared>,
    /// What each ddmin proposal of the last batch applies (see `GroupSearch`).
    pub(crate) batch_sites: Arc<Mutex<Vec<BatchSites>>>,
}

impl<L: Language> Clone for SiteSearches<L> {
    fn clone(&self) -> Self {
        SiteSearches {
            group: self.group,
            state: Arc::clone(&self.state),
            skips_failed: self.skips_failed,
            skip: Arc::clone(&self.skip),
            level_failed: self.level_failed.clone(),
            deferred_failed: self.deferred_failed.clone(),
            prior: self.prior,
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
        let spec = state.spec(group);
        let skips_failed = spec.skip_failed;
        let skip = state.failed_so_far(skips_failed);
        let resweeps = spec.levels.is_some_and(|levels| levels.resweep);
        SiteSearches {
            group,
            state: Arc::clone(state),
            skips_failed,
            skip: Arc::new(skip),
            level_failed: resweeps.then(|| Arc::new(Mutex::new(HashSet::new()))),
            deferred_failed: resweeps.then(|| Arc::new(Mutex::new(HashSet::new()))),
            prior: None,
            memo: Arc::new(Mutex::new(None)),
            batch_sites: Arc::clone(batch_sites),
        }
    }

    /// Whether the identities of single sites that fail alone are wanted (to skip them later).
    fn tracks_singles(&self) -> bool {
        self.skips_failed || self.level_failed.is_some()
    }

    /// These searches as a re-sweep: also leaving out the sites in `more` (with a memo of their
    /// own), ProbDD trying one site at a time (most were needed a moment ago).
    fn resweeping(&self, more: HashSet<[u8; 32]>) -> Self {
        let mut skip = more;
        skip.extend(self.skip.iter().copied());
        SiteSearches {
            skip: Arc::new(skip),
            prior: Some(PROBDD_MAX_PRIOR),
            memo: Arc::new(Mutex::new(None)),
            ..self.clone()
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
        let probdd = match self.state.spec(self.group).probdd_spec() {
            Some(spec) if self.state.strategy == Strategy::ProbDd => Some(spec.max_size),
            _ => None,
        };
        // The size (e.g. a lex) decides before a ProbDD base that ddmin would not use is
        // prepared (e.g. a parse and the site listing).
        let small = |max_size: Option<usize>| {
            max_size.is_none_or(|max| self.state.language().size(current) <= max)
        };
        if probdd.is_some_and(small) {
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

    /// The prepared `current` without the skipped sites.
    fn prepared(&self, current: &str) -> Sited<L::Prepared> {
        let mut memo = lock(&self.memo);
        if let Some(sited) = memo.as_ref() {
            if sited.prepared.source() == current {
                return sited.clone();
            }
        }
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
        let ids = if self.tracks_singles() {
            identities(self.state.spec(self.group), &base)
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
                    [only] if build.tracks_singles() => ids.get(*only).copied(),
                    _ => None,
                };
                lock(&build.batch_sites).push((chosen.len(), single));
                Some(proposal)
            },
        );
        inner
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
        let prior = self.prior.unwrap_or_else(|| state.prior(group));
        let priors = base.priors(prior);
        let search = ProbDd::new(
            base.sites().len(),
            prior,
            move |current: &String, applied: &[usize]| {
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
        .with_priors(&priors);
        if !self.tracks_singles() {
            return Box::new(search);
        }
        let (global, level) = (self.skips_failed, self.level_failed.clone());
        let deferred_failed = self.deferred_failed.clone();
        let deferred: Vec<bool> = priors.iter().map(|&p| p > prior).collect();
        Box::new(search.on_failed_alone(move |i| {
            if let Some(&failed) = ids.get(i) {
                if global {
                    lock(&failed_state.failed_sites).insert(failed);
                }
                if let Some(level) = &level {
                    lock(level).insert(failed);
                }
                if let (Some(sticky), true) = (&deferred_failed, deferred[i]) {
                    lock(sticky).insert(failed);
                }
            }
        }))
    }
}

/// A group's search level by level (HDD) under a [`LevelPolicy`]: each level's search opened
/// on the text current when the previous one ended, a level searched again while its search
/// accepted something (`resweep`), and no deeper level once enough levels in a row accepted
/// nothing after an acceptance (`stop_after_fruitless`).
pub(crate) struct LevelSearch<L: Language> {
    sites: SiteSearches<L>,
    policy: LevelPolicy,
    level: usize,
    /// The open search of the level, if any (at the engine's width).
    inner: InnerSearch<'static, String>,
    /// Whether the next search of the level is a re-sweep.
    resweeping: bool,
    /// Whether the open search, the current level and the whole search accepted something.
    search_accepted: bool,
    level_accepted: bool,
    accepted_any: bool,
    /// Consecutive levels that accepted nothing, and their sites.
    fruitless_levels: usize,
    fruitless_sites: usize,
    /// Whether the current level has proposed a batch (a level whose every candidate was
    /// refused unrun costs nothing, so it does not count as fruitless).
    level_ran: bool,
    /// Sites of the current level when its first search opened.
    level_sites: usize,
    done: bool,
}

impl<L: Language> LevelSearch<L> {
    /// The level search of `sites` under `policy`.
    pub(crate) fn new(sites: SiteSearches<L>, policy: LevelPolicy) -> Self {
        LevelSearch {
            sites,
            policy,
            level: 0,
            inner: InnerSearch::default(),
            resweeping: false,
            search_accepted: false,
            level_accepted: false,
            accepted_any: false,
            fruitless_levels: 0,
            fruitless_sites: 0,
            level_ran: false,
            level_sites: 0,
            done: false,
        }
    }

    /// The number of sites at `level` of `current`.
    fn sites_at(&self, current: &str, level: usize) -> usize {
        SiteSearches::<L>::positions(&self.sites.prepared(current).prepared, Some(level)).len()
    }

    /// Moves to the next level of `current`, or ends the search (see
    /// [`LevelPolicy::stop_after_fruitless`]): not when the next level has at least as many
    /// sites as the fruitless ones together (a chain of wrappers before a wide level: a Java
    /// class's deletion, its two hoistings and its modifiers, then its ten members).
    fn next_level(&mut self, current: &str) {
        if self.level_accepted {
            self.fruitless_levels = 0;
            self.fruitless_sites = 0;
        } else if self.level_ran {
            self.fruitless_levels += 1;
            self.fruitless_sites += self.level_sites;
        }
        let stop = self
            .policy
            .stop_after_fruitless
            .is_some_and(|most| self.accepted_any && self.fruitless_levels >= most);
        self.done |= stop && self.sites_at(current, self.level + 1) < self.fruitless_sites;
        self.level += 1;
        self.level_accepted = false;
        self.level_ran = false;
        self.resweeping = false;
    }
}

impl<L: Language> Search<String> for LevelSearch<L> {
    fn next_batch(&mut self, current: &String) -> Option<Vec<Proposal<String>>> {
        loop {
            if self.done {
                return None;
            }
            if !self.inner.is_open() {
                let opened = if self.resweeping {
                    let failed = self
                        .sites
                        .level_failed
                        .as_ref()
                        .map(|set| std::mem::take(&mut *lock(set)))
                        .unwrap_or_default();
                    let mut failed = failed;
                    if let Some(sticky) = &self.sites.deferred_failed {
                        failed.extend(lock(sticky).iter().copied());
                    }
                    self.sites
                        .resweeping(failed)
                        .open(current, Some(self.level))
                } else {
                    self.level_sites = self.sites_at(current, self.level);
                    self.sites.open(current, Some(self.level))
                };
                match opened {
                    Some(search) => self.inner.open(search),
                    // Every site of the level left out: on to the next one.
                    None if self.resweeping => {
                        self.next_level(current);
                        continue;
                    }
                    // No site this deep.
                    None => {
                        self.done = true;
                        return None;
                    }
                }
            }
            if let Some(batch) = self.inner.next_batch(current) {
                // ddmin hands over an empty batch when every candidate of a step was refused
                // unrun: that step cost nothing.
                self.level_ran |= !batch.is_empty();
                return Some(batch);
            }
            if self.policy.resweep && self.search_accepted {
                self.search_accepted = false;
                self.resweeping = true;
            } else {
                self.next_level(current);
            }
        }
    }

    fn feedback(&mut self, accepted: Option<usize>) {
        let decided = accepted.unwrap_or(lock(&self.sites.batch_sites).len());
        let rejected: Vec<usize> = (0..decided).collect();
        self.record(&rejected);
        self.inner.feedback(accepted);
        self.accepted(accepted.is_some());
    }

    fn combine(&self, current: &String, indices: &[usize]) -> Option<Proposal<String>> {
        self.inner.combine(current, indices)
    }

    fn set_width(&mut self, width: Width) {
        self.inner.set_width(width);
    }

    fn feedback_fold(&mut self, accepted: &[usize], rejected: &[usize]) {
        self.record(rejected);
        self.inner.feedback_fold(accepted, rejected);
        self.accepted(!accepted.is_empty());
    }
}

impl<L: Language> LevelSearch<L> {
    /// Records ddmin's single sites of the last batch's `rejected` proposals as failed at this
    /// level (ProbDD reports its own).
    fn record(&self, rejected: &[usize]) {
        if let Some(failed) = &self.sites.level_failed {
            let batch = lock(&self.sites.batch_sites);
            lock(failed).extend(rejected.iter().filter_map(|&i| batch.get(i)?.1));
        }
    }

    /// Notes whether the last batch changed the text.
    fn accepted(&mut self, accepted: bool) {
        if accepted {
            self.search_accepted = true;
            self.level_accepted = true;
            self.accepted_any = true;
            if let Some(failed) = &self.sites.level_failed {
                lock(failed).clear();
            }
        }
    }
}

/// The [level](levels::levels) of each site of `prepared`.
fn levels_of<P: Prepared>(prepared: &P) -> Vec<usize> {
    let ranges: Vec<_> = prepared.sites().iter().map(|s| P::info(s).range).collect();
    levels::levels(&ranges)
}
