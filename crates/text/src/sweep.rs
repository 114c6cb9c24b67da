//! A sweep over a group's sites (see [`SearchSpec::Sweep`](crate::SearchSpec)): each site tried alone, in
//! list order; after an acceptance the sweep goes on at the same position of the new text's
//! list, after a failure at the next one (C-Vise's `rm-toks-N` schedule).
//!
//! Why not ProbDD or ddmin: for sites that overlap (runs of N consecutive tokens at every
//! position) sets of several sites mostly apply one of each overlapping cluster, and a site
//! ProbDD found needed costs a run in every later search; a sweep costs one run per position
//! and accepts what works where it is.
//!
//! Determinism: a batch holds the next admissible sites in order (as many as the engine's
//! [`Width`] asks for), exactly what `-j 1`
//! would try one after the other while they fail, so the first accepted one (the engine's
//! rule) is the one `-j 1` accepts.

use std::collections::HashSet;
use std::sync::{Arc, Mutex};

use minrepro_engine::{Proposal, Search, Width};

use crate::candidate::BatchSites;
use crate::candidate::{candidate, identities};
use crate::language::{Language, Prepared};
use crate::lock::lock;
use crate::searches::SiteSearches;
use crate::state::SharedState;

/// A sweep over the sites of one group (see the module documentation).
pub(crate) struct SweepSearch<L: Language> {
    group: L::Group,
    state: Arc<SharedState<L>>,
    /// Identities of single sites that failed alone before the sweep started (when the group
    /// skips those): passed over.
    skip: Arc<HashSet<[u8; 32]>>,
    /// Whether identities are computed (the group skips failed sites).
    tracks_singles: bool,
    /// What each proposal of the last batch applies (see `GroupSearch`).
    batch_sites: Arc<Mutex<Vec<BatchSites>>>,
    /// The position, in the current text's site list, the next batch starts from.
    position: usize,
    /// The positions of the last batch's proposals, in batch order.
    proposed: Vec<usize>,
    /// The current text, prepared, with its sites' identities.
    memo: Option<Identified<L::Prepared>>,
    /// Identities of the sites this sweep saw fail in a window decided together (see
    /// [`Search::feedback_fold`]): passed over while their identity stays.
    rejected: HashSet<[u8; 32]>,
    /// The engine's width (sites per batch).
    width: Width,
}

/// A prepared text and the identities of its sites (empty when not tracked).
type Identified<P> = (Arc<P>, Vec<[u8; 32]>);

impl<L: Language> SweepSearch<L> {
    /// A sweep of the group of `sites` from its first site, leaving out what they leave out
    /// (sites that failed alone before, for a group that skips those); proposals' sites are
    /// reported to their `batch_sites`.
    pub(crate) fn of(sites: &SiteSearches<L>) -> Self {
        SweepSearch {
            group: sites.group,
            state: Arc::clone(&sites.state),
            skip: Arc::clone(&sites.skip),
            tracks_singles: sites.skips_failed,
            batch_sites: Arc::clone(&sites.batch_sites),
            position: 0,
            proposed: Vec::new(),
            memo: None,
            rejected: HashSet::new(),
            width: Width::SEQUENTIAL,
        }
    }

    /// `current` prepared with the group's sites, and their identities (empty when not
    /// tracked); a text seen for the first time is marked as current.
    fn prepared(&mut self, current: &str) -> Identified<L::Prepared> {
        if let Some((prepared, ids)) = &self.memo {
            if prepared.source() == current {
                return (Arc::clone(prepared), ids.clone());
            }
        }
        self.state.mark_current(current);
        let prepared = Arc::new(self.state.language().prepare(current, self.group));
        self.state.follow(&prepared);
        // (Identities also serve the sites rejected in a folded window, under -j above 1.)
        let ids = if self.tracks_singles || self.width.window > 1 {
            identities(self.state.spec(self.group), &*prepared)
        } else {
            Vec::new()
        };
        self.memo = Some((Arc::clone(&prepared), ids.clone()));
        (prepared, ids)
    }
}

