//! The per-run content store: candidate files (code objects, `metadata.json`) are written once,
//! by content key, under minrepro's temporary root, and candidate workspaces get hard links to
//! them instead of fresh copies. Creating thousands of inodes per candidate was the dominant cost
//! of a 2,000-object bundle (ext4 inode allocation, not the bytes).
//!
//! A predicate may write to its workspace, and a hard-linked file written in place changes the
//! stored file itself. Three measures keep that from reaching any other candidate:
//! - The store is split into slots, and a slot serves one evaluation at a time (a [`Lease`]), so
//!   concurrent candidates never share an inode.
//! - Stored files are read-only (0444), which stops in-place writes by non-root predicates.
//! - When a lease ends, every file it linked is checked (inode, size, mode, mtime, ctime, link
//!   count; the content when any of these changed, e.g. after the predicate deleted its link) and
//!   rewritten from memory if it no longer holds the expected bytes. The predicate's verdict
//!   stands: it saw the right content when it started, and what it does to its own workspace is
//!   its business, as with copied files. Later candidates, the output (always written from
//!   memory as real files) and the inputs (never linked) are unaffected.
//!
//! The check relies on the kernel stamping a write with a ctime different from the one recorded
//! right after linking. Kernels with multigrain timestamps (Linux 6.13 and later on ext4, xfs,
//! btrfs, tmpfs) guarantee that, since the recorded stat marks the inode as queried; on older
//! kernels a write of the same size, within the same clock tick (a few ms) as the link, could go
//! unnoticed. Size changes, truncation and mode changes are always noticed.

use std::collections::HashMap;
use std::fs::{File, OpenOptions};
use std::io::{BufWriter, Read, Write};
use std::os::unix::fs::OpenOptionsExt;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;

use minrepro_predicate::FileStamp;

use crate::case::Metadata;

/// What a store entry holds; able to write itself and to recognise its own bytes.
#[derive(Clone, Copy)]
pub enum Source<'a> {
    /// Literal bytes (a code object).
    Bytes(&'a [u8]),
    /// A metadata document, written as `metadata.json`.
    Metadata(&'a Metadata),
}

impl Source<'_> {
    fn write(&self, out: &mut dyn Write) -> std::io::Result<()> {
        match self {
            Source::Bytes(bytes) => out.write_all(bytes),
            Source::Metadata(metadata) => metadata.write_json(out),
        }
    }

    fn len(&self) -> u64 {
        match self {
            Source::Bytes(bytes) => bytes.len() as u64,
            Source::Metadata(metadata) => metadata.json_len(),
        }
    }

    /// Whether `file` holds exactly this content.
    fn matches(&self, file: &Path) -> std::io::Result<bool> {
        let mut bytes = Vec::new();
        File::open(file)?.read_to_end(&mut bytes)?;
        Ok(match self {
            Source::Bytes(expected) => bytes == *expected,
            Source::Metadata(metadata) => {
                bytes.len() as u64 == metadata.json_len()
                    && blake3::hash(&bytes).to_hex().as_str() == metadata.digest()
            }
        })
    }
}

/// One stored file.
struct Entry {
    size: u64,
    /// Lease number of the last use (for eviction).
    last_used: u64,
}

/// A directory of stored files used by one evaluation at a time.
struct Slot {
    dir: PathBuf,
    entries: HashMap<String, Entry>,
    bytes: u64,
    leases: u64,
}

/// Counters (for tests).
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub struct StoreStats {
    /// Files written into the store.
    pub written: u64,
    /// Workspace files created as hard links.
    pub linked: u64,
    /// Workspace files written as copies (linking failed).
    pub copied: u64,
    /// Stored files found modified after a run and rewritten.
    pub repaired: u64,
}

/// The store of one reduction.
pub struct ContentStore {
    root: PathBuf,
    budget: u64,
    free: Mutex<Vec<Slot>>,
    created: AtomicUsize,
    stats: Mutex<StoreStats>,
}

impl ContentStore {
    /// A store under `root` (created on first use). Each slot keeps at most `budget` bytes
    /// (more only while its current lease needs more); least recently used files go first.
    pub fn new(root: PathBuf, budget: u64) -> Self {
        ContentStore {
            root,
            budget,
            free: Mutex::new(Vec::new()),
            created: AtomicUsize::new(0),
            stats: Mutex::new(StoreStats::default()),
        }
    }

    /// Counters so far. Nothing reads them since the module became private; kept for a store
    /// test or benchmark that wants to see how files were linked.
    #[allow(dead_code)]
    pub fn stats(&self) -> StoreStats {
        *self.stats.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// A slot for one evaluation (a free one, else a new one: there are at most as many slots
    /// as evaluations ever ran at the same time).
    pub fn lease(&self) -> std::io::Result<Lease<'_>> {
        let reused = self.free.lock().unwrap_or_else(|e| e.into_inner()).pop();
        let mut slot = match reused {
            Some(slot) => slot,
            None => {
                let number = self.created.fetch_add(1, Ordering::SeqCst) + 1;
                let dir = self.root.join(format!("slot-{number}"));
                std::fs::create_dir_all(&dir)?;
                Slot {
                    dir,
                    entries: HashMap::new(),
                    bytes: 0,
                    leases: 0,
                }
            }
        };
        slot.leases += 1;
        Ok(Lease {
            store: self,
            slot: Some(slot),
            used: Vec::new(),
            stats: StoreStats::default(),
        })
    }
}

