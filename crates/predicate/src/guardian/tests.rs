use std::os::unix::fs::symlink;
use std::os::unix::process::ExitStatusExt;

use super::*;

fn announced(path: &Path) -> Announced {
    let meta = std::fs::symlink_metadata(path).unwrap();
    Announced {
        path: path.to_path_buf(),
        dev: meta.dev(),
        ino: meta.ino(),
    }
}

#[test]
fn announcements_round_trip_and_a_truncated_record_is_skipped() {
    let mut bytes = b"1 2 /tmp/minrepro-a\0".to_vec();
    bytes.extend_from_slice(b"3 4 /tmp/with space/minrepro-b\0");
    bytes.extend_from_slice(b"x 4 /tmp/minrepro-bad\0");
    bytes.extend_from_slice(b"5 6 /tmp/minrepro-trunc");
    let parsed = parse_announcements(&bytes);
    assert_eq!(
        parsed,
        vec![
            Announced {
                path: "/tmp/minrepro-a".into(),
                dev: 1,
                ino: 2
            },
            Announced {
                path: "/tmp/with space/minrepro-b".into(),
                dev: 3,
                ino: 4
            },
        ]
    );
}

#[test]
fn only_the_announced_directory_itself_is_removed() {
    let base_dir = tempfile::tempdir().unwrap();
    let base = base_dir.path();
    let outside = base.join("outside");
    std::fs::create_dir(&outside).unwrap();
    std::fs::write(outside.join("keep"), "x").unwrap();

    // Ours, with a symlink inside pointing out: removed, the symlink's target untouched.
    let ours = base.join("minrepro-ours");
    std::fs::create_dir_all(ours.join("ws-1")).unwrap();
    std::fs::write(ours.join("ws-1/file"), "y").unwrap();
    symlink(&outside, ours.join("ws-1/link")).unwrap();
    assert!(remove_guarded(&announced(&ours), base));
    assert!(!ours.exists());
    assert!(outside.join("keep").exists());

    // Replaced by another directory of the same name (another inode): kept.
    let replaced = base.join("minrepro-replaced");
    std::fs::create_dir(&replaced).unwrap();
    let old = announced(&replaced);
    std::fs::create_dir(base.join("holder")).unwrap();
    std::fs::rename(&replaced, base.join("holder/old")).unwrap();
    std::fs::create_dir(&replaced).unwrap();
    assert!(!remove_guarded(&old, base));
    assert!(replaced.exists());

    // A symlink named like ours, announced with its target's identity: neither removed.
    let link = base.join("minrepro-link");
    symlink(&outside, &link).unwrap();
    let mut spoof = announced(&outside);
    spoof.path = link.clone();
    assert!(!remove_guarded(&spoof, base));
    assert!(link.exists() && outside.join("keep").exists());

    // Not named like ours, or not directly inside the temporary directory: kept.
    assert!(!remove_guarded(&announced(&outside), base));
    let nested = base.join("holder/minrepro-nested");
    std::fs::create_dir(&nested).unwrap();
    assert!(!remove_guarded(&announced(&nested), base));
    assert!(nested.exists());
}

#[test]
fn run_tag_prefixes_are_recognized_strictly() {
    assert!(is_run_tag_prefix(run_tag_prefix()));
    assert!(is_run_tag_prefix("12-0123456789abcdef-"));
    for bad in [
        "",
        "12-",
        "12-abc-",
        "x-0123456789abcdef-",
        "12-0123456789abcdef-1",
        "12-0123456789abcdef",
        "-0123456789abcdef-",
    ] {
        assert!(!is_run_tag_prefix(bad), "{bad:?}");
    }
}

#[test]
fn kill_tagged_kills_exactly_the_processes_with_the_prefix() {
    let _serial = crate::processes_lock();
    // Made-up prefixes: this test process's own prefix tags other tests' runs.
    let ours = format!("{}-00000000feedf00d-", std::process::id());
    let theirs = format!("{}-00000000deadbeef-", std::process::id());
    let spawn = |tag: String| {
        std::process::Command::new("sleep")
            .arg("1000")
            .env(RUN_TAG_VAR, tag)
            .process_group(0)
            .spawn()
            .unwrap()
    };
    let mut victim = spawn(format!("{ours}7"));
    let mut bystander = spawn(format!("{theirs}7"));
    // Wait until both have exec'd (before that their environ is the test's own).
    let tagged = |pid: u32, tag: &str| {
        std::fs::read(format!("/proc/{pid}/environ"))
            .is_ok_and(|e| environ_has_prefix(&e, format!("{RUN_TAG_VAR}={tag}").as_bytes()))
    };
    let give_up = std::time::Instant::now() + Duration::from_secs(20);
    while !(tagged(victim.id(), &ours) && tagged(bystander.id(), &theirs))
        && std::time::Instant::now() < give_up
    {
        std::thread::sleep(Duration::from_millis(5));
    }
    kill_tagged(&ours);
    let status = victim.wait().unwrap();
    let alive = bystander.try_wait().unwrap().is_none();
    bystander.kill().unwrap();
    bystander.wait().unwrap();
    assert_eq!(status.signal(), Some(libc::SIGKILL));
    assert!(alive, "a process with another prefix was killed");
}

#[test]
fn work_dir_and_slurm_records_are_told_apart_from_directories() {
    let mut bytes = b"1 2 /shared/minrepro-a\0slurm\0".to_vec();
    bytes.extend_from_slice(b"workdir /shared/scratch dir\0");
    bytes.extend_from_slice(b"workdir /shared/trunc");
    assert_eq!(
        work_dirs(&bytes),
        vec![PathBuf::from("/shared/scratch dir")]
    );
    let parsed = parse_announcements(&bytes);
    assert_eq!(parsed.len(), 1, "{parsed:?}");
    assert_eq!(parsed[0].path, PathBuf::from("/shared/minrepro-a"));
}
