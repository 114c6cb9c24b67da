//! One engine [`Pass`] per group of a [`Language`]: a ddmin or ProbDD search over the group's
//! sites in the current text (level by level when the group's [`Policy`](crate::Policy) says
//! so), and a last [`TidyPass`].
//!
//! Only valid texts are proposed, never the current text itself. Termination: outside the groups
//! whose candidates may grow, a candidate must be strictly smaller than the current text in the
//! order (size, bytes, text), so those groups alone cannot cycle. A growing candidate (e.g. a
//! canonicalization) is never larger than the original, never a text that was already current
//! once, and only allowed within a budget: the number of the group's sites in the text the first
//! growing search starts from. Every accepted growing candidate spends as many sites as it
//! applied (a site removed later, e.g. Python's added `*args` of a parameter list, may be offered
//! again, which without the budget could loop forever through ever new whitespace variants).
//! Once the budget is spent, every accepted candidate is strictly smaller, so the fixpoint is
//! reached.
//!
//! That text comes after the first removals, not the original: on a large input most functions
//! are gone by then, and a budget sized for all of them let Python's `add-varargs` and
//! `remove-parameter` take turns re-adding and removing the same `*args` round after round, each
//! round paying a full sweep of every other group for nothing.

use std::collections::HashSet;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};

use minrepro_engine::{Exhausted, OneShot, Pass, Proposal, Search, Sequence};
use serde_json::json;

use crate::language::{size_key, Edited, Language, Prepared, Strategy};
use crate::searches::SiteSearches;
use crate::sizes::Sizes;

/// The growth budget before the first growing search sets it.
const BUDGET_UNSET: usize = usize::MAX;

/// State shared by every group pass of one reduction.
pub struct SharedState<L: Language> {
    language: L,
    /// Search strategy of the group passes.
    pub(crate) strategy: Strategy,
    /// Parallel evaluations (speculation width of ProbDD batches).
    pub(crate) jobs: usize,
    original_size: usize,
    seen: Mutex<HashSet<[u8; 32]>>,
    /// Sites growing candidates may still apply; [`BUDGET_UNSET`] until the first growing search
    /// sets it.
    growth_budget: AtomicUsize,
    /// Single sites (by [`signature`]) that were run alone and failed; later searches of the
    /// groups that skip those leave them out.
    pub(crate) failed_sites: Mutex<HashSet<[u8; 32]>>,
    /// The last text prepared by any pass: the next one takes over what it computed (see
    /// [`Prepared::inherit`]).
    last_base: Mutex<Option<Arc<L::Prepared>>>,
    /// The sizes of the original and of recent candidates.
    sizes: Sizes,
}

impl<L: Language> SharedState<L> {
    /// State for a reduction of `original` in `language` with search `strategy` and `jobs`
    /// parallel evaluations.
    pub fn new(language: L, original: &str, strategy: Strategy, jobs: usize) -> Arc<Self> {
        let original_size = language.size(original);
        let sizes = Sizes::default();
        sizes.record(original, original_size);
        Arc::new(SharedState {
            original_size,
            sizes,
            language,
            strategy,
            jobs: jobs.max(1),
            seen: Mutex::new(HashSet::new()),
            growth_budget: AtomicUsize::new(BUDGET_UNSET),
            failed_sites: Mutex::new(HashSet::new()),
            last_base: Mutex::new(None),
        })
    }

    /// The language.
    pub fn language(&self) -> &L {
        &self.language
    }

    /// The sizes of the original and of recent candidates (for the oracle).
    pub fn sizes(&self) -> &Sizes {
        &self.sizes
    }

    /// Sites growing candidates may still apply (`None` before the first growing search).
    pub fn growth_budget(&self) -> Option<usize> {
        let budget = self.growth_budget.load(Ordering::SeqCst);
        (budget != BUDGET_UNSET).then_some(budget)
    }

    /// Sets the sites growing candidates may still apply.
    pub fn set_growth_budget(&self, budget: usize) {
        self.growth_budget.store(budget, Ordering::SeqCst);
    }

    /// Makes `prepared` the last prepared text, handing it what the previous one computed.
    pub(crate) fn follow(&self, prepared: &Arc<L::Prepared>) {
        if let Some(earlier) = lock(&self.last_base).replace(Arc::clone(prepared)) {
            prepared.inherit(&earlier);
        }
    }

    /// Records `text` as a text that has been current.
    pub fn mark_current(&self, text: &str) {
        lock(&self.seen).insert(*blake3::hash(text.as_bytes()).as_bytes());
    }

    /// Whether `text` has been current before.
    fn was_current(&self, text: &str) -> bool {
        lock(&self.seen).contains(blake3::hash(text.as_bytes()).as_bytes())
    }
}

