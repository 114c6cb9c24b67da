//! Complement-based delta debugging over a list.
//!
//! At granularity `n` the list is split into `n` chunks and each chunk's removal (the complement)
//! is proposed, first chunk first. After an accepted removal the granularity drops by one (at
//! least 2) and the sweep goes on *from the accepted chunk's position*, wrapping around to the
//! chunks before it: the chunks before it were just tried, so they are tried again last rather
//! than first (classic ddmin restarts at the first chunk, which retests every earlier chunk after
//! each acceptance: quadratic in the number of acceptances of a sweep). When every chunk of a
//! sweep fails, the granularity doubles, up to the list length. When a whole sweep of
//! single-element removals fails, the list is 1-minimal. A minimum size keeps, e.g., at least one
//! object.
//!
//! A granularity's candidates are handed out in slices of at most [`MAX_BATCH`]: every proposal
//! holds a complete candidate (and the engine digests each one up front), so proposing all `n`
//! removals of a long list at once would take memory and time quadratic in its length. Slicing
//! does not change which candidate is accepted: the next slice is only proposed when none of the
//! previous one was, exactly as a sequential reducer continues down the same list.

use std::ops::Range;
use std::sync::Arc;

use crate::search::{Proposal, Search, Width};

/// Most proposals in one batch (enough to keep `-j` workers busy, few enough to bound memory).
pub const MAX_BATCH: usize = 32;

/// Builds the candidate that removes `removed` (sorted positions) from the current list, or
/// `None` when that edit is not allowed.
pub type BuildRemoval<C> = Arc<dyn Fn(&C, &[usize]) -> Option<Proposal<C>> + Send + Sync>;

/// ddmin as a [`Search`]: `length` reads the list's current length from the case, `build` makes
/// the removal candidates.
pub struct Ddmin<C> {
    length: Arc<dyn Fn(&C) -> usize + Send + Sync>,
    build: BuildRemoval<C>,
    min_size: usize,
    /// Most proposals in one batch ([`MAX_BATCH`] unless set lower).
    max_batch: usize,
    /// The most a pass allows ([`Ddmin::with_max_batch`]), whatever the width.
    batch_cap: usize,
    /// Least number of chunks: the engine's window (see [`Width`]), so that a window decided
    /// together holds that many disjoint removals.
    window: usize,
    granularity: usize,
    /// Chunk (at the current granularity) where the current sweep started.
    sweep_start: usize,
    /// Chunks of the current sweep proposed so far.
    tried: usize,
    /// The last batch: granularity, list length, chunks in the sweep, and the chunk index of
    /// each proposal (a chunk whose candidate could not be built has none).
    last: Option<LastBatch>,
    done: bool,
}

/// What [`Ddmin::feedback`] needs to know about the batch it judges.
#[derive(Clone)]
struct LastBatch {
    granularity: usize,
    len: usize,
    total: usize,
    proposed_chunks: Vec<usize>,
    /// The positions each proposal removes, in batch order.
    proposed_ranges: Vec<Range<usize>>,
}

impl<C> Ddmin<C> {
    /// A ddmin search that never proposes a list shorter than `min_size`.
    pub fn new(
        min_size: usize,
        length: impl Fn(&C) -> usize + Send + Sync + 'static,
        build: impl Fn(&C, &[usize]) -> Option<Proposal<C>> + Send + Sync + 'static,
    ) -> Self {
        Ddmin {
            length: Arc::new(length),
            build: Arc::new(build),
            min_size,
            max_batch: MAX_BATCH,
            batch_cap: MAX_BATCH,
            window: 1,
            granularity: 2,
            sweep_start: 0,
            tried: 0,
            last: None,
            done: false,
        }
    }
}

impl<C> Ddmin<C> {
    /// The same search with batches of at most `limit` proposals (1 to [`MAX_BATCH`]): a
    /// sequential caller (`-j 1`) decides one proposal at a time, and every proposal built
    /// after the accepted one is wasted work, so it asks for few. The candidates tested and
    /// their order do not depend on the limit (see the module documentation).
    pub fn with_max_batch(mut self, limit: usize) -> Self {
        self.batch_cap = limit.clamp(1, MAX_BATCH);
        self.max_batch = self.max_batch.min(self.batch_cap);
        self
    }
}

/// Splits `0..len` into `n` contiguous chunks whose sizes differ by at most one.
pub fn split_chunks(len: usize, n: usize) -> Vec<Range<usize>> {
    let n = n.clamp(1, len.max(1));
    (0..n)
        .map(|i| (i * len / n)..((i + 1) * len / n))
        .filter(|r| !r.is_empty())
        .collect()
}

