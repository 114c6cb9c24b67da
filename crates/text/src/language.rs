//! What a language supplies to the text layer: its groups of rewrites and how each is searched
//! ([`Language`]), and a text prepared for many candidates of one group ([`Prepared`]).

use std::borrow::Cow;
use std::fmt::Debug;
use std::ops::Range;

/// A text could not be turned into the file's bytes (e.g. a character its declared encoding
/// lacks).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct EncodeError(pub String);

/// How the sites of a group are searched (`--strategy`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum Strategy {
    /// Probabilistic delta debugging over the sites of the text a pass starts from.
    #[value(name = "probdd")]
    ProbDd,
    /// Complement-based ddmin, sites re-derived from the current text after every acceptance.
    Ddmin,
}

/// A group's search policy.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Policy {
    /// Whether ProbDD may search the group (under [`Strategy::ProbDd`]).
    pub probdd: bool,
    /// Largest text (in the language's size) whose sites ProbDD searches; larger texts use ddmin.
    pub probdd_max_size: Option<usize>,
    /// Search level by level (HDD): sites inside other sites of the list wait for the outer ones.
    pub levels: bool,
    /// Leave out single sites that already failed alone in an earlier search of any group with
    /// this flag (a changed line gives a site a new identity).
    pub skip_failed: bool,
    /// Candidates may grow (canonicalizations): never beyond the original's size, never back to
    /// a text that was current once, and only within a budget of sites (the number of sites of
    /// the text the group's first search starts from). Otherwise a candidate must be strictly
    /// smaller in (size, bytes, text).
    pub may_grow: bool,
    /// Candidates must be smaller in size itself, not only in bytes or text: an edit that keeps
    /// the size (for Python, `break` → `pass` or an operand wrapped in parentheses) makes the
    /// output no smaller and often harder to read.
    pub shrink_size: bool,
}

/// How a group searched level by level ([`Policy::levels`]) moves between levels (see
/// [`Language::level_policy`]). The default is plain HDD: each level once, outermost first,
/// down to the deepest.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct LevelPolicy {
    /// A level whose search accepted something is searched again, on the new text, before the
    /// next level: ProbDD and ddmin never try again a site they found needed, and an edit
    /// accepted later at the same level can free it (a function that only a deleted statement
    /// called). The sites that failed alone since the level's last acceptance are left out
    /// (the text has not changed since: they would fail again).
    pub resweep: bool,
    /// A search that has accepted something stops descending after this many consecutive
    /// levels that accepted nothing: the engine's next round searches the group again from the
    /// outermost level, and the groups after it get their turn first. A search that has
    /// accepted nothing goes down to the deepest level, so a round that changes nothing has
    /// searched every level (the fixpoint is the same as without the stop). `None`: never.
    pub stop_after_fruitless: Option<usize>,
}

/// What the text layer needs to know about one site: a byte range of the text and what replaces
/// it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SiteInfo<'a> {
    /// The kind of edit, e.g. `remove-statement` (logged).
    pub kind: &'a str,
    /// Byte range of the text the site replaces.
    pub range: Range<usize>,
    /// The replacement text.
    pub replacement: &'a str,
}

/// A plain site for languages that need nothing more (see the crate documentation).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Site {
    /// The kind of edit (logged).
    pub kind: &'static str,
    /// Byte range of the text the site replaces.
    pub range: Range<usize>,
    /// The replacement text.
    pub replacement: String,
}

impl Site {
    /// The site as the text layer sees it.
    pub fn info(&self) -> SiteInfo<'_> {
        SiteInfo {
            kind: self.kind,
            range: self.range.clone(),
            replacement: &self.replacement,
        }
    }
}

