//! Candidate workspaces: sanitized object file names, materialization of a candidate
//! (`bundle.json`, `metadata.json`, `objects/…`) and placeholder values.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use crate::case::BundleCase;
use crate::store::{Lease, Source};

/// Placeholders a bundle predicate may use.
pub const PLACEHOLDERS: [&str; 4] = ["bundle", "metadata", "workspace", "input"];

/// A file-name-safe version of `name`: ASCII letters, digits, `.`, `_`, `-` kept, everything
/// else `_`, no leading dot, at most 100 characters, never empty.
pub fn sanitize_name(name: &str) -> String {
    let mut out: String = name
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || matches!(c, '.' | '_' | '-') {
                c
            } else {
                '_'
            }
        })
        .collect();
    while out.starts_with('.') {
        out.replace_range(0..1, "_");
    }
    if out.len() > 100 {
        out.truncate(100);
    }
    if out.is_empty() {
        out.push_str("object");
    }
    out
}

/// Unique, sanitized names for objects read from `paths`, in order; clashes (compared
/// case-insensitively) get `-2`, `-3`, … before the extension.
pub fn unique_object_names<'a>(paths: impl Iterator<Item = &'a Path>) -> Vec<String> {
    let mut taken = BTreeSet::new();
    let mut names = Vec::new();
    for path in paths {
        let base = sanitize_name(
            &path
                .file_name()
                .map(|n| n.to_string_lossy().into_owned())
                .unwrap_or_default(),
        );
        let (stem, extension) = match base.rfind('.') {
            Some(dot) if dot > 0 => (base[..dot].to_owned(), base[dot..].to_owned()),
            _ => (base.clone(), String::new()),
        };
        let mut candidate = base.clone();
        let mut counter = 2;
        while !taken.insert(candidate.to_ascii_lowercase()) {
            candidate = format!("{stem}-{counter}{extension}");
            counter += 1;
        }
        names.push(candidate);
    }
    names
}

/// Writes a candidate into the empty directory `dir` as real files (the published output).
pub fn materialize(case: &BundleCase, dir: &Path) -> std::io::Result<()> {
    let objects = dir.join("objects");
    std::fs::create_dir(&objects)?;
    for object in &case.objects {
        std::fs::write(objects.join(&object.name), object.bytes.as_slice())?;
    }
    std::fs::write(dir.join("metadata.json"), case.metadata.json())?;
    std::fs::write(dir.join("bundle.json"), case.bundle_json())?;
    Ok(())
}

/// Creates a candidate in the empty directory `dir` with its objects and `metadata.json` hard
/// linked from the content store (see [`crate::store`]); `bundle.json` differs for nearly every
/// candidate and is written directly.
pub fn materialize_linked<'a>(
    case: &'a BundleCase,
    dir: &Path,
    lease: &mut Lease<'a>,
) -> std::io::Result<()> {
    let objects = dir.join("objects");
    std::fs::create_dir(&objects)?;
    for object in &case.objects {
        let key = format!("o-{}", object.sha256);
        lease.place(
            &key,
            Source::Bytes(&object.bytes),
            &objects.join(&object.name),
        )?;
    }
    let key = format!("m-{}", case.metadata.digest());
    lease.place(
        &key,
        Source::Metadata(&case.metadata),
        &dir.join("metadata.json"),
    )?;
    std::fs::write(dir.join("bundle.json"), case.bundle_json())?;
    Ok(())
}

/// The value of `placeholder` for `case` materialized at `dir` (`None`: no value, e.g.
/// `{input}` unless exactly one object remains).
pub fn placeholder_value(case: &BundleCase, dir: &Path, placeholder: &str) -> Option<PathBuf> {
    match placeholder {
        "bundle" => Some(dir.join("bundle.json")),
        "metadata" => Some(dir.join("metadata.json")),
        "workspace" => Some(dir.to_path_buf()),
        "input" if case.objects.len() == 1 => Some(dir.join("objects").join(&case.objects[0].name)),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::case::{CodeObject, Metadata};
    use std::sync::Arc;

    #[test]
    fn names_are_sanitized_and_unique() {
        let paths = [
            "/a/case 17.co",
            "/b/case_17.co",
            "/c/CASE_17.co",
            "/d/..hidden",
            "/e/ü$(rm -rf).co",
            "/f/noext",
            "/g/noext",
        ];
        let names = unique_object_names(paths.iter().map(Path::new));
        assert_eq!(
            names,
            [
                "case_17.co",
                "case_17-2.co",
                "CASE_17-3.co",
                "_.hidden",
                "___rm_-rf_.co",
                "noext",
                "noext-2"
            ]
        );
        assert_eq!(sanitize_name(""), "object");
        assert_eq!(sanitize_name(&"x".repeat(300)).len(), 100);
    }

    #[test]
    fn materializes_and_expands_placeholders() {
        let dir = tempfile::tempdir().unwrap();
        let case = BundleCase {
            objects: vec![CodeObject::new("id".into(), "k.co".into(), b"elf".to_vec())],
            metadata: Arc::new(Metadata::new(serde_json::json!({"kernels": ["k"]}))),
            tool_error: None,
        };
        materialize(&case, dir.path()).unwrap();
        assert_eq!(
            std::fs::read(dir.path().join("objects/k.co")).unwrap(),
            b"elf"
        );
        let bundle: serde_json::Value =
            serde_json::from_slice(&std::fs::read(dir.path().join("bundle.json")).unwrap())
                .unwrap();
        assert_eq!(bundle["metadata"], "metadata.json");
        assert_eq!(bundle["code_objects"][0]["path"], "objects/k.co");
        assert_eq!(bundle["code_objects"][0]["size"], 3);
        assert_eq!(
            placeholder_value(&case, dir.path(), "input").unwrap(),
            dir.path().join("objects/k.co")
        );
        let mut two = case.clone();
        two.objects.push(case.objects[0].clone());
        assert!(placeholder_value(&two, dir.path(), "input").is_none());
    }
}
