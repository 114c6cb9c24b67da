//! `minrepro bundle`: reduces a JSON bundle of AMDGPU code objects and its metadata lists while a
//! user's predicate command keeps returning the interesting exit code.
//!
//! The public API is [`run`] with its [`BundleArgs`], and the LLVM tool layer ([`ElfTools`],
//! [`SectionPolicy`]) for tests against real tools. Private modules: `args` (command line), `input` (loading, validation, snapshot), `case` (the
//! test case and its digest), `metadata` (the shared-list metadata document), `workspace` (candidate directories and placeholders), `store`
//! (the content store candidate files are hard linked from), `passes` (ddmin passes),
//! `sections` and `elf_tools` (section policy and LLVM tools), `oracle` (the engine's view
//! of a candidate), `log` (the deterministic reduction log), `strict_json` (input JSON,
//! duplicate keys reported). Compatibility with the original reducer (`hotswap_reduce.py`):
//! `canonical` (its canonical JSON and digests), `original` (its predicate identity and
//! configuration digest), `hotswap_cache` (its cache file format); see `COMPATIBILITY.md`.

mod args;
mod canonical;
mod case;
mod elf_tools;
mod glob;
mod hotswap_cache;
mod input;
mod log;
mod metadata;
mod oracle;
mod original;
mod passes;
mod report;
mod sections;
mod store;
mod strict_json;
mod workspace;

use std::path::Path;
use std::sync::Arc;

use minrepro_driver::{check_output_location, publish_directory, PublishError, RunError};
use minrepro_engine::{EngineOptions, Pass, Progress, Reduction, TempRoot};
use minrepro_predicate::{is_interrupted, Acceptance, Predicate};

pub use args::{BundleArgs, BundleOptions};
use case::BundleCase;
pub use elf_tools::{ElfTools, ToolError};
pub use glob::GlobError;
use input::METADATA_LISTS;
use original::{OriginalPredicate, PredicateSettings};
use passes::{CaseArgumentsPass, MetadataListPass, ObjectPass, SectionPass};
pub use sections::{ElfListing, SectionInfo, SectionPolicy};

fn failed(message: impl Into<String>) -> RunError {
    RunError::Failed(message.into())
}

/// Parent directories of the output created for this run; removed again (when still empty)
/// unless the run published into them.
struct CreatedParents(Vec<std::path::PathBuf>);

impl CreatedParents {
    /// Creates the missing ancestors of `output` (the original creates them too).
    fn create(output: &Path) -> Result<Self, RunError> {
        let absolute = std::path::absolute(output).unwrap_or_else(|_| output.to_path_buf());
        let mut missing = Vec::new();
        let mut parent = absolute.parent();
        while let Some(dir) = parent {
            if std::fs::symlink_metadata(dir).is_ok() {
                break;
            }
            missing.push(dir.to_path_buf());
            parent = dir.parent();
        }
        if let Some(top) = missing.first() {
            std::fs::create_dir_all(top).map_err(|e| {
                failed(format!(
                    "cannot create the output's parent {}: {e}",
                    top.display()
                ))
            })?;
        }
        Ok(CreatedParents(missing))
    }

    /// Removes the created directories, deepest first, if they are still empty.
    fn remove(&self) {
        for dir in &self.0 {
            let _ = std::fs::remove_dir(dir);
        }
    }
}

/// Refuses an existing output as the original does (nothing is read or run first).
fn check_output(output: &Path) -> Result<(), RunError> {
    if std::fs::symlink_metadata(output).is_ok() {
        let shown = std::path::absolute(output).unwrap_or_else(|_| output.to_path_buf());
        return Err(failed(format!(
            "refusing to overwrite existing output {} (it already exists)",
            shown.display()
        )));
    }
    check_output_location(output).map_err(|error| failed(error.to_string()))
}

/// Runs a bundle reduction; returns the success line. Missing parents of `--output` are created
/// for the run and removed again if it publishes nothing.
pub fn run(args: &BundleArgs) -> Result<String, RunError> {
    args.check()?;
    let source = args.input_source()?;
    for (path, what) in source.named_paths() {
        minrepro_driver::check_input_exists(path, what)?;
    }
    let mut kept: Vec<&std::path::Path> =
        source.named_paths().into_iter().map(|(p, _)| p).collect();
    kept.push(&args.output);
    minrepro_driver::check_report_path(args.common.report.as_deref(), &kept)?;
    let snapshot = input::load(&source).map_err(|e| failed(e.to_string()))?;
    if std::fs::symlink_metadata(&args.output).is_ok() {
        check_output(&args.output)?;
    }
    let parents = CreatedParents::create(&args.output)?;
    let result = run_loaded(args, snapshot);
    if result.is_err() {
        parents.remove();
    }
    result
}

