//! Saving accepted candidates to the output file without holding up the reduction.
//!
//! Every accepted candidate replaces the output file atomically and durably (written, synced,
//! renamed), so that the file always holds a valid, reproducing candidate or is absent. A synced
//! write takes ~15 ms on a loaded disk, more than deciding a candidate, so a background thread
//! does it: [`Saver::save`] only hands the text over. When candidates are accepted faster than
//! they can be written, only the newest waiting one is written (the older ones were superseded
//! anyway); [`Saver::finish`] waits until the newest accepted candidate is on disk.

use std::path::{Path, PathBuf};
use std::sync::{Arc, Condvar, Mutex, MutexGuard};
use std::thread::JoinHandle;

use minrepro_cache::write_atomically;

/// Writing the output failed (the message names the file).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct SaveError(pub String);

/// What the reduction and the writing thread share.
#[derive(Default)]
struct State {
    /// The newest accepted file content not yet being written.
    pending: Option<Vec<u8>>,
    /// The first write error.
    error: Option<SaveError>,
    /// Set by [`Saver::finish`]: write what is pending, then stop.
    closed: bool,
}

type Shared = Arc<(Mutex<State>, Condvar)>;

/// Writes accepted candidates to one output file in the background.
pub struct Saver {
    output: PathBuf,
    shared: Shared,
    thread: Option<JoinHandle<()>>,
    saved_any: bool,
}

fn lock(shared: &Shared) -> MutexGuard<'_, State> {
    shared.0.lock().unwrap_or_else(|e| e.into_inner())
}

impl Saver {
    /// A saver for `output`.
    pub fn new(output: PathBuf) -> Saver {
        let shared: Shared = Arc::default();
        let (theirs, path) = (Arc::clone(&shared), output.clone());
        let thread = std::thread::Builder::new()
            .name("save-output".into())
            .spawn(move || write_loop(&path, &theirs))
            .ok();
        Saver {
            output,
            shared,
            thread,
            saved_any: false,
        }
    }

    /// Queues `bytes` as the output's new content (writes them at once if the thread could not
    /// start); `Err` if an earlier write failed.
    pub fn save(&mut self, bytes: &[u8]) -> Result<(), SaveError> {
        if self.thread.is_none() {
            write_atomically_to(&self.output, bytes)?;
            self.saved_any = true;
            return Ok(());
        }
        let mut state = lock(&self.shared);
        if let Some(error) = &state.error {
            return Err(error.clone());
        }
        state.pending = Some(bytes.to_vec());
        self.saved_any = true;
        drop(state);
        self.shared.1.notify_all();
        Ok(())
    }

    /// Whether anything was queued.
    pub fn saved_any(&self) -> bool {
        self.saved_any
    }

    /// Writes what is still queued and stops the thread; `Err` if any write failed.
    pub fn finish(&mut self) -> Result<(), SaveError> {
        lock(&self.shared).closed = true;
        self.shared.1.notify_all();
        if let Some(thread) = self.thread.take() {
            let _ = thread.join();
        }
        lock(&self.shared).error.clone().map_or(Ok(()), Err)
    }
}

impl Drop for Saver {
    fn drop(&mut self) {
        let _ = self.finish();
    }
}

/// The writing thread: writes the newest pending text until closed and drained.
fn write_loop(output: &Path, shared: &Shared) {
    loop {
        let mut state = lock(shared);
        while state.pending.is_none() && !state.closed {
            state = shared.1.wait(state).unwrap_or_else(|e| e.into_inner());
        }
        let Some(text) = state.pending.take() else {
            return; // closed and drained
        };
        drop(state);
        if let Err(e) = write_atomically_to(output, &text) {
            lock(shared).error.get_or_insert(e);
        }
    }
}

/// Replaces `output` atomically and durably with `bytes`.
fn write_atomically_to(output: &Path, bytes: &[u8]) -> Result<(), SaveError> {
    write_atomically(output, bytes)
        .map_err(|e| SaveError(format!("cannot write {}: {e}", output.display())))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_newest_accepted_text_is_on_disk_after_finish() {
        let (dir, output) = minrepro_testkit::temp_path("out.py");
        let mut saver = Saver::new(output.clone());
        assert!(!saver.saved_any());
        for i in 0..200 {
            saver.save(format!("x = {i}\n").as_bytes()).unwrap();
            // Whatever is on disk meanwhile is one complete accepted text.
            if let Ok(text) = std::fs::read_to_string(&output) {
                assert!(text.starts_with("x = ") && text.ends_with('\n'), "{text:?}");
            }
        }
        saver.finish().unwrap();
        assert!(saver.saved_any());
        assert_eq!(std::fs::read_to_string(&output).unwrap(), "x = 199\n");
        // No temporary file is left next to the output.
        assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 1);
    }

    #[test]
    fn a_failed_write_is_reported() {
        let (_dir, missing) = minrepro_testkit::temp_path("missing");
        let output = missing.join("out.py");
        let mut saver = Saver::new(output);
        saver.save(b"x = 1\n").unwrap();
        let error = saver.finish().unwrap_err();
        assert!(error.to_string().contains("cannot write"), "{error}");
        assert!(saver.save(b"x = 2\n").is_err());
    }
}
