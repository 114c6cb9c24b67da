//! Behavioural twins of the original reducer's end-to-end tests (`EndToEndTests` of
//! `amd/comgr/test/utils/test_hotswap_reduce.py`), run through the `minrepro bundle` command
//! line: same inputs, same predicates, same expectations (see `crates/bundle/COMPATIBILITY.md`).
//! The section twins also run with real LLVM 14 tools and, when installed, LLVM 19 tools.

use std::path::{Path, PathBuf};

use crate::support::bundle::*;
use crate::support::*;
use serde_json::json;

/// `minrepro bundle --bundle B --output O --predicate python3 --predicate-arg …` (the predicates
/// are Python scripts run as `python3 SCRIPT ARGS…`, like the original's tests).
fn reduce(area: &Area, bundle: &Path, out: &Path, args: &[&str]) -> assert_cmd::Command {
    let mut command = area.reduce_cmd(bundle, out, Path::new("python3"));
    for arg in args {
        command.arg(format!("--predicate-arg={arg}"));
    }
    command
}

/// Writes the Python predicate `in/NAME`: `body` after a prelude that reads the candidate bundle
/// named by `sys.argv[BUNDLE_ARG]` into `objects` (the objects' bytes, in order) and `metadata`.
fn bundle_predicate(area: &Area, name: &str, bundle_arg: usize, body: &str) -> PathBuf {
    let prelude = format!(
        r#"import json, pathlib, sys
bundle_path = pathlib.Path(sys.argv[{bundle_arg}])
bundle = json.loads(bundle_path.read_text())
root = bundle_path.parent
objects = [(root / entry["path"]).read_bytes() for entry in bundle["code_objects"]]
metadata = json.loads((root / bundle["metadata"]).read_text())
"#
    );
    area.write_input(name, prelude + body)
}

/// [`reduce`] with the Python `predicate` on `{bundle}` into `area.out(name)`; asserts success and
/// returns the output.
fn reduced(area: &Area, bundle: &Path, predicate: &Path, name: &str) -> PathBuf {
    let out = area.out(name);
    reduce(area, bundle, &out, &[text(predicate), "{bundle}"])
        .assert()
        .success();
    out
}

/// The published code objects' bytes.
fn objects(out: &Path) -> Vec<Vec<u8>> {
    let bundle = bundle_json(out);
    bundle["code_objects"]
        .as_array()
        .unwrap()
        .iter()
        .map(|o| std::fs::read(out.join(o["path"].as_str().unwrap())).unwrap())
        .collect()
}

#[test]
fn reduces_bundle_and_metadata_and_writes_reproducer() {
    let (area, bundle) = objects_area(
        &[b"drop", b"KEEP", b"also-drop"],
        json!({
            "kernels": ["drop", "kernel-keep"],
            "cases": [
                {"name": "drop", "arguments": ["drop"]},
                {"name": "case-keep", "arguments": ["drop", "arg-keep"]},
            ],
            "arguments": ["drop", "global-keep"],
        }),
    );
    let predicate = bundle_predicate(
        &area,
        "predicate.py",
        1,
        r#"text = json.dumps(metadata)
keep = all(word in text for word in ("kernel-keep", "case-keep", "arg-keep", "global-keep"))
raise SystemExit(0 if b"KEEP" in b"".join(objects) and keep else 1)
"#,
    );
    let out = reduced(&area, &bundle, &predicate, "reduced output [x]");
    assert_eq!(objects(&out), [b"KEEP".to_vec()]);
    let metadata = metadata(&out);
    assert_eq!(metadata["kernels"], json!(["kernel-keep"]));
    assert_eq!(metadata["cases"].as_array().unwrap().len(), 1);
    assert_eq!(metadata["cases"][0]["name"], "case-keep");
    assert_eq!(metadata["cases"][0]["arguments"], json!(["arg-keep"]));
    assert_eq!(metadata["arguments"], json!(["global-keep"]));
    let log = log(&out);
    assert_eq!(log["format"], "comgr-hotswap-reduction-log");
    assert_eq!(log["version"], 1);
    let transformations = log["transformations"].as_array().unwrap();
    assert!(transformations.iter().any(|t| t["accepted"] == true));
    assert_eq!(
        log["reproduction"]["argv"]
            .as_array()
            .unwrap()
            .last()
            .unwrap(),
        "bundle.json"
    );
    verify_output(&out);
}

