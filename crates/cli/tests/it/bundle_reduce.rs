//! End-to-end reductions with the real `minrepro` binary, real LLVM tools and real AMDGPU code
//! objects: bundles, direct objects with metadata, worklists with selector documents, the offline
//! differential workflow, determinism, and the repository example.

use crate::support::bundle::*;
use crate::support::*;

#[test]
fn bundle_with_sections_reduces_to_the_needed_object_and_metadata() {
    let (area, bundle, predicate) = gamma_area();
    let before = tree(&area.input());
    let out = area.out("reduced");
    let stdout = success_stdout(
        area.reduce_cmd(&bundle, &out, &predicate)
            .arg("--predicate-arg={bundle}")
            .args([
                "--allow-remove-section=.debug_*",
                "--allow-remove-section",
                ".comment",
            ]),
    );
    assert!(stdout.contains(&out.display().to_string()), "{stdout}");
    assert!(stdout.contains("1 code object(s)"), "{stdout}");
    assert_eq!(stdout.lines().count(), 1);
    // The originals are untouched; no temporary directory is left.
    assert_eq!(tree(&area.input()), before);
    assert!(area.tmp_is_empty());

    let bundle_out = bundle_json(&out);
    assert_eq!(bundle_out["format"], "comgr-hotswap-reducer-bundle");
    assert_eq!(bundle_out["metadata"], "metadata.json");
    assert_eq!(bundle_out["code_objects"][0]["id"], "gamma");
    assert_eq!(bundle_out["code_objects"][0]["path"], "objects/gamma.co");
    let metadata = metadata(&out);
    assert_eq!(
        metadata,
        serde_json::json!({
            "kernels": [{"name": "gamma"}],
            "cases": [{"name": "g", "arguments": [30]}],
            "arguments": [],
            "owner": {"team": "compiler"}
        })
    );
    let sections = section_names(&out.join("objects/gamma.co"));
    assert!(
        !sections
            .iter()
            .any(|s| s.starts_with(".debug_") || s == ".comment"),
        "{sections:?}"
    );
    for kept in [".text", ".note", ".dynsym", ".symtab", ".strtab", ".rodata"] {
        assert!(
            sections.iter().any(|s| s == kept),
            "{kept} lost: {sections:?}"
        );
    }

    let log = log(&out);
    // The original reducer's schema (comgr-hotswap-reduction-log version 1).
    assert_eq!(log["format"], "comgr-hotswap-reduction-log");
    assert_eq!(log["version"], 1);
    assert_eq!(log["originals"].as_array().unwrap().len(), 3);
    assert_eq!(log["originals"][1]["name"], "beta kernel (v2).co");
    assert_ne!(log["initial_digest"], log["final_digest"]);
    assert!(stdout.contains(log["final_digest"].as_str().unwrap()));
    assert_eq!(log["section_policy"]["allow"][0], ".debug_*");
    assert_eq!(log["section_policy"]["enabled"], true);
    let transformations = log["transformations"].as_array().unwrap();
    let passes: Vec<&str> = transformations
        .iter()
        .map(|t| t["pass"].as_str().unwrap())
        .collect();
    for pass in ["code-objects", "metadata", "elf-sections"] {
        assert!(passes.contains(&pass), "{pass} missing: {passes:?}");
    }
    let paths: Vec<&str> = transformations
        .iter()
        .filter_map(|t| t["transformation"]["path"].as_str())
        .collect();
    for path in ["kernels", "cases", "cases.0.arguments"] {
        assert!(paths.contains(&path), "{path} missing: {paths:?}");
    }
    assert!(transformations.iter().any(|t| t["accepted"] == false));
    let text = std::fs::read_to_string(out.join("reduction-log.json")).unwrap();
    assert!(
        text.contains("{workspace}/objects/gamma.co"),
        "captured output is normalized"
    );
    assert!(!text.contains(&area.tmp().display().to_string()));
    // The recorded reproduction runs as is from the output directory.
    let argv: Vec<String> = log["reproduction"]["argv"]
        .as_array()
        .unwrap()
        .iter()
        .map(|a| a.as_str().unwrap().to_owned())
        .collect();
    assert_eq!(
        argv,
        [predicate.display().to_string(), "bundle.json".into()]
    );
    assert_eq!(log["reproduction"]["interesting_exit_code"], 0);
    let status = std::process::Command::new(&argv[0])
        .args(&argv[1..])
        .current_dir(&out)
        .status()
        .unwrap();
    assert!(status.success());
}