/// `text` with the `selected` sites replaced; the sites must not overlap and are applied in the
/// order of their starts.
pub fn splice(text: &str, selected: &[&Site]) -> String {
    let mut sorted: Vec<&Site> = selected.to_vec();
    sorted.sort_by_key(|s| (s.range.start, s.range.end));
    let mut out = String::with_capacity(text.len());
    let mut at = 0;
    for site in sorted {
        if site.range.start < at || site.range.end > text.len() {
            continue; // overlaps an earlier site: left out
        }
        out.push_str(&text[at..site.range.start]);
        out.push_str(&site.replacement);
        at = site.range.end;
    }
    out.push_str(&text[at..]);
    out
}

/// The text without whitespace-only lines, for a language's [`Language::tidy`]; a byte order mark
/// stays at the start (a first line holding only the mark counts as blank).
pub fn without_blank_lines(text: &str) -> String {
    let (bom, body) = match text.strip_prefix('\u{feff}') {
        Some(rest) => ("\u{feff}", rest),
        None => ("", text),
    };
    let lines = body
        .split_inclusive('\n')
        .filter(|line| !line.trim().is_empty());
    std::iter::once(bom).chain(lines).collect()
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

/// What a language supplies: its groups of rewrites, each group's search policy, its size
/// measure, how to prepare a text, and optionally a tidy last candidate and a file encoding.
pub trait Language: Send + Sync + 'static {
    /// A group of rewrites: one pass each, in [`Language::groups`] order.
    type Group: Copy + Eq + Debug + Send + Sync + 'static;
    /// A text prepared for the candidates of one group.
    type Prepared: Prepared;

    /// The groups, in round order.
    fn groups(&self) -> Vec<Self::Group>;
    /// A group's stable name (pass name in logs and statistics).
    fn group_name(&self, group: Self::Group) -> &'static str;
    /// How a group's sites are searched.
    fn policy(&self, group: Self::Group) -> Policy;
    /// For a group searched level by level: how the search moves between levels (plain HDD
    /// by default).
    fn level_policy(&self, _group: Self::Group) -> LevelPolicy {
        LevelPolicy::default()
    }
    /// Whether a group's sites are tried one at a time in list order, the sweep going on at the
    /// same position of the new text's list after an acceptance (C-Vise's `rm-toks-N`), instead
    /// of ProbDD or ddmin: for sites listed so that those before an applied one stay the same
    /// (runs of N tokens at every position). `false` by default.
    fn sweeps(&self, _group: Self::Group) -> bool {
        false
    }
    /// Whether a group's sites are the levels of chains of nested nodes
    /// ([`depth_sites`](crate::depth_sites)), each chain cut by bisection over how many of its
    /// outer levels go, instead of searched with ProbDD or ddmin. `false` by default.
    fn bisects(&self, _group: Self::Group) -> bool {
        false
    }
    /// The size of `text` (tokens, lines, …): what the reduction makes smaller.
    fn size(&self, text: &str) -> usize;
    /// The unit of [`Language::size`] in progress lines and statistics.
    fn size_unit(&self) -> &'static str {
        "tokens"
    }
    /// `text` prepared with its sites of `group`.
    fn prepare(&self, text: &str, group: Self::Group) -> Self::Prepared;
    /// `text` prepared (sites not needed) as the current text candidates of another base are
    /// judged against by [`Prepared::admissible`].
    fn prepare_current(&self, text: &str) -> Self::Prepared;
    /// The number of sites of `group` in `text` (by default, by preparing it).
    fn count_sites(&self, text: &str, group: Self::Group) -> usize {
        self.prepare(text, group).sites().len()
    }
    /// A key of `text` for `group` such that a search of `group` that accepted nothing on one
    /// text would accept nothing on any other text with the same key either (e.g. the token
    /// sequence with identifiers numbered by first occurrence, unchanged by renames and
    /// whitespace edits). Such a search is not repeated. `None` (the default): always searched.
    fn fruitless_key(&self, _text: &str, _group: Self::Group) -> Option<[u8; 32]> {
        None
    }
    /// The identities of `sites` (every site of `group` in `text`, in text order) across texts,
    /// for the groups that skip single sites that failed alone ([`Policy::skip_failed`]): a site
    /// whose identity failed alone once is left out of later searches. By default
    /// ([`line_identity`](crate::line_identity)) a site's kind, replacement, replaced text and
    /// the whole line(s) it sits on, so any change on its lines makes it new.
    fn site_identities(
        &self,
        text: &str,
        _group: Self::Group,
        sites: &[SiteInfo<'_>],
    ) -> Vec<[u8; 32]> {
        sites
            .iter()
            .map(|site| crate::candidate::line_identity(text, site))
            .collect()
    }
    /// Whether a group's ProbDD searches start from the share of its sites that its previous
    /// search kept (at least the usual prior, at most one half), instead of the usual prior:
    /// after the first round most sites are needed, and sets sized for a prior of 0.1 mostly
    /// fail. `false` (the default): the usual prior always.
    fn learns_prior(&self, _group: Self::Group) -> bool {
        false
    }
    /// For a group that learns its prior: the highest prior it learns. One half by default
    /// (ProbDD then tries single sites); lower keeps sets of a few neighbouring sites for edits
    /// that need several at once.
    fn max_prior(&self, _group: Self::Group) -> f64 {
        crate::searches::PROBDD_MAX_PRIOR
    }
    /// For a group that learns its prior: the group whose last kept share its first search
    /// starts from (e.g. the lines one nesting level up: where most top-level forms were
    /// needed, most of their statements usually are too). `None` (the default): the usual
    /// prior.
    fn prior_fallback(&self, _group: Self::Group) -> Option<Self::Group> {
        None
    }
    /// Whether `text` is a valid text of the language.
    fn is_valid(&self, text: &str) -> bool;
    /// A cosmetic last candidate (e.g. without blank lines) and its kind of edit (logged),
    /// judged like any other when it is smaller and valid; `None` (the default) for none.
    fn tidy(&self, _text: &str) -> Option<(&'static str, String)> {
        None
    }
    /// The cosmetic last candidates, tried in order until one is interesting (e.g. every
    /// whitespace normalisation at once, then only without blank lines): by default the one
    /// [`Language::tidy`] candidate.
    fn tidy_steps(&self, text: &str) -> Vec<(&'static str, String)> {
        self.tidy(text).into_iter().collect()
    }
    /// Extra counters for `--stats-json` (e.g. the cost of runs that are not predicate runs);
    /// none by default.
    fn extra_stats(&self) -> Vec<(&'static str, serde_json::Value)> {
        Vec::new()
    }
    /// The file's bytes for `text` (UTF-8 by default).
    fn encode<'t>(&self, text: &'t str) -> Result<Cow<'t, [u8]>, EncodeError> {
        Ok(Cow::Borrowed(text.as_bytes()))
    }
}

