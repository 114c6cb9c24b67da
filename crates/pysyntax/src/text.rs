//! Byte-offset helpers over source text: lines, line ends and indentation.
//!
//! Python accepts `\n`, `\r\n` and a lone `\r` as line ends; all helpers here do too.

/// 1-based line number of byte `offset` (offsets past the end count as the last line).
pub fn line_of(source: &str, offset: usize) -> usize {
    let bytes = source.as_bytes();
    let end = offset.min(bytes.len());
    let mut line = 1;
    let mut i = 0;
    while i < end {
        match bytes[i] {
            b'\n' => line += 1,
            b'\r' if bytes.get(i + 1) != Some(&b'\n') => line += 1,
            _ => {}
        }
        i += 1;
    }
    line
}

/// Offset of the first byte of the line containing `offset`.
pub fn line_start(source: &str, offset: usize) -> usize {
    let bytes = source.as_bytes();
    let mut i = offset.min(bytes.len());
    while i > 0 && bytes[i - 1] != b'\n' && bytes[i - 1] != b'\r' {
        i -= 1;
    }
    i
}

/// Offset of the line end (the `\r` or `\n`, or the source end) at or after `offset`.
pub fn line_end(source: &str, offset: usize) -> usize {
    let bytes = source.as_bytes();
    let mut i = offset.min(bytes.len());
    while i < bytes.len() && bytes[i] != b'\n' && bytes[i] != b'\r' {
        i += 1;
    }
    i
}

/// Offset just past the line end at or after `offset` (the start of the next line).
pub fn next_line_start(source: &str, offset: usize) -> usize {
    let bytes = source.as_bytes();
    let end = line_end(source, offset);
    match bytes.get(end) {
        Some(b'\r') if bytes.get(end + 1) == Some(&b'\n') => end + 2,
        Some(_) => end + 1,
        None => end,
    }
}

/// Whether only spaces, tabs and form feeds precede `offset` on its line.
pub fn is_line_start(source: &str, offset: usize) -> bool {
    let start = line_start(source, offset);
    source.as_bytes()[start..offset.min(source.len())]
        .iter()
        .all(|b| matches!(b, b' ' | b'\t' | b'\x0c'))
}

/// The whitespace prefix of the line containing `offset`.
pub fn indent_at(source: &str, offset: usize) -> &str {
    let start = line_start(source, offset);
    let rest = &source[start..];
    let len = rest
        .bytes()
        .take_while(|b| matches!(b, b' ' | b'\t' | b'\x0c'))
        .count();
    &rest[..len]
}

/// The line terminator used by `source` (its first one; `\n` if it has none).
pub fn newline_of(source: &str) -> &'static str {
    match source.find(['\n', '\r']) {
        Some(i) if source[i..].starts_with("\r\n") => "\r\n",
        Some(i) if source[i..].starts_with('\r') => "\r",
        _ => "\n",
    }
}

/// Whether the text of `range` is a valid slice of `source`.
pub fn valid_range(source: &str, range: &std::ops::Range<usize>) -> bool {
    range.start <= range.end
        && range.end <= source.len()
        && source.is_char_boundary(range.start)
        && source.is_char_boundary(range.end)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lines_and_ends() {
        let s = "a\r\nbb\rc\n  d";
        assert_eq!(line_of(s, 0), 1);
        assert_eq!(line_of(s, 3), 2);
        assert_eq!(line_of(s, 6), 3);
        assert_eq!(line_of(s, 10), 4);
        assert_eq!(line_start(s, 4), 3);
        assert_eq!(line_end(s, 3), 5);
        assert_eq!(next_line_start(s, 0), 3);
        assert!(is_line_start(s, 10));
        assert_eq!(indent_at(s, 10), "  ");
        assert_eq!(newline_of(s), "\r\n");
    }
}
