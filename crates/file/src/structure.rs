//! Structural sites: lines at C-Reduce's nesting levels (top-level forms first), indentation
//! blocks, and balanced bracket regions.

use crate::lex::{Kind, Token};
use minrepro_text::Site;
use std::ops::Range;

/// A line: its byte range (with its newline) and the bracket depth at its start and end.
#[derive(Debug, Clone)]
struct Line {
    range: Range<usize>,
    start_depth: usize,
    end_depth: usize,
    blank: bool,
}

/// Lines of the text; a multi-line comment or string stays inside one line.
fn lines(text: &str, tokens: &[Token]) -> Vec<Line> {
    let mut out = Vec::new();
    let (mut depth, mut start, mut start_depth, mut blank) = (0usize, 0, 0, true);
    for t in tokens {
        if t.kind == Kind::Punct {
            match &text[t.range.clone()] {
                "(" | "[" | "{" => depth += 1,
                ")" | "]" | "}" => depth = depth.saturating_sub(1),
                _ => {}
            }
        }
        if t.counts() {
            blank = false;
        }
        if t.kind == Kind::Newline {
            out.push(Line {
                range: start..t.range.end,
                start_depth,
                end_depth: depth,
                blank,
            });
            (start, start_depth, blank) = (t.range.end, depth, true);
        }
    }
    if start < text.len() {
        out.push(Line {
            range: start..text.len(),
            start_depth,
            end_depth: depth,
            blank,
        });
    }
    out
}

/// Units at nesting `level`: the text is cut only after lines that end at depth ≤ `level`, so
/// deeper lines stay with the line that opened them (C-Reduce's `topformflat` view). Units that
/// start at depth `level` and leave the depth as they found it are offered for removal; with
/// `level == None` every non-blank line is offered on its own.
pub fn line_sites(text: &str, tokens: &[Token], level: Option<usize>) -> Vec<Site> {
    let all = lines(text, tokens);
    let Some(level) = level else {
        return all
            .iter()
            .filter(|l| !l.blank)
            .map(|l| Site::removal("remove-line", l.range.clone()))
            .collect();
    };
    let mut out = Vec::new();
    let mut first: Option<usize> = None;
    for (i, line) in all.iter().enumerate() {
        let first_line = &all[*first.get_or_insert(i)];
        if line.end_depth > level && i + 1 < all.len() {
            continue;
        }
        let unit = first_line.range.start..line.range.end;
        let units_lines = &all[first.unwrap_or(i)..=i];
        if first_line.start_depth == level
            && line.end_depth == level
            && !units_lines.iter().all(|l| l.blank)
        {
            out.push(Site::removal("remove-lines", unit));
        }
        first = None;
    }
    out
}

/// Leading whitespace width of a line (a tab counts as one).
fn indent_of(line: &str) -> usize {
    line.len() - line.trim_start_matches([' ', '\t']).len()
}

/// The distinct indentation widths of block headers, smallest first.
pub fn indent_widths(text: &str) -> Vec<usize> {
    let mut widths: Vec<usize> = blocks(text).into_iter().map(|(w, _)| w).collect();
    widths.sort_unstable();
    widths.dedup();
    widths
}

/// Every indentation block: a non-blank line with the following blank or more indented lines
/// (at least one of them non-blank), with the header's indentation width.
fn blocks(text: &str) -> Vec<(usize, Range<usize>)> {
    let mut starts = vec![0];
    starts.extend(text.match_indices('\n').map(|(i, _)| i + 1));
    starts.retain(|&s| s < text.len());
    let line = |k: usize| {
        let end = starts.get(k + 1).copied().unwrap_or(text.len());
        &text[starts[k]..end]
    };
    let mut out = Vec::new();
    for k in 0..starts.len() {
        if line(k).trim().is_empty() {
            continue;
        }
        let width = indent_of(line(k));
        let mut last = k;
        for j in k + 1..starts.len() {
            let l = line(j);
            if l.trim().is_empty() {
                continue;
            }
            if indent_of(l) <= width {
                break;
            }
            last = j;
        }
        if last > k {
            let end = starts.get(last + 1).copied().unwrap_or(text.len());
            out.push((width, starts[k]..end));
        }
    }
    out
}