#[test]
fn deterministic_output_and_log() {
    // Metadata cases that are plain strings (not objects) are reduced like any list.
    let (area, bundle) = objects_area(&[b"drop", b"keep"], json!({"cases": ["drop", "keep"]}));
    let predicate = area.write_input(
        "predicate.py",
        "import pathlib, sys\n\
         raise SystemExit(0 if b\"keep\" in pathlib.Path(sys.argv[1]).read_bytes() else 1)\n",
    );
    let mut results = Vec::new();
    for (index, jobs) in ["1", "1", "2"].iter().enumerate() {
        let out = area.out(&format!("out-{index}"));
        reduce(&area, &bundle, &out, &[text(&predicate), "{metadata}"])
            .args(["-j", jobs, "--exact"])
            .assert()
            .success();
        let read = |name: &str| std::fs::read(out.join(name)).unwrap();
        results.push((
            read("reduction-log.json"),
            [read("bundle.json"), read("metadata.json")].concat(),
        ));
        assert_eq!(metadata(&out), json!({"cases": ["keep"]}));
    }
    assert_eq!(results[0], results[1]);
    assert_eq!(results[0], results[2]);
}

#[test]
fn offline_reference_manifest_differential() {
    let (area, bundle) = objects_area(
        &[b"same-a", b"candidate-differs", b"same-b"],
        json!({"cases": ["a", "discrepant-case", "b"]}),
    );
    let root = area.input();
    let reference = root.join("pr3598-reference.json");
    std::fs::write(&reference, r#"{"forbidden_sha256": "unused"}"#).unwrap();
    let predicate = bundle_predicate(
        &area,
        "offline-diff.py",
        2,
        r#"reference = json.loads(pathlib.Path(sys.argv[1]).read_text())
difference = (b"candidate-differs" in objects
              and "discrepant-case" in metadata.get("cases", [])
              and "forbidden_sha256" in reference)
raise SystemExit(0 if difference else 1)
"#,
    );
    let out = area.out("reduced-offline-difference");
    reduce(
        &area,
        &bundle,
        &out,
        &[text(&predicate), text(&reference), "{bundle}"],
    )
    .args(["--predicate-runs", "2"])
    .assert()
    .success();
    assert_eq!(objects(&out), [b"candidate-differs".to_vec()]);
    assert_eq!(metadata(&out)["cases"], json!(["discrepant-case"]));
}

#[test]
fn repeats_hierarchical_passes_to_a_fixpoint() {
    let (area, bundle) = objects_area(&[b"A", b"B"], json!({"arguments": ["X", "Y"]}));
    // Non-monotone: dropping B is only interesting once Y is gone.
    let predicate = bundle_predicate(
        &area,
        "nonmonotone-predicate.py",
        1,
        r#"names = {o.decode() for o in objects}
arguments = metadata["arguments"]
interesting = ((names == {"A", "B"} and arguments in (["X", "Y"], ["X"]))
               or (names == {"A"} and arguments == ["X"]))
raise SystemExit(0 if interesting else 1)
"#,
    );
    let out = reduced(&area, &bundle, &predicate, "reduced");
    assert_eq!(objects(&out), [b"A".to_vec()]);
    assert_eq!(metadata(&out)["arguments"], json!(["X"]));
}

/// A fake `llvm-readobj` that lists `sections` (name, allocated) by flag name only, minus those
/// the fake objcopy recorded as removed in the file.
fn fake_readobj(dir: &Path, sections: &[(&str, bool)], arch: &str) -> PathBuf {
    let listed: Vec<serde_json::Value> = sections.iter().map(|(n, a)| json!([n, a])).collect();
    script(
        dir,
        "fake readobj",
        &format!(
            r#"#!/usr/bin/python3 -S
import json, pathlib, sys
sections = {sections}
words = pathlib.Path(sys.argv[-1]).read_bytes().decode("utf-8", errors="ignore").split()
removed = {{w.split("=", 1)[1] for w in words if w.startswith("--remove-section=")}}
flags = lambda allocated: [{{"Name": "SHF_ALLOC"}}] if allocated else []
print(json.dumps([{{
    "FileSummary": {{"Format": "elf64-amdgpu", "Arch": "{arch}"}},
    "Sections": [{{"Section": {{"Name": {{"Name": name}}, "Flags": {{"Flags": flags(allocated)}}}}}}
                 for name, allocated in sections if name not in removed],
}}]))
"#,
            sections = serde_json::Value::Array(listed)
                .to_string()
                .replace("true", "True")
                .replace("false", "False"),
        ),
    )
}

/// A fake `llvm-objcopy` that copies its input and appends its options to the copy.
fn fake_objcopy(dir: &Path) -> PathBuf {
    script(
        dir,
        "fake objcopy",
        r#"#!/usr/bin/python3 -S
import pathlib, shutil, sys
shutil.copyfile(sys.argv[-2], sys.argv[-1])
with open(sys.argv[-1], "ab") as stream:
    stream.write((" " + " ".join(sys.argv[1:-2])).encode())
"#,
    )
}

fn llvm_tool_dirs() -> Vec<&'static str> {
    let mut dirs = vec!["/usr/bin"];
    if Path::new("/usr/lib/llvm-19/bin/llvm-readobj").exists() {
        dirs.push("/usr/lib/llvm-19/bin");
    } else {
        println!("skipping LLVM 19 tools: /usr/lib/llvm-19/bin is not installed");
    }
    dirs
}

