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
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
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
