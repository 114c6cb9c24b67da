use super::*;
use minrepro_predicate::CapturedStream;

fn outcome(status: Status, code: i32) -> Outcome {
    let stream = CapturedStream {
        head: "out".into(),
        tail: "out".into(),
        contains_needle: false,
    };
    Outcome::of_one_run(status, Some(code), stream.clone(), stream)
}

#[test]
fn keys_depend_on_both_digests() {
    assert_ne!(cache_key("a", "b"), cache_key("a", "c"));
    assert_ne!(cache_key("a", "b"), cache_key("x", "b"));
    assert_eq!(cache_key("a", "b"), cache_key("a", "b"));
}

#[test]
fn unstable_outcomes_are_not_stored() {
    let cache = OutcomeCache::in_memory();
    cache.put("t", &outcome(Status::Timeout, 0));
    cache.put("l", &outcome(Status::LaunchError, 0));
    cache.put("i", &outcome(Status::Interesting, 0));
    assert!(cache.get("t").is_none() && cache.get("l").is_none());
    assert_eq!(cache.get("i"), Some(outcome(Status::Interesting, 0)));
}

#[test]
fn persistent_round_trip_and_corrupt_entry_rejected() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("cache.json");
    {
        let cache = OutcomeCache::open(&path).unwrap();
        cache.put("k1", &outcome(Status::Interesting, 0));
        cache.put("k2", &outcome(Status::Uninteresting, 3));
        cache.persist().unwrap();
    }
    assert!(!dir.path().join("cache.json.lock").exists());
    let text = std::fs::read_to_string(&path).unwrap();
    // Tamper with one entry's exit code: its checksum no longer matches.
    let tampered = text.replacen("[3]", "[0]", 1);
    assert_ne!(tampered, text);
    std::fs::write(&path, tampered).unwrap();
    let cache = OutcomeCache::open(&path).unwrap();
    assert_eq!(cache.get("k1"), Some(outcome(Status::Interesting, 0)));
    assert!(cache.get("k2").is_none());
    assert_eq!(cache.rejected_entries(), 1);
}

#[test]
fn foreign_or_truncated_file_is_refused_and_left_alone() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("notes.json");
    std::fs::write(
        &path,
        "{\"format\":\"something-else\",\"version\":1,\"entries\":{}}",
    )
    .unwrap();
    assert!(matches!(
        OutcomeCache::open(&path),
        Err(CacheError::NotACache { .. })
    ));
    std::fs::write(&path, "{\"format\":\"minrepro-outcome-ca").unwrap();
    let err = OutcomeCache::open(&path).err().unwrap();
    assert!(err.to_string().contains("notes.json"), "{err}");
    assert_eq!(
        std::fs::read_to_string(&path).unwrap(),
        "{\"format\":\"minrepro-outcome-ca"
    );
}

#[test]
fn second_opener_is_refused_while_locked() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("cache.json");
    let first = OutcomeCache::open(&path).unwrap();
    assert!(matches!(
        OutcomeCache::open(&path),
        Err(CacheError::Locked(_))
    ));
    drop(first);
    OutcomeCache::open(&path).unwrap();
}
