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
//! [`LevelPolicy`](crate::spec::LevelPolicy) asks for more than plain HDD (re-sweeps, stopping after fruitless levels).
//! Every search of one pass (each level's, each re-sweep's) chooses among the sites of one
//! [`Listed`] text: preparing is a parse and a listing of the whole text, and a chain nested a
//! thousand levels deep with one site per level opens a thousand searches on the same text.
//!
//! ProbDD's sets hold about 1 / prior = 10 sites at first, however long the list: on thousands of
//! sites of which few are needed (a 50,000-line file where one line fails) that is thousands of
//! runs where ddmin's halving needs tens. A list longer than [`PROBDD_MAX_SITES`] is searched
//! with ddmin whatever the strategy.

use std::collections::HashSet;
use std::sync::{Arc, Mutex};

use minrepro_engine::{Ddmin, ProbDd, Search};

use crate::candidate::BatchSites;
use crate::candidate::{candidate, candidate_on, identities};
use crate::language::{Language, Prepared, Strategy};
use crate::levels;
use crate::lock::lock;
use crate::spec::PROBDD_MAX_PRIOR;
use crate::state::SharedState;

mod level;

pub(crate) use level::LevelSearch;

/// Longest site list searched with ProbDD (see the module documentation).
pub const PROBDD_MAX_SITES: usize = 1000;

/// A text prepared with every site of the group, their identities (empty for a group that
/// tracks none; computed over all of the group's sites, so a site's identity does not depend on
/// the level or on what is skipped) and their levels among all of them.
struct Listed<P> {
    prepared: Arc<P>,
    ids: Vec<[u8; 32]>,
    levels: Vec<usize>,
}

impl<P: Prepared> Listed<P> {
    /// Whether the site at `position` is one of `skip`.
    fn skipped(&self, position: usize, skip: &HashSet<[u8; 32]>) -> bool {
        self.ids.get(position).is_some_and(|id| skip.contains(id))
    }
}

/// The sites of a listed text that a search chooses among: their positions in its list (those
/// not skipped), their identities, and their levels among themselves.
struct Sited<P> {
    listed: Arc<Listed<P>>,
    kept: Vec<usize>,
    ids: Vec<[u8; 32]>,
    levels: Vec<usize>,
}

impl<P: Prepared> Sited<P> {
    /// The sites of `listed` not in `skip`.
    fn new(listed: Arc<Listed<P>>, skip: &HashSet<[u8; 32]>) -> Self {
        let n = listed.prepared.sites().len();
        let kept: Vec<usize> = (0..n).filter(|&i| !listed.skipped(i, skip)).collect();
        let ids = kept
            .iter()
            .filter_map(|&i| listed.ids.get(i).copied())
            .collect();
        let all = listed.prepared.sites();
        let ranges: Vec<_> = kept.iter().map(|&i| P::info(&all[i]).range).collect();
        Sited {
            levels: levels::levels(&ranges),
            listed,
            kept,
            ids,
        }
    }

    /// Positions (in `kept`) of the sites at `level` (all when `None`).
    fn positions(&self, level: Option<usize>) -> Vec<usize> {
        match level {
            None => (0..self.kept.len()).collect(),
            Some(level) => levels::at_level(&self.levels, level),
        }
    }
}

