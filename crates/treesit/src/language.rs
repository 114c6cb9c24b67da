//! A tree-sitter grammar on top of a language-independent [`Language`] (the fallback, e.g.
//! `minrepro file`'s token/line passes): the syntax group first (deletions and hoistings from
//! the parse tree, level by level, a level re-swept while it accepts something where the grammar
//! asks for it, no deeper than two fruitless levels in a row once something was accepted), then
//! the fallback's groups. Every candidate of the syntax group is re-parsed and refused (never
//! run) when it has more `ERROR`/`MISSING` nodes than the text it was made from. The
//! fallback's candidates are not re-parsed (but for the early groups, see
//! [`SyntaxAware::checking_early`]): the smallest texts that still reproduce a compiler's message are
//! often not well-formed (C-Reduce's and C-Vise's results rarely are), so refusing broken ones
//! trades larger results for fewer runs (measured in bench/text). Sizes are the
//! fallback's.

use std::borrow::Cow;
use std::sync::{Arc, Mutex};

use minrepro_text::{
    splice_spans, EncodeError, Encoded, GroupSpec, Language, LevelPolicy, Prepared, ProbDdSpec,
    SearchSpec, Site, SiteInfo, SplicedSpan,
};

use crate::facts::Facts;
use crate::grammars::Grammar;
use crate::parses::{EditedSyntax, RecentParses};
use crate::reparse::error_count;
use crate::sites::{Listing, LITERAL};
use crate::GrammarError;

/// ProbDD's starting probability that a deferred site is needed (see [`Prepared::priors`]):
/// above every undecided site's at first, so it is tried after them and alone: a deferred
/// site usually fails, and one failing site in a set wastes the run for every other site in
/// it, so its expected gain is highest alone (the priors compared are measured in bench/text).
pub const DEFERRED_PRIOR: f64 = 0.9;

/// A group of [`SyntaxAware`]: the syntax sites, or one of the fallback's groups.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Group<G> {
    /// The C-like grammars' coarse cuts, before the syntax group (`crate::coarse`): whole
    /// definitions at namespace scope, function bodies made `;`.
    Coarse,
    /// Chains of nodes nested in nodes of the same kind, each cut by bisection over its depth
    /// (`crate::depth`), right after the coarse cuts: each costs about log2 of its depth in runs.
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
pub struct LoadedGrammar {
    /// The grammar.
    pub grammar: &'static Grammar,
    /// Its node-types facts.
    pub facts: Facts,
}

impl LoadedGrammar {
    /// The grammar with its facts read.
    pub fn new(grammar: &'static Grammar) -> Result<LoadedGrammar, GrammarError> {
        grammar.parser()?;
        Ok(LoadedGrammar {
            grammar,
            facts: Facts::parse(grammar.node_types)?,
        })
    }

    /// A parse of `text` (`None` only if the parser gives up, which it does not without a
    /// timeout or cancellation flag).
    pub fn parse(&self, text: &str) -> Option<tree_sitter::Tree> {
        self.grammar.parser().ok()?.parse(text, None)
    }

    /// A parse of `edited` that reuses `tree`, the parse of `source` (see `crate::reparse`):
    /// what a fresh parse gives, at the cost of the span the edit changed.
    pub fn reparse(
        &self,
        tree: &tree_sitter::Tree,
        source: &str,
        edited: &str,
    ) -> Option<tree_sitter::Tree> {
        let old = crate::reparse::edited_tree(tree, source, edited);
        self.grammar.parser().ok()?.parse(edited, Some(&old))
    }

    /// [`reparse`](Self::reparse) when `edited` is `source` with `spans` replaced (see
    /// `crate::reparse::tree_edited_by`): what is kept between the spans is reused too.
    pub fn reparse_spans(
        &self,
        tree: &tree_sitter::Tree,
        source: &str,
        edited: &str,
        spans: &[SplicedSpan],
    ) -> Option<tree_sitter::Tree> {
        let old = crate::reparse::tree_edited_by(tree, source, edited, spans);
        self.grammar.parser().ok()?.parse(edited, Some(&old))
    }

    /// The C-like rewrite sites of `text` (none for other grammars or an unparsable text).
    pub fn rewrites(&self, text: &str) -> Listing {
        self.rewrites_of(self.parse(text).as_ref(), text)
    }

