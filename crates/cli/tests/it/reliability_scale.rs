//! Reliability at scale (the small versions; `bench/scale/run.sh` runs 2,000 objects and 100,000
//! metadata entries): generated bundles reduce with `-j 8` on a 2-core machine to the expected
//! minimum, memory stays bounded, nothing is left over; candidate files hard linked from the
//! content store survive predicates that write them in place.

use std::path::{Path, PathBuf};
use std::process::Command as StdCommand;

use crate::support::bundle::*;
use crate::support::*;

/// Generates `bench/scale/gen_bundle.py DIR ARGS…` input under the area and returns DIR.
fn generate(area: &Area, name: &str, args: &[&str]) -> PathBuf {
    let dir = area.input().join(name);
    let status = StdCommand::new("python3")
        .arg(repo_root().join("bench/scale/gen_bundle.py"))
        .arg(&dir)
        .args(args)
        .status()
        .unwrap();
    assert!(status.success());
    dir
}

/// Reduces `dir/bundle.json` with `predicate` (argument `{workspace}`) at `-j jobs` into a new
/// output `out_name`; asserts success, a verified output and an empty TMPDIR.
/// Returns the output and minrepro's peak RSS in KiB.
fn reduce(area: &Area, dir: &Path, predicate: &Path, jobs: u32, out_name: &str) -> (PathBuf, i64) {
    let out = area.out(out_name);
    let bundle = dir.join("bundle.json");
    let (_, output, peak_kib) = run_measured(
        area.process("bundle")
            .args(["--predicate-arg={workspace}", "--exact", "-j"])
            .arg(jobs.to_string())
            .args(reduce_args(&bundle, &out, predicate)),
    );
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(output.status.success(), "{stderr}");
    verify_output(&out);
    assert!(area.tmp_is_empty());
    (out, peak_kib)
}

/// Names of the objects in an output, sorted.
fn object_names(out: &Path) -> Vec<String> {
    names(&out.join("objects"))
}

#[test]
fn three_hundred_objects_and_ten_thousand_entries_with_eight_jobs() {
    let area = Area::new();
    let dir = generate(&area, "scale", &["300", "10000"]);
    let before = tree(&dir);
    let (out, peak_kib) = reduce(&area, &dir, &dir.join("predicate.sh"), 8, "out");
    eprintln!("peak RSS of minrepro: {} MiB", peak_kib / 1024);
    assert!(peak_kib < 1024 * 1024, "peak RSS {peak_kib} KiB");
    assert_eq!(object_names(&out), ["o7.co"]);
    let metadata = metadata(&out);
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
}

/// The spread case (many needed objects and kernels drive ddmin to high granularities, so there
/// are many candidates, each linking most objects) reduces to exactly the needed set, with
/// byte-identical outputs and logs at `-j 1` and `-j 8`.
#[test]
fn spread_case_reduces_identically_with_one_and_eight_jobs() {
    let area = Area::new();
    let (objects, entries, spread) = (160, 1200, 5);
    let args = [objects, entries, spread].map(|n| n.to_string());
    let dir = generate(&area, "spread", &args.each_ref().map(String::as_str));
    let before = tree(&dir);
    let predicate = dir.join("predicate.sh");
    let parallel = reduce(&area, &dir, &predicate, 8, "out-8").0;
    let sequential = reduce(&area, &dir, &predicate, 1, "out-1").0;
    assert_eq!(tree(&parallel), tree(&sequential));
    // What gen_bundle.py's predicate needs: object 7, kernel k/2, and `spread` evenly spaced
    // objects and kernels.
    let kernels_in = entries * 4 / 10;
    let mut wanted_objects: Vec<usize> = (0..spread).map(|i| i * (objects / spread)).collect();
    wanted_objects.push(7);
    let mut wanted_kernels: Vec<usize> = (0..spread).map(|i| i * (kernels_in / spread)).collect();
    wanted_kernels.push(kernels_in / 2);
    for wanted in [&mut wanted_objects, &mut wanted_kernels] {
        wanted.sort();
        wanted.dedup();
    }
    let mut expected: Vec<String> = wanted_objects.iter().map(|i| format!("o{i}.co")).collect();
    expected.sort();
    assert_eq!(object_names(&parallel), expected);
    let kernels: Vec<String> = metadata(&parallel)["kernels"]
        .as_array()
        .unwrap()
        .iter()
        .map(|k| k["name"].as_str().unwrap().to_owned())
        .collect();
    let wanted: Vec<String> = wanted_kernels.iter().map(|i| format!("k-{i}")).collect();
    assert_eq!(kernels, wanted);
    assert!(StdCommand::new(&predicate)
        .arg(&parallel)
        .status()
        .unwrap()
        .success());
    assert_eq!(tree(&dir), before);
}

