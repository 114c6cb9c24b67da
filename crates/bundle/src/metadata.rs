//! The metadata document of a candidate. Candidates share what they do not change: every
//! top-level list is held as a vector of shared items, so a proposal that drops part of one
//! 40,000-entry list copies pointers, not the document (a batch of 32 full copies of a
//! 100,000-entry document took over a GiB). `metadata.json` is written in the original reducer's
//! canonical form (compact, sorted keys, ASCII), serialized once per document: the candidate
//! digest hashes those bytes (the original's digest puts them after the objects, so no hash state
//! can be reused), and the file's length and content-store digest come from them.

use std::io::Write;
use std::sync::{Arc, OnceLock};

use serde::ser::{Serialize, SerializeMap, SerializeSeq, Serializer};
use serde_json::Value;
use sha2::Sha256;

use crate::canonical;

/// One top-level field.
#[derive(Debug, Clone)]
enum Field {
    /// A list, item by item.
    List(Arc<Vec<Arc<Value>>>),
    /// Anything else.
    Other(Arc<Value>),
}

#[derive(Debug, Clone)]
enum Repr {
    /// An object (always, for validated input), fields in input order.
    Fields(Vec<(String, Field)>),
    /// A document that is not an object (kept whole; it has no lists to reduce).
    Whole(Arc<Value>),
}

/// `metadata.json` of a candidate.
#[derive(Debug)]
pub struct Metadata {
    repr: Repr,
    summary: OnceLock<Summary>,
}

/// The canonical JSON of the document and the content-store digest of `metadata.json`.
#[derive(Debug)]
struct Summary {
    /// Canonical JSON (the file without its final newline).
    canonical: Vec<u8>,
    /// blake3 of the file's bytes (the content store's key).
    blake3: String,
}

impl Metadata {
    /// Wraps a document.
    pub fn new(value: Value) -> Self {
        let repr = match value {
            Value::Object(map) => Repr::Fields(
                map.into_iter()
                    .map(|(key, value)| {
                        let field = match value {
                            Value::Array(items) => {
                                Field::List(Arc::new(items.into_iter().map(Arc::new).collect()))
                            }
                            other => Field::Other(Arc::new(other)),
                        };
                        (key, field)
                    })
                    .collect(),
            ),
            other => Repr::Whole(Arc::new(other)),
        };
        Metadata {
            repr,
            summary: OnceLock::new(),
        }
    }

    /// The items of the top-level list `key` (`None`: absent or not a list).
    pub fn list(&self, key: &str) -> Option<&[Arc<Value>]> {
        match &self.repr {
            Repr::Fields(fields) => fields.iter().find_map(|(k, field)| match field {
                Field::List(items) if k == key => Some(items.as_slice()),
                _ => None,
            }),
            Repr::Whole(_) => None,
        }
    }

    /// A copy with the top-level list `key` replaced by `items` (`None` if there is no such
    /// list); every other field is shared.
    pub fn with_list(&self, key: &str, items: Vec<Arc<Value>>) -> Option<Metadata> {
        self.list(key)?;
        let Repr::Fields(fields) = &self.repr else {
            return None;
        };
        let mut items = Some(items);
        let fields = fields
            .iter()
            .map(|(k, field)| match field {
                Field::List(_) if k == key => {
                    let items = items.take().unwrap_or_default();
                    (k.clone(), Field::List(Arc::new(items)))
                }
                _ => (k.clone(), field.clone()),
            })
            .collect();
        Some(Metadata {
            repr: Repr::Fields(fields),
            summary: OnceLock::new(),
        })
    }

    /// The document as a plain JSON value (a deep copy; for tests and the report).
    pub fn to_value(&self) -> Value {
        serde_json::to_value(self).unwrap_or(Value::Null)
    }

    /// Writes `metadata.json` (canonical JSON, newline-terminated) to `out`.
    pub fn write_json(&self, out: &mut dyn Write) -> std::io::Result<()> {
        out.write_all(&self.summary().canonical)?;
        out.write_all(b"\n")
    }

    /// Writes the canonical JSON of the document (keys sorted, lists item by item).
    fn write_canonical(&self, out: &mut dyn Write) -> std::io::Result<()> {
        match &self.repr {
            Repr::Whole(value) => canonical::write_value(value, out),
            Repr::Fields(fields) => {
                let mut sorted: Vec<&(String, Field)> = fields.iter().collect();
                sorted.sort_by(|a, b| a.0.cmp(&b.0));
                out.write_all(b"{")?;
                for (index, (key, field)) in sorted.into_iter().enumerate() {
                    if index > 0 {
                        out.write_all(b",")?;
                    }
                    canonical::write_string(key, out)?;
                    out.write_all(b":")?;
                    match field {
                        Field::Other(value) => canonical::write_value(value, out)?,
                        Field::List(items) => {
                            out.write_all(b"[")?;
                            for (position, item) in items.iter().enumerate() {
                                if position > 0 {
                                    out.write_all(b",")?;
                                }
                                canonical::write_value(item, out)?;
                            }
                            out.write_all(b"]")?;
                        }
                    }
                }
                out.write_all(b"}")
            }
        }
    }

