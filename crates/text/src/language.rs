//! What a language supplies to the text layer: its groups of rewrites as data
//! ([`Language::groups`], one [`GroupSpec`] each) and what cannot be data: listing a text's sites
//! ([`Language::prepare`]), a text prepared for many candidates of one group ([`Prepared`]:
//! applying sites, checking a candidate), sizes, validity, tidy candidates and the file's bytes.

use std::borrow::Cow;
use std::fmt::Debug;

use crate::site::SiteInfo;
use crate::spec::GroupSpec;

/// A text could not be turned into the file's bytes (e.g. a character its declared encoding
/// lacks).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct EncodeError(pub String);

/// The files of a text (see [`Language::encode`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Encoded<'t> {
    /// One file, under the name the front end gives it.
    One(Cow<'t, [u8]>),
    /// Several files under relative names, in order (a set of documents: `DocSet`).
    Several(Vec<(String, Vec<u8>)>),
}

/// How the sites of the groups searched with ProbDD are searched (`--strategy`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Strategy {
    /// Probabilistic delta debugging over the sites of the text a pass starts from.
    ProbDd,
    /// Complement-based ddmin, sites re-derived from the current text after every acceptance.
    Ddmin,
}

/// A text prepared once for many candidates of one group: its sites, and how to apply and check a
/// selection of them.
pub trait Prepared: Send + Sync + Sized {
    /// One rewrite site.
    type Site: Send + Sync;
    /// A candidate: the text with some sites applied, with whatever the checks want to reuse.
    type Edited: Edited;

    /// The prepared text.
    fn source(&self) -> &str;
    /// Its sites of the group it was prepared for, in text order.
    fn sites(&self) -> &[Self::Site];
    /// Keeps only the sites `keep` accepts.
    fn retain_sites(&mut self, keep: &mut dyn FnMut(&Self::Site) -> bool);
    /// The text's size (the language's measure).
    fn size(&self) -> usize;
    /// A site's range, kind and replacement.
    fn info(site: &Self::Site) -> SiteInfo<'_>;
    /// The text with `selected` applied.
    fn apply(&self, selected: &[&Self::Site]) -> Self::Edited;
    /// The candidate's size if it is a valid text of the language, else `None`.
    fn check(&self, edited: &Self::Edited) -> Option<usize>;
    /// Whether a valid candidate may be proposed (e.g. it keeps every definition still used),
    /// judged against `judged` (the current text, prepared with [`Language::prepare_current`]),
    /// or against this base when `judged` is `None` (the base is the current text).
    fn admissible(&self, _edited: &Self::Edited, _judged: Option<&Self>) -> bool {
        true
    }
    /// ProbDD's starting probability that each site is needed, given the search's `prior`: the
    /// same for every site by default. A language may raise it for sites that likely fail (a
    /// deletion that leaves a name undeclared), which ProbDD then tries after the others and in
    /// smaller sets; they are still tried.
    fn priors(&self, prior: f64) -> Vec<f64> {
        vec![prior; self.sites().len()]
    }
    /// Takes over what an `earlier` prepared text already computed (called in preparation
    /// order). Nothing by default.
    fn inherit(&self, _earlier: &Self) {}
}

/// A candidate text made by [`Prepared::apply`].
pub trait Edited {
    /// The candidate's text.
    fn text(&self) -> &str;
    /// The candidate's text, owned.
    fn into_text(self) -> String;
}

impl Edited for String {
    fn text(&self) -> &str {
        self
    }

    fn into_text(self) -> String {
        self
    }
}

/// What a language supplies: its groups as data, its size measure, how to prepare a text, and
/// optionally tidy last candidates and a file encoding.
pub trait Language: Send + Sync + 'static {
    /// A group of rewrites: one pass each, in [`Language::groups`] order.
    type Group: Copy + Eq + Debug + Send + Sync + 'static;
    /// A text prepared for the candidates of one group.
    type Prepared: Prepared;
    /// The unit of [`Language::size`] in progress lines and statistics.
    const SIZE_UNIT: &'static str = "tokens";

    /// The groups, in round order, each with how it is searched (asked once per reduction).
    fn groups(&self) -> Vec<GroupSpec<Self::Group>>;
    /// The size of `text` (tokens, lines, …): what the reduction makes smaller.
    fn size(&self, text: &str) -> usize;
    /// `text` prepared with its sites of `group`.
    fn prepare(&self, text: &str, group: Self::Group) -> Self::Prepared;
    /// `text` prepared (sites not needed) as the current text candidates of another base are
    /// judged against by [`Prepared::admissible`].
    fn prepare_current(&self, text: &str) -> Self::Prepared;
    /// The number of sites of `group` in `text` (by default, by preparing it): the budget of a
    /// growing group and the share a learning group kept.
    fn count_sites(&self, text: &str, group: Self::Group) -> usize {
        self.prepare(text, group).sites().len()
    }
    /// Whether `text` is a valid text of the language.
    fn is_valid(&self, text: &str) -> bool;
    /// The cosmetic last candidates (e.g. every whitespace normalisation at once, then only
    /// without blank lines) with their kinds of edit (logged), tried in order until one is
    /// interesting, each judged like any other when it is smaller and valid; none by default.
    fn tidy_steps(&self, _text: &str) -> Vec<(&'static str, String)> {
        Vec::new()
    }
    /// The file's bytes for `text` (UTF-8 by default), or the files of a set of documents.
    fn encode<'t>(&self, text: &'t str) -> Result<Encoded<'t>, EncodeError> {
        Ok(Encoded::One(Cow::Borrowed(text.as_bytes())))
    }
}
