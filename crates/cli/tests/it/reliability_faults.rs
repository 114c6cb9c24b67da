//! Reliability: faults around a reduction (hostile predicates are in `reliability_hostile`).
//! Whatever happens to minrepro (SIGINT/SIGTERM at any moment, a corrupt cache, a vanished or
//! read-only output parent, a second process on the same cache), afterwards: the inputs are byte-identical, the private TMPDIR is empty, no process of ours is
//! alive, and either a complete, verified output exists or none does.

use std::path::{Path, PathBuf};
use std::process::Command as StdCommand;
use std::time::Duration;

use crate::support::bundle::*;
use crate::support::procs::*;
use crate::support::*;

/// Starts `minrepro bundle -q ARGS` in the area with piped output.
fn spawn(area: &Area, args: &[&std::ffi::OsStr]) -> std::process::Child {
    area.process("bundle").args(args).spawn().unwrap()
}

/// Runs minrepro and signals it after `delay`; returns (pid, exit code or -signal, stderr).
fn run_and_signal(
    area: &Area,
    args: &[&std::ffi::OsStr],
    signal: &str,
    delay: Duration,
) -> (u32, i32, String) {
    use std::os::unix::process::ExitStatusExt;
    let child = spawn(area, args);
    let pid = child.id();
    std::thread::sleep(delay);
    send(signal, pid);
    let output = child.wait_with_output().unwrap();
    let code = output
        .status
        .code()
        .unwrap_or_else(|| -output.status.signal().unwrap_or(0));
    (pid, code, stderr(&output))
}

#[test]
fn signals_at_random_moments_publish_all_or_nothing() {
    // A reduction with many accepted steps and a slowish predicate that leaves a daemon behind.
    let (area, bundle) = bundle_area();
    let pids = area.input().join("pids");
    let prelude = format!(
        "echo $$ >> '{0}'\nsetsid sh -c 'echo $$ >> {0}; exec sleep 1000' &\nsleep 0.05\n\
         grep -q '\"gamma\"' \"$1\" || exit 1",
        pids.display()
    );
    let predicate = area.gamma_wrapper("slow-gamma.sh", &prelude);
    let before = tree(&area.input());
    let mut outcomes = Vec::new();
    for (index, delay_ms) in [0u64, 5, 30, 80, 150, 250, 400, 700, 1000, 1500, 2500]
        .into_iter()
        .enumerate()
    {
        let out = area.out(&format!("out-{index}"));
        let signal = if index % 2 == 0 { "INT" } else { "TERM" };
        let (pid, code, stderr) = run_and_signal(
            &area,
            &[
                reduce_args(&bundle, &out, &predicate),
                vec![
                    "--predicate-arg={bundle}".as_ref(),
                    "-j".as_ref(),
                    if index % 3 == 0 { "1" } else { "4" }.as_ref(),
                ],
            ]
            .concat(),
            signal,
            Duration::from_millis(delay_ms),
        );
        let label = format!("SIG{signal} after {delay_ms} ms");
        match code {
            0 => verify_output(&out),
            130 => {
                assert!(
                    stderr.contains("no output was published"),
                    "{label}: {stderr}"
                );
                assert!(!out.exists(), "{label}: published after an interruption");
            }
            // Killed before the handler was installed: nothing can have been created yet.
            -2 | -15 => assert!(!out.exists(), "{label}"),
            other => panic!("{label}: unexpected exit {other}: {stderr}"),
        }
        assert!(!stderr.contains("panicked"), "{label}: {stderr}");
        assert_inputs_kept(&area, &before, |n| n == "pids", &label);
        assert_clean_processes(&label, pid, &pids);
        assert!(area.tmp_is_empty(), "{label}: TMPDIR not empty");
        assert_no_staging(area.root.path());
        outcomes.push(code);
    }
    // The loop must have hit at least one run in flight.
    assert!(outcomes.contains(&130), "{outcomes:?}");
}