    /// `metadata.json` as bytes.
    pub fn json(&self) -> Vec<u8> {
        let mut bytes = Vec::new();
        self.write_json(&mut bytes)
            .expect("writing to memory never fails");
        bytes
    }

    fn summary(&self) -> &Summary {
        self.summary.get_or_init(|| {
            let mut canonical = Vec::new();
            self.write_canonical(&mut canonical)
                .expect("writing to memory never fails");
            let mut hasher = blake3::Hasher::new();
            hasher.update(&canonical);
            hasher.update(b"\n");
            Summary {
                blake3: hasher.finalize().to_hex().to_string(),
                canonical,
            }
        })
    }

    /// Hex blake3 of `metadata.json`.
    pub fn digest(&self) -> &str {
        &self.summary().blake3
    }

    /// Feeds the canonical JSON (without the final newline) to `hasher`.
    pub fn feed_canonical(&self, hasher: &mut Sha256) {
        sha2::Digest::update(hasher, &self.summary().canonical);
    }

    /// Length of `metadata.json` in bytes.
    pub fn json_len(&self) -> u64 {
        self.summary().canonical.len() as u64 + 1
    }
}

/// Serializes exactly as the equivalent `serde_json::Value` would (same calls, same order), so
/// the bytes do not depend on the representation.
impl Serialize for Metadata {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        match &self.repr {
            Repr::Whole(value) => value.serialize(serializer),
            Repr::Fields(fields) => {
                let mut map = serializer.serialize_map(Some(fields.len()))?;
                for (key, field) in fields {
                    match field {
                        Field::List(items) => map.serialize_entry(key, &Items(items))?,
                        Field::Other(value) => map.serialize_entry(key, &**value)?,
                    }
                }
                map.end()
            }
        }
    }
}

struct Items<'a>(&'a [Arc<Value>]);

impl Serialize for Items<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut seq = serializer.serialize_seq(Some(self.0.len()))?;
        for item in self.0 {
            seq.serialize_element(&**item)?;
        }
        seq.end()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use sha2::Digest;

    fn file_bytes(value: &Value) -> Vec<u8> {
        let mut bytes = canonical::to_bytes(value);
        bytes.push(b'\n');
        bytes
    }

    #[test]
    fn writes_canonical_json_and_shares_lists() {
        let value = serde_json::json!({
            "kernels": [{"name": "a"}, {"name": "b"}],
            "empty": [],
            "owner": {"team": "x", "list": [1, 2]},
            "n": 1.5,
            "s": "\u{1}é",
        });
        let metadata = Metadata::new(value.clone());
        assert_eq!(
            String::from_utf8(metadata.json()).unwrap(),
            "{\"empty\":[],\"kernels\":[{\"name\":\"a\"},{\"name\":\"b\"}],\"n\":1.5,\
             \"owner\":{\"list\":[1,2],\"team\":\"x\"},\"s\":\"\\u0001\\u00e9\"}\n"
        );
        assert_eq!(metadata.json(), file_bytes(&value));
        assert_eq!(metadata.to_value(), value);
        assert_eq!(metadata.json_len(), file_bytes(&value).len() as u64);
        assert_eq!(
            metadata.digest(),
            blake3::hash(&file_bytes(&value)).to_hex().as_str()
        );
        let mut hasher = Sha256::new();
        metadata.feed_canonical(&mut hasher);
        assert_eq!(
            canonical::hex(&hasher.finalize()),
            canonical::sha256_hex(&value)
        );
        let kernels = metadata.list("kernels").unwrap();
        let fewer = metadata
            .with_list("kernels", vec![kernels[1].clone()])
            .unwrap();
        assert!(Arc::ptr_eq(&fewer.list("kernels").unwrap()[0], &kernels[1]));
        assert_eq!(
            fewer.to_value()["kernels"],
            serde_json::json!([{"name": "b"}])
        );
        assert_eq!(fewer.to_value()["owner"], value["owner"]);
        assert!(metadata.list("owner").is_none() && metadata.with_list("x", vec![]).is_none());
        let whole = Metadata::new(serde_json::json!([1]));
        assert_eq!(whole.json(), b"[1]\n");
        assert!(whole.list("kernels").is_none());
    }
}
