//! PEP 263 source encodings: a program whose coding declaration names another encoding than
//! UTF-8 is decoded the way CPython decodes it, reduced as text, and every candidate (and the
//! output) is written back in the same encoding, with the declaration.
//!
//! The interpreter itself decides which encoding a file declares (`tokenize.detect_encoding`,
//! CPython's own rule) and supplies the byte-to-character table, so no codec is re-implemented
//! here. Only single-byte encodings that agree with ASCII on its 128 characters (latin-1, cp1252,
//! the iso-8859 family, koi8-r, …) are supported: with them a text maps to bytes one character
//! at a time, and every character a rewrite produces (ASCII or taken from the source) can be
//! written back. Multi-byte encodings are refused with a clear message.

use std::borrow::Cow;
use std::ffi::OsStr;
use std::path::Path;
use std::time::Duration;

use minrepro_text::{CodecError, SingleByte};

use crate::interpreter::ask_python;

/// How long the interpreter may take to read a declaration (it answers in milliseconds).
const DETECT_TIMEOUT: Duration = Duration::from_secs(60);

/// Asks the interpreter which encoding `sys.argv[1]` declares; prints one [`Reply`] as JSON.
const DETECT: &str = r#"
import codecs, json, sys, tokenize
def done(**reply):
    sys.stdout.write(json.dumps(reply))
    sys.exit(0)
with open(sys.argv[1], "rb") as f:
    data = f.read()
try:
    declared, _ = tokenize.detect_encoding(iter(data.splitlines(True)).__next__)
except SyntaxError as e:
    done(error=str(e))
name = codecs.lookup(declared).name
if name in ("utf-8", "utf-8-sig"):
    done(utf8=None)
try:
    text = data.decode(declared)
except UnicodeDecodeError as e:
    done(error="line %d: cannot decode byte 0x%02x as %s: %s"
         % (data[:e.start].count(b"\n") + 1, data[e.start], name, e.reason))
table = []
for b in range(256):
    try:
        c = bytes([b]).decode(declared)
    except UnicodeDecodeError:
        c = ""
    table.append(ord(c) if len(c) == 1 and c.encode(declared) == bytes([b]) else None)
if (any(table[b] != b for b in range(128)) or any(table[b] is None for b in set(data))
        or text != "".join(chr(table[b]) for b in data)):
    done(multibyte=name)
done(single=[name, table])
"#;

/// Why a source's encoding cannot be used; each message follows the file's name.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum EncodingError {
    /// The interpreter could not tell what the declaration means.
    #[error("has a coding declaration that could not be read: {0}")]
    Unreadable(String),
    /// The interpreter's tokenizer refused the declaration.
    #[error("is not valid Python: {0}")]
    Invalid(String),
    /// A multi-byte encoding.
    #[error(
        "declares the encoding {0}, which minrepro does not support (only UTF-8 and single-byte \
         encodings extending ASCII: latin-1, cp1252, iso-8859-*, …)"
    )]
    Multibyte(String),
    /// A byte or character the encoding has no counterpart for.
    #[error(transparent)]
    Codec(#[from] CodecError),
}

/// A single-byte source encoding declared by a PEP 263 coding declaration.
#[derive(Debug, Clone)]
pub struct SourceEncoding {
    /// The codec (its name is the canonical one: `iso8859-1`, `cp1252`, …).
    pub codec: SingleByte,
    /// The declaration line as found in the source (without its line break).
    declaration: String,
}

/// What reading a source's bytes found.
#[derive(Debug)]
pub enum Decoded {
    /// UTF-8 (declared or by default): the caller decodes it.
    Utf8,
    /// Another declared, supported encoding: the decoded text and the encoding.
    Other(String, SourceEncoding),
}

/// Whether the first two lines of `bytes` might hold a coding declaration (an approximation that
/// errs on the side of asking the interpreter).
fn may_declare(bytes: &[u8]) -> bool {
    bytes
        .split(|&b| b == b'\n')
        .take(2)
        .any(|line| line.windows(6).any(|w| w == b"coding"))
}

/// The interpreter's answer to [`DETECT`].
#[derive(serde::Deserialize)]
#[serde(rename_all = "lowercase")]
enum Reply {
    /// UTF-8, declared or by default.
    Utf8,
    /// The tokenizer refused the declaration, or the bytes do not decode.
    Error(String),
    /// A multi-byte encoding (named).
    Multibyte(String),
    /// A single-byte encoding: its name and each byte value's code point (`None`: undefined).
    Single(String, Vec<Option<u32>>),
}

