//! Interoperability with the original reducer (`hotswap_reduce.py`) through files it wrote:
//! `crates/bundle/tests/fixtures/hotswap/original-*` are the cache file and reduction log of real
//! runs of the original on `examples/bundle` (how they were made: `crates/bundle/COMPATIBILITY.md`).
//! With the same predicate at the same path, minrepro answers every candidate from the
//! original's cache (zero predicate runs), reports the same initial and final digests, and a
//! fresh minrepro run writes a cache with the original's keys and entries.

use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};

use crate::support::bundle::*;
use crate::support::*;

/// Where the fixtures' predicate lived when the original wrote them: its absolute path, content
/// and mode are part of the original's predicate identity and so of every cache key. The tests
/// install it in their own temporary area instead (no fixed path in /tmp: parallel suites must
/// not collide) and re-key the fixtures for that path, after checking that the derivation of the
/// keys gives exactly the keys the original wrote.
const FIXTURE_PREDICATE: &str = "/tmp/minrepro-hotswap-compat/predicate.sh";

fn fixture_dir() -> PathBuf {
    repo_root().join("crates/bundle/tests/fixtures/hotswap")
}

/// Installs the fixture predicate in `area` (mode 0755, as the original saw it).
fn install_predicate(area: &Area) -> PathBuf {
    let target = area.out("compat/predicate.sh");
    if !target.exists() {
        std::fs::create_dir_all(target.parent().unwrap()).unwrap();
        std::fs::copy(fixture_dir().join("predicate.sh"), &target).unwrap();
        std::fs::set_permissions(&target, std::fs::Permissions::from_mode(0o755)).unwrap();
    }
    std::fs::canonicalize(&target).unwrap()
}

/// The original's canonical JSON: keys sorted, no spaces.
fn canonical(value: &serde_json::Value) -> String {
    match value {
        serde_json::Value::Object(map) => {
            let mut keys: Vec<&String> = map.keys().collect();
            keys.sort();
            let fields: Vec<String> = keys
                .into_iter()
                .map(|k| {
                    format!(
                        "{}:{}",
                        serde_json::Value::from(k.as_str()),
                        canonical(&map[k])
                    )
                })
                .collect();
            format!("{{{}}}", fields.join(","))
        }
        serde_json::Value::Array(items) => {
            format!(
                "[{}]",
                items.iter().map(canonical).collect::<Vec<_>>().join(",")
            )
        }
        other => other.to_string(),
    }
}

fn sha256(parts: &[&[u8]]) -> Vec<u8> {
    use sha2::Digest;
    let mut hasher = sha2::Sha256::new();
    for part in parts {
        hasher.update(part);
    }
    hasher.finalize().to_vec()
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

fn unhex(text: &str) -> Vec<u8> {
    (0..text.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(&text[i..i + 2], 16).unwrap())
        .collect()
}

/// The cache keys of every candidate of a reduction `log` of the original: the digest of its
/// predicate configuration, then of the candidate's.
fn keys_of(log: &serde_json::Value) -> Vec<String> {
    let p = &log["predicate"];
    let config = serde_json::json!({
        "argv": p["argv_template"],
        "identity_files": p["identity_files"],
        "cache_tags": p["cache_tags"],
        "interesting_exit_code": p["interesting_exit_code"],
        "runs": p["runs"],
        "timeout": p["timeout_seconds"],
    });
    let config = sha256(&[canonical(&config).as_bytes()]);
    let transformations = log["transformations"].as_array().unwrap();
    std::iter::once(&log["initial_digest"])
        .chain(transformations.iter().map(|t| &t["candidate_digest"]))
        .map(|digest| hex(&sha256(&[&config, &unhex(digest.as_str().unwrap())])))
        .collect()
}

/// The fixture log and cache of `kind` as if the original had run with its predicate at
/// `predicate`: the path replaced in the log, every cache key derived anew. Panics unless the
/// derivation gives exactly the fixture's keys for the path the original used.
fn fixtures_for(kind: &str, predicate: &Path) -> (serde_json::Value, serde_json::Value) {
    let log_text =
        std::fs::read_to_string(fixture_dir().join(format!("original-{kind}-log.json"))).unwrap();
    let mut cache = json(&fixture_dir().join(format!("original-{kind}-cache.json")));
    let original_log: serde_json::Value = serde_json::from_str(&log_text).unwrap();
    let old_keys = keys_of(&original_log);
    let entries = cache["entries"].as_object().unwrap().clone();
    let mut sorted_old: Vec<&String> = old_keys.iter().collect();
    sorted_old.sort();
    sorted_old.dedup();
    assert_eq!(
        sorted_old,
        entries.keys().collect::<Vec<_>>(),
        "{kind}: the keys derived from the original's log are not the keys it wrote"
    );
    let path = serde_json::Value::from(predicate.to_string_lossy().as_ref()).to_string();
    let log: serde_json::Value =
        serde_json::from_str(&log_text.replace(&format!("\"{FIXTURE_PREDICATE}\""), &path))
            .unwrap();
    let mut rekeyed = serde_json::Map::new();
    for (old, new) in old_keys.iter().zip(keys_of(&log)) {
        rekeyed.insert(new, entries[old].clone());
    }
    let mut sorted: Vec<(String, serde_json::Value)> = rekeyed.into_iter().collect();
    sorted.sort_by(|a, b| a.0.cmp(&b.0));
    cache["entries"] = serde_json::Value::Object(sorted.into_iter().collect());
    (log, cache)
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
    let predicate = install_predicate(area);
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
    let (original_log, original_cache) = fixtures_for(kind, &install_predicate(&area));
    let label = format!("{kind}, tools {llvm:?}");

    // (a) On the original's cache: every verdict is a hit.
    let shared = area.out("shared-cache.json");
    std::fs::write(&shared, serde_json::to_vec(&original_cache).unwrap()).unwrap();
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
    assert_eq!(json(&shared), original_cache, "{label}");

    // (c) A fresh run writes the original's keys and entries.
    let fresh = area.out("fresh-cache.json");
    assert!(run(&area, "fresh", &fresh, sections, llvm) > 0, "{label}");
    assert_eq!(
        json(&fresh)["entries"],
        original_cache["entries"],
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
                &install_predicate(&area),
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
