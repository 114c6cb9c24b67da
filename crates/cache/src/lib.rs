//! Outcome cache of a reduction.
//!
//! Stable verdicts (interesting, uninteresting, flaky) are stored under a key derived from the
//! candidate's full content digest and the predicate's configuration digest; timeouts and launch
//! errors never are. A cached outcome holds everything a fresh run would report, so a hit is
//! indistinguishable from a run in every output and log.
//!
//! With a file, the cache is persistent: a versioned JSON document written atomically (sibling
//! file, fsync, rename). Each entry carries a checksum and is validated when read; a corrupt entry
//! is dropped, never trusted. A lock file next to the cache keeps two reducers from sharing it.
//! Between two such compactions every new verdict is appended to a journal beside the file (see
//! [`journal`](crate::journal)), so a reduction killed outright keeps what it paid for and the
//! same command resumes where it stopped.
//!
//! A front end may give its own [`CacheCodec`] (on-disk format, key derivation, what is kept) to
//! share cache files with another tool; the default is minrepro's own format.

use std::collections::BTreeMap;
use std::fs::File;
use std::io::Write;
use std::os::fd::AsRawFd;
use std::path::{Path, PathBuf};
use std::sync::Mutex;

use minrepro_predicate::{Outcome, Status};
use serde::{Deserialize, Serialize};

mod journal;
use journal::{sibling, Journal};
pub use journal::{JOURNAL_FORMAT, JOURNAL_VERSION};

/// `format` field of a cache file.
pub const CACHE_FORMAT: &str = "minrepro-outcome-cache";
/// `version` field of a cache file.
pub const CACHE_VERSION: u64 = 1;

/// Why a cache file cannot be used.
#[derive(Debug, thiserror::Error)]
pub enum CacheError {
    /// The file exists but is not a cache we wrote.
    #[error("cache file {path}: {problem}")]
    NotACache {
        /// The file.
        path: PathBuf,
        /// What is wrong.
        problem: String,
    },
    /// Another reducer holds the cache.
    #[error("cache file {0} is in use by another minrepro process (give each process its own cache file)")]
    Locked(PathBuf),
    /// Reading or writing failed.
    #[error("cache file {path}: {source}")]
    Io {
        /// The file.
        path: PathBuf,
        /// The failure.
        source: std::io::Error,
    },
}

#[derive(Serialize, Deserialize)]
struct StoredEntry {
    outcome: serde_json::Value,
    checksum: String,
}

#[derive(Serialize, Deserialize)]
struct CacheDocument {
    format: String,
    version: u64,
    entries: BTreeMap<String, StoredEntry>,
}

struct Persistent {
    path: PathBuf,
    lock_path: PathBuf,
    journal: Mutex<Journal>,
    _lock: File,
}

/// Why a [`CacheCodec`] refuses a cache file (its words, shown after the file's name).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct DecodeError(pub String);

/// A persistent cache format other than minrepro's own (e.g. another reducer's, to share files).
pub trait CacheCodec: Send + Sync {
    /// The format's name (a journal written for another format is not replayed).
    fn format(&self) -> &str;
    /// The key of a candidate under a predicate configuration.
    fn key(&self, candidate_digest: &str, config_digest: &str) -> String;
    /// Whether an outcome may be stored.
    fn keeps(&self, outcome: &Outcome) -> bool;
    /// Reads a cache file's entries; an error refuses the file.
    fn decode(&self, bytes: &[u8]) -> Result<BTreeMap<String, Outcome>, DecodeError>;
    /// Writes all entries as a cache file.
    fn encode(&self, entries: &BTreeMap<String, Outcome>) -> Vec<u8>;
    /// Whether a stored outcome that a lookup found may be used (an untrusted one is treated as
    /// a miss, re-run and replaced).
    fn trusts(&self, _outcome: &Outcome) -> bool {
        true
    }
}

/// The outcome cache; shared by all workers of a reduction.
pub struct OutcomeCache {
    entries: Mutex<BTreeMap<String, Outcome>>,
    persistent: Option<Persistent>,
    rejected_entries: usize,
    replayed_entries: usize,
    claimed_output: Option<String>,
    codec: Option<Box<dyn CacheCodec>>,
}

