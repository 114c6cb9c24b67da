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
        ("{\"a\": NaN}".to_owned(), "invalid JSON"),
        ("{\"a\": Infinity}".to_owned(), "invalid JSON"),
        ("{\"a\": 1e999}".to_owned(), "invalid JSON"),
        (format!("{{{head}, \"code_objects\": [], \"version\": 1}}"), "duplicate key"),
        (format!("{{{head}, \"code_objects\": [], \"x\": 1}}"), "unknown bundle field"),
        (r#"{"format": "other", "version": 1, "code_objects": []}"#.to_owned(), "format"),
        (r#"{"format": "comgr-hotswap-reducer-bundle", "version": 2, "code_objects": []}"#.to_owned(), "version"),
        (format!("{{{head}, \"code_objects\": {{}}}}"), "must be a list"),
        (format!("{{{head}, \"code_objects\": [{{\"id\": \"\", \"path\": \"a.co\"}}]}}"), "non-empty string"),
        (format!("{{{head}, \"code_objects\": [{{\"id\": 3, \"path\": \"a.co\"}}]}}"), "non-empty string"),
        (format!("{{{head}, \"code_objects\": [{{\"id\": \"a\", \"path\": \"a.co\"}}, {{\"id\": \"a\", \"path\": \"a.co\"}}]}}"), "not unique"),
        (format!("{{{head}, \"code_objects\": [{{\"id\": \"a\", \"path\": \"../x.co\"}}]}}"), "x.co"),
        (format!("{{{head}, \"code_objects\": [{{\"id\": \"a\", \"path\": \"link.co\"}}]}}"), "escapes"),
        (format!("{{{head}, \"code_objects\": [{{\"id\": \"a\", \"path\": \"/etc/passwd\"}}]}}"), "absolute"),
        (format!("{{{head}, \"code_objects\": [{{\"id\": \"a\", \"path\": \"sub\"}}]}}"), "not a regular file"),
        (format!("{{{head}, \"code_objects\": [{{\"id\": \"a\", \"path\": \"missing.co\"}}]}}"), "missing.co"),
        (format!("{{{head}, \"code_objects\": [{{\"id\": \"a\", \"path\": \"a.co\", \"what\": 1}}]}}"), "unknown field"),
        (format!("{{{head}, \"code_objects\": [{{\"id\": \"a\", \"path\": \"a.co\", \"size\": 5}}]}}"), "size does not match"),
        (format!("{{{head}, \"code_objects\": [], \"metadata\": 5}}"), "\"metadata\" must be"),
        (format!("{{{head}, \"code_objects\": [], \"metadata\": {{\"kernels\": {{}}}}}}"), "\"kernels\" must be a list"),
        (format!("{{{head}, \"code_objects\": [], \"metadata\": {{\"cases\": [1]}}}}"), "cases[0] must be an object"),
        (format!("{{{head}, \"code_objects\": [], \"metadata\": {{\"cases\": [{{\"arguments\": 1}}]}}}}"), "cases[0].arguments"),
        (format!("{{{head}, \"code_objects\": [], \"metadata\": {{\"selected_tests\": \"x\"}}}}"), "selected_tests"),
        (format!("{{{head}, \"code_objects\": [], \"metadata\": \"../m.json\"}}"), "metadata"),
    ];
    for (text, needle) in cases {
        let error = error_of(dir.path(), &text);
        assert!(error.contains("bundle.json"), "{text}: {error}");
        assert!(error.contains(needle), "{text}: {error}");
    }
}

#[test]
fn external_metadata_errors_name_the_metadata_file() {
    let dir = tempfile::tempdir().unwrap();
    write(dir.path(), "m.json", b"{\"kernels\": NaN}");
    let error = error_of(
        dir.path(),
        r#"{"format": "comgr-hotswap-reducer-bundle", "version": 1, "code_objects": [], "metadata": "m.json"}"#,
    );
    assert!(
        error.contains("m.json") && error.contains("invalid JSON"),
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
        .contains("NUL-terminated"));
    assert!(split_worklist(b"a\0\0b\0")
        .unwrap_err()
        .contains("entry 2 is empty"));
    assert!(split_worklist(b"\0")
        .unwrap_err()
        .contains("entry 1 is empty"));

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
    assert_eq!(snapshot.case.objects[0].id, "objs/a b.co");
    assert_eq!(snapshot.case.objects[1].bytes.as_slice(), b"b");
    assert!(!other.path().join("x").exists());

    write(dir.path(), "list", b"objs/a b.co\0./objs/a b.co\0");
    let error = load(&InputSource::Worklist(worklist.clone(), None)).unwrap_err();
    assert!(error.to_string().contains("duplicate"), "{error}");
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
    let error = load(&InputSource::CodeObjects(vec![a.clone(), a.clone()], None)).unwrap_err();
    assert!(error.to_string().contains("more than once"));
    let bad_meta = write(dir.path(), "m.json", b"[]");
    let error = load(&InputSource::CodeObjects(vec![a], Some(bad_meta))).unwrap_err();
    assert!(error.to_string().contains("m.json") && error.to_string().contains("object"));
}
