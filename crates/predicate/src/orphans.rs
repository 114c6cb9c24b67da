//! Descendants that escaped a run's process group (`setsid`, double forks): we are a child
//! subreaper, so they are re-parented to us, and the run tag in their environment tells whose
//! they are.

use std::collections::BTreeSet;

use crate::interrupt::with_live_groups;
use crate::process::RUN_TAG_VAR;

/// Kills (and reaps) our re-parented descendants that carry `tag`, until none is left.
pub fn kill_tagged_orphans(tag: &str) {
    kill_orphans_where(|environ| environ_has(environ, RUN_TAG_VAR, Some(tag)));
}

/// Kills every re-parented descendant of any run (used once the reduction is over).
pub fn kill_all_orphans() {
    kill_orphans_where(|environ| environ_has(environ, RUN_TAG_VAR, None));
}

/// Whether an environment block (`/proc/PID/environ`) has an entry starting with `prefix`.
pub(crate) fn environ_has_prefix(environ: &[u8], prefix: &[u8]) -> bool {
    environ
        .split(|&b| b == 0)
        .any(|entry| entry.starts_with(prefix))
}

fn environ_has(environ: &[u8], var: &str, value: Option<&str>) -> bool {
    environ.split(|&b| b == 0).any(|entry| {
        let Some(rest) = entry.strip_prefix(var.as_bytes()) else {
            return false;
        };
        let Some(found) = rest.strip_prefix(b"=") else {
            return false;
        };
        value.is_none_or(|v| found == v.as_bytes())
    })
}

fn kill_orphans_where(matches: impl Fn(&[u8]) -> bool) {
    with_live_groups(|direct_children| kill_orphans_locked(direct_children, &matches));
}

fn kill_orphans_locked(direct_children: &BTreeSet<i32>, matches: &dyn Fn(&[u8]) -> bool) {
    let me = std::process::id() as i32;
    // SAFETY: getpgrp cannot fail and touches no memory.
    let our_group = unsafe { libc::getpgrp() };
    // Killing an orphan re-parents its own children to us: repeat until a scan finds nothing.
    for _ in 0..16 {
        let mut found = false;
        for pid in children_of(me) {
            if direct_children.contains(&pid) {
                continue; // a run's own child: its worker waits for it
            }
            let environ = std::fs::read(format!("/proc/{pid}/environ")).unwrap_or_default();
            // A zombie's environ is empty, so whose it was cannot be told from it. Runs' processes
            // live in groups of their own (or sessions of their own, once escaped), so a zombie in
            // another group is a run's dead orphan: reap it. A zombie in our own group is a child
            // that the program embedding us started itself and will wait for: leave it alone.
            let zombie = process_state(pid) == Some('Z') && process_group(pid) != Some(our_group);
            if !(zombie || matches(&environ)) {
                continue;
            }
            found = true;
            // SAFETY: signalling and reaping a process that is our child by re-parenting.
            unsafe {
                if libc::getpgid(pid) == pid {
                    libc::kill(-pid, libc::SIGKILL);
                }
                libc::kill(pid, libc::SIGKILL);
                libc::waitpid(pid, std::ptr::null_mut(), 0);
            }
        }
        if !found {
            return;
        }
    }
}

fn children_of(parent: i32) -> Vec<i32> {
    // Each thread has its own list (workers spawn from their own threads, and orphans are
    // re-parented to any live thread of ours).
    let mut pids = Vec::new();
    let mut listed = false;
    if let Ok(tasks) = std::fs::read_dir(format!("/proc/{parent}/task")) {
        for task in tasks.flatten() {
            if let Ok(text) = std::fs::read_to_string(task.path().join("children")) {
                listed = true;
                pids.extend(
                    text.split_whitespace()
                        .filter_map(|p| p.parse::<i32>().ok()),
                );
            }
        }
    }
    if !listed {
        pids = children_by_scanning_proc(parent);
    }
    pids.sort_unstable();
    pids.dedup();
    pids
}

/// The fields of `/proc/PID/stat` after the command name: state, parent, group, session, ...
fn stat_fields(pid: i32) -> Option<Vec<String>> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    let after = stat.rsplit_once(')')?.1;
    Some(after.split_whitespace().map(str::to_owned).collect())
}

fn process_state(pid: i32) -> Option<char> {
    stat_fields(pid)?.first()?.chars().next()
}

/// A process's group (kept in `/proc` while it is a zombie, unlike its environment).
fn process_group(pid: i32) -> Option<i32> {
    stat_fields(pid)?.get(2)?.parse().ok()
}

/// Fallback for kernels without `/proc/PID/task/TID/children`: read every process's parent.
fn children_by_scanning_proc(parent: i32) -> Vec<i32> {
    all_pids()
        .into_iter()
        .filter(|&pid| {
            stat_fields(pid).and_then(|fields| fields.get(1)?.parse::<i32>().ok()) == Some(parent)
        })
        .collect()
}

/// Every process id listed in `/proc` (empty without `/proc`).
pub(crate) fn all_pids() -> Vec<i32> {
    let Ok(entries) = std::fs::read_dir("/proc") else {
        return Vec::new();
    };
    entries
        .flatten()
        .filter_map(|entry| entry.file_name().to_str()?.parse::<i32>().ok())
        .collect()
}

#[cfg(test)]
mod tests {
    use std::process::Command;
    use std::time::{Duration, Instant};

    use super::*;

    #[test]
    fn a_dead_child_in_our_own_group_is_left_for_its_parent_to_reap() {
        // The sweep reaps zombies in other groups: other tests' children must not be one.
        let _serial = crate::processes_lock();
        // Started the default way (in our group), as a program embedding this crate would.
        let mut child = Command::new("sh").args(["-c", "exit 7"]).spawn().unwrap();
        let pid = child.id() as i32;
        let until = Instant::now() + Duration::from_secs(10);
        while process_state(pid) != Some('Z') && Instant::now() < until {
            std::thread::sleep(Duration::from_millis(5));
        }
        assert_eq!(process_state(pid), Some('Z'));
        kill_all_orphans();
        // Had the sweep reaped it, its exit status would be lost (waiting would fail).
        let status = child
            .wait()
            .expect("the child's exit status was taken by the sweep");
        assert_eq!(status.code(), Some(7));
    }
}
