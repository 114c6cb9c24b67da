//! Searches made of other searches, or of nothing: [`Sequence`] (one search after another, e.g.
//! level by level or item by item), [`OneShot`] (a single candidate) and [`Exhausted`].

use std::sync::Arc;

use crate::search::{Proposal, Search, Width};

/// Opens the `index`-th search of a [`Sequence`] over the current case; `None` ends the sequence.
/// Shared, so that a copy of the sequence ([`Search::fork`]) opens the same searches.
pub type OpenSearch<'a, C> =
    Arc<dyn Fn(usize, &C) -> Option<Box<dyn Search<C> + 'a>> + Send + Sync + 'a>;

/// The one open search of a search made of searches opened one after another ([`Sequence`], a
/// front end's level-by-level search): the engine's width is applied to each as it opens, and
/// the engine's calls reach it while it is open. Closed when it is exhausted.
pub struct InnerSearch<'a, C> {
    search: Option<Box<dyn Search<C> + 'a>>,
    width: Option<Width>,
}

impl<C> Default for InnerSearch<'_, C> {
    fn default() -> Self {
        InnerSearch {
            search: None,
            width: None,
        }
    }
}

impl<'a, C> InnerSearch<'a, C> {
    /// Whether a search is open.
    pub fn is_open(&self) -> bool {
        self.search.is_some()
    }

    /// Makes `search` the open one, at the engine's width if it has set one.
    pub fn open(&mut self, mut search: Box<dyn Search<C> + 'a>) {
        if let Some(width) = self.width {
            search.set_width(width);
        }
        self.search = Some(search);
    }

    /// The open search's next batch; `None` when none is open, or when it is exhausted (which
    /// closes it).
    pub fn next_batch(&mut self, current: &C) -> Option<Vec<Proposal<C>>> {
        let batch = self.search.as_mut()?.next_batch(current);
        if batch.is_none() {
            self.search = None;
        }
        batch
    }

    /// [`Search::feedback`] to the open search.
    pub fn feedback(&mut self, accepted: Option<usize>) {
        if let Some(search) = &mut self.search {
            search.feedback(accepted);
        }
    }

    /// [`Search::combine`] by the open search.
    pub fn combine(&self, current: &C, indices: &[usize]) -> Option<Proposal<C>> {
        self.search.as_ref()?.combine(current, indices)
    }

    /// [`Search::set_width`]: for the open search and every one opened later.
    pub fn set_width(&mut self, width: Width) {
        self.width = Some(width);
        if let Some(search) = &mut self.search {
            search.set_width(width);
        }
    }

    /// [`Search::feedback_fold`] to the open search.
    pub fn feedback_fold(&mut self, accepted: &[usize], rejected: &[usize]) {
        if let Some(search) = &mut self.search {
            search.feedback_fold(accepted, rejected);
        }
    }

    /// A copy ([`Search::fork`]) of the open search, or of none when none is open; `None` when
    /// the open search cannot be copied.
    pub fn fork(&self, max_batch: usize) -> Option<InnerSearch<'_, C>> {
        let search = match &self.search {
            Some(search) => Some(search.fork(max_batch)?),
            None => None,
        };
        Some(InnerSearch {
            search,
            width: self.width,
        })
    }
}

/// Runs searches one after the other: the next one opens (over the case current then) when the
/// previous one is exhausted, until opening returns `None`.
pub type Sequence<'a, C> = SearchSequence<'a, 'a, C>;

/// A [`Sequence`] whose open search lives for `'s` and whose opener for `'a` (a copy made by
/// [`Search::fork`] borrows the search it copies, not the opener).
pub struct SearchSequence<'s, 'a, C> {
    next: usize,
    inner: InnerSearch<'s, C>,
    open: OpenSearch<'a, C>,
}

impl<'a, C> Sequence<'a, C> {
    /// A sequence whose `index`-th search `open` makes (from 0).
    pub fn new(open: OpenSearch<'a, C>) -> Self {
        SearchSequence {
            next: 0,
            inner: InnerSearch::default(),
            open,
        }
    }
}

impl<'a: 's, 's, C> Search<C> for SearchSequence<'s, 'a, C> {
    fn next_batch(&mut self, current: &C) -> Option<Vec<Proposal<C>>> {
        loop {
            if !self.inner.is_open() {
                let opened = (self.open)(self.next, current)?;
                self.next += 1;
                self.inner.open(opened);
            }
            if let Some(batch) = self.inner.next_batch(current) {
                return Some(batch);
            }
        }
    }

    fn feedback(&mut self, accepted: Option<usize>) {
        self.inner.feedback(accepted);
    }

    fn combine(&self, current: &C, indices: &[usize]) -> Option<Proposal<C>> {
        self.inner.combine(current, indices)
    }

    fn set_width(&mut self, width: Width) {
        self.inner.set_width(width);
    }

    fn feedback_fold(&mut self, accepted: &[usize], rejected: &[usize]) {
        self.inner.feedback_fold(accepted, rejected);
    }

    fn fork(&self, max_batch: usize) -> Option<Box<dyn Search<C> + '_>> {
        Some(Box::new(SearchSequence {
            next: self.next,
            inner: self.inner.fork(max_batch)?,
            open: Arc::clone(&self.open),
        }))
    }
}

