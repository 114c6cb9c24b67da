use super::*;
use crate::glob::fnmatch as glob_match;

const LLVM14: &str = include_str!("../../tests/fixtures/readobj-llvm14-alpha.json");
const LLVM19: &str = include_str!("../../tests/fixtures/readobj-llvm19-alpha.json");

fn section(name: &str, flags: u64) -> SectionInfo {
    SectionInfo {
        name: name.into(),
        flags,
        alloc_named: false,
    }
}

/// A listing in the shape of the original's test tool: names under `Name.Name`, flags by name
/// only (no raw value).
fn names_only(sections: &[(&str, bool)], arch: &str) -> String {
    let items: Vec<serde_json::Value> = sections
        .iter()
        .map(|(name, allocated)| {
            let flags: Vec<serde_json::Value> = if *allocated {
                vec![serde_json::json!({"Name": "SHF_ALLOC"})]
            } else {
                vec![]
            };
            serde_json::json!({"Section": {"Name": {"Name": name}, "Flags": {"Flags": flags}}})
        })
        .collect();
    serde_json::json!([{"FileSummary": {"Format": "elf64-amdgpu", "Arch": arch}, "Sections": items}])
        .to_string()
}

#[test]
fn flag_names_without_raw_values_are_enough() {
    let text = names_only(
        &[
            ("", false),
            (".text", true),
            (".debug_info", false),
            (".allocated_debug", true),
        ],
        "amdgcn",
    );
    let listing = parse_readobj_json(text.as_bytes()).unwrap();
    let allocated: Vec<bool> = listing.sections.iter().map(|s| s.is_allocated()).collect();
    assert_eq!(allocated, [false, true, false, true]);
    let policy = SectionPolicy::new(vec!["*".into()], vec![]).unwrap();
    assert_eq!(policy.removable(&listing.sections), [".debug_info"]);
    let x86 = parse_readobj_json(names_only(&[(".debug_info", false)], "x86_64").as_bytes());
    assert!(!x86.unwrap().is_amdgpu_elf());
    let bad = r#"[{"FileSummary": {"Format": "e", "Arch": "a"}, "Sections": [{"Section": {"Name": {"Name": "x"}, "Flags": {"Flags": [{"Value": 2}]}}}]}]"#;
    assert!(parse_readobj_json(bad.as_bytes())
        .unwrap_err()
        .contains("malformed flag names"));
}

#[test]
fn parses_both_llvm_layouts_identically() {
    let old = parse_readobj_json(LLVM14.as_bytes()).unwrap();
    let new = parse_readobj_json(LLVM19.as_bytes()).unwrap();
    assert_eq!(old, new);
    assert!(old.is_amdgpu_elf());
    assert_eq!(old.format, "elf64-amdgpu");
    let text = old.sections.iter().find(|s| s.name == ".text").unwrap();
    assert_eq!(text.flags, 6);
    assert!(text.is_allocated());
    let debug = old
        .sections
        .iter()
        .find(|s| s.name == ".debug_info")
        .unwrap();
    assert!(!debug.is_allocated());
    assert_eq!(old.sections[0].name, "");
}

#[test]
fn malformed_json_is_a_clear_error() {
    for (text, needle) in [
        ("not json", "malformed section JSON"),
        ("[", "malformed section JSON"),
        ("{}", "not a list"),
        ("[]", "expected one file"),
        ("[{\"FileSummary\": {\"Format\": \"elf64-amdgpu\"}}]", "no Arch"),
        (
            "[{\"FileSummary\": {\"Format\": \"elf64-amdgpu\", \"Arch\": \"amdgcn\"}}]",
            "no Sections",
        ),
        (
            "[{\"FileSummary\": {\"Format\": \"e\", \"Arch\": \"a\"}, \"Sections\": [{\"Section\": {\"Flags\": {\"Value\": 0}}}]}]",
            "no name",
        ),
        (
            "[{\"FileSummary\": {\"Format\": \"e\", \"Arch\": \"a\"}, \"Sections\": [{\"Section\": {\"Name\": {\"Name\": \"x\"}}}]}]",
            "no Flags",
        ),
    ] {
        let error = parse_readobj_json(text.as_bytes()).unwrap_err();
        assert!(error.contains(needle), "{text}: {error}");
    }
}

#[test]
fn amdgpu_check() {
    let listing = |format: &str, arch: &str| ElfListing {
        format: format.into(),
        arch: arch.into(),
        sections: vec![],
    };
    assert!(listing("elf64-amdgpu", "amdgcn").is_amdgpu_elf());
    assert!(listing("elf64-amdgpu", "amdgpu").is_amdgpu_elf());
    assert!(!listing("elf64-x86-64", "x86_64").is_amdgpu_elf());
    assert!(!listing("COFF", "amdgcn").is_amdgpu_elf());
}

#[test]
fn globs() {
    assert!(glob_match(".debug_*", ".debug_info"));
    assert!(glob_match(".debug_*", ".debug_"));
    assert!(!glob_match(".debug_*", ".comment"));
    assert!(glob_match(".co?ment", ".comment"));
    assert!(glob_match(".debug_[a-l]*", ".debug_line"));
    assert!(!glob_match(".debug_[!a-l]*", ".debug_line"));
    // No escapes: a backslash is a literal, as in the original's fnmatch.
    assert!(!glob_match("a\\*b", "a*b"));
    assert!(glob_match("a\\*b", "a\\xb"));
    assert!(glob_match("*", ""));
    assert!(glob_match("[", "["));
}

#[test]
fn objcopy_escaping() {
    assert_eq!(escape_for_objcopy(".debug_info"), ".debug_info");
    assert_eq!(
        escape_for_objcopy(".a*b?c[d]e\\f"),
        ".a\\*b\\?c\\[d\\]e\\\\f"
    );
    assert_eq!(escape_for_objcopy("!x!"), "\\!x!");
}

#[test]
fn policy_protects_allocated_default_and_named_sections() {
    let policy = SectionPolicy::new(vec!["*".into()], vec![".keep*".into()]).unwrap();
    let sections = vec![
        section("", 0),
        section(".text", 6),
        section(".note.foo", 0),
        section(".AMDGPU.csdata", 0),
        section(".rela.debug", 0),
        section(".symtab", 0),
        section(".debug_info", 0),
        section(".comment", 48),
        section(".keep_me", 0),
        section(".dup", 0),
        section(".dup", SHF_ALLOC),
        section(".debug_info", 0),
        section(".mine", 2),
    ];
    assert_eq!(policy.removable(&sections), [".debug_info", ".comment"]);
    let narrow = SectionPolicy::new(vec![".debug_*".into()], vec![]).unwrap();
    assert_eq!(narrow.removable(&sections), [".debug_info"]);
    assert!(!SectionPolicy::default().enabled());
    for name in [
        "", ".text", ".note", ".rel", ".rela", ".group", ".bss", ".data", ".dynamic",
    ] {
        assert!(is_default_protected(name), "{name}");
    }
    assert!(!is_default_protected(".notes"));
    assert!(!is_default_protected(".debug_str"));
}
