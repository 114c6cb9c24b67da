//! The grammar table: one row per language, with its file extensions, its tree-sitter
//! `LanguageFn` and its `node-types.json` (the grammar crate's `NODE_TYPES`).

use std::path::Path;

use tree_sitter_language::LanguageFn;

/// One tree-sitter grammar.
#[derive(Clone, Copy)]
pub struct Grammar {
    /// The language's name (`--language NAME`).
    pub name: &'static str,
    /// File extensions (without the dot, lower case) that select it.
    pub extensions: &'static [&'static str],
    /// The grammar's parser.
    pub language: LanguageFn,
    /// The grammar's `node-types.json`.
    pub node_types: &'static str,
    /// Anonymous tokens that separate the elements of a list (deleting an element deletes one
    /// separator too).
    pub separators: &'static [&'static str],
    /// Whether the syntax group searches a level again after it accepted something (see
    /// `LevelPolicy::resweep`). Off for LLVM IR, whose useful edits are often pairs that are
    /// each invalid alone (the two operand deletions that make `br i1 %c, label %a, label %b`
    /// a `br label %b`): re-sweeping a level after a single acceptance leaves the path that
    /// would try them together (measured in bench/text).
    pub resweep: bool,
    /// The literal that may replace a name passed in a separated list (`f(s, n)` → `f(s, 1)`,
    /// after which `n`'s declaration may go), if the grammar has one.
    pub literal: Option<Literal>,
    /// Slots (parent kind, field) whose node is never hoisted although the grammar accepts the
    /// descendant there: tree-sitter's C grammars take any declarator as a function
    /// definition's, C only a function declarator (`int f(int a) {…}` → `int a {…}` parses,
    /// never compiles: a run spent on a candidate that cannot be the answer).
    pub no_hoist: &'static [(&'static str, &'static str)],
    /// Whether C's rewrites apply (`crate::rewrites`: a function inlined into its calls, an
    /// aggregate variable made scalars): tree-sitter's C, C++ and CUDA grammars share the node
    /// kinds they read.
    pub rewrites: bool,
}

/// A C-like function definition's declarator (see [`Grammar::no_hoist`]).
const DEFINITION_DECLARATOR: &[(&str, &str)] = &[("function_definition", "declarator")];

/// A literal of a grammar: the kind of its node and its text.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Literal {
    /// The node kind (`number_literal`): a name is replaced only where this kind fits too.
    pub kind: &'static str,
    /// Its text. Not `0`: in C and C++ a `0` is also a null pointer, which would hide the
    /// type errors reductions often keep.
    pub text: &'static str,
}

/// The literal `1` of node kind `kind`.
const fn one(kind: &'static str) -> Option<Literal> {
    Some(Literal { kind, text: "1" })
}

const COMMA: &[&str] = &[","];

/// A grammar with the settings most share: elements separated by commas, levels re-swept,
/// every slot open to hoisting, no rewrites. Each row of [`GRAMMARS`] states only where its
/// grammar differs, so that a setting's exceptions stand out.
const fn common(
    name: &'static str,
    extensions: &'static [&'static str],
    language: LanguageFn,
    node_types: &'static str,
    literal: Option<Literal>,
) -> Grammar {
    Grammar {
        name,
        extensions,
        language,
        node_types,
        separators: COMMA,
        resweep: true,
        literal,
        no_hoist: &[],
        rewrites: false,
    }
}

/// A grammar of tree-sitter's C family (C, C++, CUDA): its literal is a `number_literal`, and
/// it shares the node kinds that [`DEFINITION_DECLARATOR`] and C's rewrites read.
const fn c_like(
    name: &'static str,
    extensions: &'static [&'static str],
    language: LanguageFn,
    node_types: &'static str,
) -> Grammar {
    Grammar {
        no_hoist: DEFINITION_DECLARATOR,
        rewrites: true,
        ..common(
            name,
            extensions,
            language,
            node_types,
            one("number_literal"),
        )
    }
}

