//! Reliability: bad inputs. Every malformed bundle, metadata document, worklist or output location
//! fails with one clear line that names the file and the problem, exit status 1, before any
//! predicate runs, without publishing anything, without a panic or stack overflow, and without
//! leaving temporary files behind.

use std::ffi::OsString;
use std::os::unix::ffi::OsStringExt;
use std::os::unix::fs::symlink;
use std::path::{Path, PathBuf};

use crate::support::bundle::*;
use crate::support::*;

const HEAD: &str = r#""format": "comgr-hotswap-reducer-bundle", "version": 1"#;

/// A test area with one object `a.co`, a marking predicate and a `mkfifo`'d `fifo`.
struct Setup {
    area: Area,
    predicate: PathBuf,
    marker: PathBuf,
}

impl Setup {
    fn new() -> Self {
        let area = Area::new();
        copy_fixture("alpha.co", &area.input(), "a.co");
        copy_fixture("beta.co", &area.input(), "sub/b.co");
        let (predicate, marker) = marking_predicate(&area.input());
        let fifo = area.input().join("fifo");
        let status = std::process::Command::new("mkfifo")
            .arg(&fifo)
            .status()
            .unwrap();
        assert!(status.success());
        Setup {
            area,
            predicate,
            marker,
        }
    }

    fn dir(&self) -> PathBuf {
        self.area.input()
    }

    fn write(&self, name: &str, bytes: &[u8]) -> PathBuf {
        let path = self.dir().join(name);
        std::fs::write(&path, bytes).unwrap();
        path
    }

    /// `minrepro bundle --code-object OBJECT --output OUT` with the marking predicate.
    fn object_cmd(&self, object: &Path, out: &Path) -> assert_cmd::Command {
        let mut command = self.area.bundle_cmd();
        command
            .arg("--code-object")
            .arg(object)
            .arg("--output")
            .arg(out);
        command.arg("--predicate").arg(&self.predicate);
        command
    }

    /// Runs `minrepro bundle` with `args` plus output and predicate, and checks the rejection:
    /// exit 1, one line naming `names_file` and containing `needle`, no predicate run, nothing
    /// published, no temporary leftovers, inputs unchanged.
    fn rejects(&self, label: &str, args: &[OsString], names_file: &str, needle: &str) {
        let before = files(&self.dir());
        let out = self.area.out("out");
        let output = self
            .area
            .output_cmd(&out, &self.predicate)
            .args(args)
            .timeout(std::time::Duration::from_secs(60))
            .output()
            .unwrap();
        let stderr = String::from_utf8_lossy(&output.stderr).into_owned();
        // A file named on the command line that does not exist is a usage error (exit 2);
        // anything wrong with an input that exists is an error of the input (exit 1).
        let named_and_missing = needle == "No such file" && label.ends_with(" missing");
        let expected = if named_and_missing { 2 } else { 1 };
        assert_eq!(output.status.code(), Some(expected), "{label}: {stderr}");
        assert!(
            stderr.starts_with("minrepro bundle: error: "),
            "{label}: {stderr}"
        );
        assert_eq!(
            stderr.lines().count(),
            1,
            "{label}: not a one-line error: {stderr}"
        );
        assert!(
            stderr.contains(names_file),
            "{label}: the error does not name {names_file}: {stderr}"
        );
        assert!(
            stderr.contains(needle),
            "{label}: expected {needle:?} in: {stderr}"
        );
        assert!(!stderr.contains("panicked"), "{label}: {stderr}");
        assert!(!self.marker.exists(), "{label}: a predicate ran");
        assert!(!out.exists(), "{label}: something was published");
        assert!(self.area.tmp_is_empty(), "{label}: temporary leftovers");
        assert!(files(&self.dir()) == before, "{label}: inputs changed");
        let siblings = self.area.root_names_with(&["minrepro"]);
        assert!(siblings.is_empty(), "{label}: staging left: {siblings:?}");
    }

    /// Expects `FLAGS PATH` (the last flag takes the file `path` of a bad kind) to be rejected
    /// with an error naming the file.
    fn rejects_file(&self, label: &str, flags: &[OsString], path: PathBuf, needle: &str) {
        let name = path.file_name().unwrap().to_string_lossy().into_owned();
        let args = [flags, &[path.into()]].concat();
        self.rejects(label, &args, &name, needle);
    }

