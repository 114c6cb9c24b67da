//! Progress output: a live, redrawn line on a terminal, plain concise lines otherwise, nothing
//! with `-q`; statistics at the end.

use crate::support::bundle::*;
use crate::support::*;

fn bundle_args(area: &Area, out: &str) -> Vec<String> {
    let bundle = three_object_bundle(&area.input());
    let predicate = gamma_predicate(&area.input());
    vec![
        "bundle".into(),
        "--bundle".into(),
        bundle.to_string_lossy().into_owned(),
        "--output".into(),
        area.out(out).to_string_lossy().into_owned(),
        "--predicate".into(),
        predicate.to_string_lossy().into_owned(),
        "--predicate-arg={bundle}".into(),
    ]
}

#[test]
fn plain_lines_when_stderr_is_not_a_terminal_and_silence_with_q() {
    let area = Area::new();
    let args = bundle_args(&area, "plain");
    let output = binary_command().args(&args).output().unwrap();
    assert!(output.status.success());
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        !stderr.contains('\r'),
        "no redraws off a terminal: {stderr:?}"
    );
    assert!(
        stderr.lines().any(|l| l.contains("[objects] accepted:")),
        "{stderr}"
    );
    let lines: Vec<&str> = stderr.lines().collect();
    let per_pass = lines.last().unwrap();
    assert!(
        per_pass.contains("rounds ") && per_pass.contains("objects "),
        "{per_pass}"
    );
    let stats = lines[lines.len() - 2];
    assert!(
        stats.contains("predicate runs")
            && stats.contains("cache hits")
            && stats.contains("wall time"),
        "{stats}"
    );

    let mut quiet = bundle_args(&area, "quiet");
    quiet.push("-q".into());
    let output = binary_command().args(&quiet).output().unwrap();
    assert!(output.status.success());
    assert_eq!(String::from_utf8_lossy(&output.stderr), "");
}

#[test]
fn live_line_on_a_terminal() {
    if std::process::Command::new("script")
        .arg("--version")
        .output()
        .is_err()
    {
        eprintln!("script(1) is not installed; skipping the terminal test");
        return;
    }
    let area = Area::new();
    let args = bundle_args(&area, "tty");
    let mut command_line = shell_quote(text(binary()));
    for arg in &args {
        command_line.push(' ');
        command_line.push_str(&shell_quote(arg));
    }
    // script(1) gives the child a pseudo-terminal and copies what it prints to our stdout.
    let output = std::process::Command::new("script")
        .args(["-qec", &command_line, "/dev/null"])
        .output()
        .unwrap();
    assert_success(&output);
    let screen = String::from_utf8_lossy(&output.stdout);
    assert!(screen.contains("\r\x1b[K"), "no live redraw: {screen:?}");
    assert!(
        screen.contains("| tried ") && screen.contains("| cache hits "),
        "{screen:?}"
    );
    assert!(area.out("tty").join("bundle.json").exists());
}

fn shell_quote(text: &str) -> String {
    format!("'{}'", text.replace('\'', "'\\''"))
}

