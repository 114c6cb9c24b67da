//! A tree-sitter grammar on top of a language-independent [`Language`] (the fallback, e.g.
//! `minrepro file`'s token/line passes): the syntax group first (deletions and hoistings from
//! the parse tree, level by level, a level re-swept while it accepts something where the grammar
//! asks for it, no deeper than two fruitless levels in a row once something was accepted), then
//! the fallback's groups. Every candidate of the syntax group is re-parsed and refused (never
//! run) when it has more `ERROR`/`MISSING` nodes than the text it was made from. The
//! fallback's candidates are checked the same way only on request
//! ([`SyntaxAware::checking_fallback`]): the smallest texts that still reproduce a compiler's
//! message are often not well-formed (C-Reduce's and C-Vise's results rarely are). Checked,
//! the bench's `c_warning` ends at 25 tokens in 174 runs instead of 19 in 234, `rust_mismatch`
//! at 17 in 89 instead of 15 in 185: fewer runs, larger results. Sizes are the fallback's.

use std::borrow::Cow;
use std::sync::Arc;

use minrepro_text::{splice, EncodeError, Language, LevelPolicy, Policy, Prepared, Site, SiteInfo};

use crate::facts::Facts;
use crate::grammars::Grammar;
use crate::sites::{Listing, LITERAL};
use crate::GrammarError;

/// ProbDD's starting probability that a deferred site is needed (see [`Prepared::priors`]):
/// above every undecided site's at first, so it is tried after them and alone. On the bench's
/// `c_wrong_value`, 0.9 reached C-Vise's size 14 runs earlier than 0.6, and 0.35 (sets of a
/// few deferred sites) made `generated_large` longer (RESULTS.md, "Sixth round").
pub const DEFERRED_PRIOR: f64 = 0.9;

/// A group of [`SyntaxAware`]: the syntax sites, or one of the fallback's groups.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Group<G> {
    /// Chains of nodes nested in nodes of the same kind, each cut by bisection over its depth
    /// (`crate::depth`), first: each costs about log2 of its depth in runs.
    Depth,
    /// Deletions and hoistings from the parse tree.
    Syntax,
    /// The outermost of those sites again, right after the syntax group: what the syntax
    /// group's inner edits freed (a function whose last use a hoisting removed) goes before
    /// the finer groups chip at it.
    Outer,
    /// The C-like grammars' rewrites (a function inlined, an aggregate made scalars: see
    /// `crate::rewrites`), each alone, right after the syntax groups: they need a text that
    /// still parses as C, which the fallback's token edits soon make it not.
    Rewrites,
    /// A group of the fallback language whose candidates are re-parsed, right after the syntax
    /// group (see [`SyntaxAware::checking_early`]).
    Checked(G),
    /// A group of the fallback language.
    Other(G),
}

/// A grammar with its facts.
#[derive(Debug)]
pub struct Syntax {
    /// The grammar.
    pub grammar: &'static Grammar,
    /// Its node-types facts.
    pub facts: Facts,
}

impl Syntax {
    /// The grammar with its facts read.
    pub fn new(grammar: &'static Grammar) -> Result<Syntax, GrammarError> {
        grammar.parser()?;
        Ok(Syntax {
            grammar,
            facts: Facts::parse(grammar.node_types)?,
        })
    }

    /// A parse of `text` (`None` only if the parser gives up, which it does not without a
    /// timeout or cancellation flag).
    pub fn parse(&self, text: &str) -> Option<tree_sitter::Tree> {
        self.grammar.parser().ok()?.parse(text, None)
    }

    /// The depth sites of `text` (none for an unparsable text).
    pub fn depth(&self, text: &str) -> Listing {
        let sites = self
            .parse(text)
            .map(|tree| crate::depth::depth_sites(&tree));
        Listing::plain(sites.unwrap_or_default())
    }

    /// The C-like rewrite sites of `text` (none for other grammars or an unparsable text).
    pub fn rewrites(&self, text: &str) -> Listing {
        match self.parse(text).filter(|_| self.grammar.rewrites) {
            Some(tree) => Listing::plain(crate::rewrites::rewrite_sites(&tree, text)),
            None => Listing::default(),
        }
    }

    /// The number of `ERROR` and `MISSING` nodes of `text`'s parse (`usize::MAX` when it cannot
    /// be parsed).
    pub fn errors(&self, text: &str) -> usize {
        self.parse(text)
            .map_or(usize::MAX, |tree| error_count(&tree))
    }

