//! Reliability at scale (the small version; `bench/scale/run.sh` runs 2,000 objects and 100,000
//! metadata entries): a 300-object bundle with 10,000 metadata entries reduces with `-j 8` on a
//! 2-core machine, the result is the expected minimum, memory stays bounded, nothing is left over.

mod bundle_support;

use std::process::Command as StdCommand;

use bundle_support::*;

#[test]
fn three_hundred_objects_and_ten_thousand_entries_with_eight_jobs() {
    let area = Area::new();
    let dir = area.input().join("scale");
    let generator = repo_root().join("bench/scale/gen_bundle.py");
    let status = StdCommand::new("python3")
        .arg(&generator)
        .arg(&dir)
        .args(["300", "10000"])
        .status()
        .unwrap();
    assert!(status.success());
    let before = tree(&dir);
    let out = area.out("out");
    let output = StdCommand::new(assert_cmd::cargo::cargo_bin("minrepro"))
        .env("TMPDIR", area.tmp())
        .args(["bundle", "-q", "-j", "8", "--predicate-arg={workspace}"])
        .arg("--bundle")
        .arg(dir.join("bundle.json"))
        .arg("--output")
        .arg(&out)
        .arg("--predicate")
        .arg(dir.join("predicate.sh"))
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(output.status.success(), "{stderr}");
    // Peak RSS of the largest child so far (minrepro itself; predicates are tiny).
    // SAFETY: getrusage fills the struct we pass.
    let peak_kib = unsafe {
        let mut usage: libc::rusage = std::mem::zeroed();
        libc::getrusage(libc::RUSAGE_CHILDREN, &mut usage);
        usage.ru_maxrss
    };
    eprintln!("peak RSS of minrepro: {} MiB", peak_kib / 1024);
    assert!(peak_kib < 1024 * 1024, "peak RSS {peak_kib} KiB");
    let objects: Vec<String> = std::fs::read_dir(out.join("objects"))
        .unwrap()
        .flatten()
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .collect();
    assert_eq!(objects, ["o7.co"]);
    let metadata: serde_json::Value =
        serde_json::from_slice(&std::fs::read(out.join("metadata.json")).unwrap()).unwrap();
    assert_eq!(metadata["kernels"], serde_json::json!([{"name": "k-2000"}]));
    assert_eq!(metadata["selected_tests"], serde_json::json!(["t-3"]));
    assert_eq!(metadata["arguments"], serde_json::json!([]));
    let cases = metadata["cases"].as_array().unwrap();
    assert_eq!(cases.len(), 1);
    assert_eq!(cases[0]["arguments"], serde_json::json!([2]));
    assert!(StdCommand::new(dir.join("predicate.sh"))
        .arg(&out)
        .status()
        .unwrap()
        .success());
    assert_eq!(tree(&dir), before);
    assert!(area.tmp_is_empty());
}
