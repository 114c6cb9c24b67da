//! Probabilistic delta debugging (ProbDD, Wang et al., FSE'21) over a fixed set of elements.
//!
//! Each element `i` carries the estimated probability `p[i]` that it is needed. A step removes
//! the set `S` of not-yet-decided elements with the lowest probabilities that maximizes the
//! expected gain `|S| * Π(1 - p)`; when the candidate is interesting `S` is gone for good,
//! otherwise every `p[i]` in `S` grows to `p[i] / (1 - Π(1 - p))`. A failed single-element
//! removal sets its `p` to 1 (kept). The search ends when every remaining element is kept, so each
//! kept element was tested alone at least once.
//!
//! Elements are positions in a list fixed when the search starts; `build` receives every position
//! removed so far plus the new set, so the pass maps them onto its own base (e.g. the rewrites of
//! a source text applied together). A `build` that returns `None` counts as a failed removal
//! without running anything.

use std::sync::Arc;

use crate::search::{Proposal, Search, Width};

/// Builds the candidate with `removed` (sorted positions) gone, or `None` if not allowed.
pub type BuildSubset<C> = Arc<dyn Fn(&C, &[usize]) -> Option<Proposal<C>> + Send + Sync>;

/// ProbDD as a [`Search`]. Every step depends on the previous one, so a batch is a chain of
/// speculation: the first candidate, the one the search would try next if the first failed, and
/// so on, up to `width` candidates. The engine accepts the first interesting one in order, which
/// is exactly what a sequential ProbDD would do, so results do not depend on the width.
pub struct ProbDd<C> {
    p: Vec<f64>,
    removed: Vec<bool>,
    build: BuildSubset<C>,
    width: usize,
    /// The last batch's steps in order: the set tried and whether it was proposed (a set whose
    /// candidate could not be built failed without a proposal).
    last: Vec<(Vec<usize>, bool)>,
    /// Told about every element whose removal alone was run and failed.
    failed_alone: Option<Box<dyn FnMut(usize) + Send>>,
}

/// Probabilities at or above this count as "needed" (guards against rounding).
const KEPT: f64 = 1.0 - 1e-9;

impl<C> ProbDd<C> {
    /// A search over `len` elements with prior probability `prior` that an element is needed.
    pub fn new(
        len: usize,
        prior: f64,
        build: impl Fn(&C, &[usize]) -> Option<Proposal<C>> + Send + Sync + 'static,
    ) -> Self {
        ProbDd {
            p: vec![prior.clamp(1e-6, 0.999); len],
            removed: vec![false; len],
            build: Arc::new(build),
            width: 1,
            last: Vec::new(),
            failed_alone: None,
        }
    }

    /// Starts element `i` from `priors[i]` instead of the common prior (an element missing from
    /// `priors` keeps it): a set is the prefix of the undecided elements by ascending
    /// probability, so elements that likely fail are tried after the others and in smaller sets.
    pub fn with_priors(mut self, priors: &[f64]) -> Self {
        for (p, &prior) in self.p.iter_mut().zip(priors) {
            *p = prior.clamp(1e-6, 0.999);
        }
        self
    }

    /// Proposes chains of up to `width` speculative candidates per batch (e.g. the `-j` value).
    pub fn with_width(mut self, width: usize) -> Self {
        self.width = width.max(1);
        self
    }

    /// Calls `hook` with each element whose removal alone was run and failed (e.g. so that a
    /// later search can leave it out).
    pub fn on_failed_alone(mut self, hook: impl FnMut(usize) + Send + 'static) -> Self {
        self.failed_alone = Some(Box::new(hook));
        self
    }

