//! `minrepro bundle` safety: nothing is published on failure or interruption, existing outputs
//! and inputs are never overwritten, malformed inputs fail before any predicate runs, and ELF
//! tool failures are clear errors or logged rejections.

use std::time::Duration;

use crate::support::bundle::*;
use crate::support::*;

#[test]
fn existing_output_is_never_overwritten() {
    let (area, bundle) = bundle_area();
    let (predicate, marker) = marking_predicate(&area.input());
    let out = area.out("exists");
    std::fs::create_dir(&out).unwrap();
    std::fs::write(out.join("keep"), "mine").unwrap();
    let output = area.reduce_cmd(&bundle, &out, &predicate).output().unwrap();
    assert_eq!(output.status.code(), Some(1));
    let stderr = stderr(&output);
    assert!(
        stderr.starts_with("minrepro bundle: error:")
            && stderr.contains("refusing to overwrite existing output"),
        "{stderr}"
    );
    assert_eq!(std::fs::read_to_string(out.join("keep")).unwrap(), "mine");
    assert_eq!(std::fs::read_dir(&out).unwrap().count(), 1);
    assert!(!marker.exists());
}

#[test]
fn cache_file_refusals() {
    let area = Area::new();
    let dir = area.input();
    copy_fixture("alpha.co", &dir, "objects/a.co");
    std::fs::write(dir.join("meta.json"), r#"{"kernels": []}"#).unwrap();
    let bundle = dir.join("bundle.json");
    std::fs::write(
        &bundle,
        r#"{"format": "comgr-hotswap-reducer-bundle", "version": 1,
            "code_objects": [{"id": "a", "path": "objects/a.co"}], "metadata": "meta.json"}"#,
    )
    .unwrap();
    let (predicate, marker) = marking_predicate(&dir);
    let dependency = dir.join("dep.txt");
    std::fs::write(&dependency, "x").unwrap();
    let out = area.out("out");
    for (cache, needle) in [
        // The original's phrases (its tests match on them).
        (bundle.clone(), "refusing to overwrite reducer input"),
        (dir.join("meta.json"), "refusing to overwrite reducer input"),
        (
            dir.join("objects/a.co"),
            "refusing to overwrite reducer input",
        ),
        (
            dir.join("objects/../objects/a.co"),
            "refusing to overwrite reducer input",
        ),
        (
            predicate.clone(),
            "refusing to overwrite predicate identity",
        ),
        (dependency.clone(), "refusing to overwrite reducer input"),
        (
            out.join("cache.json"),
            "must not be inside output directory",
        ),
    ] {
        let output = area
            .reduce_cmd(&bundle, &out, &predicate)
            .arg(format!("--cache-dependency={}", dependency.display()))
            .arg(format!("--cache-file={}", cache.display()))
            .output()
            .unwrap();
        assert_eq!(output.status.code(), Some(1), "{}", cache.display());
        let stderr = stderr(&output);
        assert!(stderr.contains(needle), "{}: {stderr}", cache.display());
        assert!(!out.exists());
        assert!(!marker.exists(), "the predicate ran before the refusal");
    }
    assert!(std::fs::read(&bundle).unwrap().starts_with(b"{\"format\""));
    assert!(area.tmp_is_empty());
}

#[test]
fn uninteresting_original_publishes_nothing() {
    let (area, bundle, predicate) =
        predicate_area("no.sh", "#!/bin/sh\necho 'works fine here'\nexit 3\n");
    let out = area.out("out");
    let output = area.reduce_cmd(&bundle, &out, &predicate).output().unwrap();
    assert_eq!(output.status.code(), Some(1));
    let stderr = stderr(&output);
    assert!(
        stderr.contains("not interesting") && stderr.contains("exit codes [3]"),
        "{stderr}"
    );
    assert!(stderr.contains("works fine here"), "{stderr}");
    assert!(!out.exists());
    assert!(area.tmp_is_empty());
    let leftovers = names(area.root.path());
    assert_eq!(leftovers.len(), 2, "{leftovers:?}");
}

