//! The metadata document of a candidate. Candidates share what they do not change: every
//! top-level list is held as a vector of shared items, so a proposal that drops part of one
//! 40,000-entry list copies pointers, not the document (a batch of 32 full copies of a
//! 100,000-entry document took over a GiB). Its serialized length and digest are computed once,
//! by streaming the serialization into the hash.

use std::io::Write;
use std::sync::{Arc, OnceLock};

use serde::ser::{Serialize, SerializeMap, SerializeSeq, Serializer};
use serde_json::Value;

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
    summary: OnceLock<(String, u64)>,
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

    /// The document as a plain JSON value (a deep copy).
    pub fn to_value(&self) -> Value {
        serde_json::to_value(self).unwrap_or(Value::Null)
    }

    /// Writes `metadata.json` (pretty, newline-terminated) to `out`.
    pub fn write_json(&self, out: &mut dyn Write) -> std::io::Result<()> {
        serde_json::to_writer_pretty(&mut *out, self)?;
        out.write_all(b"\n")
    }

    /// `metadata.json` as bytes.
    pub fn json(&self) -> Vec<u8> {
        let mut bytes = Vec::new();
        self.write_json(&mut bytes)
            .expect("writing to memory never fails");
        bytes
    }

    fn summary(&self) -> &(String, u64) {
        self.summary.get_or_init(|| {
            let mut sink = HashingSink::default();
            self.write_json(&mut sink)
                .expect("hashing never fails to write");
            (sink.hasher.finalize().to_hex().to_string(), sink.len)
        })
    }

    /// Hex blake3 of `metadata.json`.
    pub fn digest(&self) -> &str {
        &self.summary().0
    }

    /// Length of `metadata.json` in bytes.
    pub fn json_len(&self) -> u64 {
        self.summary().1
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

/// A writer that only hashes and counts.
#[derive(Default)]
struct HashingSink {
    hasher: blake3::Hasher,
    len: u64,
}

impl Write for HashingSink {
    fn write(&mut self, bytes: &[u8]) -> std::io::Result<usize> {
        self.hasher.update(bytes);
        self.len += bytes.len() as u64;
        Ok(bytes.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::case::pretty;

    #[test]
    fn serializes_like_the_plain_value_and_shares_lists() {
        let value = serde_json::json!({
            "kernels": [{"name": "a"}, {"name": "b"}],
            "empty": [],
            "owner": {"team": "x", "list": [1, 2]},
            "n": 1.5,
            "s": "\u{1}é",
        });
        let metadata = Metadata::new(value.clone());
        assert_eq!(metadata.json(), pretty(&value));
        assert_eq!(metadata.to_value(), value);
        assert_eq!(metadata.json_len(), pretty(&value).len() as u64);
        assert_eq!(
            metadata.digest(),
            blake3::hash(&pretty(&value)).to_hex().as_str()
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
        assert_eq!(whole.json(), b"[\n  1\n]\n");
        assert!(whole.list("kernels").is_none());
    }
}