/// Removal of the indentation blocks whose header has the `rank`-th smallest indentation of
/// the text's block headers (0: the outermost blocks).
pub fn indent_sites(text: &str, rank: usize) -> Vec<Site> {
    let Some(&width) = indent_widths(text).get(rank) else {
        return Vec::new();
    };
    blocks(text)
        .into_iter()
        .filter(|(w, _)| *w == width)
        .map(|(_, range)| Site::removal("remove-indented-block", range))
        .collect()
}

/// What to do with a balanced bracket region.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum BracketEdit {
    /// Remove the brackets and everything between them.
    Remove,
    /// Keep the brackets, remove what is between them.
    Empty,
    /// Remove just the brackets, keep what is between them.
    Unwrap,
    /// For a `{}` block with a header before it (`impl T {`, `if (x) {`, `void f()\n{`): keep
    /// only what is between the braces, without the header and the braces.
    Hoist,
    /// Replace a `{}` region, braces included, by `;` (C-Vise's `curly2`): `struct S {}`
    /// becomes `struct S;`, which its uses may then need without braces (`[S]`, not `[S {}]`).
    Semicolon,
}

/// Balanced bracket pairs `() [] {}` (and `<>` closed on the same line with no other bracket
/// crossing), as (open, close) byte offsets, by open offset.
fn pairs(text: &str, tokens: &[Token]) -> Vec<(usize, usize)> {
    let mut out = Vec::new();
    let mut stack: Vec<(u8, usize)> = Vec::new();
    let mut angles: Vec<usize> = Vec::new();
    let bytes = text.as_bytes();
    for t in tokens
        .iter()
        .filter(|t| t.kind == Kind::Punct || t.kind == Kind::Newline)
    {
        let at = t.range.start;
        let prev = at.checked_sub(1).map(|i| bytes[i]);
        let next = bytes.get(at + 1).copied();
        match bytes[at] {
            b'\n' => angles.clear(),
            c @ (b'(' | b'[' | b'{') => {
                stack.push((c, at));
                angles.clear();
            }
            c @ (b')' | b']' | b'}') => {
                let open = match c {
                    b')' => b'(',
                    b']' => b'[',
                    _ => b'{',
                };
                if let Some(k) = stack.iter().rposition(|&(o, _)| o == open) {
                    out.push((stack[k].1, at));
                    stack.truncate(k);
                }
                angles.clear();
            }
            b'<' if !matches!(next, Some(b'<' | b'=')) && prev != Some(b'<') => angles.push(at),
            b'>' if !matches!(prev, Some(b'-' | b'=')) && next != Some(b'=') => {
                if let Some(open) = angles.pop() {
                    out.push((open, at));
                }
            }
            _ => {}
        }
    }
    out.sort_unstable();
    out
}

/// The levels of the chains of bracket pairs nested in pairs of the same kind (`(` in `(`,
/// `{` in `{`, whatever lies between), as [`minrepro_text::depth_sites`].
pub fn depth_sites(text: &str, tokens: &[Token]) -> Vec<Site> {
    let bytes = text.as_bytes();
    let nodes: Vec<(u32, Range<usize>)> = pairs(text, tokens)
        .into_iter()
        .map(|(open, close)| (u32::from(bytes[open]), open..close + 1))
        .collect();
    minrepro_text::depth_sites(&minrepro_text::depth_chains(&nodes))
}

/// One site per balanced bracket region for `edit` (regions whose edit changes nothing are left
/// out).
pub fn bracket_sites(text: &str, tokens: &[Token], edit: BracketEdit) -> Vec<Site> {
    pairs(text, tokens)
        .into_iter()
        .filter_map(|(open, close)| {
            let inside = &text[open + 1..close];
            match edit {
                BracketEdit::Remove => {
                    Some(Site::removal("remove-brackets-region", open..close + 1))
                }
                BracketEdit::Empty => (!inside.trim().is_empty())
                    .then(|| Site::removal("empty-brackets", open + 1..close)),
                BracketEdit::Unwrap => Some(Site {
                    kind: "unwrap-brackets",
                    range: open..close + 1,
                    replacement: inside.to_string(),
                }),
                BracketEdit::Semicolon => (text.as_bytes()[open] == b'{').then(|| Site {
                    kind: "brackets-to-semicolon",
                    range: open..close + 1,
                    replacement: ";".to_string(),
                }),
                BracketEdit::Hoist => {
                    let start = block_header(text, tokens, open)?;
                    Some(Site {
                        kind: "hoist-block",
                        range: start..close + 1,
                        replacement: inside.to_string(),
                    })
                }
            }
        })
        .collect()
}