#[test]
fn code_objects_with_metadata_and_sole_input_placeholder() {
    let area = Area::new();
    let a = copy_fixture("alpha.co", &area.input(), "a.co");
    let meta = area.input().join("meta.json");
    std::fs::write(
        &meta,
        r#"{"kernels": ["alpha", "zeta"], "cases": [], "other": [1, 2]}"#,
    )
    .unwrap();
    // {input} is the sole object; {metadata} and {workspace} are the candidate's paths.
    let predicate = area.script(
        "p.sh",
        "#!/bin/sh\ngrep -q alpha \"$1\" || exit 1\ngrep -q alpha \"$2\" || exit 1\n[ -f \"$3/bundle.json\" ] || exit 1\n",
    );
    let out = area.out("out");
    area.object_cmd(&out, &predicate, &a)
        .arg("--metadata")
        .arg(&meta)
        .args([
            "--predicate-arg={input}",
            "--predicate-arg={metadata}",
            "--predicate-arg={workspace}",
        ])
        .arg("--allow-remove-section=*")
        .arg("--protect-section=.debug_str*")
        .assert()
        .success();
    let metadata = metadata(&out);
    assert_eq!(
        metadata,
        serde_json::json!({"kernels": ["alpha"], "cases": [], "other": [1, 2]})
    );
    let sections = section_names(&out.join("objects/a.co"));
    assert!(
        sections.contains(&".debug_str".to_owned()),
        "protected: {sections:?}"
    );
    assert!(
        sections.contains(&".debug_str_offsets".to_owned()),
        "protected: {sections:?}"
    );
    assert!(
        !sections.contains(&".debug_info".to_owned()),
        "{sections:?}"
    );
    let log = log(&out);
    let argv = log["reproduction"]["argv"].as_array().unwrap();
    assert_eq!(argv[1], "objects/a.co");
    assert_eq!(argv[2], "metadata.json");
    assert_eq!(argv[3], ".");
}

#[test]
fn worklist_with_selector_document() {
    let area = Area::new();
    let elsewhere = tempfile::tempdir().unwrap();
    copy_fixture("alpha.co", &area.input(), "list dir/alpha.co");
    let beta = copy_fixture("beta.co", elsewhere.path(), "beta;$(id).co");
    copy_fixture("gamma.co", &area.input(), "list dir/sub/gamma.co");
    let mut list = b"alpha.co\0".to_vec();
    list.extend_from_slice(beta.to_str().unwrap().as_bytes());
    list.extend_from_slice(b"\0sub/gamma.co\0");
    let worklist = area.write_input("list dir/unique.list", list);
    let selector = area.input().join("selection.json");
    std::fs::write(
        &selector,
        r#"{"schema": "selector-v3", "selected_tests": ["t1", "t2", "t3", "t4", "t5"],
            "kernels": ["k1", "k2"], "filters": {"gpu": "gfx90a"}, "arguments": []}"#,
    )
    .unwrap();
    let predicate = area.script(
        "p.sh",
        "#!/bin/sh\ngrep -q '\"t4\"' metadata.json || exit 1\nfor f in objects/*; do grep -q beta \"$f\" && exit 0; done\nexit 1\n",
    );
    let out = area.out("out");
    area.worklist_cmd(&out, &predicate, &worklist, &selector)
        .args(["-j", "2"])
        .assert()
        .success();
    let metadata = metadata(&out);
    assert_eq!(
        metadata,
        serde_json::json!({"schema": "selector-v3", "selected_tests": ["t4"], "kernels": [],
                           "filters": {"gpu": "gfx90a"}, "arguments": []})
    );
    let bundle = bundle_json(&out);
    assert_eq!(bundle["code_objects"].as_array().unwrap().len(), 1);
    // Worklist objects get the original's positional ids.
    assert_eq!(bundle["code_objects"][0]["id"], "object-0001");
    assert_eq!(bundle["code_objects"][0]["path"], "objects/beta___id_.co");
    assert!(!std::path::Path::new("uid=0(root)").exists());
}

