//! One engine [`Pass`] per rewrite group of `minrepro_pysyntax`: a ddmin search over the group's
//! rewrite sites in the current text. At granularity n the site list is split into n chunks and
//! candidate i applies chunk i; sites are re-derived from the current text for every batch.
//!
//! Only valid Python is proposed, never the current text itself. Termination: outside the
//! canonicalization group a candidate must be strictly smaller than the current text in the order
//! (tokens, bytes, text), so those groups alone cannot cycle. A canonicalization may grow the
//! text, but never beyond the original's token count, never back into a text that was already
//! current once, and only within a budget: the number of canonicalization sites of the text the
//! first canonicalization search starts from.
//! Every accepted canonicalization spends as many sites as it applied (a site removed later, e.g.
//! the added `*args` of a parameter list, may be offered again, which without the budget could
//! loop forever through ever new whitespace variants). Once the budget is spent, every accepted
//! candidate is strictly smaller, so the fixpoint is reached.
//!
//! That text comes after the first statement removals, not the original: on a large input most
//! functions are gone by then, and a budget sized for all of them let `add-varargs` and
//! `remove-parameter` take turns re-adding and removing the same `*args` round after round, each
//! round paying a full sweep of every other group for nothing.

use std::collections::HashSet;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};

use minrepro_engine::{Pass, Proposal, Search};
use minrepro_pysyntax::{check_valid_for, rewrites, token_count, Group, Prepared, Rewrite};
use serde_json::json;

use crate::language::without_blank_lines;

/// The ordering key of a candidate: tokens, then bytes, then the text itself.
fn size_key(text: &str) -> (usize, usize, &str) {
    minrepro_text::size_key(token_count(text), text)
}

mod levels;
mod searches;
use levels::Levels;
use searches::SiteSearches;

/// How a group pass searches its rewrite sites.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum Strategy {
    /// Probabilistic delta debugging over the sites of the text a pass starts from.
    #[value(name = "probdd")]
    ProbDd,
    /// Complement-based ddmin, sites re-derived from the current text after every acceptance.
    Ddmin,
}

/// The canonicalization budget before the first canonicalization search sets it.
const BUDGET_UNSET: usize = usize::MAX;

/// State shared by every group pass of one reduction.
#[derive(Debug)]
pub struct SharedState {
    /// Python 3 minor version candidates must be valid for.
    minor: u8,
    /// Search strategy of the group passes.
    strategy: Strategy,
    /// Parallel evaluations (speculation width of ProbDD batches).
    jobs: usize,
    original_tokens: usize,
    seen: Mutex<HashSet<[u8; 32]>>,
    /// Canonicalization sites still allowed; [`BUDGET_UNSET`] until the first canonicalization
    /// search sets it.
    canonicalization_budget: AtomicUsize,
    /// Single rewrites (by [`signature`]) that were run alone and failed; later searches of
    /// the expression-level groups leave them out (see [`skips_failed_sites`]).
    failed_sites: Mutex<HashSet<[u8; 32]>>,
    /// The last text prepared by any pass: the next one takes over its name summaries (see
    /// [`Prepared::inherit_names`]).
    last_base: Mutex<Option<Arc<Prepared>>>,
}

impl SharedState {
    /// State for a reduction of `original`, run by Python 3.`minor`.
    pub fn new(original: &str, minor: u8) -> Arc<Self> {
        Self::with_strategy(original, minor, Strategy::Ddmin)
    }

    /// State for a reduction of `original` with an explicit search strategy and `jobs` parallel
    /// evaluations.
    pub fn configured(original: &str, minor: u8, strategy: Strategy, jobs: usize) -> Arc<Self> {
        let mut state = Self::with_strategy(original, minor, strategy);
        Arc::get_mut(&mut state).expect("fresh state").jobs = jobs.max(1);
        state
    }

    /// State for a reduction of `original` with an explicit search strategy.
    pub fn with_strategy(original: &str, minor: u8, strategy: Strategy) -> Arc<Self> {
        Arc::new(SharedState {
            minor,
            strategy,
            jobs: 1,
            original_tokens: token_count(original),
            seen: Mutex::new(HashSet::new()),
            canonicalization_budget: AtomicUsize::new(BUDGET_UNSET),
            failed_sites: Mutex::new(HashSet::new()),
            last_base: Mutex::new(None),
        })
    }