/// Cache key of a candidate under a predicate configuration.
pub fn cache_key(candidate_digest: &str, config_digest: &str) -> String {
    let fields: [&[u8]; 3] = [
        b"minrepro-cache-key-v1",
        candidate_digest.as_bytes(),
        config_digest.as_bytes(),
    ];
    minrepro_predicate::digest_fields(&fields)
        .to_hex()
        .to_string()
}

impl OutcomeCache {
    /// A cache that lives only as long as the reduction.
    pub fn in_memory() -> Self {
        OutcomeCache {
            entries: Mutex::new(BTreeMap::new()),
            persistent: None,
            rejected_entries: 0,
            replayed_entries: 0,
            claimed_output: None,
            codec: None,
        }
    }

    /// Opens (or prepares to create) a persistent cache at `path` in the format of `codec`,
    /// taking its lock.
    pub fn open_with(path: &Path, codec: Box<dyn CacheCodec>) -> Result<Self, CacheError> {
        Self::open_raw(path, Some(codec))
    }

    /// Opens (or prepares to create) a persistent cache at `path`, taking its lock.
    pub fn open(path: &Path) -> Result<Self, CacheError> {
        Self::open_raw(path, None)
    }

    fn open_raw(path: &Path, codec: Option<Box<dyn CacheCodec>>) -> Result<Self, CacheError> {
        let io = |path: &Path| {
            let path = path.to_path_buf();
            move |source| CacheError::Io { path, source }
        };
        let lock_path = sibling(path, ".lock");
        let lock = take_lock(path, &lock_path)?;
        match std::fs::metadata(path) {
            // Reading a FIFO or a device would block or never end.
            Ok(meta) if !meta.is_file() => {
                return Err(CacheError::NotACache {
                    path: path.to_path_buf(),
                    problem: "is not a regular file".into(),
                })
            }
            _ => {}
        }
        let mut cache = OutcomeCache::in_memory();
        cache.codec = codec;
        match std::fs::read(path) {
            Ok(bytes) => cache.load(path, &bytes)?,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
            Err(e) => return Err(io(path)(e)),
        }
        let format = cache.codec.as_ref().map_or(CACHE_FORMAT, |c| c.format());
        let journal_path = sibling(path, ".journal");
        let (journal, replayed) = Journal::open(&journal_path, format)
            .map_err(io(&journal_path))?
            .map_err(|journal::Foreign| CacheError::NotACache {
                path: journal_path.clone(),
                problem: "is not the journal of a minrepro cache; move it away or choose another \
                          --cache-file"
                    .into(),
            })?;
        cache.rejected_entries += replayed.rejected;
        cache.replayed_entries = replayed.entries.len();
        cache.claimed_output = replayed.claimed_output;
        cache
            .entries
            .get_mut()
            .unwrap_or_else(|e| e.into_inner())
            .extend(replayed.entries);
        cache.persistent = Some(Persistent {
            path: path.to_path_buf(),
            lock_path,
            journal: Mutex::new(journal),
            _lock: lock,
        });
        Ok(cache)
    }

    fn load(&mut self, path: &Path, bytes: &[u8]) -> Result<(), CacheError> {
        let not_cache = |problem: String| CacheError::NotACache {
            path: path.to_path_buf(),
            problem,
        };
        if let Some(codec) = &self.codec {
            let entries = codec.decode(bytes).map_err(|e| not_cache(e.0))?;
            *self.entries.get_mut().unwrap_or_else(|e| e.into_inner()) = entries;
            return Ok(());
        }
        let document: CacheDocument = serde_json::from_slice(bytes).map_err(|e| {
            not_cache(format!(
                "not a readable minrepro cache ({e}); delete it or choose another --cache-file"
            ))
        })?;
        if document.format != CACHE_FORMAT || document.version != CACHE_VERSION {
            return Err(not_cache(format!(
                "format {:?} version {} is not {CACHE_FORMAT:?} version {CACHE_VERSION}",
                document.format, document.version
            )));
        }
        let entries = self.entries.get_mut().unwrap_or_else(|e| e.into_inner());
        for (key, stored) in document.entries {
            match journal::verified(&key, stored.outcome, &stored.checksum) {
                Some(outcome) => {
                    entries.insert(key, outcome);
                }
                None => self.rejected_entries += 1,
            }
        }
        Ok(())
    }