/// Makes the one candidate of a [`OneShot`] from the current case (`None`: nothing to propose).
pub type MakeOne<'a, C> = Box<dyn FnOnce(&C) -> Option<Proposal<C>> + Send + 'a>;

/// Proposes at most one candidate, made from the case current when it is asked, once.
pub struct OneShot<'a, C>(Option<MakeOne<'a, C>>);

impl<'a, C> OneShot<'a, C> {
    /// A search proposing what `make` returns.
    pub fn new(make: MakeOne<'a, C>) -> Self {
        OneShot(Some(make))
    }
}

impl<C> Search<C> for OneShot<'_, C> {
    fn next_batch(&mut self, current: &C) -> Option<Vec<Proposal<C>>> {
        let make = self.0.take()?;
        Some(make(current).into_iter().collect())
    }

    fn feedback(&mut self, _accepted: Option<usize>) {}
}

/// A search with nothing to propose.
pub struct Exhausted;

impl<C> Search<C> for Exhausted {
    fn next_batch(&mut self, _current: &C) -> Option<Vec<Proposal<C>>> {
        None
    }

    fn feedback(&mut self, _accepted: Option<usize>) {}
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A search that proposes its label once.
    struct Once(Option<usize>);

    impl Search<String> for Once {
        fn next_batch(&mut self, _current: &String) -> Option<Vec<Proposal<String>>> {
            let label = self.0.take()?;
            Some(vec![Proposal {
                case: label.to_string(),
                change: serde_json::json!(label),
            }])
        }

        fn feedback(&mut self, _accepted: Option<usize>) {}

        fn fork(&self, _max_batch: usize) -> Option<Box<dyn Search<String> + '_>> {
            Some(Box::new(Once(self.0)))
        }
    }

    #[test]
    fn a_copy_of_a_sequence_goes_on_as_the_sequence_does() {
        let open: OpenSearch<'static, String> = Arc::new(|index, _: &String| {
            (index < 3).then(|| Box::new(Once(Some(index))) as Box<dyn Search<String>>)
        });
        let mut search = Sequence::new(open);
        let text = "abc".to_owned();
        let (mut labels, mut ahead) = (Vec::new(), None);
        loop {
            let label = search.next_batch(&text).map(|b| b[0].change.clone());
            if labels.is_empty() {
                assert!(label.is_some());
            } else {
                assert_eq!(label, ahead, "what the copy proposed");
            }
            let Some(label) = label else { break };
            labels.push(label);
            search.feedback(None);
            let mut copy = search.fork(1).expect("its searches can be copied");
            ahead = copy.next_batch(&text).map(|b| b[0].change.clone());
        }
        assert_eq!(labels, vec![0, 1, 2]);
    }

    #[test]
    fn a_sequence_runs_its_searches_in_order_until_none_opens() {
        // The current case's length is the number of searches; search 1 is exhausted at once.
        let open = || -> OpenSearch<'static, String> {
            Arc::new(|index, current: &String| {
                (index < current.len()).then(|| {
                    let label = (index != 1).then_some(index);
                    Box::new(Once(label)) as Box<dyn Search<String>>
                })
            })
        };
        let mut search = Sequence::new(open());
        let mut labels = Vec::new();
        while let Some(batch) = search.next_batch(&"abc".to_owned()) {
            labels.push(batch[0].change.clone());
            search.feedback(None);
        }
        assert_eq!(labels, vec![0, 2]);
        assert!(Sequence::new(open()).next_batch(&String::new()).is_none());
    }

    #[test]
    fn one_shot_proposes_once_and_exhausted_never() {
        let mut once = OneShot::new(Box::new(|current: &String| {
            Some(Proposal {
                case: format!("{current}!"),
                change: serde_json::json!("bang"),
            })
        }));
        let batch = once.next_batch(&"a".to_owned()).unwrap();
        assert_eq!(batch[0].case, "a!");
        assert!(once.next_batch(&"a".to_owned()).is_none());
        let mut empty = OneShot::<String>::new(Box::new(|_| None));
        assert!(empty.next_batch(&String::new()).unwrap().is_empty());
        assert!(Search::<String>::next_batch(&mut Exhausted, &String::new()).is_none());
    }
}
