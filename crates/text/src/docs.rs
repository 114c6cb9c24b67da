//! A case of several documents (files under relative names) as one text, so that every search,
//! level, prior and sweep of this layer reduces a set of files the way it reduces one file.
//!
//! The text of a set is each document in order as a header `NUL kind name NUL` followed by its
//! body: the text itself for a text (`t`) or latin-1 (`l`) document, lower-case hex digits of the
//! bytes for a binary one (`b`), which is only ever kept whole or removed. No document text
//! holds a NUL byte (a file that does is binary), so headers are unambiguous and no site of a
//! document reaches into another. A text without a leading NUL is a single document (the
//! front end knows its name): one file reduces exactly as it did before sets existed.

use std::borrow::Cow;
use std::ops::Range;
use std::sync::{Arc, LazyLock};

use crate::single_byte::SingleByte;

/// A document's content.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum Content {
    /// UTF-8 text without NUL bytes: reduced.
    Text(String),
    /// Text in another encoding (not UTF-8, no NUL bytes, mostly ASCII: latin-1 or cp1252
    /// comments in old C sources), read as latin-1, byte for character, so that every byte is
    /// written back as it was: reduced like text.
    Latin1(String),
    /// Anything else: kept as it is or removed whole.
    Binary(Arc<Vec<u8>>),
}

/// The latin-1 codec of [`Content::Latin1`].
static LATIN1: LazyLock<SingleByte> = LazyLock::new(SingleByte::latin1);

/// `text` of a [`Content::Latin1`] document as its bytes. A character latin-1 lacks can only
/// come from UTF-8 text inlined into the document: it is written as UTF-8, the way it was read.
pub fn latin1_bytes(text: &str) -> Vec<u8> {
    LATIN1.encode(text).unwrap_or_else(|_| {
        let mut bytes = Vec::with_capacity(text.len());
        for c in text.chars() {
            match u8::try_from(u32::from(c)) {
                Ok(latin1) => bytes.push(latin1),
                Err(_) => bytes.extend_from_slice(c.encode_utf8(&mut [0; 4]).as_bytes()),
            }
        }
        bytes
    })
}

/// `bytes` read as latin-1, byte for character.
pub fn latin1_text(bytes: &[u8]) -> String {
    LATIN1.decode(bytes).unwrap_or_default()
}

impl Content {
    /// The same kind of content holding `text` instead (a reduced text keeps its encoding).
    pub fn with_text(&self, text: String) -> Content {
        match self {
            Content::Latin1(_) => Content::Latin1(text),
            _ => Content::Text(text),
        }
    }

    /// The text, if it is a text document.
    pub fn text(&self) -> Option<&str> {
        match self {
            Content::Text(text) | Content::Latin1(text) => Some(text),
            Content::Binary(_) => None,
        }
    }

    /// The bytes to write.
    pub fn bytes(&self) -> Cow<'_, [u8]> {
        match self {
            Content::Text(text) => Cow::Borrowed(text.as_bytes()),
            Content::Latin1(text) => Cow::Owned(latin1_bytes(text)),
            Content::Binary(bytes) => Cow::Borrowed(bytes),
        }
    }

    fn kind(&self) -> char {
        match self {
            Content::Text(_) => 't',
            Content::Latin1(_) => 'l',
            Content::Binary(_) => 'b',
        }
    }
}

/// One document of a set: its relative name and content.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Doc {
    /// Relative path (`/`-separated, no `..`).
    pub name: String,
    /// The content.
    pub content: Content,
}

/// The text of a set of documents (see the module documentation).
pub fn join(docs: &[Doc]) -> String {
    let mut text = String::new();
    for doc in docs {
        text.push('\0');
        text.push(doc.content.kind());
        text.push_str(&doc.name);
        text.push('\0');
        match &doc.content {
            Content::Text(body) | Content::Latin1(body) => text.push_str(body),
            Content::Binary(bytes) => {
                for b in bytes.iter() {
                    text.push_str(&format!("{b:02x}"));
                }
            }
        }
    }
    text
}

/// Whether `text` is the text of a set (it starts with a header), not a single document.
pub fn is_set(text: &str) -> bool {
    text.starts_with('\0')
}