    /// Writes `text` as `bundle.json` and expects it to be accepted as the original accepts it,
    /// with a warning containing `warning` when given.
    fn accepts_bundle(&self, label: &str, text: &[u8], warning: Option<&str>) {
        let bundle = self.write("bundle.json", text);
        let out = self.area.out("accepted");
        let output = self
            .area
            .reduce_cmd(&bundle, &out, &self.predicate)
            .output()
            .unwrap();
        let stderr = String::from_utf8_lossy(&output.stderr).into_owned();
        assert!(output.status.success(), "{label}: {stderr}");
        if let Some(warning) = warning {
            assert!(
                stderr.contains(warning),
                "{label}: expected {warning:?} in: {stderr}"
            );
        }
        std::fs::remove_dir_all(&out).unwrap();
        std::fs::remove_file(&self.marker).ok();
    }

    /// Writes `text` as `bundle.json` and expects a rejection naming it.
    fn rejects_bundle(&self, label: &str, text: &[u8], needle: &str) {
        let bundle = self.write("bundle.json", text);
        self.rejects(
            label,
            &["--bundle".into(), bundle.into()],
            "bundle.json",
            needle,
        );
    }

    /// Writes `text` as `meta.json` (given with `--code-object a.co --metadata`) and expects a
    /// rejection naming it.
    fn rejects_metadata(&self, label: &str, text: &[u8], needle: &str) {
        let meta = self.write("meta.json", text);
        self.rejects(
            label,
            &[
                "--code-object".into(),
                self.dir().join("a.co").into(),
                "--metadata".into(),
                meta.into(),
            ],
            "meta.json",
            needle,
        );
    }
}

/// Every regular file under `dir` (symlinks, FIFOs and the like are not followed or read) with
/// its size and content.
fn files(dir: &Path) -> Vec<(PathBuf, Vec<u8>)> {
    let mut out = Vec::new();
    for entry in std::fs::read_dir(dir).unwrap().flatten() {
        let kind = entry.file_type().unwrap();
        if kind.is_dir() {
            out.extend(files(&entry.path()));
        } else if kind.is_file() {
            out.push((entry.path(), std::fs::read(entry.path()).unwrap()));
        } else {
            out.push((entry.path(), Vec::new()));
        }
    }
    out.sort();
    out
}

fn bundle_with(objects: &str, metadata: &str) -> String {
    format!("{{{HEAD}, \"code_objects\": {objects}, \"metadata\": {metadata}}}")
}

/// The rows `label | JSON | needle` of a table written one case a line.
fn rows(table: &str) -> impl Iterator<Item = [&str; 3]> {
    table
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty())
        .map(|line| {
            let cells: Vec<&str> = line.split(" | ").collect();
            assert_eq!(cells.len(), 3, "{line}");
            [cells[0], cells[1], cells[2]]
        })
}

const ONE: &str = r#"[{"id": "a", "path": "a.co"}]"#;

