//! Bounded output capture with a streaming substring search.
//!
//! A predicate may print gigabytes; we keep only the first and last few KiB of each stream, yet
//! still find a required substring anywhere in the full stream (the search carries the last
//! `needle.len() - 1` bytes across chunk boundaries).

use serde::{Deserialize, Serialize};

/// Characters of a stream's beginning kept for logs (after workspace-path normalization).
pub const OUTPUT_HEAD_LIMIT: usize = 4096;
/// Bytes of a stream's end kept for judges that look at the last lines (e.g. a traceback).
pub const OUTPUT_TAIL_LIMIT: usize = 4096;
/// Marker appended to a head that was cut.
pub const TRUNCATED_MARKER: &str = "<truncated>";

/// Accumulates one output stream in bounded memory.
#[derive(Debug)]
pub struct StreamCapture {
    head: Vec<u8>,
    tail: Vec<u8>,
    total: u64,
    needle: Option<Vec<u8>>,
    carry: Vec<u8>,
    found: bool,
    full: Option<(Vec<u8>, usize)>,
    overflowed: bool,
}

/// What was kept of one output stream after a run.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct CapturedStream {
    /// Beginning of the stream (lossy UTF-8, workspace path replaced by `{workspace}`), cut to
    /// [`OUTPUT_HEAD_LIMIT`] characters plus [`TRUNCATED_MARKER`] when longer.
    pub head: String,
    /// End of the stream (lossy UTF-8, normalized like `head`), at most [`OUTPUT_TAIL_LIMIT`] bytes.
    pub tail: String,
    /// Whether the required substring occurred anywhere in the full stream.
    pub contains_needle: bool,
}

/// Raw bytes kept of the head before normalization: room for path replacement to shrink it.
const RAW_HEAD_LIMIT: usize = OUTPUT_HEAD_LIMIT * 2;

impl StreamCapture {
    /// A capture that also searches for `needle` (when given and non-empty).
    pub fn new(needle: Option<&[u8]>) -> Self {
        StreamCapture {
            head: Vec::new(),
            tail: Vec::new(),
            total: 0,
            needle: needle.filter(|n| !n.is_empty()).map(<[u8]>::to_vec),
            carry: Vec::new(),
            found: false,
            full: None,
            overflowed: false,
        }
    }

    /// Also keeps the whole stream, up to `limit` bytes (for tools whose output we parse).
    pub fn keep_all(mut self, limit: usize) -> Self {
        self.full = Some((Vec::new(), limit));
        self
    }

    /// The stream up to the [`StreamCapture::keep_all`] limit, when that was asked for.
    pub fn take_full(&mut self) -> Option<Vec<u8>> {
        self.full.take().map(|(bytes, _)| bytes)
    }

    /// Whether the stream was longer than the [`StreamCapture::keep_all`] limit.
    pub fn overflowed(&self) -> bool {
        self.overflowed
    }

    /// Feeds the next chunk of the stream.
    pub fn push(&mut self, chunk: &[u8]) {
        self.total += chunk.len() as u64;
        if let Some((bytes, limit)) = &mut self.full {
            if bytes.len() + chunk.len() <= *limit {
                bytes.extend_from_slice(chunk);
            } else {
                // Keep the part that fits: a tool's output is cut at the limit, not dropped.
                let room = *limit - bytes.len();
                bytes.extend_from_slice(&chunk[..room]);
                self.overflowed = true;
            }
        }
        if self.head.len() < RAW_HEAD_LIMIT {
            let room = RAW_HEAD_LIMIT - self.head.len();
            self.head.extend_from_slice(&chunk[..chunk.len().min(room)]);
        }
        self.push_tail(chunk);
        self.search(chunk);
    }

    fn push_tail(&mut self, chunk: &[u8]) {
        if chunk.len() >= OUTPUT_TAIL_LIMIT {
            self.tail.clear();
            self.tail
                .extend_from_slice(&chunk[chunk.len() - OUTPUT_TAIL_LIMIT..]);
            return;
        }
        self.tail.extend_from_slice(chunk);
        if self.tail.len() > OUTPUT_TAIL_LIMIT {
            let excess = self.tail.len() - OUTPUT_TAIL_LIMIT;
            self.tail.drain(..excess);
        }
    }

    fn search(&mut self, chunk: &[u8]) {
        let Some(needle) = &self.needle else { return };
        if self.found {
            return;
        }
        // Only the window spanning the previous chunk's end and this chunk needs the carry.
        let keep = needle.len() - 1;
        let mut joined = std::mem::take(&mut self.carry);
        let prefix = chunk.len().min(keep);
        joined.extend_from_slice(&chunk[..prefix]);
        if contains(&joined, needle) || contains(chunk, needle) {
            self.found = true;
            return;
        }
        let source: &[u8] = if chunk.len() >= keep { chunk } else { &joined };
        self.carry = source[source.len().saturating_sub(keep)..].to_vec();
    }

