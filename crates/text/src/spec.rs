//! What a language says about each of its groups, as data: a [`GroupSpec`] per group (its name,
//! how its sites are searched, level by level or flat, whether sites that failed alone are left
//! out later, whether candidates may grow, how sites and texts are identified across texts).
//! A language lists them ([`Language::groups`](crate::Language::groups)); a wrapper language
//! maps another language's specs ([`GroupSpec::map`]) instead of forwarding methods.
//!
//! The ProbDD constants here are principles of the search, not tuned figures: a prior is the
//! probability that a site is needed, and the expected gain of a set (tokens removed per
//! predicate run) is largest for sets of about 1 / prior sites.

use std::fmt;
use std::sync::Arc;

use crate::site::SiteInfo;

/// ProbDD's prior probability that a site must stay unapplied: most sites of a failing input are
/// not needed, so the first sets hold about ten sites.
pub const PROBDD_PRIOR: f64 = 0.1;

/// Highest prior ProbDD starts from (learned or in a re-sweep): at one half ProbDD tries single
/// sites, the best it can do when most sites are needed.
pub const PROBDD_MAX_PRIOR: f64 = 0.5;

/// The identities of a group's sites across texts (see [`GroupSpec::identities`]).
pub type SiteKeys = Arc<dyn Fn(&str, &[SiteInfo<'_>]) -> Vec<[u8; 32]> + Send + Sync>;

/// A key of a whole text (see [`GroupSpec::fruitless`]).
pub type TextKey = Arc<dyn Fn(&str) -> [u8; 32] + Send + Sync>;

/// How a group's sites are searched.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum SearchSpec<G> {
    /// Probabilistic delta debugging (under [`Strategy::ProbDd`](crate::Strategy); ddmin
    /// otherwise).
    ProbDd(ProbDdSpec<G>),
    /// Complement-based ddmin, sites re-derived from the current text after every acceptance.
    Ddmin,
    /// Each site tried alone in list order, the sweep going on at the same position of the new
    /// text's list after an acceptance (C-Vise's `rm-toks-N`): for sites listed so that those
    /// before an applied one stay the same (runs of N tokens at every position). Levels do not
    /// apply.
    Sweep,
    /// The sites are the levels of chains of nested nodes
    /// ([`depth_sites`](crate::depth_sites)), each chain cut by bisection over how many of its
    /// outer levels go (the engine's [`Bisect`](minrepro_engine::Bisect)): about `log2(L)` runs
    /// for a chain of `L` levels, where removing one level per run costs up to `L`. Levels,
    /// priors and skipping failed sites do not apply.
    Bisect,
}

/// A ProbDD search's limits and prior policy.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ProbDdSpec<G> {
    /// Largest text (in the language's size) whose sites ProbDD searches; larger texts use
    /// ddmin. ProbDD re-applies every accepted site to the text it started from in each
    /// candidate, which on a large text can cost more than the runs it saves.
    pub max_size: Option<usize>,
    /// Whether searches start from the share of the group's sites its previous search kept (at
    /// least [`PROBDD_PRIOR`], at most `max_prior`) instead of [`PROBDD_PRIOR`]: after the first
    /// round most sites are needed, and sets sized for a prior of 0.1 mostly fail.
    pub learns_prior: bool,
    /// The highest prior the group learns ([`PROBDD_MAX_PRIOR`] by default, where ProbDD tries
    /// single sites); lower keeps sets of a few neighbouring sites for edits that need several
    /// at once.
    pub max_prior: f64,
    /// The group whose last kept share a learning group's first search starts from (e.g. the
    /// lines one nesting level up: where most top-level forms were needed, most of their
    /// statements usually are too). `None`: [`PROBDD_PRIOR`].
    pub prior_fallback: Option<G>,
}

impl<G> Default for ProbDdSpec<G> {
    fn default() -> Self {
        ProbDdSpec {
            max_size: None,
            learns_prior: false,
            max_prior: PROBDD_MAX_PRIOR,
            prior_fallback: None,
        }
    }
}

/// How a group searched level by level moves between levels. The default is plain HDD: each
/// level once, outermost first, down to the deepest.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct LevelPolicy {
    /// A level whose search accepted something is searched again, on the new text, before the
    /// next level: ProbDD and ddmin never try again a site they found needed, and an edit
    /// accepted later at the same level can free it (a function that only a deleted statement
    /// called). The sites that failed alone since the level's last acceptance are left out
    /// (the text has not changed since: they would fail again).
    pub resweep: bool,
    /// A search that has accepted something stops descending after this many consecutive
    /// levels that ran candidates and accepted nothing (a level whose candidates were all
    /// refused unrun costs no run, so it neither counts nor breaks the count): the engine's
    /// next round searches the group again from the outermost level, and the groups after it
    /// get their turn first. A search that has accepted nothing goes down to the deepest
    /// level, so a round that changes nothing has searched every level (the fixpoint is the
    /// same as without the stop). `None`: never.
    pub stop_after_fruitless: Option<usize>,
}

/// Which candidates of a group may be proposed, by their size against the current text's.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Growth {
    /// Strictly smaller in (size, bytes, text), so the group alone cannot cycle.
    #[default]
    Never,
    /// Smaller in size itself, not only in bytes or text: an edit that keeps the size (for
    /// Python, `break` → `pass`) makes the output no smaller and often harder to read.
    NeverInSize,
    /// Candidates may grow (canonicalizations): never beyond the original's size, never back to
    /// a text that was current once, and only within a budget of sites (the number of sites of
    /// the text the group's first search starts from).
    Budgeted,
}