    /// Number of entries dropped as corrupt when the file and its journal were read (a record
    /// torn by a kill counts here).
    pub fn rejected_entries(&self) -> usize {
        self.rejected_entries
    }

    /// Number of verdicts taken from the journal of a run that did not finish cleanly.
    pub fn replayed_entries(&self) -> usize {
        self.replayed_entries
    }

    /// Records that this run writes `output` (a path as the front end resolves it), and returns
    /// whether the run that left this cache's journal unfinished (killed, or interrupted by
    /// SIGINT/SIGTERM) claimed the same: then whatever is at `output` is that run's partial
    /// result, which the same command may replace as it resumes. The claim stays in the journal
    /// until this run ends other than by an interrupt. Always false for an in-memory cache.
    pub fn claim_output(&self, output: &str) -> bool {
        let Some(persistent) = &self.persistent else {
            return false;
        };
        lock(&persistent.journal).claim(output);
        self.claimed_output.as_deref() == Some(output)
    }

    /// Path of the persistent file, if any.
    pub fn path(&self) -> Option<&Path> {
        self.persistent.as_ref().map(|p| p.path.as_path())
    }

    /// Looks up a verdict.
    pub fn get(&self, key: &str) -> Option<Outcome> {
        self.entries
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .get(key)
            .filter(|outcome| self.codec.as_ref().is_none_or(|c| c.trusts(outcome)))
            .cloned()
    }

    /// The key of a candidate under a predicate configuration, in this cache's format.
    pub fn key(&self, candidate_digest: &str, config_digest: &str) -> String {
        match &self.codec {
            Some(codec) => codec.key(candidate_digest, config_digest),
            None => cache_key(candidate_digest, config_digest),
        }
    }

    /// Stores a verdict if it is stable (and the format keeps it).
    pub fn put(&self, key: &str, outcome: &Outcome) {
        let kept = self.codec.as_ref().is_none_or(|codec| codec.keeps(outcome));
        if !kept || !outcome.status.is_stable() || outcome.status == Status::LaunchError {
            return;
        }
        let mut entries = self.entries.lock().unwrap_or_else(|e| e.into_inner());
        if entries.get(key) == Some(outcome) {
            return;
        }
        entries.insert(key.to_owned(), outcome.clone());
        // Under the entries' lock, so that the journal's order is the map's.
        if let Some(persistent) = &self.persistent {
            lock(&persistent.journal).append(key, outcome);
        }
    }

    /// Asks for the verdicts journalled so far to reach the disk, without waiting (the engine
    /// calls it once per decided batch). A kill of the process alone loses no journalled
    /// verdict even before; this guards against the machine going down.
    pub fn sync_soon(&self) {
        if let Some(persistent) = &self.persistent {
            lock(&persistent.journal).sync_soon();
        }
    }

    /// Makes the journalled verdicts durable now (e.g. first thing on SIGTERM).
    pub fn sync_now(&self) -> Result<(), CacheError> {
        let Some(persistent) = &self.persistent else {
            return Ok(());
        };
        let journal = lock(&persistent.journal);
        journal.sync_now().map_err(|source| CacheError::Io {
            path: journal.path().to_path_buf(),
            source,
        })
    }

    /// Number of entries.
    pub fn len(&self) -> usize {
        self.entries.lock().unwrap_or_else(|e| e.into_inner()).len()
    }

