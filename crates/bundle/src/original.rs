//! The predicate configuration as the original reducer (`hotswap_reduce.py`) records it: its
//! argv template (executable and regular-file arguments fully resolved), its identity files
//! (SHA-256, mode, role), and the configuration digest that is one half of its cache keys. The
//! reduction log and the interoperable cache use these, so both match the original's for the
//! same command line.

use std::os::unix::ffi::OsStrExt;
use std::os::unix::fs::MetadataExt;
use std::path::{Path, PathBuf};

use serde_json::{json, Value};
use sha2::{Digest, Sha256};

use crate::canonical;

/// The placeholders the original knows (in its replacement order).
pub const KNOWN_PLACEHOLDERS: [&str; 4] = ["{bundle}", "{input}", "{metadata}", "{workspace}"];

/// Placeholders minrepro adds to the original's: `{slot}`, the running candidate's GPU slot
/// (`-j N` gives 0…N-1). The reproduction argv in the log names slot 0.
pub const OUR_PLACEHOLDERS: [&str; 1] = ["{slot}"];

/// Every placeholder a `minrepro bundle` predicate argument may use.
fn is_placeholder(candidate: &str) -> bool {
    KNOWN_PLACEHOLDERS.contains(&candidate) || OUR_PLACEHOLDERS.contains(&candidate)
}

/// The predicate settings that make up the configuration digest.
#[derive(Debug, Clone)]
pub struct OriginalPredicate {
    /// Resolved executable, then the arguments (regular files resolved, placeholders kept).
    pub argv_template: Vec<String>,
    /// `{path, role, sha256, mode[, executable]}` of every file the verdict depends on.
    pub identity_files: Vec<Value>,
    /// `--cache-tag` values.
    pub cache_tags: Vec<String>,
    /// `--interesting-exit-code`.
    pub interesting_exit_code: i32,
    /// `--predicate-runs`.
    pub runs: u32,
    /// `--min-interesting` (ours; only when given is it part of the digest and the log).
    pub min_interesting: Option<u32>,
    /// `--timeout` in seconds.
    pub timeout: f64,
}

/// What [`OriginalPredicate::new`] needs from the command line.
pub struct PredicateSettings<'a> {
    /// The executable as our predicate resolved it (absolute).
    pub executable: &'a Path,
    /// The arguments exactly as given.
    pub args: &'a [String],
    /// `--cache-dependency` paths.
    pub dependencies: &'a [PathBuf],
    /// `--cache-tag` values.
    pub cache_tags: &'a [String],
    /// `--interesting-exit-code`.
    pub interesting_exit_code: i32,
    /// `--predicate-runs`.
    pub runs: u32,
    /// `--min-interesting`.
    pub min_interesting: Option<u32>,
    /// `--timeout`.
    pub timeout: f64,
}

fn has_placeholder(argument: &str) -> bool {
    KNOWN_PLACEHOLDERS
        .iter()
        .chain(&OUR_PLACEHOLDERS)
        .any(|p| argument.contains(p))
}

fn text(path: &Path) -> String {
    String::from_utf8_lossy(path.as_os_str().as_bytes()).into_owned()
}

/// Every `{…}` (no braces inside, at least one character) that is not a known placeholder: the
/// original refuses those before anything runs.
pub fn unknown_placeholders(argument: &str) -> Vec<String> {
    let bytes = argument.as_bytes();
    let mut found = Vec::new();
    let mut index = 0;
    while index < bytes.len() {
        if bytes[index] != b'{' {
            index += 1;
            continue;
        }
        let mut end = index + 1;
        while end < bytes.len() && bytes[end] != b'{' && bytes[end] != b'}' {
            end += 1;
        }
        if end < bytes.len() && bytes[end] == b'}' && end > index + 1 {
            let candidate = &argument[index..=end];
            if !is_placeholder(candidate) {
                found.push(candidate.to_owned());
            }
            index = end + 1;
        } else {
            index += 1;
        }
    }
    found
}

/// Whether the current user may execute `path`.
fn executable_by_us(path: &Path) -> bool {
    let Ok(name) = std::ffi::CString::new(path.as_os_str().as_bytes()) else {
        return false;
    };
    // SAFETY: access() only reads the NUL-terminated path.
    unsafe { libc::access(name.as_ptr(), libc::X_OK) == 0 }
}

fn identity(path: &Path, role: &str) -> Result<Value, String> {
    let meta = std::fs::metadata(path).map_err(|e| {
        format!(
            "could not inspect predicate identity {}: {e}",
            path.display()
        )
    })?;
    let bytes =
        std::fs::read(path).map_err(|e| format!("could not hash {}: {e}", path.display()))?;
    let mut value = json!({
        "path": text(path),
        "role": role,
        "sha256": canonical::hex(&Sha256::digest(&bytes)),
        "mode": meta.mode() & 0o7777,
    });
    if role == "executable" {
        value["executable"] = json!(executable_by_us(path));
    }
    Ok(value)
}