#[test]
fn truncated_and_invalid_json_is_rejected() {
    let setup = Setup::new();
    let valid = bundle_with(
        ONE,
        r#"{"kernels": [{"name": "k"}], "cases": [{"arguments": [1, 2]}], "note": "é"}"#,
    );
    // Every proper prefix of a valid document is invalid JSON.
    for cut in (0..valid.len()).step_by(7).chain([valid.len() - 1]) {
        if !valid.is_char_boundary(cut) {
            continue;
        }
        setup.rejects_bundle(
            &format!("prefix {cut}"),
            &valid.as_bytes()[..cut],
            "malformed JSON",
        );
    }
    for (label, text) in [
        ("trailing comma", "[1,]".to_owned()),
        ("trailing garbage", format!("{valid} x")),
        ("two documents", format!("{valid}{valid}")),
        ("byte order mark", format!("\u{feff}{valid}")),
        ("single quotes", "{'format': 1}".to_owned()),
        ("comment", format!("// c\n{valid}")),
        ("NaN", bundle_with(ONE, r#"{"kernels": [NaN]}"#)),
        ("Infinity", bundle_with(ONE, r#"{"kernels": [Infinity]}"#)),
        ("-Infinity", bundle_with(ONE, r#"{"kernels": [-Infinity]}"#)),
        ("1e999", bundle_with(ONE, r#"{"kernels": [1e999]}"#)),
        (
            "lone surrogate",
            bundle_with(ONE, r#"{"kernels": ["\ud800"]}"#),
        ),
    ] {
        setup.rejects_bundle(label, text.as_bytes(), "malformed JSON");
    }
    // Raw NUL and non-UTF-8 bytes.
    let mut raw = bundle_with(ONE, r#"{"kernels": ["x"]}"#).into_bytes();
    let at = raw.iter().position(|&b| b == b'x').unwrap();
    for byte in [0u8, 0xff, 0xc3] {
        raw[at] = byte;
        setup.rejects_bundle(&format!("byte {byte:#x}"), &raw, "malformed JSON");
    }
    setup.rejects_bundle("empty file", b"", "malformed JSON");
    setup.rejects_metadata("metadata prefix", br#"{"kernels": [1, "#, "malformed JSON");
}

#[test]
fn duplicate_keys_huge_numbers_and_deep_nesting_are_rejected() {
    let setup = Setup::new();
    // The original (Python's json) accepts duplicate keys and keeps the last value; so do we,
    // with a warning.
    for (label, text) in [
        (
            "top-level duplicate",
            format!("{{{HEAD}, \"version\": 1, \"code_objects\": {ONE}}}"),
        ),
        (
            "object duplicate",
            bundle_with(r#"[{"id": "b", "id": "a", "path": "a.co"}]"#, "{}"),
        ),
        (
            "nested metadata duplicate",
            bundle_with(ONE, r#"{"cases": [{"x": {"k": 1, "k": 1}}]}"#),
        ),
    ] {
        setup.accepts_bundle(label, text.as_bytes(), Some("duplicate key"));
    }
    for number in [
        "18446744073709551616",
        "-9223372036854775809",
        &"9".repeat(5000),
    ] {
        setup.rejects_bundle(
            &format!("integer {}", &number[..number.len().min(30)]),
            bundle_with(ONE, &format!(r#"{{"kernels": [{number}]}}"#)).as_bytes(),
            "outside the 64-bit range",
        );
    }
    setup.rejects_bundle(
        "huge version",
        format!(r#"{{"format": "comgr-hotswap-reducer-bundle", "version": 1e400, "code_objects": {ONE}}}"#).as_bytes(),
        "malformed JSON",
    );
    // 100,000-deep nesting: a clear error, not a stack overflow.
    let deep =
        |open: &str, close: &str| format!("{}{}", open.repeat(100_000), close.repeat(100_000));
    setup.rejects_bundle(
        "deep metadata list",
        bundle_with(ONE, &format!(r#"{{"kernels": {}}}"#, deep("[", "]"))).as_bytes(),
        "nested more than 128 levels",
    );
    setup.rejects_bundle(
        "deep objects",
        bundle_with(
            ONE,
            &format!(
                r#"{{"owner": {}1{}}}"#,
                r#"{"a":"#.repeat(100_000),
                "}".repeat(100_000)
            ),
        )
        .as_bytes(),
        "nested more than 128 levels",
    );
    setup.rejects_bundle(
        "deep top level",
        deep("[", "]").as_bytes(),
        "nested more than 128 levels",
    );
    setup.rejects_metadata(
        "deep metadata file",
        format!(r#"{{"cases": [{{"arguments": {}}}]}}"#, deep("[", "]")).as_bytes(),
        "nested more than 128 levels",
    );
    // Right at the limit is fine (and reduces).
    let fine = format!(r#"{{"kernels": [{}{}]}}"#, "[".repeat(120), "]".repeat(120));
    let meta = setup.write("meta-ok.json", fine.as_bytes());
    let out = setup.area.out("deep-ok");
    setup
        .object_cmd(&setup.dir().join("a.co"), &out)
        .arg("--metadata")
        .arg(&meta)
        .assert()
        .success();
    assert!(out.join("metadata.json").is_file());
}

#[test]
fn wrong_types_at_every_level_are_rejected() {
    let setup = Setup::new();
    let obj = |item: &str| bundle_with(&format!("[{item}]"), "{}");
    let cases: Vec<(&str, String, &str)> = vec![
        ("top list", "[]".into(), "must be a JSON object"),
        ("top string", "\"x\"".into(), "must be a JSON object"),
        ("top null", "null".into(), "must be a JSON object"),
        ("top number", "1".into(), "must be a JSON object"),
        (
            "format number",
            format!(r#"{{"format": 1, "version": 1, "code_objects": {ONE}}}"#),
            "format must be",
        ),
        (
            "format other",
            format!(r#"{{"format": "other", "version": 1, "code_objects": {ONE}}}"#),
            "format must be",
        ),
        (
            "format missing",
            format!(r#"{{"version": 1, "code_objects": {ONE}}}"#),
            "format must be",
        ),
        (
            "version string",
            format!(
                r#"{{"format": "comgr-hotswap-reducer-bundle", "version": "1", "code_objects": {ONE}}}"#
            ),
            "unsupported bundle version",
        ),
        (
            "version 2",
            format!(
                r#"{{"format": "comgr-hotswap-reducer-bundle", "version": 2, "code_objects": {ONE}}}"#
            ),
            "unsupported bundle version",
        ),
        (
            "version negative",
            format!(
                r#"{{"format": "comgr-hotswap-reducer-bundle", "version": -1, "code_objects": {ONE}}}"#
            ),
            "unsupported bundle version",
        ),
        (
            "code_objects object",
            bundle_with("{}", "{}"),
            "code_objects must be a non-empty JSON list",
        ),
        (
            "code_objects string",
            bundle_with("\"a.co\"", "{}"),
            "code_objects must be a non-empty JSON list",
        ),
        (
            "code_objects null",
            bundle_with("null", "{}"),
            "code_objects must be a non-empty JSON list",
        ),
        (
            "code_objects missing",
            format!("{{{HEAD}}}"),
            "code_objects must be a non-empty JSON list",
        ),
        (
            "duplicate id",
            bundle_with(
                r#"[{"id": "a", "path": "a.co"}, {"id": "a", "path": "sub/b.co"}]"#,
                "{}",
            ),
            "duplicate code object id",
        ),
    ];
    for (label, text, needle) in cases {
        setup.rejects_bundle(label, text.as_bytes(), needle);
    }
    // One code object item, then the metadata: `label | JSON | what the error says`.
    let items = r#"
        item string | "a.co" | code_objects[0] must be a JSON object
        item list | [] | code_objects[0] must be a JSON object
        id number | {"id": 1, "path": "a.co"} | id must be a non-empty string
        id empty | {"id": "", "path": "a.co"} | id must be a non-empty string
        id null | {"id": null, "path": "a.co"} | id must be a non-empty string
        id missing | {"path": "a.co"} | id must be a non-empty string
        path number | {"id": "a", "path": 1} | path must be a non-empty string
        path object | {"id": "a", "path": {}} | path must be a non-empty string
        path missing | {"id": "a"} | path must be a non-empty string
    "#;
    for [label, item, needle] in rows(items) {
        setup.rejects_bundle(label, obj(item).as_bytes(), needle);
    }
    let metadata = r#"
        metadata number | 1 | metadata must be a JSON object
        metadata list | [] | metadata must be a JSON object
        metadata bool | true | metadata must be a JSON object
        kernels object | {"kernels": {}} | metadata.kernels must be a JSON list
        kernels string | {"kernels": "k"} | metadata.kernels must be a JSON list
        cases null | {"cases": null} | metadata.cases must be a JSON list
        arguments number | {"arguments": 3} | metadata.arguments must be a JSON list
        selected_tests object | {"selected_tests": {"a": 1}} | metadata.selected_tests must be a JSON list
        case arguments string | {"cases": [{"arguments": "1 2"}]} | metadata.cases[0].arguments must be a JSON list
    "#;
    for [label, metadata, needle] in rows(metadata) {
        setup.rejects_bundle(label, bundle_with(ONE, metadata).as_bytes(), needle);
    }
    // What the original accepts: unknown fields, version 1.0, any item in a metadata list, and
    // sha256/size fields it never checks (we warn when they do not match the file).
    for (label, text, warning) in [
        (
            "unknown field",
            format!("{{{HEAD}, \"code_objects\": {ONE}, \"extra\": 1}}"),
            None,
        ),
        (
            "version float",
            format!(
                r#"{{"format": "comgr-hotswap-reducer-bundle", "version": 1.0, "code_objects": {ONE}}}"#
            ),
            None,
        ),
        (
            "item unknown field",
            obj(r#"{"id": "a", "path": "a.co", "x": 1}"#),
            None,
        ),
        (
            "case items of any type",
            bundle_with(ONE, r#"{"cases": [1, [], "c", null, {}]}"#),
            None,
        ),
        (
            "sha256 number",
            obj(r#"{"id": "a", "path": "a.co", "sha256": 1}"#),
            Some("sha256 does not match"),
        ),
        (
            "sha256 wrong",
            obj(r#"{"id": "a", "path": "a.co", "sha256": "00"}"#),
            Some("sha256 does not match"),
        ),
        (
            "size string",
            obj(r#"{"id": "a", "path": "a.co", "size": "4696"}"#),
            Some("size does not match"),
        ),
        (
            "size wrong",
            obj(r#"{"id": "a", "path": "a.co", "size": 1}"#),
            Some("size does not match"),
        ),
    ] {
        setup.accepts_bundle(label, text.as_bytes(), warning);
    }
    for (label, text, needle) in [
        ("metadata list", &b"[]"[..], "must be a JSON object"),
        ("metadata null", b"null", "must be a JSON object"),
        (
            "metadata kernels",
            br#"{"kernels": 1}"#,
            "metadata.kernels must be a JSON list",
        ),
        (
            "metadata cases",
            br#"{"cases": [{"arguments": {}}]}"#,
            "arguments must be a JSON list",
        ),
    ] {
        setup.rejects_metadata(label, text, needle);
    }
}

#[test]
fn bad_paths_are_rejected() {
    let setup = Setup::new();
    let dir = setup.dir();
    let outside = setup.area.root.path().join("outside");
    std::fs::create_dir(&outside).unwrap();
    copy_fixture("gamma.co", &outside, "g.co");
    symlink(&outside, dir.join("escape")).unwrap();
    symlink("../outside/g.co", dir.join("g-link.co")).unwrap();
    symlink("loop.co", dir.join("loop.co")).unwrap();
    symlink("ping.co", dir.join("pong.co")).unwrap();
    symlink("pong.co", dir.join("ping.co")).unwrap();
    symlink("missing-target", dir.join("dangling.co")).unwrap();
    let item = |path: &str| bundle_with(&format!(r#"[{{"id": "a", "path": {path}}}]"#), "{}");
    let outside_abs = serde_json::to_string(&outside.join("g.co")).unwrap();
    let cases: Vec<(&str, String, &str)> = vec![
        (
            "dot-dot",
            item(r#""../outside/g.co""#),
            "escapes the bundle directory",
        ),
        (
            "dot-dot inside then out",
            item(r#""sub/../../outside/g.co""#),
            "escapes the bundle directory",
        ),
        ("absolute", item(&outside_abs), "must be relative"),
        (
            "absolute inside",
            item(&serde_json::to_string(&dir.join("a.co")).unwrap()),
            "must be relative",
        ),
        (
            "symlinked directory leaving",
            item(r#""escape/g.co""#),
            "escapes the bundle directory",
        ),
        (
            "symlinked file leaving",
            item(r#""g-link.co""#),
            "escapes the bundle directory",
        ),
        ("symlink loop", item(r#""loop.co""#), "symbolic links"),
        ("symlink cycle", item(r#""ping.co""#), "symbolic links"),
        ("dangling symlink", item(r#""dangling.co""#), "dangling.co"),
        ("missing", item(r#""nope.co""#), "nope.co"),
        ("directory", item(r#""sub""#), "not a regular file"),
        ("fifo", item(r#""fifo""#), "not a regular file"),
        (
            "empty path",
            item(r#""""#),
            "path must be a non-empty string",
        ),
        ("NUL", item(r#""a.co\u0000.co""#), "NUL"),
        (
            "metadata dot-dot",
            bundle_with(ONE, r#""../outside/m.json""#),
            "escapes the bundle directory",
        ),
        (
            "metadata missing",
            bundle_with(ONE, r#""nope.json""#),
            "nope.json",
        ),
        (
            "metadata directory",
            bundle_with(ONE, r#""sub""#),
            "not a regular file",
        ),
        (
            "metadata fifo",
            bundle_with(ONE, r#""fifo""#),
            "not a regular file",
        ),
        (
            "metadata loop",
            bundle_with(ONE, r#""loop.co""#),
            "symbolic links",
        ),
    ];
    std::fs::write(outside.join("m.json"), "{}").unwrap();
    for (label, text, needle) in cases {
        setup.rejects_bundle(label, text.as_bytes(), needle);
    }
    // External metadata that is itself malformed names the metadata file.
    std::fs::write(dir.join("sub/m.json"), br#"{"kernels": NaN}"#).unwrap();
    setup.rejects(
        "external metadata invalid",
        &[
            "--bundle".into(),
            setup
                .write(
                    "bundle.json",
                    bundle_with(ONE, r#""sub/m.json""#).as_bytes(),
                )
                .into(),
        ],
        "m.json",
        "malformed JSON",
    );
    // The bundle, --code-object and --metadata files: missing or not a regular file.
    let with_metadata = vec![
        "--code-object".into(),
        dir.join("a.co").into(),
        "--metadata".into(),
    ];
    for (what, flags, missing) in [
        ("bundle", vec!["--bundle".into()], "nope.json"),
        ("object", vec!["--code-object".into()], "nope.co"),
        ("metadata flag", with_metadata, "nope.json"),
    ] {
        for (kind, name, needle) in [
            ("missing", missing, "No such file"),
            ("directory", "sub", "not a regular file"),
            ("fifo", "fifo", "not a regular file"),
            ("symlink loop", "loop.co", "symbolic links"),
        ] {
            setup.rejects_file(&format!("{what} {kind}"), &flags, dir.join(name), needle);
        }
    }
}

#[test]
fn bad_worklists_are_rejected_and_odd_names_work() {
    let setup = Setup::new();
    let dir = setup.dir();
    symlink("loop.co", dir.join("loop.co")).unwrap();
    for (label, bytes, needle) in [
        ("empty", &b""[..], "empty"),
        ("unterminated", b"a.co", "must end with NUL"),
        ("empty entry", b"a.co\0\0", "empty"),
        ("only NUL", b"\0", "empty"),
        ("duplicate", b"a.co\0./a.co\0", "duplicate"),
        ("dot-dot duplicate", b"a.co\0sub/../a.co\0", "duplicate"),
        ("missing entry", b"a.co\0nope.co\0", "nope.co"),
        ("directory entry", b"sub\0", "not a regular file"),
        ("fifo entry", b"fifo\0", "not a regular file"),
        ("loop entry", b"loop.co\0", "symbolic links"),
        ("newlines", b"a.co\nsub/b.co\n\0", "a.co\\nsub/b.co\\n"),
        ("non-UTF-8 missing", b"\xff\xfe.co\0", "entry #1"),
    ] {
        let list = setup.write("list", bytes);
        setup.rejects(label, &["--worklist".into(), list.into()], "list", needle);
    }
    for (label, path, needle) in [
        ("worklist missing", dir.join("nope.list"), "No such file"),
        ("worklist directory", dir.join("sub"), "not a regular file"),
        ("worklist fifo", dir.join("fifo"), "not a regular file"),
    ] {
        setup.rejects_file(label, &["--worklist".into()], path, needle);
    }
    // A non-UTF-8 object name and a name with shell syntax are ordinary paths.
    let odd = OsString::from_vec(b"odd \xff\xfe $(touch pwned);.co".to_vec());
    std::fs::copy(dir.join("a.co"), dir.join(&odd)).unwrap();
    let mut list = b"sub/b.co\0".to_vec();
    list.extend_from_slice(odd.as_encoded_bytes());
    list.push(0);
    let list = setup.write("odd.list", &list);
    let out = setup.area.out("odd-out");
    setup
        .area
        .output_cmd(&out, &setup.predicate)
        .arg("--worklist")
        .arg(&list)
        .assert()
        .success();
    assert!(!dir.join("pwned").exists());
    assert_eq!(std::fs::read_dir(out.join("objects")).unwrap().count(), 1);
}

#[test]
fn unreadable_inputs_are_rejected() {
    let setup = Setup::new();
    // SAFETY: geteuid has no side effects.
    let root = unsafe { libc::geteuid() } == 0;
    if root {
        // chmod 000 does not stop root; a directory or FIFO in place of a file is covered by
        // bad_paths_are_rejected. Here: a file inside a directory that is not searchable does
        // not stop root either, so only a /proc file that refuses reads is left.
        eprintln!(
            "note: running as root; chmod 000 cannot make a file unreadable, sub-case skipped"
        );
        let mem = PathBuf::from(format!("/proc/{}/mem", std::process::id()));
        setup.rejects(
            "unreadable /proc file",
            &["--code-object".into(), mem.into()],
            "mem",
            "code object",
        );
        return;
    }
    use std::os::unix::fs::PermissionsExt;
    let locked = setup.write("locked.co", b"x");
    std::fs::set_permissions(&locked, std::fs::Permissions::from_mode(0o000)).unwrap();
    setup.rejects(
        "unreadable object",
        &["--code-object".into(), locked.into()],
        "locked.co",
        "Permission denied",
    );
}

#[test]
fn unusable_output_locations_fail_before_the_predicate() {
    let setup = Setup::new();
    let object = setup.dir().join("a.co");
    let file_parent = setup.write("plain-file", b"x");
    for (label, out, needle) in [
        ("parent is a file", file_parent.join("out"), "plain-file"),
        ("output exists", setup.dir().join("sub"), "already exists"),
        (
            "output is a dangling symlink",
            setup.dir().join("dangling-out"),
            "already exists",
        ),
    ] {
        if label.contains("dangling") {
            let _ = symlink("nowhere", &out);
        }
        let output = setup.object_cmd(&object, &out).output().unwrap();
        let stderr = String::from_utf8_lossy(&output.stderr).into_owned();
        assert_eq!(output.status.code(), Some(1), "{label}: {stderr}");
        assert_eq!(stderr.lines().count(), 1, "{label}: {stderr}");
        assert!(stderr.contains(needle), "{label}: {stderr}");
        assert!(!setup.marker.exists(), "{label}: the predicate ran first");
        assert!(setup.area.tmp_is_empty(), "{label}");
    }
    // Missing parents are created, as the original does, and removed again when nothing is
    // published.
    let top = setup.area.root.path().join("no");
    for (predicate, code) in [("/bin/false", 1), ("/bin/true", 0)] {
        let mut command = setup.area.bundle_cmd();
        command.arg("--code-object").arg(&object);
        command.args(["--predicate", predicate]);
        let output = command
            .arg("--output")
            .arg(top.join("such/dir/out"))
            .output();
        assert_eq!(output.unwrap().status.code(), Some(code), "{predicate}");
        assert_eq!(top.join("such/dir/out/bundle.json").exists(), code == 0);
        assert_eq!(top.exists(), code == 0);
    }
}

#[test]
fn non_utf8_tmpdir_is_a_clear_error() {
    let setup = Setup::new();
    let odd = setup
        .area
        .root
        .path()
        .join(OsString::from_vec(b"tmp-\xff".to_vec()));
    std::fs::create_dir(&odd).unwrap();
    let out = setup.area.out("out");
    let output = setup
        .object_cmd(&setup.dir().join("a.co"), &out)
        .env("TMPDIR", &odd)
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&output.stderr).into_owned();
    assert_eq!(output.status.code(), Some(1), "{stderr}");
    assert_eq!(stderr.lines().count(), 1, "{stderr}");
    assert!(
        stderr.contains("TMPDIR") && stderr.contains("UTF-8"),
        "{stderr}"
    );
    assert!(!setup.marker.exists(), "the predicate ran");
    assert!(!out.exists());
    assert!(std::fs::read_dir(&odd).unwrap().next().is_none());
}
