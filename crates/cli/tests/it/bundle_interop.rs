//! Interoperability with the original reducer (`hotswap_reduce.py`) through files it wrote:
//! `crates/bundle/tests/fixtures/hotswap/original-*` are the cache file and reduction log of real
//! runs of the original on `examples/bundle` (how they were made: `crates/bundle/COMPATIBILITY.md`).
//! With the same predicate at the same path, minrepro answers every candidate from the
//! original's cache (zero predicate runs), reports the same initial and final digests, and a
//! fresh minrepro run writes a cache with the original's keys and entries.

use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};

use crate::support::bundle::*;
use crate::support::*;

/// Where the fixtures' predicate must live: its absolute path, content and mode are part of the
/// original's predicate identity and so of every cache key.
const PREDICATE: &str = "/tmp/minrepro-hotswap-compat/predicate.sh";

fn fixture_dir() -> PathBuf {
    repo_root().join("crates/bundle/tests/fixtures/hotswap")
}

/// Installs the fixture predicate at [`PREDICATE`] (atomically; concurrent installs agree).
fn install_predicate() -> PathBuf {
    let target = Path::new(PREDICATE);
    let content = std::fs::read(fixture_dir().join("predicate.sh")).unwrap();
    let installed = std::fs::read(target).ok();
    let mode = std::fs::metadata(target).map(|m| m.permissions().mode() & 0o7777);
    if installed.as_deref() != Some(&content[..]) || mode.ok() != Some(0o755) {
        let dir = target.parent().unwrap();
        std::fs::create_dir_all(dir).unwrap();
        // Tests of this binary install side by side: each needs its own temporary name.
        static INSTALLS: AtomicUsize = AtomicUsize::new(0);
        let install = INSTALLS.fetch_add(1, Ordering::Relaxed);
        let temp = dir.join(format!(".predicate.{}.{install}", std::process::id()));
        std::fs::write(&temp, &content).unwrap();
        std::fs::set_permissions(&temp, std::fs::Permissions::from_mode(0o755)).unwrap();
        std::fs::rename(&temp, target).unwrap();
    }
    target.to_path_buf()
}

fn example_predicate() -> PathBuf {
    repo_root().join("examples/bundle/predicate.sh")
}

/// LLVM tool directories to run the section fixture with (LLVM 19 only when installed).
fn llvm_dirs() -> Vec<Option<&'static str>> {
    let mut dirs = vec![None];
    if Path::new("/usr/lib/llvm-19/bin/llvm-objcopy").exists() {
        dirs.push(Some("/usr/lib/llvm-19/bin"));
    } else {
        println!("skipping the LLVM 19 tool run: /usr/lib/llvm-19/bin is not installed");
    }
    dirs
}

/// Runs minrepro on examples/bundle with the fixture predicate; returns the number of predicate
/// runs.
fn run(area: &Area, name: &str, cache: &Path, sections: bool, llvm: Option<&str>) -> usize {
    let predicate = install_predicate();
    let count = area.out(&format!("{name}.count"));
    let mut command = area.reduce_cmd(
        &repo_root().join("examples/bundle/bundle.json"),
        &area.out(name),
        &predicate,
    );
    command
        .arg("--predicate-arg={bundle}")
        .arg("--cache-file")
        .arg(cache)
        .env("MINREPRO_COMPAT_COUNT", &count)
        .env("MINREPRO_COMPAT_PREDICATE", example_predicate());
    if sections {
        command.args([
            "--allow-remove-section=.debug_*",
            "--allow-remove-section=.comment",
        ]);
    }
    if let Some(dir) = llvm {
        command
            .arg(format!("--readobj={dir}/llvm-readobj"))
            .arg(format!("--objcopy={dir}/llvm-objcopy"));
    }
    command.assert().success();
    std::fs::read_to_string(&count).map_or(0, |t| t.lines().count())
}

fn check(kind: &str, sections: bool, llvm: Option<&str>) {
    let area = Area::new();
    let original_log = json(&fixture_dir().join(format!("original-{kind}-log.json")));
    let original_cache = fixture_dir().join(format!("original-{kind}-cache.json"));
    let label = format!("{kind}, tools {llvm:?}");

    // (a) On the original's cache: every verdict is a hit.
    let shared = area.out("shared-cache.json");
    std::fs::copy(&original_cache, &shared).unwrap();
    assert_eq!(
        run(&area, "from-cache", &shared, sections, llvm),
        0,
        "{label}"
    );
    // (b) The same digests, originals, predicate identity, policy and reproduction.
    let ours = log(&area.out("from-cache"));
    for key in [
        "format",
        "version",
        "initial_digest",
        "final_digest",
        "originals",
        "predicate",
        "section_policy",
        "reproduction",
    ] {
        if key == "reproduction" {
            // The argv names our output's object path; everything else is the same.
            assert_eq!(
                ours[key]["argv"][0], original_log[key]["argv"][0],
                "{label}"
            );
            assert_eq!(
                ours[key]["interesting_exit_code"], original_log[key]["interesting_exit_code"],
                "{label}"
            );
            continue;
        }
        assert_eq!(ours[key], original_log[key], "{label}: {key}");
    }
    verify_output(&area.out("from-cache"));
    // The cache gained nothing: the original's file is rewritten with the same entries.
    assert_eq!(json(&shared), json(&original_cache), "{label}");

    // (c) A fresh run writes the original's keys and entries.
    let fresh = area.out("fresh-cache.json");
    assert!(run(&area, "fresh", &fresh, sections, llvm) > 0, "{label}");
    assert_eq!(
        json(&fresh)["entries"],
        json(&original_cache)["entries"],
        "{label}"
    );
    assert_eq!(
        log(&area.out("fresh"))["final_digest"],
        original_log["final_digest"],
        "{label}"
    );
}

#[test]
fn original_cache_answers_every_candidate_without_sections() {
    check("plain", false, None);
}

#[test]
fn original_cache_answers_every_candidate_with_sections() {
    for llvm in llvm_dirs() {
        check("sections", true, llvm);
    }
}

#[test]
fn original_cache_with_a_corrupt_entry_or_format_is_refused_before_any_run() {
    let area = Area::new();
    let original =
        std::fs::read_to_string(fixture_dir().join("original-plain-cache.json")).unwrap();
    let cache = area.out("cache.json");
    for (damaged, needle) in [
        (
            original.replacen("\"exit_codes\":[0]", "\"exit_codes\":[]", 1),
            "corrupt entry",
        ),
        (
            original.replace("comgr-hotswap-reduction-cache", "something-else"),
            "unsupported predicate cache format",
        ),
    ] {
        std::fs::write(&cache, &damaged).unwrap();
        let output = area
            .reduce_cmd(
                &repo_root().join("examples/bundle/bundle.json"),
                &area.out("out"),
                &install_predicate(),
            )
            .arg("--predicate-arg={bundle}")
            .arg("--cache-file")
            .arg(&cache)
            .env("MINREPRO_COMPAT_COUNT", area.out("count"))
            .env("MINREPRO_COMPAT_PREDICATE", example_predicate())
            .output()
            .unwrap();
        assert_fails(&output, 1, needle);
        assert!(!area.out("count").exists() && !area.out("out").exists());
        assert_eq!(std::fs::read_to_string(&cache).unwrap(), damaged);
    }
}
