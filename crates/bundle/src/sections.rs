//! Section listings and policy: parsing `llvm-readobj --elf-output-style=JSON --sections` in both
//! the LLVM 14 and the LLVM 19 layout, the AMDGPU check, which sections may be removed, and
//! escaping names for `llvm-objcopy` (which treats names as globs).

use std::sync::LazyLock;

use globset::GlobSet;
use serde_json::Value;

use crate::glob::{self, GlobError};

/// `SHF_ALLOC`.
pub const SHF_ALLOC: u64 = 0x2;

/// The default protected section globs, in the original reducer's order.
pub const DEFAULT_PROTECTED: [&str; 19] = [
    "",
    ".text",
    ".note",
    ".note.*",
    ".symtab",
    ".dynsym",
    ".strtab",
    ".dynstr",
    ".shstrtab",
    ".rel",
    ".rel.*",
    ".rela",
    ".rela.*",
    ".group",
    ".rodata",
    ".data",
    ".bss",
    ".dynamic",
    ".AMDGPU.*",
];

/// One section from a listing.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SectionInfo {
    /// Section name.
    pub name: String,
    /// Raw `sh_flags` (0 when the listing gave flag names only).
    pub flags: u64,
    /// Whether a flag named `SHF_ALLOC` was listed.
    pub alloc_named: bool,
}

impl SectionInfo {
    /// Whether the section occupies memory at run time (by its raw flags or its flag names).
    pub fn is_allocated(&self) -> bool {
        self.flags & SHF_ALLOC != 0 || self.alloc_named
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
/// names under `Name.Name` and flags under `Flags.Value`. Both also list the flags by name
/// (`Flags.Flags: [{"Name": "SHF_ALLOC", …}]`), and a listing with the names only (as the
/// original reducer reads it) is enough.
pub(crate) fn parse_readobj_json(text: &[u8]) -> Result<ElfListing, String> {
    let value: Value =
        serde_json::from_slice(text).map_err(|e| format!("malformed section JSON: {e}"))?;
    let files = value
        .as_array()
        .ok_or("malformed section JSON: the top level is not a list")?;
    if files.len() != 1 {
        return Err(format!(
            "malformed section JSON: expected one file, found {}",
            files.len()
        ));
    }
    let mut file = files[0]
        .as_object()
        .ok_or("malformed section JSON: a file entry is not an object")?;
    if !file.contains_key("FileSummary") && file.len() == 1 {
        // LLVM 14 wraps the file's data in an object keyed by the path.
        file = file
            .values()
            .next()
            .and_then(Value::as_object)
            .ok_or("malformed section JSON: the file entry is not an object")?;
    }
    let summary = file
        .get("FileSummary")
        .and_then(Value::as_object)
        .ok_or("malformed section JSON: no FileSummary")?;
    let text_of = |key: &str| {
        summary
            .get(key)
            .and_then(Value::as_str)
            .map(str::to_owned)
            .ok_or_else(|| format!("malformed section JSON: FileSummary has no {key}"))
    };
    let (format, arch) = (text_of("Format")?, text_of("Arch")?);
    let list = file
        .get("Sections")
        .and_then(Value::as_array)
        .ok_or("malformed section JSON: no Sections list")?;
    let mut sections = Vec::with_capacity(list.len());
    for (index, item) in list.iter().enumerate() {
        let section = item
            .get("Section")
            .unwrap_or(item)
            .as_object()
            .ok_or_else(|| format!("malformed section JSON: section {index} is not an object"))?;
        let name_field = section.get("Name");
        let name = name_field
            .and_then(|n| n.get("Name").and_then(Value::as_str))
            .or_else(|| name_field.and_then(|n| n.get("Value").and_then(Value::as_str)))
            .or_else(|| name_field.and_then(Value::as_str))
            .ok_or_else(|| format!("malformed section JSON: section {index} has no name"))?;
        let flags_field = section
            .get("Flags")
            .ok_or_else(|| format!("malformed section JSON: section {index} has no Flags"))?;
        let raw = flags_field
            .get("Value")
            .and_then(Value::as_u64)
            .or_else(|| flags_field.get("RawFlags").and_then(Value::as_u64))
            .or_else(|| flags_field.as_u64());
        let named = flag_names(flags_field).ok_or_else(|| {
            format!("malformed section JSON: section {index} has malformed flag names")
        })?;
        if raw.is_none() && named.is_none() {
            return Err(format!(
                "malformed section JSON: section {index} has neither raw flags nor flag names"
            ));
        }
        sections.push(SectionInfo {
            name: name.to_owned(),
            flags: raw.unwrap_or(0),
            alloc_named: named.is_some_and(|names| names.contains(&"SHF_ALLOC")),
        });
    }
    Ok(ElfListing {
        format,
        arch,
        sections,
    })
}

/// The flag names under `Flags.Flags` (`Some(None)`: not given; `None`: given but malformed).
fn flag_names(flags_field: &Value) -> Option<Option<Vec<&str>>> {
    let Some(list) = flags_field.get("Flags") else {
        return Some(None);
    };
    let names = list
        .as_array()?
        .iter()
        .map(|flag| flag.get("Name").and_then(Value::as_str))
        .collect::<Option<Vec<&str>>>()?;
    Some(Some(names))
}

/// The default protected globs, compiled once.
static DEFAULTS: LazyLock<GlobSet> = LazyLock::new(|| {
    glob::compile(DEFAULT_PROTECTED).expect("the default protected globs compile")
});

/// Whether `name` belongs to the default protected set.
pub fn is_default_protected(name: &str) -> bool {
    DEFAULTS.is_match(name)
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

/// Which sections may be removed: the `--allow-remove-section` and `--protect-section` globs
/// (fnmatch semantics, see the `glob` module), compiled once.
#[derive(Debug, Clone, Default)]
pub struct SectionPolicy {
    allow: Vec<String>,
    protect: Vec<String>,
    allow_set: GlobSet,
    protect_set: GlobSet,
}

impl SectionPolicy {
    /// A policy from `--allow-remove-section` globs (removal is off when empty) and
    /// `--protect-section` globs (on top of `DEFAULT_PROTECTED`).
    pub fn new(allow: Vec<String>, protect: Vec<String>) -> Result<Self, GlobError> {
        let allow_set = glob::compile(allow.iter().map(String::as_str))?;
        let protect_set = glob::compile(protect.iter().map(String::as_str))?;
        Ok(Self {
            allow,
            protect,
            allow_set,
            protect_set,
        })
    }

    /// The `--allow-remove-section` globs as given.
    pub fn allow(&self) -> &[String] {
        &self.allow
    }

    /// Whether the section pass runs at all.
    pub fn enabled(&self) -> bool {
        !self.allow.is_empty()
    }

    /// Whether a name is protected regardless of flags.
    pub fn is_protected(&self, name: &str) -> bool {
        is_default_protected(name) || self.protect_set.is_match(name)
    }

    /// Distinct removable names in first-appearance order: allowed by a glob, not protected, and
    /// no instance of the name allocated or protected.
    pub fn removable(&self, sections: &[SectionInfo]) -> Vec<String> {
        let mut out: Vec<String> = Vec::new();
        for section in sections {
            let name = &section.name;
            if out.contains(name) || !self.allow_set.is_match(name) {
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

    /// Every protected glob: the defaults, then `--protect-section`'s (as the log lists them).
    pub fn all_protect_globs(&self) -> Vec<String> {
        DEFAULT_PROTECTED
            .iter()
            .map(|g| g.to_string())
            .chain(self.protect.iter().cloned())
            .collect()
    }
}

#[cfg(test)]
mod tests;
