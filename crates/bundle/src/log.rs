//! `reduction-log.json` in the original reducer's schema (`comgr-hotswap-reduction-log` version
//! 1), written as canonical JSON: deterministic, no timestamps, durations or cache-hit state;
//! captured output bounded and workspace paths already replaced by `{workspace}`.

use minrepro_engine::LogEntry;
use minrepro_predicate::Status;
use serde_json::{json, Value};

use crate::canonical;
use crate::case::BundleCase;
use crate::hotswap_cache::result_json;
use crate::input::Original;
use crate::original::OriginalPredicate;
use crate::passes::TOOL_ERROR;
use crate::sections::SectionPolicy;

/// Format name of the log.
pub const LOG_FORMAT: &str = "comgr-hotswap-reduction-log";
/// Version of the log format.
pub const LOG_VERSION: u32 = 1;

/// Everything the log records.
pub struct LogContext<'a> {
    /// The original objects.
    pub originals: &'a [Original],
    /// The predicate as the original describes it.
    pub predicate: &'a OriginalPredicate,
    /// The section policy (`None`: section removal off).
    pub policy: Option<&'a SectionPolicy>,
    /// Digest of the original content.
    pub initial_digest: &'a str,
    /// Every decided candidate.
    pub entries: &'a [LogEntry],
    /// The result.
    pub reduced: &'a BundleCase,
}

/// The original's name of one of our passes.
pub fn original_pass_name(pass: &str) -> &str {
    match pass {
        "objects" => "code-objects",
        "sections" => "elf-sections",
        name if name.starts_with("metadata") => "metadata",
        name => name,
    }
}

/// One `transformations` item.
fn transformation(entry: &LogEntry) -> Value {
    let mut change = entry.change.clone();
    let tool_error = change.as_object_mut().and_then(|c| c.remove(TOOL_ERROR));
    let (digest, predicate) = match tool_error {
        // A tool error is recorded against the unchanged candidate, and no predicate ran.
        Some(note) if entry.outcome.status == Status::LaunchError => (
            note["digest"].clone(),
            json!({"status": "tool-error", "error": note["error"]}),
        ),
        _ => (json!(entry.candidate_digest), result_json(&entry.outcome)),
    };
    json!({
        "pass": original_pass_name(&entry.pass),
        "transformation": change,
        "candidate_digest": digest,
        "accepted": entry.accepted,
        "predicate": predicate,
    })
}

/// Renders the log (canonical JSON and a newline).
pub fn render(context: &LogContext<'_>) -> Vec<u8> {
    let originals: Vec<Value> = context
        .originals
        .iter()
        .map(|o| json!({"id": o.id, "name": o.name, "sha256": o.sha256}))
        .collect();
    let section_policy = match context.policy {
        Some(policy) => json!({
            "enabled": true,
            "allow": policy.allow(),
            "protect": policy.all_protect_globs(),
            "allocated_sections_are_protected": true,
        }),
        None => json!({
            "enabled": false,
            "allow": [],
            "protect": [],
            "allocated_sections_are_protected": true,
        }),
    };
    let sole = match context.reduced.objects.as_slice() {
        [only] => Some(only.name.as_str()),
        _ => None,
    };
    let predicate = context.predicate;
    let document = json!({
        "format": LOG_FORMAT,
        "version": LOG_VERSION,
        "initial_digest": context.initial_digest,
        "final_digest": context.reduced.content_digest(),
        "originals": originals,
        "predicate": predicate.describe(),
        "section_policy": section_policy,
        "transformations": context.entries.iter().map(transformation).collect::<Vec<_>>(),
        "reproduction": {
            "working_directory": ".",
            "argv": predicate.reproduction_argv(sole),
            "interesting_exit_code": predicate.interesting_exit_code,
        },
    });
    let mut bytes = canonical::to_bytes(&document);
    bytes.push(b'\n');
    bytes
}
