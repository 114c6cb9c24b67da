//! Helpers of the `minrepro bundle` tests: fixtures and bundles, the gamma predicate, and
//! checks of a published output.

use std::path::{Path, PathBuf};

use assert_cmd::Command;

use super::{bundle_json, fixtures, json, metadata, minrepro, names, run_with_pid, script, Area};

/// Copies a fixture to `dir/name` (creating parents).
pub fn copy_fixture(fixture: &str, dir: &Path, name: &str) -> PathBuf {
    let path = dir.join(name);
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::copy(fixtures().join(fixture), &path).unwrap();
    path
}

impl Area {
    /// `minrepro bundle -q` with TMPDIR set to the private directory.
    pub fn bundle_cmd(&self) -> Command {
        let mut command = minrepro();
        command.env("TMPDIR", self.tmp()).arg("bundle").arg("-q");
        command
    }

    /// `minrepro bundle --output OUT --predicate PREDICATE`, ready for the inputs and more flags.
    pub fn output_cmd(&self, out: &Path, predicate: &Path) -> Command {
        let mut command = self.bundle_cmd();
        command
            .arg("--output")
            .arg(out)
            .arg("--predicate")
            .arg(predicate);
        command
    }

    /// [`Area::output_cmd`] with `--code-object OBJECT`, ready for more inputs and flags.
    pub fn object_cmd(
        &self,
        out: &Path,
        predicate: &Path,
        object: impl AsRef<std::ffi::OsStr>,
    ) -> Command {
        let mut command = self.output_cmd(out, predicate);
        command.arg("--code-object").arg(object);
        command
    }

    /// [`Area::output_cmd`] with `--worklist WORKLIST --metadata SELECTOR`, ready for more flags.
    pub fn worklist_cmd(
        &self,
        out: &Path,
        predicate: &Path,
        worklist: &Path,
        selector: &Path,
    ) -> Command {
        let mut command = self.output_cmd(out, predicate);
        command
            .arg("--worklist")
            .arg(worklist)
            .arg("--metadata")
            .arg(selector);
        command
    }

    /// `minrepro bundle --bundle BUNDLE --output OUT --predicate PREDICATE`, ready for more flags.
    pub fn reduce_cmd(&self, bundle: &Path, out: &Path, predicate: &Path) -> Command {
        let mut command = self.bundle_cmd();
        command.args(reduce_args(bundle, out, predicate));
        command
    }

    /// A shell predicate `in/NAME` that runs `prelude`, then hands its arguments to the
    /// [`gamma_predicate`] (written next to it).
    pub fn gamma_wrapper(&self, name: &str, prelude: &str) -> PathBuf {
        let gamma = gamma_predicate(&self.input());
        self.script(
            name,
            &format!("#!/bin/sh\n{prelude}\nexec '{}' \"$@\"\n", gamma.display()),
        )
    }
}

/// `--bundle BUNDLE --output OUT --predicate PREDICATE` as arguments, for commands built by hand.
pub fn reduce_args<'a>(
    bundle: &'a Path,
    out: &'a Path,
    predicate: &'a Path,
) -> Vec<&'a std::ffi::OsStr> {
    vec![
        "--bundle".as_ref(),
        bundle.as_os_str(),
        "--output".as_ref(),
        out.as_os_str(),
        "--predicate".as_ref(),
        predicate.as_os_str(),
    ]
}

/// Writes the standard three-object bundle (alpha, beta in a path with spaces, gamma) with inline
/// metadata and returns its path.
pub fn three_object_bundle(dir: &Path) -> PathBuf {
    copy_fixture("alpha.co", dir, "objects/alpha.co");
    copy_fixture("beta.co", dir, "objects/beta kernel (v2).co");
    copy_fixture("gamma.co", dir, "objects/gamma.co");
    let bundle = dir.join("bundle.json");
    std::fs::write(
        &bundle,
        r#"{
  "format": "comgr-hotswap-reducer-bundle",
  "version": 1,
  "code_objects": [
    {"id": "alpha", "path": "objects/alpha.co"},
    {"id": "beta", "path": "objects/beta kernel (v2).co"},
    {"id": "gamma", "path": "objects/gamma.co"}
  ],
  "metadata": {
    "kernels": [{"name": "alpha"}, {"name": "beta"}, {"name": "gamma"}],
    "cases": [
      {"name": "a", "arguments": [1, 2, 3]},
      {"name": "g", "arguments": [10, 20, 30, 40, 50]}
    ],
    "arguments": ["x", "y"],
    "owner": {"team": "compiler"}
  }
}
"#,
    )
    .unwrap();
    bundle
}