/// One group of a language, as data: what the text layer needs to search it.
#[derive(Clone)]
pub struct GroupSpec<G> {
    /// The group (handed back to [`Language::prepare`](crate::Language::prepare)).
    pub group: G,
    /// Its stable name (pass name in logs and statistics).
    pub name: &'static str,
    /// How its sites are searched.
    pub search: SearchSpec<G>,
    /// Searched level by level (HDD: sites inside other sites of the list wait for the outer
    /// ones) under this policy; `None`: flat.
    pub levels: Option<LevelPolicy>,
    /// Leave out single sites that already failed alone in an earlier search of any group with
    /// this flag (a changed neighbourhood gives a site a new identity).
    pub skip_failed: bool,
    /// Which candidates may be proposed.
    pub growth: Growth,
    /// The identities of a text's sites of this group (every site, in text order) across
    /// texts, for skipping those that failed alone. `None`: the kind, replacement, replaced
    /// text and whole line(s) of a site ([`line_identity`](crate::line_identity)), so any change
    /// on its lines makes it new.
    pub identities: Option<SiteKeys>,
    /// A key of a text such that a search of this group that accepted nothing on one text would
    /// accept nothing on any other text with the same key either (e.g. the token sequence with
    /// identifiers numbered by first occurrence); such a search is not repeated. `None`: always
    /// searched.
    pub fruitless: Option<TextKey>,
    /// The group's sites are tried once more before the reduction ends: when a round changed
    /// nothing, the fixpoint check (`confirm`) searches the group as a fresh reduction of the
    /// text would (without the sites skipped for failing on an earlier text, fruitless keys or
    /// learned priors), then sweeps its sites one at a time without
    /// [`Prepared::admissible`](crate::Prepared::admissible)'s guess (a static guess may order
    /// candidates, never forbid one the predicate can judge). What it accepts starts another
    /// round, so the result is a text on which no single site of these groups is interesting.
    pub confirm: bool,
}

impl<G> GroupSpec<G> {
    /// A group named `name` searched by `search`, flat, no skipping, never growing, identified
    /// by lines, always searched.
    pub fn new(group: G, name: &'static str, search: SearchSpec<G>) -> Self {
        GroupSpec {
            group,
            name,
            search,
            levels: None,
            skip_failed: false,
            growth: Growth::Never,
            identities: None,
            fruitless: None,
            confirm: false,
        }
    }

    /// [`GroupSpec::new`] searched with ProbDD at its defaults.
    pub fn probdd(group: G, name: &'static str) -> Self {
        Self::new(group, name, SearchSpec::ProbDd(ProbDdSpec::default()))
    }

    /// Searched level by level under `levels`.
    pub fn levels(self, levels: LevelPolicy) -> Self {
        GroupSpec {
            levels: Some(levels),
            ..self
        }
    }

    /// Leaves out single sites that failed alone (when `on`).
    pub fn skip_failed(self, on: bool) -> Self {
        GroupSpec {
            skip_failed: on,
            ..self
        }
    }

    /// Proposes the candidates `growth` allows.
    pub fn growth(self, growth: Growth) -> Self {
        GroupSpec { growth, ..self }
    }

    /// Identifies sites across texts by `keys`.
    pub fn identities(self, keys: SiteKeys) -> Self {
        GroupSpec {
            identities: Some(keys),
            ..self
        }
    }

    /// Does not repeat a fruitless search on a text with the same `key`.
    pub fn fruitless(self, key: Option<TextKey>) -> Self {
        GroupSpec {
            fruitless: key,
            ..self
        }
    }

    /// Checked once more, without memory or guess, before the reduction ends (when `on`).
    pub fn confirm(self, on: bool) -> Self {
        GroupSpec {
            confirm: on,
            ..self
        }
    }

    /// The ProbDD settings, when searched with ProbDD.
    pub fn probdd_spec(&self) -> Option<&ProbDdSpec<G>> {
        match &self.search {
            SearchSpec::ProbDd(spec) => Some(spec),
            SearchSpec::Ddmin | SearchSpec::Sweep | SearchSpec::Bisect => None,
        }
    }

    /// The same spec for the group `to(group)` (and its prior fallback likewise), e.g. a
    /// fallback language's group wrapped by a syntax-aware language.
    pub fn map<H>(self, to: impl Fn(G) -> H) -> GroupSpec<H> {
        let search = match self.search {
            SearchSpec::ProbDd(spec) => SearchSpec::ProbDd(ProbDdSpec {
                max_size: spec.max_size,
                learns_prior: spec.learns_prior,
                max_prior: spec.max_prior,
                prior_fallback: spec.prior_fallback.map(&to),
            }),
            SearchSpec::Ddmin => SearchSpec::Ddmin,
            SearchSpec::Sweep => SearchSpec::Sweep,
            SearchSpec::Bisect => SearchSpec::Bisect,
        };
        GroupSpec {
            group: to(self.group),
            name: self.name,
            search,
            levels: self.levels,
            skip_failed: self.skip_failed,
            growth: self.growth,
            identities: self.identities,
            fruitless: self.fruitless,
            confirm: self.confirm,
        }
    }
}

impl<G: fmt::Debug> fmt::Debug for GroupSpec<G> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("GroupSpec")
            .field("group", &self.group)
            .field("name", &self.name)
            .field("search", &self.search)
            .field("levels", &self.levels)
            .field("skip_failed", &self.skip_failed)
            .field("growth", &self.growth)
            .field("identities", &self.identities.is_some())
            .field("fruitless", &self.fruitless.is_some())
            .field("confirm", &self.confirm)
            .finish()
    }
}
