//! Depth as a dimension: [`Bisect`] cuts chains of nested levels (brackets within brackets,
//! calls within calls) by bisection over how many levels go.
//!
//! A chain of `L` levels can lose `k` of them for any `k` in `0..=L` (0: the current case). A
//! test that needs a depth of at least `N` accepts exactly the cuts `k <= L + 1 - N`: a
//! monotone predicate over `k`, so bisection finds the largest accepted cut in about
//! `log2(L + 1)` runs, where removing one level per run would take `L + 1 - N`. The first
//! candidate halves the chain; after each verdict the interval of cuts still undecided halves
//! (after an acceptance in the new case's terms: the levels cut are gone, the still-undecided
//! ones are its top). The chains are taken one after the other in the order of their keys, each
//! re-read from the current case, so a chain is identified by a key that edits of it keep (its
//! position). A batch holds one candidate: which one follows depends on its verdict, and the
//! engine's look-ahead ([`Search::fork`]) runs both possible successors in parallel.

use std::sync::Arc;

use crate::search::{Proposal, Search};

/// A chain of a case, as [`Bisect`]'s lister reports it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Chain {
    /// What identifies the chain across cases (e.g. where its outermost level starts): cuts of
    /// the chain keep it, and the chains are taken in its order.
    pub key: usize,
    /// How many levels may be cut (the levels below the innermost kept one).
    pub levels: usize,
}

/// Lists the chains of a case, in key order.
pub type ListChains<C> = Arc<dyn Fn(&C) -> Vec<Chain> + Send + Sync>;
/// Builds the candidate that cuts `k` levels (1..=levels) off `chain` of the case, or `None`
/// when that edit is not allowed (counted as a rejection).
pub type BuildCut<C> = Arc<dyn Fn(&C, &Chain, usize) -> Option<Proposal<C>> + Send + Sync>;
/// Builds the witness of a chain whose top level could not go: the candidate that cuts one
/// level elsewhere in it, e.g. its innermost (see [`Bisect::on_minimal`]).
pub type BuildWitness<C> = Arc<dyn Fn(&C, &Chain) -> Option<Proposal<C>> + Send + Sync>;
/// Told the key of a chain found as shallow as the test allows (see [`Bisect::on_minimal`]).
pub type OnMinimal = Arc<dyn Fn(usize) + Send + Sync>;

/// What the last batch proposed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Proposed {
    /// The cut of this many top levels of the open chain.
    Cut(usize),
    /// The witness of the chain being confirmed.
    Witness,
}

/// Bisection over the depth of each chain (see the module documentation).
pub struct Bisect<C> {
    list: ListChains<C>,
    build: BuildCut<C>,
    /// The chain being cut: its key and the exclusive upper bound of the cuts still possible.
    open: Option<(usize, usize)>,
    /// Key of the last chain finished: the next one has a larger key.
    after: Option<usize>,
    /// What the last batch proposed.
    proposed: Option<Proposed>,
    /// Key of the chain whose witness is proposed next or awaits its verdict.
    confirming: Option<usize>,
    /// The witness builder and who is told of minimal chains (the hook never in a fork: its
    /// verdicts are hypothetical).
    witness: Option<BuildWitness<C>>,
    on_minimal: Option<OnMinimal>,
}

impl<C> Clone for Bisect<C> {
    fn clone(&self) -> Self {
        Bisect {
            list: Arc::clone(&self.list),
            build: Arc::clone(&self.build),
            witness: self.witness.clone(),
            on_minimal: self.on_minimal.clone(),
            ..*self
        }
    }
}

impl<C> Bisect<C> {
    /// A bisection over the chains `list` reports, whose cuts `build` makes.
    pub fn new(list: ListChains<C>, build: BuildCut<C>) -> Self {
        Bisect {
            list,
            build,
            open: None,
            after: None,
            proposed: None,
            confirming: None,
            witness: None,
            on_minimal: None,
        }
    }

    /// Tells `hook` the key of every chain found as shallow as the test allows. Cutting the
    /// top level also takes what else that level holds (a key beside the nested object), so
    /// its rejection alone may be about that content: once it is rejected, `witness` cuts one
    /// level elsewhere (other content), and only when that fails too is the chain minimal.
    /// One run per chain buys the knowledge that no edit leaving the chain shallower can
    /// succeed, which later searches use to skip such edits unrun.
    pub fn on_minimal(mut self, witness: BuildWitness<C>, hook: OnMinimal) -> Self {
        self.witness = Some(witness);
        self.on_minimal = Some(hook);
        self
    }