    /// Makes `prepared` the last prepared text, handing it the previous one's name summaries.
    fn follow(&self, prepared: &Arc<Prepared>) {
        if let Some(earlier) = lock(&self.last_base).replace(Arc::clone(prepared)) {
            prepared.inherit_names(&earlier);
        }
    }

    /// Records `text` as a text that has been current.
    fn mark_current(&self, text: &str) {
        let mut seen = self.seen.lock().unwrap_or_else(|e| e.into_inner());
        seen.insert(*blake3::hash(text.as_bytes()).as_bytes());
    }

    /// Whether `text` has been current before.
    fn was_current(&self, text: &str) -> bool {
        let seen = self.seen.lock().unwrap_or_else(|e| e.into_inner());
        seen.contains(blake3::hash(text.as_bytes()).as_bytes())
    }
}

/// The pass of one rewrite group.
#[derive(Debug)]
pub struct GroupPass {
    group: Group,
    state: Arc<SharedState>,
}

/// Every group's pass, in round order.
pub fn group_passes(state: &Arc<SharedState>) -> Vec<GroupPass> {
    Group::ALL
        .iter()
        .map(|&group| GroupPass {
            group,
            state: Arc::clone(state),
        })
        .collect()
}

/// Whether a group's searches leave out single rewrites that already failed alone in an earlier
/// search. Expression-level edits rarely start to work later (statement removals do, once the
/// uses of what they remove are gone), so re-running them every round mostly spends runs; a
/// changed line gives its rewrites a new signature, so they are tried again.
fn skips_failed_sites(group: Group) -> bool {
    matches!(
        group,
        Group::Simplifications | Group::IntegerReduction | Group::SlowRemovals
    )
}

/// Identity of a rewrite across texts: its kind, replacement, replaced text and the whole line(s)
/// it sits on.
fn signature(text: &str, site: &Rewrite) -> [u8; 32] {
    let start = text[..site.range.start.min(text.len())]
        .rfind('\n')
        .map_or(0, |i| i + 1);
    let end = text[site.range.end.min(text.len())..]
        .find('\n')
        .map_or(text.len(), |i| site.range.end + i);
    let mut hasher = blake3::Hasher::new();
    for part in [
        site.kind,
        "\0",
        &site.replacement,
        "\0",
        text.get(site.range.clone()).unwrap_or(""),
        "\0",
        text.get(start..end).unwrap_or(""),
    ] {
        hasher.update(part.as_bytes());
    }
    *hasher.finalize().as_bytes()
}

/// The candidate applying `chosen` sites of `current`, if it is admissible (see module docs).
fn candidate(
    group: Group,
    state: &SharedState,
    current: &Prepared,
    all: &[Rewrite],
    chosen: &[usize],
) -> Option<Proposal<String>> {
    candidate_on(group, state, current, current, all, chosen)
}

/// The candidate applying `chosen` sites of `base` (whose sites `all` are), judged against the
/// `current` text (prepared with chunks at least), if it is admissible (see module docs).
fn candidate_on(
    group: Group,
    state: &SharedState,
    base: &Prepared,
    current: &Prepared,
    all: &[Rewrite],
    chosen: &[usize],
) -> Option<Proposal<String>> {
    let on_base = std::ptr::eq(base, current) || base.source() == current.source();
    let (judged, current) = (current, current.source());
    let selected: Vec<&Rewrite> = chosen.iter().filter_map(|&i| all.get(i)).collect();
    let edited = base.apply(&selected);
    if edited.text() == current {
        return None;
    }
    // The same verdict and token count as check_valid_for and token_count, mostly from the
    // changed parts of the text alone.
    let tokens = base.check(&edited).ok()?;
    let text = edited.text();
    let admissible = if group == Group::Canonicalizations {
        selected.len() <= state.canonicalization_budget.load(Ordering::SeqCst)
            && tokens <= state.original_tokens
            && !state.was_current(text)
    } else {
        let current_tokens = judged.token_count();
        (tokens, text.len(), text) < (current_tokens, current.len(), current)
    };
    if !admissible {
        return None;
    }
    // Judged against the base, the filter looks at the changed chunks only.
    let loses = if on_base {
        base.loses_definition(&edited)
    } else {
        base.loses_definition_against(&edited, judged)
    };
    if loses {
        return None;
    }
    let text = edited.into_text();
    // ProbDD hands over every site applied so far: list them only when few, so the in-memory
    // log stays linear in the number of candidates.
    let change = if selected.len() <= 16 {
        json!({
            "group": group.name(),
            "rewrites": selected
                .iter()
                .map(|r| json!({"kind": r.kind, "start": r.range.start, "end": r.range.end}))
                .collect::<Vec<_>>(),
        })
    } else {
        json!({"group": group.name(), "rewrites_applied": selected.len()})
    };
    Some(Proposal { case: text, change })
}