fn run_loaded(args: &BundleArgs, snapshot: input::Snapshot) -> Result<String, RunError> {
    // Made first: its clock (the reported wall time) and its lines cover the start-up too.
    let progress = Progress::new("minrepro bundle", "bytes", args.common.quiet);
    let launch = args.predicate.launch()?;
    check_output(&args.output)?;
    // Printed even with -q: each is an input the original would have used silently.
    for warning in &snapshot.warnings {
        eprintln!("minrepro bundle: warning: {warning}");
    }
    for argument in &args.predicate.predicate_args {
        if let Some(unknown) = original::unknown_placeholders(argument).first() {
            return Err(failed(format!(
                "unknown interestingness placeholder {unknown:?} (known: {})",
                original::KNOWN_PLACEHOLDERS
                    .iter()
                    .chain(&original::OUR_PLACEHOLDERS)
                    .copied()
                    .collect::<Vec<_>>()
                    .join(", ")
            )));
        }
    }
    let executable = args.predicate.predicate.clone().unwrap_or_default();
    let config = args.predicate.config(
        executable,
        workspace::PLACEHOLDERS.to_vec(),
        Acceptance::default(),
        Some(0),
        Vec::new(),
    );
    let interesting_exit_code = config.acceptance.exit_code.unwrap_or(0);
    let predicate = Predicate::new(config)
        .map_err(|e| failed(e.to_string()))?
        .with_launch(launch);
    let original_predicate = OriginalPredicate::new(&PredicateSettings {
        executable: predicate.executable(),
        args: &args.predicate.predicate_args,
        dependencies: &args.predicate.cache_dependencies,
        cache_tags: &args.predicate.cache_tags,
        interesting_exit_code,
        runs: args.predicate.predicate_runs,
        min_interesting: args.predicate.min_interesting,
        timeout: args.predicate.timeout,
    })
    .map_err(failed)?;
    let uses_input = predicate.template().uses("input");
    if uses_input && snapshot.case.objects.len() != 1 {
        return Err(failed(format!(
            "{{input}} requires exactly one code object, but the input has {}; use {{bundle}} \
             while reducing a multi-object corpus",
            snapshot.case.objects.len()
        )));
    }
    let min_objects = usize::from(!args.allow_empty_bundle || uses_input);
    let policy = SectionPolicy::new(
        args.allow_remove_section.clone(),
        args.protect_section.clone(),
    )
    .map_err(|error| failed(error.to_string()))?;
    let mut inputs = snapshot.input_paths();
    inputs.extend(args.predicate.cache_dependencies.iter().cloned());
    let mut identities: Vec<std::path::PathBuf> = predicate
        .identity_files()
        .iter()
        .map(|f| f.path.clone())
        .collect();
    identities.extend(
        original_predicate
            .identity_files
            .iter()
            .filter_map(|f| f["path"].as_str().map(std::path::PathBuf::from)),
    );
    let codec = hotswap_cache::HotswapCodec {
        runs: args.predicate.predicate_runs,
        interesting_exit_code,
        min_interesting: args.predicate.min_interesting,
    };
    let cache = hotswap_cache::open(
        args.common.cache_file.as_deref(),
        codec,
        &inputs,
        &identities,
        &args.output,
    )
    .map_err(failed)?;
    let temp = TempRoot::new_in(args.predicate.work_dir.as_deref())
        .map_err(|e| failed(format!("cannot create a temporary directory: {e}")))?;
    let mut original = snapshot.case.clone();
    let tools = if policy.enabled() {
        let tools = ElfTools::new(
            &args.readobj,
            &args.objcopy,
            args.tool_timeout,
            temp.path().to_path_buf(),
        )
        .map_err(|error| failed(error.to_string()))?;
        list_sections(&tools, &mut original, &progress)?;
        Some(Arc::new(tools))
    } else {
        None
    };
    snapshot.verify().map_err(|e| failed(e.to_string()))?;

    // Each slot keeps up to the original's size: every original object and the original
    // metadata stay stored through the object pass, and the disk use stays bounded.
    let store = store::ContentStore::new(temp.path().join("store"), original.size());
    let oracle = oracle::BundleOracle::new(&predicate, &temp, &store);
    let object_pass = ObjectPass { min_objects };
    let list_passes: Vec<MetadataListPass> = METADATA_LISTS
        .iter()
        .map(|&key| MetadataListPass { key })
        .collect();
    // Tool time of the start-up's listing, left out of the reduction's figure.
    let listing_time = tools.as_ref().map(|t| t.time_spent());
    let section_tools = tools.clone();
    let section_pass = tools.map(|tools| SectionPass {
        tools,
        policy: Arc::new(policy.clone()),
        quiet: args.common.quiet,
        max_batch: passes::section_batch(args.common.jobs as usize),
    });
    let mut passes: Vec<&dyn Pass<BundleCase>> = vec![&object_pass];
    passes.extend(list_passes.iter().map(|p| p as &dyn Pass<BundleCase>));
    passes.push(&CaseArgumentsPass);
    if let Some(pass) = &section_pass {
        passes.push(pass);
    }
    let options = EngineOptions {
        jobs: args.common.jobs as usize,
        config_digest: original_predicate.config_digest(),
        size_unit: "bytes",
        exact: args.common.exact_order(),
    };
    let initial_digest = original.content_digest();
    let reduction = Reduction::new(&oracle, &cache, &progress, options)
        .passes(&passes)
        .collect_log();
    let original_shown = args.common.report.as_ref().map(|_| original.clone());
    let (result, stats) = minrepro_driver::reduce(reduction, original);
    if let (Some(path), Some(original)) = (&args.common.report, &original_shown) {
        let reduced = result.as_ref().ok().map(|r| &r.case);
        minrepro_driver::write_report(
            path,
            minrepro_driver::ReportInput {
                front_end: "minrepro bundle",
                unit: "bytes",
                stats: &stats,
                progress: &progress,
                ended: result.as_ref().map(|_| ()),
                original: report::documents(original),
                result: reduced.map(report::documents).unwrap_or_default(),
                sections: reduced.map(report::kept).into_iter().collect(),
            },
        )?;
    }
    if let Some(path) = &args.common.stats_json {
        let mut extra = minrepro_driver::StatsExtra::default();
        if let (Some(tools), Some((listing_runs, listing))) = (&section_tools, listing_time) {
            // ELF tools run while building section candidates (not in the predicate).
            let (runs, spent) = tools.time_spent();
            extra.fields = vec![
                ("elf_tool_runs".into(), (runs - listing_runs).into()),
                (
                    "elf_tool_seconds".into(),
                    spent.saturating_sub(listing).as_secs_f64().into(),
                ),
            ];
        }
        minrepro_driver::write_stats_json(path, &stats, result.is_ok(), extra)?;
    }
    let reduced = result?;
    if is_interrupted() {
        return Err(RunError::Interrupted);
    }
    let context = log::LogContext {
        originals: &snapshot.originals,
        predicate: &original_predicate,
        policy: policy.enabled().then_some(&policy),
        initial_digest: &initial_digest,
        entries: &reduced.log,
        reduced: &reduced.case,
    };
    let log_bytes = log::render(&context);
    publish(&args.output, &reduced.case, &log_bytes)?;
    Ok(format!(
        "wrote {} with {} code object(s); digest {}",
        args.output.display(),
        reduced.case.objects.len(),
        reduced.case.content_digest()
    ))
}

