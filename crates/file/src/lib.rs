//! Language-independent reduction of any text: the part of `minrepro file` that knows about
//! text but nothing about predicates or searching.
//!
//! A text is lexed once into words, numbers, strings, comments (by file extension), punctuation
//! and whitespace ([`lex`]); its size is the number of non-whitespace tokens, bytes breaking ties
//! ([`size`]). Each reduction [`Group`] lists [`Site`]s of a text — plain byte ranges with
//! their replacements — modelled on C-Reduce's and C-Vise's generic passes: lines at decreasing
//! nesting levels (top-level forms first, C-Reduce's `topformflat` view), indentation blocks,
//! balanced bracket regions, comments, whitespace, single tokens, runs of tokens ([`windows`]),
//! identifiers renamed shorter, words and empty bracket pairs substituted ([`substitute`]),
//! string literals, integers, and a final tidy. A search (ddmin or ProbDD, in the engine)
//! picks subsets of a group's sites; [`apply`] (the text layer's `splice`) applies them.
//!
//! Every case goes through the shared text layer (`minrepro-text`): one file as the text of
//! [`language`]'s implementation of its `Language` trait, several files or a directory tree
//! ([`tree::Tree`]) as its set of documents (`DocSet`), whole files first, then headers included
//! once inlined into their includer ([`includes`]), then every group over every file at once.

pub mod args;
pub mod groups;
pub mod includes;
pub mod language;
pub mod lex;
mod output;
pub mod run;
pub mod structure;
pub mod substitute;
pub mod syntax;
pub mod token_sites;
pub mod tree;
pub mod windows;

pub use args::FileArgs;
pub use groups::{Group, Lexed};
pub use lex::{size, tokens, Kind, Syntax, Token};
pub use minrepro_text::{splice as apply, Site};
pub use run::run;
pub use structure::BracketEdit;
