//! Section listings and policy: parsing `llvm-readobj --elf-output-style=JSON --sections` in both
//! the LLVM 14 and the LLVM 19 layout, the AMDGPU check, which sections may be removed, glob
//! matching, and escaping names for `llvm-objcopy` (which treats names as globs).

use serde_json::Value;

/// `SHF_ALLOC`.
pub const SHF_ALLOC: u64 = 0x2;

/// The default protected names (exact) and prefixes.
const PROTECTED_EXACT: [&str; 15] = [
    "",
    ".text",
    ".note",
    ".symtab",
    ".dynsym",
    ".strtab",
    ".dynstr",
    ".shstrtab",
    ".rel",
    ".rela",
    ".group",
    ".rodata",
    ".data",
    ".bss",
    ".dynamic",
];
const PROTECTED_PREFIXES: [&str; 4] = [".note.", ".rel.", ".rela.", ".AMDGPU."];

/// One section from a listing.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SectionInfo {
    /// Section name.
    pub name: String,
    /// Raw `sh_flags`.
    pub flags: u64,
}

impl SectionInfo {
    /// Whether the section occupies memory at run time.
    pub fn is_allocated(&self) -> bool {
        self.flags & SHF_ALLOC != 0
    }
}

/// A parsed `llvm-readobj` listing of one file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ElfListing {
    /// `FileSummary.Format` (e.g. `elf64-amdgpu`).
    pub format: String,
    /// `FileSummary.Arch` (e.g. `amdgcn`).
    pub arch: String,
    /// Sections in index order.
    pub sections: Vec<SectionInfo>,
}

impl ElfListing {
    /// Whether this is AMDGPU ELF (format `elf*`, arch `amdgcn` or `amdgpu`).
    pub fn is_amdgpu_elf(&self) -> bool {
        self.format.to_ascii_lowercase().starts_with("elf")
            && matches!(self.arch.to_ascii_lowercase().as_str(), "amdgcn" | "amdgpu")
    }
}

/// Parses readobj JSON. LLVM 14: `[{"<file>": {"FileSummary", "Sections"}}]` with names under
/// `Name.Value` and flags under `Flags.RawFlags`; LLVM 19: `[{"FileSummary", "Sections"}]` with
/// names under `Name.Name` and flags under `Flags.Value`.
pub fn parse_readobj_json(text: &[u8]) -> Result<ElfListing, String> {
    let value: Value =
        serde_json::from_slice(text).map_err(|e| format!("malformed readobj JSON: {e}"))?;
    let files = value
        .as_array()
        .ok_or("malformed readobj JSON: the top level is not a list")?;
    if files.len() != 1 {
        return Err(format!(
            "malformed readobj JSON: expected one file, found {}",
            files.len()
        ));
    }
    let mut file = files[0]
        .as_object()
        .ok_or("malformed readobj JSON: a file entry is not an object")?;
    if !file.contains_key("FileSummary") && file.len() == 1 {
        // LLVM 14 wraps the file's data in an object keyed by the path.
        file = file
            .values()
            .next()
            .and_then(Value::as_object)
            .ok_or("malformed readobj JSON: the file entry is not an object")?;
    }
    let summary = file
        .get("FileSummary")
        .and_then(Value::as_object)
        .ok_or("malformed readobj JSON: no FileSummary")?;
    let text_of = |key: &str| {
        summary
            .get(key)
            .and_then(Value::as_str)
            .map(str::to_owned)
            .ok_or_else(|| format!("malformed readobj JSON: FileSummary has no {key}"))
    };
    let (format, arch) = (text_of("Format")?, text_of("Arch")?);
    let list = file
        .get("Sections")
        .and_then(Value::as_array)
        .ok_or("malformed readobj JSON: no Sections list")?;
    let mut sections = Vec::with_capacity(list.len());
    for (index, item) in list.iter().enumerate() {
        let section = item
            .get("Section")
            .unwrap_or(item)
            .as_object()
            .ok_or_else(|| format!("malformed readobj JSON: section {index} is not an object"))?;
        let name_field = section.get("Name");
        let name = name_field
            .and_then(|n| n.get("Name").and_then(Value::as_str))
            .or_else(|| name_field.and_then(|n| n.get("Value").and_then(Value::as_str)))
            .or_else(|| name_field.and_then(Value::as_str))
            .ok_or_else(|| format!("malformed readobj JSON: section {index} has no name"))?;
        let flags_field = section
            .get("Flags")
            .ok_or_else(|| format!("malformed readobj JSON: section {index} has no Flags"))?;
        let flags = flags_field
            .get("Value")
            .and_then(Value::as_u64)
            .or_else(|| flags_field.get("RawFlags").and_then(Value::as_u64))
            .or_else(|| flags_field.as_u64())
            .ok_or_else(|| format!("malformed readobj JSON: section {index} has no raw flags"))?;
        sections.push(SectionInfo {
            name: name.to_owned(),
            flags,
        });
    }
    Ok(ElfListing {
        format,
        arch,
        sections,
    })
}

