use super::*;
use minrepro_predicate::CapturedStream;
use std::path::{Path, PathBuf};

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

/// A cache path in a fresh directory (kept while the `TempDir` lives).
fn cache_path() -> (tempfile::TempDir, PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("cache.json");
    (dir, path)
}

/// A new cache in a directory of its own (kept while the first value lives).
fn opened_cache() -> (tempfile::TempDir, PathBuf, OutcomeCache) {
    let (dir, path) = cache_path();
    let cache = OutcomeCache::open(&path).unwrap();
    (dir, path, cache)
}

fn journal_of(path: &Path) -> PathBuf {
    journal::sibling(path, ".journal")
}

/// Ends `cache` as a SIGKILL would: nothing saved, no destructor run; the lock (beside `path`)
/// goes with the process.
fn killed(cache: OutcomeCache, path: &Path) {
    std::mem::forget(cache);
    std::fs::remove_file(journal::sibling(path, ".lock")).unwrap();
}

#[test]
fn verdicts_survive_a_process_that_never_saved() {
    let (_dir, path, cache) = opened_cache();
    cache.put("k1", &outcome(Status::Interesting, 0));
    cache.put("k2", &outcome(Status::Uninteresting, 3));
    cache.sync_now().unwrap();
    killed(cache, &path);
    assert!(!path.exists());
    let resumed = OutcomeCache::open(&path).unwrap();
    assert_eq!(resumed.replayed_entries(), 2);
    assert_eq!(resumed.get("k2"), Some(outcome(Status::Uninteresting, 3)));
    resumed.persist().unwrap();
    drop(resumed);
    // Compacted on a clean exit: the cache file holds both, the journal is gone.
    assert!(!journal_of(&path).exists());
    let reread = OutcomeCache::open(&path).unwrap();
    assert_eq!((reread.len(), reread.replayed_entries()), (2, 0));
}

#[test]
fn a_torn_or_damaged_record_is_skipped_and_the_torn_tail_cut() {
    let (_dir, path, cache) = opened_cache();
    for (i, code) in [0, 1, 2].into_iter().enumerate() {
        cache.put(&format!("k{i}"), &outcome(Status::Uninteresting, code));
    }
    killed(cache, &path);
    let journal = journal_of(&path);
    let text = std::fs::read_to_string(&journal).unwrap();
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines.len(), 4, "header and three records: {text}");
    // Every cut inside the last record, as a kill during its write leaves it.
    let last_start = text.len() - lines[3].len() - 1;
    for cut in last_start + 1..text.len() {
        // The middle record damaged too: its checksum no longer holds.
        let damaged = text[..cut].replacen("[1]", "[7]", 1);
        std::fs::write(&journal, &damaged).unwrap();
        let cache = OutcomeCache::open(&path).unwrap();
        assert_eq!(cache.get("k0"), Some(outcome(Status::Uninteresting, 0)));
        assert!(cache.get("k1").is_none() && cache.get("k2").is_none());
        assert_eq!(cache.rejected_entries(), 2, "cut at {cut}");
        // New verdicts after the torn tail are read back whole.
        cache.put("k3", &outcome(Status::Interesting, 0));
        killed(cache, &path);
        let again = OutcomeCache::open(&path).unwrap();
        assert_eq!(again.get("k3"), Some(outcome(Status::Interesting, 0)));
        assert_eq!(again.rejected_entries(), 1, "cut at {cut}");
        killed(again, &path);
    }
}

#[test]
fn a_journal_of_another_format_is_not_replayed() {
    let (_dir, path) = cache_path();
    std::fs::write(
        journal_of(&path),
        "{\"journal\":\"minrepro-outcome-journal\",\"version\":1,\"cache_format\":\"other\"}\n\
         {\"key\":\"k\",\"outcome\":{},\"checksum\":\"x\"}\n",
    )
    .unwrap();
    let cache = OutcomeCache::open(&path).unwrap();
    assert_eq!((cache.len(), cache.rejected_entries()), (0, 1));
    cache.put("k", &outcome(Status::Interesting, 0));
    drop(cache);
    let reread = OutcomeCache::open(&path).unwrap();
    assert_eq!(reread.get("k"), Some(outcome(Status::Interesting, 0)));
}

#[test]
fn a_foreign_file_at_the_journal_path_is_refused_and_left_alone() {
    let (_dir, path) = cache_path();
    let journal = journal_of(&path);
    std::fs::write(&journal, "notes the user keeps\n").unwrap();
    let error = OutcomeCache::open(&path).err().expect("refused");
    assert!(matches!(error, CacheError::NotACache { .. }), "{error}");
    assert_eq!(
        std::fs::read_to_string(&journal).unwrap(),
        "notes the user keeps\n"
    );
    // A header torn as the journal was created is ours: the journal starts afresh.
    let header = "{\"journal\":\"minrepro-outcome-journal\",\"version\":1,\"cache_fo";
    std::fs::write(&journal, header).unwrap();
    let cache = OutcomeCache::open(&path).unwrap();
    assert_eq!((cache.len(), cache.rejected_entries()), (0, 0));
}

#[test]
fn a_claim_is_recognised_by_the_next_run_and_released_by_a_finished_one() {
    let (_dir, path, cache) = opened_cache();
    assert!(!cache.claim_output("/out/a"), "nothing claimed before");
    cache.put("k", &outcome(Status::Interesting, 0));
    // Killed: the claim and the verdict stay in the journal.
    killed(cache, &path);
    let resumed = OutcomeCache::open(&path).unwrap();
    assert!(!resumed.claim_output("/out/b"), "another output");
    assert!(resumed.claim_output("/out/a"));
    resumed.persist().unwrap();
    // Compaction keeps this run's claim while it runs.
    let text = std::fs::read_to_string(journal_of(&path)).unwrap();
    assert!(text.ends_with("{\"output\":\"/out/a\"}\n"), "{text}");
    drop(resumed);
    // Finished (not interrupted): the claim is released, the journal gone.
    assert!(!journal_of(&path).exists());
    assert!(!OutcomeCache::open(&path).unwrap().claim_output("/out/a"));
}

#[test]
fn a_kill_between_the_cache_files_rename_and_the_journals_truncation_is_harmless() {
    let (_dir, path, cache) = opened_cache();
    cache.put("k1", &outcome(Status::Interesting, 0));
    cache.put("k2", &outcome(Status::Uninteresting, 1));
    let journalled = std::fs::read(journal_of(&path)).unwrap();
    cache.persist().unwrap();
    killed(cache, &path);
    // The journal as it was before its truncation: its records are in the cache file too.
    std::fs::write(journal_of(&path), &journalled).unwrap();
    let resumed = OutcomeCache::open(&path).unwrap();
    assert_eq!((resumed.len(), resumed.rejected_entries()), (2, 0));
    assert_eq!(resumed.get("k2"), Some(outcome(Status::Uninteresting, 1)));
}
