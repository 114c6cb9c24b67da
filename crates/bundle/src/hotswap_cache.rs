//! `--cache-file` in the original reducer's format, so that both tools share cache files:
//! `{"format": "comgr-hotswap-reduction-cache", "version": 1, "entries": {KEY: {"status",
//! "exit_codes", "stdout", "stderr"}}}` in canonical JSON, where KEY is the SHA-256 of the
//! configuration digest's bytes followed by the candidate digest's bytes. Only interesting and
//! uninteresting verdicts are kept (as in the original: flaky ones are re-run). Every entry is
//! checked when the file is read; a corrupt one refuses the file (the original refuses it when
//! the entry is looked up).

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use minrepro_cache::{CacheCodec, DecodeError, OutcomeCache};
use minrepro_predicate::TRUNCATED_MARKER;
use minrepro_predicate::{CapturedStream, Outcome, Quorum, RunRecord, Status, OUTPUT_HEAD_LIMIT};
use serde_json::{json, Map, Value};
use sha2::{Digest, Sha256};

use crate::canonical;

/// `format` of the original's cache files.
pub const CACHE_FORMAT: &str = "comgr-hotswap-reduction-cache";

/// The original reducer's cache format, for one predicate configuration.
pub struct HotswapCodec {
    /// `--predicate-runs`: a usable entry has this many exit codes.
    pub runs: u32,
    /// `--interesting-exit-code`: a usable entry's status agrees with it.
    pub interesting_exit_code: i32,
    /// `--min-interesting`: a usable entry's exit codes are the runs this quorum makes, and
    /// their count of interesting ones gives its status (the configuration digest names it, so
    /// the original never looks such an entry up).
    pub min_interesting: Option<u32>,
}

fn status_name(status: Status) -> Option<&'static str> {
    match status {
        Status::Interesting => Some("interesting"),
        Status::Uninteresting => Some("uninteresting"),
        _ => None,
    }
}

fn stream(text: &str) -> CapturedStream {
    CapturedStream {
        head: text.to_owned(),
        tail: text.to_owned(),
        contains_needle: false,
    }
}

/// One entry as an outcome (`None`: corrupt).
fn decode_entry(value: &Value) -> Option<Outcome> {
    let entry = value.as_object()?;
    let status = match entry.get("status")?.as_str()? {
        "interesting" => Status::Interesting,
        "uninteresting" => Status::Uninteresting,
        _ => return None,
    };
    let codes = entry.get("exit_codes")?.as_array()?;
    let codes: Vec<i32> = codes
        .iter()
        .map(|code| code.as_i64().and_then(|c| i32::try_from(c).ok()))
        .collect::<Option<_>>()?;
    let text = |key: &str| match entry.get(key) {
        None => Some(String::new()),
        Some(value) => value.as_str().map(str::to_owned),
    };
    let (stdout, stderr) = (text("stdout")?, text("stderr")?);
    let last = *codes.last()?;
    Some(Outcome {
        status,
        exit_codes: codes.into_iter().map(Some).collect(),
        last_run: RunRecord {
            exit_code: Some(last),
            stdout: stream(&stdout),
            stderr: stream(&stderr),
            error: None,
        },
        interesting_runs: None,
    })
}

/// A captured head as the original prints it: a cut head ends in a newline and `<truncated>`.
fn original_capture(head: &str) -> String {
    let cut = head.len() > TRUNCATED_MARKER.len()
        && head.ends_with(TRUNCATED_MARKER)
        && head.chars().count() == OUTPUT_HEAD_LIMIT + TRUNCATED_MARKER.chars().count();
    if cut {
        format!(
            "{}\n{TRUNCATED_MARKER}",
            &head[..head.len() - TRUNCATED_MARKER.len()]
        )
    } else {
        head.to_owned()
    }
}

/// An outcome as the original records a predicate result (for log entries and cache entries).
pub fn result_json(outcome: &Outcome) -> Value {
    let status = match outcome.status {
        Status::Interesting => "interesting",
        Status::Uninteresting => "uninteresting",
        Status::Flaky => "flaky",
        Status::Timeout => "timeout",
        Status::LaunchError => "launch-error",
    };
    let mut stderr = original_capture(&outcome.last_run.stderr.head);
    if let (true, Some(error)) = (stderr.is_empty(), &outcome.last_run.error) {
        stderr = format!("could not launch predicate: {error}");
    }
    json!({
        "status": status,
        "exit_codes": outcome.exit_codes,
        "stdout": original_capture(&outcome.last_run.stdout.head),
        "stderr": stderr,
    })
}

