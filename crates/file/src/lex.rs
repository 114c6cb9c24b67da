//! A language-independent tokenizer: words, numbers, quoted strings, comments (by file
//! extension), single-character punctuation and whitespace. It never fails: any byte sequence
//! lexes, and the tokens cover the text exactly, so sites can be byte ranges of tokens.

use std::ops::Range;
use std::path::Path;

/// What a token is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    /// An identifier-like word: a letter, `_` or `$`, then letters, digits, `_`, `$`.
    Word,
    /// A number: a digit, then letters, digits, `_` and `.` (so `0x1F`, `1.5e3`, `10u`).
    Number,
    /// A quoted string closed on the same line (`"…"`, `'…'` or `` `…` ``, with `\` escapes).
    Str,
    /// A comment, in the comment syntax of the file's extension.
    Comment,
    /// Any other single character (a whole UTF-8 character).
    Punct,
    /// Spaces and tabs (and other whitespace except newlines).
    Space,
    /// One `\n` (with a preceding `\r`, if any).
    Newline,
}

/// One token: its kind and byte range in the text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Token {
    /// What it is.
    pub kind: Kind,
    /// Where it is.
    pub range: Range<usize>,
}

impl Token {
    /// Whether the token counts towards the size (everything but whitespace).
    pub fn counts(&self) -> bool {
        !matches!(self.kind, Kind::Space | Kind::Newline)
    }
}

/// The few syntax facts the generic passes need, chosen by file extension.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Syntax {
    /// Line-comment openers (`//`, `#`, `;`).
    pub line_comments: &'static [&'static str],
    /// Block-comment delimiters, if any (`/*`, `*/`).
    pub block_comment: Option<(&'static str, &'static str)>,
    /// Whether indentation carries structure (Python, YAML, Makefiles): indentation blocks are
    /// tried and leading whitespace is kept.
    pub indented: bool,
}

/// C-family comments.
const SLASHES: &[&str] = &["//"];
/// Shell/Python/YAML comments.
const HASH: &[&str] = &["#"];
/// LLVM IR, assembly and Lisp comments.
const SEMICOLON: &[&str] = &[";"];

impl Syntax {
    /// No comments, no indentation structure (JSON, unknown extensions).
    pub const PLAIN: Syntax = Syntax {
        line_comments: &[],
        block_comment: None,
        indented: false,
    };

    /// The syntax for a file named `path` (by extension or well-known name).
    pub fn for_path(path: &Path) -> Syntax {
        let name = path
            .file_name()
            .and_then(|n| n.to_str())
            .unwrap_or_default();
        let ext = path
            .extension()
            .and_then(|e| e.to_str())
            .unwrap_or_default()
            .to_ascii_lowercase();
        let c_like = Syntax {
            line_comments: SLASHES,
            block_comment: Some(("/*", "*/")),
            indented: false,
        };
        match ext.as_str() {
            "c" | "h" | "cc" | "cpp" | "cxx" | "hpp" | "hh" | "hxx" | "cu" | "cuh" | "hip"
            | "cl" | "m" | "mm" | "rs" | "go" | "java" | "js" | "ts" | "kt" | "swift" | "scala"
            | "cs" | "mlir" | "td" | "glsl" | "hlsl" | "metal" | "proto" | "dart" | "zig" => c_like,
            "py" | "pyi" | "yaml" | "yml" => Syntax {
                line_comments: HASH,
                block_comment: None,
                indented: true,
            },
            "sh" | "bash" | "zsh" | "toml" | "cmake" | "pl" | "rb" | "r" | "conf" | "cfg"
            | "mk" | "tcl" | "awk" | "sed" | "dockerfile" => Syntax {
                line_comments: HASH,
                block_comment: None,
                indented: false,
            },
            "ll" | "s" | "asm" | "lisp" | "el" | "clj" | "scm" | "ini" => Syntax {
                line_comments: SEMICOLON,
                block_comment: None,
                indented: false,
            },
            _ if name == "Makefile" || name == "makefile" || name == "GNUmakefile" => Syntax {
                line_comments: HASH,
                block_comment: None,
                indented: true,
            },
            _ if name == "CMakeLists.txt" || name == "Dockerfile" => Syntax {
                line_comments: HASH,
                block_comment: None,
                indented: false,
            },
            _ => Syntax::PLAIN,
        }
    }
}

/// The tokens of `text`, covering it exactly, in order.
pub fn tokens(text: &str, syntax: &Syntax) -> Vec<Token> {
    let bytes = text.as_bytes();
    let mut out = Vec::new();
    let mut at = 0;
    while at < bytes.len() {
        let (kind, end) = next(text, at, syntax);
        out.push(Token {
            kind,
            range: at..end,
        });
        at = end;
    }
    out
}

/// The size of `text`: counted tokens first, bytes to break ties.
pub fn size(text: &str, syntax: &Syntax) -> (usize, usize) {
    let count = tokens(text, syntax).iter().filter(|t| t.counts()).count();
    (count, text.len())
}

fn is_word_start(b: u8) -> bool {
    b.is_ascii_alphabetic() || b == b'_' || b == b'$'
}

fn is_word(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b == b'_' || b == b'$'
}