impl OriginalPredicate {
    /// Resolves and identifies everything as the original does.
    pub(crate) fn new(settings: &PredicateSettings<'_>) -> Result<Self, String> {
        let executable = settings
            .executable
            .canonicalize()
            .map_err(|e| format!("{}: {e}", settings.executable.display()))?;
        let mut argv_template = vec![text(&executable)];
        let mut identified: Vec<(String, PathBuf)> = vec![("executable".into(), executable)];
        for (index, argument) in settings.args.iter().enumerate() {
            let path = Path::new(argument);
            if has_placeholder(argument) || argument.is_empty() || !path.is_file() {
                argv_template.push(argument.clone());
                continue;
            }
            let resolved = path
                .canonicalize()
                .map_err(|e| format!("{argument}: {e}"))?;
            argv_template.push(text(&resolved));
            identified.push((format!("argv[{}]", index + 1), resolved));
        }
        for (index, dependency) in settings.dependencies.iter().enumerate() {
            let resolved = dependency
                .canonicalize()
                .ok()
                .filter(|p| p.is_file())
                .ok_or_else(|| {
                    format!(
                        "--cache-dependency is not a regular file: {}",
                        dependency.display()
                    )
                })?;
            identified.push((format!("dependency[{index}]"), resolved));
        }
        let mut identity_files = Vec::new();
        let mut seen: Vec<&PathBuf> = Vec::new();
        for (role, path) in &identified {
            if seen.contains(&path) {
                continue;
            }
            seen.push(path);
            identity_files.push(identity(path, role)?);
        }
        Ok(OriginalPredicate {
            argv_template,
            identity_files,
            cache_tags: settings.cache_tags.to_vec(),
            interesting_exit_code: settings.interesting_exit_code,
            runs: settings.runs,
            min_interesting: settings.min_interesting,
            timeout: settings.timeout,
        })
    }

    /// The configuration digest: SHA-256 of the canonical JSON of the settings (hex).
    pub fn config_digest(&self) -> String {
        let settings = json!({
            "argv": self.argv_template,
            "identity_files": self.identity_files,
            "cache_tags": self.cache_tags,
            "interesting_exit_code": self.interesting_exit_code,
            "runs": self.runs,
            "timeout": self.timeout,
        });
        canonical::sha256_hex(&self.with_min_interesting(settings))
    }

    /// The log's `predicate` object.
    pub fn describe(&self) -> Value {
        self.with_min_interesting(json!({
            "argv_template": self.argv_template,
            "identity_files": self.identity_files,
            "cache_tags": self.cache_tags,
            "interesting_exit_code": self.interesting_exit_code,
            "runs": self.runs,
            "timeout_seconds": self.timeout,
        }))
    }

    /// `settings` with `min_interesting` when given: a K-of-N verdict is not the original's, so
    /// its cache keys differ from the original's and its log says how verdicts were made.
    fn with_min_interesting(&self, mut settings: Value) -> Value {
        if let Some(min) = self.min_interesting {
            settings["min_interesting"] = json!(min);
        }
        settings
    }

    /// The argv that reproduces the result from inside the output directory (`{input}` only
    /// when exactly one object remains, named by `sole_object`).
    pub fn reproduction_argv(&self, sole_object: Option<&str>) -> Vec<String> {
        let input = sole_object.map(|name| format!("objects/{name}"));
        self.argv_template
            .iter()
            .map(|argument| {
                let mut expanded = argument
                    .replace("{workspace}", ".")
                    .replace("{bundle}", "bundle.json")
                    .replace("{metadata}", "metadata.json")
                    .replace("{slot}", "0");
                if let Some(input) = &input {
                    expanded = expanded.replace("{input}", input);
                }
                expanded
            })
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn finds_unknown_placeholders_as_the_original_regex_does() {
        assert!(unknown_placeholders("--in={bundle}/{workspace}").is_empty());
        assert_eq!(unknown_placeholders("{unknown}"), ["{unknown}"]);
        assert_eq!(unknown_placeholders(r#"{"a": 1}"#), [r#"{"a": 1}"#]);
        assert!(unknown_placeholders("{}").is_empty());
        assert_eq!(unknown_placeholders("{{bundle}}"), Vec::<String>::new());
        assert_eq!(unknown_placeholders("{a{b}"), ["{b}"]);
        assert!(unknown_placeholders("--device={slot}").is_empty());
    }

    #[test]
    fn resolves_files_and_records_identities() {
        let dir = tempfile::tempdir().unwrap();
        let script = dir.path().join("check.py");
        std::fs::write(&script, "raise SystemExit(0)\n").unwrap();
        let link = dir.path().join("link.py");
        std::os::unix::fs::symlink(&script, &link).unwrap();
        let sh = minrepro_predicate::resolve_executable("sh").unwrap();
        let args = vec![text(&link), "{bundle}".into(), "plain".into()];
        let deps = vec![script.clone()];
        let settings = PredicateSettings {
            executable: &sh,
            args: &args,
            dependencies: &deps,
            cache_tags: &[],
            interesting_exit_code: 0,
            runs: 1,
            min_interesting: None,
            timeout: 60.0,
        };
        let original = OriginalPredicate::new(&settings).unwrap();
        let real = script.canonicalize().unwrap();
        assert_eq!(original.argv_template[1], text(&real));
        assert_eq!(original.argv_template[2..], ["{bundle}", "plain"]);
        // The dependency is the same file as argv[1]: recorded once, with the first role.
        assert_eq!(original.identity_files.len(), 2);
        assert_eq!(original.identity_files[0]["role"], "executable");
        assert_eq!(original.identity_files[0]["executable"], true);
        assert_eq!(original.identity_files[1]["role"], "argv[1]");
        assert!(original.identity_files[1].get("executable").is_none());
        assert_eq!(original.reproduction_argv(Some("a.co"))[2], "bundle.json");
        assert_eq!(original.config_digest().len(), 64);
    }
}