/// A file linked into a workspace during a lease.
struct Used<'a> {
    key: String,
    source: Source<'a>,
    /// Stamp right after linking (`None`: written as a copy, nothing shared).
    stamp: Option<FileStamp>,
}

/// Exclusive use of one slot for one evaluation. Dropping it checks every linked file, repairs
/// modified ones, evicts old entries and returns the slot.
pub struct Lease<'a> {
    store: &'a ContentStore,
    slot: Option<Slot>,
    used: Vec<Used<'a>>,
    stats: StoreStats,
}

fn write_entry(path: &Path, source: &Source<'_>) -> std::io::Result<()> {
    match std::fs::remove_file(path) {
        Err(e) if e.kind() != std::io::ErrorKind::NotFound => return Err(e),
        _ => {}
    }
    let file = OpenOptions::new()
        .write(true)
        .create_new(true)
        .mode(0o444)
        .open(path)?;
    let mut out = BufWriter::new(file);
    source.write(&mut out)?;
    out.flush()
}

impl<'a> Lease<'a> {
    fn slot(&mut self) -> &mut Slot {
        self.slot
            .as_mut()
            .expect("a lease holds its slot until dropped")
    }

    /// Creates `dest` with the content of `source`: a hard link to the stored file with key
    /// `key` (written first if absent), or a copy where linking fails.
    pub fn place(&mut self, key: &str, source: Source<'a>, dest: &Path) -> std::io::Result<()> {
        let slot = self.slot();
        let path = slot.dir.join(key);
        let lease = slot.leases;
        let known = slot.entries.contains_key(key);
        if !known {
            write_entry(&path, &source)?;
            self.stats.written += 1;
            let slot = self.slot();
            slot.bytes += source.len();
            slot.entries.insert(
                key.to_owned(),
                Entry {
                    size: source.len(),
                    last_used: lease,
                },
            );
        }
        if let Some(entry) = self.slot().entries.get_mut(key) {
            entry.last_used = lease;
        }
        let mut linked = std::fs::hard_link(&path, dest);
        if linked.is_err() && !path.exists() {
            // The stored file went away (removed from outside its workspace): store it again.
            write_entry(&path, &source)?;
            self.stats.written += 1;
            linked = std::fs::hard_link(&path, dest);
        }
        let stamp = match linked {
            Ok(()) => {
                self.stats.linked += 1;
                Some(FileStamp::of_link(&path)?)
            }
            Err(_) => {
                // Another filesystem, no hard links, too many links: a private copy.
                let mut out = BufWriter::new(File::create(dest)?);
                source.write(&mut out)?;
                out.flush()?;
                self.stats.copied += 1;
                None
            }
        };
        self.used.push(Used {
            key: key.to_owned(),
            source,
            stamp,
        });
        Ok(())
    }

    /// Checks every linked file and rewrites the modified ones.
    fn verify(&mut self) {
        let used = std::mem::take(&mut self.used);
        for item in &used {
            let Some(recorded) = item.stamp else { continue };
            let path = self.slot().dir.join(&item.key);
            let intact = match FileStamp::of_link(&path) {
                Ok(now) if now == recorded => true,
                // Only the link count and ctime moved (the predicate removed or renamed its link,
                // or touched the directory): the bytes decide.
                Ok(now) if now.ino == recorded.ino && now.mode == recorded.mode => {
                    now.size == recorded.size
                        && now.mtime == recorded.mtime
                        && item.source.matches(&path).unwrap_or(false)
                }
                _ => false,
            };
            if !intact {
                self.stats.repaired += 1;
                if write_entry(&path, &item.source).is_err() {
                    // Forget it: the next lease that needs it writes it afresh (or fails there).
                    let slot = self.slot();
                    if let Some(entry) = slot.entries.remove(&item.key) {
                        slot.bytes -= entry.size;
                    }
                    let _ = std::fs::remove_file(&path);
                }
            }
        }
    }

    /// Removes least recently used entries (never this lease's) while over budget.
    fn evict(&mut self) {
        let budget = self.store.budget;
        let slot = self.slot();
        if slot.bytes <= budget {
            return;
        }
        let mut old: Vec<(u64, String)> = slot
            .entries
            .iter()
            .filter(|(_, e)| e.last_used < slot.leases)
            .map(|(k, e)| (e.last_used, k.clone()))
            .collect();
        old.sort();
        for (_, key) in old {
            if slot.bytes <= budget {
                break;
            }
            if let Some(entry) = slot.entries.remove(&key) {
                slot.bytes -= entry.size;
                let _ = std::fs::remove_file(slot.dir.join(&key));
            }
        }
    }
}

impl Drop for Lease<'_> {
    fn drop(&mut self) {
        self.verify();
        self.evict();
        {
            let mut stats = self.store.stats.lock().unwrap_or_else(|e| e.into_inner());
            stats.written += self.stats.written;
            stats.linked += self.stats.linked;
            stats.copied += self.stats.copied;
            stats.repaired += self.stats.repaired;
        }
        if let Some(slot) = self.slot.take() {
            self.store
                .free
                .lock()
                .unwrap_or_else(|e| e.into_inner())
                .push(slot);
        }
    }
}

#[cfg(test)]
mod tests;