/// A predicate that first checks that every object in its workspace is byte-identical to the
/// input's (else it leaves a marker), takes the usual verdict, and then writes every file of its
/// workspace in place: appending, truncating, or chmod-ing and overwriting a byte. As root the
/// read-only mode of the stored files does not stop it; the content store must notice and
/// repair, so that no later candidate (nor a concurrent one), the output or the input sees it.
fn vandal_predicate(dir: &Path, marker: &Path) -> PathBuf {
    let body = format!(
        r#"#!/bin/sh
ws="$1"
for f in "$ws"/objects/*; do
    cmp -s "$f" "{input}/objects/${{f##*/}}" || {{ echo "$f" >> "{marker}"; exit 1; }}
done
"{input}/predicate.sh" "$ws"; verdict=$?
n=0
for f in "$ws"/objects/* "$ws/metadata.json" "$ws/bundle.json"; do
    case $((n % 3)) in
        0) echo scribble >> "$f" ;;
        1) : > "$f" ;;
        2) chmod 644 "$f"; printf X | dd of="$f" bs=1 count=1 conv=notrunc ;;
    esac
    n=$((n + 1))
done 2>/dev/null
exit $verdict
"#,
        input = dir.display(),
        marker = marker.display()
    );
    script(dir.parent().unwrap(), "vandal.sh", &body)
}

#[test]
fn predicates_writing_linked_files_in_place_corrupt_nothing() {
    let area = Area::new();
    let dir = generate(&area, "vandal", &["30", "300", "2"]);
    let before = tree(&dir);
    let marker = area.out("corrupted-candidates");
    let vandal = vandal_predicate(&dir, &marker);
    let reference = reduce(&area, &dir, &dir.join("predicate.sh"), 8, "reference").0;
    let parallel = reduce(&area, &dir, &vandal, 8, "vandal-8").0;
    let sequential = reduce(&area, &dir, &vandal, 1, "vandal-1").0;
    assert!(
        !marker.exists(),
        "candidates saw modified objects: {}",
        std::fs::read_to_string(&marker).unwrap_or_default()
    );
    // Same result as with a well-behaved predicate (the log differs only by the predicate).
    for out in [&parallel, &sequential] {
        for file in ["bundle.json", "metadata.json"] {
            assert_eq!(
                std::fs::read(out.join(file)).unwrap(),
                std::fs::read(reference.join(file)).unwrap(),
                "{file}"
            );
        }
        assert_eq!(object_names(out), object_names(&reference));
        for name in object_names(out) {
            let published = out.join("objects").join(&name);
            assert_eq!(
                std::fs::read(&published).unwrap(),
                std::fs::read(dir.join("objects").join(&name)).unwrap()
            );
            // A real file of its own, not a link into the (deleted) store.
            use std::os::unix::fs::MetadataExt;
            assert_eq!(std::fs::metadata(&published).unwrap().nlink(), 1);
        }
    }
    assert_eq!(tree(&parallel), tree(&sequential));
    assert_eq!(tree(&dir), before);
}