/// Sites a proposal applies, and the signature of its site when it applies only one.
type BatchSites = (usize, Option<[u8; 32]>);

/// A group's search (ddmin, ProbDD, or ddmin level by level) that also records the single sites
/// ddmin ran alone and saw fail, and charges accepted canonicalizations to the budget.
struct GroupSearch {
    inner: Box<dyn Search<String>>,
    /// Sites applied by each proposal of the last batch, in batch order, with the signature of
    /// a proposal that applies a single site.
    batch_sites: Arc<Mutex<Vec<BatchSites>>>,
    group: Group,
    state: Arc<SharedState>,
}

impl Search<String> for GroupSearch {
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
        if let (Some(index), Group::Canonicalizations) = (accepted, self.group) {
            let spent = lock(&self.batch_sites)
                .get(index)
                .map_or(0, |(count, _)| *count);
            let budget = &self.state.canonicalization_budget;
            let left = budget.load(Ordering::SeqCst).saturating_sub(spent);
            budget.store(left, Ordering::SeqCst);
        }
        self.inner.feedback(accepted);
    }
}

fn lock<T>(mutex: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    mutex.lock().unwrap_or_else(|e| e.into_inner())
}

impl Pass<String> for GroupPass {
    fn name(&self) -> String {
        self.group.name().to_owned()
    }

    fn search(&self, current: &String) -> Box<dyn Search<String> + '_> {
        let group = self.group;
        let budget = &self.state.canonicalization_budget;
        if group == Group::Canonicalizations && budget.load(Ordering::SeqCst) == BUDGET_UNSET {
            // Listed once: later searches must not pay a parse for it.
            budget.store(rewrites(current, group).len(), Ordering::SeqCst);
        }
        let batch_sites = Arc::new(Mutex::new(Vec::new()));
        let sites = SiteSearches::new(group, &self.state, &batch_sites);
        let inner: Box<dyn Search<String>> = if group == Group::FastRemovals {
            Box::new(Levels::new(Box::new(move |level, current| {
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
            group,
            state: Arc::clone(&self.state),
        })
    }
}

/// A search with nothing to propose.
struct Exhausted;

impl Search<String> for Exhausted {
    fn next_batch(&mut self, _current: &String) -> Option<Vec<Proposal<String>>> {
        None
    }

    fn feedback(&mut self, _accepted: Option<usize>) {}
}

/// A last, cosmetic pass: one candidate without whitespace-only lines and comment-only lines
/// (rewrites leave many behind; AutoDD's own output has none). Freeze annotations and comments
/// in frozen code stay. It is judged like any other candidate.
#[derive(Debug)]
pub struct TidyPass {
    /// Python 3 minor version the result must be valid for.
    pub minor: u8,
}

/// Proposes one candidate, once (for Python 3.`minor`).
struct OneShot(Option<()>, u8);

impl Search<String> for OneShot {
    fn next_batch(&mut self, current: &String) -> Option<Vec<Proposal<String>>> {
        self.0.take()?;
        let uncommented = minrepro_pysyntax::without_comment_lines(current);
        let text = without_blank_lines(uncommented.as_deref().unwrap_or(current));
        let ok = size_key(&text) < size_key(current) && check_valid_for(&text, self.1).is_ok();
        Some(if ok {
            vec![Proposal {
                case: text,
                change: json!({"group": "tidy", "rewrites": [{"kind": "remove-blank-and-comment-lines"}]}),
            }]
        } else {
            Vec::new()
        })
    }

    fn feedback(&mut self, _accepted: Option<usize>) {}
}

impl Pass<String> for TidyPass {
    fn name(&self) -> String {
        "tidy".to_owned()
    }

    fn search(&self, _current: &String) -> Box<dyn Search<String> + '_> {
        Box::new(OneShot(Some(()), self.minor))
    }
}

#[cfg(test)]
mod tests;
