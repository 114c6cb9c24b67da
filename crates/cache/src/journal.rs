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
//! records are appended after it. A file at the journal's path that is not a journal at all is
//! refused, never overwritten. A clean exit compacts: the cache file is rewritten with every
//! entry and the journal emptied (and removed, unless the run was interrupted: then it keeps the
//! run's claim of its output, so that the same command may replace the partial output).

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
    /// Verdict records past the header: whether compaction has anything to empty.
    records: bool,
    /// The claim line this run wrote, kept through compactions until released.
    claim: Option<Vec<u8>>,
    syncer: Syncer,
    /// The first failed write, reported when the cache is saved (later writes are not tried).
    failed: Option<std::io::Error>,
}

/// The file beside cache file `path` named as it is with `suffix` appended (its journal, its
/// lock).
pub(crate) fn sibling(path: &Path, suffix: &str) -> PathBuf {
    let mut name = path
        .file_name()
        .map(|n| n.to_os_string())
        .unwrap_or_default();
    name.push(suffix);
    path.with_file_name(name)
}

/// A file at the journal's path that is no journal of ours (it is left as it is).
#[derive(Debug)]
pub(crate) struct Foreign;

impl Journal {
    /// Opens (or creates) the journal at `path` for a cache in `cache_format`, replaying its
    /// valid records and cutting off a torn last line; `Ok(Err(Foreign))` if the file there is
    /// not a journal.
    pub fn open(
        path: &Path,
        cache_format: &str,
    ) -> std::io::Result<Result<(Journal, Replayed), Foreign>> {
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
        let Some((replayed, keep)) = replay(&bytes, &header, &header_line) else {
            return Ok(Err(Foreign));
        };
        // Torn or other-format bytes go; valid records stay until the next compaction.
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
            claim: None,
            syncer,
            failed: None,
        };
        Ok(Ok((journal, replayed)))
    }

    /// Appends one record (one write; nothing after a failed one).
    pub fn append(&mut self, key: &str, outcome: &Outcome) {
        let (value, sum) = stored(key, outcome);
        let record = Record {
            key: key.to_owned(),
            outcome: value,
            checksum: sum,
        };
        self.append_line(serde_json::to_vec(&record).expect("records serialize"));
    }

    /// Appends a claim of `output` for this run (kept through compactions until released).
    pub fn claim(&mut self, output: &str) {
        let claim = Claim {
            output: output.to_owned(),
        };
        let mut line = serde_json::to_vec(&claim).expect("claims serialize");
        line.push(b'\n');
        self.write_line(&line);
        self.claim = Some(line);
    }

    /// Drops this run's claim (it ended, its output is whole): the next compaction leaves it
    /// out.
    pub fn release_claim(&mut self) {
        self.claim = None;
    }

    /// Appends a record line; records that there are verdicts to compact.
    fn append_line(&mut self, mut line: Vec<u8>) {
        line.push(b'\n');
        if self.write_line(&line) {
            self.records = true;
        }
    }

    /// Writes one line at once; false (and nothing more written later) after a failure.
    fn write_line(&mut self, line: &[u8]) -> bool {
        if self.failed.is_some() {
            return false;
        }
        match self.file.write_all(line) {
            Ok(()) => true,
            Err(error) => {
                self.failed = Some(error);
                false
            }
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
    /// header and this run's claim, if any). A failed write since the last compaction is
    /// reported here.
    pub fn compacted(&mut self) -> std::io::Result<()> {
        if let Some(error) = self.failed.take() {
            return Err(error);
        }
        if self.records {
            self.file.set_len(0)?;
            self.file.seek(std::io::SeekFrom::Start(0))?;
            let mut kept = self.header.clone();
            kept.extend(self.claim.iter().flatten());
            self.file.write_all(&kept)?;
            self.records = false;
        }
        Ok(())
    }

    /// Whether verdict records wait for a compaction.
    pub fn has_records(&self) -> bool {
        self.records
    }

    /// Whether the journal holds anything worth keeping (records, or a claim not released).
    pub fn holds_anything(&self) -> bool {
        self.records || self.claim.is_some()
    }

    /// The journal's path.
    pub fn path(&self) -> &Path {
        &self.path
    }
}

/// The valid records of `bytes` and how many leading bytes to keep: the header and every
/// complete line after it (a torn last line, or a journal of another format or version, is not
/// kept). `None` if `bytes` are not a journal at all (a file minrepro did not write).
fn replay(bytes: &[u8], header: &Header, header_line: &[u8]) -> Option<(Replayed, u64)> {
    let mut replayed = Replayed::default();
    let mut lines = bytes.split_inclusive(|b| *b == b'\n');
    let first = lines.next().unwrap_or_default();
    if !first.ends_with(b"\n") {
        // Empty, or a header torn as the journal was created (our header's beginning).
        return header_line.starts_with(first).then_some((replayed, 0));
    }
    match serde_json::from_slice::<Header>(first) {
        Ok(found) if found == *header => {}
        Ok(found) if found.journal == JOURNAL_FORMAT => {
            // Ours, for another cache format or version: not replayed, replaced.
            replayed.rejected += 1;
            return Some((replayed, 0));
        }
        _ => return None,
    }
    let mut keep = first.len();
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
    Some((replayed, keep as u64))
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
