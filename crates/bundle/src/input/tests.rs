use super::*;
use std::os::unix::fs::symlink;

fn write(dir: &Path, name: &str, bytes: &[u8]) -> PathBuf {
    let path = dir.join(name);
    if let Some(parent) = path.parent() {
        std::fs::create_dir_all(parent).unwrap();
    }
    std::fs::write(&path, bytes).unwrap();
    path
}

fn bundle(dir: &Path, text: &str) -> Result<Snapshot, InputError> {
    let path = write(dir, "bundle.json", text.as_bytes());
    load(&InputSource::Bundle(path))
}

fn error_of(dir: &Path, text: &str) -> String {
    bundle(dir, text).unwrap_err().to_string()
}

#[test]
fn loads_a_bundle_with_special_paths_and_external_metadata() {
    let dir = tempfile::tempdir().unwrap();
    write(dir.path(), "objects/case 17 $(x).co", b"one");
    write(
        dir.path(),
        "meta.json",
        br#"{"kernels": [1], "extra": {"a": 1}}"#,
    );
    let snapshot = bundle(
        dir.path(),
        r#"{"format": "comgr-hotswap-reducer-bundle", "version": 1,
            "code_objects": [{"id": "c17", "path": "objects/case 17 $(x).co"}],
            "metadata": "meta.json"}"#,
    )
    .unwrap();
    assert_eq!(snapshot.case.objects[0].name, "case_17___x_.co");
    assert_eq!(snapshot.case.objects[0].bytes.as_slice(), b"one");
    assert_eq!(snapshot.case.metadata.to_value()["extra"]["a"], 1);
    assert_eq!(snapshot.input_paths().len(), 3);
    snapshot.verify().unwrap();
    write(dir.path(), "meta.json", br#"{"kernels": []}"#);
    assert!(snapshot
        .verify()
        .unwrap_err()
        .to_string()
        .contains("changed"));
}

