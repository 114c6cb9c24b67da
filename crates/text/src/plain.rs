//! [`SitesText`]: the [`Prepared`] text of a language whose sites are plain [`Site`]s, applied by
//! [`splice`], and whose every text is valid (its size given by a [`Measure`]).

use crate::language::Prepared;
use crate::site::{splice, Site, SiteInfo};

/// A language's size measure (tokens, lines, …).
pub trait Measure: Send + Sync {
    /// The size of `text`.
    fn measure(&self, text: &str) -> usize;
}

/// A text with the plain sites of one group; every candidate is valid and sized by `M`.
#[derive(Debug)]
pub struct SitesText<M> {
    source: String,
    size: usize,
    sites: Vec<Site>,
    measure: M,
    /// Sites of this kind start from at least this prior ([`Prepared::priors`]).
    deferred: Option<(&'static str, f64)>,
    /// Candidates for which this holds are refused without a run ([`Prepared::check`]).
    refused: Option<fn(&str) -> bool>,
}

impl<M: Measure> SitesText<M> {
    /// `source` with `sites` (in text order), sized by `measure`.
    pub fn new(source: &str, sites: Vec<Site>, measure: M) -> Self {
        Self::sized(source, measure.measure(source), sites, measure)
    }

    /// [`SitesText::new`] for a caller that already knows the size of `source`.
    pub fn sized(source: &str, size: usize, sites: Vec<Site>, measure: M) -> Self {
        Self {
            size,
            source: source.to_owned(),
            sites,
            measure,
            deferred: None,
            refused: None,
        }
    }

    /// The sites of `kind` start ProbDD from at least `prior` (tried after the others).
    pub fn deferring(self, kind: &'static str, prior: f64) -> Self {
        Self {
            deferred: Some((kind, prior)),
            ..self
        }
    }

    /// Refuses, without a run, every candidate for which `refused` holds (a language's cheap
    /// check that a text cannot be valid).
    pub fn refusing(self, refused: Option<fn(&str) -> bool>) -> Self {
        Self { refused, ..self }
    }
}

impl<M: Measure> Prepared for SitesText<M> {
    type Site = Site;
    type Edited = String;

    fn source(&self) -> &str {
        &self.source
    }

    fn sites(&self) -> &[Site] {
        &self.sites
    }

    fn retain_sites(&mut self, keep: &mut dyn FnMut(&Site) -> bool) {
        self.sites.retain(|s| keep(s));
    }

    fn size(&self) -> usize {
        self.size
    }

    fn info(site: &Site) -> SiteInfo<'_> {
        site.info()
    }

    fn apply(&self, selected: &[&Site]) -> String {
        splice(&self.source, selected)
    }

    fn check(&self, edited: &String) -> Option<usize> {
        if self.refused.is_some_and(|refused| refused(edited)) {
            return None;
        }
        Some(self.measure.measure(edited))
    }

    fn priors(&self, prior: f64) -> Vec<f64> {
        let of = |site: &Site| match self.deferred {
            Some((kind, floor)) if site.kind == kind => prior.max(floor),
            _ => prior,
        };
        self.sites.iter().map(of).collect()
    }
}