    /// The number of `ERROR` and `MISSING` nodes of `text`'s parse (`usize::MAX` when it cannot
    /// be parsed).
    pub fn errors(&self, text: &str) -> usize {
        self.parse(text)
            .map_or(usize::MAX, |tree| error_count(&tree))
    }

    /// The coarse sites of `text` (none for grammars without C's rewrites).
    pub fn coarse(&self, text: &str) -> Listing {
        self.coarse_of(self.parse(text).as_ref(), text)
    }

    /// The syntax sites of `text`.
    pub fn listing(&self, text: &str) -> Listing {
        self.listing_of(self.parse(text).as_ref(), text)
    }

    /// [`rewrites`](Self::rewrites) from `text`'s parse `tree`.
    fn rewrites_of(&self, tree: Option<&tree_sitter::Tree>, text: &str) -> Listing {
        match tree.filter(|_| self.grammar.rewrites) {
            Some(tree) => Listing::plain(crate::rewrites::rewrite_sites(tree, text)),
            None => Listing::default(),
        }
    }

    /// [`coarse`](Self::coarse) from `text`'s parse `tree`.
    fn coarse_of(&self, tree: Option<&tree_sitter::Tree>, text: &str) -> Listing {
        match tree.filter(|_| self.grammar.rewrites) {
            Some(tree) => crate::coarse::coarse_listing(tree, text),
            None => Listing::default(),
        }
    }

    /// The depth sites of `text`'s parse `tree` (none for an unparsable text).
    fn depth_of(&self, tree: Option<&tree_sitter::Tree>) -> Listing {
        Listing::plain(tree.map(crate::depth::depth_sites).unwrap_or_default())
    }

    /// [`listing`](Self::listing) from `text`'s parse `tree`.
    fn listing_of(&self, tree: Option<&tree_sitter::Tree>, text: &str) -> Listing {
        match tree {
            Some(tree) => Listing::new(tree, text, &self.facts, self.grammar),
            None => Listing::default(),
        }
    }
}

/// A language-independent language refined by a grammar.
#[derive(Debug, Clone)]
pub struct SyntaxAware<F: Language> {
    syntax: Arc<LoadedGrammar>,
    fallback: F,
    /// Fallback groups also searched, checked, right after the syntax group, with the names of
    /// those searches.
    early: Vec<(F::Group, &'static str)>,
    /// The last text prepared and its parse: the next text to prepare is mostly that one with
    /// an accepted candidate's edits, so its parse starts from this tree (`crate::reparse`).
    last_parse: Arc<Mutex<Option<(String, tree_sitter::Tree)>>>,
    /// The parses of the last candidates checked: the next text prepared is mostly one of them.
    checked_parses: Arc<RecentParses>,
}

impl<F: Language> SyntaxAware<F> {
    /// `fallback` refined by `grammar`.
    pub fn new(grammar: &'static Grammar, fallback: F) -> Result<Self, GrammarError> {
        Ok(SyntaxAware {
            syntax: Arc::new(LoadedGrammar::new(grammar)?),
            fallback,
            early: Vec::new(),
            last_parse: Arc::default(),
            checked_parses: Arc::default(),
        })
    }