/// The pass of one group.
pub struct GroupPass<L: Language> {
    /// The group.
    pub group: L::Group,
    state: Arc<SharedState<L>>,
}

/// Every group's pass, in round order.
pub fn group_passes<L: Language>(state: &Arc<SharedState<L>>) -> Vec<GroupPass<L>> {
    state
        .language
        .groups()
        .into_iter()
        .map(|group| GroupPass {
            group,
            state: Arc::clone(state),
        })
        .collect()
}

/// Identity of a site across texts: its kind, replacement, replaced text and the whole line(s)
/// it sits on.
pub(crate) fn signature<P: Prepared>(text: &str, site: &P::Site) -> [u8; 32] {
    let site = P::info(site);
    let start = text[..site.range.start.min(text.len())]
        .rfind('\n')
        .map_or(0, |i| i + 1);
    let end = text[site.range.end.min(text.len())..]
        .find('\n')
        .map_or(text.len(), |i| site.range.end + i);
    let fields: [&[u8]; 4] = [
        site.kind.as_bytes(),
        site.replacement.as_bytes(),
        text.get(site.range.clone()).unwrap_or("").as_bytes(),
        text.get(start..end).unwrap_or("").as_bytes(),
    ];
    *minrepro_predicate::digest_fields(&fields).as_bytes()
}

/// The candidate applying `chosen` sites of `current`, if it is admissible (see module docs).
pub fn candidate<L: Language>(
    group: L::Group,
    state: &SharedState<L>,
    current: &L::Prepared,
    chosen: &[usize],
) -> Option<Proposal<String>> {
    candidate_on(group, state, current, current, chosen)
}

/// The candidate applying `chosen` sites of `base`, judged against the `current` text (prepared
/// with [`Language::prepare_current`] at least), if it is admissible (see module docs).
pub(crate) fn candidate_on<L: Language>(
    group: L::Group,
    state: &SharedState<L>,
    base: &L::Prepared,
    current: &L::Prepared,
    chosen: &[usize],
) -> Option<Proposal<String>> {
    let on_base = std::ptr::eq(base, current) || base.source() == current.source();
    let (judged, current) = (current, current.source());
    let all = base.sites();
    let selected: Vec<&<L::Prepared as Prepared>::Site> =
        chosen.iter().filter_map(|&i| all.get(i)).collect();
    let edited = base.apply(&selected);
    if edited.text() == current {
        return None;
    }
    let size = base.check(&edited)?;
    let text = edited.text();
    let admissible = if state.language.policy(group).may_grow {
        selected.len() <= state.growth_budget.load(Ordering::SeqCst)
            && size <= state.original_size
            && !state.was_current(text)
    } else {
        size_key(size, text) < size_key(judged.size(), current)
    };
    if !admissible || !base.admissible(&edited, (!on_base).then_some(judged)) {
        return None;
    }
    let text = edited.into_text();
    state.sizes.record(&text, size);
    let name = state.language.group_name(group);
    // ProbDD hands over every site applied so far: list them only when few, so the in-memory
    // log stays linear in the number of candidates.
    let change = if selected.len() <= 16 {
        json!({
            "group": name,
            "rewrites": selected
                .iter()
                .map(|&site| {
                    let site = L::Prepared::info(site);
                    json!({"kind": site.kind, "start": site.range.start, "end": site.range.end})
                })
                .collect::<Vec<_>>(),
        })
    } else {
        json!({"group": name, "rewrites_applied": selected.len()})
    };
    Some(Proposal { case: text, change })
}

/// Sites a proposal applies, and the signature of its site when it applies only one.
pub(crate) type BatchSites = (usize, Option<[u8; 32]>);

/// A group's search (ddmin, ProbDD, or a sequence of levels) that also records the single sites
/// ddmin ran alone and saw fail, and charges accepted growing candidates to the budget.
struct GroupSearch<'a, L: Language> {
    inner: Box<dyn Search<String> + 'a>,
    /// Sites applied by each proposal of the last batch, in batch order, with the signature of
    /// a proposal that applies a single site.
    batch_sites: Arc<Mutex<Vec<BatchSites>>>,
    may_grow: bool,
    state: Arc<SharedState<L>>,
}

impl<L: Language> Search<String> for GroupSearch<'_, L> {
    fn next_batch(&mut self, current: &String) -> Option<Vec<Proposal<String>>> {
        lock(&self.batch_sites).clear();
        self.inner.next_batch(current)
    }

    fn feedback(&mut self, accepted: Option<usize>) {
        {
            let batch = lock(&self.batch_sites);
            let decided = accepted.unwrap_or(batch.len()).min(batch.len());
            let mut failed = lock(&self.state.failed_sites);
            failed.extend(batch[..decided].iter().filter_map(|(_, sig)| *sig));
        }
        if let (Some(index), true) = (accepted, self.may_grow) {
            let spent = lock(&self.batch_sites)
                .get(index)
                .map_or(0, |(count, _)| *count);
            let budget = &self.state.growth_budget;
            let left = budget.load(Ordering::SeqCst).saturating_sub(spent);
            budget.store(left, Ordering::SeqCst);
        }
        self.inner.feedback(accepted);
    }
}