/// The ordering key of a candidate: size, then bytes, then the text itself (so that every
/// strictly decreasing sequence of candidates is finite).
pub fn size_key(size: usize, text: &str) -> (usize, usize, &str) {
    (size, text.len(), text)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn splice_applies_sites_in_text_order_and_skips_overlaps() {
        let site = |range: Range<usize>, replacement: &str| Site {
            kind: "k",
            range,
            replacement: replacement.to_owned(),
        };
        let (a, b, c) = (site(4..5, "X"), site(0..1, ""), site(4..6, "Y"));
        assert_eq!(splice("abcdefg", &[&a, &b]), "bcdXfg");
        assert_eq!(splice("abcdefg", &[&a, &c]), "abcdXfg");
        assert_eq!(splice("abc", &[]), "abc");
    }

    #[test]
    fn blank_lines_go_but_a_byte_order_mark_stays_first() {
        assert_eq!(
            without_blank_lines("a = 1\n\n  \r\nb = 2\n"),
            "a = 1\nb = 2\n"
        );
        assert_eq!(
            without_blank_lines("\u{feff}\r\nraise E\r\n"),
            "\u{feff}raise E\r\n"
        );
        assert_eq!(without_blank_lines("\u{feff}x\n\n"), "\u{feff}x\n");
    }
}