impl<C> Clone for Ddmin<C> {
    fn clone(&self) -> Self {
        Ddmin {
            length: self.length.clone(),
            build: self.build.clone(),
            min_size: self.min_size,
            max_batch: self.max_batch,
            batch_cap: self.batch_cap,
            window: self.window,
            granularity: self.granularity,
            sweep_start: self.sweep_start,
            tried: self.tried,
            last: self.last.clone(),
            done: self.done,
        }
    }
}

impl<C: 'static> Search<C> for Ddmin<C> {
    fn fork(&self, max_batch: usize) -> Option<Box<dyn Search<C> + '_>> {
        // Slicing changes neither the candidates nor their order (see the module docs).
        Some(Box::new(
            self.clone().with_max_batch(max_batch.min(self.max_batch)),
        ))
    }

    fn next_batch(&mut self, current: &C) -> Option<Vec<Proposal<C>>> {
        let len = (self.length)(current);
        if self.done || len <= self.min_size {
            return None;
        }
        let n = self.granularity.max(self.window).min(len);
        let chunks: Vec<_> = split_chunks(len, n)
            .into_iter()
            .filter(|chunk| len - chunk.len() >= self.min_size)
            .collect();
        let total = chunks.len();
        let start = if total == 0 {
            0
        } else {
            self.sweep_start % total
        };
        let count = self.max_batch.min(total.saturating_sub(self.tried));
        let mut proposed_chunks = Vec::new();
        let mut proposed_ranges = Vec::new();
        let mut batch = Vec::new();
        for step in self.tried..self.tried + count {
            let index = (start + step) % total;
            let removed: Vec<usize> = chunks[index].clone().collect();
            if let Some(proposal) = (self.build)(current, &removed) {
                proposed_chunks.push(index);
                proposed_ranges.push(chunks[index].clone());
                batch.push(proposal);
            }
        }
        self.sweep_start = start;
        self.tried += count;
        self.last = Some(LastBatch {
            granularity: n,
            len,
            total,
            proposed_chunks,
            proposed_ranges,
        });
        Some(batch)
    }

    fn set_width(&mut self, width: Width) {
        // One proposal at a time when sequential (those built after the accepted one would
        // be built in vain); else enough for a window and the speculation after it.
        let batch = if width.batch <= 1 {
            1
        } else {
            MAX_BATCH.max(width.window)
        };
        self.max_batch = batch.min(self.batch_cap.max(width.window));
        self.window = width.window.max(1);
    }

    fn combine(&self, current: &C, indices: &[usize]) -> Option<Proposal<C>> {
        let last = self.last.as_ref()?;
        let mut removed: Vec<usize> = indices
            .iter()
            .filter_map(|&i| last.proposed_ranges.get(i).cloned())
            .flatten()
            .collect();
        removed.sort_unstable();
        removed.dedup();
        if last.len - removed.len() < self.min_size {
            return None;
        }
        (self.build)(current, &removed)
    }

    fn feedback_fold(&mut self, accepted: &[usize], rejected: &[usize]) {
        let Some(last) = self.last.as_ref() else {
            return;
        };
        if accepted.len() <= 1 && rejected.iter().all(|&r| accepted.first() > Some(&r)) {
            return self.feedback(accepted.first().copied());
        }
        let chunk = |i: usize| last.proposed_chunks.get(i).copied();
        let Some(decided) = accepted.iter().chain(rejected).copied().max() else {
            return self.feedback(None);
        };
        if accepted.is_empty() {
            // Every decided proposal failed: the sweep goes on after them (as `feedback`
            // does once the whole slice was rejected).
            return self.feedback(None);
        }
        // Go on after the window: at granularity n - k of the shorter list, the chunk after
        // the last decided one moved down by the accepted chunks before it. The rejected
        // chunks of the window come again at the sweep's end, as after any acceptance.
        let after = chunk(decided).map_or(0, |c| c + 1);
        let gone = accepted
            .iter()
            .filter_map(|&i| chunk(i))
            .filter(|&c| c < after)
            .count();
        self.sweep_start = after - gone;
        self.tried = 0;
        self.granularity = last.granularity.saturating_sub(accepted.len()).max(2);
        self.last = None;
    }

    fn feedback(&mut self, accepted: Option<usize>) {
        let Some(last) = self.last.take() else {
            return;
        };
        match accepted {
            Some(index) => {
                // Go on from the accepted chunk's position: at granularity n - 1 of the shorter
                // list, chunk `c` covers what chunk `c + 1` covered before.
                self.sweep_start = last.proposed_chunks.get(index).copied().unwrap_or(0);
                self.tried = 0;
                self.granularity = last.granularity.saturating_sub(1).max(2);
            }
            // More chunks of this sweep remain: the next slice, same list.
            None if self.tried < last.total => {}
            None if last.granularity >= last.len => self.done = true,
            None => {
                self.sweep_start = 0;
                self.tried = 0;
                self.granularity = (last.granularity * 2).min(last.len);
            }
        }
    }
}

#[cfg(test)]
mod tests;