#[test]
fn interruption_publishes_nothing_and_cleans_up() {
    let (area, bundle) = bundle_area();
    // The original is interesting quickly; the first candidate then hangs.
    let started = area.input().join("started");
    let predicate = area.script(
        "slow.sh",
        &format!(
            "#!/bin/sh\nif [ -f '{0}' ]; then sleep 60; fi\ntouch '{0}'\nexit 0\n",
            started.display()
        ),
    );
    let out = area.out("out");
    let child = area
        .process("bundle")
        .args(reduce_args(&bundle, &out, &predicate))
        .spawn()
        .unwrap();
    wait_for(30, || started.exists());
    assert!(started.exists(), "the predicate never ran");
    // Let the first candidate's run start.
    std::thread::sleep(Duration::from_millis(300));
    assert!(send("INT", child.id()));
    let output = child.wait_with_output().unwrap();
    assert_eq!(output.status.code(), Some(130), "{}", stderr(&output));
    assert!(stderr(&output).contains("no output was published"));
    assert!(!out.exists());
    assert!(
        area.tmp_is_empty(),
        "temporary directories were left behind"
    );
    let siblings = names(area.root.path());
    assert!(
        !siblings.iter().any(|n| n.contains("minrepro")),
        "{siblings:?}"
    );
}

#[test]
fn malformed_inputs_fail_before_any_predicate_runs() {
    let area = Area::new();
    let dir = area.input();
    copy_fixture("alpha.co", &dir, "a.co");
    let (predicate, marker) = marking_predicate(&dir);
    let head = r#""format": "comgr-hotswap-reducer-bundle", "version": 1"#;
    let write = |name: &str, text: &[u8]| {
        let path = dir.join(name);
        std::fs::write(&path, text).unwrap();
        path
    };
    // Bundle documents by their fields after the format and version.
    let bundles = [
        (
            r#""code_objects": [{"id": "a", "path": "a.co"}], "metadata": {"kernels": NaN}"#,
            "non-finite",
        ),
        (
            r#""code_objects": [{"id": "a", "path": "../a.co"}]"#,
            "a.co",
        ),
        (
            r#""code_objects": [{"id": "a", "path": "a.co"}, {"id": "a", "path": "a.co"}]"#,
            "duplicate code object id",
        ),
        (
            r#""code_objects": [{"id": "a", "path": "a.co"}], "metadata": {"cases": [{"arguments": {}}]}"#,
            "arguments must be a JSON list",
        ),
        (
            r#""code_objects": []"#,
            "code_objects must be a non-empty JSON list",
        ),
    ];
    let worklists = [
        (&b"a.co"[..], "must end with NUL"),
        (&b"a.co\0\0"[..], "empty"),
        (&b"a.co\0./a.co\0"[..], "duplicate worklist path"),
        (&b""[..], "empty"),
    ];
    // (flag, file, contents, needle): each refusal names the file.
    let inputs = bundles
        .map(|(fields, needle)| {
            let text = format!("{{{head}, {fields}}}");
            ("--bundle", "bundle.json", text.into_bytes(), needle)
        })
        .into_iter()
        .chain(worklists.map(|(list, needle)| ("--worklist", "list", list.to_vec(), needle)));
    for (flag, name, contents, needle) in inputs {
        let path = write(name, &contents);
        let output = area
            .output_cmd(&area.out("out"), &predicate)
            .arg(flag)
            .arg(&path)
            .output()
            .unwrap();
        let stderr = assert_fails(&output, 1, needle);
        assert!(stderr.contains(name), "{name} not named: {stderr}");
    }
    let meta = write("selector.json", br#"{"selected_tests": {"a": 1}}"#);
    let output = area
        .object_cmd(&area.out("out"), &predicate, dir.join("a.co"))
        .arg("--metadata")
        .arg(&meta)
        .output()
        .unwrap();
    assert_fails(&output, 1, "selector.json");
    assert!(!marker.exists(), "a predicate ran on malformed input");
    assert!(!area.out("out").exists());
}

#[test]
fn usage_errors_exit_2() {
    let (area, bundle) = bundle_area();
    let object = area.input().join("objects/alpha.co");
    let (predicate, marker) = marking_predicate(&area.input());
    let out = area.out("out");
    let full = reduce_args(&bundle, &out, &predicate);
    let (flag_bundle, flag_output, flag_predicate) = (&full[0..2], &full[2..4], &full[4..6]);
    let cases: Vec<Vec<&std::ffi::OsStr>> = vec![
        [flag_output, flag_predicate].concat(), // no input
        [&full[..], &["--code-object".as_ref(), object.as_os_str()]].concat(), // two input forms
        [flag_bundle, flag_output].concat(),    // no predicate
        [flag_bundle, flag_predicate].concat(), // no output
        [&full[..], &["--tool-timeout=0".as_ref()]].concat(),
    ];
    for args in cases {
        let output = area.bundle_cmd().args(&args).output().unwrap();
        assert_eq!(
            output.status.code(),
            Some(2),
            "{args:?}: {}",
            stderr(&output)
        );
    }
    // {input} with three objects, and --metadata with --bundle: refused (exit 1, as the
    // original) before anything runs.
    for (extra, needle) in [
        (vec!["--predicate-arg={input}".as_ref()], "exactly one"),
        (
            vec!["--metadata".as_ref(), object.as_os_str()],
            "--bundle cannot be combined",
        ),
    ] {
        let output = area.bundle_cmd().args(&full).args(extra).output().unwrap();
        assert_fails(&output, 1, needle);
    }
    assert!(!marker.exists());
    assert!(!out.exists());
}

#[test]
fn section_tool_problems_are_clear_errors_before_the_predicate() {
    let (area, bundle) = bundle_area();
    let (predicate, marker) = marking_predicate(&area.input());
    let bin = tempfile::tempdir().unwrap();
    let bad_json = script(
        bin.path(),
        "readobj",
        "#!/bin/sh\necho '[{\"FileSummary\"'\n",
    );
    let run = |extra: &[String]| {
        area.output_cmd(&area.out("out"), &predicate)
            .arg("--bundle")
            .arg(&bundle)
            .arg("--allow-remove-section=.debug_*")
            .args(extra)
            .output()
            .unwrap()
    };
    let output = run(&["--readobj=/nonexistent/llvm-readobj".into()]);
    assert_fails(
        &output,
        1,
        "--readobj: could not find executable \"/nonexistent/llvm-readobj\"",
    );
    let output = run(&[format!("--readobj={}", bad_json.display())]);
    assert_fails(&output, 1, "malformed section JSON");
    // Not AMDGPU ELF: a text file posing as a code object.
    std::fs::write(area.input().join("objects/gamma.co"), "not elf").unwrap();
    let output = run(&[]);
    assert_eq!(output.status.code(), Some(1));
    let stderr = stderr(&output);
    assert!(
        stderr.contains("\"gamma\"") && stderr.contains("AMDGPU ELF"),
        "{stderr}"
    );
    assert!(!marker.exists());
    assert!(!area.out("out").exists());
    // Without section removal the tools are not needed at all.
    let output = area
        .output_cmd(&area.out("out"), &predicate)
        .arg("--bundle")
        .arg(&bundle)
        .arg("--readobj=/nonexistent/llvm-readobj")
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(0), "{}", stderr);
}

