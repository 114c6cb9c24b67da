//! The test case: retained code objects (bytes, workspace names, section listings) plus the
//! metadata document, and its digest (computed exactly as the original reducer computes it).

use std::sync::Arc;

use sha2::{Digest, Sha256};

use crate::canonical;
pub use crate::metadata::Metadata;
use crate::sections::ElfListing;

/// One code object of a candidate.
#[derive(Debug, Clone)]
pub struct CodeObject {
    /// The unique id from the input.
    pub id: String,
    /// Sanitized, unique file name under `objects/` (fixed for the whole reduction).
    pub name: String,
    /// The input file's own name (symlinks resolved), as the original reducer records it.
    pub original_name: Arc<str>,
    /// The object's content.
    pub bytes: Arc<Vec<u8>>,
    /// Hex SHA-256 of `bytes`.
    pub sha256: String,
    /// Sections from `llvm-readobj` (only when section removal is enabled).
    pub sections: Option<Arc<ElfListing>>,
}

impl CodeObject {
    /// A code object with its digest computed.
    pub fn new(id: String, name: String, bytes: Vec<u8>) -> Self {
        let sha256 = sha256_hex(&bytes);
        CodeObject {
            id,
            original_name: Arc::from(name.as_str()),
            name,
            bytes: Arc::new(bytes),
            sha256,
            sections: None,
        }
    }

    /// The same object (id and names) with new content and no section listing.
    pub fn with_bytes(&self, bytes: Vec<u8>) -> Self {
        CodeObject {
            id: self.id.clone(),
            name: self.name.clone(),
            original_name: self.original_name.clone(),
            sha256: sha256_hex(&bytes),
            bytes: Arc::new(bytes),
            sections: None,
        }
    }
}

/// Hex SHA-256 of bytes.
pub fn sha256_hex(bytes: &[u8]) -> String {
    let digest = Sha256::digest(bytes);
    digest.iter().map(|b| format!("{b:02x}")).collect()
}

/// A candidate bundle.
#[derive(Debug, Clone)]
pub struct BundleCase {
    /// Retained objects, in input order.
    pub objects: Vec<CodeObject>,
    /// The metadata document (always a JSON object).
    pub metadata: Arc<Metadata>,
    /// Set when building this candidate failed in an ELF tool: it is rejected without running
    /// the predicate, and logged.
    pub tool_error: Option<Arc<str>>,
}

impl BundleCase {
    /// `bundle.json` of this candidate (canonical, pretty, newline-terminated).
    pub fn bundle_json(&self) -> Vec<u8> {
        let objects: Vec<serde_json::Value> = self
            .objects
            .iter()
            .map(|o| {
                serde_json::json!({
                    "id": o.id,
                    "path": format!("objects/{}", o.name),
                    "sha256": o.sha256,
                    "size": o.bytes.len(),
                })
            })
            .collect();
        let document = serde_json::json!({
            "format": crate::input::BUNDLE_FORMAT,
            "version": 1,
            "code_objects": objects,
            "metadata": "metadata.json",
        });
        pretty(&document)
    }

    /// The original reducer's candidate digest: SHA-256 over a version tag, each object's id and
    /// original name (canonical JSON) and content digest, and the metadata's canonical JSON. The
    /// workspace is a function of exactly these, so equal digests mean equal candidates; the
    /// object and metadata parts are computed once each (a 2,000-object, 100,000-entry bundle is
    /// not re-hashed per candidate).
    pub fn content_digest(&self) -> String {
        let mut hasher = Sha256::new();
        hasher.update(b"comgr-hotswap-reducer-candidate-v1\0");
        let text = |value: &str| canonical::to_bytes(&serde_json::Value::String(value.to_owned()));
        for object in &self.objects {
            hasher.update(text(&object.id));
            hasher.update(b"\0");
            hasher.update(text(&object.original_name));
            hasher.update(b"\0");
            hasher.update(canonical::unhex(&object.sha256).unwrap_or_default());
        }
        hasher.update(b"\0metadata\0");
        // sha256 is not composable: the metadata part is fed as its own canonical bytes would
        // be, by re-streaming them only if this document was not hashed before.
        self.metadata.feed_canonical(&mut hasher);
        canonical::hex(&hasher.finalize())
    }

    /// Total object bytes plus the metadata document's length.
    pub fn size(&self) -> u64 {
        let objects: usize = self.objects.iter().map(|o| o.bytes.len()).sum();
        objects as u64 + self.metadata.json_len()
    }
}

/// Pretty JSON with a trailing newline (keys keep their order).
pub fn pretty(value: &serde_json::Value) -> Vec<u8> {
    let mut bytes = serde_json::to_vec_pretty(value).unwrap_or_default();
    bytes.push(b'\n');
    bytes
}

#[cfg(test)]
mod tests {
    use super::*;

    fn case(metadata: serde_json::Value) -> BundleCase {
        BundleCase {
            objects: vec![CodeObject::new("a".into(), "a.co".into(), b"abc".to_vec())],
            metadata: Arc::new(Metadata::new(metadata)),
            tool_error: None,
        }
    }

    #[test]
    fn digest_covers_metadata_and_objects() {
        let one = case(serde_json::json!({"kernels": [1]}));
        let two = case(serde_json::json!({"kernels": []}));
        assert_ne!(one.content_digest(), two.content_digest());
        assert_eq!(one.content_digest(), one.clone().content_digest());
        let mut three = one.clone();
        three.objects[0] = CodeObject::new("a".into(), "a.co".into(), b"abd".to_vec());
        assert_ne!(one.content_digest(), three.content_digest());
        let json = one.metadata.json();
        assert_eq!(one.metadata.json_len(), json.len() as u64);
        assert_eq!(one.metadata.digest(), blake3::hash(&json).to_hex().as_str());
        assert_eq!(
            one.objects[0].sha256,
            "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
        );
    }
}