#[test]
fn signals_during_publication_publish_all_or_nothing() {
    // One 64 MB object, nothing to reduce: the run is the original's check and then writing,
    // syncing and renaming the output; signals land in and around publication.
    let area = Area::new();
    let object = area.input().join("big.co");
    let mut bytes = std::fs::read(fixtures().join("alpha.co")).unwrap();
    bytes.resize(64 << 20, 0x5a);
    std::fs::write(&object, &bytes).unwrap();
    drop(bytes);
    let predicate = exiting(&area.input(), 0);
    let before = tree(&area.input());
    let mut codes = Vec::new();
    for (index, delay_ms) in [100u64, 250, 400, 600, 900, 1300].into_iter().enumerate() {
        let out = area.out(&format!("big-{index}"));
        let signal = if index % 2 == 0 { "TERM" } else { "INT" };
        let (pid, code, stderr) = run_and_signal(
            &area,
            &[
                "--code-object".as_ref(),
                object.as_os_str(),
                "--output".as_ref(),
                out.as_os_str(),
                "--predicate".as_ref(),
                predicate.as_os_str(),
            ],
            signal,
            Duration::from_millis(delay_ms),
        );
        let label = format!("SIG{signal} after {delay_ms} ms");
        match code {
            0 => {
                verify_output(&out);
                assert_eq!(
                    std::fs::metadata(out.join("objects/big.co")).unwrap().len(),
                    64 << 20
                );
            }
            130 => assert!(!out.exists(), "{label}: {stderr}"),
            // On a loaded machine the signal can land before the handler is installed: the
            // process dies by it, and nothing can have been created yet.
            -2 | -15 => assert!(!out.exists(), "{label}"),
            other => panic!("{label}: unexpected exit {other}: {stderr}"),
        }
        assert_inputs_kept(&area, &before, |_| false, &label);
        assert!(area.tmp_is_empty(), "{label}: TMPDIR not empty");
        assert_no_staging(area.root.path());
        assert_clean_processes(&label, pid, &area.input().join("none"));
        codes.push(code);
    }
    assert!(codes.contains(&130), "{codes:?}");
}

fn cache_run(
    area: &Area,
    bundle: &Path,
    out: &Path,
    predicate: &Path,
    cache: &Path,
) -> std::process::Output {
    area.reduce_cmd(bundle, out, predicate)
        .arg("--predicate-arg={bundle}")
        .arg("--cache-file")
        .arg(cache)
        .output()
        .unwrap()
}