/// Every grammar, by name.
pub static GRAMMARS: &[Grammar] = &[
    Grammar {
        separators: &[],
        ..common(
            "bash",
            &["sh", "bash"],
            tree_sitter_bash::LANGUAGE,
            tree_sitter_bash::NODE_TYPES,
            None,
        )
    },
    c_like(
        "c",
        &["c", "h"],
        tree_sitter_c::LANGUAGE,
        tree_sitter_c::NODE_TYPES,
    ),
    c_like(
        "cpp",
        &["cc", "cpp", "cxx", "c++", "hpp", "hh", "hxx", "h++", "ipp"],
        tree_sitter_cpp::LANGUAGE,
        tree_sitter_cpp::NODE_TYPES,
    ),
    c_like(
        "cuda",
        &["cu", "cuh", "hip"],
        tree_sitter_cuda::LANGUAGE,
        tree_sitter_cuda::NODE_TYPES,
    ),
    common(
        "go",
        &["go"],
        tree_sitter_go::LANGUAGE,
        tree_sitter_go::NODE_TYPES,
        one("int_literal"),
    ),
    common(
        "java",
        &["java"],
        tree_sitter_java::LANGUAGE,
        tree_sitter_java::NODE_TYPES,
        one("decimal_integer_literal"),
    ),
    common(
        "javascript",
        &["js", "mjs", "cjs", "jsx"],
        tree_sitter_javascript::LANGUAGE,
        tree_sitter_javascript::NODE_TYPES,
        one("number"),
    ),
    common(
        "json",
        &["json"],
        tree_sitter_json::LANGUAGE,
        tree_sitter_json::NODE_TYPES,
        None,
    ),
    Grammar {
        resweep: false,
        ..common(
            "llvm",
            &["ll"],
            tree_sitter_llvm::LANGUAGE,
            tree_sitter_llvm::NODE_TYPES,
            None,
        )
    },
    common(
        "python",
        &["py", "pyi"],
        tree_sitter_python::LANGUAGE,
        tree_sitter_python::NODE_TYPES,
        one("integer"),
    ),
    common(
        "rust",
        &["rs"],
        tree_sitter_rust::LANGUAGE,
        tree_sitter_rust::NODE_TYPES,
        one("integer_literal"),
    ),
    common(
        "tsx",
        &["tsx"],
        tree_sitter_typescript::LANGUAGE_TSX,
        tree_sitter_typescript::TSX_NODE_TYPES,
        one("number"),
    ),
    common(
        "typescript",
        &["ts", "mts", "cts"],
        tree_sitter_typescript::LANGUAGE_TYPESCRIPT,
        tree_sitter_typescript::TYPESCRIPT_NODE_TYPES,
        one("number"),
    ),
];

/// The grammar called `name` (case-insensitive).
pub fn by_name(name: &str) -> Option<&'static Grammar> {
    GRAMMARS.iter().find(|g| g.name.eq_ignore_ascii_case(name))
}

/// The grammar a file's extension selects, if any.
pub fn for_path(path: &Path) -> Option<&'static Grammar> {
    let ext = path.extension()?.to_str()?.to_ascii_lowercase();
    GRAMMARS
        .iter()
        .find(|g| g.extensions.contains(&ext.as_str()))
}

impl std::fmt::Debug for Grammar {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Grammar")
            .field("name", &self.name)
            .finish_non_exhaustive()
    }
}

impl Grammar {
    /// A parser for this grammar.
    pub fn parser(&self) -> Result<tree_sitter::Parser, crate::GrammarError> {
        let mut parser = tree_sitter::Parser::new();
        parser
            .set_language(&tree_sitter::Language::new(self.language))
            .map_err(|e| crate::GrammarError::Incompatible(self.name, e.to_string()))?;
        Ok(parser)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_grammar_loads_and_extensions_are_unique() {
        let mut seen = std::collections::HashSet::new();
        for grammar in GRAMMARS {
            let mut parser = grammar.parser().expect(grammar.name);
            assert!(parser.parse("", None).is_some(), "{}", grammar.name);
            for ext in grammar.extensions {
                assert!(seen.insert(*ext), "{ext} twice");
            }
        }
        assert_eq!(for_path(Path::new("dir/a.CPP")).unwrap().name, "cpp");
        assert_eq!(by_name("Rust").unwrap().name, "rust");
        assert!(for_path(Path::new("a.txt")).is_none());
    }
}
