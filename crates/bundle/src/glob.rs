//! Section globs with the original reducer's semantics, Python's `fnmatch.fnmatchcase`: `*` any
//! run (across `/` too), `?` one character, `[seq]`/`[!seq]` classes with ranges, an unclosed `[`
//! a literal, and no escapes (a backslash is a literal). Matching is done by `globset`: each
//! pattern is read the way `fnmatch.translate` (CPython 3.11) reads it and written back as a
//! globset pattern in which every literal is escaped, so globset's own extras (`{a,b}`, `**`,
//! `[[:alpha:]]`, `\` escapes, `[^…]` negation) never apply.
//!
//! globset matches bytes: for ASCII names (all that LLVM gives AMDGPU sections) the result is
//! exactly fnmatch's; a `?` or a class meeting a multi-byte character sees one byte of it.

use globset::{GlobBuilder, GlobSet, GlobSetBuilder};

/// A section glob that globset could not compile (only a pattern too large for its automaton).
#[derive(Debug, thiserror::Error)]
#[error("section glob {pattern:?} is too complex: {source}")]
pub struct GlobError {
    /// The pattern as given.
    pub pattern: String,
    /// What globset said.
    #[source]
    pub source: globset::Error,
}

/// Compiles fnmatch patterns into one set; `is_match` is true when any pattern matches.
pub fn compile<'a>(patterns: impl IntoIterator<Item = &'a str>) -> Result<GlobSet, GlobError> {
    let mut builder = GlobSetBuilder::new();
    for pattern in patterns {
        // A pattern with an empty class can match nothing: leaving it out is the same.
        let Some(translated) = translate(pattern) else {
            continue;
        };
        let glob = GlobBuilder::new(&translated)
            .literal_separator(false)
            .backslash_escape(true)
            .build()
            .map_err(|source| GlobError {
                pattern: pattern.to_owned(),
                source,
            })?;
        builder.add(glob);
    }
    builder.build().map_err(|source| GlobError {
        pattern: String::new(),
        source,
    })
}

/// Whether an fnmatch `pattern` matches `name` (compiles the pattern: for tests' one-off checks).
#[cfg(test)]
pub fn fnmatch(pattern: &str, name: &str) -> bool {
    compile([pattern]).is_ok_and(|set| set.is_match(name))
}

/// The globset pattern equivalent to an fnmatch pattern; `None` when it can match nothing.
fn translate(pattern: &str) -> Option<String> {
    let p: Vec<char> = pattern.chars().collect();
    let mut out = String::with_capacity(pattern.len() * 2);
    let mut i = 0;
    let mut after_star = false;
    while i < p.len() {
        let c = p[i];
        i += 1;
        let star = c == '*';
        match c {
            // fnmatch folds a run of stars into one; so must we (globset gives `**` a meaning).
            '*' if after_star => {}
            '*' => out.push('*'),
            '?' => out.push('?'),
            '[' => match class_at(&p, i) {
                Some((set, next)) => {
                    emit_class(&mut out, set?);
                    i = next;
                }
                None => push_literal(&mut out, '['),
            },
            c => push_literal(&mut out, c),
        }
        after_star = star;
    }
    Some(out)
}

/// A character class: negated or not, and its members as sorted, disjoint, inclusive ranges.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Class {
    negated: bool,
    ranges: Vec<(char, char)>,
}

/// Reads the class whose body starts at `i` (just after `[`) as `fnmatch.translate` does:
/// `Some((None, _))` for an empty class (matches nothing), `None` when there is no closing `]`
/// (the `[` is then a literal). Returns the index after the closing `]`.
fn class_at(p: &[char], i: usize) -> Option<(Option<Class>, usize)> {
    let n = p.len();
    let mut j = i;
    if j < n && p[j] == '!' {
        j += 1;
    }
    if j < n && p[j] == ']' {
        j += 1;
    }
    while j < n && p[j] != ']' {
        j += 1;
    }
    if j >= n {
        return None;
    }
    let stuff = class_regex_body(p, i, j);
    let class = if stuff.is_empty() {
        None
    } else if stuff == ['!'] {
        Some(Class {
            negated: true,
            ranges: Vec::new(),
        })
    } else if stuff[0] == '!' {
        Some(parse_regex_class(true, &stuff[1..]))
    } else {
        Some(parse_regex_class(false, &stuff))
    };
    Some((class, j + 1))
}