pub(crate) fn lock<T>(mutex: &Mutex<T>) -> MutexGuard<'_, T> {
    mutex.lock().unwrap_or_else(|e| e.into_inner())
}

impl<L: Language> Pass<String> for GroupPass<L> {
    fn name(&self) -> String {
        self.state.language.group_name(self.group).to_owned()
    }

    fn search(&self, current: &String) -> Box<dyn Search<String> + '_> {
        let group = self.group;
        let policy = self.state.language.policy(group);
        let budget = &self.state.growth_budget;
        if policy.may_grow && budget.load(Ordering::SeqCst) == BUDGET_UNSET {
            // Counted once: later searches must not pay a parse for it.
            budget.store(
                self.state.language.count_sites(current, group),
                Ordering::SeqCst,
            );
        }
        let batch_sites = Arc::new(Mutex::new(Vec::new()));
        let sites = SiteSearches::new(group, &self.state, &batch_sites);
        let inner: Box<dyn Search<String>> = if policy.levels {
            Box::new(Sequence::new(Box::new(move |level, current: &String| {
                sites.open(current, Some(level))
            })))
        } else {
            sites
                .open(current, None)
                .unwrap_or_else(|| Box::new(Exhausted))
        };
        Box::new(GroupSearch {
            inner,
            batch_sites,
            may_grow: policy.may_grow,
            state: Arc::clone(&self.state),
        })
    }
}

/// A last, cosmetic pass: the language's [`tidy`](Language::tidy) candidate (e.g. without
/// blank and comment-only lines), proposed once when it is smaller and valid, and judged like
/// any other candidate.
pub struct TidyPass<L: Language> {
    state: Arc<SharedState<L>>,
}

impl<L: Language> TidyPass<L> {
    /// The tidy pass of the reduction `state` belongs to.
    pub fn new(state: &Arc<SharedState<L>>) -> Self {
        TidyPass {
            state: Arc::clone(state),
        }
    }
}

impl<L: Language> Pass<String> for TidyPass<L> {
    fn name(&self) -> String {
        "tidy".to_owned()
    }

    fn search(&self, _current: &String) -> Box<dyn Search<String> + '_> {
        let language = &self.state.language;
        Box::new(OneShot::new(Box::new(move |current: &String| {
            let (kind, text) = language.tidy(current)?;
            let smaller =
                size_key(language.size(&text), &text) < size_key(language.size(current), current);
            (smaller && language.is_valid(&text)).then(|| Proposal {
                case: text,
                change: json!({"group": "tidy", "rewrites": [{"kind": kind}]}),
            })
        })))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::language::Policy;
    use crate::testlang::Lines;
    use minrepro_engine::run_search;

    /// The text `pass` reduces `text` to, with the engine's rule: the first proposal of a batch
    /// for which `interesting` holds becomes the current text.
    fn reduce(pass: &dyn Pass<String>, text: &str, interesting: &dyn Fn(&str) -> bool) -> String {
        let current = text.to_owned();
        let mut search = pass.search(&current);
        run_search(&mut *search, current, &mut |p| interesting(&p.case))
    }

    #[test]
    fn a_plain_language_reduces_with_every_strategy_and_policy() {
        let text = "a\nb\nc\nd\ne\nf\n";
        let needs = |t: &str| t.contains("c\n") && t.contains("e\n");
        for (strategy, probdd, levels) in [
            (Strategy::Ddmin, false, false),
            (Strategy::ProbDd, true, false),
            (Strategy::ProbDd, true, true),
            (Strategy::ProbDd, false, true),
        ] {
            let policy = Policy {
                probdd,
                levels,
                ..Policy::default()
            };
            for jobs in [1, 3] {
                let state = SharedState::new(Lines { policy }, text, strategy, jobs);
                let passes = group_passes(&state);
                assert_eq!(passes[0].name(), "lines");
                assert_eq!(reduce(&passes[0], text, &needs), "c\ne\n", "{policy:?}");
            }
        }
    }

    #[test]
    fn without_a_tidy_candidate_the_tidy_pass_proposes_nothing() {
        let state = SharedState::new(
            Lines {
                policy: Policy::default(),
            },
            "a\n",
            Strategy::Ddmin,
            1,
        );
        let tidy = TidyPass::new(&state);
        let mut search = tidy.search(&"a\n".to_owned());
        assert!(search.next_batch(&"a\n".to_owned()).unwrap().is_empty());
        assert!(search.next_batch(&"a\n".to_owned()).is_none());
    }
}