    /// Whether the cache is empty.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Writes the persistent file atomically (no-op for an in-memory cache).
    pub fn persist(&self) -> Result<(), CacheError> {
        let Some(persistent) = &self.persistent else {
            return Ok(());
        };
        let path = &persistent.path;
        let io = |source| CacheError::Io {
            path: path.clone(),
            source,
        };
        // Held to the end: a verdict put meanwhile would be emptied from the journal unsaved.
        let entries = lock(&self.entries);
        let bytes = match &self.codec {
            Some(codec) => codec.encode(&entries),
            None => encode_own(&entries),
        };
        write_atomically(path, &bytes).map_err(io)?;
        let mut journal = lock(&persistent.journal);
        journal.compacted().map_err(|source| CacheError::Io {
            path: journal.path().to_path_buf(),
            source,
        })
    }
}

fn lock<T>(mutex: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    mutex.lock().unwrap_or_else(|e| e.into_inner())
}

/// All entries as a cache file in minrepro's own format.
fn encode_own(entries: &BTreeMap<String, Outcome>) -> Vec<u8> {
    let document = CacheDocument {
        format: CACHE_FORMAT.into(),
        version: CACHE_VERSION,
        entries: entries
            .iter()
            .map(|(key, outcome)| {
                let (value, sum) = journal::stored(key, outcome);
                (
                    key.clone(),
                    StoredEntry {
                        outcome: value,
                        checksum: sum,
                    },
                )
            })
            .collect(),
    };
    serde_json::to_vec(&document).expect("cache serializes")
}

impl Drop for OutcomeCache {
    fn drop(&mut self) {
        if let Some(persistent) = &self.persistent {
            // Interrupted, the output holds a partial result: the claim stays for the resumption.
            if !minrepro_predicate::is_interrupted() {
                lock(&persistent.journal).release_claim();
            }
            // A clean exit that did not save (an error before the reduction) compacts too.
            if lock(&persistent.journal).has_records() {
                let _ = self.persist();
            }
            let journal = lock(&persistent.journal);
            if !journal.holds_anything() {
                let _ = std::fs::remove_file(journal.path());
            }
            drop(journal);
            // Removed while we still hold the lock; the next process creates a fresh one.
            let _ = std::fs::remove_file(&persistent.lock_path);
        }
    }
}

/// Creates and locks the lock file. A process that finishes removes its lock file while still
/// holding the lock, so a lock taken on a file that is no longer (or no longer the same file) at
/// `lock_path` protects nothing: then we try again with the new file.
fn take_lock(path: &Path, lock_path: &Path) -> Result<File, CacheError> {
    use std::os::unix::fs::MetadataExt;
    let io = |source| CacheError::Io {
        path: lock_path.to_path_buf(),
        source,
    };
    for _ in 0..100 {
        let lock = File::options()
            .create(true)
            .truncate(false)
            .write(true)
            .open(lock_path)
            .map_err(io)?;
        // SAFETY: flock on a descriptor we own.
        if unsafe { libc::flock(lock.as_raw_fd(), libc::LOCK_EX | libc::LOCK_NB) } != 0 {
            return Err(CacheError::Locked(path.to_path_buf()));
        }
        let held = lock.metadata().map_err(io)?;
        match std::fs::metadata(lock_path) {
            Ok(now) if now.dev() == held.dev() && now.ino() == held.ino() => return Ok(lock),
            // Removed or replaced after we opened it: our lock is on a stale file.
            Ok(_) => continue,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => continue,
            Err(e) => return Err(io(e)),
        }
    }
    Err(CacheError::Locked(path.to_path_buf()))
}

/// Writes `bytes` to `path` through a sibling temporary file, fsync and rename.
pub fn write_atomically(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    let parent = match path.parent() {
        Some(p) if !p.as_os_str().is_empty() => p.to_path_buf(),
        _ => PathBuf::from("."),
    };
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let temp = parent.join(format!(".{name}.minrepro-tmp-{}", std::process::id()));
    let result = (|| {
        let mut file = File::create(&temp)?;
        file.write_all(bytes)?;
        file.sync_all()?;
        std::fs::rename(&temp, path)?;
        if let Ok(dir) = File::open(&parent) {
            let _ = dir.sync_all();
        }
        Ok(())
    })();
    if result.is_err() {
        let _ = std::fs::remove_file(&temp);
    }
    result
}

#[cfg(test)]
mod tests;