/// Where one document of a set's text is.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Part<'t> {
    /// The document's name.
    pub name: &'t str,
    /// Its kind: `t`, `l` or `b`.
    pub kind: char,
    /// Header and body.
    pub whole: Range<usize>,
    /// The body.
    pub body: Range<usize>,
}

impl Part<'_> {
    /// Whether the document is text (reduced), not binary.
    pub fn is_text(&self) -> bool {
        self.kind != 'b'
    }
}

/// The documents of a set's text, in order; a text that is no set is one part (named "", the
/// whole text, text kind).
pub fn parts(text: &str) -> Vec<Part<'_>> {
    if !is_set(text) {
        return vec![Part {
            name: "",
            kind: 't',
            whole: 0..text.len(),
            body: 0..text.len(),
        }];
    }
    let mut parts = Vec::new();
    let mut pos = 0;
    while pos < text.len() {
        // Header: NUL, kind (one ASCII byte), name, NUL.
        let kind = text[pos + 1..].chars().next().unwrap_or('t');
        let name_start = pos + 1 + kind.len_utf8();
        let name_end = text[name_start..]
            .find('\0')
            .map_or(text.len(), |i| name_start + i);
        let body_start = (name_end + 1).min(text.len());
        let body_end = text[body_start..]
            .find('\0')
            .map_or(text.len(), |i| body_start + i);
        parts.push(Part {
            name: &text[name_start..name_end],
            kind,
            whole: pos..body_end,
            body: body_start..body_end,
        });
        pos = body_end;
    }
    parts
}

/// The documents of a set's text (`single_name` names a text that is no set).
pub fn split(text: &str, single_name: &str) -> Vec<Doc> {
    if !is_set(text) {
        return vec![Doc {
            name: single_name.to_owned(),
            content: Content::Text(text.to_owned()),
        }];
    }
    parts(text)
        .into_iter()
        .map(|part| {
            let body = &text[part.body.clone()];
            let content = match part.kind {
                'l' => Content::Latin1(body.to_owned()),
                'b' => Content::Binary(Arc::new(unhex(body))),
                _ => Content::Text(body.to_owned()),
            };
            Doc {
                name: part.name.to_owned(),
                content,
            }
        })
        .collect()
}

/// The bytes of lower-case hex digits.
pub(crate) fn unhex(hex: &str) -> Vec<u8> {
    hex.as_bytes()
        .chunks(2)
        .filter_map(|pair| u8::from_str_radix(std::str::from_utf8(pair).ok()?, 16).ok())
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn doc(name: &str, content: Content) -> Doc {
        Doc {
            name: name.into(),
            content,
        }
    }

    #[test]
    fn a_set_survives_its_text_and_its_parts_cover_it() {
        let docs = vec![
            doc("main.c", Content::Text("int main(void) {}\n".into())),
            doc("old.h", Content::Latin1("/* caf\u{e9} */\n".into())),
            doc("blob.bin", Content::Binary(Arc::new(vec![0, 255, 16]))),
            doc("sub/empty.h", Content::Text(String::new())),
        ];
        let text = join(&docs);
        assert!(is_set(&text));
        assert_eq!(split(&text, "unused"), docs);
        let parts = parts(&text);
        let names: Vec<&str> = parts.iter().map(|p| p.name).collect();
        assert_eq!(names, ["main.c", "old.h", "blob.bin", "sub/empty.h"]);
        assert_eq!(&text[parts[0].body.clone()], "int main(void) {}\n");
        assert_eq!(&text[parts[2].body.clone()], "00ff10");
        assert!(!parts[2].is_text());
        assert_eq!(parts.last().unwrap().whole.end, text.len());
        assert_eq!(latin1_bytes("/* caf\u{e9} */\n"), b"/* caf\xe9 */\n");
    }

    #[test]
    fn a_text_without_a_header_is_one_document() {
        assert!(!is_set("x = 1\n"));
        assert_eq!(
            split("x = 1\n", "a.py"),
            vec![doc("a.py", Content::Text("x = 1\n".into()))]
        );
        assert_eq!(parts("x = 1\n")[0].body, 0..6);
    }
}