/// Decides how to decode `bytes` (the file at `path`) as CPython `python` would. Files without a
/// declaration are UTF-8 without asking the interpreter. `Err` is a message without file name.
pub fn detect(bytes: &[u8], path: &Path, python: &Path) -> Result<Decoded, EncodingError> {
    if !may_declare(bytes) {
        return Ok(Decoded::Utf8);
    }
    let unreadable = |why: &str| EncodingError::Unreadable(why.to_owned());
    // The path may be relative to our working directory.
    let args = ["-I", "-S", "-c", DETECT].map(OsStr::new);
    let output = ask_python(
        python,
        args.into_iter().chain([path.as_os_str()]),
        Path::new("."),
        DETECT_TIMEOUT,
    )
    .map_err(|error| unreadable(&error.to_string()))?;
    let reply = serde_json::from_slice(&output.stdout).map_err(|_| {
        unreadable(
            output
                .stderr
                .tail
                .lines()
                .last()
                .unwrap_or("the interpreter failed"),
        )
    })?;
    let (name, table) = match reply {
        Reply::Utf8 => return Ok(Decoded::Utf8),
        Reply::Error(error) => return Err(EncodingError::Invalid(error)),
        Reply::Multibyte(name) => return Err(EncodingError::Multibyte(name)),
        Reply::Single(name, table) => (name, table),
    };
    let table = table
        .into_iter()
        .map(|c| c.and_then(char::from_u32))
        .collect();
    let codec = SingleByte::from_table(&name, table)
        .ok_or_else(|| unreadable("bad table from the interpreter"))?;
    let text = codec.decode(bytes)?;
    let declaration = declaration_line(&text)
        .ok_or_else(|| unreadable("declaration line not found"))?
        .to_owned();
    Ok(Decoded::Other(text, SourceEncoding { codec, declaration }))
}

impl SourceEncoding {
    /// `text` in this encoding. A text with non-ASCII characters that lost its declaration (a
    /// rewrite removed the comment) gets it back as its first line, so that the interpreter reads
    /// it the same way.
    pub fn encode(&self, text: &str) -> Result<Vec<u8>, EncodingError> {
        let mut bytes = Vec::with_capacity(text.len() + self.declaration.len() + 1);
        if !text.is_ascii() && declaration_line(text).is_none() {
            bytes.extend(self.declaration.bytes().filter(u8::is_ascii));
            bytes.push(b'\n');
        }
        self.codec.encode_into(text, &mut bytes)?;
        Ok(bytes)
    }
}

/// `text` as the bytes of a file: in `encoding` when the source declared one, else UTF-8.
pub fn file_bytes<'t>(
    encoding: Option<&SourceEncoding>,
    text: &'t str,
) -> Result<Cow<'t, [u8]>, EncodingError> {
    match encoding {
        Some(encoding) => encoding.encode(text).map(Cow::Owned),
        None => Ok(Cow::Borrowed(text.as_bytes())),
    }
}

/// The coding declaration of `text`, per PEP 263 as CPython applies it: a comment on line 1, or on
/// line 2 when line 1 is blank or a comment, containing `coding:` or `coding=` and a name.
fn declaration_line(text: &str) -> Option<&str> {
    let mut lines = text.split('\n').map(|l| l.strip_suffix('\r').unwrap_or(l));
    let first = lines.next()?;
    if is_declaration(first) {
        return Some(first);
    }
    let blank_or_comment = {
        let t = first.trim_start_matches([' ', '\t', '\x0c']);
        t.is_empty() || t.starts_with('#')
    };
    lines
        .next()
        .filter(|second| blank_or_comment && is_declaration(second))
}

fn is_declaration(line: &str) -> bool {
    let Some(comment) = line
        .trim_start_matches([' ', '\t', '\x0c'])
        .strip_prefix('#')
    else {
        return false;
    };
    comment.match_indices("coding").any(|(at, _)| {
        let rest = &comment[at + "coding".len()..];
        rest.strip_prefix([':', '='])
            .map(|r| r.trim_start_matches([' ', '\t']))
            .and_then(|r| r.chars().next())
            .is_some_and(|c| c.is_alphanumeric() || "-_.".contains(c))
    })
}
