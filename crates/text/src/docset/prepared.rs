//! A set's text prepared for one group ([`PreparedSet`]): each document's body prepared in
//! its language, their sites (and whole documents, or the front end's rewrites) as one list,
//! and candidates applied and checked document by document.

use std::ops::Range;
use std::sync::Arc;

use crate::docs::{join, Doc, Part};
use crate::language::{Edited, Prepared};
use crate::site::SiteInfo;

use super::SetRewrites;

/// A site of a set: one of a document's, or a whole document's removal.
#[derive(Debug, Clone)]
pub enum DocSite<S> {
    /// A site of the document whose body starts at `offset`.
    Inner {
        /// The document's index in the set.
        doc: usize,
        /// Where its body starts in the set's text.
        offset: usize,
        /// The document's site.
        site: S,
    },
    /// One of the front end's rewrites across documents ([`SetRewrites`]).
    Rewrite {
        /// Its index in [`SetRewrites::sites`].
        index: usize,
        /// The range it is identified by, in the set's text.
        range: Range<usize>,
        /// The group's name.
        kind: &'static str,
    },
    /// The removal of a whole document (header and body).
    Whole {
        /// The document's index in the set.
        doc: usize,
        /// Its header and body in the set's text.
        range: Range<usize>,
    },
}

/// One document of a prepared set.
pub(super) struct PreparedDoc<P> {
    pub(super) name: String,
    /// Header and body in the set's text.
    pub(super) whole: Range<usize>,
    pub(super) body: Range<usize>,
    /// The body prepared for the group (`None`: binary, or the group is not the document's).
    pub(super) prepared: Option<P>,
    /// The body's size.
    pub(super) size: usize,
}

/// A set's text prepared with the sites of one group.
pub struct PreparedSet<P: Prepared> {
    pub(super) source: String,
    pub(super) set: bool,
    pub(super) docs: Vec<PreparedDoc<P>>,
    pub(super) sites: Vec<DocSite<P::Site>>,
    pub(super) size: usize,
    /// The documents and rewrites of a text prepared for the rewrites group.
    pub(super) rewrites: Option<(Vec<Doc>, Arc<dyn SetRewrites>)>,
    /// The size of a whole text of the set (of a rewritten candidate).
    pub(super) measure: Arc<dyn Fn(&str) -> usize + Send + Sync>,
}

/// A candidate of a set: its text and each changed document's candidate.
pub struct EditedSet<E> {
    pub(super) text: String,
    /// (document index, its candidate) of every document edited, in order.
    pub(super) edits: Vec<(usize, E)>,
    /// Whether each document is kept.
    pub(super) kept: Vec<bool>,
    /// Rewritten across documents: measured whole.
    pub(super) rewritten: bool,
}

impl<E: Send> Edited for EditedSet<E> {
    fn text(&self) -> &str {
        &self.text
    }

    fn into_text(self) -> String {
        self.text
    }
}

/// The size of a set from its documents' sizes: each document also counts one, so that an
/// empty document's removal makes the set smaller.
pub(super) fn set_size(set: bool, sizes: impl Iterator<Item = usize>) -> usize {
    let (sum, count) = sizes.fold((0, 0), |(s, n), size| (s + size, n + 1));
    if set {
        sum + count
    } else {
        sum
    }
}

