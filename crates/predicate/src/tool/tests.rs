use super::*;

fn sh(script: &str) -> Vec<OsString> {
    vec!["-c".into(), script.into()]
}

/// Runs `sh -c script` in a fresh temporary directory, returned with the result for what the
/// script left there.
fn run_sh(
    script: &str,
    timeout: Duration,
    max_stdout: usize,
) -> (tempfile::TempDir, Result<ToolOutput, ToolError>) {
    let dir = tempfile::tempdir().unwrap();
    let args = sh(script);
    let result = run_tool(&ToolRun {
        program: Path::new("/bin/sh"),
        args: &args,
        cwd: dir.path(),
        timeout,
        max_stdout,
        hide_cwd: true,
        cleanup: false,
    });
    (dir, result)
}

fn alive(pid: &str) -> bool {
    // A zombie is dead for our purposes: it runs nothing.
    std::fs::read_to_string(format!("/proc/{pid}/stat")).is_ok_and(|stat| {
        !stat
            .rsplit(')')
            .next()
            .unwrap_or("")
            .trim_start()
            .starts_with('Z')
    })
}

#[test]
fn a_tool_that_hangs_is_killed_at_the_timeout_with_what_it_started() {
    let _serial = crate::processes_lock();
    // The tool and a background child of its own both hang; both must be gone afterwards.
    let script = "sleep 600 & echo $! > child.pid; echo $$ > tool.pid; exec sleep 600";
    let (dir, result) = run_sh(script, Duration::from_millis(500), 1024);
    let error = result.unwrap_err();
    assert_eq!(
        error,
        ToolError::TimedOut {
            program: "/bin/sh".into(),
            timeout: Duration::from_millis(500)
        }
    );
    assert_eq!(error.to_string(), "/bin/sh timed out after 0.5 s");
    for file in ["tool.pid", "child.pid"] {
        let pid = std::fs::read_to_string(dir.path().join(file)).unwrap();
        // SIGKILL has been sent to the whole group when run_tool returns, but a busy machine
        // may take a moment to schedule a killed process's exit: wait for it, within a bound
        // far beyond any scheduling delay (a survivor would run for 600 s).
        let deadline = std::time::Instant::now() + Duration::from_secs(10);
        while alive(pid.trim()) && std::time::Instant::now() < deadline {
            std::thread::sleep(Duration::from_millis(20));
        }
        assert!(!alive(pid.trim()), "{file} {pid} still runs");
    }
}

#[test]
fn stdout_beyond_the_bound_is_cut_and_the_tool_still_finishes() {
    let _serial = crate::processes_lock();
    // 1 MiB through a 1,000-byte bound: the tool must not block on a full pipe.
    let script = "head -c 1048576 /dev/zero | tr '\\0' x; echo done >&2; exit 3";
    let output = run_sh(script, Duration::from_secs(60), 1000).1.unwrap();
    assert_eq!(output.code, 3);
    assert_eq!(output.stdout, vec![b'x'; 1000]);
    assert!(output.stdout_truncated);
    assert_eq!(output.stderr.head, "done\n");
}

#[test]
fn output_within_the_bound_is_whole_and_stderr_hides_the_directory() {
    let _serial = crate::processes_lock();
    let output = run_sh("printf 12345; pwd >&2", Duration::from_secs(60), 5)
        .1
        .unwrap();
    assert_eq!((output.code, output.stdout.as_slice()), (0, &b"12345"[..]));
    assert!(!output.stdout_truncated);
    assert_eq!(output.stderr.head, "{workspace}\n");
}

#[test]
fn a_missing_tool_is_a_launch_error() {
    let _serial = crate::processes_lock();
    let dir = tempfile::tempdir().unwrap();
    let error = run_tool(&ToolRun {
        program: &dir.path().join("no-such-tool"),
        args: &[],
        cwd: dir.path(),
        timeout: Duration::from_secs(5),
        max_stdout: 10,
        hide_cwd: false,
        cleanup: false,
    })
    .unwrap_err();
    let ToolError::Launch(message) = error else {
        panic!("{error:?}");
    };
    assert!(message.contains("no-such-tool"), "{message}");
}