/// The start of the header of the `{` at byte `open`: the first token after the previous
/// `;`, `{` or `}` (or an unclosed `(`/`[`) outside brackets, skipping whitespace and comments.
/// `None` for a `(`/`[` at `open`, or a `{` with no header.
fn block_header(text: &str, tokens: &[Token], open: usize) -> Option<usize> {
    if text.as_bytes()[open] != b'{' {
        return None;
    }
    let at = tokens.partition_point(|t| t.range.start < open);
    let mut depth = 0usize;
    let mut first = at;
    for i in (0..at).rev() {
        let t = &tokens[i];
        if t.kind == Kind::Punct {
            match text.as_bytes()[t.range.start] {
                b')' | b']' => depth += 1,
                b'(' | b'[' if depth == 0 => break,
                b'(' | b'[' => depth -= 1,
                b';' | b'{' | b'}' if depth == 0 => break,
                _ => {}
            }
        }
        first = i;
    }
    let first = tokens[first..at]
        .iter()
        .find(|t| !matches!(t.kind, Kind::Space | Kind::Newline | Kind::Comment))?;
    Some(first.range.start)
}

/// One site per element of a comma-separated list between brackets (two or more elements):
/// the element with the comma after it, or the last one with the comma before it. Nested
/// lists' elements lie inside their parent's, so a level-by-level search tries outer ones first.
pub fn element_sites(text: &str, tokens: &[Token]) -> Vec<Site> {
    let mut out = Vec::new();
    for (open, close) in pairs(text, tokens) {
        if text.as_bytes()[open] == b'<' {
            continue;
        }
        // The commas directly inside this pair, and whether each element has a counted token.
        let (mut depth, mut commas) = (0usize, Vec::new());
        let mut filled = vec![false];
        let inner = tokens
            .iter()
            .filter(|t| t.range.start > open && t.range.end <= close);
        for t in inner {
            let c = text.as_bytes()[t.range.start];
            match (t.kind, c) {
                (Kind::Punct, b'(' | b'[' | b'{') => depth += 1,
                (Kind::Punct, b')' | b']' | b'}') => depth = depth.saturating_sub(1),
                (Kind::Punct, b',') if depth == 0 => {
                    commas.push(t.range.start);
                    filled.push(false);
                    continue;
                }
                _ => {}
            }
            if t.counts() {
                *filled.last_mut().expect("one per element") = true;
            }
        }
        if commas.is_empty() {
            continue;
        }
        let last = commas.len();
        for (i, &full) in filled.iter().enumerate() {
            let range = if i < last {
                let start = if i == 0 { open + 1 } else { commas[i - 1] + 1 };
                start..commas[i] + 1
            } else {
                commas[last - 1]..close
            };
            if full {
                out.push(Site::removal("remove-element", range));
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::apply;
    use crate::lex::{tokens, Syntax};
    use std::path::Path;

    const C: &str =
        "int g;\nint f(int a) {\n  if (a) {\n    g = 1;\n  }\n  return a;\n}\n\nint h;\n";

    fn texts(text: &str, sites: &[Site]) -> Vec<String> {
        sites
            .iter()
            .map(|s| text[s.range.clone()].to_string())
            .collect()
    }

    #[test]
    fn top_level_forms_first_then_nested_statements() {
        let syn = Syntax::for_path(Path::new("a.c"));
        let toks = tokens(C, &syn);
        let level0 = line_sites(C, &toks, Some(0));
        assert_eq!(
            texts(C, &level0),
            [
                "int g;\n",
                "int f(int a) {\n  if (a) {\n    g = 1;\n  }\n  return a;\n}\n",
                "int h;\n"
            ]
        );
        let level1 = line_sites(C, &toks, Some(1));
        assert_eq!(
            texts(C, &level1),
            ["  if (a) {\n    g = 1;\n  }\n", "  return a;\n"]
        );
        let level2 = line_sites(C, &toks, Some(2));
        assert_eq!(texts(C, &level2), ["    g = 1;\n"]);
        assert_eq!(line_sites(C, &toks, None).len(), 8);
    }

    #[test]
    fn bracket_edits() {
        let text = "f(a, g(b)) < x; v<int> y; p->q;";
        let toks = tokens(text, &Syntax::PLAIN);
        let removed = bracket_sites(text, &toks, BracketEdit::Remove);
        assert_eq!(texts(text, &removed), ["(a, g(b))", "(b)", "<int>"]);
        let unwrap = bracket_sites(text, &toks, BracketEdit::Unwrap);
        assert_eq!(apply(text, &[&unwrap[1]]), "f(a, gb) < x; v<int> y; p->q;");
        let empty = bracket_sites(text, &toks, BracketEdit::Empty);
        assert_eq!(apply(text, &[&empty[0]]), "f() < x; v<int> y; p->q;");
        // Only braces become `;`, empty or not, nested ones too.
        assert!(bracket_sites(text, &toks, BracketEdit::Semicolon).is_empty());
        let text = "struct S {}
fn f(a: [u8; 2]) { g(S {}); }";
        let toks = tokens(text, &Syntax::PLAIN);
        let semi = bracket_sites(text, &toks, BracketEdit::Semicolon);
        let out: Vec<String> = semi.iter().map(|s| apply(text, &[s])).collect();
        assert_eq!(
            out,
            [
                "struct S ;\nfn f(a: [u8; 2]) { g(S {}); }",
                "struct S {}\nfn f(a: [u8; 2]) ;",
                "struct S {}\nfn f(a: [u8; 2]) { g(S ;); }"
            ]
        );
        assert!(semi.iter().all(|s| s.kind == "brackets-to-semicolon"));
    }

    #[test]
    fn blocks_are_hoisted_without_their_header() {
        let text = "x; // c\nimpl T {\n  fn f() { a(); }\n}\nvoid g(int (*p)(int))\n{ b; }\n{ c; }";
        let toks = tokens(text, &Syntax::for_path(Path::new("a.c")));
        let sites = bracket_sites(text, &toks, BracketEdit::Hoist);
        assert_eq!(
            texts(text, &sites),
            [
                "impl T {\n  fn f() { a(); }\n}",
                "fn f() { a(); }",
                "void g(int (*p)(int))\n{ b; }"
            ]
        );
        let hoisted: Vec<String> = [0, 2].map(|i| apply(text, &[&sites[i]])).into();
        assert_eq!(
            hoisted,
            [
                "x; // c\n\n  fn f() { a(); }\n\nvoid g(int (*p)(int))\n{ b; }\n{ c; }",
                "x; // c\nimpl T {\n  fn f() { a(); }\n}\n b; \n{ c; }"
            ]
        );
    }

    #[test]
    fn list_elements_go_with_one_comma() {
        let text = "f(a, g(b, c), d); x = {\"k\": [1], \"j\": 2,}; h(e);";
        let toks = tokens(text, &Syntax::PLAIN);
        let sites = element_sites(text, &toks);
        assert_eq!(
            texts(text, &sites),
            [
                "a,",
                " g(b, c),",
                ", d",
                "b,",
                ", c",
                "\"k\": [1],",
                " \"j\": 2,"
            ]
        );
        assert_eq!(
            apply(text, &[&sites[2]]),
            "f(a, g(b, c)); x = {\"k\": [1], \"j\": 2,}; h(e);"
        );
    }

    #[test]
    fn mismatched_closers_are_ignored() {
        let text = "case x) a (b] c)";
        let toks = tokens(text, &Syntax::PLAIN);
        let removed = bracket_sites(text, &toks, BracketEdit::Remove);
        assert_eq!(texts(text, &removed), ["(b] c)"]);
    }

    #[test]
    fn indentation_blocks_by_width() {
        let text = "a:\n  b:\n    c: 1\n\n  d: 2\ne: 3\n";
        assert_eq!(indent_widths(text), [0, 2]);
        assert_eq!(
            texts(text, &indent_sites(text, 0)),
            ["a:\n  b:\n    c: 1\n\n  d: 2\n"]
        );
        assert_eq!(texts(text, &indent_sites(text, 1)), ["  b:\n    c: 1\n"]);
    }
}