/// The kind and end of the token starting at `at`.
fn next(text: &str, at: usize, syntax: &Syntax) -> (Kind, usize) {
    let bytes = text.as_bytes();
    let rest = &text[at..];
    let b = bytes[at];
    let scan = |from: usize, keep: &dyn Fn(u8) -> bool| {
        let mut end = from;
        while end < bytes.len() && keep(bytes[end]) {
            end += 1;
        }
        end
    };
    if b == b'\n' {
        return (Kind::Newline, at + 1);
    }
    if b == b'\r' && bytes.get(at + 1) == Some(&b'\n') {
        return (Kind::Newline, at + 2);
    }
    if b.is_ascii_whitespace() {
        let end = scan(at, &|c| c.is_ascii_whitespace() && c != b'\n');
        // A `\r` right before `\n` belongs to the newline.
        let end = if end > at + 1 && bytes[end - 1] == b'\r' && bytes.get(end) == Some(&b'\n') {
            end - 1
        } else {
            end
        };
        return (Kind::Space, end.max(at + 1));
    }
    if let Some((open, close)) = syntax.block_comment {
        if let Some(body) = rest.strip_prefix(open) {
            let end = body
                .find(close)
                .map_or(text.len(), |i| at + open.len() + i + close.len());
            return (Kind::Comment, end);
        }
    }
    if syntax.line_comments.iter().any(|c| rest.starts_with(c)) && comment_may_start(bytes, at) {
        let end = rest.find('\n').map_or(text.len(), |i| at + i);
        let end = if end > at && bytes[end - 1] == b'\r' {
            end - 1
        } else {
            end
        };
        return (Kind::Comment, end.max(at + 1));
    }
    if is_word_start(b) {
        return (Kind::Word, scan(at, &is_word));
    }
    if b.is_ascii_digit() {
        return (
            Kind::Number,
            scan(at, &|c| c.is_ascii_alphanumeric() || c == b'_' || c == b'.'),
        );
    }
    if matches!(b, b'"' | b'\'' | b'`') {
        if let Some(end) = string_end(bytes, at) {
            return (Kind::Str, end);
        }
    }
    let width = rest.chars().next().map_or(1, char::len_utf8);
    (Kind::Punct, at + width)
}

/// Whether a line comment may start at `at`: `#` and `;` only after whitespace or at a line
/// start would be too strict for LLVM IR (`ret void ; c`), so only `#` inside a word (`a#b`,
/// shell's `${#x}`) is refused.
fn comment_may_start(bytes: &[u8], at: usize) -> bool {
    bytes[at] != b'#' || at == 0 || !matches!(bytes[at - 1], b'$' | b'{') && !is_word(bytes[at - 1])
}

/// The end of the quoted string starting at `at`, if it closes on the same line.
fn string_end(bytes: &[u8], at: usize) -> Option<usize> {
    let quote = bytes[at];
    let mut i = at + 1;
    while i < bytes.len() {
        match bytes[i] {
            b'\\' => i += 2,
            b'\n' => return None,
            c if c == quote => return Some(i + 1),
            _ => i += 1,
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    fn kinds<'a>(text: &'a str, syntax: &Syntax) -> Vec<(Kind, &'a str)> {
        tokens(text, syntax)
            .into_iter()
            .map(|t| (t.kind, &text[t.range]))
            .collect()
    }

    #[test]
    fn c_tokens_and_comments() {
        let c = Syntax::for_path(Path::new("a.c"));
        let got = kinds("int x=0x1F; // hi\n/* a\nb */\"s\\\"\"", &c);
        assert_eq!(
            got,
            vec![
                (Kind::Word, "int"),
                (Kind::Space, " "),
                (Kind::Word, "x"),
                (Kind::Punct, "="),
                (Kind::Number, "0x1F"),
                (Kind::Punct, ";"),
                (Kind::Space, " "),
                (Kind::Comment, "// hi"),
                (Kind::Newline, "\n"),
                (Kind::Comment, "/* a\nb */"),
                (Kind::Str, "\"s\\\"\""),
            ]
        );
    }

    #[test]
    fn apostrophes_in_prose_are_punctuation() {
        let got = kinds("don't\n'x'", &Syntax::PLAIN);
        assert_eq!(got[1], (Kind::Punct, "'"));
        assert_eq!(got[4], (Kind::Str, "'x'"));
    }

    #[test]
    fn shell_hash_inside_words_is_no_comment() {
        let sh = Syntax::for_path(Path::new("t.sh"));
        let got = kinds("echo ${#a} # c", &sh);
        assert!(got.contains(&(Kind::Comment, "# c")));
        assert_eq!(got.iter().filter(|(k, _)| *k == Kind::Comment).count(), 1);
    }

    #[test]
    fn size_counts_tokens_then_bytes() {
        assert_eq!(size("a  +\n\n b", &Syntax::PLAIN), (3, 8));
        assert_eq!(size("", &Syntax::PLAIN), (0, 0));
    }

    #[test]
    fn crlf_and_unicode() {
        let (got, texts): (Vec<Kind>, Vec<&str>) =
            kinds("é \r\nx", &Syntax::PLAIN).into_iter().unzip();
        // A CR LF pair is one newline; a non-ASCII letter is one punctuation token.
        assert_eq!(texts, ["é", " ", "\r\n", "x"]);
        assert_eq!(got, [Kind::Punct, Kind::Space, Kind::Newline, Kind::Word]);
    }

    proptest::proptest! {
        #[test]
        fn tokens_cover_the_text(text in "\\PC{0,60}") {
            for ext in ["a.c", "a.py", "a.ll", "a.json"] {
                let toks = tokens(&text, &Syntax::for_path(Path::new(ext)));
                let mut at = 0;
                for t in &toks {
                    proptest::prop_assert_eq!(t.range.start, at);
                    proptest::prop_assert!(t.range.end > t.range.start);
                    at = t.range.end;
                }
                proptest::prop_assert_eq!(at, text.len());
            }
        }
    }
}