    /// The next set to try: undecided elements by ascending probability (position breaks ties),
    /// the prefix with the largest expected gain.
    fn choose(&self) -> Vec<usize> {
        let mut open: Vec<usize> = (0..self.p.len())
            .filter(|&i| !self.removed[i] && self.p[i] < KEPT)
            .collect();
        open.sort_by(|&a, &b| self.p[a].total_cmp(&self.p[b]).then(a.cmp(&b)));
        let mut best = (0.0, 0);
        let mut survive = 1.0;
        for (k, &i) in open.iter().enumerate() {
            survive *= 1.0 - self.p[i];
            let gain = (k + 1) as f64 * survive;
            if gain > best.0 {
                best = (gain, k + 1);
            }
        }
        let mut chosen: Vec<usize> = open[..best.1].to_vec();
        chosen.sort_unstable();
        chosen
    }

    fn fail(&mut self, set: &[usize]) {
        if let [only] = set {
            self.p[*only] = 1.0;
            return;
        }
        let survive: f64 = set.iter().map(|&i| 1.0 - self.p[i]).product();
        let denominator = 1.0 - survive;
        for &i in set {
            self.p[i] = if denominator > 0.0 {
                (self.p[i] / denominator).min(1.0)
            } else {
                1.0
            };
        }
    }

    fn all_removed_with(&self, set: &[usize]) -> Vec<usize> {
        (0..self.removed.len())
            .filter(|&i| self.removed[i] || set.binary_search(&i).is_ok())
            .collect()
    }
}