/// Lists every object's sections before any predicate runs; every object must be AMDGPU ELF.
/// Progress says so (a plain line, then the object being listed on a live line).
fn list_sections(
    tools: &ElfTools,
    case: &mut BundleCase,
    progress: &Progress,
) -> Result<(), RunError> {
    let count = case.objects.len();
    progress.message(&format!("listing the sections of {count} code object(s)"));
    for (index, object) in case.objects.iter_mut().enumerate() {
        let item = format!("object {} ({}/{count})", object.id, index + 1);
        progress.start_up("listing sections", Some(item));
        match tools.list_bytes(&object.bytes) {
            Ok(listing) => object.sections = Some(Arc::new(listing)),
            Err(ToolError::Interrupted) => return Err(RunError::Interrupted),
            Err(message) => {
                return Err(failed(format!(
                    "code object {:?}: {message} (section removal requires AMDGPU ELF input and working LLVM tools)",
                    object.id
                )))
            }
        }
    }
    Ok(())
}

/// Publishes the result atomically. If the output location became unusable during the run (its
/// parent was removed or made read-only after the start-up check), the hours of work are not
/// thrown away: the result is published under `minrepro-rescued-NAME-DIGEST` in the current
/// directory instead, and the error says where.
fn publish(output: &Path, case: &BundleCase, log_bytes: &[u8]) -> Result<(), RunError> {
    let build = |dir: &Path| -> Result<(), String> {
        workspace::materialize(case, dir).map_err(|e| format!("cannot write the output: {e}"))?;
        std::fs::write(dir.join("reduction-log.json"), log_bytes)
            .map_err(|e| format!("cannot write the log: {e}"))?;
        if is_interrupted() {
            return Err("interrupted".into());
        }
        Ok(())
    };
    let message = match publish_directory(output, build) {
        Ok(()) => return Ok(()),
        Err(_) if is_interrupted() => return Err(RunError::Interrupted),
        // Someone else's result appeared at the output: never rescued elsewhere.
        Err(error @ PublishError::AlreadyExists(_)) => return Err(failed(error.to_string())),
        Err(error) => error.to_string(),
    };
    let name = output
        .file_name()
        .map(|n| workspace::sanitize_name(&n.to_string_lossy()))
        .unwrap_or_else(|| "output".into());
    let digest = case.content_digest();
    let rescue = Path::new(&format!("minrepro-rescued-{name}-{}", &digest[..12])).to_path_buf();
    match publish_directory(&rescue, build) {
        Ok(()) => Err(failed(format!(
            "{message}; the reduced result was published to {} instead",
            std::path::absolute(&rescue).unwrap_or(rescue).display()
        ))),
        Err(_) if is_interrupted() => Err(RunError::Interrupted),
        Err(second) => Err(failed(format!(
            "{message}; publishing to {} instead also failed: {second}",
            rescue.display()
        ))),
    }
}