#[test]
fn rejects_malformed_bundles_naming_file_and_problem() {
    let dir = tempfile::tempdir().unwrap();
    write(dir.path(), "a.co", b"a");
    let outside = tempfile::tempdir().unwrap();
    write(outside.path(), "x.co", b"x");
    symlink(outside.path().join("x.co"), dir.path().join("link.co")).unwrap();
    std::fs::create_dir(dir.path().join("sub")).unwrap();
    let head = r#""format": "comgr-hotswap-reducer-bundle", "version": 1"#;
    let cases = [
        ("[1]".to_owned(), "must be a JSON object"),
        ("{\"a\": NaN}".to_owned(), "non-finite"),
        ("{\"a\": Infinity}".to_owned(), "non-finite"),
        ("{\"a\": 1e999}".to_owned(), "non-finite"),
        ("{\"a\": 1".to_owned(), "malformed JSON"),
        (r#"{"format": "other", "version": 1, "code_objects": []}"#.to_owned(), "format must be"),
        (r#"{"format": "comgr-hotswap-reducer-bundle", "version": 2, "code_objects": []}"#.to_owned(), "unsupported bundle version 2"),
        (r#"{"format": "comgr-hotswap-reducer-bundle", "version": "1", "code_objects": []}"#.to_owned(), "unsupported bundle version"),
        (format!("{{{head}, \"code_objects\": {{}}}}"), "code_objects must be a non-empty JSON list"),
        (format!("{{{head}, \"code_objects\": []}}"), "code_objects must be a non-empty JSON list"),
        (format!("{{{head}, \"code_objects\": [1]}}"), "code_objects[0] must be a JSON object"),
        (format!("{{{head}, \"code_objects\": [{{\"id\": \"\", \"path\": \"a.co\"}}]}}"), "non-empty string"),
        (format!("{{{head}, \"code_objects\": [{{\"id\": 3, \"path\": \"a.co\"}}]}}"), "non-empty string"),
        (format!("{{{head}, \"code_objects\": [{{\"id\": \"a\", \"path\": \"\"}}]}}"), "path must be a non-empty string"),
        (format!("{{{head}, \"code_objects\": [{{\"id\": \"a\", \"path\": \"a.co\"}}, {{\"id\": \"a\", \"path\": \"a.co\"}}]}}"), "duplicate code object id"),
        (format!("{{{head}, \"code_objects\": [{{\"id\": \"a\", \"path\": \"../x.co\"}}]}}"), "x.co"),
        (format!("{{{head}, \"code_objects\": [{{\"id\": \"a\", \"path\": \"link.co\"}}]}}"), "escapes"),
        (format!("{{{head}, \"code_objects\": [{{\"id\": \"a\", \"path\": \"/etc/passwd\"}}]}}"), "must be relative"),
        (format!("{{{head}, \"code_objects\": [{{\"id\": \"a\", \"path\": \"sub\"}}]}}"), "not a regular file"),
        (format!("{{{head}, \"code_objects\": [{{\"id\": \"a\", \"path\": \"missing.co\"}}]}}"), "missing.co"),
        (format!("{{{head}, \"code_objects\": [{{\"id\": \"a\", \"path\": \"a.co\"}}], \"metadata\": 5}}"), "metadata must be a JSON object"),
        (format!("{{{head}, \"code_objects\": [{{\"id\": \"a\", \"path\": \"a.co\"}}], \"metadata\": null}}"), "metadata must be a JSON object"),
        (format!("{{{head}, \"code_objects\": [{{\"id\": \"a\", \"path\": \"a.co\"}}], \"metadata\": {{\"kernels\": {{}}}}}}"), "metadata.kernels must be a JSON list"),
        (format!("{{{head}, \"code_objects\": [{{\"id\": \"a\", \"path\": \"a.co\"}}], \"metadata\": {{\"cases\": [{{\"arguments\": 1}}]}}}}"), "metadata.cases[0].arguments must be a JSON list"),
        (format!("{{{head}, \"code_objects\": [{{\"id\": \"a\", \"path\": \"a.co\"}}], \"metadata\": {{\"selected_tests\": \"x\"}}}}"), "metadata.selected_tests"),
        (format!("{{{head}, \"code_objects\": [{{\"id\": \"a\", \"path\": \"a.co\"}}], \"metadata\": \"../m.json\"}}"), "metadata"),
    ];
    for (text, needle) in cases {
        let error = error_of(dir.path(), &text);
        assert!(error.contains("bundle.json"), "{text}: {error}");
        assert!(error.contains(needle), "{text}: {error}");
    }
}

#[test]
fn accepts_what_the_original_accepts() {
    let dir = tempfile::tempdir().unwrap();
    write(dir.path(), "a.co", b"a");
    // Non-object list items, unknown fields, version 1.0, a duplicate key (last value wins),
    // and sha256/size fields that do not match the file (ignored, with warnings).
    let snapshot = bundle(
        dir.path(),
        r#"{"format": "comgr-hotswap-reducer-bundle", "version": 1.0, "extra": [1],
            "code_objects": [{"id": "a", "path": "a.co", "sha256": "00", "size": 9, "note": 1}],
            "metadata": {"cases": ["c0", 1, null, {"arguments": [1]}, {"name": "x"}],
                         "kernels": [[1], {"a": 1}], "kernels": ["k"]}}"#,
    )
    .unwrap();
    let metadata = snapshot.case.metadata.to_value();
    assert_eq!(metadata["cases"][0], "c0");
    assert_eq!(metadata["kernels"], serde_json::json!(["k"]));
    assert_eq!(snapshot.warnings.len(), 3, "{:?}", snapshot.warnings);
    assert!(snapshot
        .warnings
        .iter()
        .any(|w| w.contains("duplicate key \"kernels\"")));
    assert!(snapshot
        .warnings
        .iter()
        .any(|w| w.contains("sha256 does not match")));
}

#[test]
fn external_metadata_errors_name_the_metadata_file() {
    let dir = tempfile::tempdir().unwrap();
    write(dir.path(), "m.json", b"{\"kernels\": NaN}");
    write(dir.path(), "a.co", b"a");
    let error = error_of(
        dir.path(),
        r#"{"format": "comgr-hotswap-reducer-bundle", "version": 1, "code_objects": [{"id": "a", "path": "a.co"}], "metadata": "m.json"}"#,
    );
    assert!(
        error.contains("m.json") && error.contains("non-finite"),
        "{error}"
    );
}

#[test]
fn worklists() {
    assert_eq!(
        split_worklist(b"a\0b c\0").unwrap(),
        vec![b"a".to_vec(), b"b c".to_vec()]
    );
    assert!(split_worklist(b"").unwrap_err().contains("empty"));
    assert!(split_worklist(b"a\0b")
        .unwrap_err()
        .contains("must end with NUL"));
    assert!(split_worklist(b"a\0\0b\0")
        .unwrap_err()
        .contains("empty path (entry 2)"));
    assert!(split_worklist(b"\0")
        .unwrap_err()
        .contains("empty path (entry 1)"));

    let dir = tempfile::tempdir().unwrap();
    write(dir.path(), "objs/a b.co", b"a");
    let other = tempfile::tempdir().unwrap();
    let absolute = write(other.path(), "$(touch x);.co", b"b");
    let mut list = b"objs/a b.co\0".to_vec();
    list.extend_from_slice(absolute.as_os_str().as_bytes());
    list.push(0);
    let worklist = write(dir.path(), "list", &list);
    let meta = write(
        dir.path(),
        "sel.json",
        br#"{"selected_tests": ["t1"], "x": 1}"#,
    );
    let snapshot = load(&InputSource::Worklist(worklist.clone(), Some(meta))).unwrap();
    assert_eq!(snapshot.case.objects.len(), 2);
    assert_eq!(snapshot.case.objects[0].id, "object-0000");
    assert_eq!(snapshot.case.objects[1].id, "object-0001");
    assert_eq!(&*snapshot.case.objects[0].original_name, "a b.co");
    assert_eq!(snapshot.case.objects[1].bytes.as_slice(), b"b");
    assert!(!other.path().join("x").exists());

    write(dir.path(), "list", b"objs/a b.co\0./objs/a b.co\0");
    let error = load(&InputSource::Worklist(worklist.clone(), None)).unwrap_err();
    assert!(
        error.to_string().contains("duplicate worklist path"),
        "{error}"
    );
    write(dir.path(), "list", b"nope.co\0");
    let error = load(&InputSource::Worklist(worklist, None)).unwrap_err();
    assert!(error.to_string().contains("nope.co"), "{error}");
}

#[test]
fn direct_code_objects() {
    let dir = tempfile::tempdir().unwrap();
    let a = write(dir.path(), "a.co", b"a");
    let snapshot = load(&InputSource::CodeObjects(vec![a.clone()], None)).unwrap();
    assert_eq!(snapshot.case.metadata.to_value(), serde_json::json!({}));
    // The original accepts a file given twice (two objects, object-0000 and object-0001).
    let twice = load(&InputSource::CodeObjects(vec![a.clone(), a.clone()], None)).unwrap();
    let ids: Vec<&str> = twice.case.objects.iter().map(|o| o.id.as_str()).collect();
    assert_eq!(ids, ["object-0000", "object-0001"]);
    let bad_meta = write(dir.path(), "m.json", b"[]");
    let error = load(&InputSource::CodeObjects(vec![a], Some(bad_meta))).unwrap_err();
    assert!(error.to_string().contains("m.json") && error.to_string().contains("object"));
}
