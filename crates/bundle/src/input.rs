//! Input loading: bundle JSON, direct `--code-object` lists, NUL-delimited worklists and metadata
//! documents. Everything is validated and snapshotted into memory before any predicate runs; the
//! original files are only read, and their digests are re-checked before the first run.
//!
//! What is accepted and refused follows the original reducer (`hotswap_reduce.py`): any JSON
//! value may be an item of a metadata list, unknown fields are ignored, `--code-object` may name
//! a file twice, and the object ids of `--code-object`/`--worklist` inputs are `object-0000`,
//! `object-0001`, …; refusals keep its key phrases. Where it silently accepts something dubious
//! (a duplicate JSON key, a `sha256`/`size` field that does not match the file) we accept it too
//! and warn.

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

impl InputSource {
    /// The files named on the command line, with their flags.
    pub fn named_paths(&self) -> Vec<(&Path, &'static str)> {
        let (mut paths, metadata) = match self {
            InputSource::Bundle(path) => (vec![(path.as_path(), "--bundle")], None),
            InputSource::CodeObjects(objects, metadata) => (
                objects
                    .iter()
                    .map(|p| (p.as_path(), "--code-object"))
                    .collect(),
                metadata.as_ref(),
            ),
            InputSource::Worklist(path, metadata) => {
                (vec![(path.as_path(), "--worklist")], metadata.as_ref())
            }
        };
        paths.extend(metadata.map(|m| (m.as_path(), "--metadata")));
        paths
    }
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
    /// Things accepted as the original accepts them but worth a warning.
    pub warnings: Vec<String>,
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

/// Collects input files and their digests (and warnings) while loading.
#[derive(Default)]
struct Loader {
    files: Vec<SourceFile>,
    warnings: Vec<String>,
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
        let value = self.parse_json(path, &bytes)?;
        validate_metadata(&value).map_err(|p| bad(path, p))?;
        Ok(value)
    }

    /// Parses JSON (NaN, Infinity and numbers that would lose precision are rejected); duplicate
    /// keys keep their last value, as in the original, with a warning.
    fn parse_json(&mut self, path: &Path, bytes: &[u8]) -> Result<Value, InputError> {
        let parsed = crate::strict_json::parse(bytes)
            .map_err(|e| bad(path, format!("malformed JSON: {e}")))?;
        for duplicate in parsed.duplicates {
            self.warnings.push(format!(
                "{}: duplicate {duplicate}; its last value is used",
                path.display()
            ));
        }
        Ok(parsed.value)
    }
}

/// Checks a metadata document as the original does: a JSON object whose reducible lists are
/// lists (of any values), and whose cases that are objects with `arguments` have a list there.
pub(crate) fn validate_metadata(value: &Value) -> Result<(), String> {
    let Some(object) = value.as_object() else {
        return Err("metadata must be a JSON object".into());
    };
    for key in METADATA_LISTS {
        match object.get(key) {
            None | Some(Value::Array(_)) => {}
            Some(_) => return Err(format!("metadata.{key} must be a JSON list")),
        }
    }
    if let Some(Value::Array(cases)) = object.get("cases") {
        for (index, case) in cases.iter().enumerate() {
            match case.get("arguments") {
                None | Some(Value::Array(_)) => {}
                Some(_) => {
                    return Err(format!(
                        "metadata.cases[{index}].arguments must be a JSON list"
                    ))
                }
            }
        }
    }
    Ok(())
}

/// Resolves a bundle-relative path that must stay inside `base` (also through symlinks) and
/// name a regular file.
pub(crate) fn resolve_contained(base: &Path, relative: &str) -> Result<PathBuf, String> {
    if relative.is_empty() {
        return Err("path is empty".into());
    }
    if relative.contains('\0') {
        return Err(format!("path {relative:?} contains a NUL character"));
    }
    let rel = Path::new(relative);
    if rel.is_absolute() {
        return Err(format!(
            "path {relative:?}: bundle path must be relative (to the bundle file; use \
             --code-object or --worklist for objects elsewhere)"
        ));
    }
    let joined = base.join(rel);
    let real_base = base
        .canonicalize()
        .map_err(|e| format!("{}: {e}", base.display()))?;
    let real = joined
        .canonicalize()
        .map_err(|e| format!("path {relative:?}: could not resolve {joined:?}: {e}"))?;
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
            let entries = direct_entries(paths)?;
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
        let mut object = CodeObject::new(id, name, bytes);
        object.original_name = Arc::from(original_name(&path).as_str());
        objects.push(object);
    }
    let originals = objects
        .iter()
        .map(|o| Original {
            id: o.id.clone(),
            name: o.original_name.to_string(),
            sha256: o.sha256.clone(),
        })
        .collect();
    Ok(Snapshot {
        case: BundleCase {
            objects,
            metadata: Arc::new(Metadata::new(metadata)),
            tool_error: None,
        },
        originals,
        warnings: loader.warnings,
        files: loader.files,
    })
}

/// The name the original records for an input: the file name of the fully resolved path.
fn original_name(path: &Path) -> String {
    let real = path.canonicalize().unwrap_or_else(|_| path.to_path_buf());
    real.file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default()
}