impl<L: Language> Search<String> for SweepSearch<L> {
    fn next_batch(&mut self, current: &String) -> Option<Vec<Proposal<String>>> {
        let (prepared, ids) = self.prepared(current);
        self.proposed.clear();
        let mut batch = Vec::new();
        let mut sites = lock(&self.batch_sites);
        let mut at = self.position;
        while at < prepared.sites().len() && batch.len() < self.width.batch {
            let id = ids.get(at).copied();
            let skipped =
                id.is_some_and(|id| self.skip.contains(&id) || self.rejected.contains(&id));
            if !skipped {
                if let Some(proposal) = candidate(self.group, &self.state, &*prepared, &[at]) {
                    batch.push(proposal);
                    self.proposed.push(at);
                    sites.push((1, id));
                }
            }
            at += 1;
        }
        self.position = at;
        (!batch.is_empty()).then_some(batch)
    }

    fn set_width(&mut self, width: Width) {
        self.width = width;
    }

    fn combine(&self, current: &String, indices: &[usize]) -> Option<Proposal<String>> {
        let (prepared, _) = self.memo.as_ref()?;
        if prepared.source() != current.as_str() {
            return None;
        }
        let positions: Vec<usize> = indices
            .iter()
            .filter_map(|&k| self.proposed.get(k).copied())
            .collect();
        candidate(self.group, &self.state, &**prepared, &positions)
    }

    fn feedback_fold(&mut self, accepted: &[usize], rejected: &[usize]) {
        if let Some((_, ids)) = &self.memo {
            let failed = rejected
                .iter()
                .filter_map(|&k| ids.get(*self.proposed.get(k)?));
            self.rejected.extend(failed.copied());
        }
        // On from the first accepted site, as after one acceptance; the rejected sites of
        // the window are passed over while their identity stays.
        self.feedback(accepted.first().copied());
    }

    fn feedback(&mut self, accepted: Option<usize>) {
        // After an acceptance: the same position of the new text (what followed the applied
        // site is there now); otherwise on after the batch (already set).
        if let Some(&at) = accepted.and_then(|k| self.proposed.get(k)) {
            self.position = at;
        }
    }
}

#[cfg(test)]
mod tests {
    use crate::language::Strategy;
    use crate::passes::group_passes;
    use crate::state::SharedState;
    use crate::testlang::Parens;
    use minrepro_engine::{run_search, Pass};

    /// Every candidate the sweep of [`Parens`] proposes on `text` until the engine's rule (first
    /// interesting proposal of a batch) ends it, and the text it ends at.
    fn sweep(
        state: &std::sync::Arc<SharedState<Parens>>,
        jobs: usize,
        text: &str,
        keep: &dyn Fn(&str) -> bool,
    ) -> (String, Vec<String>) {
        let pass = &group_passes(state)[0];
        let mut seen = Vec::new();
        let mut search = pass.search(&text.to_owned());
        search.set_width(minrepro_engine::Width::of(jobs, true));
        let end = run_search(&mut *search, text.to_owned(), &mut |p| {
            seen.push(p.case.clone());
            keep(&p.case)
        });
        (end, seen)
    }

    #[test]
    fn a_sweep_goes_left_to_right_and_stays_at_the_position_of_an_acceptance() {
        let keep = |t: &str| t.contains("(a)") && t.contains("(b)");
        for jobs in [1, 3] {
            let language = Parens {
                levels: Default::default(),
                probdd: true,
                sweeps: true,
                refused: None,
            };
            let state = SharedState::new(language, "(x)(a)(y)(b)", Strategy::ProbDd);
            let (end, seen) = sweep(&state, jobs, "(x)(a)(y)(b)", &keep);
            assert_eq!(end, "(a)(b)");
            // `(x)` goes; at the same position `(a)` fails, then `(y)` goes; at its position
            // `(b)` fails. The same candidates at any width.
            assert_eq!(
                seen,
                ["(a)(y)(b)", "(y)(b)", "(a)(b)", "(a)"],
                "jobs {jobs}"
            );
            // The test language's identity is the whole line: `(a)` failed on another one and
            // is tried again, `(b)` failed on this one and is not; then neither.
            assert_eq!(sweep(&state, jobs, "(a)(b)", &keep).1, ["(b)"]);
            assert!(sweep(&state, jobs, "(a)(b)", &keep).1.is_empty());
            // A changed line (the test language's identity) makes its sites new.
            assert_eq!(sweep(&state, jobs, "(a)(b)(z)", &keep).0, "(a)(b)");
        }
    }
}