#[test]
fn corrupt_truncated_and_odd_cache_files() {
    let (area, bundle) = bundle_area();
    let count = area.input().join("count");
    let predicate = area.gamma_wrapper("counting.sh", &format!("echo x >> '{}'", count.display()));
    let caches = area.root.path().join("caches");
    std::fs::create_dir(&caches).unwrap();
    let cache = caches.join("cache.json");
    let reference = area.out("reference");
    assert!(cache_run(&area, &bundle, &reference, &predicate, &cache)
        .status
        .success());
    let good = std::fs::read(&cache).unwrap();
    assert!(good.len() > 100);
    // Truncated or garbled files: a clear error naming the cache, no predicate run, the file
    // untouched (it may be the user's only copy of hours of verdicts).
    for (index, damaged) in [
        good[..good.len() / 2].to_vec(),
        good[..1].to_vec(),
        Vec::new(),
        b"\0\0\0\0".to_vec(),
        br#"{"format": "other", "version": 1, "entries": {}}"#.to_vec(),
        br#"{"format": "minrepro-outcome-cache", "version": 99, "entries": {}}"#.to_vec(),
        br#"{"format": "minrepro-outcome-cache", "version": 1, "entries": []}"#.to_vec(),
    ]
    .into_iter()
    .enumerate()
    {
        std::fs::write(&cache, &damaged).unwrap();
        std::fs::remove_file(&count).ok();
        let out = area.out(&format!("damaged-{index}"));
        let output = cache_run(&area, &bundle, &out, &predicate, &cache);
        let stderr = assert_nothing_published(&output, &out, "cache.json");
        assert_eq!(stderr.lines().count(), 1, "{index}: {stderr}");
        assert_eq!(runs(&count), 0, "{index}: the predicate ran");
        assert_eq!(
            std::fs::read(&cache).unwrap(),
            damaged,
            "{index}: cache overwritten"
        );
        assert!(area.tmp_is_empty());
    }
    // Tampered entries (a verdict flipped without its checksum) are dropped, never trusted: the
    // result equals a fresh run's.
    let text = String::from_utf8(good.clone()).unwrap();
    let tampered = text.replace("\"uninteresting\"", "\"interesting\"");
    assert_ne!(tampered, text);
    std::fs::write(&cache, tampered).unwrap();
    std::fs::remove_file(&count).ok();
    let out = area.out("tampered");
    let output = cache_run(&area, &bundle, &out, &predicate, &cache);
    assert!(output.status.success(), "{}", stderr(&output));
    assert!(runs(&count) > 0);
    assert_eq!(tree(&out), tree(&reference));
    // A FIFO, a directory or a dangling directory path as the cache file.
    let fifo = caches.join("fifo");
    assert!(StdCommand::new("mkfifo")
        .arg(&fifo)
        .status()
        .unwrap()
        .success());
    for (label, path, needle) in [
        ("fifo", fifo.clone(), "not a regular file"),
        ("directory", caches.clone(), "is a directory"),
        (
            "missing parent",
            caches.join("no/such/cache.json"),
            "cache.json",
        ),
    ] {
        let out = area.out(&format!("odd-{label}"));
        let output = area
            .reduce_cmd(&bundle, &out, &predicate)
            .arg("--predicate-arg={bundle}")
            .arg("--cache-file")
            .arg(&path)
            .timeout(Duration::from_secs(60))
            .output()
            .unwrap();
        assert_nothing_published(&output, &out, needle);
    }
}

#[test]
fn two_processes_on_one_cache_file_never_corrupt_it() {
    let (area, bundle) = bundle_area();
    let started = area.input().join("started");
    let prelude = format!("touch '{}'\nsleep 0.3", started.display());
    let predicate = area.gamma_wrapper("slow.sh", &prelude);
    let cache = area.root.path().join("shared-cache.json");
    let first_out = area.out("first");
    let first = area
        .process("bundle")
        .args(reduce_args(&bundle, &first_out, &predicate))
        .arg("--predicate-arg={bundle}")
        .arg("--cache-file")
        .arg(&cache)
        .spawn()
        .unwrap();
    wait_for(30, || started.exists());
    assert!(started.exists());
    // While the first runs, others are refused with a clear message and change nothing.
    for index in 0..3 {
        let out = area.out(&format!("second-{index}"));
        let output = cache_run(&area, &bundle, &out, &predicate, &cache);
        assert_nothing_published(&output, &out, "in use by another minrepro process");
    }
    let output = first.wait_with_output().unwrap();
    assert!(output.status.success(), "{}", stderr(&output));
    verify_output(&first_out);
    // The cache is a valid document and a later process uses it.
    let document = json(&cache);
    assert!(!document["entries"].as_object().unwrap().is_empty());
    let later = area.out("later");
    assert!(cache_run(&area, &bundle, &later, &predicate, &cache)
        .status
        .success());
    assert_eq!(tree(&later), tree(&first_out));
    assert!(area.tmp_is_empty());
    let leftovers = area.root_names_with(&["lock", "minrepro-tmp"]);
    assert!(leftovers.is_empty(), "{leftovers:?}");
}

