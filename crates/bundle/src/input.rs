//! Input loading: bundle JSON, direct `--code-object` lists, NUL-delimited worklists and metadata
//! documents. Everything is validated and snapshotted into memory before any predicate runs; the
//! original files are only read, and their digests are re-checked before the first run.

use std::collections::BTreeSet;
use std::os::unix::ffi::OsStrExt;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use serde_json::Value;

use crate::case::{BundleCase, CodeObject, Metadata};
use crate::workspace::unique_object_names;

/// The `format` value of bundle documents.
pub const BUNDLE_FORMAT: &str = "comgr-hotswap-reducer-bundle";
/// Top-level metadata lists that are delta-debugged.
pub const METADATA_LISTS: [&str; 4] = ["kernels", "cases", "arguments", "selected_tests"];

/// A malformed or unreadable input, naming the file and the problem.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{}: {problem}", path.display())]
pub struct InputError {
    /// The offending file.
    pub path: PathBuf,
    /// What is wrong with it.
    pub problem: String,
}

fn bad(path: &Path, problem: impl Into<String>) -> InputError {
    InputError {
        path: path.to_path_buf(),
        problem: problem.into(),
    }
}

/// Where the code objects come from.
#[derive(Debug, Clone)]
pub enum InputSource {
    /// A bundle JSON file.
    Bundle(PathBuf),
    /// `--code-object` paths, with optional `--metadata`.
    CodeObjects(Vec<PathBuf>, Option<PathBuf>),
    /// A NUL-delimited worklist, with optional `--metadata`.
    Worklist(PathBuf, Option<PathBuf>),
}

/// One original code object as recorded in the log.
#[derive(Debug, Clone)]
pub struct Original {
    /// Input id.
    pub id: String,
    /// Workspace file name.
    pub name: String,
    /// Hex SHA-256.
    pub sha256: String,
    /// Size in bytes.
    pub size: usize,
}

/// A file read as input, with the digest of the bytes that were used.
#[derive(Debug, Clone)]
struct SourceFile {
    path: PathBuf,
    blake3: String,
}

/// The validated in-memory copy of all inputs.
#[derive(Debug, Clone)]
pub struct Snapshot {
    /// The original test case.
    pub case: BundleCase,
    /// The original objects.
    pub originals: Vec<Original>,
    files: Vec<SourceFile>,
}

impl Snapshot {
    /// Every input file (for cache-file protection).
    pub fn input_paths(&self) -> Vec<PathBuf> {
        self.files.iter().map(|f| f.path.clone()).collect()
    }

    /// Re-reads every input file and checks it still has the snapshotted content.
    pub fn verify(&self) -> Result<(), InputError> {
        for file in &self.files {
            let bytes = std::fs::read(&file.path)
                .map_err(|e| bad(&file.path, format!("cannot be read again: {e}")))?;
            if blake3::hash(&bytes).to_hex().as_str() != file.blake3 {
                return Err(bad(
                    &file.path,
                    "changed while the inputs were being snapshotted",
                ));
            }
        }
        Ok(())
    }
}

/// Collects input files and their digests while loading.
#[derive(Default)]
struct Loader {
    files: Vec<SourceFile>,
}

impl Loader {
    /// Reads a regular file (following symlinks) and records its digest.
    fn read(&mut self, path: &Path, what: &str) -> Result<Vec<u8>, InputError> {
        let meta = std::fs::metadata(path).map_err(|e| bad(path, format!("{what}: {e}")))?;
        if !meta.is_file() {
            return Err(bad(path, format!("{what} is not a regular file")));
        }
        let bytes = std::fs::read(path).map_err(|e| bad(path, format!("{what}: {e}")))?;
        let absolute = std::path::absolute(path).unwrap_or_else(|_| path.to_path_buf());
        if !self.files.iter().any(|f| f.path == absolute) {
            self.files.push(SourceFile {
                path: absolute,
                blake3: blake3::hash(&bytes).to_hex().to_string(),
            });
        }
        Ok(bytes)
    }

    /// Reads and validates a metadata document.
    fn metadata(&mut self, path: &Path) -> Result<Value, InputError> {
        let bytes = self.read(path, "metadata")?;
        let value = parse_json(path, &bytes)?;
        validate_metadata(&value).map_err(|p| bad(path, p))?;
        Ok(value)
    }
}

/// Parses strict JSON (NaN, Infinity, out-of-range numbers and duplicate keys are rejected).
fn parse_json(path: &Path, bytes: &[u8]) -> Result<Value, InputError> {
    crate::strict_json::parse(bytes).map_err(|e| bad(path, format!("invalid JSON: {e}")))
}

/// Checks a metadata document: an object whose reducible lists have the right types.
pub fn validate_metadata(value: &Value) -> Result<(), String> {
    let Some(object) = value.as_object() else {
        return Err("metadata must be a JSON object".into());
    };
    for key in METADATA_LISTS {
        match object.get(key) {
            None | Some(Value::Array(_)) => {}
            Some(_) => return Err(format!("metadata field {key:?} must be a list")),
        }
    }
    if let Some(Value::Array(cases)) = object.get("cases") {
        for (index, case) in cases.iter().enumerate() {
            let Some(case) = case.as_object() else {
                return Err(format!("metadata cases[{index}] must be an object"));
            };
            match case.get("arguments") {
                None | Some(Value::Array(_)) => {}
                Some(_) => return Err(format!("metadata cases[{index}].arguments must be a list")),
            }
        }
    }
    Ok(())
}

