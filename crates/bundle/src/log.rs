//! The deterministic `reduction-log.json`: no timestamps, durations or cache-hit state; keys in
//! a fixed order; captured output bounded and workspace paths already replaced by `{workspace}`.

use minrepro_engine::LogEntry;
use minrepro_predicate::{Outcome, Predicate};
use serde_json::{json, Value};

use crate::case::{pretty, BundleCase};
use crate::input::Original;
use crate::sections::SectionPolicy;

/// Format name of the log.
pub const LOG_FORMAT: &str = "minrepro-bundle-reduction-log";
/// Version of the log format.
///
/// Version 2: list and object removals record index ranges and a count, and the removed items
/// only when there are at most [`crate::passes::LISTED`].
pub const LOG_VERSION: u32 = 2;

/// Everything the log records.
pub struct LogContext<'a> {
    /// The original objects.
    pub originals: &'a [Original],
    /// The predicate (configuration and identity files).
    pub predicate: &'a Predicate,
    /// The section policy.
    pub policy: &'a SectionPolicy,
    /// Digest of the original content.
    pub initial_digest: &'a str,
    /// The original's verdict.
    pub original_outcome: &'a Outcome,
    /// Every decided candidate.
    pub entries: &'a [LogEntry],
    /// The result.
    pub reduced: &'a BundleCase,
    /// Whether an empty bundle was allowed.
    pub allow_empty_bundle: bool,
}

/// A verdict in log form (bounded output heads only).
pub fn outcome_json(outcome: &Outcome) -> Value {
    json!({
        "status": outcome.status,
        "exit_codes": outcome.exit_codes,
        "stdout": outcome.last_run.stdout.head,
        "stderr": outcome.last_run.stderr.head,
        "error": outcome.last_run.error,
    })
}

/// The reproduction argv with placeholders expanded to paths relative to the output directory.
pub fn reproduction_argv(
    predicate: &Predicate,
    reduced: &BundleCase,
) -> Result<Vec<String>, String> {
    let mut argv = vec![predicate.executable().to_string_lossy().into_owned()];
    let expanded = predicate.template().expand(&|name| match name {
        "bundle" => Some("bundle.json".into()),
        "metadata" => Some("metadata.json".into()),
        "workspace" => Some(".".into()),
        "slot" => Some("0".into()),
        "input" if reduced.objects.len() == 1 => {
            Some(format!("objects/{}", reduced.objects[0].name))
        }
        _ => None,
    })?;
    argv.extend(expanded);
    Ok(argv)
}

/// Renders the log.
pub fn render(context: &LogContext<'_>) -> Result<Vec<u8>, String> {
    let originals: Vec<Value> = context
        .originals
        .iter()
        .map(|o| json!({"id": o.id, "name": o.name, "sha256": o.sha256, "size": o.size}))
        .collect();
    let transformations: Vec<Value> = context
        .entries
        .iter()
        .map(|entry| {
            json!({
                "pass": entry.pass,
                "change": entry.change,
                "candidate_digest": entry.candidate_digest,
                "accepted": entry.accepted,
                "predicate": outcome_json(&entry.outcome),
            })
        })
        .collect();
    let accepted = context.entries.iter().filter(|e| e.accepted).count();
    let describe = context.predicate.describe();
    let document = json!({
        "format": LOG_FORMAT,
        "version": LOG_VERSION,
        "initial_digest": context.initial_digest,
        "final_digest": context.reduced.content_digest(),
        "originals": originals,
        "final_objects": context.reduced.objects.iter().map(|o| json!({"id": o.id, "name": o.name, "sha256": o.sha256, "size": o.bytes.len()})).collect::<Vec<_>>(),
        "predicate": describe,
        "allow_empty_bundle": context.allow_empty_bundle,
        "section_policy": context.policy.describe(),
        "original_outcome": outcome_json(context.original_outcome),
        "transformations_accepted": accepted,
        "transformations": transformations,
        "reproduction": {
            "cwd": "the output directory",
            "argv": reproduction_argv(context.predicate, context.reduced)?,
            "interesting_exit_code": describe["interesting_exit_code"],
        },
    });
    Ok(pretty(&document))
}