    /// Ends the open chain.
    fn finish(&mut self, key: usize) {
        self.open = None;
        self.after = Some(key);
    }
}

impl<C: 'static> Search<C> for Bisect<C> {
    fn next_batch(&mut self, current: &C) -> Option<Vec<Proposal<C>>> {
        self.proposed = None;
        let chains = (self.list)(current);
        if let Some(key) = self.confirming.take() {
            let chain = chains.iter().find(|c| c.key == key);
            let witness = self.witness.as_ref().zip(chain);
            if let Some(proposal) = witness.and_then(|(build, chain)| build(current, chain)) {
                self.confirming = Some(key);
                self.proposed = Some(Proposed::Witness);
                return Some(vec![proposal]);
            }
            self.finish(key);
        }
        loop {
            let (key, bound) = match self.open {
                Some(open) => open,
                None => {
                    let next = chains
                        .iter()
                        .find(|c| self.after.is_none_or(|after| c.key > after))?;
                    (next.key, next.levels + 1)
                }
            };
            let Some(chain) = chains.iter().find(|c| c.key == key) else {
                self.finish(key);
                continue;
            };
            let bound = bound.min(chain.levels + 1);
            // A bound of 1 with levels left: cutting one more level was rejected already (as
            // the larger cut before an accepted one: cutting the top levels composes), so the
            // chain stands where a rejected one-level cut leaves it and its witness decides.
            if bound == 1 && chain.levels >= 1 {
                if let Some(proposal) = self.witness.as_ref().and_then(|w| w(current, chain)) {
                    self.open = None;
                    self.confirming = Some(key);
                    self.proposed = Some(Proposed::Witness);
                    return Some(vec![proposal]);
                }
            }
            if bound <= 1 {
                self.finish(key);
                continue;
            }
            // Cuts 1..bound are undecided: try the middle one (half the chain at first).
            let cut = bound / 2;
            match (self.build)(current, chain, cut) {
                Some(proposal) => {
                    self.open = Some((key, bound));
                    self.proposed = Some(Proposed::Cut(cut));
                    return Some(vec![proposal]);
                }
                None => self.open = Some((key, cut)),
            }
        }
    }

    fn feedback(&mut self, accepted: Option<usize>) {
        let proposed = self.proposed.take();
        if let (Some(Proposed::Witness), Some(key)) = (proposed, self.confirming.take()) {
            if let (None, Some(hook)) = (accepted, &self.on_minimal) {
                hook(key);
            }
            self.finish(key);
            return;
        }
        let (Some(Proposed::Cut(cut)), Some((key, bound))) = (proposed, self.open) else {
            return;
        };
        if accepted.is_none() && cut == 1 && self.witness.is_some() {
            self.open = None;
            self.confirming = Some(key);
            return;
        }
        self.open = Some(match accepted {
            // The cut levels are gone: the undecided cuts are the next `bound - 1 - cut`.
            Some(_) => (key, bound - cut),
            None => (key, cut),
        });
    }

    fn fork(&self, _max_batch: usize) -> Option<Box<dyn Search<C> + '_>> {
        Some(Box::new(Bisect {
            on_minimal: None,
            ..self.clone()
        }))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::search::run_search;

    /// A case of chains: their depths, keyed by position.
    type Depths = Vec<usize>;

    fn bisect(min_levels: usize) -> Bisect<Depths> {
        Bisect::new(
            Arc::new(move |depths: &Depths| {
                depths
                    .iter()
                    .enumerate()
                    .filter(|(_, &d)| d > min_levels)
                    .map(|(key, &d)| Chain { key, levels: d - 1 })
                    .collect()
            }),
            Arc::new(|depths: &Depths, chain: &Chain, k: usize| {
                assert!(k >= 1 && k <= chain.levels);
                let mut cut = depths.clone();
                cut[chain.key] -= k;
                Some(Proposal {
                    case: cut,
                    change: serde_json::json!(k),
                })
            }),
        )
    }

    #[test]
    fn bisection_reaches_the_exact_depth_needed_in_log_runs() {
        for (depth, needed) in [
            (600, 300),
            (10_000, 31),
            (2, 1),
            (7, 7),
            (1000, 1),
            (513, 257),
        ] {
            let mut runs = 0;
            let end = run_search(&mut bisect(0), vec![depth], &mut |p| {
                runs += 1;
                p.case[0] >= needed
            });
            assert_eq!(end, vec![needed], "{depth} -> {needed}");
            let bound = (depth as f64).log2().ceil() as usize + 1;
            assert!(runs <= bound, "{depth} -> {needed}: {runs} runs > {bound}");
        }
    }

    #[test]
    fn chains_are_cut_one_after_the_other_in_key_order() {
        let mut seen = Vec::new();
        let end = run_search(&mut bisect(1), vec![40, 1, 9], &mut |p| {
            seen.push(p.case.clone());
            p.case[0] >= 5 && p.case[2] >= 3
        });
        assert_eq!(end, vec![5, 1, 3]);
        // The first chain is finished before the third is touched; the second is too short.
        let first_of_third = seen.iter().position(|c| c[2] != 9).unwrap();
        assert!(seen[first_of_third..].iter().all(|c| c[0] == 5));
        assert!(seen.iter().all(|c| c[1] == 1));
    }

    /// [`bisect`] with a witness that cuts one level (change "witness") and a hook that
    /// collects the minimal chains.
    fn witnessed(min_levels: usize) -> (Bisect<Depths>, Arc<std::sync::Mutex<Vec<usize>>>) {
        let minimal = Arc::new(std::sync::Mutex::new(Vec::new()));
        let seen = Arc::clone(&minimal);
        let search = bisect(min_levels).on_minimal(
            Arc::new(|depths: &Depths, chain: &Chain| {
                let mut cut = depths.clone();
                cut[chain.key] -= 1;
                Some(Proposal {
                    case: cut,
                    change: serde_json::json!("witness"),
                })
            }),
            Arc::new(move |key| seen.lock().unwrap().push(key)),
        );
        (search, minimal)
    }

    #[test]
    fn a_chain_is_minimal_when_its_witness_fails_too_and_forks_report_nothing() {
        let (mut search, minimal) = witnessed(1);
        // A fork told of the rejection of a one-level cut, then of its witness: nothing reported.
        {
            let mut fork = search.fork(4).unwrap();
            fork.next_batch(&vec![2, 9]);
            fork.feedback(None);
            let witness = fork.next_batch(&vec![2, 9]).unwrap();
            assert_eq!(witness[0].change, serde_json::json!("witness"));
            fork.feedback(None);
        }
        assert!(minimal.lock().unwrap().is_empty());
        // Chain 0 ends at the depth needed, its witness run once; chain 1 is cut to its
        // innermost level (no one-level cut rejected): only chain 0 is minimal.
        let mut witnesses = 0;
        let end = run_search(&mut search, vec![40, 9], &mut |p| {
            witnesses += usize::from(p.change == serde_json::json!("witness"));
            p.case[0] >= 5
        });
        assert_eq!((end, witnesses), (vec![5, 1], 1));
        assert_eq!(*minimal.lock().unwrap(), vec![0]);
    }

    #[test]
    fn a_chain_whose_last_accepted_cut_reached_a_rejected_depth_is_confirmed_minimal() {
        // 500 -> 497 accepted, 495 rejected, 496 accepted: one level less is 495, known to
        // fail, so no one-level cut is rejected on the 496 chain itself; its witness runs.
        let (mut search, minimal) = witnessed(1);
        let mut seen = Vec::new();
        let end = run_search(&mut search, vec![500], &mut |p| {
            seen.push(p.case[0]);
            p.case[0] >= 496 && p.change != serde_json::json!("witness")
        });
        assert_eq!(end, vec![496]);
        assert_eq!(seen[seen.len() - 3..], [495, 496, 495], "{seen:?}");
        assert_eq!(*minimal.lock().unwrap(), vec![0]);
    }

    #[test]
    fn a_top_level_kept_for_its_content_is_not_minimal() {
        // The top level holds what the test needs: its cut fails at any depth, the witness
        // (another level) succeeds.
        let (mut search, minimal) = witnessed(1);
        let end = run_search(&mut search, vec![8], &mut |p| {
            p.change == serde_json::json!("witness")
        });
        assert_eq!(end, vec![7]);
        assert!(minimal.lock().unwrap().is_empty());
    }

    #[test]
    fn a_fork_proposes_what_the_search_would() {
        let mut search = bisect(0);
        let current = vec![100];
        let first = search.next_batch(&current).unwrap();
        assert_eq!(first[0].case, vec![50]);
        let after_rejection = {
            let mut fork = search.fork(4).unwrap();
            fork.feedback(None);
            fork.next_batch(&current).unwrap()[0].case.clone()
        };
        search.feedback(None);
        assert_eq!(
            search.next_batch(&current).unwrap()[0].case,
            after_rejection
        );
        assert_eq!(after_rejection, vec![75]);
    }
}
