//! Engine behaviour through the real binary: the persistent cache is keyed by everything a
//! verdict depends on (script content and mode, dependencies, tags), a cache hit is
//! indistinguishable from a run, and an identity file that changes mid-run aborts the reduction
//! without publishing anything.

use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};

use crate::support::bundle::*;
use crate::support::*;

/// A wrapper predicate that counts its runs in `count` and defers to the gamma predicate.
fn counting_predicate(dir: &Path, count: &Path) -> PathBuf {
    let inner = gamma_predicate(dir);
    script(
        dir,
        "counting.sh",
        &format!(
            "#!/bin/sh\necho run >> '{}'\nexec '{}' \"$@\"\n",
            count.display(),
            inner.display()
        ),
    )
}

#[test]
fn cache_hits_replace_runs_only_while_every_identity_is_unchanged() {
    let (area, bundle) = bundle_area();
    let count = area.out("count");
    let predicate = counting_predicate(&area.input(), &count);
    let dependency = area.write_input("libdep.so", "v1");
    let cache = area.out("cache.json");
    let mut serial = 0;
    let mut reduce = |tag: &str| {
        serial += 1;
        let out = area.out(&format!("out{serial}"));
        let before = runs(&count);
        area.reduce_cmd(&bundle, &out, &predicate)
            .arg("--predicate-arg={bundle}")
            .arg("--cache-file")
            .arg(&cache)
            .arg("--cache-dependency")
            .arg(&dependency)
            .arg(format!("--cache-tag={tag}"))
            .assert()
            .success();
        (runs(&count) - before, tree(&out))
    };
    let (fresh_runs, fresh_tree) = reduce("a");
    assert!(fresh_runs > 3, "{fresh_runs}");
    let (hit_runs, hit_tree) = reduce("a");
    assert_eq!(
        hit_runs, 0,
        "an unchanged configuration is answered from the cache"
    );
    assert_eq!(
        hit_tree, fresh_tree,
        "cache hits give byte-identical output and log"
    );
    assert!(reduce("b").0 > 0, "a new tag must not reuse verdicts");
    std::fs::write(&dependency, "v2").unwrap();
    assert!(
        reduce("a").0 > 0,
        "a changed dependency must not reuse verdicts"
    );
    let text = std::fs::read_to_string(&predicate).unwrap();
    std::fs::write(&predicate, format!("{text}# edited\n")).unwrap();
    assert!(
        reduce("a").0 > 0,
        "a changed script must not reuse verdicts"
    );
    std::fs::set_permissions(&predicate, std::fs::Permissions::from_mode(0o700)).unwrap();
    assert!(reduce("a").0 > 0, "a changed mode must not reuse verdicts");
    assert_eq!(reduce("a").0, 0, "and the new identity is cached in turn");
}

#[test]
fn an_identity_file_changing_mid_run_aborts_and_publishes_nothing() {
    let (area, bundle) = bundle_area();
    let dependency = area.write_input("reference.json", "{}");
    let count = area.out("count");
    // The third run rewrites the dependency, as a rebuilt library would.
    let predicate = area.script(
        "mutating.sh",
        &format!(
            "#!/bin/sh\necho run >> '{0}'\nif [ $(wc -l < '{0}') -ge 3 ]; then echo '{{\"x\":1}}' > '{1}'; fi\nexit 0\n",
            count.display(),
            dependency.display()
        ),
    );
    let out = area.out("out");
    let cache = area.out("cache.json");
    let output = area
        .reduce_cmd(&bundle, &out, &predicate)
        .arg("--cache-dependency")
        .arg(&dependency)
        .arg("--cache-file")
        .arg(&cache)
        .output()
        .unwrap();
    let stderr = assert_fails(&output, 1, "reference.json");
    assert!(stderr.contains("changed"), "{stderr}");
    assert_eq!(stderr.trim().lines().count(), 1, "one-line error: {stderr}");
    assert!(!out.exists(), "nothing may be published");
    assert!(
        area.tmp_is_empty(),
        "temporary directories were left behind"
    );
}
