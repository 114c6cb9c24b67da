//! What the front ends share through `minrepro-driver`, end to end through the real binary: the
//! predicate flags are checked once, with the same words in `bundle` and `python`, and the live
//! progress line on a terminal shows the original's size, the elapsed time and the timed-out
//! candidates.

use std::ffi::OsStr;
use std::path::{Path, PathBuf};
use std::process::Command;

use crate::support::{binary, binary_command, stderr, text};

fn minrepro() -> Command {
    binary_command()
}

/// The first line of clap's complaint, e.g. `error: invalid value '0' for '--predicate-runs <N>':
/// must be ...`.
fn first_line(text: &str) -> &str {
    text.lines().next().unwrap_or_default()
}

/// Three small code objects (any bytes will do without section removal).
fn objects(dir: &Path) -> Vec<PathBuf> {
    ["ALPHA", "BETA", "GAMMA"]
        .iter()
        .map(|name| {
            let path = dir.join(format!("{}.co", name.to_lowercase()));
            std::fs::write(&path, format!("{name}-OBJECT\n").repeat(20)).unwrap();
            path
        })
        .collect()
}

fn executable(path: &Path, body: &str) -> PathBuf {
    use std::os::unix::fs::PermissionsExt;
    std::fs::write(path, body).unwrap();
    std::fs::set_permissions(path, std::fs::Permissions::from_mode(0o755)).unwrap();
    path.to_path_buf()
}

#[test]
fn predicate_flags_are_refused_with_the_same_words_in_both_front_ends() {
    let dir = tempfile::tempdir().unwrap();
    let source = dir.path().join("t.py");
    std::fs::write(&source, "raise ValueError('boom')\n").unwrap();
    let object = objects(dir.path()).remove(0);
    let out = dir.path().join("out");
    for (flag, value) in [
        ("--predicate-runs", "0"),
        ("--predicate-runs", "-1"),
        ("--cache-tag", ""),
        ("--timeout", "nan"),
        ("--timeout", "1e30"),
    ] {
        let python = minrepro()
            .arg("python")
            .arg(&source)
            .args(["--err-msg", "boom", "-o"])
            .arg(&out)
            .arg(format!("{flag}={value}"))
            .output()
            .unwrap();
        let bundle = minrepro()
            .args(["bundle", "--predicate", "true", "--code-object"])
            .arg(&object)
            .arg("-o")
            .arg(&out)
            .arg(format!("{flag}={value}"))
            .output()
            .unwrap();
        for output in [&python, &bundle] {
            assert_eq!(
                output.status.code(),
                Some(2),
                "{flag}={value}: {}",
                stderr(output)
            );
        }
        let line = first_line(&stderr(&python)).to_owned();
        assert!(
            line.contains(&format!("invalid value '{value}' for '{flag}")),
            "{line}"
        );
        assert_eq!(line, first_line(&stderr(&bundle)), "{flag}={value}");
        assert!(!out.exists());
    }
    // bundle's own time limit is read by the same parser.
    for value in ["nan", "inf", "0", "-1", "1e30"] {
        let output = minrepro()
            .args(["bundle", "--predicate", "true", "--code-object"])
            .arg(&object)
            .arg("-o")
            .arg(&out)
            .arg("--tool-timeout")
            .arg(value)
            .output()
            .unwrap();
        let text = stderr(&output);
        assert_eq!(output.status.code(), Some(2), "{value}: {text}");
        assert!(
            text.contains(&format!("invalid value '{value}' for '--tool-timeout"))
                && text.contains("must be a positive number of seconds"),
            "{value}: {text}"
        );
    }
}

/// The stderr of `minrepro ARGS...`, which must refuse the command line (exit 2).
fn usage_error(args: &[&OsStr]) -> String {
    let output = minrepro().args(args).output().unwrap();
    let text = stderr(&output);
    assert_eq!(output.status.code(), Some(2), "{args:?}: {text}");
    text
}