#[test]
fn output_parent_vanishing_mid_run_is_a_clear_error() {
    let (area, bundle) = bundle_area();
    let parent = area.root.path().join("parent");
    std::fs::create_dir(&parent).unwrap();
    // The third predicate run removes the output's parent directory.
    let count = area.input().join("count");
    let prelude = format!(
        "n=$(cat '{c}' 2>/dev/null || echo 0); n=$((n+1)); echo $n > '{c}'\n[ $n -eq 3 ] && rm -rf '{p}'",
        c = count.display(),
        p = parent.display(),
    );
    let predicate = area.gamma_wrapper("vanish.sh", &prelude);
    let out = parent.join("out");
    let (pid, output) = run_reduction(
        &area,
        &bundle,
        &out,
        &predicate,
        &["--predicate-arg={bundle}"],
    );
    let stderr = assert_fails(&output, 1, "cannot");
    assert!(stderr.contains("out"), "{stderr}");
    assert_eq!(stderr.lines().count(), 1, "{stderr}");
    assert!(!stderr.contains("panicked"), "{stderr}");
    assert!(!parent.exists());
    // The result was not lost: it was published in the current directory, and the error says so.
    let rescued: Vec<PathBuf> = std::fs::read_dir(area.root.path())
        .unwrap()
        .flatten()
        .map(|e| e.path())
        .filter(|p| {
            p.file_name()
                .unwrap()
                .to_string_lossy()
                .starts_with("minrepro-rescued-out-")
        })
        .collect();
    assert_eq!(rescued.len(), 1, "{stderr}");
    assert!(
        stderr.contains(&format!("published to {}", rescued[0].display())),
        "{stderr}"
    );
    verify_output(&rescued[0]);
    let objects = names(&rescued[0].join("objects"));
    assert_eq!(objects.len(), 1);
    assert!(objects[0].contains("gamma"));
    assert!(area.tmp_is_empty());
    assert_clean_processes("vanishing parent", pid, &area.input().join("none"));
}

/// A read-only bind mount (root ignores permission bits, not a read-only mount).
struct ReadOnlyMount(PathBuf);

impl ReadOnlyMount {
    fn new(source: &Path, target: &Path) -> Option<Self> {
        std::fs::create_dir_all(target).ok()?;
        let bind = StdCommand::new("mount")
            .arg("--bind")
            .arg(source)
            .arg(target)
            .output()
            .ok()?;
        if !bind.status.success() {
            return None;
        }
        let mount = ReadOnlyMount(target.to_path_buf());
        let ro = StdCommand::new("mount")
            .args(["-o", "remount,bind,ro"])
            .arg(target)
            .output()
            .ok()?;
        ro.status.success().then_some(mount)
    }
}

impl Drop for ReadOnlyMount {
    fn drop(&mut self) {
        let _ = StdCommand::new("umount").arg(&self.0).status();
    }
}

#[test]
fn read_only_output_parent_is_refused_before_the_predicate() {
    let (area, bundle) = bundle_area();
    let source = area.root.path().join("rw");
    std::fs::create_dir(&source).unwrap();
    let target = area.root.path().join("ro");
    // SAFETY: geteuid has no side effects.
    let root = unsafe { libc::geteuid() } == 0;
    let _mount = if root {
        match ReadOnlyMount::new(&source, &target) {
            Some(mount) => mount,
            None => {
                eprintln!("note: cannot create a read-only bind mount here; sub-case skipped");
                return;
            }
        }
    } else {
        use std::os::unix::fs::PermissionsExt;
        std::fs::create_dir(&target).unwrap();
        std::fs::set_permissions(&target, std::fs::Permissions::from_mode(0o555)).unwrap();
        return;
    };
    let (predicate, marker) = marking_predicate(&area.input());
    let out = target.join("out");
    let output = area.reduce_cmd(&bundle, &out, &predicate).output().unwrap();
    let stderr = stderr(&output);
    assert_eq!(output.status.code(), Some(1), "{stderr}");
    assert!(
        stderr.contains("Read-only file system") || stderr.contains("read-only"),
        "{stderr}"
    );
    assert_eq!(stderr.lines().count(), 1, "{stderr}");
    assert!(!marker.exists(), "the predicate ran before the refusal");
    assert!(std::fs::read_dir(&source).unwrap().next().is_none());
    assert!(area.tmp_is_empty());
}
