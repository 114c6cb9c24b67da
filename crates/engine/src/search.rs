//! What a pass is: a generator of candidate batches that learns which candidate was accepted.

/// A candidate edit of the current test case.
#[derive(Debug, Clone)]
pub struct Proposal<C> {
    /// The edited test case.
    pub case: C,
    /// What the edit does, for the log (deterministic JSON, e.g. the removed items).
    pub change: serde_json::Value,
}

/// How the engine evaluates a search's batches, told to every search it opens
/// ([`Search::set_width`]): searches size their batches by it instead of each front end
/// threading `-j` into every pass.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Width {
    /// Proposals worth building per batch for the executors (1 when sequential: every
    /// proposal built after the accepted one would be built in vain). Never changes which
    /// candidate is accepted.
    pub batch: usize,
    /// Candidates decided together: 1 when the engine accepts in the order of `-j 1` (the
    /// search's schedule must then not depend on the width); N when it decides windows of N
    /// and folds their successes, so a search does well to offer N independent candidates
    /// (e.g. ddmin N chunks of a partition).
    pub window: usize,
}

impl Width {
    /// One at a time: `-j 1`.
    pub const SEQUENTIAL: Width = Width {
        batch: 1,
        window: 1,
    };

    /// The width of `jobs` executors, deciding in windows unless `exact`.
    pub fn of(jobs: usize, exact: bool) -> Width {
        let jobs = jobs.max(1);
        Width {
            batch: jobs,
            window: if exact { 1 } else { jobs },
        }
    }
}

/// One pass's search over the current test case.
///
/// The engine calls [`Search::next_batch`] with the current case, evaluates the batch, then
/// reports the index of the accepted proposal (the first interesting one) or `None`.
pub trait Search<C>: Send {
    /// The next candidates, in the order a sequential reducer would try them; `None` when the
    /// search is exhausted. An empty batch is allowed and means "nothing this round".
    fn next_batch(&mut self, current: &C) -> Option<Vec<Proposal<C>>>;
    /// Tells the search which proposal of the last batch became the current case.
    fn feedback(&mut self, accepted: Option<usize>);
    /// Tells the search how its batches are evaluated; the engine calls it on every search
    /// it opens, before the first batch. The default ignores it (batches as built).
    fn set_width(&mut self, _width: Width) {}
    /// A copy of this search in its present state whose batches hold at most `max_batch`
    /// proposals, or `None` if it cannot be copied. The engine feeds a copy a hypothetical
    /// acceptance to see the batch that would follow it and run that speculatively; the copy
    /// must propose exactly what this search would, in the same order.
    fn fork(&self, _max_batch: usize) -> Option<Box<dyn Search<C> + '_>> {
        None
    }
    /// The candidate that makes the changes of the last batch's proposals at `indices`
    /// (ascending, at least two) together, or `None` when this search cannot combine them.
    /// The engine offers it when several proposals of a batch were interesting at once (it
    /// folds concurrent successes) and accepts it only once it is itself judged interesting.
    fn combine(&self, _current: &C, _indices: &[usize]) -> Option<Proposal<C>> {
        None
    }
    /// Tells the search which proposals of the last batch became the current case together
    /// (`accepted`, ascending: one, several folded by [`Search::combine`], or none) and which
    /// were judged uninteresting (`rejected`); the others were not decided, or were
    /// interesting but left out of the fold. The engine calls this instead of
    /// [`Search::feedback`] when it folds (`-j` above 1 without exact order); the default
    /// treats it as the acceptance of the first accepted proposal.
    fn feedback_fold(&mut self, accepted: &[usize], _rejected: &[usize]) {
        self.feedback(accepted.first().copied());
    }
}

/// A reduction pass: a named factory of searches.
pub trait Pass<C>: Sync {
    /// Name used in logs and progress.
    fn name(&self) -> String;
    /// Opens a search over `current`.
    fn search(&self, current: &C) -> Box<dyn Search<C> + '_>;
    /// Opens a search over a case that may never become current, for running its first batch
    /// ahead of the decision (the engine asks for no more): it must propose what
    /// [`Pass::search`] would on that case and leave the reduction's state as it finds it.
    /// `None` when the pass cannot. The default is [`Pass::search`], right for a pass whose
    /// searches keep no state outside themselves.
    fn peek(&self, current: &C) -> Option<Box<dyn Search<C> + '_>> {
        Some(self.search(current))
    }
    /// Whether this pass only confirms a fixpoint: it runs only in a round whose passes before
    /// it changed nothing (e.g. a last check of what the other passes skip or refuse by a
    /// guess), and what it accepts starts another round. `false` by default.
    fn confirms(&self) -> bool {
        false
    }
}

/// Runs `search` from `current` to its end the way the engine decides at `-j 1` without a
/// cache: each batch's proposals are offered to `accept` in order until it accepts one, which
/// becomes the current case. Returns the final case. For tests and tools that drive a search
/// directly (`accept` may record what it was offered).
pub fn run_search<C: Clone, S: Search<C> + ?Sized>(
    search: &mut S,
    mut current: C,
    accept: &mut dyn FnMut(&Proposal<C>) -> bool,
) -> C {
    while let Some(batch) = search.next_batch(&current) {
        let accepted = batch.iter().position(&mut *accept);
        if let Some(index) = accepted {
            current = batch[index].case.clone();
        }
        search.feedback(accepted);
    }
    current
}

/// `items` without the ones at the positions in `removed` (a removal search's candidate).
pub fn without_indices<T: Clone>(items: &[T], removed: &[usize]) -> Vec<T> {
    items
        .iter()
        .enumerate()
        .filter(|(index, _)| !removed.contains(index))
        .map(|(_, item)| item.clone())
        .collect()
}

/// The candidate builder of the tests' removal searches over lists of numbers: `items` without
/// the positions in `removed`, the change being those positions.
#[cfg(test)]
#[allow(clippy::ptr_arg)] // the case type is `Vec<usize>`: a search hands its builder `&C`
pub(crate) fn remove_positions(
    items: &Vec<usize>,
    removed: &[usize],
) -> Option<Proposal<Vec<usize>>> {
    Some(Proposal {
        case: without_indices(items, removed),
        change: serde_json::json!(removed),
    })
}