#[test]
fn bad_objcopy_results_are_logged_rejections() {
    let area = Area::new();
    let dir = area.input();
    let object = copy_fixture("alpha.co", &dir, "a.co");
    let (predicate, _) = marking_predicate(&dir);
    let bin = tempfile::tempdir().unwrap();
    // Reduces the object with the fake objcopy `body` allowed to remove `sections`: every
    // section candidate is rejected and the object comes out intact. Returns the output.
    let reduce_with = |name: &str, body: &str, sections: &[&str]| {
        let objcopy = script(bin.path(), name, body);
        let out = area.out(name);
        area.object_cmd(&out, &predicate, &object)
            .args(
                sections
                    .iter()
                    .map(|s| format!("--allow-remove-section={s}")),
            )
            .arg(format!("--objcopy={}", objcopy.display()))
            .assert()
            .success();
        let kept = std::fs::read(out.join("objects/a.co")).unwrap();
        assert_eq!(kept, std::fs::read(&object).unwrap(), "{name}");
        out
    };
    // Removes every debug section whatever was asked: "removes too much".
    let out = reduce_with(
        "greedy",
        "#!/bin/sh\nexec llvm-objcopy '--remove-section=.debug_*' \"$@\"\n",
        &[".debug_*", ".comment"],
    );
    let log = log(&out);
    let sections: Vec<&serde_json::Value> = log["transformations"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|t| t["pass"] == "elf-sections")
        .collect();
    let rejected: Vec<_> = sections
        .iter()
        .filter(|t| t["predicate"]["status"] == "tool-error")
        .collect();
    assert!(!rejected.is_empty(), "{sections:?}");
    for entry in &rejected {
        assert_eq!(entry["accepted"], false);
        assert!(entry["transformation"].get("tool_error").is_none());
        assert!(entry["predicate"]["error"]
            .as_str()
            .unwrap()
            .contains("unrequested sections disappeared"));
    }
    // ddmin never asks for every debug section at once, so every candidate lost something.
    assert!(sections.iter().all(|t| t["accepted"] == false));

    // An objcopy that fails: every section candidate is rejected, the object stays intact.
    let out2 = reduce_with(
        "failing",
        "#!/bin/sh\necho 'cannot do that' >&2\nexit 1\n",
        &[".debug_*"],
    );
    let text = std::fs::read_to_string(out2.join("reduction-log.json")).unwrap();
    assert!(
        text.contains("cannot do that"),
        "the tool's stderr is logged"
    );
}