/// Whether `name` belongs to the default protected set.
pub fn is_default_protected(name: &str) -> bool {
    PROTECTED_EXACT.contains(&name) || PROTECTED_PREFIXES.iter().any(|p| name.starts_with(p))
}

/// Shell-style glob match: `*` any run, `?` one character, `[...]`/`[!...]` classes with ranges,
/// `\x` a literal `x`.
pub fn glob_match(pattern: &str, name: &str) -> bool {
    let p: Vec<char> = pattern.chars().collect();
    let n: Vec<char> = name.chars().collect();
    glob_at(&p, &n)
}

fn glob_at(p: &[char], n: &[char]) -> bool {
    match p.first() {
        None => n.is_empty(),
        Some('*') => (0..=n.len()).any(|skip| glob_at(&p[1..], &n[skip..])),
        Some('?') => !n.is_empty() && glob_at(&p[1..], &n[1..]),
        Some('[') => match class_end(p) {
            Some(end) => {
                !n.is_empty() && class_matches(&p[1..end], n[0]) && glob_at(&p[end + 1..], &n[1..])
            }
            None => n.first() == Some(&'[') && glob_at(&p[1..], &n[1..]),
        },
        Some('\\') if p.len() > 1 => n.first() == Some(&p[1]) && glob_at(&p[2..], &n[1..]),
        Some(c) => n.first() == Some(c) && glob_at(&p[1..], &n[1..]),
    }
}

fn class_end(p: &[char]) -> Option<usize> {
    let mut i = 1;
    if matches!(p.get(i), Some('!') | Some('^')) {
        i += 1;
    }
    if p.get(i) == Some(&']') {
        i += 1;
    }
    while i < p.len() {
        if p[i] == ']' {
            return Some(i);
        }
        i += 1;
    }
    None
}

fn class_matches(class: &[char], c: char) -> bool {
    let (negate, body) = match class.first() {
        Some('!') | Some('^') => (true, &class[1..]),
        _ => (false, class),
    };
    let mut i = 0;
    let mut found = false;
    while i < body.len() {
        if i + 2 < body.len() && body[i + 1] == '-' {
            found |= body[i] <= c && c <= body[i + 2];
            i += 3;
        } else {
            found |= body[i] == c;
            i += 1;
        }
    }
    found != negate
}

/// Escapes a section name so `llvm-objcopy --remove-section` matches exactly that name.
pub fn escape_for_objcopy(name: &str) -> String {
    let mut out = String::with_capacity(name.len());
    for (index, c) in name.chars().enumerate() {
        if matches!(c, '*' | '?' | '[' | ']' | '\\') || (index == 0 && c == '!') {
            out.push('\\');
        }
        out.push(c);
    }
    out
}

/// Which sections may be removed.
#[derive(Debug, Clone, Default)]
pub struct SectionPolicy {
    /// `--allow-remove-section` globs (section removal is off when empty).
    pub allow: Vec<String>,
    /// `--protect-section` globs.
    pub protect: Vec<String>,
}

impl SectionPolicy {
    /// Whether the section pass runs at all.
    pub fn enabled(&self) -> bool {
        !self.allow.is_empty()
    }

    /// Whether a name is protected regardless of flags.
    pub fn is_protected(&self, name: &str) -> bool {
        is_default_protected(name) || self.protect.iter().any(|g| glob_match(g, name))
    }

    /// Distinct removable names in first-appearance order: allowed by a glob, not protected, and
    /// no instance of the name allocated or protected.
    pub fn removable(&self, sections: &[SectionInfo]) -> Vec<String> {
        let mut out: Vec<String> = Vec::new();
        for section in sections {
            let name = &section.name;
            if out.contains(name) || !self.allow.iter().any(|g| glob_match(g, name)) {
                continue;
            }
            let blocked = self.is_protected(name)
                || sections.iter().any(|s| &s.name == name && s.is_allocated());
            if !blocked {
                out.push(name.clone());
            }
        }
        out
    }

    /// Deterministic description for the log.
    pub fn describe(&self) -> Value {
        serde_json::json!({
            "enabled": self.enabled(),
            "allow_remove": self.allow,
            "protect": self.protect,
            "default_protected": {
                "names": PROTECTED_EXACT,
                "prefixes": PROTECTED_PREFIXES,
                "allocated_sections": "always protected (SHF_ALLOC)",
                "same_name_instances": "one allocated or protected instance protects every instance",
            },
        })
    }
}

#[cfg(test)]
mod tests;
