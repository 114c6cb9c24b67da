//! GPU slots (`{slot}`, `MINREPRO_SLOT`, `--slot-env`): every running candidate holds a distinct
//! slot below -j, and the result does not depend on -j.

use crate::support::bundle::*;
use crate::support::slots::{recorded, reset, slot_predicate};
use crate::support::*;

/// Reduces the three-object bundle with the slot-checking predicate at `-j jobs`.
fn reduce(area: &Area, out: &str, jobs: &str, wait: bool) -> std::path::PathBuf {
    let bundle = three_object_bundle(&area.input());
    let inner = gamma_predicate(&area.input());
    let predicate = slot_predicate(&area.input());
    let locks = area.root.path().join("locks");
    std::fs::create_dir_all(&locks).unwrap();
    let out = area.out(out);
    let mut command = area.reduce_cmd(&bundle, &out, &predicate);
    for arg in [
        "{slot}",
        locks.to_str().unwrap(),
        inner.to_str().unwrap(),
        "{bundle}",
    ] {
        command.arg("--predicate-arg").arg(arg);
    }
    command
        .args([
            "--slot-env",
            "GPU_A",
            "--slot-env",
            "GPU_B",
            "--exact",
            "-j",
            jobs,
        ])
        .env("SLOT_TEST_WAIT", if wait { "1" } else { "0" })
        .assert()
        .success();
    out
}

#[test]
fn concurrent_candidates_never_share_a_slot_and_results_do_not_depend_on_jobs() {
    let area = Area::new();
    let locks = area.root.path().join("locks");
    let one = reduce(&area, "one", "1", false);
    let (slots, errors) = recorded(&locks);
    assert_eq!(errors, "");
    assert!(
        !slots.is_empty() && slots.iter().all(|&s| s == 0),
        "{slots:?}"
    );

    reset(&locks);
    let three = reduce(&area, "three", "3", true);
    let (slots, errors) = recorded(&locks);
    assert_eq!(errors, "", "two running candidates shared a slot");
    assert!(
        slots.iter().all(|&s| s < 3),
        "a slot beyond -j 3: {slots:?}"
    );
    assert!(
        locks.join("overlap").exists(),
        "no two runs overlapped at -j 3, so slots were not put to the test: {slots:?}"
    );
    assert_eq!(tree(&one), tree(&three));
    assert!(area.tmp_is_empty());
}

#[test]
fn slot_env_names_are_checked() {
    let (area, bundle, predicate) = gamma_area();
    let output = area
        .reduce_cmd(&bundle, &area.out("out"), &predicate)
        .args(["--slot-env", "MINREPRO_RUN_TAG"])
        .output()
        .unwrap();
    assert_fails(&output, 2, "--slot-env");
}