#[test]
fn predicate_arguments_without_a_predicate_are_refused_alike_in_every_front_end() {
    let dir = tempfile::tempdir().unwrap();
    let source = dir.path().join("t.py");
    std::fs::write(&source, "raise ValueError('boom')\n").unwrap();
    let test = executable(&dir.path().join("test.sh"), "#!/bin/sh\nexit 0\n");
    let out = dir.path().join("out");
    let os = |s: &'static str| OsStr::new(s);
    let (source, test, out_arg) = (source.as_os_str(), test.as_os_str(), out.as_os_str());
    let python = [os("python"), source, os("-o"), out_arg];
    let stray = [os("--predicate-arg"), os("{file}")];
    for refused in [
        [&python[..], &[os("--err-msg"), os("boom")], &stray].concat(),
        [
            &[os("file"), os("-o"), out_arg],
            &stray[..],
            &[test, source],
        ]
        .concat(),
    ] {
        let text = usage_error(&refused);
        assert!(
            text.contains("required arguments were not provided")
                && text.contains("--predicate <EXE>"),
            "{text}"
        );
    }
    // `minrepro python`: --arg belongs to `PYTHON {file}`, not to a --predicate.
    let text = usage_error(
        &[
            &python[..],
            &[os("--predicate"), os("true"), os("--arg"), os("x")],
        ]
        .concat(),
    );
    assert!(
        text.contains("cannot be used with") && text.contains("'--arg <ARG>'"),
        "{text}"
    );
    // An empty or missing --err-msg (without --predicate) is refused before anything runs.
    for err_msg in [&[os("--err-msg"), os("")][..], &[]] {
        let text = usage_error(&[&python[..], err_msg].concat());
        assert!(text.contains("--err-msg <MSG>"), "{text}");
    }
    assert!(!out.exists());
}

/// The fields of the live line after the prefix and pass: `SIZE UNIT (was ORIGINAL)`, the
/// elapsed time, then `NAME COUNT` counters.
struct LiveLine {
    original: u64,
    elapsed: String,
    timeouts: usize,
}

fn parse_live_line(line: &str) -> Option<LiveLine> {
    let fields: Vec<&str> = line.split(" | ").collect();
    let original = fields.first()?.split("(was ").nth(1)?.strip_suffix(')')?;
    let counter = |name: &str| {
        fields
            .iter()
            .find_map(|f| f.strip_prefix(name)?.trim().parse::<usize>().ok())
    };
    Some(LiveLine {
        original: original.parse().ok()?,
        elapsed: fields.get(1)?.to_string(),
        timeouts: counter("timeouts ")?,
    })
}

#[test]
fn the_live_line_shows_the_original_size_elapsed_time_and_timeouts() {
    if Command::new("script").arg("--version").output().is_err() {
        eprintln!("script(1) is not installed; skipping the terminal test");
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let objects = objects(dir.path());
    // Interesting while gamma is there; a candidate without alpha hangs until --timeout.
    let predicate = executable(
        &dir.path().join("predicate.sh"),
        "#!/bin/sh\ngrep -rqF ALPHA-OBJECT \"$1\" || exec sleep 30\ngrep -rqF GAMMA-OBJECT \"$1\"\n",
    );
    let out = dir.path().join("out");
    let mut words = vec![
        text(binary()).to_owned(),
        "bundle".into(),
        "--predicate".into(),
        predicate.to_string_lossy().into_owned(),
        "--predicate-arg={workspace}".into(),
        "--timeout=1".into(),
        "-o".into(),
        out.to_string_lossy().into_owned(),
    ];
    for object in &objects {
        words.push("--code-object".into());
        words.push(object.to_string_lossy().into_owned());
    }
    let command_line: Vec<String> = words
        .iter()
        .map(|w| format!("'{}'", w.replace('\'', "'\\''")))
        .collect();
    // script(1) gives minrepro a pseudo-terminal and copies what it prints to our stdout.
    let output = Command::new("script")
        .args(["-qec", &command_line.join(" "), "/dev/null"])
        .env("TMPDIR", dir.path())
        .output()
        .unwrap();
    let screen = String::from_utf8_lossy(&output.stdout);
    assert!(output.status.success(), "{screen}");
    assert!(out.join("bundle.json").exists(), "{screen}");
    let live: Vec<LiveLine> = screen
        .split(['\r', '\n'])
        .filter(|piece| piece.contains("| tried "))
        .map(|piece| parse_live_line(piece).unwrap_or_else(|| panic!("{piece:?}")))
        .collect();
    assert!(!live.is_empty(), "no live line: {screen:?}");
    // The original's size is the one the final statistics line starts from.
    let before: u64 = screen
        .lines()
        .find(|line| line.contains("wall time"))
        .and_then(|line| line.split(", size ").nth(1))
        .and_then(|rest| rest.split(" -> ").next())
        .and_then(|n| n.parse().ok())
        .unwrap_or_else(|| panic!("no statistics line: {screen:?}"));
    assert!(
        live.iter().all(|line| line.original == before),
        "{screen:?}"
    );
    assert!(
        live.iter().all(|line| line.elapsed.ends_with(" s")),
        "{screen:?}"
    );
    // The candidates without alpha timed out, and the line counted them as they did.
    let timeouts = live.iter().map(|line| line.timeouts).max().unwrap();
    assert!(timeouts >= 1, "{screen:?}");
    assert!(
        live.windows(2).all(|w| w[0].timeouts <= w[1].timeouts),
        "{screen:?}"
    );
}
