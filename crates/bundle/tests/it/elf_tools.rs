//! The section tools against real LLVM binaries and real AMDGPU code objects, plus fake tools for
//! the error paths.

use std::os::unix::fs::PermissionsExt;
use std::path::Path;

use minrepro_bundle::{ElfTools, SectionPolicy, ToolError};

use crate::processes_lock;

fn fixture(name: &str) -> Vec<u8> {
    std::fs::read(
        Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("tests/fixtures")
            .join(name),
    )
    .unwrap()
}

fn script(dir: &Path, name: &str, body: &str) -> String {
    let path = dir.join(name);
    std::fs::write(&path, format!("#!/bin/sh\n{body}\n")).unwrap();
    std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755)).unwrap();
    path.to_string_lossy().into_owned()
}

/// The real LLVM tools' timeout in these tests: generous, because they test results, not speed
/// (LLVM 19's llvm-readobj once took 18.6 s here, loading its library from a cold page cache
/// after a fresh build had filled it, and a 30 s limit failed a CI run).
const REAL_TOOL_TIMEOUT: f64 = 300.0;

fn tools(scratch: &Path, readobj: &str, objcopy: &str) -> ElfTools {
    ElfTools::new(readobj, objcopy, REAL_TOOL_TIMEOUT, scratch.to_path_buf()).unwrap()
}

fn debug_policy() -> SectionPolicy {
    SectionPolicy::new(vec![".debug_*".into(), ".comment".into()], vec![]).unwrap()
}

#[test]
fn lists_and_removes_sections_with_real_llvm_14() {
    let _serial = processes_lock();
    let scratch = tempfile::tempdir().unwrap();
    let tools = tools(scratch.path(), "llvm-readobj", "llvm-objcopy");
    let bytes = fixture("alpha.co");
    let listing = tools.list_bytes(&bytes).unwrap();
    assert!(listing.is_amdgpu_elf());
    let removable = debug_policy().removable(&listing.sections);
    assert!(removable.len() >= 7, "{removable:?}");
    assert!(removable.contains(&".comment".to_owned()));
    // .note, .text, .dynsym … are never offered.
    assert!(!removable.iter().any(|n| n == ".text" || n == ".symtab"));
    let names = vec![".debug_info".to_owned(), ".comment".to_owned()];
    let (out, after) = tools.remove_sections(&bytes, &listing, &names).unwrap();
    assert!(out.len() < bytes.len());
    assert!(!after.sections.iter().any(|s| names.contains(&s.name)));
    assert_eq!(after.sections.len(), listing.sections.len() - 2);
    // Not AMDGPU ELF (or not ELF at all) is a clear error.
    let error = tools.list_bytes(b"not an object").unwrap_err();
    assert!(
        matches!(error, ToolError::Exited { status, .. } if status != 0),
        "{error}"
    );
    assert!(error.to_string().contains("exited with status"), "{error}");
}

#[test]
fn names_with_glob_characters_are_removed_exactly() {
    let _serial = processes_lock();
    let scratch = tempfile::tempdir().unwrap();
    let dir = tempfile::tempdir().unwrap();
    let input = dir.path().join("in.co");
    std::fs::write(&input, fixture("beta.co")).unwrap();
    std::fs::write(dir.path().join("payload"), b"payload").unwrap();
    let weird = dir.path().join("weird.co");
    let status = std::process::Command::new("llvm-objcopy")
        .current_dir(dir.path())
        .args([
            "--add-section=.x*y=payload",
            "--add-section=.xay=payload",
            "--add-section=.q[1]=payload",
            "--add-section=.q1=payload",
        ])
        .arg(&input)
        .arg(&weird)
        .status()
        .unwrap();
    assert!(status.success());
    let tools = tools(scratch.path(), "llvm-readobj", "llvm-objcopy");
    let bytes = std::fs::read(&weird).unwrap();
    let listing = tools.list_bytes(&bytes).unwrap();
    let names = vec![".x*y".to_owned(), ".q[1]".to_owned()];
    let (_, after) = tools.remove_sections(&bytes, &listing, &names).unwrap();
    let left: Vec<&str> = after.sections.iter().map(|s| s.name.as_str()).collect();
    assert!(left.contains(&".xay") && left.contains(&".q1"), "{left:?}");
    assert!(
        !left.contains(&".x*y") && !left.contains(&".q[1]"),
        "{left:?}"
    );
}

#[test]
fn llvm_19_layout_from_a_real_run_when_installed() {
    let _serial = processes_lock();
    let readobj = Path::new("/usr/lib/llvm-19/bin/llvm-readobj");
    let objcopy = Path::new("/usr/lib/llvm-19/bin/llvm-objcopy");
    if !readobj.exists() || !objcopy.exists() {
        println!("note: LLVM 19 tools not installed; skipping the real LLVM 19 run");
        return;
    }
    let scratch = tempfile::tempdir().unwrap();
    let new = tools(
        scratch.path(),
        readobj.to_str().unwrap(),
        objcopy.to_str().unwrap(),
    );
    let old = tools(scratch.path(), "llvm-readobj", "llvm-objcopy");
    let bytes = fixture("gamma.co");
    let listing = new.list_bytes(&bytes).unwrap();
    assert_eq!(listing, old.list_bytes(&bytes).unwrap());
    let names = debug_policy().removable(&listing.sections);
    let (_, after) = new.remove_sections(&bytes, &listing, &names).unwrap();
    assert_eq!(after.sections.len(), listing.sections.len() - names.len());
}

