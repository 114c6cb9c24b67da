//! Behavioural twins of the original reducer's validation, worklist, cache and predicate tests
//! (`BundleValidationTests` and `PredicateTests` of its `test_hotswap_reduce.py`), through the
//! `minrepro bundle` command line. The table in `crates/bundle/COMPATIBILITY.md` maps each.

use std::path::{Path, PathBuf};
use std::process::Output;

use crate::support::bundle::*;
use crate::support::*;
use serde_json::json;

/// Runs `minrepro bundle` on `bundle` with `predicate` and `{bundle}`, plus `extra` flags.
fn run(area: &Area, bundle: &Path, out: &str, predicate: &Path, extra: &[&str]) -> Output {
    area.reduce_cmd(bundle, &area.out(out), predicate)
        .arg("--predicate-arg={bundle}")
        .args(extra)
        .output()
        .unwrap()
}

/// Reduces a bundle of `objects` into `out` with a predicate that only exits `code`, plus `extra`
/// flags.
fn run_exiting(objects: &[&[u8]], code: i32, extra: &[&str]) -> (Area, Output) {
    let (area, bundle) = objects_area(objects, json!({}));
    let output = run(&area, &bundle, "out", &exiting(&area.input(), code), extra);
    (area, output)
}

/// Expects a refusal with `needle` before any predicate run and nothing published.
fn refused(area: &Area, bundle: &Path, needle: &str) {
    let count = area.out("refused.count");
    let predicate = counting(&area.input(), "never.sh", &count, 0, "");
    let output = run(area, bundle, "refused", &predicate, &[]);
    assert_nothing_published(&output, &area.out("refused"), needle);
    assert_eq!(runs(&count), 0);
}

#[test]
fn rejects_malformed_metadata_list() {
    let (area, bundle) = objects_area(&[b"object"], json!({"cases": {}}));
    refused(&area, &bundle, "metadata.cases must be a JSON list");
}

#[test]
fn rejects_duplicate_ids() {
    let area = Area::new();
    let root = area.input();
    std::fs::write(root.join("a"), "a").unwrap();
    std::fs::write(root.join("b"), "b").unwrap();
    let bundle = root.join("bundle.json");
    std::fs::write(
        &bundle,
        r#"{"format": "comgr-hotswap-reducer-bundle", "version": 1,
            "code_objects": [{"id": "same", "path": "a"}, {"id": "same", "path": "b"}]}"#,
    )
    .unwrap();
    refused(&area, &bundle, "duplicate code object id");
}

#[test]
fn bundle_paths_and_symlinks_cannot_escape_the_bundle_directory() {
    let area = Area::new();
    let root = area.input().join("bundle");
    std::fs::create_dir(&root).unwrap();
    let outside = area.write_input("outside.co", "outside");
    std::os::unix::fs::symlink(&outside, root.join("linked.co")).unwrap();
    let bundle = root.join("bundle.json");
    for (path, needle) in [
        ("../outside.co", "escapes"),
        (text(&outside), "must be relative"),
        ("linked.co", "escapes"),
    ] {
        let document = json!({"format": "comgr-hotswap-reducer-bundle", "version": 1,
                              "code_objects": [{"id": "outside", "path": path}]});
        std::fs::write(&bundle, document.to_string()).unwrap();
        refused(&area, &bundle, needle);
    }
}