impl CacheCodec for HotswapCodec {
    fn format(&self) -> &str {
        CACHE_FORMAT
    }

    fn key(&self, candidate_digest: &str, config_digest: &str) -> String {
        let mut hasher = Sha256::new();
        hasher.update(canonical::unhex(config_digest).unwrap_or_default());
        hasher.update(canonical::unhex(candidate_digest).unwrap_or_default());
        canonical::hex(&hasher.finalize())
    }

    /// The original's check of a cache hit: as many exit codes as runs, all equal, and the
    /// status they imply (it refuses the run where we re-run the candidate instead). With
    /// `--min-interesting`: the runs the quorum would have made, and the status they imply.
    fn trusts(&self, outcome: &Outcome) -> bool {
        if self.min_interesting.is_some() {
            let quorum = Quorum {
                runs: self.runs,
                min_interesting: self.min_interesting,
            };
            let interesting: Vec<bool> = outcome
                .exit_codes
                .iter()
                .map(|code| *code == Some(self.interesting_exit_code))
                .collect();
            return quorum.replay(&interesting) == Some(outcome.status == Status::Interesting);
        }
        let first = outcome.exit_codes.first().copied().flatten();
        outcome.exit_codes.len() == self.runs as usize
            && outcome.exit_codes.iter().all(|code| *code == first)
            && (outcome.status == Status::Interesting)
                == (first == Some(self.interesting_exit_code))
    }

    fn keeps(&self, outcome: &Outcome) -> bool {
        status_name(outcome.status).is_some()
            && !outcome.exit_codes.is_empty()
            && outcome.exit_codes.iter().all(Option::is_some)
    }

    fn decode(&self, bytes: &[u8]) -> Result<BTreeMap<String, Outcome>, DecodeError> {
        let unsupported = || DecodeError("unsupported predicate cache format".to_owned());
        let parsed = crate::strict_json::parse(bytes)
            .map_err(|e| DecodeError(format!("malformed JSON: {e}")))?
            .value;
        let document = parsed.as_object().ok_or_else(unsupported)?;
        let version_is_one = match document.get("version") {
            Some(Value::Number(n)) => n.as_f64() == Some(1.0),
            Some(Value::Bool(b)) => *b,
            _ => false,
        };
        let entries = match document.get("entries") {
            Some(Value::Object(entries))
                if document.get("format").and_then(Value::as_str) == Some(CACHE_FORMAT)
                    && version_is_one =>
            {
                entries
            }
            _ => return Err(unsupported()),
        };
        let mut out = BTreeMap::new();
        for (key, value) in entries {
            let mut outcome =
                decode_entry(value).ok_or_else(|| DecodeError(format!("corrupt entry {key}")))?;
            if self.min_interesting.is_some() {
                // The format keeps no counts: the exit codes give them.
                let wanted = Some(self.interesting_exit_code);
                let count = outcome.exit_codes.iter().filter(|c| **c == wanted).count();
                outcome.interesting_runs = Some(count as u32);
            }
            out.insert(key.clone(), outcome);
        }
        Ok(out)
    }

    fn encode(&self, entries: &BTreeMap<String, Outcome>) -> Vec<u8> {
        let mut stored = Map::new();
        for (key, outcome) in entries {
            if self.keeps(outcome) {
                stored.insert(key.clone(), result_json(outcome));
            }
        }
        let document = json!({"format": CACHE_FORMAT, "version": 1, "entries": stored});
        let mut bytes = canonical::to_bytes(&document);
        bytes.push(b'\n');
        bytes
    }
}