    /// The syntax sites of `text`.
    pub fn listing(&self, text: &str) -> Listing {
        match self.parse(text) {
            Some(tree) => Listing::new(&tree, text, &self.facts, self.grammar),
            None => Listing::default(),
        }
    }
}

/// The number of `ERROR` and `MISSING` nodes of `tree`.
pub fn error_count(tree: &tree_sitter::Tree) -> usize {
    let root = tree.root_node();
    if !root.has_error() {
        return 0;
    }
    let mut count = 0;
    let mut stack = vec![root];
    while let Some(node) = stack.pop() {
        if node.is_error() || node.is_missing() {
            count += 1;
        }
        if node.has_error() {
            let mut cursor = node.walk();
            stack.extend(node.children(&mut cursor));
        }
    }
    count
}

/// A language-independent language refined by a grammar.
#[derive(Debug, Clone)]
pub struct SyntaxAware<F> {
    syntax: Arc<Syntax>,
    fallback: F,
    /// Whether the fallback's candidates are re-parsed too.
    check_fallback: bool,
    /// Fallback groups (by name) also searched, checked, right after the syntax group, with
    /// the names of those searches.
    early: &'static [(&'static str, &'static str)],
}

impl<F> SyntaxAware<F> {
    /// `fallback` refined by `grammar`.
    pub fn new(grammar: &'static Grammar, fallback: F) -> Result<Self, GrammarError> {
        Ok(SyntaxAware {
            syntax: Arc::new(Syntax::new(grammar)?),
            fallback,
            check_fallback: false,
            early: &[],
        })
    }

    /// Also refuses the fallback groups' candidates with more syntax errors (off by default).
    pub fn checking_fallback(self, on: bool) -> Self {
        SyntaxAware {
            check_fallback: on,
            ..self
        }
    }

    /// Also searches the fallback groups named in `early` (fallback name, name of the checked
    /// search) right after the syntax group, their candidates re-parsed like the syntax
    /// group's: the edits of those groups that keep the parse as clean (`println!(..)` →
    /// `(..)`) are found before the unchecked groups, and every other candidate is refused
    /// without a run. The unchecked groups still come later, in their place.
    pub fn checking_early(self, early: &'static [(&'static str, &'static str)]) -> Self {
        SyntaxAware { early, ..self }
    }

    /// The grammar.
    pub fn grammar(&self) -> &'static Grammar {
        self.syntax.grammar
    }
}

/// What a prepared text of a group holds besides the common part.
#[derive(Debug)]
enum Sites<P> {
    /// The syntax sites.
    Syntax(Listing),
    /// The fallback's prepared text.
    Other(P),
}

/// A text prepared for one group of [`SyntaxAware`].
#[derive(Debug)]
pub struct PreparedSyntax<F: Language> {
    source: String,
    size: usize,
    /// `ERROR`/`MISSING` nodes of the source: a checked candidate may not have more.
    errors: usize,
    /// Whether candidates are re-parsed (always in the syntax group).
    checked: bool,
    syntax: Arc<Syntax>,
    fallback: F,
    sites: Sites<F::Prepared>,
}