fn accepted_section_removals(out: &Path) -> Vec<serde_json::Value> {
    log(out)["transformations"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|t| t["pass"] == "elf-sections" && t["accepted"] == true)
        .map(|t| t["transformation"]["remove_sections"].clone())
        .collect()
}

#[test]
fn section_reduction_with_fake_llvm_tools() {
    let (area, bundle) = objects_area(&[b"ELF"], json!({}));
    let tools = tempfile::tempdir().unwrap();
    let readobj = fake_readobj(
        tools.path(),
        &[
            ("", false),
            (".text", true),
            (".debug_info", false),
            (".note", false),
        ],
        "amdgcn",
    );
    let objcopy = fake_objcopy(tools.path());
    let out = area.out("output");
    reduce(
        &area,
        &bundle,
        &out,
        &["-c", "raise SystemExit(0)", "{input}"],
    )
    .arg("--allow-remove-section=*")
    .arg(format!("--readobj={}", readobj.display()))
    .arg(format!("--objcopy={}", objcopy.display()))
    .assert()
    .success();
    let object = &objects(&out)[0];
    assert!(object
        .windows(b"--remove-section=.debug_info".len())
        .any(|w| w == b"--remove-section=.debug_info"));
    assert_eq!(accepted_section_removals(&out), [json!([".debug_info"])]);
}

#[test]
fn section_reduction_with_real_llvm_tools() {
    for dir in llvm_tool_dirs() {
        let area = Area::new();
        let object = copy_fixture("alpha.co", &area.input(), "alpha.co");
        let out = area.out("output");
        area.bundle_cmd()
            .arg("--code-object")
            .arg(&object)
            .arg("--output")
            .arg(&out)
            .args(["--predicate", "python3", "--predicate-arg=-c"])
            .arg("--predicate-arg=raise SystemExit(0)")
            .arg("--predicate-arg={input}")
            .arg("--allow-remove-section=.debug_*")
            .arg(format!("--readobj={dir}/llvm-readobj"))
            .arg(format!("--objcopy={dir}/llvm-objcopy"))
            .assert()
            .success();
        assert_no_debug_sections(&out.join("objects/alpha.co"), dir);
        let removed = accepted_section_removals(&out);
        assert!(!removed.is_empty(), "{dir}");
        verify_output(&out);
    }
}

#[test]
fn unsupported_section_format_publishes_nothing() {
    let (area, bundle) = objects_area(&[b"ELF"], json!({}));
    let root = area.input();
    let tools = tempfile::tempdir().unwrap();
    let readobj = fake_readobj(tools.path(), &[(".debug_info", false)], "x86_64");
    let objcopy = fake_objcopy(tools.path());
    let marker = root.join("ran");
    let run = |readobj: &str, objcopy: &str, bundle: &Path, out: &Path| {
        let output = reduce(
            &area,
            bundle,
            out,
            &[
                "-c",
                &format!("open({:?}, 'a').close()", text(&marker)),
                "{input}",
            ],
        )
        .arg("--allow-remove-section=.debug_*")
        .arg(format!("--readobj={readobj}"))
        .arg(format!("--objcopy={objcopy}"))
        .output()
        .unwrap();
        assert_fails(&output, 1, "requires an AMDGPU ELF");
        assert!(!out.exists());
        // Refused before any predicate run (and so before any removal).
        assert!(!marker.exists());
    };
    run(text(&readobj), text(&objcopy), &bundle, &area.out("output"));
    // A real x86-64 ELF file, listed by the real tools.
    let x86_dir = area.root.path().join("x86");
    std::fs::create_dir(&x86_dir).unwrap();
    let x86 = std::fs::read("/bin/true").unwrap();
    let x86_bundle = write_bundle(&x86_dir, &[&x86], json!({}), None);
    for dir in llvm_tool_dirs() {
        run(
            &format!("{dir}/llvm-readobj"),
            &format!("{dir}/llvm-objcopy"),
            &x86_bundle,
            &area.out("x86-output"),
        );
    }
}