/// Opens `--cache-file` in the original's format after its safety checks: not an input (bundle,
/// objects, metadata, worklist, cache dependencies), not inside the output, not a predicate
/// identity file, not a directory. The messages keep the original's phrases.
pub(crate) fn open(
    path: Option<&Path>,
    codec: HotswapCodec,
    inputs: &[PathBuf],
    identity_files: &[PathBuf],
    output: &Path,
) -> Result<OutcomeCache, String> {
    let Some(path) = path else {
        return Ok(OutcomeCache::in_memory());
    };
    let resolved = minrepro_driver::resolve_for_comparison(path);
    let same = |other: &PathBuf| minrepro_driver::resolve_for_comparison(other) == resolved;
    if inputs.iter().any(same) {
        return Err(format!(
            "refusing to overwrite reducer input with cache {}",
            resolved.display()
        ));
    }
    let output = minrepro_driver::resolve_for_comparison(output);
    if resolved.starts_with(&output) {
        return Err(format!(
            "--cache-file must not be inside output directory {}",
            output.display()
        ));
    }
    if identity_files.iter().any(same) {
        return Err(format!(
            "refusing to overwrite predicate identity with cache {}",
            resolved.display()
        ));
    }
    if path.is_dir() {
        return Err(format!("--cache-file {} is a directory", path.display()));
    }
    OutcomeCache::open_with(path, Box::new(codec)).map_err(|e| e.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trips_and_refuses_corrupt_entries() {
        let codec = HotswapCodec {
            runs: 2,
            interesting_exit_code: 7,
            min_interesting: None,
        };
        let text = br#"{"entries":{"k":{"exit_codes":[7,7],"status":"interesting","stderr":"e","stdout":"o"}},"format":"comgr-hotswap-reduction-cache","version":1}
"#;
        let entries = codec.decode(text).unwrap();
        assert_eq!(entries["k"].exit_codes, [Some(7), Some(7)]);
        assert_eq!(entries["k"].last_run.stdout.head, "o");
        assert_eq!(codec.encode(&entries), text);
        assert!(codec.trusts(&entries["k"]));
        let mut flipped = entries["k"].clone();
        flipped.status = Status::Uninteresting;
        assert!(!codec.trusts(&flipped));
        flipped.status = Status::Interesting;
        flipped.exit_codes.pop();
        assert!(!codec.trusts(&flipped));
        for bad in [
            &br#"{"entries":{"k":{"exit_codes":[],"status":"interesting"}},"format":"comgr-hotswap-reduction-cache","version":1}"#[..],
            br#"{"entries":{"k":{"exit_codes":[true],"status":"interesting"}},"format":"comgr-hotswap-reduction-cache","version":1}"#,
            br#"{"entries":{"k":{"exit_codes":[0],"status":"flaky"}},"format":"comgr-hotswap-reduction-cache","version":1}"#,
        ] {
            assert!(codec.decode(bad).unwrap_err().0.contains("corrupt entry k"));
        }
        for bad in [
            &br#"{"entries":{},"format":"minrepro-outcome-cache","version":1}"#[..],
            br#"{"entries":[],"format":"comgr-hotswap-reduction-cache","version":1}"#,
            br#"{"entries":{},"format":"comgr-hotswap-reduction-cache","version":2}"#,
        ] {
            assert!(codec.decode(bad).unwrap_err().0.contains("unsupported"));
        }
        // sha256(bytes.fromhex("00" * 32) + bytes.fromhex("11" * 32)), as the original keys it.
        let key = codec.key(&"11".repeat(32), &"00".repeat(32));
        let mut joined = vec![0u8; 32];
        joined.extend([0x11u8; 32]);
        assert_eq!(key, canonical::hex(&Sha256::digest(&joined)));
    }

    #[test]
    fn k_of_n_entries_are_trusted_when_their_runs_are_the_quorum_s() {
        let codec = HotswapCodec {
            runs: 4,
            interesting_exit_code: 0,
            min_interesting: Some(2),
        };
        let text = br#"{"entries":{"a":{"exit_codes":[1,0,0],"status":"interesting"},"b":{"exit_codes":[1,1,1],"status":"uninteresting"},"c":{"exit_codes":[0,0,1],"status":"interesting"}},"format":"comgr-hotswap-reduction-cache","version":1}"#;
        let entries = codec.decode(text).unwrap();
        assert_eq!(entries["a"].interesting_runs, Some(2));
        assert!(codec.trusts(&entries["a"]));
        // Three failures of four: decided after three runs.
        assert!(codec.trusts(&entries["b"]));
        // Decided after two runs, so a third would never have run.
        assert!(!codec.trusts(&entries["c"]));
        let mut flipped = entries["a"].clone();
        flipped.status = Status::Uninteresting;
        assert!(!codec.trusts(&flipped));
    }
}