/// The last text asked about, listed (a pass asks for the same text many times).
type ListedMemo<P> = Arc<Mutex<Option<Arc<Listed<P>>>>>;
/// Its sites a search chooses among.
type SiteMemo<P> = Arc<Mutex<Option<Arc<Sited<P>>>>>;

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
    /// For a group whose levels are re-swept ([`LevelPolicy::resweep`](crate::spec::LevelPolicy::resweep)): the single sites that
    /// failed alone since the last acceptance (ProbDD reports them here; ddmin's go through
    /// `batch_sites`).
    level_failed: Option<Arc<Mutex<HashSet<[u8; 32]>>>>,
    /// Of those, the sites the language deferred ([`Prepared::priors`] above the search's
    /// prior): kept out of the group's later re-sweeps while their identity stays, also after
    /// an acceptance (a deferred site's identity changes when it stops being deferred).
    deferred_failed: Option<Arc<Mutex<HashSet<[u8; 32]>>>>,
    /// ProbDD's prior when not the group's (a re-sweep expects most sites to be needed).
    prior: Option<f64>,
    /// Shared by every search of the pass, re-sweeps included.
    listed: ListedMemo<L::Prepared>,
    /// Of these searches' own `skip`.
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
            listed: Arc::clone(&self.listed),
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
            listed: Arc::new(Mutex::new(None)),
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
            let listed = self.listed(current);
            let positions = self.unskipped_at(&listed, level);
            if positions.is_empty() {
                return None;
            }
            if positions.len() <= PROBDD_MAX_SITES {
                return Some(self.probdd(listed, positions));
            }
        } else if self.prepared(current).positions(level).is_empty() {
            return None;
        }
        Some(Box::new(self.ddmin(level)))
    }

    /// `current` listed, from the memo when it was the last text asked about; a new listing
    /// becomes the last prepared text (see [`SharedState::follow`]).
    fn listed(&self, current: &str) -> Arc<Listed<L::Prepared>> {
        let mut memo = lock(&self.listed);
        if let Some(listed) = memo.as_ref() {
            if listed.prepared.source() == current {
                return Arc::clone(listed);
            }
        }
        let prepared = Arc::new(self.state.language().prepare(current, self.group));
        let ids = if self.tracks_singles() {
            identities(self.state.spec(self.group), &*prepared)
        } else {
            Vec::new()
        };
        let ranges: Vec<_> = prepared
            .sites()
            .iter()
            .map(|s| L::Prepared::info(s).range)
            .collect();
        let listed = Arc::new(Listed {
            levels: levels::levels(&ranges),
            prepared,
            ids,
        });
        self.state.follow(&listed.prepared);
        *memo = Some(Arc::clone(&listed));
        listed
    }

    /// The sites of `current` these searches choose among (all but the skipped ones).
    fn prepared(&self, current: &str) -> Arc<Sited<L::Prepared>> {
        let mut memo = lock(&self.memo);
        if let Some(sited) = memo.as_ref() {
            if sited.listed.prepared.source() == current {
                return Arc::clone(sited);
            }
        }
        let sited = Arc::new(Sited::new(self.listed(current), &self.skip));
        *memo = Some(Arc::clone(&sited));
        sited
    }

    /// Positions in `listed` of its sites at `level` (all when `None`; levels among all of the
    /// group's sites) that are not skipped.
    fn unskipped_at(&self, listed: &Listed<L::Prepared>, level: Option<usize>) -> Vec<usize> {
        (0..listed.levels.len())
            .filter(|&i| level.is_none_or(|level| listed.levels[i] == level))
            .filter(|&i| !listed.skipped(i, &self.skip))
            .collect()
    }

    /// ddmin over the sites at `level` of the current text (every site when `None`), re-derived
    /// for every batch.
    fn ddmin(&self, level: Option<usize>) -> Ddmin<String> {
        let length = self.clone();
        let build = self.clone();
        let inner = Ddmin::new(
            0,
            move |current: &String| length.prepared(current).positions(level).len(),
            move |current: &String, chunk: &[usize]| {
                let sited = build.prepared(current);
                let positions = sited.positions(level);
                let chosen: Vec<usize> = chunk
                    .iter()
                    .filter_map(|&i| positions.get(i).copied())
                    .collect();
                let listed: Vec<usize> = chosen.iter().map(|&k| sited.kept[k]).collect();
                let prepared = &*sited.listed.prepared;
                let proposal = candidate(build.group, &build.state, prepared, &listed)?;
                let single = match chosen.as_slice() {
                    [only] if build.tracks_singles() => sited.ids.get(*only).copied(),
                    _ => None,
                };
                lock(&build.batch_sites).push((chosen.len(), single));
                Some(proposal)
            },
        );
        inner
    }

    /// ProbDD over the sites of `listed` at `positions`, which stay fixed for the whole search:
    /// a candidate applies every site accepted so far plus the new set to the listed text. A
    /// single site whose application alone failed is remembered as failed (for the groups that
    /// skip those).
    fn probdd(
        &self,
        listed: Arc<Listed<L::Prepared>>,
        positions: Vec<usize>,
    ) -> Box<dyn Search<String>> {
        let base = Arc::clone(&listed.prepared);
        let state = Arc::clone(&self.state);
        let group = self.group;
        // The current text, prepared for judging candidates against it.
        let judged = Mutex::new(Arc::clone(&base));
        let failed_state = Arc::clone(&state);
        let prior = self.prior.unwrap_or_else(|| state.prior(group));
        let all_priors = base.priors(prior);
        let priors: Vec<f64> = positions.iter().map(|&i| all_priors[i]).collect();
        let ids: Vec<[u8; 32]> = positions
            .iter()
            .filter_map(|&i| listed.ids.get(i).copied())
            .collect();
        let search = ProbDd::new(
            positions.len(),
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
                let applied: Vec<usize> = applied.iter().map(|&i| positions[i]).collect();
                candidate_on(group, &state, &*base, &*judged, &applied)
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