    /// Also searches the fallback groups in `early` (fallback group, name of the checked search)
    /// right after the syntax group, their candidates re-parsed like the syntax
    /// group's: the edits of those groups that keep the parse as clean (`println!(..)` →
    /// `(..)`) are found before the unchecked groups, and every other candidate is refused
    /// without a run. The unchecked groups still come later, in their place.
    pub fn checking_early(self, early: Vec<(F::Group, &'static str)>) -> Self {
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
    /// The source's parse, when candidates are checked: each candidate's re-parse starts from
    /// it.
    tree: Option<tree_sitter::Tree>,
    /// Whether candidates are re-parsed (always in the syntax group).
    checked: bool,
    /// Where the parses of candidates that pass the check go.
    checked_parses: Arc<RecentParses>,
    syntax: Arc<LoadedGrammar>,
    fallback: F,
    sites: Sites<F::Prepared>,
}

impl<F> Prepared for PreparedSyntax<F>
where
    F: Language + Clone,
    F::Prepared: Prepared<Site = Site, Edited = String>,
{
    type Site = Site;
    type Edited = EditedSyntax;

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

    fn apply(&self, selected: &[&Site]) -> EditedSyntax {
        match &self.sites {
            Sites::Syntax(listing) => {
                let removals = listing.removals(selected);
                let plain: Vec<&Site> = removals.iter().map(Cow::as_ref).collect();
                let (text, spans) = splice_spans(&self.source, &plain);
                EditedSyntax {
                    text,
                    spans: Some(spans),
                }
            }
            Sites::Other(prepared) => prepared.apply(selected).into(),
        }
    }

    fn check(&self, edited: &EditedSyntax) -> Option<usize> {
        if self.checked && !self.parses_as_cleanly(edited) {
            return None;
        }
        match &self.sites {
            Sites::Syntax(_) => Some(self.fallback.size(&edited.text)),
            Sites::Other(prepared) => prepared.check(&edited.text),
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

    fn admissible(&self, edited: &EditedSyntax, judged: Option<&Self>) -> bool {
        let edited = &edited.text;
        match (&self.sites, judged.map(|j| &j.sites)) {
            (Sites::Other(prepared), Some(Sites::Other(judged))) => {
                prepared.admissible(edited, Some(judged))
            }
            (Sites::Other(prepared), None) => prepared.admissible(edited, None),
            _ => true,
        }
    }
}

impl<F: Language> PreparedSyntax<F> {
    /// Whether `edited`, a candidate made from the source, has no more `ERROR` and `MISSING`
    /// nodes than the source; its parse is then remembered for the prepare that may follow.
    fn parses_as_cleanly(&self, edited: &EditedSyntax) -> bool {
        let text = &edited.text;
        let tree = match (&self.tree, &edited.spans) {
            (Some(tree), Some(spans)) => self.syntax.reparse_spans(tree, &self.source, text, spans),
            (Some(tree), None) => self.syntax.reparse(tree, &self.source, text),
            (None, _) => self.syntax.parse(text),
        };
        let Some(tree) = tree else {
            return false;
        };
        let clean = error_count(&tree) <= self.errors;
        if clean {
            self.checked_parses.remember(text, &tree);
        }
        clean
    }
}

impl<F> Language for SyntaxAware<F>
where
    F: Language + Clone,
    F::Prepared: Prepared<Site = Site, Edited = String>,
{
    type Group = Group<F::Group>;
    type Prepared = PreparedSyntax<F>;
    const SIZE_UNIT: &'static str = F::SIZE_UNIT;

    /// The syntax groups, then the checked early groups, then the fallback's, each fallback
    /// group with the fallback's own spec.
    fn groups(&self) -> Vec<GroupSpec<Self::Group>> {
        let fallback = self.fallback.groups();
        // The fallback's key of its first group: a parse's sites, like the fallback's, depend on
        // the text's shape, not on its names and blanks.
        let shape = fallback.first().and_then(|spec| spec.fruitless.clone());
        let learning = || {
            SearchSpec::ProbDd(ProbDdSpec {
                learns_prior: true,
                ..ProbDdSpec::default()
            })
        };
        // Nested like the tree: outer nodes first (HDD), a level searched again while it
        // accepts something (a function whose last call an accepted deletion removed goes
        // before the search descends into it) where the grammar asks for it, and no deeper than
        // two levels in a row that accepted nothing while the search has accepted something
        // (the groups after it run first; the next round descends further).
        let syntax = GroupSpec::new(Group::Syntax, "syntax", learning())
            .levels(LevelPolicy {
                resweep: self.syntax.grammar.resweep,
                stop_after_fruitless: Some(2),
            })
            .fruitless(shape.clone());
        // Failed alone on an unchanged text: not tried again by this group (the syntax group
        // still tries it, level 0 first, in the next round).
        let outer = GroupSpec::new(Group::Outer, "syntax-outer", learning())
            .skip_failed(true)
            .fruitless(shape.clone());
        let mut groups = Vec::new();
        if self.syntax.grammar.rewrites {
            // Whole definitions first, outer scopes before inner ones (see `coarse`).
            let coarse = GroupSpec::probdd(Group::Coarse, "syntax-coarse")
                .levels(crate::coarse::LEVEL_POLICY)
                .fruitless(shape.clone());
            groups.push(coarse);
        }
        // Deep chains before the syntax group, which would remove their levels one run each.
        groups.push(
            GroupSpec::new(Group::Depth, "syntax-depth", SearchSpec::Bisect)
                .fruitless(shape.clone()),
        );
        groups.extend([syntax, outer]);
        if self.syntax.grammar.rewrites {
            // Each alone; failed on an unchanged neighbourhood: not tried again.
            let rewrites = GroupSpec::new(Group::Rewrites, "syntax-rewrites", SearchSpec::Sweep)
                .skip_failed(true)
                .fruitless(shape);
            groups.push(rewrites);
        }
        for (group, name) in &self.early {
            let found = fallback.iter().find(|spec| spec.group == *group);
            groups.extend(found.map(|spec| GroupSpec {
                name,
                ..spec.clone().map(Group::Checked)
            }));
        }
        groups.extend(fallback.into_iter().map(|spec| spec.map(Group::Other)));
        groups
    }

    fn size(&self, text: &str) -> usize {
        self.fallback.size(text)
    }

    fn prepare(&self, text: &str, group: Self::Group) -> Self::Prepared {
        let checked = !matches!(group, Group::Other(_));
        // One parse serves the listing and every candidate's check.
        let tree = checked.then(|| self.parse_prepared(text)).flatten();
        let syntax = &self.syntax;
        let sites = match group {
            Group::Coarse => Sites::Syntax(syntax.coarse_of(tree.as_ref(), text)),
            Group::Depth => Sites::Syntax(syntax.depth_of(tree.as_ref())),
            Group::Syntax => Sites::Syntax(syntax.listing_of(tree.as_ref(), text)),
            Group::Outer => Sites::Syntax(syntax.listing_of(tree.as_ref(), text).outermost()),
            Group::Rewrites => Sites::Syntax(syntax.rewrites_of(tree.as_ref(), text)),
            Group::Checked(group) | Group::Other(group) => {
                Sites::Other(self.fallback.prepare(text, group))
            }
        };
        self.prepared(text, sites, checked.then_some(tree))
    }

    fn prepare_current(&self, text: &str) -> Self::Prepared {
        let sites = Sites::Other(self.fallback.prepare_current(text));
        self.prepared(text, sites, None)
    }

    fn is_valid(&self, text: &str) -> bool {
        self.fallback.is_valid(text)
    }

    fn tidy_steps(&self, text: &str) -> Vec<(&'static str, String)> {
        self.fallback.tidy_steps(text)
    }

    fn encode<'t>(&self, text: &'t str) -> Result<Encoded<'t>, EncodeError> {
        self.fallback.encode(text)
    }
}

impl<F> SyntaxAware<F>
where
    F: Language + Clone,
    F::Prepared: Prepared<Site = Site, Edited = String>,
{
    /// The parse of `text`, a text to prepare: the last one's or a checked candidate's when it
    /// is one of those, else from the last one's tree (which it then replaces).
    fn parse_prepared(&self, text: &str) -> Option<tree_sitter::Tree> {
        let mut last = self.last_parse.lock().unwrap_or_else(|e| e.into_inner());
        let tree = match last.as_ref() {
            Some((source, tree)) if source == text => Some(tree.clone()),
            last => self.checked_parses.parse_of(text).or_else(|| match last {
                Some((source, tree)) => self.syntax.reparse(tree, source, text),
                None => self.syntax.parse(text),
            }),
        }?;
        *last = Some((text.to_owned(), tree.clone()));
        Some(tree)
    }

    /// `text` prepared with `sites`; `checked`: its candidates are re-parsed, starting from
    /// the text's parse it holds (`None` inside when the parser gave up).
    fn prepared(
        &self,
        text: &str,
        sites: Sites<F::Prepared>,
        checked: Option<Option<tree_sitter::Tree>>,
    ) -> PreparedSyntax<F> {
        let size = match &sites {
            Sites::Other(prepared) => prepared.size(),
            Sites::Syntax(_) => self.fallback.size(text),
        };
        let (checked, tree) = match checked {
            Some(tree) => (true, tree),
            None => (false, None),
        };
        PreparedSyntax {
            source: text.to_owned(),
            size,
            errors: match (&tree, checked) {
                (Some(tree), _) => error_count(tree),
                (None, true) => usize::MAX,
                (None, false) => 0,
            },
            tree,
            checked,
            checked_parses: Arc::clone(&self.checked_parses),
            syntax: Arc::clone(&self.syntax),
            fallback: self.fallback.clone(),
            sites,
        }
    }
}
