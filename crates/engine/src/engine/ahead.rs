//! What the engine hands the dispatcher to run ahead of a decision: the batch that would follow
//! a premise (a candidate accepted, a fold's union accepted, every candidate rejected), from a
//! copy of the search ([`Search::fork`]) told the premise as feedback, or when that copy ends,
//! from the pass that would run next ([`Pass::peek`]). Nothing here decides: a run ahead only
//! leaves its verdict in the cache (or is adopted, or cancelled), so what is accepted depends
//! on verdicts alone, never on which runs went ahead.

use crate::dispatch::LookAhead;
use crate::search::{Pass, Proposal, Search, Width};

/// The passes that run next when the open search ends now.
#[derive(Clone, Copy)]
pub(super) struct Following<'p, C> {
    /// When the batch being decided changes nothing.
    pub(super) unchanged: Option<&'p dyn Pass<C>>,
    /// When it changes the current case (a new round at the end of the passes).
    pub(super) changed: Option<&'p dyn Pass<C>>,
}

impl<'p, C> Following<'p, C> {
    /// After the pass at `index` of `passes`, in a round that has `changed` something so far
    /// (a pass that confirms a fixpoint runs only in a round that changed nothing).
    pub(super) fn of(passes: &[&'p dyn Pass<C>], index: usize, changed: bool) -> Self {
        let next = |changed: bool| {
            let later = passes[index + 1..].iter().copied();
            match later.clone().find(|p| !changed || !p.confirms()) {
                Some(pass) => Some(pass),
                None if changed => passes.first().copied(),
                None => None,
            }
        };
        Following {
            unchanged: next(changed),
            changed: next(true),
        }
    }
}

/// The first batch `search` proposes over `base` once `premise` (feedback) is told to a copy
/// of it, or when the copy ends there, the first batch of `following` over `base`; each
/// proposal with its cache key. Empty when the search cannot be copied.
pub(super) fn batch_after<C>(
    search: &dyn Search<C>,
    premise: &dyn Fn(&mut dyn Search<C>),
    (base, following): (&C, Option<&dyn Pass<C>>),
    width: Width,
    key: &dyn Fn(&Proposal<C>) -> String,
) -> LookAhead<C> {
    let Some(mut fork) = search.fork(width.batch) else {
        return Vec::new();
    };
    premise(&mut *fork);
    let next = fork.next_batch(base).or_else(|| {
        let mut search = following?.peek(base)?;
        search.set_width(width);
        search.next_batch(base)
    });
    let next = next.unwrap_or_default();
    next.into_iter().map(|p| (key(&p), p)).collect()
}
