//! A tree-sitter grammar on top of a language-independent [`Language`] (the fallback, e.g.
//! `minrepro file`'s token/line passes): the syntax group first (deletions and hoistings from
//! the parse tree, level by level), then the fallback's groups; every candidate of any group is
//! re-parsed and refused (never run) when it has more `ERROR`/`MISSING` nodes than the text it
//! was made from. Sizes are the fallback's.

use std::borrow::Cow;
use std::sync::Arc;

use minrepro_text::{splice, EncodeError, Language, Policy, Prepared, Site, SiteInfo};

use crate::facts::Facts;
use crate::grammars::Grammar;
use crate::sites::Listing;
use crate::GrammarError;

/// A group of [`SyntaxAware`]: the syntax sites, or one of the fallback's groups.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Group<G> {
    /// Deletions and hoistings from the parse tree.
    Syntax,
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
}

impl<F> SyntaxAware<F> {
    /// `fallback` refined by `grammar`.
    pub fn new(grammar: &'static Grammar, fallback: F) -> Result<Self, GrammarError> {
        Ok(SyntaxAware {
            syntax: Arc::new(Syntax::new(grammar)?),
            fallback,
        })
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
    /// `ERROR`/`MISSING` nodes of the source: a candidate may not have more.
    errors: usize,
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
        if self.syntax.errors(edited) > self.errors {
            return None;
        }
        match &self.sites {
            Sites::Syntax(_) => Some(self.fallback.size(edited)),
            Sites::Other(prepared) => prepared.check(edited),
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
        let mut groups = vec![Group::Syntax];
        groups.extend(self.fallback.groups().into_iter().map(Group::Other));
        groups
    }

    fn group_name(&self, group: Self::Group) -> &'static str {
        match group {
            Group::Syntax => "syntax",
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
            Group::Other(group) => self.fallback.policy(group),
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
            Group::Syntax => Sites::Syntax(self.syntax.listing(text)),
            Group::Other(group) => Sites::Other(self.fallback.prepare(text, group)),
        };
        self.prepared(text, sites)
    }

    fn prepare_current(&self, text: &str) -> Self::Prepared {
        self.prepared(text, Sites::Other(self.fallback.prepare_current(text)))
    }

    fn is_valid(&self, text: &str) -> bool {
        self.fallback.is_valid(text)
    }

    fn tidy(&self, text: &str) -> Option<(&'static str, String)> {
        let (kind, tidied) = self.fallback.tidy(text)?;
        (self.syntax.errors(&tidied) <= self.syntax.errors(text)).then_some((kind, tidied))
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
    fn prepared(&self, text: &str, sites: Sites<F::Prepared>) -> PreparedSyntax<F> {
        let size = match &sites {
            Sites::Other(prepared) => prepared.size(),
            Sites::Syntax(_) => self.fallback.size(text),
        };
        PreparedSyntax {
            source: text.to_owned(),
            size,
            errors: self.syntax.errors(text),
            syntax: Arc::clone(&self.syntax),
            fallback: self.fallback.clone(),
            sites,
        }
    }
}
