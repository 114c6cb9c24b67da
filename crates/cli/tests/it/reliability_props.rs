//! Reliability property tests: random bundles and metadata, some of them corrupted. Every accepted
//! input reduces to an output that the predicate still accepts; every corrupted input is rejected
//! before any predicate run (the predicate writes a marker file whenever it runs).

use std::path::Path;

use crate::support::*;
use proptest::prelude::*;
use serde_json::{json, Value};

#[derive(Debug, Clone)]
struct Input {
    objects: Vec<Vec<u8>>,
    key_object: usize,
    kernels: Vec<String>,
    keep_at: usize,
    cases: Vec<Vec<u8>>,
    arguments: Vec<i64>,
    selected: Vec<String>,
    external_metadata: bool,
    jobs: u8,
    corruption: Option<(u8, usize)>,
}

fn input() -> impl Strategy<Value = Input> {
    (
        prop::collection::vec(prop::collection::vec(any::<u8>(), 0..48), 1..5),
        any::<prop::sample::Index>(),
        prop::collection::vec("k[0-9]{1,2}", 0..8),
        any::<prop::sample::Index>(),
        prop::collection::vec(prop::collection::vec(0u8..5, 0..5), 0..4),
        prop::collection::vec(-3i64..1000, 0..5),
        prop::collection::vec("[a-z]{1,6}", 0..5),
        any::<bool>(),
        1u8..4,
        prop::option::weighted(0.5, (0u8..10, any::<usize>())),
    )
        .prop_map(
            |(
                objects,
                key,
                kernels,
                keep,
                cases,
                arguments,
                selected,
                external,
                jobs,
                corruption,
            )| {
                let key_object = key.index(objects.len());
                let keep_at = keep.index(kernels.len() + 1);
                Input {
                    objects,
                    key_object,
                    kernels,
                    keep_at,
                    cases,
                    arguments,
                    selected,
                    external_metadata: external,
                    jobs,
                    corruption,
                }
            },
        )
}

