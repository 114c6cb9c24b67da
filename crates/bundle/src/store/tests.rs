use super::*;
use std::os::unix::fs::{MetadataExt, PermissionsExt};

const BYTES: &[u8] = b"\x7fELF original object bytes";

fn store(dir: &Path, budget: u64) -> ContentStore {
    ContentStore::new(dir.join("store"), budget)
}

/// Places `BYTES` as `name` in a fresh directory under `dir` and returns its path.
fn place(lease: &mut Lease<'_>, dir: &Path, name: &str) -> PathBuf {
    let ws = dir.join(format!("ws-{name}"));
    std::fs::create_dir_all(&ws).unwrap();
    let dest = ws.join(name);
    lease.place("o-key", Source::Bytes(BYTES), &dest).unwrap();
    dest
}

fn stored(dir: &Path) -> PathBuf {
    dir.join("store/slot-1/o-key")
}

#[test]
fn files_are_read_only_hard_links_written_once() {
    let dir = tempfile::tempdir().unwrap();
    let store = store(dir.path(), 1 << 20);
    for round in 0..3 {
        let mut lease = store.lease().unwrap();
        let dest = place(&mut lease, dir.path(), &format!("a{round}"));
        let meta = std::fs::metadata(&dest).unwrap();
        assert_eq!(
            meta.ino(),
            std::fs::metadata(stored(dir.path())).unwrap().ino()
        );
        assert_eq!(meta.mode() & 0o777, 0o444);
        assert_eq!(std::fs::read(&dest).unwrap(), BYTES);
    }
    let stats = store.stats();
    assert_eq!((stats.written, stats.linked, stats.repaired), (1, 3, 0));
}

/// Each way a predicate can change a linked file in place; all must be undone before the next
/// lease, and none may count a harmless removal of the link as damage.
#[test]
fn in_place_writes_are_detected_and_repaired() {
    type Vandal = fn(&Path);
    let vandals: [(&str, Vandal, u64); 6] = [
        (
            "append",
            |p| {
                let mut f = OpenOptions::new().append(true).open(p).unwrap();
                f.write_all(b"\n").unwrap();
            },
            1,
        ),
        (
            "truncate",
            |p| {
                OpenOptions::new()
                    .write(true)
                    .truncate(true)
                    .open(p)
                    .unwrap();
            },
            1,
        ),
        (
            "chmod and overwrite, same size",
            |p| {
                std::fs::set_permissions(p, std::fs::Permissions::from_mode(0o644)).unwrap();
                let mut f = OpenOptions::new().write(true).open(p).unwrap();
                f.write_all(b"X").unwrap();
            },
            1,
        ),
        (
            "chmod only",
            |p| {
                std::fs::set_permissions(p, std::fs::Permissions::from_mode(0o755)).unwrap();
            },
            1,
        ),
        ("remove the link", |p| std::fs::remove_file(p).unwrap(), 0),
        (
            "replace by rename",
            |p| {
                let other = p.with_extension("new");
                std::fs::write(&other, b"other").unwrap();
                std::fs::rename(&other, p).unwrap();
            },
            0,
        ),
    ];
    for (what, vandal, repairs) in vandals {
        let dir = tempfile::tempdir().unwrap();
        let store = store(dir.path(), 1 << 20);
        {
            let mut lease = store.lease().unwrap();
            let dest = place(&mut lease, dir.path(), "first");
            vandal(&dest);
        }
        assert_eq!(store.stats().repaired, repairs, "{what}");
        let path = stored(dir.path());
        assert_eq!(std::fs::read(&path).unwrap(), BYTES, "{what}");
        let mode = std::fs::metadata(&path).unwrap().mode() & 0o777;
        assert_eq!(mode, 0o444, "{what}");
        let mut lease = store.lease().unwrap();
        let dest = place(&mut lease, dir.path(), "second");
        assert_eq!(std::fs::read(dest).unwrap(), BYTES, "{what}");
    }
}

#[test]
fn a_stored_file_removed_from_outside_is_stored_again() {
    let dir = tempfile::tempdir().unwrap();
    let store = store(dir.path(), 1 << 20);
    drop(
        store
            .lease()
            .map(|mut lease| place(&mut lease, dir.path(), "a")),
    );
    std::fs::remove_file(stored(dir.path())).unwrap();
    let mut lease = store.lease().unwrap();
    let dest = place(&mut lease, dir.path(), "b");
    assert_eq!(std::fs::read(&dest).unwrap(), BYTES);
    drop(lease);
    let stats = store.stats();
    assert_eq!((stats.written, stats.linked, stats.copied), (2, 2, 0));
}

#[test]
fn concurrent_leases_use_separate_slots() {
    let dir = tempfile::tempdir().unwrap();
    let store = store(dir.path(), 1 << 20);
    let mut one = store.lease().unwrap();
    let mut two = store.lease().unwrap();
    let a = place(&mut one, dir.path(), "a");
    let b = place(&mut two, dir.path(), "b");
    let ino = |p: &Path| std::fs::metadata(p).unwrap().ino();
    assert_ne!(ino(&a), ino(&b));
    drop((one, two));
    // Both slots are reused, no third is made.
    let _one = store.lease().unwrap();
    let _two = store.lease().unwrap();
    assert!(!dir.path().join("store/slot-3").exists());
}

#[test]
fn least_recently_used_entries_are_evicted_over_budget() {
    let dir = tempfile::tempdir().unwrap();
    let store = store(dir.path(), 2 * BYTES.len() as u64);
    let ws = dir.path().join("ws");
    std::fs::create_dir(&ws).unwrap();
    for key in ["o-1", "o-2", "o-3"] {
        let mut lease = store.lease().unwrap();
        let dest = ws.join(key);
        lease.place(key, Source::Bytes(BYTES), &dest).unwrap();
        drop(lease);
        std::fs::remove_file(dest).unwrap();
    }
    let slot = dir.path().join("store/slot-1");
    assert!(!slot.join("o-1").exists());
    assert!(slot.join("o-2").exists() && slot.join("o-3").exists());
}

#[test]
fn linking_across_filesystems_falls_back_to_a_copy() {
    let shm = Path::new("/dev/shm");
    if !shm.is_dir() {
        eprintln!("no /dev/shm: cross-device fallback not exercised");
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let other = tempfile::tempdir_in(shm).unwrap();
    if std::fs::metadata(dir.path()).unwrap().dev() == std::fs::metadata(shm).unwrap().dev() {
        eprintln!("/dev/shm is on the same filesystem: cross-device fallback not exercised");
        return;
    }
    let store = store(dir.path(), 1 << 20);
    let mut lease = store.lease().unwrap();
    let dest = place(&mut lease, other.path(), "x");
    assert_eq!(std::fs::read(&dest).unwrap(), BYTES);
    std::fs::write(&dest, b"scribbled").unwrap();
    drop(lease);
    let stats = store.stats();
    assert_eq!((stats.copied, stats.linked, stats.repaired), (1, 0, 0));
    assert_eq!(std::fs::read(stored(dir.path())).unwrap(), BYTES);
}