impl<F> Prepared for PreparedSyntax<F>
where
    F: Language + Clone,
    F::Prepared: Prepared<Site = Site, Edited = String>,
{
    type Site = Site;
    type Edited = String;

    fn source(&self) -> &str {
        &self.source
    }

    fn sites(&self) -> &[Site] {
        match &self.sites {
            Sites::Syntax(listing) => &listing.sites,
            Sites::Other(prepared) => prepared.sites(),
        }
    }

    fn retain_sites(&mut self, keep: &mut dyn FnMut(&Site) -> bool) {
        match &mut self.sites {
            Sites::Syntax(listing) => listing.sites.retain(|s| keep(s)),
            Sites::Other(prepared) => prepared.retain_sites(keep),
        }
    }

    fn size(&self) -> usize {
        self.size
    }

    fn info(site: &Site) -> SiteInfo<'_> {
        site.info()
    }

    fn apply(&self, selected: &[&Site]) -> String {
        match &self.sites {
            Sites::Syntax(listing) => {
                let removals = listing.removals(selected);
                let plain: Vec<&Site> = removals.iter().map(Cow::as_ref).collect();
                splice(&self.source, &plain)
            }
            Sites::Other(prepared) => prepared.apply(selected),
        }
    }

    fn check(&self, edited: &String) -> Option<usize> {
        if self.checked && self.syntax.errors(edited) > self.errors {
            return None;
        }
        match &self.sites {
            Sites::Syntax(_) => Some(self.fallback.size(edited)),
            Sites::Other(prepared) => prepared.check(edited),
        }
    }

    fn priors(&self, prior: f64) -> Vec<f64> {
        match &self.sites {
            // Deferred: a deletion that likely leaves a name undeclared, and a name replaced by
            // a literal (it keeps an error's shape but mostly changes what a program
            // computes).
            Sites::Syntax(listing) => {
                let deferred = prior.max(DEFERRED_PRIOR);
                let of = |site: &Site| {
                    if listing.is_deferred(site) || site.kind == LITERAL {
                        deferred
                    } else {
                        prior
                    }
                };
                listing.sites.iter().map(of).collect()
            }
            Sites::Other(prepared) => prepared.priors(prior),
        }
    }

    fn admissible(&self, edited: &String, judged: Option<&Self>) -> bool {
        match (&self.sites, judged.map(|j| &j.sites)) {
            (Sites::Other(prepared), Some(Sites::Other(judged))) => {
                prepared.admissible(edited, Some(judged))
            }
            (Sites::Other(prepared), None) => prepared.admissible(edited, None),
            _ => true,
        }
    }
}