#[test]
fn rejects_non_finite_json() {
    let area = Area::new();
    let bundle = area.write_input("bundle.json", r#"{"value": NaN}"#);
    refused(&area, &bundle, "non-finite");
}

#[test]
fn accepts_spaces_and_special_characters_in_paths() {
    let area = Area::new();
    // write_bundle creates the directory.
    let root = area.input().join("reduce spaces [x");
    let bundle = write_bundle(
        &root,
        &[b"one"],
        json!({}),
        Some(&["objects/a file [1] $x.co"]),
    );
    let predicate = exiting(&root, 0);
    let output = run(&area, &bundle, "out [y]", &predicate, &[]);
    assert!(output.status.success(), "{}", stderr(&output));
    let out = area.out("out [y]");
    let published = bundle_json(&out);
    let relative = published["code_objects"][0]["path"].as_str().unwrap();
    assert_eq!(std::fs::read(out.join(relative)).unwrap(), b"one");
    assert_eq!(log(&out)["originals"][0]["name"], "a file [1] $x.co");
}

#[test]
fn loads_inventory_nul_worklist_and_selector_metadata() {
    let area = Area::new();
    let root = area.input();
    let first = root.join("object with spaces.co");
    let second = root.join("object\nwith-newline.co");
    std::fs::write(&first, "first").unwrap();
    std::fs::write(&second, "second").unwrap();
    let worklist = root.join("selected.list");
    let mut list = Vec::new();
    for path in [&first, &second] {
        list.extend_from_slice(text(path).as_bytes());
        list.push(0);
    }
    std::fs::write(&worklist, list).unwrap();
    let selection = root.join("selection.json");
    let tests = json!([{"id": "test-a"}, {"id": "test-b"}]);
    std::fs::write(
        &selection,
        json!({"kind": "producer-selection", "schema_version": 1, "selected_tests": tests})
            .to_string(),
    )
    .unwrap();
    // Interesting only while both objects and both selected tests remain: nothing can go.
    let predicate = script(
        &root,
        "both.sh",
        "#!/bin/sh\n[ $(ls objects | wc -l) -eq 2 ] || exit 1\n\
         grep -q test-a metadata.json && grep -q test-b metadata.json\n",
    );
    let out = area.out("out");
    area.worklist_cmd(&out, &predicate, &worklist, &selection)
        .assert()
        .success();
    let log = log(&out);
    let originals: Vec<(&str, &str)> = log["originals"]
        .as_array()
        .unwrap()
        .iter()
        .map(|o| (o["id"].as_str().unwrap(), o["name"].as_str().unwrap()))
        .collect();
    assert_eq!(
        originals,
        [
            ("object-0000", "object with spaces.co"),
            ("object-0001", "object\nwith-newline.co")
        ]
    );
    let metadata = metadata(&out);
    assert_eq!(metadata["selected_tests"], tests);
    verify_output(&out);
}

/// A one-object bundle and a counting predicate for the cache twins.
struct CacheSetup {
    area: Area,
    bundle: PathBuf,
    count: PathBuf,
    cache: PathBuf,
}

impl CacheSetup {
    fn new() -> Self {
        let (area, bundle) = objects_area(&[b"interesting"], json!({}));
        let count = area.out("count");
        let cache = area.out("predicate-cache.json");
        CacheSetup {
            area,
            bundle,
            count,
            cache,
        }
    }

    /// Runs with the cache; returns the predicate runs this run made.
    fn run(&self, name: &str, predicate: &Path, extra: &[&str]) -> usize {
        let before = runs(&self.count);
        let mut args = vec!["--cache-file", text(&self.cache)];
        args.extend_from_slice(extra);
        let output = run(&self.area, &self.bundle, name, predicate, &args);
        assert!(output.status.success(), "{}", stderr(&output));
        runs(&self.count) - before
    }
}

#[test]
fn persistent_cache_uses_candidate_content_and_survives_a_new_run() {
    let setup = CacheSetup::new();
    let predicate = counting(&setup.area.input(), "p.sh", &setup.count, 0, "");
    assert_eq!(setup.run("first", &predicate, &[]), 1);
    assert_eq!(setup.run("second", &predicate, &[]), 0);
    let cache = json(&setup.cache);
    assert_eq!(cache["format"], "comgr-hotswap-reduction-cache");
    assert_eq!(cache["version"], 1);
    // Changed content is a different candidate.
    std::fs::write(setup.area.input().join("object-0.co"), "changed").unwrap();
    assert_eq!(setup.run("third", &predicate, &[]), 1);
}

#[test]
fn cached_and_uncached_results_are_equivalent() {
    let setup = CacheSetup::new();
    let bundle = write_bundle(
        &setup.area.input(),
        &[b"interesting", b"second"],
        json!({}),
        None,
    );
    assert_eq!(bundle, setup.bundle);
    let predicate = counting(
        &setup.area.input(),
        "p.sh",
        &setup.count,
        7,
        "echo 'stable output'; echo 'stable error' >&2",
    );
    let flags = ["--interesting-exit-code", "7", "--predicate-runs", "2"];
    assert!(setup.run("uncached", &predicate, &flags) > 0);
    assert_eq!(setup.run("cached", &predicate, &flags), 0);
    let (uncached, cached) = (
        std::fs::read(setup.area.out("uncached/reduction-log.json")).unwrap(),
        std::fs::read(setup.area.out("cached/reduction-log.json")).unwrap(),
    );
    assert_eq!(uncached, cached);
    let log = log(&setup.area.out("cached"));
    let entry = &log["transformations"][0]["predicate"];
    assert_eq!(entry["exit_codes"], json!([7, 7]));
    assert!(entry["stdout"].as_str().unwrap().contains("stable output"));
    assert!(entry.get("cached").is_none());
}

#[test]
fn persistent_cache_invalidates_changed_predicate_script_dependency_and_tag() {
    let setup = CacheSetup::new();
    let dir = setup.area.input();
    let dependency = dir.join("libamd_comgr.so");
    std::fs::write(&dependency, "build-one").unwrap();
    let predicate = counting(&dir, "p.sh", &setup.count, 0, "# identity: first");
    let with = |tag: &'static str| ["--cache-dependency", text(&dependency), "--cache-tag", tag];
    assert_eq!(setup.run("a", &predicate, &with("environment-one")), 1);
    assert_eq!(setup.run("b", &predicate, &with("environment-one")), 0);
    std::fs::write(&dependency, "build-two").unwrap();
    assert_eq!(setup.run("c", &predicate, &with("environment-one")), 1);
    assert_eq!(setup.run("d", &predicate, &with("environment-two")), 1);
    let predicate = counting(&dir, "p.sh", &setup.count, 0, "# identity: second");
    assert_eq!(setup.run("e", &predicate, &with("environment-two")), 1);
}

#[test]
fn changed_identity_mode_during_the_run_is_rejected() {
    let (area, bundle) = objects_area(&[b"one", b"two"], json!({}));
    // The predicate makes itself non-executable on its second run (its first line runs before
    // the run is counted).
    let count = area.out("count");
    let predicate = counting(
        &area.input(),
        "predicate.sh",
        &count,
        0,
        &format!(
            "[ $(cat '{}' 2>/dev/null | wc -l) -eq 1 ] && chmod a-x \"$0\"",
            count.display()
        ),
    );
    let output = run(&area, &bundle, "out", &predicate, &[]);
    assert_nothing_published(&output, &area.out("out"), "identity changed");
}

#[test]
fn nonzero_exit_can_mean_interesting() {
    let (area, output) = run_exiting(&[b"one", b"two"], 17, &["--interesting-exit-code", "17"]);
    assert!(output.status.success(), "{}", stderr(&output));
    let log = log(&area.out("out"));
    assert_eq!(
        log["transformations"][0]["predicate"]["status"],
        "interesting"
    );
    assert_eq!(
        log["transformations"][0]["predicate"]["exit_codes"],
        json!([17])
    );
}

#[test]
fn timeouts_and_flaky_verdicts_are_rejected_and_not_cached() {
    let (area, bundle) = objects_area(&[b"one"], json!({}));
    let count = area.out("count");
    let slow = counting(&area.input(), "slow.sh", &count, 0, "sleep 10");
    // Alternates 0 and 1 (flaky), and 1 and 2 (two different uninteresting codes: also flaky).
    let alternating = |name: &str, base: i32| {
        area.script(
            name,
            &format!(
                "#!/bin/sh\necho run >> '{0}'\nexit $(( {base} + $(wc -l < '{0}') % 2 ))\n",
                count.display()
            ),
        )
    };
    for (predicate, flags, needle) in [
        (slow, vec!["--timeout", "0.3"], "timeout"),
        (
            alternating("flaky.sh", 0),
            vec!["--predicate-runs", "2"],
            "flaky",
        ),
        (
            alternating("codes.sh", 1),
            vec!["--predicate-runs", "2"],
            "[2, 1]",
        ),
    ] {
        let cache = area.out("cache.json");
        let mut args = flags.clone();
        args.extend(["--cache-file", text(&cache)]);
        let output = run(&area, &bundle, "out", &predicate, &args);
        assert_fails(&output, 1, "original input is not");
        assert!(stderr(&output).contains(needle), "{}", stderr(&output));
        let stored = json(&cache);
        assert_eq!(stored["entries"], json!({}), "{needle}");
        std::fs::remove_file(&cache).unwrap();
        std::fs::remove_file(&count).ok();
    }
}

#[test]
fn capture_is_bounded() {
    let (area, bundle) = objects_area(&[b"one", b"two"], json!({}));
    let predicate = area.script(
        "loud.sh",
        "#!/bin/sh\nhead -c 409600 /dev/zero | tr '\\0' x\nexit 0\n",
    );
    let output = run(&area, &bundle, "out", &predicate, &[]);
    assert!(output.status.success(), "{}", stderr(&output));
    let log = log(&area.out("out"));
    let stdout = log["transformations"][0]["predicate"]["stdout"]
        .as_str()
        .unwrap();
    assert!(stdout.chars().count() <= 4096 + "\n<truncated>".len());
    assert!(stdout.ends_with("\n<truncated>"), "{}", &stdout[4000..]);
}

#[test]
fn unknown_placeholder_fails_before_launch() {
    let (area, bundle) = objects_area(&[b"one"], json!({}));
    let count = area.out("count");
    let predicate = counting(&area.input(), "p.sh", &count, 0, "");
    for argument in ["{unknown}", r#"{"json": 1}"#] {
        let output = area
            .reduce_cmd(&bundle, &area.out("out"), &predicate)
            .arg(format!("--predicate-arg={argument}"))
            .output()
            .unwrap();
        assert_fails(&output, 1, "unknown interestingness placeholder");
        assert_eq!(runs(&count), 0);
    }
}

#[test]
fn regular_file_argv_is_resolved_before_workspace_change() {
    let area = Area::new();
    let root = area.input();
    let bundle = write_bundle(&root, &[b"one"], json!({}), None);
    std::fs::write(root.join("predicate.py"), "raise SystemExit(0)\n").unwrap();
    let out = area.out("out");
    area.bundle_cmd()
        .current_dir(&root)
        .arg("--bundle")
        .arg(&bundle)
        .arg("--output")
        .arg(&out)
        .args(["--predicate", "python3", "--predicate-arg", "predicate.py"])
        .assert()
        .success();
    let real = root.join("predicate.py").canonicalize().unwrap();
    assert_eq!(log(&out)["predicate"]["argv_template"][1], text(&real));
}

#[test]
fn nonfinite_timeouts_are_rejected_by_the_command_line() {
    let (area, bundle) = objects_area(&[b"one"], json!({}));
    let count = area.out("count");
    let predicate = counting(&area.input(), "p.sh", &count, 0, "");
    for option in ["--timeout", "--tool-timeout"] {
        for value in ["nan", "inf", "-inf", "0", "-1"] {
            let output = area
                .reduce_cmd(&bundle, &area.out("out"), &predicate)
                .arg(format!("{option}={value}"))
                .output()
                .unwrap();
            assert_eq!(output.status.code(), Some(2), "{option}={value}");
        }
    }
    assert_eq!(runs(&count), 0);
}

#[test]
fn missing_section_tool_is_reported() {
    let extra = ["--allow-remove-section=*", "--readobj=/does-not-exist"];
    let (_, output) = run_exiting(&[b"one"], 0, &extra);
    assert_fails(&output, 1, "could not find executable");
}

#[test]
fn duplicate_items_are_reduced_by_position() {
    let area = Area::new();
    let x = area.input().join("x.co");
    let y = area.input().join("y.co");
    std::fs::write(&x, "x").unwrap();
    std::fs::write(&y, "y").unwrap();
    // The same file twice is two objects (object-0000 and object-0002 here); one x suffices.
    let predicate = area.script("x.sh", "#!/bin/sh\ncat objects/* | grep -q x\n");
    let out = area.out("out");
    let mut command = area.bundle_cmd();
    for object in [&x, &y, &x] {
        command.arg("--code-object").arg(object);
    }
    command
        .arg("--output")
        .arg(&out)
        .arg("--predicate")
        .arg(&predicate);
    command.assert().success();
    let bundle = bundle_json(&out);
    let ids: Vec<&str> = bundle["code_objects"]
        .as_array()
        .unwrap()
        .iter()
        .map(|o| o["id"].as_str().unwrap())
        .collect();
    assert_eq!(ids, ["object-0002"]);
    assert_eq!(log(&out)["originals"].as_array().unwrap().len(), 3);
}
