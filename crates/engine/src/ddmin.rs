//! Complement-based delta debugging over a list.
//!
//! At granularity `n` the list is split into `n` chunks and each chunk's removal (the complement)
//! is proposed, first chunk first. After an accepted removal the granularity drops by one (at
//! least 2); when no removal is accepted it doubles, up to the list length. When single-element
//! removals all fail, the list is 1-minimal. A minimum size keeps, e.g., at least one object.
//!
//! A granularity's candidates are handed out in slices of at most [`MAX_BATCH`]: every proposal
//! holds a complete candidate (and the engine digests each one up front), so proposing all `n`
//! removals of a long list at once would take memory and time quadratic in its length. Slicing
//! does not change which candidate is accepted: the next slice is only proposed when none of the
//! previous one was, exactly as a sequential reducer continues down the same list.

use std::ops::Range;

use crate::search::{Proposal, Search};

/// Most proposals in one batch (enough to keep `-j` workers busy, few enough to bound memory).
pub const MAX_BATCH: usize = 32;

/// Builds the candidate that removes `removed` (sorted positions) from the current list, or
/// `None` when that edit is not allowed.
pub type BuildRemoval<C> = Box<dyn Fn(&C, &[usize]) -> Option<Proposal<C>> + Send>;

/// ddmin as a [`Search`]: `length` reads the list's current length from the case, `build` makes
/// the removal candidates.
pub struct Ddmin<C> {
    length: Box<dyn Fn(&C) -> usize + Send>,
    build: BuildRemoval<C>,
    min_size: usize,
    granularity: usize,
    /// First chunk of the next slice at the current granularity.
    offset: usize,
    /// (granularity, length, chunks proposed so far at it, chunks at it) of the last batch.
    last: Option<(usize, usize, usize, usize)>,
    done: bool,
}

impl<C> Ddmin<C> {
    /// A ddmin search that never proposes a list shorter than `min_size`.
    pub fn new(
        min_size: usize,
        length: impl Fn(&C) -> usize + Send + 'static,
        build: impl Fn(&C, &[usize]) -> Option<Proposal<C>> + Send + 'static,
    ) -> Self {
        Ddmin {
            length: Box::new(length),
            build: Box::new(build),
            min_size,
            granularity: 2,
            offset: 0,
            last: None,
            done: false,
        }
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

impl<C> Search<C> for Ddmin<C> {
    fn next_batch(&mut self, current: &C) -> Option<Vec<Proposal<C>>> {
        let len = (self.length)(current);
        if self.done || len <= self.min_size {
            return None;
        }
        let n = self.granularity.min(len);
        let chunks: Vec<_> = split_chunks(len, n)
            .into_iter()
            .filter(|chunk| len - chunk.len() >= self.min_size)
            .collect();
        let end = (self.offset + MAX_BATCH).min(chunks.len());
        let start = self.offset.min(end);
        self.last = Some((n, len, end, chunks.len()));
        let batch = chunks[start..end]
            .iter()
            .filter_map(|chunk| {
                let removed: Vec<usize> = chunk.clone().collect();
                (self.build)(current, &removed)
            })
            .collect();
        Some(batch)
    }

    fn feedback(&mut self, accepted: Option<usize>) {
        let Some((n, len, proposed, total)) = self.last.take() else {
            return;
        };
        match accepted {
            Some(_) => {
                self.offset = 0;
                self.granularity = n.saturating_sub(1).max(2);
            }
            // More removals at this granularity remain: the next slice, same list.
            None if proposed < total => self.offset = proposed,
            None if n >= len => self.done = true,
            None => {
                self.offset = 0;
                self.granularity = (n * 2).min(len);
            }
        }
    }
}

#[cfg(test)]
mod tests;
