//! Texts in single-byte encodings that extend ASCII (latin-1, cp1252, the iso-8859 family, …):
//! each byte is one character, so a reduced text maps back to bytes one character at a time and
//! every character a rewrite keeps or inserts (ASCII, or taken from the text) can be written.
//! `minrepro python` uses it for a PEP 263 declaration's encoding (the interpreter supplies the
//! table), `minrepro file` reads a text file that is not UTF-8 as latin-1, byte for character.

use std::collections::HashMap;

/// A character or byte this encoding has no counterpart for.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum CodecError {
    /// A byte the encoding does not define.
    #[error("byte 0x{byte:02x} is not valid {encoding}")]
    Undecodable {
        /// The byte.
        byte: u8,
        /// The encoding's name.
        encoding: String,
    },
    /// A character the encoding cannot represent.
    #[error("the character {character:?} cannot be written in {encoding}")]
    Unwritable {
        /// The character.
        character: char,
        /// The encoding's name.
        encoding: String,
    },
}

/// A single-byte encoding: the character of each byte value (none where it defines none).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SingleByte {
    name: String,
    decode: Vec<Option<char>>,
    encode: HashMap<char, u8>,
}

impl SingleByte {
    /// The encoding `name` whose byte `b` is `table[b]`; `None` unless the table has 256 entries.
    pub fn from_table(name: &str, table: Vec<Option<char>>) -> Option<Self> {
        if table.len() != 256 {
            return None;
        }
        let encode = (0..=255u8)
            .filter_map(|b| table[usize::from(b)].map(|c| (c, b)))
            .collect();
        Some(SingleByte {
            name: name.to_owned(),
            decode: table,
            encode,
        })
    }

    /// ISO 8859-1: byte `b` is the character U+00`b` (every byte sequence decodes).
    pub fn latin1() -> Self {
        let table = (0..=255u8).map(|b| Some(char::from(b))).collect();
        Self::from_table("iso8859-1", table).expect("256 entries")
    }

    /// The encoding's name.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// `bytes` as text.
    pub fn decode(&self, bytes: &[u8]) -> Result<String, CodecError> {
        bytes
            .iter()
            .map(|&byte| {
                self.decode[usize::from(byte)].ok_or_else(|| CodecError::Undecodable {
                    byte,
                    encoding: self.name.clone(),
                })
            })
            .collect()
    }

    /// `text` as bytes, appended to `bytes`.
    pub fn encode_into(&self, text: &str, bytes: &mut Vec<u8>) -> Result<(), CodecError> {
        bytes.reserve(text.len());
        for character in text.chars() {
            let byte = self
                .encode
                .get(&character)
                .ok_or_else(|| CodecError::Unwritable {
                    character,
                    encoding: self.name.clone(),
                })?;
            bytes.push(*byte);
        }
        Ok(())
    }

    /// `text` as bytes.
    pub fn encode(&self, text: &str) -> Result<Vec<u8>, CodecError> {
        let mut bytes = Vec::new();
        self.encode_into(text, &mut bytes)?;
        Ok(bytes)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn latin1_round_trips_every_byte() {
        let latin1 = SingleByte::latin1();
        let bytes: Vec<u8> = (0..=255u8).collect();
        let text = latin1.decode(&bytes).unwrap();
        assert_eq!(text.chars().count(), 256);
        assert_eq!(latin1.encode(&text).unwrap(), bytes);
        assert_eq!(
            latin1.encode("x = '€'"),
            Err(CodecError::Unwritable {
                character: '€',
                encoding: "iso8859-1".into()
            })
        );
    }

    #[test]
    fn a_table_with_holes_refuses_their_bytes() {
        let mut table: Vec<Option<char>> = (0..=255u8).map(|b| Some(char::from(b))).collect();
        table[0x81] = None;
        table[0x80] = Some('€');
        let cp = SingleByte::from_table("cp1252", table).unwrap();
        assert_eq!(cp.decode(b"\x80 1").unwrap(), "€ 1");
        assert_eq!(cp.encode("€ 1").unwrap(), b"\x80 1");
        assert!(matches!(
            cp.decode(b"\x81"),
            Err(CodecError::Undecodable { byte: 0x81, .. })
        ));
        assert!(SingleByte::from_table("short", vec![None; 10]).is_none());
    }
}
