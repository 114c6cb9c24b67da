//! Syntax-aware reduction with tree-sitter grammars (Perses, ICSE'18; treereduce): a grammar
//! table ([`grammars`]), what each grammar's `node-types.json` says about optional and repeated
//! children ([`facts`]), the sites of a parse tree — deletions the grammar allows and hoistings
//! of a node to a compatible descendant ([`sites`]) — and [`SyntaxAware`], a text-layer
//! `Language` that puts those sites before a language-independent fallback's groups and refuses
//! every syntax-group candidate whose re-parse has more `ERROR`/`MISSING` nodes than the text
//! it came from. A site that likely leaves a name undeclared (module `names`) or replaces a
//! name by a literal starts from a higher ProbDD prior: tried after the others, alone. For the
//! C-like grammars, [`rewrites`] adds what deletions cannot do (C-Reduce's `clang_delta`): a
//! function inlined into its calls, an aggregate variable made scalars. Chains of nodes nested
//! in nodes of the same kind are cut by bisection over their depth first (module `depth`).
//!
//! One implementation serves every grammar: grammars differ only in their node-types facts and
//! a small table: list separators, the number literal a name may become, whether the syntax
//! group re-sweeps its levels, and whether C's rewrites apply.

pub mod coarse;
mod depth;
pub mod facts;
pub mod grammars;
pub mod language;
mod names;
mod parses;
mod reparse;
pub mod rewrites;
pub mod sites;
#[cfg(test)]
mod tests;
mod walk;

pub use grammars::{by_name, for_path, Grammar, Literal, GRAMMARS};
pub use language::{Group, LoadedGrammar, PreparedSyntax, SyntaxAware};
pub use parses::EditedSyntax;
pub use reparse::error_count;
pub use sites::Listing;

/// A grammar that cannot be used.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum GrammarError {
    /// The grammar's parser does not fit this tree-sitter library.
    #[error("the {0} grammar does not load: {1}")]
    Incompatible(&'static str, String),
    /// Its node-types.json cannot be read.
    #[error("cannot read a grammar's node-types.json: {0}")]
    NodeTypes(String),
}