/// What `minrepro ARGS` (run in `dir`) draws on a pseudo-terminal of `columns`; when `resize`
/// is given, the terminal is resized to that many columns (and `SIGWINCH` sent) once the live
/// line has been drawn a few times, and the offset in the screen where that happened is
/// returned too.
fn on_a_terminal(
    dir: &std::path::Path,
    args: &[&str],
    columns: u16,
    resize: Option<u16>,
) -> (String, usize) {
    use std::io::Read;
    use std::os::fd::{FromRawFd, OwnedFd};
    use std::sync::{Arc, Mutex};
    let size = |columns| libc::winsize {
        ws_row: 24,
        ws_col: columns,
        ws_xpixel: 0,
        ws_ypixel: 0,
    };
    let (mut master, mut slave) = (0, 0);
    // SAFETY: openpty writes two new descriptors; the winsize is read only.
    let status = unsafe {
        libc::openpty(
            &mut master,
            &mut slave,
            std::ptr::null_mut(),
            std::ptr::null(),
            &size(columns),
        )
    };
    assert_eq!(status, 0, "openpty failed");
    // SAFETY: both descriptors are new and owned here alone.
    let (master, slave) = unsafe { (OwnedFd::from_raw_fd(master), OwnedFd::from_raw_fd(slave)) };
    let mut child = binary_command()
        .args(args)
        .current_dir(dir)
        .env("TMPDIR", dir)
        .stdin(std::process::Stdio::null())
        .stdout(slave.try_clone().unwrap())
        .stderr(slave)
        .spawn()
        .unwrap();
    let screen = Arc::new(Mutex::new(Vec::new()));
    let reader = {
        let screen = Arc::clone(&screen);
        let mut master = std::fs::File::from(master.try_clone().unwrap());
        std::thread::spawn(move || {
            let mut buffer = [0u8; 4096];
            // EIO once every writer closed the terminal.
            while let Ok(n @ 1..) = master.read(&mut buffer) {
                screen.lock().unwrap().extend_from_slice(&buffer[..n]);
            }
        })
    };
    let mut resized_at = 0;
    if let Some(columns) = resize {
        let started = std::time::Instant::now();
        while redraws(&screen.lock().unwrap()) < 5 && started.elapsed().as_secs() < 60 {
            std::thread::sleep(std::time::Duration::from_millis(20));
        }
        resized_at = screen.lock().unwrap().len();
        // SAFETY: TIOCSWINSZ reads one winsize; the child is alive (it has not been waited for).
        unsafe {
            libc::ioctl(
                std::os::fd::AsRawFd::as_raw_fd(&master),
                libc::TIOCSWINSZ,
                &size(columns),
            );
            libc::kill(child.id() as libc::pid_t, libc::SIGWINCH);
        }
    }
    let status = child.wait().unwrap();
    drop(master);
    reader.join().unwrap();
    let screen = String::from_utf8_lossy(&screen.lock().unwrap()).into_owned();
    assert!(status.success(), "{screen}");
    (screen, resized_at)
}

fn redraws(screen: &[u8]) -> usize {
    screen.windows(4).filter(|w| w == b"\r\x1b[K").count()
}

/// The live lines drawn in `screen`: each is erased by the next `\r\x1b[K` before anything
/// else is printed, while a message line ends with a line break.
fn live_lines(screen: &str) -> Vec<&str> {
    screen
        .split("\r\x1b[K")
        .skip(1)
        .filter(|piece| !piece.is_empty() && !piece.contains(['\r', '\n']))
        .collect()
}

/// A reduction that redraws its live line for a few seconds: 40 lines, three needed, and a
/// test that waits 0.1 s.
fn slow_file_case(dir: &std::path::Path) {
    let text: String = (0..40)
        .map(|i| format!("line {i} of the input\n"))
        .collect();
    std::fs::write(dir.join("input.txt"), text).unwrap();
    script(
        dir,
        "test.sh",
        "#!/bin/sh\nsleep 0.1\ngrep -q 'line 5 of' input.txt && grep -q 'line 17 of' input.txt && grep -q 'line 33 of' input.txt\n",
    );
}

const SLOW_ARGS: [&str; 6] = ["file", "./test.sh", "input.txt", "-o", "out.txt", "--force"];

#[test]
fn the_live_line_fits_an_80_column_terminal() {
    let dir = tempfile::tempdir().unwrap();
    slow_file_case(dir.path());
    let (screen, _) = on_a_terminal(dir.path(), &SLOW_ARGS, 80, None);
    let lines = live_lines(&screen);
    assert!(
        lines.iter().any(|l| l.starts_with("minrepro file: [")),
        "no live line: {screen:?}"
    );
    for line in &lines {
        assert!(
            line.chars().count() <= 79,
            "{} columns: {line:?}",
            line.chars().count()
        );
    }
    // Cut, not empty: the size and the time are always there.
    assert!(
        lines.iter().any(|l| l.contains(" tokens (was ")),
        "{lines:?}"
    );
}

#[test]
fn a_200_column_terminal_shows_every_counter_and_a_resize_cuts_the_line() {
    let dir = tempfile::tempdir().unwrap();
    slow_file_case(dir.path());
    let (screen, resized_at) = on_a_terminal(dir.path(), &SLOW_ARGS, 200, Some(50));
    let (before, after) = screen.split_at(resized_at.min(screen.len()));
    let wide = live_lines(before);
    assert!(
        wide.iter()
            .any(|l| l.contains(" | cache hits ") && l.contains(" | runs ")),
        "{wide:?}"
    );
    assert!(wide.iter().all(|l| l.chars().count() <= 199), "{wide:?}");
    // The first line after the resize may have been drawn before the signal arrived.
    let narrow = live_lines(after);
    assert!(narrow.len() > 1, "no redraw after the resize: {after:?}");
    for line in &narrow[1..] {
        assert!(
            line.chars().count() <= 49,
            "{} columns: {line:?}",
            line.chars().count()
        );
    }
}
