//! What the helpers import before they fork candidates, and what a helper reports about it.

use std::path::PathBuf;

/// The modules a helper imports once, before forking any candidate.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Preload {
    /// Modules asked for by name (`--preload`): a helper whose import of one fails cannot start.
    pub required: Vec<String>,
    /// Modules the program imports at its top level: each is imported when it is third-party
    /// (neither the standard library's nor found in [`Preload::program_dir`]), imports without
    /// an error and without printing, and leaves the helper safe to fork (no Python thread
    /// started, no CUDA context); the others are left out (see [`Ready::skipped`]).
    pub automatic: Vec<String>,
    /// The program's own directory.
    pub program_dir: Option<PathBuf>,
}

impl Preload {
    /// Only the `required` modules.
    pub fn required(modules: &[String]) -> Self {
        Preload {
            required: modules.to_vec(),
            ..Preload::default()
        }
    }

    /// The helper's first argument.
    pub(crate) fn to_json(&self) -> String {
        serde_json::json!({
            "required": self.required,
            "automatic": self.automatic,
            "program_dir": self.program_dir.as_ref().map(|d| d.to_string_lossy()),
        })
        .to_string()
    }
}

/// A helper's report once it is ready.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Ready {
    /// The automatic modules it imported.
    pub preloaded: Vec<String>,
    /// The automatic modules it left out, each with why (`its import failed (…)`, `its import
    /// started 2 threads`, …).
    pub skipped: Vec<(String, String)>,
    /// The last module left out was imported already: this helper must not fork candidates.
    pub unfit: bool,
}

impl Ready {
    /// Reads a ready message (`{"ready": PID, "preloaded": [...], "skipped": [[M, WHY]],
    /// "unfit": B}`); `None` if it is not one.
    pub(crate) fn from_message(message: &serde_json::Value) -> Option<Ready> {
        message.get("ready")?;
        let strings = |value: &serde_json::Value| -> Vec<String> {
            value
                .as_array()
                .into_iter()
                .flatten()
                .filter_map(|s| s.as_str().map(str::to_owned))
                .collect()
        };
        let skipped = message["skipped"]
            .as_array()
            .into_iter()
            .flatten()
            .filter_map(|pair| match strings(pair).as_slice() {
                [name, why] => Some((name.clone(), why.clone())),
                _ => None,
            })
            .collect();
        Some(Ready {
            preloaded: strings(&message["preloaded"]),
            skipped,
            unfit: message["unfit"].as_bool().unwrap_or(false),
        })
    }
}