/// A fresh area with the [`three_object_bundle`] in its input; returns both and the bundle's path.
pub fn bundle_area() -> (Area, PathBuf) {
    let area = Area::new();
    let bundle = three_object_bundle(&area.input());
    (area, bundle)
}

/// A fresh area with a [`write_bundle`] bundle of `contents` and `metadata` in its input; returns
/// both and the bundle's path.
pub fn objects_area(contents: &[&[u8]], metadata: serde_json::Value) -> (Area, PathBuf) {
    let area = Area::new();
    let bundle = write_bundle(&area.input(), contents, metadata, None);
    (area, bundle)
}

/// [`bundle_area`] plus the [`gamma_predicate`] in the input; returns the predicate's path too.
pub fn gamma_area() -> (Area, PathBuf, PathBuf) {
    let (area, bundle) = bundle_area();
    let predicate = gamma_predicate(&area.input());
    (area, bundle, predicate)
}

/// [`bundle_area`] plus the shell predicate `in/NAME` of `body`; returns the predicate's path too.
pub fn predicate_area(name: &str, body: &str) -> (Area, PathBuf, PathBuf) {
    let (area, bundle) = bundle_area();
    let predicate = area.script(name, body);
    (area, bundle, predicate)
}

/// A predicate (python3 -S) that is interesting while an object containing `gamma` remains, the
/// metadata lists kernel `gamma`, and some case still has argument 30. Argument: `{bundle}`.
pub fn gamma_predicate(dir: &Path) -> PathBuf {
    script(
        dir,
        "needs-gamma.py",
        r#"#!/usr/bin/python3 -S
import json, os, sys
bundle_path = sys.argv[1]
base = os.path.dirname(bundle_path)
bundle = json.load(open(bundle_path))
meta = json.load(open(os.path.join(base, bundle["metadata"])))
if {"name": "gamma"} not in meta.get("kernels", []):
    sys.exit(1)
if not any(30 in c.get("arguments", []) for c in meta.get("cases", [])):
    sys.exit(1)
for entry in bundle["code_objects"]:
    if b"gamma" in open(os.path.join(base, entry["path"]), "rb").read():
        print("still failing in", os.path.join(base, entry["path"]))
        sys.exit(0)
sys.exit(1)
"#,
    )
}

/// FNV-1a of bytes (keeps assertion messages short).
fn fnv(bytes: &[u8]) -> u64 {
    bytes.iter().fold(0xcbf29ce484222325, |h, b| {
        (h ^ u64::from(*b)).wrapping_mul(0x100000001b3)
    })
}

/// Every file under `dir` with its size and content hash, sorted by relative path.
pub fn tree(dir: &Path) -> Vec<(String, usize, u64)> {
    fn walk(base: &Path, dir: &Path, out: &mut Vec<(String, usize, u64)>) {
        for entry in std::fs::read_dir(dir).unwrap().flatten() {
            let path = entry.path();
            if path.is_dir() {
                walk(base, &path, out);
            } else {
                let rel = path
                    .strip_prefix(base)
                    .unwrap()
                    .to_string_lossy()
                    .into_owned();
                let bytes = std::fs::read(&path).unwrap();
                out.push((rel, bytes.len(), fnv(&bytes)));
            }
        }
    }
    let mut out = Vec::new();
    walk(dir, dir, &mut out);
    out.sort();
    out
}

/// Section names of an object according to llvm-readobj.
pub fn section_names(object: &Path) -> Vec<String> {
    let out = std::process::Command::new("llvm-readobj")
        .args(["--elf-output-style=JSON", "--sections"])
        .arg(object)
        .output()
        .unwrap();
    assert!(out.status.success());
    let value: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let file = value[0]
        .as_object()
        .unwrap()
        .values()
        .next()
        .unwrap()
        .clone();
    file["Sections"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["Section"]["Name"]["Value"].as_str().unwrap().to_owned())
        .collect()
}

/// Asserts `object` has no `.debug_*` section left; `label` names the case.
pub fn assert_no_debug_sections(object: &Path, label: &str) {
    let sections = section_names(object);
    let debug: Vec<&String> = sections
        .iter()
        .filter(|s| s.starts_with(".debug_"))
        .collect();
    assert!(debug.is_empty(), "{label}: {debug:?} left in {sections:?}");
}

/// Parses an output's log.
pub fn log(out: &Path) -> serde_json::Value {
    json(&out.join("reduction-log.json"))
}

