//! The journal beside a persistent cache file: every verdict appended as it arrives, so that a
//! reduction killed outright (SIGKILL, a lost node, the OOM killer) loses at most the verdicts of
//! the runs still going.
//!
//! `CACHE.journal` holds one record per line: a header line naming the cache format it belongs
//! to, then `{"key", "outcome", "checksum"}` records in minrepro's own encoding (whatever the
//! cache file's format), each written with one `write(2)` on an append-only descriptor. The
//! kernel keeps a written record when the process dies; a background thread makes the records
//! durable (`fdatasync`) when asked, at least once per decided batch, without delaying the
//! reduction. Reading stops trusting nothing but checksums: a record torn by a kill (the file's
//! last line, cut) or damaged otherwise is skipped, and a torn tail is cut off before new
//! records are appended after it. A clean exit compacts: the cache file is rewritten with every
//! entry and the journal emptied.

use std::collections::BTreeMap;
use std::fs::File;
use std::io::{Read, Seek, Write};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Condvar, Mutex};

use minrepro_predicate::Outcome;
use serde::{Deserialize, Serialize};

/// `journal` field of a journal's header line.
pub const JOURNAL_FORMAT: &str = "minrepro-outcome-journal";
/// `version` field of a journal's header line.
pub const JOURNAL_VERSION: u64 = 1;

#[derive(Serialize, Deserialize, PartialEq)]
struct Header {
    journal: String,
    version: u64,
    cache_format: String,
}

/// A line saying which output the run writes (so that the same command, after a kill, may
/// replace the partial output its killed run left).
#[derive(Serialize, Deserialize)]
struct Claim {
    output: String,
}

#[derive(Serialize, Deserialize)]
struct Record {
    key: String,
    outcome: serde_json::Value,
    checksum: String,
}

/// What a journal held when it was opened.
#[derive(Debug, Default)]
pub(crate) struct Replayed {
    /// Valid records, later ones winning.
    pub entries: BTreeMap<String, Outcome>,
    /// Records skipped as torn or damaged (a foreign or other-format journal counts as one).
    pub rejected: usize,
    /// The output the unfinished run claimed last, if any.
    pub claimed_output: Option<String>,
}

/// Checksum of one stored outcome under its key.
pub(crate) fn checksum(key: &str, outcome_json: &str) -> String {
    minrepro_predicate::digest_fields(&[key.as_bytes(), outcome_json.as_bytes()])
        .to_hex()
        .to_string()
}

/// An outcome as stored: its JSON value and that value's checksum under `key`.
pub(crate) fn stored(key: &str, outcome: &Outcome) -> (serde_json::Value, String) {
    let value = serde_json::to_value(outcome).expect("outcomes serialize");
    let sum = checksum(key, &value.to_string());
    (value, sum)
}

/// A stored outcome, if its checksum holds and it is a verdict worth keeping.
pub(crate) fn verified(key: &str, value: serde_json::Value, sum: &str) -> Option<Outcome> {
    if sum != checksum(key, &value.to_string()) {
        return None;
    }
    let outcome: Outcome = serde_json::from_value(value).ok()?;
    (outcome.status.is_stable() && !outcome.exit_codes.is_empty()).then_some(outcome)
}

/// The open journal of one cache file (its lock already held).
pub(crate) struct Journal {
    path: PathBuf,
    file: File,
    header: Vec<u8>,
    /// Bytes past the header: whether compaction has anything to empty.
    records: bool,
    syncer: Syncer,
    /// The first failed write, reported when the cache is saved (later writes are not tried).
    failed: Option<std::io::Error>,
}

/// The path of the journal beside cache file `path`.
pub(crate) fn journal_path_of(path: &Path) -> PathBuf {
    let mut name = path
        .file_name()
        .map(|n| n.to_os_string())
        .unwrap_or_default();
    name.push(".journal");
    path.with_file_name(name)
}

impl Journal {
    /// Opens (or creates) the journal at `path` for a cache in `cache_format`, replaying its
    /// valid records and cutting off a torn last line.
    pub fn open(path: &Path, cache_format: &str) -> std::io::Result<(Journal, Replayed)> {
        let mut file = File::options()
            .read(true)
            .write(true)
            .create(true)
            .truncate(false)
            .open(path)?;
        let mut bytes = Vec::new();
        file.read_to_end(&mut bytes)?;
        let header = Header {
            journal: JOURNAL_FORMAT.into(),
            version: JOURNAL_VERSION,
            cache_format: cache_format.into(),
        };
        let mut header_line = serde_json::to_vec(&header).expect("headers serialize");
        header_line.push(b'\n');
        let (replayed, keep) = replay(&bytes, &header);
        // Torn or foreign bytes go; valid records stay until the next compaction.
        if keep < bytes.len() as u64 || bytes.is_empty() {
            file.set_len(keep)?;
            if keep == 0 {
                file.seek(std::io::SeekFrom::Start(0))?;
                file.write_all(&header_line)?;
            }
        }
        file.seek(std::io::SeekFrom::End(0))?;
        let records = keep > header_line.len() as u64;
        let syncer = Syncer::start(file.try_clone()?);
        let journal = Journal {
            path: path.to_path_buf(),
            file,
            header: header_line,
            records,
            syncer,
            failed: None,
        };
        Ok((journal, replayed))
    }