/// The id the original gives the `index`-th object of a `--code-object` or `--worklist` input.
pub fn positional_id(index: usize) -> String {
    format!("object-{index:04}")
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

/// Checks that `path` names a regular file (following symlinks).
fn regular_file(path: &Path, what: &str) -> Result<(), String> {
    let real = path
        .canonicalize()
        .map_err(|e| format!("{what}: could not resolve {path:?}: {e}"))?;
    let meta = std::fs::metadata(&real).map_err(|e| format!("{what}: {e}"))?;
    if !meta.is_file() {
        return Err(format!("{what}: {real:?} is not a regular file"));
    }
    Ok(())
}

/// (id, path) pairs of `--code-object` inputs; like the original, a file may be given twice.
fn direct_entries(paths: &[PathBuf]) -> Result<Vec<(String, PathBuf)>, InputError> {
    let mut out = Vec::new();
    for (index, path) in paths.iter().enumerate() {
        regular_file(path, &format!("--code-object #{}", index + 1)).map_err(|p| bad(path, p))?;
        out.push((positional_id(index), path.clone()));
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
        let what = format!("entry #{} ({label:?})", index + 1);
        regular_file(&full, &what).map_err(|p| bad(path, p))?;
        let real = full
            .canonicalize()
            .map_err(|e| bad(path, format!("{what}: {e}")))?;
        if !seen.insert(real.clone()) {
            return Err(bad(
                path,
                format!("{what}: duplicate worklist path {real:?}"),
            ));
        }
        out.push((positional_id(index), full));
    }
    Ok(out)
}

/// Splits a NUL-delimited worklist; empty, unterminated and empty-file lists are errors.
pub(crate) fn split_worklist(bytes: &[u8]) -> Result<Vec<Vec<u8>>, String> {
    if bytes.is_empty() {
        return Err("worklist is empty".into());
    }
    if bytes.last() != Some(&0) {
        return Err("NUL-delimited worklist must end with NUL".into());
    }
    let body = &bytes[..bytes.len() - 1];
    let mut entries = Vec::new();
    for (index, entry) in body.split(|b| *b == 0).enumerate() {
        if entry.is_empty() {
            return Err(format!(
                "worklist contains an empty path (entry {})",
                index + 1
            ));
        }
        entries.push(entry.to_vec());
    }
    Ok(entries)
}

/// Whether a JSON value equals 1 the way Python's `==` sees it (`1`, `1.0` and `true` do).
fn equals_one(value: Option<&Value>) -> bool {
    match value {
        Some(Value::Number(n)) => n.as_f64() == Some(1.0),
        Some(Value::Bool(b)) => *b,
        _ => false,
    }
}

fn load_bundle(
    loader: &mut Loader,
    path: &Path,
) -> Result<(Vec<(String, PathBuf)>, Value), InputError> {
    let bytes = loader.read(path, "bundle")?;
    let document = loader.parse_json(path, &bytes)?;
    let base = parent_dir(path);
    let fail = |p: String| bad(path, p);
    let Some(top) = document.as_object() else {
        return Err(fail("bundle must be a JSON object".into()));
    };
    if top.get("format").and_then(Value::as_str) != Some(BUNDLE_FORMAT) {
        return Err(fail(format!("format must be {BUNDLE_FORMAT:?}")));
    }
    if !equals_one(top.get("version")) {
        let shown = top.get("version").map_or("None".into(), Value::to_string);
        return Err(fail(format!(
            "unsupported bundle version {shown}; expected 1"
        )));
    }
    let list = match top.get("code_objects").and_then(Value::as_array) {
        Some(list) if !list.is_empty() => list,
        _ => return Err(fail("code_objects must be a non-empty JSON list".into())),
    };
    let mut ids = BTreeSet::new();
    let mut entries = Vec::new();
    for (index, item) in list.iter().enumerate() {
        let Some(item) = item.as_object() else {
            return Err(fail(format!("code_objects[{index}] must be a JSON object")));
        };
        let id = match item.get("id").and_then(Value::as_str) {
            Some(id) if !id.is_empty() => id.to_owned(),
            _ => {
                return Err(fail(format!(
                    "code_objects[{index}].id must be a non-empty string"
                )))
            }
        };
        if !ids.insert(id.clone()) {
            return Err(fail(format!("duplicate code object id {id:?}")));
        }
        let relative = match item.get("path").and_then(Value::as_str) {
            Some(relative) if !relative.is_empty() => relative,
            _ => {
                return Err(fail(format!(
                    "code_objects[{index}]: path must be a non-empty string"
                )))
            }
        };
        let object = resolve_contained(&base, relative)
            .map_err(|p| fail(format!("code_objects[{index}] ({id:?}): {p}")))?;
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
        Some(value) => {
            validate_metadata(value).map_err(|p| fail(format!("metadata: {p}")))?;
            value.clone()
        }
    };
    let mut out = Vec::new();
    for (id, object, sha256, size) in entries {
        // The original ignores these fields; a mismatch is worth a warning, not a refusal.
        if sha256.is_some() || size.is_some() {
            let bytes = loader.read(&object, "code object")?;
            let sha_differs = sha256.is_some_and(|expected| {
                expected.as_str() != Some(crate::case::sha256_hex(&bytes).as_str())
            });
            let size_differs =
                size.is_some_and(|expected| expected.as_u64() != Some(bytes.len() as u64));
            for (differs, field) in [(sha_differs, "sha256"), (size_differs, "size")] {
                if differs {
                    loader.warnings.push(format!(
                        "{}: code object {id:?}: the bundle's {field} does not match the file; \
                         the file's content is used",
                        path.display()
                    ));
                }
            }
        }
        out.push((id, object));
    }
    Ok((out, metadata))
}

#[cfg(test)]
mod tests;