/// Resolves a bundle-relative path that must stay inside `base` (also through symlinks) and
/// name a regular file.
pub fn resolve_contained(base: &Path, relative: &str) -> Result<PathBuf, String> {
    if relative.is_empty() {
        return Err("path is empty".into());
    }
    if relative.contains('\0') {
        return Err(format!("path {relative:?} contains a NUL character"));
    }
    let rel = Path::new(relative);
    if rel.is_absolute() {
        return Err(format!(
            "path {relative:?} is absolute; bundle paths are relative to the bundle file \
             (use --code-object or --worklist for objects elsewhere)"
        ));
    }
    let joined = base.join(rel);
    let real_base = base
        .canonicalize()
        .map_err(|e| format!("{}: {e}", base.display()))?;
    let real = joined
        .canonicalize()
        .map_err(|e| format!("path {relative:?}: {e}"))?;
    if !real.starts_with(&real_base) {
        return Err(format!(
            "path {relative:?} escapes the bundle directory {}",
            base.display()
        ));
    }
    let meta = std::fs::metadata(&real).map_err(|e| format!("path {relative:?}: {e}"))?;
    if !meta.is_file() {
        return Err(format!("path {relative:?} is not a regular file"));
    }
    Ok(joined)
}

fn parent_dir(path: &Path) -> PathBuf {
    let absolute = std::path::absolute(path).unwrap_or_else(|_| path.to_path_buf());
    absolute
        .parent()
        .map(Path::to_path_buf)
        .unwrap_or_else(|| PathBuf::from("/"))
}

/// Loads and validates every input, returning the in-memory snapshot.
pub fn load(source: &InputSource) -> Result<Snapshot, InputError> {
    let mut loader = Loader::default();
    let (entries, metadata) = match source {
        InputSource::Bundle(path) => load_bundle(&mut loader, path)?,
        InputSource::CodeObjects(paths, metadata) => {
            let entries = direct_entries(paths.iter().map(|p| (p.clone(), p.clone())))?;
            (entries, load_optional_metadata(&mut loader, metadata)?)
        }
        InputSource::Worklist(path, metadata) => {
            let entries = worklist_entries(&mut loader, path)?;
            (entries, load_optional_metadata(&mut loader, metadata)?)
        }
    };
    let names = unique_object_names(entries.iter().map(|(_, path)| path.as_path()));
    let mut objects = Vec::new();
    for ((id, path), name) in entries.into_iter().zip(names) {
        let bytes = loader.read(&path, "code object")?;
        objects.push(CodeObject::new(id, name, bytes));
    }
    let originals = objects
        .iter()
        .map(|o| Original {
            id: o.id.clone(),
            name: o.name.clone(),
            sha256: o.sha256.clone(),
            size: o.bytes.len(),
        })
        .collect();
    Ok(Snapshot {
        case: BundleCase {
            objects,
            metadata: Arc::new(Metadata::new(metadata)),
            tool_error: None,
        },
        originals,
        files: loader.files,
    })
}

fn load_optional_metadata(
    loader: &mut Loader,
    metadata: &Option<PathBuf>,
) -> Result<Value, InputError> {
    match metadata {
        Some(path) => loader.metadata(path),
        None => Ok(Value::Object(Default::default())),
    }
}

/// (id, path) pairs; duplicates (same file) are rejected.
fn direct_entries(
    items: impl Iterator<Item = (PathBuf, PathBuf)>,
) -> Result<Vec<(String, PathBuf)>, InputError> {
    let mut seen = BTreeSet::new();
    let mut out = Vec::new();
    for (given, path) in items {
        let meta = std::fs::metadata(&path).map_err(|e| bad(&path, format!("code object: {e}")))?;
        if !meta.is_file() {
            return Err(bad(&path, "code object is not a regular file"));
        }
        let real = path.canonicalize().map_err(|e| bad(&path, e.to_string()))?;
        if !seen.insert(real) {
            return Err(bad(&path, "code object is given more than once"));
        }
        out.push((given.to_string_lossy().into_owned(), path));
    }
    Ok(out)
}