/// The text fnmatch puts between `[` and `]` of its regex for the body `p[i..j]`: chunks split at
/// range hyphens, empty ranges dropped, backslashes and other hyphens escaped.
fn class_regex_body(p: &[char], i: usize, j: usize) -> Vec<char> {
    let escape = |chunk: &[char]| -> Vec<char> {
        let mut out = Vec::with_capacity(chunk.len());
        for &c in chunk {
            if matches!(c, '\\' | '-' | '&' | '~' | '|') {
                out.push('\\');
            }
            out.push(c);
        }
        out
    };
    let body = &p[i..j];
    if !body.contains(&'-') {
        return escape(body);
    }
    let mut chunks: Vec<Vec<char>> = Vec::new();
    let mut start = i;
    let mut k = if p[i] == '!' { i + 2 } else { i + 1 };
    while let Some(found) = (k..j).find(|&at| p[at] == '-') {
        chunks.push(p[start..found].to_vec());
        start = found + 1;
        k = found + 3;
    }
    let last = &p[start..j];
    if last.is_empty() {
        if let Some(previous) = chunks.last_mut() {
            previous.push('-');
        }
    } else {
        chunks.push(last.to_vec());
    }
    // Remove empty ranges (`z-a`), as fnmatch does: they are invalid in a regex.
    for k in (1..chunks.len()).rev() {
        if chunks[k - 1].last() > chunks[k].first() {
            let tail = chunks.remove(k);
            chunks[k - 1].pop();
            chunks[k - 1].extend_from_slice(&tail[1..]);
        }
    }
    let mut out = Vec::new();
    for (index, chunk) in chunks.iter().enumerate() {
        if index > 0 {
            out.push('-');
        }
        out.extend(escape(chunk));
    }
    out
}

/// Reads a regex class body the way Python's `re` does (a backslash quotes the next character,
/// `a-b` is a range, a hyphen at the end is a literal; fnmatch escapes a leading `^`).
fn parse_regex_class(negated: bool, body: &[char]) -> Class {
    let mut ranges = Vec::new();
    let mut k = 0;
    let next = |k: &mut usize| {
        let quoted = body[*k] == '\\' && *k + 1 < body.len();
        *k += 1 + usize::from(quoted);
        body[*k - 1]
    };
    while k < body.len() {
        let low = next(&mut k);
        if k + 1 < body.len() && body[k] == '-' {
            k += 1;
            let high = next(&mut k);
            if low <= high {
                ranges.push((low, high));
            }
        } else {
            ranges.push((low, low));
        }
    }
    Class {
        negated,
        ranges: normalise(ranges),
    }
}

/// Sorts ranges and merges overlapping or touching ones.
fn normalise(mut ranges: Vec<(char, char)>) -> Vec<(char, char)> {
    ranges.sort_unstable();
    let mut out: Vec<(char, char)> = Vec::with_capacity(ranges.len());
    for (low, high) in ranges {
        match out.last_mut() {
            Some(last) if u32::from(low) <= u32::from(last.1) + 1 => last.1 = last.1.max(high),
            _ => out.push((low, high)),
        }
    }
    out
}

/// Writes a character that globset must read literally.
fn push_literal(out: &mut String, c: char) {
    if matches!(c, '\\' | '*' | '?' | '[' | ']' | '{' | '}' | ',') {
        out.push('\\');
    }
    out.push(c);
}

/// Removes one character from sorted ranges; says whether it was there.
fn take(ranges: &mut Vec<(char, char)>, c: char) -> bool {
    let Some(at) = ranges.iter().position(|&(l, h)| l <= c && c <= h) else {
        return false;
    };
    let (low, high) = ranges.remove(at);
    let before = char::from_u32(u32::from(c) - 1).filter(|_| low < c);
    let after = char::from_u32(u32::from(c) + 1).filter(|_| c < high);
    if let Some(after) = after {
        ranges.insert(at, (after, high));
    }
    if let Some(before) = before {
        ranges.insert(at, (low, before));
    }
    true
}

/// Writes a class in globset's syntax. globset reads `!`/`^` first as negation, `]` first and `-`
/// first or last as literals, and `]` elsewhere as the end, so `]` goes first, `-` last (or first
/// when nothing else may lead), and a member starting with `!`/`^` never leads a plain class.
fn emit_class(out: &mut String, class: Class) {
    let Class {
        negated,
        mut ranges,
    } = class;
    if ranges.is_empty() {
        // Only `[!]…`-style negated empty sets get here: any one character.
        out.push('?');
        return;
    }
    if !negated && ranges.len() == 1 && ranges[0].0 == ranges[0].1 {
        push_literal(out, ranges[0].0);
        return;
    }
    let close = take(&mut ranges, ']');
    let mut dash = take(&mut ranges, '-');
    let mut body = String::new();
    if close {
        body.push(']');
    } else if !negated && dash && ranges.first().is_some_and(|r| matches!(r.0, '!' | '^')) {
        body.push('-');
        dash = false;
    }
    if !negated && body.is_empty() {
        if let Some(at) = ranges.iter().position(|r| !matches!(r.0, '!' | '^')) {
            let lead = ranges.remove(at);
            ranges.insert(0, lead);
        } else if let Some(at) = ranges.iter().position(|r| r.0 < r.1) {
            // Lead with the range minus its first character, which moves to the end.
            let (low, high) = ranges.remove(at);
            let second = char::from_u32(u32::from(low) + 1).unwrap_or(high);
            ranges.insert(0, (second, high));
            ranges.push((low, low));
        } else {
            // Exactly `!` and `^`: no class can lead with either, so an alternation.
            out.push_str("{\\!,\\^}");
            return;
        }
    }
    for (low, high) in ranges {
        body.push(low);
        if high != low {
            body.push('-');
            body.push(high);
        }
    }
    if dash {
        body.push('-');
    }
    out.push('[');
    if negated {
        out.push('!');
    }
    out.push_str(&body);
    out.push(']');
}

#[cfg(test)]
mod tests;
