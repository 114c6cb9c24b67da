//! Finding processes of ours that outlived a run, shared by the bundle and python reliability
//! tests: every predicate (and each of its descendants) inherits `MINREPRO_RUN_TAG=<pid>-…`, and
//! hostile test predicates record their pids in a file.

use std::path::Path;
use std::time::{Duration, Instant};

use super::wait_for;

/// Processes (not zombies) whose environment carries a run tag of minrepro process `pid`, as
/// `"<pid>: <command line>"`.
pub fn survivors_of(pid: u32) -> Vec<String> {
    processes_with_env(&format!("MINREPRO_RUN_TAG={pid}-"))
}

/// Processes (not zombies) with an environment entry starting with `prefix`, as
/// `"<pid>: <first 80 bytes of the command line>"`.
pub fn processes_with_env(prefix: &str) -> Vec<String> {
    let mut found = Vec::new();
    for entry in std::fs::read_dir("/proc").unwrap().flatten() {
        let Ok(other) = entry.file_name().to_string_lossy().parse::<u32>() else {
            continue;
        };
        let Ok(environ) = std::fs::read(format!("/proc/{other}/environ")) else {
            continue;
        };
        if environ
            .split(|&b| b == 0)
            .any(|e| e.starts_with(prefix.as_bytes()))
            && !is_zombie(&other.to_string())
        {
            let cmd = std::fs::read(format!("/proc/{other}/cmdline")).unwrap_or_default();
            let cmd = String::from_utf8_lossy(&cmd).replace('\0', " ");
            found.push(format!("{other}: {}", head(&cmd, 80)));
        }
    }
    found
}

/// Whether `pid` is a zombie or gone.
pub fn is_zombie(pid: &str) -> bool {
    std::fs::read_to_string(format!("/proc/{pid}/stat"))
        .map(|s| {
            s.rsplit_once(')')
                .is_some_and(|(_, r)| r.trim_start().starts_with('Z'))
        })
        .unwrap_or(true)
}

/// Pids listed (whitespace-separated) in `file` that are still alive.
pub fn alive_pids(file: &Path) -> Vec<String> {
    std::fs::read_to_string(file)
        .unwrap_or_default()
        .split_whitespace()
        .filter(|pid| !is_zombie(pid))
        .map(str::to_owned)
        .collect()
}

/// Asserts no process of minrepro `pid` survives (briefly waiting for SIGKILLed ones to go).
pub fn assert_no_survivors(pid: u32, pids_file: &Path) {
    let start = Instant::now();
    loop {
        let tagged = survivors_of(pid);
        let recorded = alive_pids(pids_file);
        if tagged.is_empty() && recorded.is_empty() {
            return;
        }
        if start.elapsed() > Duration::from_secs(5) {
            panic!("survivors: tagged {tagged:?}, recorded {recorded:?}");
        }
        std::thread::sleep(Duration::from_millis(100));
    }
}

/// At most `max` bytes of `text`, cut at a character boundary.
fn head(text: &str, max: usize) -> &str {
    let end = (0..=text.len().min(max))
        .rev()
        .find(|&i| text.is_char_boundary(i))
        .unwrap_or(0);
    &text[..end]
}

/// Waits until no process of run `pid` and none recorded in `pids` is alive, then asserts so.
pub fn assert_clean_processes(label: &str, pid: u32, pids: &Path) {
    wait_for(10, || {
        survivors_of(pid).is_empty() && alive_pids(pids).is_empty()
    });
    assert_eq!(
        survivors_of(pid),
        Vec::<String>::new(),
        "{label}: processes survived"
    );
    assert_eq!(
        alive_pids(pids),
        Vec::<String>::new(),
        "{label}: recorded pids survived"
    );
}