fn worklist_entries(
    loader: &mut Loader,
    path: &Path,
) -> Result<Vec<(String, PathBuf)>, InputError> {
    let bytes = loader.read(path, "worklist")?;
    let entries = split_worklist(&bytes).map_err(|p| bad(path, p))?;
    let base = parent_dir(path);
    let mut out = Vec::new();
    let mut seen = BTreeSet::new();
    for (index, entry) in entries.iter().enumerate() {
        let entry_path = Path::new(std::ffi::OsStr::from_bytes(entry));
        let full = if entry_path.is_absolute() {
            entry_path.to_path_buf()
        } else {
            base.join(entry_path)
        };
        let label = String::from_utf8_lossy(entry).into_owned();
        let meta = std::fs::metadata(&full)
            .map_err(|e| bad(path, format!("entry {} ({label:?}): {e}", index + 1)))?;
        if !meta.is_file() {
            return Err(bad(
                path,
                format!("entry {} ({label:?}) is not a regular file", index + 1),
            ));
        }
        let real = full
            .canonicalize()
            .map_err(|e| bad(path, format!("entry {} ({label:?}): {e}", index + 1)))?;
        if !seen.insert(real) {
            return Err(bad(
                path,
                format!("entry {} ({label:?}) is a duplicate", index + 1),
            ));
        }
        out.push((label, full));
    }
    Ok(out)
}

/// Splits a NUL-delimited worklist; empty, unterminated and empty-file lists are errors.
pub fn split_worklist(bytes: &[u8]) -> Result<Vec<Vec<u8>>, String> {
    if bytes.is_empty() {
        return Err("worklist is empty".into());
    }
    if bytes.last() != Some(&0) {
        return Err("worklist's last entry is not NUL-terminated".into());
    }
    let body = &bytes[..bytes.len() - 1];
    let mut entries = Vec::new();
    for (index, entry) in body.split(|b| *b == 0).enumerate() {
        if entry.is_empty() {
            return Err(format!("worklist entry {} is empty", index + 1));
        }
        entries.push(entry.to_vec());
    }
    Ok(entries)
}

fn load_bundle(
    loader: &mut Loader,
    path: &Path,
) -> Result<(Vec<(String, PathBuf)>, Value), InputError> {
    let bytes = loader.read(path, "bundle")?;
    let document = parse_json(path, &bytes)?;
    let base = parent_dir(path);
    let fail = |p: String| bad(path, p);
    let Some(top) = document.as_object() else {
        return Err(fail("bundle must be a JSON object".into()));
    };
    for key in top.keys() {
        if !["format", "version", "code_objects", "metadata"].contains(&key.as_str()) {
            return Err(fail(format!("unknown bundle field {key:?}")));
        }
    }
    if top.get("format").and_then(Value::as_str) != Some(BUNDLE_FORMAT) {
        return Err(fail(format!("\"format\" must be {BUNDLE_FORMAT:?}")));
    }
    if top.get("version").and_then(Value::as_u64) != Some(1) {
        return Err(fail("\"version\" must be 1".into()));
    }
    let Some(list) = top.get("code_objects").and_then(Value::as_array) else {
        return Err(fail("\"code_objects\" must be a list".into()));
    };
    let mut ids = BTreeSet::new();
    let mut entries = Vec::new();
    for (index, item) in list.iter().enumerate() {
        let Some(item) = item.as_object() else {
            return Err(fail(format!("code_objects[{index}] must be an object")));
        };
        for key in item.keys() {
            if !["id", "path", "sha256", "size"].contains(&key.as_str()) {
                return Err(fail(format!(
                    "unknown field {key:?} in code_objects[{index}]"
                )));
            }
        }
        let id = match item.get("id").and_then(Value::as_str) {
            Some(id) if !id.is_empty() => id.to_owned(),
            _ => {
                return Err(fail(format!(
                    "code_objects[{index}].id must be a non-empty string"
                )))
            }
        };
        if !ids.insert(id.clone()) {
            return Err(fail(format!("code object id {id:?} is not unique")));
        }
        let Some(relative) = item.get("path").and_then(Value::as_str) else {
            return Err(fail(format!("code_objects[{index}].path must be a string")));
        };
        let object = resolve_contained(&base, relative)
            .map_err(|p| fail(format!("code object {id:?}: {p}")))?;
        entries.push((
            id,
            object,
            item.get("sha256").cloned(),
            item.get("size").cloned(),
        ));
    }
    let metadata = match top.get("metadata") {
        None => Value::Object(Default::default()),
        Some(Value::String(relative)) => {
            let file =
                resolve_contained(&base, relative).map_err(|p| fail(format!("metadata: {p}")))?;
            loader.metadata(&file)?
        }
        Some(value @ Value::Object(_)) => {
            validate_metadata(value).map_err(fail)?;
            value.clone()
        }
        Some(_) => {
            return Err(fail(
                "\"metadata\" must be an object or a relative path string".into(),
            ))
        }
    };
    let mut out = Vec::new();
    for (id, object, sha256, size) in entries {
        if sha256.is_some() || size.is_some() {
            let bytes = loader.read(&object, "code object")?;
            if let Some(expected) = sha256 {
                if expected.as_str() != Some(crate::case::sha256_hex(&bytes).as_str()) {
                    return Err(fail(format!("code object {id:?}: sha256 does not match")));
                }
            }
            if let Some(expected) = size {
                if expected.as_u64() != Some(bytes.len() as u64) {
                    return Err(fail(format!("code object {id:?}: size does not match")));
                }
            }
        }
        out.push((id, object));
    }
    Ok((out, metadata))
}

#[cfg(test)]
mod tests;
