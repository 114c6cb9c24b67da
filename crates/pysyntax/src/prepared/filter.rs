//! The name pre-filter of a [`Prepared`] base's candidates (see [`chunk_names`](crate::chunk_names)):
//! judged from the changed chunks' summaries and the base's summed ones, which a new base takes
//! over from the one it replaces.

use std::ops::Range;
use std::sync::Arc;

use rustc_hash::FxHashMap as HashMap;

use super::{lock, Chunks, Edited, Prepared};
use crate::chunk_names::{difference, Names, Summary};
use crate::NameUse;

impl Prepared {
    /// Exactly `NameUse::of(self.source())`'s
    /// [`loses_definition`](NameUse::loses_definition)`(&NameUse::of(edited.text()))` (`false`
    /// when either does not parse), from the changed chunks alone when
    /// `Prepared::check_changed` decides the candidate (see
    /// `chunk_names`).
    pub fn loses_definition(&self, edited: &Edited) -> bool {
        if let Some((verdict, _)) = self.loses_definition_changed(edited) {
            return verdict;
        }
        self.loses_definition_in_full(edited)
    }

    /// [`Prepared::loses_definition`] from the whole texts.
    fn loses_definition_in_full(&self, edited: &Edited) -> bool {
        let base = self.full_names.get_or_init(|| NameUse::of(&self.source));
        match (base, NameUse::of(&edited.text)) {
            (Some(base), Some(candidate)) => base.loses_definition(&candidate),
            _ => false,
        }
    }

    /// Exactly `NameUse::of(current.source())`'s
    /// [`loses_definition`](NameUse::loses_definition)`(&NameUse::of(edited.text()))` for a
    /// candidate made from this base but judged against another text (`current`, e.g. the base
    /// with the edits accepted so far), from the chunks alone when the changed chunks decide
    /// the candidate's validity and `current` has chunks (see [`Prepared::chunked`]): the
    /// candidate's chunks are this base's with the
    /// changed groups replaced, and the two texts differ by the chunks one has and the other
    /// has not.
    pub fn loses_definition_against(&self, edited: &Edited, current: &Prepared) -> bool {
        if let Some((verdict, _)) = self.loses_definition_against_changed(edited, current) {
            return verdict;
        }
        current.loses_definition_in_full(edited)
    }

    /// The verdict of [`Prepared::loses_definition_against`] and the candidate's number of
    /// mismatched calls, from the chunks alone; `None` when it must be judged in full.
    pub(crate) fn loses_definition_against_changed(
        &self,
        edited: &Edited,
        current: &Prepared,
    ) -> Option<(bool, usize)> {
        let chunks = self.chunks.as_ref()?;
        let changed = edited.changed.as_ref()?;
        let current_chunks = current.chunks.as_ref()?;
        let facts = self.check_changed(edited)?;
        let mut candidate = Vec::with_capacity(chunks.facts.len());
        let mut next = 0;
        for ((group, _), group_facts) in changed.iter().zip(&facts.groups) {
            candidate.extend(chunks.facts[next..group.start].iter().map(|f| &f.summary));
            candidate.push(&group_facts.summary);
            next = group.end;
        }
        candidate.extend(chunks.facts[next..].iter().map(|f| &f.summary));
        let current_summaries: Vec<&Arc<Summary>> =
            current_chunks.facts.iter().map(|f| &f.summary).collect();
        let (removed, added) = unshared(&current_summaries, &candidate);
        Some(
            current
                .names(current_chunks)
                .loses_definition(&removed, &added),
        )
    }

    /// The verdict of [`Prepared::loses_definition`] and the candidate's number of mismatched
    /// calls, from the changed chunks alone; `None` when the candidate must be judged in full.
    pub(crate) fn loses_definition_changed(&self, edited: &Edited) -> Option<(bool, usize)> {
        let chunks = self.chunks.as_ref()?;
        let changed = edited.changed.as_ref()?;
        // The candidate's statements are its chunks' statements only when its changed chunks
        // are valid on their own.
        let facts = self.check_changed(edited)?;
        let names = self.names(chunks);
        let added: Vec<Arc<Summary>> = facts
            .groups
            .iter()
            .map(|f| Arc::clone(&f.summary))
            .collect();
        let removed: Vec<Range<usize>> = changed.iter().map(|(group, _)| group.clone()).collect();
        Some(names.loses_definition(&removed, &added))
    }

    /// The chunks' summed name summaries (made now if neither made nor inherited before).
    fn names(&self, chunks: &Chunks) -> Arc<Names> {
        let mut names = lock(&self.names);
        let names = names.get_or_insert_with(|| Arc::new(Names::new(chunks.summaries())));
        Arc::clone(names)
    }

    /// Takes over `earlier`'s summed name summaries, if it has them, updated from the chunks
    /// the two texts do not share (instead of summing every chunk again on first use). Meant
    /// for the base that replaces `earlier` after an accepted candidate: `earlier` keeps no
    /// summaries (it makes them again if asked).
    pub fn inherit_names(&self, earlier: &Prepared) {
        let (Some(chunks), Some(old_chunks)) = (&self.chunks, &earlier.chunks) else {
            return;
        };
        let Some(old) = lock(&earlier.names).take() else {
            return;
        };
        let old = match Arc::try_unwrap(old) {
            Ok(old) => old,
            // In use elsewhere: leave it (this base makes its own when asked).
            Err(old) => {
                *lock(&earlier.names) = Some(old);
                return;
            }
        };
        let (removed, added) = difference(&old_chunks.summaries(), &chunks.summaries());
        *lock(&self.names) = Some(Arc::new(old.rebase(removed, added)));
    }
}

#[cfg(test)]
impl Prepared {
    /// Whether this base's summed name summaries, if it has them, equal those summed from
    /// scratch (`None`: it has none).
    pub(crate) fn names_equal_fresh(&self) -> Option<bool> {
        let names = lock(&self.names).clone()?;
        let chunks = self.chunks.as_ref()?;
        Some(names.same_as(&Names::new(chunks.summaries())))
    }
}

/// The chunks (given by their summaries) of `from` that `to` does not have, as ranges of
/// `from`'s indices, and those of `to` that `from` does not have: the two texts' chunk lists
/// compared as multisets (by identity). The name check only sums over chunks, so their order
/// does not matter.
fn unshared(
    from: &[&Arc<Summary>],
    to: &[&Arc<Summary>],
) -> (Vec<Range<usize>>, Vec<Arc<Summary>>) {
    let mut unmatched: HashMap<*const Summary, usize> = HashMap::default();
    for summary in to {
        *unmatched.entry(Arc::as_ptr(summary)).or_default() += 1;
    }
    let mut removed: Vec<Range<usize>> = Vec::new();
    for (i, summary) in from.iter().enumerate() {
        match unmatched.get_mut(&Arc::as_ptr(summary)) {
            Some(count) if *count > 0 => *count -= 1,
            _ => match removed.last_mut() {
                Some(last) if last.end == i => last.end = i + 1,
                _ => removed.push(i..i + 1),
            },
        }
    }
    // What is left unmatched of `to`.
    let mut added = Vec::new();
    for summary in to {
        if let Some(count) = unmatched.get_mut(&Arc::as_ptr(summary)).filter(|c| **c > 0) {
            *count -= 1;
            added.push(Arc::clone(summary));
        }
    }
    (removed, added)
}