/// Writes a bundle like the original's tests do: objects `object-N.co` (or `names`) with ids
/// `id-N`, and `metadata` inline (or a relative path when it is a JSON string).
pub fn write_bundle(
    root: &Path,
    contents: &[&[u8]],
    metadata: serde_json::Value,
    names: Option<&[&str]>,
) -> PathBuf {
    let mut objects = Vec::new();
    for (index, content) in contents.iter().enumerate() {
        let name = names.map_or_else(|| format!("object-{index}.co"), |n| n[index].to_owned());
        let path = root.join(&name);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(&path, content).unwrap();
        objects.push(serde_json::json!({"id": format!("id-{index}"), "path": name}));
    }
    let bundle = serde_json::json!({
        "format": "comgr-hotswap-reducer-bundle",
        "version": 1,
        "code_objects": objects,
        "metadata": metadata,
    });
    let path = root.join("bundle.json");
    std::fs::write(&path, bundle.to_string()).unwrap();
    path
}

/// Python's own computation of the original reducer's candidate digest of a published output
/// (object ids, original names from the log, object sha256s, canonical metadata JSON); also checks
/// that metadata.json holds that canonical JSON.
pub fn python_digest(out: &Path) -> String {
    const SCRIPT: &str = r#"
import hashlib, json, sys
out = sys.argv[1]
bundle = json.load(open(out + "/bundle.json"))
log = json.load(open(out + "/reduction-log.json"))
raw = open(out + "/" + bundle["metadata"], "rb").read()
metadata = json.loads(raw)
def canonical(value):
    return json.dumps(value, allow_nan=False, ensure_ascii=True, separators=(",", ":"),
                      sort_keys=True).encode("ascii")
assert raw == canonical(metadata) + b"\n", "metadata.json is not canonical JSON"
names = {item["id"]: item["name"] for item in log["originals"]}
digest = hashlib.sha256(b"comgr-hotswap-reducer-candidate-v1\0")
for item in bundle["code_objects"]:
    digest.update(canonical(item["id"]) + b"\0" + canonical(names[item["id"]]) + b"\0")
    digest.update(bytes.fromhex(item["sha256"]))
digest.update(b"\0metadata\0" + canonical(metadata))
print(digest.hexdigest())
"#;
    let assert = assert_cmd::Command::new("python3")
        .args(["-S", "-c", SCRIPT])
        .arg(out)
        .assert()
        .success();
    String::from_utf8_lossy(&assert.get_output().stdout)
        .trim()
        .to_owned()
}

/// Checks a published output: bundle.json names exactly the files under objects/ with matching
/// sizes and sha256, metadata.json is canonical JSON, and the log's final digest is the one the
/// original reducer computes.
pub fn verify_output(out: &Path) {
    let bundle = bundle_json(out);
    metadata(out);
    let log = log(out);
    assert_eq!(log["format"], "comgr-hotswap-reduction-log");
    assert_eq!(log["final_digest"], python_digest(out).as_str());
    let mut named: Vec<String> = Vec::new();
    for entry in bundle["code_objects"].as_array().unwrap() {
        let path = entry["path"].as_str().unwrap();
        let bytes = std::fs::read(out.join(path)).unwrap();
        assert_eq!(
            entry["size"].as_u64().unwrap(),
            bytes.len() as u64,
            "{path}"
        );
        let sha = std::process::Command::new("sha256sum")
            .arg(out.join(path))
            .output()
            .unwrap();
        let sha = String::from_utf8_lossy(&sha.stdout);
        assert!(sha.starts_with(entry["sha256"].as_str().unwrap()), "{path}");
        named.push(path.trim_start_matches("objects/").to_owned());
    }
    named.sort();
    assert_eq!(named, names(&out.join("objects")));
}

/// Asserts that no staging directory or temporary file of ours next to an output.
pub fn assert_no_staging(dir: &Path) {
    let mut left = names(dir);
    left.retain(|n| n.contains(".minrepro-"));
    assert!(left.is_empty(), "staging leftovers: {left:?}");
}

/// Asserts the input tree is `before` but for the files `ours` names (a predicate's bookkeeping).
pub fn assert_inputs_kept(
    area: &Area,
    before: &[(String, usize, u64)],
    ours: fn(&str) -> bool,
    label: &str,
) {
    let kept = |files: &[(String, usize, u64)]| -> Vec<(String, usize, u64)> {
        files.iter().filter(|(n, _, _)| !ours(n)).cloned().collect()
    };
    assert_eq!(
        kept(&tree(&area.input())),
        kept(before),
        "{label}: inputs changed"
    );
}

/// Runs `minrepro bundle` on `bundle` into `out` with `predicate` and `extra` flags (spawned, so
/// its pid is known); returns (pid, output).
pub fn run_reduction(
    area: &Area,
    bundle: &Path,
    out: &Path,
    predicate: &Path,
    extra: &[&str],
) -> (u32, std::process::Output) {
    run_with_pid(
        area.process("bundle")
            .args(reduce_args(bundle, out, predicate))
            .args(extra),
    )
}