impl<F> Language for SyntaxAware<F>
where
    F: Language + Clone,
    F::Prepared: Prepared<Site = Site, Edited = String>,
{
    type Group = Group<F::Group>;
    type Prepared = PreparedSyntax<F>;

    fn groups(&self) -> Vec<Self::Group> {
        let fallback = self.fallback.groups();
        let mut groups = vec![Group::Depth, Group::Syntax, Group::Outer];
        if self.syntax.grammar.rewrites {
            groups.push(Group::Rewrites);
        }
        for (name, _) in self.early {
            let found = fallback
                .iter()
                .find(|g| self.fallback.group_name(**g) == *name);
            groups.extend(found.map(|g| Group::Checked(*g)));
        }
        groups.extend(fallback.into_iter().map(Group::Other));
        groups
    }

    fn group_name(&self, group: Self::Group) -> &'static str {
        match group {
            Group::Depth => "syntax-depth",
            Group::Syntax => "syntax",
            Group::Outer => "syntax-outer",
            Group::Rewrites => "syntax-rewrites",
            Group::Checked(group) => {
                let name = self.fallback.group_name(group);
                self.early
                    .iter()
                    .find(|(fallback, _)| *fallback == name)
                    .map_or(name, |(_, checked)| checked)
            }
            Group::Other(group) => self.fallback.group_name(group),
        }
    }

    fn policy(&self, group: Self::Group) -> Policy {
        match group {
            // Nested like the tree: outer nodes first (HDD).
            Group::Syntax => Policy {
                probdd: true,
                levels: true,
                ..Policy::default()
            },
            // Failed alone on an unchanged text: not tried again by this group (the syntax
            // group still tries it, level 0 first, in the next round).
            Group::Outer => Policy {
                probdd: true,
                skip_failed: true,
                ..Policy::default()
            },
            Group::Depth => Policy::default(),
            // Failed on an unchanged neighbourhood: not tried again.
            Group::Rewrites => Policy {
                skip_failed: true,
                ..Policy::default()
            },
            Group::Checked(group) | Group::Other(group) => self.fallback.policy(group),
        }
    }

    fn level_policy(&self, group: Self::Group) -> LevelPolicy {
        match group {
            // Level by level, a level searched again while it accepts something (a function
            // whose last call an accepted deletion removed goes before the search descends into
            // it), and no deeper than two levels in a row that accepted nothing while the
            // search has accepted something (the groups after it run first; the next round
            // descends further). Measured on the bench's cases (RESULTS.md, "Fourth round");
            // the re-sweep is the grammar's choice (`Grammar::resweep`, "Fifth round").
            Group::Syntax => LevelPolicy {
                resweep: self.syntax.grammar.resweep,
                stop_after_fruitless: Some(2),
            },
            Group::Depth | Group::Outer | Group::Rewrites => LevelPolicy::default(),
            Group::Checked(group) | Group::Other(group) => self.fallback.level_policy(group),
        }
    }

    /// The fallback's sweeps (its groups of before are searched with ProbDD; the word
    /// substitutions, which it offers on small texts, are swept).
    fn sweeps(&self, group: Self::Group) -> bool {
        match group {
            Group::Depth | Group::Syntax | Group::Outer => false,
            Group::Rewrites => true,
            Group::Checked(group) | Group::Other(group) => self.fallback.sweeps(group),
        }
    }

    fn bisects(&self, group: Self::Group) -> bool {
        match group {
            Group::Depth => true,
            Group::Syntax | Group::Outer | Group::Rewrites => false,
            Group::Checked(group) | Group::Other(group) => self.fallback.bisects(group),
        }
    }

    fn size(&self, text: &str) -> usize {
        self.fallback.size(text)
    }

    fn size_unit(&self) -> &'static str {
        self.fallback.size_unit()
    }

    fn prepare(&self, text: &str, group: Self::Group) -> Self::Prepared {
        let sites = match group {
            Group::Depth => Sites::Syntax(self.syntax.depth(text)),
            Group::Syntax => Sites::Syntax(self.syntax.listing(text)),
            Group::Outer => Sites::Syntax(self.syntax.listing(text).outermost()),
            Group::Rewrites => Sites::Syntax(self.syntax.rewrites(text)),
            Group::Checked(group) | Group::Other(group) => {
                Sites::Other(self.fallback.prepare(text, group))
            }
        };
        let checked = !matches!(group, Group::Other(_)) || self.check_fallback;
        self.prepared(text, sites, checked)
    }

    fn prepare_current(&self, text: &str) -> Self::Prepared {
        let sites = Sites::Other(self.fallback.prepare_current(text));
        self.prepared(text, sites, self.check_fallback)
    }

    /// The fallback's key: for its own groups, and for the syntax group the key of its first
    /// group (a parse's sites, like the fallback's, depend on the text's shape, not on its
    /// names and blanks).
    fn fruitless_key(&self, text: &str, group: Self::Group) -> Option<[u8; 32]> {
        match group {
            Group::Depth | Group::Syntax | Group::Outer | Group::Rewrites => {
                let first = *self.fallback.groups().first()?;
                self.fallback.fruitless_key(text, first)
            }
            Group::Checked(group) | Group::Other(group) => self.fallback.fruitless_key(text, group),
        }
    }

    fn learns_prior(&self, group: Self::Group) -> bool {
        match group {
            Group::Syntax | Group::Outer => true,
            Group::Depth | Group::Rewrites => false,
            Group::Checked(group) | Group::Other(group) => self.fallback.learns_prior(group),
        }
    }

    fn prior_fallback(&self, group: Self::Group) -> Option<Self::Group> {
        match group {
            Group::Other(group) => self.fallback.prior_fallback(group).map(Group::Other),
            Group::Depth | Group::Syntax | Group::Outer | Group::Rewrites | Group::Checked(_) => {
                None
            }
        }
    }

    fn is_valid(&self, text: &str) -> bool {
        self.fallback.is_valid(text)
    }

    fn tidy(&self, text: &str) -> Option<(&'static str, String)> {
        let (kind, tidied) = self.fallback.tidy(text)?;
        let fine = !self.check_fallback || self.syntax.errors(&tidied) <= self.syntax.errors(text);
        fine.then_some((kind, tidied))
    }

    fn encode<'t>(&self, text: &'t str) -> Result<Cow<'t, [u8]>, EncodeError> {
        self.fallback.encode(text)
    }
}

impl<F> SyntaxAware<F>
where
    F: Language + Clone,
    F::Prepared: Prepared<Site = Site, Edited = String>,
{
    /// `text` prepared with `sites`; `checked`: its candidates are re-parsed.
    fn prepared(&self, text: &str, sites: Sites<F::Prepared>, checked: bool) -> PreparedSyntax<F> {
        let size = match &sites {
            Sites::Other(prepared) => prepared.size(),
            Sites::Syntax(_) => self.fallback.size(text),
        };
        let checked = checked || matches!(sites, Sites::Syntax(_));
        PreparedSyntax {
            source: text.to_owned(),
            size,
            errors: if checked { self.syntax.errors(text) } else { 0 },
            checked,
            syntax: Arc::clone(&self.syntax),
            fallback: self.fallback.clone(),
            sites,
        }
    }
}
