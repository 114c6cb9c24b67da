//! `scripts/test`, the README's test command: on a machine without the LLVM tools it must stop
//! at once with the exact install line (the non-root path, simulated with MINREPRO_TEST_AS_USER
//! and a PATH from which the LLVM tools are hidden), and on this machine its checks must pass.

use std::os::unix::fs::symlink;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn script() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../scripts/test")
}

/// Whether `name` is one of the tools the test hides: the LLVM tools, and cargo, so that a
/// script that failed to stop could not go on to build and run the suite.
fn hidden(name: &str) -> bool {
    name.starts_with("llvm-")
        || name.starts_with("clang")
        || name.starts_with("ld.lld")
        || name.starts_with("lld")
        || name == "cargo"
}

/// A directory of symlinks to every command on PATH but the hidden ones (the first of each name).
fn path_without_llvm(dir: &Path) {
    let path = std::env::var_os("PATH").expect("PATH is set");
    for entry in std::env::split_paths(&path) {
        let Ok(listing) = std::fs::read_dir(&entry) else {
            continue;
        };
        for file in listing.flatten() {
            let name = file.file_name();
            let link = dir.join(&name);
            if hidden(&name.to_string_lossy()) || link.symlink_metadata().is_ok() {
                continue;
            }
            symlink(file.path(), link).unwrap();
        }
    }
    assert!(dir.join("bash").exists() && dir.join("python3").exists());
}

fn run_as_user(path: &Path, args: &[&str]) -> Output {
    Command::new(script())
        .args(args)
        .env("PATH", path)
        .env("MINREPRO_TEST_AS_USER", "1")
        .output()
        .expect("scripts/test starts")
}

#[test]
fn without_llvm_tools_it_stops_at_once_with_the_install_line() {
    let dir = tempfile::tempdir().unwrap();
    path_without_llvm(dir.path());
    let output = run_as_user(dir.path(), &[]);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(1), "{stderr}");
    assert!(output.stdout.is_empty(), "it ran something");
    // llvm-19 is looked for at its own path, which PATH does not hide.
    let llvm19 = if Path::new("/usr/lib/llvm-19/bin/llvm-readobj").exists() {
        ""
    } else {
        " llvm-19"
    };
    let line = format!("  apt-get update && apt-get install -y llvm clang lld{llvm19}\n");
    assert!(
        stderr.lines().any(|l| format!("{l}\n") == line),
        "no line {line:?} in:\n{stderr}"
    );
    assert!(stderr.contains("Install them as root"), "{stderr}");
    assert!(!stderr.contains("cargo"), "it went on: {stderr}");
}

#[test]
fn its_checks_pass_on_this_machine() {
    let output = Command::new(script())
        .args(["--no-install", "--install-only"])
        .output()
        .expect("scripts/test starts");
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(output.status.success(), "{stderr}");
    assert!(!stderr.contains("apt-get update &&"), "{stderr}");
}