#[test]
fn existing_output_is_never_overwritten() {
    let (area, bundle) = objects_area(&[b"original"], json!({}));
    let out = area.out("output");
    std::fs::create_dir(&out).unwrap();
    std::fs::write(out.join("marker"), "preserve").unwrap();
    let output = reduce(
        &area,
        &bundle,
        &out,
        &["-c", "raise SystemExit(0)", "{bundle}"],
    )
    .output()
    .unwrap();
    assert_fails(&output, 1, "refusing to overwrite");
    assert_eq!(
        std::fs::read_to_string(out.join("marker")).unwrap(),
        "preserve"
    );
}

#[test]
fn cache_cannot_overwrite_input_or_live_inside_output() {
    let (area, bundle) = objects_area(&[b"original"], json!({}));
    let root = area.input();
    let object = root.join("object-0.co");
    let predicate = area.write_input("predicate.py", "raise SystemExit(0)\n");
    let out = area.out("output");
    for (cache, needle) in [
        (object.clone(), "refusing to overwrite"),
        (out.join("cache.json"), "must not be inside"),
        (predicate.clone(), "refusing to overwrite"),
    ] {
        let output = reduce(&area, &bundle, &out, &[text(&predicate), "{bundle}"])
            .arg("--cache-file")
            .arg(&cache)
            .output()
            .unwrap();
        assert_nothing_published(&output, &out, needle);
        assert_eq!(std::fs::read(&object).unwrap(), b"original");
        assert_eq!(
            std::fs::read_to_string(&predicate).unwrap(),
            "raise SystemExit(0)\n"
        );
    }
}

#[test]
fn cache_cannot_overwrite_external_bundle_metadata() {
    let (area, bundle) = objects_area(&[b"object"], json!("metadata.json"));
    let cache = r#"{"format": "comgr-hotswap-reduction-cache", "version": 1, "entries": {}}"#;
    let external = area.write_input("metadata.json", cache);
    let predicate = area.write_input("predicate.py", "raise SystemExit(0)\n");
    let output = reduce(
        &area,
        &bundle,
        &area.out("output"),
        &[text(&predicate), "{bundle}"],
    )
    .arg("--cache-file")
    .arg(&external)
    .output()
    .unwrap();
    assert_fails(&output, 1, "overwrite reducer input");
    assert_eq!(std::fs::read_to_string(&external).unwrap(), cache);
}

#[test]
fn identity_change_during_reduction_aborts_without_output() {
    let (area, bundle) = objects_area(&[b"one", b"two"], json!({}));
    let root = area.input();
    let dependency = root.join("dependency");
    std::fs::write(&dependency, "original").unwrap();
    let counter = root.join("counter");
    let predicate = area.write_input(
        "predicate.py",
        format!(
            r#"import pathlib
counter = pathlib.Path({counter:?})
count = int(counter.read_text()) if counter.exists() else 0
counter.write_text(str(count + 1))
if count == 1:
    pathlib.Path({dependency:?}).write_bytes(b"changed")
raise SystemExit(0)
"#,
            counter = text(&counter),
            dependency = text(&dependency),
        ),
    );
    let out = area.out("output");
    let output = reduce(&area, &bundle, &out, &[text(&predicate), "{bundle}"])
        .arg("--cache-dependency")
        .arg(&dependency)
        .output()
        .unwrap();
    assert_nothing_published(&output, &out, "identity changed");
}

#[test]
fn uninteresting_original_publishes_nothing() {
    let (area, bundle) = objects_area(&[b"object"], json!({}));
    let predicate = area.write_input("predicate.py", "raise SystemExit(1)\n");
    let out = area.out("output");
    let output = reduce(&area, &bundle, &out, &[text(&predicate), "{bundle}"])
        .output()
        .unwrap();
    assert_nothing_published(&output, &out, "original input is not");
}