    /// Total number of bytes seen.
    #[cfg(test)]
    pub fn total_bytes(&self) -> u64 {
        self.total
    }

    /// Finishes the capture, replacing `workspace` (when given) by the literal `{workspace}` so
    /// logs do not depend on temporary directory names.
    pub fn finish(self, workspace: Option<&str>) -> CapturedStream {
        let cut_raw = self.total > self.head.len() as u64;
        let head = normalize(&self.head, workspace);
        let mut head_chars = head.chars();
        let mut kept: String = head_chars.by_ref().take(OUTPUT_HEAD_LIMIT).collect();
        if cut_raw || head_chars.next().is_some() {
            kept.push_str(TRUNCATED_MARKER);
        }
        CapturedStream {
            head: kept,
            tail: normalize(&self.tail, workspace),
            contains_needle: self.found,
        }
    }
}

fn normalize(bytes: &[u8], workspace: Option<&str>) -> String {
    let text = String::from_utf8_lossy(bytes);
    match workspace {
        Some(path) if !path.is_empty() => text.replace(path, "{workspace}"),
        _ => text.into_owned(),
    }
}

/// Naive substring test; needles are short and the first-byte scan keeps it fast.
pub fn contains(haystack: &[u8], needle: &[u8]) -> bool {
    if needle.is_empty() {
        return true;
    }
    if haystack.len() < needle.len() {
        return false;
    }
    let first = needle[0];
    let last_start = haystack.len() - needle.len();
    let mut start = 0;
    while start <= last_start {
        match haystack[start..=last_start]
            .iter()
            .position(|&b| b == first)
        {
            None => return false,
            Some(offset) => {
                let at = start + offset;
                if &haystack[at..at + needle.len()] == needle {
                    return true;
                }
                start = at + 1;
            }
        }
    }
    false
}

#[cfg(test)]
mod tests {
    use super::*;

    fn feed(chunks: &[&[u8]], needle: &[u8]) -> CapturedStream {
        let mut capture = StreamCapture::new(Some(needle));
        for chunk in chunks {
            capture.push(chunk);
        }
        capture.finish(None)
    }

    #[test]
    fn finds_needle_split_across_every_boundary() {
        let text = b"xxxxneedleyyyy";
        for split_a in 0..text.len() {
            for split_b in split_a..text.len() {
                let parts: [&[u8]; 3] =
                    [&text[..split_a], &text[split_a..split_b], &text[split_b..]];
                assert!(
                    feed(&parts, b"needle").contains_needle,
                    "{split_a} {split_b}"
                );
            }
        }
    }

    #[test]
    fn byte_at_a_time_search() {
        let text = b"aaaaaaaabaaaab";
        let chunks: Vec<&[u8]> = text.chunks(1).collect();
        assert!(feed(&chunks, b"aaaab").contains_needle);
        assert!(!feed(&chunks, b"aaaaaaaaab").contains_needle);
    }

    #[test]
    fn head_is_cut_and_marked_and_tail_kept() {
        let mut capture = StreamCapture::new(None);
        for _ in 0..1000 {
            capture.push(&[b'a'; 1000]);
        }
        capture.push(b"THE END");
        assert_eq!(capture.total_bytes(), 1_000_007);
        let stream = capture.finish(None);
        assert_eq!(
            stream.head.len(),
            OUTPUT_HEAD_LIMIT + TRUNCATED_MARKER.len()
        );
        assert!(stream.head.ends_with(TRUNCATED_MARKER));
        assert_eq!(stream.tail.len(), OUTPUT_TAIL_LIMIT);
        assert!(stream.tail.ends_with("aTHE END"));
    }

    #[test]
    fn short_output_is_not_marked_and_workspace_is_normalized() {
        let mut capture = StreamCapture::new(None);
        capture.push(b"error in /tmp/ws-123/bundle.json\n");
        let stream = capture.finish(Some("/tmp/ws-123"));
        assert_eq!(stream.head, "error in {workspace}/bundle.json\n");
        assert_eq!(stream.tail, stream.head);
    }

    #[test]
    fn contains_agrees_with_windows() {
        let hay = b"abcabcabd";
        for len in 1..4 {
            for start in 0..hay.len() - len {
                let needle = &hay[start..start + len];
                assert!(contains(hay, needle));
            }
        }
        assert!(!contains(hay, b"abd!"));
        assert!(!contains(b"ab", b"abc"));
    }
}