#[test]
fn offline_differential_workflow_keeps_the_reference_outside() {
    let (area, bundle) = bundle_area();
    let tools = tempfile::tempdir().unwrap();
    // The fixed reference manifest (as produced by the older build) lives outside the bundle.
    let reference = tools.path().join("pr3598-reference.json");
    std::fs::write(&reference, r#"{"alpha": 3, "beta": 5, "gamma": 4}"#).unwrap();
    // The "new build": a manifest of argument counts per kernel from the candidate's cases.
    let wrapper = script(
        tools.path(),
        "manifest-diff-predicate.py",
        r#"#!/usr/bin/python3 -S
import json, os, sys
reference = json.load(open(sys.argv[1]))
bundle_path = sys.argv[2]
base = os.path.dirname(bundle_path)
bundle = json.load(open(bundle_path))
meta = json.load(open(os.path.join(base, bundle["metadata"])))
names = {"a": "alpha", "g": "gamma"}
manifest = {names[c["name"]]: len(c.get("arguments", [])) for c in meta.get("cases", [])}
ids = {o["id"] for o in bundle["code_objects"]}
diff = sorted(k for k, v in manifest.items() if k in ids and reference.get(k) != v)
print("difference:", diff)
sys.exit(1 if diff else 0)
"#,
    );
    let out = area.out("reduced-3646-difference");
    area.reduce_cmd(&bundle, &out, std::path::Path::new("/usr/bin/python3"))
        .arg(format!("--predicate-arg={}", wrapper.display()))
        .arg(format!("--predicate-arg={}", reference.display()))
        .arg("--predicate-arg={bundle}")
        .args(["--predicate-runs", "2", "--interesting-exit-code", "1"])
        .assert()
        .success();
    let log = log(&out);
    let identities: Vec<&str> = log["predicate"]["identity_files"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f["path"].as_str().unwrap())
        .collect();
    assert!(
        identities.contains(&reference.to_str().unwrap()),
        "{identities:?}"
    );
    assert!(
        identities.contains(&wrapper.to_str().unwrap()),
        "{identities:?}"
    );
    assert_eq!(log["reproduction"]["interesting_exit_code"], 1);
    assert_eq!(log["predicate"]["runs"], 2);
    // gamma's case has 5 arguments against a reference of 4: one object and one case remain;
    // the arguments can shrink to any count but 4.
    let metadata = metadata(&out);
    assert_eq!(metadata["cases"].as_array().unwrap().len(), 1);
    assert_eq!(metadata["cases"][0]["name"], "g");
    assert_eq!(metadata["cases"][0]["arguments"], serde_json::json!([]));
    let bundle_out = bundle_json(&out);
    assert_eq!(bundle_out["code_objects"][0]["id"], "gamma");
    assert!(std::fs::read(&reference)
        .unwrap()
        .starts_with(b"{\"alpha\""));
}

#[test]
fn identical_bytes_across_runs_and_jobs() {
    let (area, bundle, predicate) = gamma_area();
    let run = |name: &str, jobs: &str| {
        let out = area.out(name);
        area.reduce_cmd(&bundle, &out, &predicate)
            .arg("--predicate-arg={bundle}")
            .arg("--allow-remove-section=.debug_*")
            .args(["--exact", "-j", jobs])
            .assert()
            .success();
        tree(&out)
    };
    let first = run("one", "1");
    assert_eq!(first, run("two", "1"));
    assert_eq!(first, run("four", "4"));
    assert!(first
        .iter()
        .any(|(name, _, _)| name == "reduction-log.json"));
    assert!(area.tmp_is_empty());
}

#[test]
fn persistent_cache_gives_identical_output() {
    let (area, bundle, predicate) = gamma_area();
    let cache = area.out("cache.json");
    let run = |name: &str| {
        let out = area.out(name);
        area.reduce_cmd(&bundle, &out, &predicate)
            .arg("--predicate-arg={bundle}")
            .arg("--cache-file")
            .arg(&cache)
            .arg("--cache-tag=gfx90a")
            .assert()
            .success();
        tree(&out)
    };
    let first = run("first");
    assert!(cache.exists());
    assert_eq!(first, run("second"));
}

#[test]
fn repository_example_works_from_the_root() {
    let area = Area::new();
    let out = area.out("example-out");
    let stdout = success_stdout(
        area.bundle_cmd()
            .current_dir(repo_root())
            .args(["--bundle", "examples/bundle/bundle.json", "--output"])
            .arg(&out)
            .args(["--predicate", "examples/bundle/predicate.sh"])
            .args([
                "--predicate-arg",
                "{bundle}",
                "--allow-remove-section",
                ".debug_*",
            ]),
    );
    assert!(stdout.contains("1 code object(s)"), "{stdout}");
    assert!(out.join("objects/gamma.co").exists());
}

#[test]
fn llvm_19_tools_when_installed() {
    let bin = std::path::Path::new("/usr/lib/llvm-19/bin");
    if !bin.join("llvm-readobj").exists() || !bin.join("llvm-objcopy").exists() {
        println!("note: /usr/lib/llvm-19/bin tools are not installed; skipping the LLVM 19 run");
        return;
    }
    let (area, bundle, predicate) = gamma_area();
    let out = area.out("out");
    area.reduce_cmd(&bundle, &out, &predicate)
        .arg("--predicate-arg={bundle}")
        .arg("--allow-remove-section=.debug_*")
        .arg(format!("--readobj={}", bin.join("llvm-readobj").display()))
        .arg(format!("--objcopy={}", bin.join("llvm-objcopy").display()))
        .assert()
        .success();
    assert_no_debug_sections(&out.join("objects/gamma.co"), "LLVM 19");
}

#[test]
fn allow_empty_bundle_controls_the_last_object() {
    // Only the metadata matters to this predicate.
    let (area, bundle, predicate) = predicate_area(
        "meta-only.sh",
        "#!/bin/sh\ngrep -q '\"owner\"' metadata.json\n",
    );
    let run = |name: &str, allow_empty: bool| {
        let out = area.out(name);
        let mut command = area.reduce_cmd(&bundle, &out, &predicate);
        if allow_empty {
            command.arg("--allow-empty-bundle");
        }
        (out, success_stdout(&mut command))
    };
    let (out, stdout) = run("kept", false);
    assert!(stdout.contains("1 code object(s)"), "{stdout}");
    assert_eq!(std::fs::read_dir(out.join("objects")).unwrap().count(), 1);
    let (out, stdout) = run("empty", true);
    assert!(stdout.contains("0 code object(s)"), "{stdout}");
    assert_eq!(std::fs::read_dir(out.join("objects")).unwrap().count(), 0);
    let bundle_out = bundle_json(&out);
    assert_eq!(bundle_out["code_objects"], serde_json::json!([]));
    assert_ne!(log(&out)["final_digest"], log(&out)["initial_digest"]);
    assert!(log(&out)["transformations"]
        .as_array()
        .unwrap()
        .iter()
        .any(|t| t["accepted"] == true && t["pass"] == "code-objects"));
}
