//! Opening `--cache-file`, refusing a path whose rewriting would destroy an input or land in
//! the output.

use std::path::{Path, PathBuf};

use minrepro_cache::OutcomeCache;

use crate::RunError;

/// Opens the outcome cache: persistent when `--cache-file` is given, after checking that the file
/// is not one of `protected` (inputs and identity files), not inside `output`, and not a directory.
pub fn open_cache(
    cache_file: Option<&Path>,
    protected: &[PathBuf],
    output: &Path,
) -> Result<OutcomeCache, RunError> {
    let Some(path) = cache_file else {
        return Ok(OutcomeCache::in_memory());
    };
    let resolved = resolve_for_comparison(path);
    for other in protected {
        if resolve_for_comparison(other) == resolved {
            return Err(RunError::Failed(format!(
                "--cache-file {} is also an input or predicate identity file; it would be overwritten",
                path.display()
            )));
        }
    }
    let output_resolved = resolve_for_comparison(output);
    if resolved.starts_with(&output_resolved) {
        return Err(RunError::Failed(format!(
            "--cache-file {} is inside the output {}",
            path.display(),
            output.display()
        )));
    }
    if path.is_dir() {
        return Err(RunError::Failed(format!(
            "--cache-file {} is a directory",
            path.display()
        )));
    }
    OutcomeCache::open(path).map_err(|e| RunError::Failed(e.to_string()))
}

/// Records in the cache's journal that this run writes `output`, and returns whether a killed
/// or interrupted run with the same cache wrote there too: then what is at `output` is its
/// partial result, and the same command, resuming, may replace it (a finished run's output is
/// never replaced without --force).
pub fn claim_output(cache: &OutcomeCache, output: &Path) -> bool {
    let resolved = resolve_for_comparison(output);
    let claimed = cache.claim_output(&resolved.to_string_lossy());
    if claimed && std::fs::symlink_metadata(output).is_ok() {
        eprintln!(
            "minrepro: resuming an unfinished run with {} ({} verdicts cached, {} of them from its journal); its partial output {} is replaced",
            cache.path().map(|p| p.display().to_string()).unwrap_or_default(),
            cache.len(),
            cache.replayed_entries(),
            output.display()
        );
    }
    claimed
}

/// Absolute, symlink-resolved form of a path whose last components may not exist yet.
pub fn resolve_for_comparison(path: &Path) -> PathBuf {
    let absolute = std::path::absolute(path).unwrap_or_else(|_| path.to_path_buf());
    let mut missing = Vec::new();
    let mut existing = absolute.as_path();
    loop {
        if let Ok(real) = existing.canonicalize() {
            let mut out = real;
            for part in missing.iter().rev() {
                out.push(part);
            }
            return out;
        }
        match (existing.parent(), existing.file_name()) {
            (Some(parent), Some(name)) => {
                missing.push(name.to_os_string());
                existing = parent;
            }
            _ => return absolute,
        }
    }
}
