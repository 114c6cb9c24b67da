//! minrepro's text layer: reducing one text file, or a set of documents as one text
//! ([`DocSet`]), by the rewrite sites a language lists, between the engine (passes, searches,
//! scheduling, cache) and the languages (`minrepro python`, `minrepro file`, …).
//!
//! A language implements [`Language`]: its groups of rewrites as data (one [`GroupSpec`] and
//! one engine pass each, in round order: ProbDD, ddmin or a sweep, level by level or flat,
//! whether sites that failed alone are skipped later, whether candidates may grow), its size
//! measure, and a
//! [`Prepared`] text: the sites of one group with `apply` (a candidate), `check` (valid? then its
//! size) and `admissible` (e.g. no definition still used goes). This crate owns the rest:
//! `passes` (one engine pass per group, searching the group's sites with ProbDD or ddmin, flat
//! or level by level (`levels`); admissible candidates in `candidate`, the passes' shared
//! `state`, plus a last `tidy` pass and the fixpoint check `confirm`), the candidate [`TextOracle`] and its
//! reused [`Workspaces`], the background output [`Saver`], and `run`: the whole reduction
//! ([`reduce_text`]), so that a front end is its language, its predicate and its command line.
//! The crate knows no command line: its errors are the engine's ([`minrepro_engine::EngineError`]),
//! which `minrepro-driver` turns into exit statuses. The modules are private; what a front end
//! uses is re-exported here.
//!
//! # Two front ends, sketched
//!
//! A **line/token/bracket** front end (any text file) is a few hundred lines: its groups are
//! e.g. "bracketed blocks", "lines", "tokens"; a site is a [`Site`] (byte range + replacement,
//! e.g. empty); its size is the number of tokens; `apply` is [`splice`]; every text is valid
//! (or only texts with balanced brackets). Where every text is valid, [`SitesText`] with the
//! language's [`Measure`] is the whole prepared text (`minrepro file` uses it); otherwise:
//!
//! ```ignore
//! enum Group { Blocks, Lines, Tokens }
//! struct Plain;
//! struct PlainText { source: String, sites: Vec<Site> }
//!
//! impl Prepared for PlainText {
//!     type Site = Site;
//!     type Edited = String;
//!     fn source(&self) -> &str { &self.source }
//!     fn sites(&self) -> &[Site] { &self.sites }
//!     fn retain_sites(&mut self, keep: &mut dyn FnMut(&Site) -> bool) { self.sites.retain(|s| keep(s)) }
//!     fn size(&self) -> usize { tokens(&self.source) }
//!     fn info(site: &Site) -> SiteInfo<'_> { site.info() }
//!     fn apply(&self, selected: &[&Site]) -> String { splice(&self.source, selected) }
//!     fn check(&self, edited: &String) -> Option<usize> { balanced(edited).then(|| tokens(edited)) }
//! }
//!
//! impl Language for Plain {
//!     type Group = Group;
//!     type Prepared = PlainText;
//!     fn groups(&self) -> Vec<GroupSpec<Group>> {
//!         // Blocks nest: outer blocks first (HDD); everything with ProbDD.
//!         vec![
//!             GroupSpec::probdd(Group::Blocks, "blocks").levels(LevelPolicy::default()),
//!             GroupSpec::probdd(Group::Lines, "lines"),
//!             GroupSpec::probdd(Group::Tokens, "tokens").skip_failed(true),
//!         ]
//!     }
//!     fn size(&self, text: &str) -> usize { tokens(text) }
//!     fn prepare(&self, text: &str, g: Group) -> PlainText {
//!         PlainText { source: text.into(), sites: match g {
//!             Group::Blocks => bracket_pairs(text),   // `{...}` → `{}`, nested ranges
//!             Group::Lines => lines(text),            // each line → ""
//!             Group::Tokens => tokens_of(text),       // each token → ""
//!         }}
//!     }
//!     fn prepare_current(&self, text: &str) -> PlainText { PlainText { source: text.into(), sites: vec![] } }
//!     fn is_valid(&self, text: &str) -> bool { balanced(text) }
//! }
//! ```
//!
//! A **tree-sitter** front end (C, Rust, Go, …) is the same shape: `prepare` parses once
//! (`parser.parse(text, None)`), walks the tree and lists sites per group — a statement or item
//! removed (nested ranges, searched level by level), a block replaced by `{}`, an argument or
//! list element removed with its comma, an integer literal halved — as [`Site`]s of node byte
//! ranges; `check` re-parses the spliced text and accepts it when the tree has no `ERROR` or
//! `MISSING` node (tree-sitter's `has_error` is no validity check for a compiler, so the
//! predicate stays the judge), returning its leaf count as the size; `admissible` may refuse a
//! candidate that removes a definition whose name is still used (a query over identifiers).
//! Grammars differ only in node-kind tables, so one implementation serves every grammar.
//!
//! `minrepro python` implements [`Language`] over `minrepro-pysyntax` (valid Python only, chunked
//! re-checks, the name filter as `admissible`).

mod candidate;
mod confirm;
mod depth;
mod docs;
mod docset;
mod language;
mod levels;
mod lock;
mod oracle;
mod passes;
mod plain;
mod rejudge;
mod run;
mod saver;
mod searches;
mod single_byte;
mod site;
mod sizes;
mod spec;
mod state;
mod sweep;
#[cfg(test)]
mod testlang;
mod tidy;
mod workspace;

pub use candidate::{candidate, line_identity};
pub use confirm::ConfirmPass;
pub use depth::{depth_chains, depth_sites, DEPTH_CLOSE, DEPTH_OPEN, MIN_LEVELS};
pub use docs::{join as join_docs, latin1_bytes, latin1_text, split as split_docs, Content, Doc};
pub use docset::{DocGroup, DocSet, DocSite, EditedSet, PreparedSet, SetRewrites};
pub use language::{Edited, EncodeError, Encoded, Language, Prepared, Strategy};
pub use oracle::TextOracle;
pub use passes::{group_passes, GroupPass};
pub use plain::{Measure, SitesText};
pub use rejudge::{slowdown, Rejudge, Rejudged};
pub use run::{reduce_text, Publish, TextJob, TextRun};
pub use saver::{SaveError, Saver};
pub use searches::PROBDD_MAX_SITES;
pub use single_byte::{CodecError, SingleByte};
pub use site::{size_key, splice, splice_spans, without_blank_lines, Site, SiteInfo, SplicedSpan};
pub use sizes::Sizes;
pub use spec::{
    GroupSpec, Growth, LevelPolicy, ProbDdSpec, SearchSpec, SiteKeys, TextKey, PROBDD_MAX_PRIOR,
    PROBDD_PRIOR,
};
pub use state::SharedState;
pub use tidy::TidyPass;
pub use workspace::{Workspace, Workspaces};