/// Writes the input under `dir` and returns the bundle path; `corruption` is applied.
fn write_input(dir: &Path, input: &Input) -> std::path::PathBuf {
    std::fs::create_dir_all(dir.join("objects")).unwrap();
    let mut entries = Vec::new();
    for (index, bytes) in input.objects.iter().enumerate() {
        let mut bytes = bytes.clone();
        if index == input.key_object {
            bytes.extend_from_slice(b"KEY");
        }
        let name = format!("objects/o {index}.co");
        std::fs::write(dir.join(&name), &bytes).unwrap();
        entries.push(json!({"id": format!("o{index}"), "path": name}));
    }
    let mut kernels: Vec<Value> = input.kernels.iter().map(|k| json!({"name": k})).collect();
    kernels.insert(input.keep_at, json!({"name": "keep"}));
    let metadata = json!({
        "kernels": kernels,
        "cases": input.cases.iter().enumerate().map(|(i, a)| json!({"name": format!("c{i}"), "arguments": a})).collect::<Vec<_>>(),
        "arguments": input.arguments,
        "selected_tests": input.selected,
        "owner": {"team": "props", "nested": [[1], {"x": null}]},
    });
    let mut bundle = json!({
        "format": "comgr-hotswap-reducer-bundle",
        "version": 1,
        "code_objects": entries,
        "metadata": metadata,
    });
    if input.external_metadata {
        std::fs::write(
            dir.join("meta.json"),
            serde_json::to_vec(&bundle["metadata"]).unwrap(),
        )
        .unwrap();
        bundle["metadata"] = json!("meta.json");
    }
    let mut text = serde_json::to_string_pretty(&bundle).unwrap();
    if let Some((kind, seed)) = input.corruption {
        match kind {
            0 => {
                let mut cut = seed % text.len();
                while !text.is_char_boundary(cut) {
                    cut -= 1;
                }
                text.truncate(cut);
            }
            1 => {
                bundle["code_objects"][0]["id"] = json!("");
                text = bundle.to_string();
            }
            2 => {
                bundle["code_objects"][seed % input.objects.len()]["path"] = json!("../escape.co");
                std::fs::write(dir.join("../escape.co"), b"KEY").unwrap();
                text = bundle.to_string();
            }
            3 => {
                bundle["version"] = json!(2);
                text = bundle.to_string();
            }
            4 => {
                bundle["code_objects"][seed % input.objects.len()]["path"] =
                    json!("objects/missing.co");
                text = bundle.to_string();
            }
            5 => {
                // (A wrong sha256 is accepted, as the original accepts it.)
                bundle["code_objects"] = json!([]);
                text = bundle.to_string();
            }
            6 => {
                let list = ["kernels", "cases", "arguments", "selected_tests"][seed % 4];
                if input.external_metadata {
                    let mut meta = bundle["metadata"].clone();
                    meta = if meta.is_string() {
                        serde_json::from_slice(&std::fs::read(dir.join("meta.json")).unwrap())
                            .unwrap()
                    } else {
                        meta
                    };
                    meta[list] = json!({"not": "a list"});
                    std::fs::write(dir.join("meta.json"), meta.to_string()).unwrap();
                } else {
                    bundle["metadata"][list] = json!("not a list");
                    text = bundle.to_string();
                }
            }
            7 => {
                // A duplicate object id (a duplicate JSON key is accepted, as the original does).
                let objects = bundle["code_objects"].as_array_mut().unwrap();
                let first = objects[0].clone();
                objects.push(json!({"id": first["id"], "path": first["path"]}));
                text = bundle.to_string();
            }
            8 => {
                let deep = format!(
                    "{}{}",
                    "[".repeat(200 + seed % 1000),
                    "]".repeat(200 + seed % 1000)
                );
                text = text.replacen("\"format\"", &format!("\"deep\": {deep}, \"format\""), 1);
            }
            _ => {
                text = text.replacen("\"version\": 1", "\"version\": 18446744073709551616", 1);
            }
        }
    }
    let path = dir.join("bundle.json");
    std::fs::write(&path, text).unwrap();
    path
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 24, failure_persistence: None, ..ProptestConfig::default() })]

    #[test]
    fn accepted_inputs_reduce_to_accepted_outputs_and_rejected_inputs_never_run(input in input()) {
        let area = Area::new();
        let dir = area.input().join("b");
        let bundle = write_input(&dir, &input);
        let marker = area.input().join("ran");
        let predicate = area.script(
            "keep.sh",
            &format!(
                "#!/bin/sh\necho run >> '{}'\ncd \"$1\" || exit 3\ngrep -q '\"keep\"' metadata.json || exit 1\n\
                 grep -qa KEY objects/* 2>/dev/null || exit 1\nexit 0\n",
                marker.display()
            ),
        );
        let out = area.out("out");
        let output = area.reduce_cmd(&bundle, &out, &predicate)
            .arg("--predicate-arg={workspace}")
            .arg("-j")
            .arg(input.jobs.to_string())
            .output()
            .unwrap();
        let stderr = String::from_utf8_lossy(&output.stderr).into_owned();
        prop_assert!(!stderr.contains("panicked"), "{}", stderr);
        prop_assert!(area.tmp_is_empty());
        if input.corruption.is_some() {
            prop_assert_eq!(output.status.code(), Some(1), "{}", stderr);
            prop_assert!(stderr.contains("bundle.json") || stderr.contains("meta.json"), "{}", stderr);
            prop_assert!(!marker.exists(), "the predicate ran on a rejected input: {}", stderr);
            prop_assert!(!out.exists());
        } else {
            prop_assert_eq!(output.status.code(), Some(0), "{}", stderr);
            prop_assert!(marker.exists());
            // The predicate accepts the published output as it stands.
            let check = std::process::Command::new(&predicate).arg(&out).status().unwrap();
            prop_assert!(check.success());
            // It is reduced: one object (the one with KEY) and the kernel list is just "keep".
            let objects = std::fs::read_dir(out.join("objects")).unwrap().count();
            prop_assert_eq!(objects, 1);
            let metadata = metadata(&out);
            prop_assert_eq!(&metadata["kernels"], &json!([{"name": "keep"}]));
            prop_assert_eq!(&metadata["owner"], &json!({"team": "props", "nested": [[1], {"x": null}]}));
            for list in ["cases", "arguments", "selected_tests"] {
                prop_assert_eq!(&metadata[list], &json!([]));
            }
        }
    }
}
