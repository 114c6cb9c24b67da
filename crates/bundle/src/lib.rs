//! `minrepro bundle`: reduces a JSON bundle of AMDGPU code objects and its metadata lists while a
//! user's predicate command keeps returning the interesting exit code.
//!
//! Modules: [`args`] (command line), [`input`] (loading, validation, snapshot), [`case`] (the
//! test case and its digest), [`metadata`] (the shared-list metadata document), [`workspace`] (candidate directories and placeholders), [`store`]
//! (the content store candidate files are hard linked from), [`passes`] (ddmin passes),
//! [`sections`] and [`elf_tools`] (section policy and LLVM tools), [`oracle`] (the engine's view
//! of a candidate), [`log`] (the deterministic reduction log), [`strict_json`] (input JSON
//! without duplicate keys).

pub mod args;
pub mod case;
pub mod elf_tools;
pub mod input;
pub mod log;
pub mod metadata;
pub mod oracle;
pub mod passes;
pub mod sections;
pub mod store;
pub mod strict_json;
pub mod workspace;

use std::path::Path;
use std::sync::Arc;

use minrepro_engine::{
    check_output_location, open_cache, publish_directory, reduce_with_engine, EngineOptions, Pass,
    Progress, RunError, TempRoot,
};
use minrepro_predicate::{is_interrupted, Acceptance, Predicate};

pub use args::BundleArgs;
use case::BundleCase;
use elf_tools::{ElfTools, ToolError};
use input::METADATA_LISTS;
use passes::{CaseArgumentsPass, MetadataListPass, ObjectPass, SectionPass};
use sections::SectionPolicy;

fn failed(message: impl Into<String>) -> RunError {
    RunError::Failed(message.into())
}

/// Runs a bundle reduction; returns the success line.
pub fn run(args: &BundleArgs) -> Result<String, RunError> {
    args.check()?;
    let source = args.input_source()?;
    let launch = args.predicate.launch()?;
    check_output_location(&args.output).map_err(failed)?;
    let snapshot = input::load(&source).map_err(|e| failed(e.to_string()))?;
    let executable = args.predicate.predicate.clone().unwrap_or_default();
    let config = args.predicate.config(
        executable,
        workspace::PLACEHOLDERS.to_vec(),
        Acceptance::default(),
        Some(0),
        Vec::new(),
    );
    let predicate = Predicate::new(config)
        .map_err(|e| failed(e.to_string()))?
        .with_launch(launch);
    let uses_input = predicate.template().uses("input");
    if uses_input && snapshot.case.objects.len() != 1 {
        return Err(RunError::Usage(format!(
            "{{input}} names the sole code object, but the input has {} code objects; use {{bundle}} or {{workspace}}",
            snapshot.case.objects.len()
        )));
    }
    let min_objects = usize::from(!args.allow_empty_bundle || uses_input);
    if snapshot.case.objects.len() < min_objects {
        return Err(failed(
            "the input has no code objects (use --allow-empty-bundle to accept that)",
        ));
    }
    let policy = SectionPolicy {
        allow: args.allow_remove_section.clone(),
        protect: args.protect_section.clone(),
    };
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
        .map_err(failed)?;
        list_sections(&tools, &mut original)?;
        Some(Arc::new(tools))
    } else {
        None
    };
    let mut protected = snapshot.input_paths();
    protected.extend(predicate.identity_files().iter().map(|f| f.path.clone()));
    let cache = open_cache(args.common.cache_file.as_deref(), &protected, &args.output)?;
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
    let section_pass = tools.map(|tools| SectionPass {
        tools,
        policy: Arc::new(policy.clone()),
        quiet: args.common.quiet,
    });
    let mut passes: Vec<&dyn Pass<BundleCase>> = vec![&object_pass];
    passes.extend(list_passes.iter().map(|p| p as &dyn Pass<BundleCase>));
    passes.push(&CaseArgumentsPass);
    if let Some(pass) = &section_pass {
        passes.push(pass);
    }
    let progress = Progress::new("minrepro bundle", "bytes", args.common.quiet);
    let options = EngineOptions {
        jobs: args.common.jobs as usize,
        config_digest: predicate.config_digest().to_owned(),
        size_unit: "bytes",
    };
    let initial_digest = original.content_digest();
    let reduced = reduce_with_engine(
        &oracle,
        &passes,
        original,
        &cache,
        options,
        &progress,
        &mut |_| Ok(()),
    )?;
    if is_interrupted() {
        return Err(RunError::Interrupted);
    }
    let context = log::LogContext {
        originals: &snapshot.originals,
        predicate: &predicate,
        policy: &policy,
        initial_digest: &initial_digest,
        original_outcome: &reduced.original_outcome,
        entries: &reduced.log,
        reduced: &reduced.case,
        allow_empty_bundle: args.allow_empty_bundle,
    };
    let log_bytes = log::render(&context).map_err(failed)?;
    publish(&args.output, &reduced.case, &log_bytes)?;
    Ok(format!(
        "{}: {} code object(s), final digest {}",
        args.output.display(),
        reduced.case.objects.len(),
        reduced.case.content_digest()
    ))
}

/// Lists every object's sections before any predicate runs; every object must be AMDGPU ELF.
fn list_sections(tools: &ElfTools, case: &mut BundleCase) -> Result<(), RunError> {
    for object in &mut case.objects {
        match tools.list_bytes(&object.bytes) {
            Ok(listing) => object.sections = Some(Arc::new(listing)),
            Err(ToolError::Interrupted) => return Err(RunError::Interrupted),
            Err(ToolError::Failed(message)) => {
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
        Err(message) => message,
    };
    if message.contains("already exists") {
        return Err(failed(message));
    }
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