    /// Appends one record (one write; nothing after a failed one).
    pub fn append(&mut self, key: &str, outcome: &Outcome) {
        let (value, sum) = stored(key, outcome);
        let record = Record {
            key: key.to_owned(),
            outcome: value,
            checksum: sum,
        };
        self.write_line(serde_json::to_vec(&record).expect("records serialize"));
    }

    /// Appends a claim of `output` for this run.
    pub fn claim(&mut self, output: &str) {
        let claim = Claim {
            output: output.to_owned(),
        };
        self.write_line(serde_json::to_vec(&claim).expect("claims serialize"));
    }

    fn write_line(&mut self, mut line: Vec<u8>) {
        if self.failed.is_some() {
            return;
        }
        line.push(b'\n');
        match self.file.write_all(&line) {
            Ok(()) => self.records = true,
            Err(error) => self.failed = Some(error),
        }
    }

    /// Asks for the records so far to be made durable, without waiting.
    pub fn sync_soon(&self) {
        if self.records {
            self.syncer.request();
        }
    }

    /// Makes the records durable now (e.g. on SIGTERM, before anything else).
    pub fn sync_now(&self) -> std::io::Result<()> {
        self.file.sync_data()
    }

    /// After the cache file was rewritten with every entry: the journal is emptied (to its
    /// header). A failed write since the last compaction is reported here.
    pub fn compacted(&mut self) -> std::io::Result<()> {
        if let Some(error) = self.failed.take() {
            return Err(error);
        }
        if self.records {
            self.file.set_len(0)?;
            self.file.seek(std::io::SeekFrom::Start(0))?;
            self.file.write_all(&self.header)?;
            self.records = false;
        }
        Ok(())
    }

    /// Whether records wait for a compaction.
    pub fn has_records(&self) -> bool {
        self.records
    }

    /// The journal's path.
    pub fn path(&self) -> &Path {
        &self.path
    }
}

/// The valid records of `bytes` and how many leading bytes to keep: the header and every
/// complete line after it (a torn last line, or a journal of another format, is not kept).
fn replay(bytes: &[u8], header: &Header) -> (Replayed, u64) {
    let mut replayed = Replayed::default();
    let mut lines = bytes.split_inclusive(|b| *b == b'\n');
    let head_ok = lines.next().is_some_and(|line| {
        line.ends_with(b"\n")
            && serde_json::from_slice::<Header>(line).ok().as_ref() == Some(header)
    });
    if !head_ok {
        replayed.rejected += usize::from(!bytes.is_empty());
        return (replayed, 0);
    }
    let mut keep = bytes.len() - lines.clone().map(<[u8]>::len).sum::<usize>();
    for line in lines {
        if !line.ends_with(b"\n") {
            // Torn by a kill while it was written: the last line, cut short.
            replayed.rejected += 1;
            break;
        }
        keep += line.len();
        if let Ok(claim) = serde_json::from_slice::<Claim>(line) {
            replayed.claimed_output = Some(claim.output);
            continue;
        }
        let record = serde_json::from_slice::<Record>(line).ok();
        match record.and_then(|r| Some((verified(&r.key, r.outcome, &r.checksum)?, r.key))) {
            Some((outcome, key)) => {
                replayed.entries.insert(key, outcome);
            }
            None => replayed.rejected += 1,
        }
    }
    (replayed, keep as u64)
}

/// A thread that `fdatasync`s the journal whenever asked, so that no decision waits for a disk.
struct Syncer {
    state: Arc<(Mutex<SyncState>, Condvar)>,
    thread: Option<std::thread::JoinHandle<()>>,
}

#[derive(Default)]
struct SyncState {
    wanted: bool,
    stop: bool,
}

impl Syncer {
    fn start(file: File) -> Syncer {
        let state = Arc::new((Mutex::new(SyncState::default()), Condvar::new()));
        let shared = state.clone();
        let thread = std::thread::Builder::new()
            .name("minrepro-journal-sync".into())
            .spawn(move || loop {
                let (lock, wake) = &*shared;
                let mut state = lock.lock().unwrap_or_else(|e| e.into_inner());
                while !state.wanted && !state.stop {
                    state = wake.wait(state).unwrap_or_else(|e| e.into_inner());
                }
                let stop = state.stop;
                state.wanted = false;
                drop(state);
                let _ = file.sync_data();
                if stop {
                    return;
                }
            })
            .ok();
        Syncer { state, thread }
    }

    fn request(&self) {
        let (lock, wake) = &*self.state;
        lock.lock().unwrap_or_else(|e| e.into_inner()).wanted = true;
        wake.notify_one();
    }
}

impl Drop for Syncer {
    fn drop(&mut self) {
        let (lock, wake) = &*self.state;
        lock.lock().unwrap_or_else(|e| e.into_inner()).stop = true;
        wake.notify_one();
        if let Some(thread) = self.thread.take() {
            let _ = thread.join();
        }
    }
}