/// Whether an error is of the kind a test expects.
type IsExpected = fn(&ToolError) -> bool;

fn failure(tools: &ElfTools, expected: IsExpected, needle: &str) {
    let bytes = fixture("alpha.co");
    let listing = ElfTools::new(
        "llvm-readobj",
        "llvm-objcopy",
        REAL_TOOL_TIMEOUT,
        "/tmp".into(),
    )
    .unwrap()
    .list_bytes(&bytes)
    .unwrap();
    let error = tools
        .remove_sections(&bytes, &listing, &[".debug_info".to_owned()])
        .unwrap_err();
    assert!(expected(&error), "{error:?}");
    assert!(error.to_string().contains(needle), "{error}");
}

#[test]
fn fake_tools_error_paths() {
    let _serial = processes_lock();
    let scratch = tempfile::tempdir().unwrap();
    let bin = tempfile::tempdir().unwrap();
    let start =
        |readobj: &str, objcopy: &str| ElfTools::new(readobj, objcopy, 30.0, scratch.path().into());
    let missing = start("/nonexistent/llvm-readobj", "llvm-objcopy")
        .unwrap_err()
        .to_string();
    assert!(
        missing.contains("--readobj") && missing.contains("could not find executable"),
        "{missing}"
    );
    assert!(matches!(
        start("no-such-readobj-xyz", "llvm-objcopy"),
        Err(ToolError::NotFound {
            flag: "--readobj",
            ..
        })
    ));
    let missing = start("llvm-readobj", "no-such-objcopy-xyz")
        .unwrap_err()
        .to_string();
    assert!(missing.contains("--objcopy"), "{missing}");

    let bad_json = script(bin.path(), "bad-readobj", "echo '[{\"FileSummary\": '");
    let tools_bad = tools(scratch.path(), &bad_json, "llvm-objcopy");
    let error = tools_bad.list_bytes(&fixture("alpha.co")).unwrap_err();
    assert!(matches!(error, ToolError::Malformed { .. }), "{error:?}");
    assert!(
        error.to_string().contains("malformed section JSON"),
        "{error}"
    );

    let x86 = script(
        bin.path(),
        "x86-readobj",
        "echo '[{\"FileSummary\": {\"Format\": \"elf64-x86-64\", \"Arch\": \"x86_64\"}, \"Sections\": []}]'",
    );
    let error = tools(scratch.path(), &x86, "llvm-objcopy")
        .list_bytes(&fixture("alpha.co"))
        .unwrap_err();
    assert_eq!(
        error,
        ToolError::NotAmdgpu {
            format: "elf64-x86-64".into(),
            arch: "x86_64".into()
        }
    );
    assert!(
        error.to_string().contains("requires an AMDGPU ELF"),
        "{error}"
    );

    // Each broken objcopy: its script, the error it must give, and words of the message.
    let broken: [(&str, &str, IsExpected, &str); 4] = [
        (
            "failing-objcopy",
            "echo boom >&2; exit 3",
            |e| matches!(e, ToolError::Exited { status: 3, stderr, .. } if stderr == "boom"),
            "exited with status 3",
        ),
        (
            "copy-objcopy",
            "for a; do :; done; cp \"$(eval echo \\${$(($#-1))})\" \"$a\"",
            |e| matches!(e, ToolError::Unverified(_)),
            "requested sections remain",
        ),
        (
            "greedy-objcopy",
            "exec llvm-objcopy '--remove-section=.debug_*' \"$@\"",
            |e| matches!(e, ToolError::Unverified(_)),
            "unrequested sections disappeared",
        ),
        (
            "silent-objcopy",
            "exit 0",
            |e| matches!(e, ToolError::Io { .. }),
            "wrote no output",
        ),
    ];
    for (name, body, expected, needle) in broken {
        let objcopy = script(bin.path(), name, body);
        failure(
            &tools(scratch.path(), "llvm-readobj", &objcopy),
            expected,
            needle,
        );
    }
}

#[test]
fn tool_timeout_is_enforced() {
    let _serial = processes_lock();
    let scratch = tempfile::tempdir().unwrap();
    let bin = tempfile::tempdir().unwrap();
    let slow = script(bin.path(), "slow-readobj", "sleep 30");
    let tools = ElfTools::new(&slow, "llvm-objcopy", 0.2, scratch.path().into()).unwrap();
    let error = tools.list_bytes(&fixture("alpha.co")).unwrap_err();
    assert!(error.to_string().contains("timed out"), "{error}");
}