impl<P: Prepared> Prepared for PreparedSet<P>
where
    P::Site: Clone,
    P::Edited: Send + Sync,
{
    type Site = DocSite<P::Site>;
    type Edited = EditedSet<P::Edited>;

    fn source(&self) -> &str {
        &self.source
    }

    fn sites(&self) -> &[Self::Site] {
        &self.sites
    }

    fn retain_sites(&mut self, keep: &mut dyn FnMut(&Self::Site) -> bool) {
        let flags: Vec<bool> = self.sites.iter().map(&mut *keep).collect();
        for (i, doc) in self.docs.iter_mut().enumerate() {
            let Some(prepared) = doc.prepared.as_mut() else {
                continue;
            };
            // The document's own sites are listed in the same order as its set sites.
            let mut own = self
                .sites
                .iter()
                .zip(&flags)
                .filter(|(s, _)| matches!(s, DocSite::Inner { doc, .. } if *doc == i))
                .map(|(_, &f)| f);
            prepared.retain_sites(&mut |_| own.next().unwrap_or(true));
        }
        let mut flags = flags.into_iter();
        self.sites.retain(|_| flags.next().unwrap_or(true));
    }

    fn size(&self) -> usize {
        self.size
    }

    fn info(site: &Self::Site) -> SiteInfo<'_> {
        match site {
            DocSite::Inner { offset, site, .. } => {
                let inner = P::info(site);
                SiteInfo {
                    kind: inner.kind,
                    range: inner.range.start + offset..inner.range.end + offset,
                    replacement: inner.replacement,
                }
            }
            DocSite::Rewrite { range, kind, .. } => SiteInfo {
                kind,
                range: range.clone(),
                replacement: "",
            },
            DocSite::Whole { range, .. } => SiteInfo {
                kind: "remove-file",
                range: range.clone(),
                replacement: "",
            },
        }
    }

    fn apply(&self, selected: &[&Self::Site]) -> Self::Edited {
        let mut kept = vec![true; self.docs.len()];
        let mut chosen: Vec<Vec<&P::Site>> = vec![Vec::new(); self.docs.len()];
        let mut rewrites = Vec::new();
        for site in selected {
            match site {
                DocSite::Inner { doc, site, .. } => chosen[*doc].push(site),
                DocSite::Whole { doc, .. } => kept[*doc] = false,
                DocSite::Rewrite { index, .. } => rewrites.push(*index),
            }
        }
        if let (Some((docs, with)), false) = (&self.rewrites, rewrites.is_empty()) {
            rewrites.sort_unstable();
            // Rewrites that cannot go together leave the text as it is (not smaller: never run).
            let text = with
                .apply(docs, &rewrites)
                .map_or_else(|| self.source.clone(), |docs| join(&docs));
            return EditedSet {
                text,
                edits: Vec::new(),
                kept,
                rewritten: true,
            };
        }
        let mut text = String::with_capacity(self.source.len());
        let mut edits = Vec::new();
        for (i, doc) in self.docs.iter().enumerate() {
            if !kept[i] {
                continue;
            }
            text.push_str(&self.source[doc.whole.start..doc.body.start]);
            match (&doc.prepared, chosen[i].is_empty()) {
                (Some(prepared), false) => {
                    let edited = prepared.apply(&chosen[i]);
                    text.push_str(edited.text());
                    edits.push((i, edited));
                }
                _ => text.push_str(&self.source[doc.body.clone()]),
            }
        }
        EditedSet {
            text,
            edits,
            kept,
            rewritten: false,
        }
    }

    fn check(&self, edited: &Self::Edited) -> Option<usize> {
        if !edited.kept.iter().any(|&k| k) {
            return None;
        }
        if edited.rewritten {
            return Some((self.measure)(&edited.text));
        }
        let mut sizes = Vec::with_capacity(self.docs.len());
        let mut edits = edited.edits.iter().peekable();
        for (i, doc) in self.docs.iter().enumerate() {
            let edit = edits.next_if(|(d, _)| *d == i);
            if !edited.kept[i] {
                continue;
            }
            sizes.push(match (edit, &doc.prepared) {
                (Some((_, e)), Some(prepared)) => prepared.check(e)?,
                _ => doc.size,
            });
        }
        Some(set_size(self.set, sizes.into_iter()))
    }

    fn admissible(&self, edited: &Self::Edited, judged: Option<&Self>) -> bool {
        edited.edits.iter().all(|(i, e)| {
            let doc = &self.docs[*i];
            let Some(prepared) = &doc.prepared else {
                return true;
            };
            let against = judged.map(|j| {
                j.docs
                    .iter()
                    .find(|d| d.name == doc.name)
                    .and_then(|d| d.prepared.as_ref())
            });
            match against {
                Some(None) => true,
                Some(Some(current)) => prepared.admissible(e, Some(current)),
                None => prepared.admissible(e, None),
            }
        })
    }

    fn priors(&self, prior: f64) -> Vec<f64> {
        let mut own: Vec<std::vec::IntoIter<f64>> = self
            .docs
            .iter()
            .map(|d| {
                d.prepared
                    .as_ref()
                    .map(|p| p.priors(prior))
                    .unwrap_or_default()
            })
            .map(Vec::into_iter)
            .collect();
        self.sites
            .iter()
            .map(|site| match site {
                DocSite::Inner { doc, .. } => own[*doc].next().unwrap_or(prior),
                DocSite::Whole { .. } | DocSite::Rewrite { .. } => prior,
            })
            .collect()
    }

    fn inherit(&self, earlier: &Self) {
        for doc in &self.docs {
            let before = earlier.docs.iter().find(|d| d.name == doc.name);
            if let (Some(now), Some(Some(then))) = (&doc.prepared, before.map(|d| &d.prepared)) {
                now.inherit(then);
            }
        }
    }
}

pub(super) fn document<P>(part: &Part<'_>, prepared: Option<P>, size: usize) -> PreparedDoc<P> {
    PreparedDoc {
        name: part.name.to_owned(),
        whole: part.whole.clone(),
        body: part.body.clone(),
        prepared,
        size,
    }
}