impl<C> Search<C> for ProbDd<C> {
    fn fork(&self, max_batch: usize) -> Option<Box<dyn Search<C> + '_>> {
        // The same state and builder; the hook stays with this search (a copy's feedback is
        // hypothetical). A chain cut shorter is a prefix of this one's.
        Some(Box::new(ProbDd {
            p: self.p.clone(),
            removed: self.removed.clone(),
            build: Arc::clone(&self.build),
            width: self.width.min(max_batch.max(1)),
            last: self.last.clone(),
            failed_alone: None,
        }))
    }

    fn next_batch(&mut self, current: &C) -> Option<Vec<Proposal<C>>> {
        // Speculate on a copy of the state: each further step assumes the previous one failed.
        let (p, removed) = (self.p.clone(), self.removed.clone());
        let mut steps = Vec::new();
        let mut batch = Vec::new();
        while batch.len() < self.width {
            let set = self.choose();
            if set.is_empty() {
                break;
            }
            let all = self.all_removed_with(&set);
            let proposal = (self.build)(current, &all);
            steps.push((set.clone(), proposal.is_some()));
            batch.extend(proposal);
            self.fail(&set);
        }
        self.p = p;
        self.removed = removed;
        if batch.is_empty() {
            // Every remaining set was unbuildable: record those failures and stop.
            for (set, _) in &steps {
                self.fail(set);
            }
            return None;
        }
        self.last = steps;
        Some(batch)
    }

    fn set_width(&mut self, width: Width) {
        self.width = width.batch.max(1);
    }

    fn combine(&self, current: &C, indices: &[usize]) -> Option<Proposal<C>> {
        let proposed: Vec<&Vec<usize>> = self.last.iter().filter(|s| s.1).map(|s| &s.0).collect();
        let mut union: Vec<usize> = indices
            .iter()
            .filter_map(|&i| proposed.get(i).copied())
            .flatten()
            .copied()
            .collect();
        union.sort_unstable();
        union.dedup();
        (self.build)(current, &self.all_removed_with(&union))
    }

    fn feedback_fold(&mut self, accepted: &[usize], rejected: &[usize]) {
        let steps = std::mem::take(&mut self.last);
        let Some(decided) = accepted.iter().chain(rejected).copied().max() else {
            self.last = steps;
            return self.feedback(None);
        };
        // Sets of the accepted proposals are gone; those of rejected ones (and the unbuildable
        // sets before the last decided proposal) failed; the rest stay undecided.
        let mut proposed = 0;
        for (set, was_proposed) in steps {
            if proposed > decided {
                break;
            }
            if was_proposed && accepted.contains(&proposed) {
                set.iter().for_each(|&i| self.removed[i] = true);
            } else if !was_proposed || rejected.contains(&proposed) {
                if let ([only], true, Some(hook)) =
                    (set.as_slice(), was_proposed, &mut self.failed_alone)
                {
                    hook(*only);
                }
                self.fail(&set);
            }
            proposed += usize::from(was_proposed);
        }
    }

    fn feedback(&mut self, accepted: Option<usize>) {
        let steps = std::mem::take(&mut self.last);
        let mut proposed = 0;
        for (set, was_proposed) in steps {
            if was_proposed && accepted == Some(proposed) {
                set.iter().for_each(|&i| self.removed[i] = true);
                return;
            }
            proposed += usize::from(was_proposed);
            if let ([only], true, Some(hook)) =
                (set.as_slice(), was_proposed, &mut self.failed_alone)
            {
                hook(*only);
            }
            self.fail(&set);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::search::{remove_positions, run_search, without_indices};

    /// A ProbDD search that removes numbers from `0..len` (its removals are positions in it).
    fn removals(len: usize, prior: f64) -> ProbDd<Vec<usize>> {
        let all: Vec<usize> = (0..len).collect();
        ProbDd::new(len, prior, move |_: &Vec<usize>, removed: &[usize]| {
            remove_positions(&all, removed)
        })
    }

    /// Drives the search sequentially over a list of numbers.
    fn reduce(
        len: usize,
        prior: f64,
        interesting: &dyn Fn(&[usize]) -> bool,
    ) -> (Vec<usize>, usize) {
        let mut tests = 0;
        let current = run_search(&mut removals(len, prior), (0..len).collect(), &mut |p| {
            tests += 1;
            assert!(tests < 100_000);
            interesting(&p.case)
        });
        (current, tests)
    }

    #[test]
    fn finds_one_minimal_results_for_monotone_predicates() {
        for len in 0..=4usize {
            let subsets = 1usize << len;
            for table in 0u64..(1u64 << subsets) {
                let value = |mask: usize| table >> mask & 1 == 1;
                if !value(subsets - 1) {
                    continue;
                }
                if !(0..subsets).all(|a| !value(a) || (0..len).all(|b| value(a | (1 << b)))) {
                    continue;
                }
                let interesting =
                    |items: &[usize]| value(items.iter().fold(0, |m, &i| m | (1 << i)));
                let (result, _) = reduce(len, 0.1, &interesting);
                assert!(interesting(&result));
                for skip in 0..result.len() {
                    let smaller = without_indices(&result, &[skip]);
                    assert!(!interesting(&smaller), "{result:?} not 1-minimal");
                }
            }
        }
    }

    /// Drives a search like the engine does: first interesting proposal of each batch wins.
    fn reduce_wide(
        len: usize,
        width: usize,
        interesting: &dyn Fn(&[usize]) -> bool,
    ) -> (Vec<usize>, Vec<serde_json::Value>) {
        let mut search = removals(len, 0.1).with_width(width);
        let mut decided = Vec::new();
        let current = run_search(&mut search, (0..len).collect(), &mut |proposal| {
            decided.push(proposal.change.clone());
            interesting(&proposal.case)
        });
        (current, decided)
    }

    #[test]
    fn speculative_width_decides_exactly_like_width_one() {
        let needed = [3usize, 17, 18, 39, 40, 41];
        let interesting = |items: &[usize]| needed.iter().all(|n| items.contains(n));
        let (one, decided_one) = reduce_wide(60, 1, &interesting);
        assert_eq!(one, needed.to_vec());
        for width in [2, 4, 8] {
            let (wide, decided) = reduce_wide(60, width, &interesting);
            assert_eq!(wide, one);
            assert_eq!(decided, decided_one, "width {width}");
        }
    }

    #[test]
    fn a_copy_told_the_same_feedback_proposes_the_same() {
        let needed = [3usize, 17];
        let cases = |batch: &Option<Vec<Proposal<Vec<usize>>>>| {
            batch
                .as_ref()
                .map(|b| b.iter().map(|p| p.case.clone()).collect::<Vec<_>>())
        };
        let mut search = removals(30, 0.1).with_width(4);
        let mut current: Vec<usize> = (0..30).collect();
        let mut batch = search.next_batch(&current);
        while let Some(proposals) = &batch {
            let (interesting, rejected): (Vec<usize>, Vec<usize>) = (0..proposals.len())
                .partition(|&i| needed.iter().all(|n| proposals[i].case.contains(n)));
            // Folded: every interesting proposal's removals together (a monotone test keeps
            // their union interesting).
            let base = match interesting.as_slice() {
                [] => current.clone(),
                [only] => proposals[*only].case.clone(),
                several => search.combine(&current, several).unwrap().case,
            };
            let mut copy = search.fork(4).expect("ProbDD can be copied");
            copy.feedback_fold(&interesting, &rejected);
            let ahead = cases(&copy.next_batch(&base));
            drop(copy);
            search.feedback_fold(&interesting, &rejected);
            current = base;
            batch = search.next_batch(&current);
            assert_eq!(ahead, cases(&batch));
        }
        assert_eq!(current, needed.to_vec());
    }

    #[test]
    fn single_culprit() {
        let (result, tests) = reduce(200, 0.1, &|items| items.contains(&123));
        assert_eq!(result, vec![123]);
        assert!(tests < 200, "{tests} tests");
    }

    #[test]
    fn reports_the_elements_whose_removal_alone_failed() {
        let needed = [2usize, 5];
        let failed = std::sync::Arc::new(std::sync::Mutex::new(Vec::new()));
        let seen = std::sync::Arc::clone(&failed);
        let len = 8;
        let mut search = removals(len, 0.1).on_failed_alone(move |i| seen.lock().unwrap().push(i));
        let current = run_search(&mut search, (0..len).collect(), &mut |p| {
            needed.iter().all(|n| p.case.contains(n))
        });
        assert_eq!(current, needed.to_vec());
        let mut failed = failed.lock().unwrap().clone();
        failed.sort_unstable();
        assert_eq!(failed, needed.to_vec());
    }

    #[test]
    fn higher_priors_are_tried_after_the_others() {
        let len = 12;
        // The sets tried, as the elements removed by each candidate, with or without a higher
        // prior for element 2; only element 5 is needed.
        let sets_of = |priors: &[f64]| {
            let all: Vec<usize> = (0..len).collect();
            let mut search = ProbDd::new(len, 0.1, move |_: &Vec<usize>, removed: &[usize]| {
                remove_positions(&all, removed)
            })
            .with_priors(priors);
            let mut sets = Vec::new();
            let current = run_search(&mut search, (0..len).collect(), &mut |p| {
                sets.push((0..len).filter(|i| !p.case.contains(i)).collect::<Vec<_>>());
                p.case.contains(&5)
            });
            assert_eq!(current, vec![5]);
            sets
        };
        assert!(sets_of(&[])[0].contains(&2));
        let mut priors = vec![0.1; len];
        priors[2] = 0.6;
        let sets = sets_of(&priors);
        assert!(!sets[0].contains(&2), "{sets:?}");
        assert!(sets[0].len() >= 5, "{sets:?}");
    }

    #[test]
    fn unbuildable_sets_count_as_failures_without_tests() {
        let mut search = ProbDd::new(3, 0.1, |_: &(), removed: &[usize]| {
            (!removed.contains(&1)).then(|| Proposal {
                case: (),
                change: serde_json::json!(removed),
            })
        });
        let mut proposed = Vec::new();
        while let Some(batch) = search.next_batch(&()) {
            proposed.push(batch[0].change.clone());
            search.feedback(None);
        }
        assert!(proposed
            .iter()
            .all(|c| !c.as_array().unwrap().contains(&serde_json::json!(1))));
    }
}
