//! `minrepro file` from the command line to the published result.

use std::path::{Path, PathBuf};

use minrepro_driver::{check_output_location, open_cache, stats_json, write_atomically, RunError};
use minrepro_engine::{Engine, EngineError, EngineOptions, Pass, Progress, Reduction, TempRoot};
use minrepro_predicate::{Acceptance, Launch, Outcome, Predicate, Status};
use minrepro_text::TextJob;

use crate::args::{FileArgs, StrategyArg};
use crate::inline::InlinePass;
use crate::language::TextFile;
use crate::oracle::TreeOracle;
use crate::passes::{FilesPass, GroupPass, Strategy};
use crate::tree::{self, File, Origin, Tree};

/// Where accepted trees go.
enum Output {
    /// One file.
    File(PathBuf),
    /// A directory holding the tree under its relative names.
    Dir(PathBuf),
    /// Back over the inputs (originals kept as `.orig`).
    InPlace(Vec<Origin>),
}

impl Output {
    /// Writes `tree` (each file atomically) and removes what it no longer holds.
    fn write(&self, tree: &Tree, all: &[Origin]) -> std::io::Result<()> {
        match self {
            Output::File(path) => {
                let file = tree.files.first().map(File::bytes).unwrap_or_default();
                write_atomically(path, &file)
            }
            Output::Dir(dir) => place(tree, all, |name| Some(dir.join(name))),
            Output::InPlace(origins) => place(tree, all, |name| {
                origins
                    .iter()
                    .find(|o| o.name == name)
                    .map(|o| o.path.clone())
            }),
        }
    }

    fn describe(&self) -> String {
        match self {
            Output::File(path) | Output::Dir(path) => path.display().to_string(),
            Output::InPlace(origins) => match origins.as_slice() {
                [one] => format!("{} (in place)", one.path.display()),
                _ => format!("{} files in place", origins.len()),
            },
        }
    }
}

/// Writes every file of `tree` where `path_of` puts it and removes the files of `all` it lacks.
fn place(
    tree: &Tree,
    all: &[Origin],
    path_of: impl Fn(&str) -> Option<PathBuf>,
) -> std::io::Result<()> {
    for file in &tree.files {
        if let Some(path) = path_of(&file.name) {
            if let Some(parent) = path.parent() {
                std::fs::create_dir_all(parent)?;
            }
            write_atomically(&path, &file.bytes())?;
        }
    }
    for origin in all {
        if !tree.files.iter().any(|f| f.name == origin.name) {
            if let Some(path) = path_of(&origin.name) {
                match std::fs::remove_file(&path) {
                    Err(e) if e.kind() != std::io::ErrorKind::NotFound => return Err(e),
                    _ => {}
                }
            }
        }
    }
    Ok(())
}

/// The predicate: the test script of C-Reduce's form, or --predicate.
fn predicate(args: &FileArgs) -> Result<(Predicate, Launch, Vec<PathBuf>), RunError> {
    let usage = |m: &str| RunError::Usage(m.to_owned());
    let (executable, inputs) = match &args.predicate.predicate {
        Some(exe) => (exe.clone(), args.operands.clone()),
        None => {
            let [test, inputs @ ..] = args.operands.as_slice() else {
                unreachable!("clap requires an operand");
            };
            if inputs.is_empty() {
                return Err(usage(
                    "give the interestingness test and at least one input: minrepro file ./interesting.sh FILE... (or --predicate EXE with inputs)",
                ));
            }
            let test = std::path::absolute(test).unwrap_or_else(|_| test.clone());
            (test.to_string_lossy().into_owned(), inputs.to_vec())
        }
    };
    let config = args.predicate.config(
        executable,
        vec!["file", "workspace"],
        Acceptance::default(),
        Some(0),
        Vec::new(),
    );
    let launch = args.predicate.launch()?;
    let predicate = Predicate::new(config)
        .map_err(|e| RunError::Usage(e.to_string()))?
        .with_launch(launch.clone());
    Ok((predicate, launch, inputs))
}

/// Checks the output choice and returns it.
fn output(args: &FileArgs, inputs: &[PathBuf], origins: &[Origin]) -> Result<Output, RunError> {
    if args.in_place {
        for origin in origins {
            let backup = orig_path(&origin.path);
            if std::fs::symlink_metadata(&backup).is_ok() {
                return Err(RunError::OutputExists {
                    path: backup,
                    reason: "--in-place keeps the original there and never overwrites it".into(),
                });
            }
        }
        return Ok(Output::InPlace(origins.to_vec()));
    }
    let Some(path) = &args.output else {
        return Err(RunError::Usage(
            "say where the result goes: -o PATH (a new file or directory) or --in-place".into(),
        ));
    };
    check_output_location(path).map_err(|e| RunError::Failed(e.to_string()))?;
    let single = inputs.len() == 1 && origins.len() == 1 && inputs[0] == origins[0].path;
    Ok(if single {
        Output::File(path.clone())
    } else {
        Output::Dir(path.clone())
    })
}

/// `FILE.orig`.
fn orig_path(path: &Path) -> PathBuf {
    let mut name = path.as_os_str().to_owned();
    name.push(".orig");
    PathBuf::from(name)
}

/// Runs `minrepro file`; returns the success line.
pub fn run(args: &FileArgs) -> Result<String, RunError> {
    if args.list_languages {
        return Ok(crate::syntax::list_languages());
    }
    let (predicate, launch, inputs) = predicate(args)?;
    let failed = |e: tree::InputError| RunError::Failed(e.to_string());
    let origins = tree::origins(&inputs).map_err(failed)?;
    let original = tree::load(&origins).map_err(failed)?;
    let output = output(args, &inputs, &origins)?;
    let grammar = match original.files.as_slice() {
        [one] => crate::syntax::grammar(args.language.as_deref(), &one.name)?,
        _ => None,
    };
    let mut protected: Vec<PathBuf> = origins.iter().map(|o| o.path.clone()).collect();
    protected.extend(predicate.identity_files().iter().map(|f| f.path.clone()));
    let output_path = match &output {
        Output::File(p) | Output::Dir(p) => p.clone(),
        Output::InPlace(_) => PathBuf::from("/nonexistent-minrepro-output"),
    };
    let cache = open_cache(args.common.cache_file.as_deref(), &protected, &output_path)?;
    let progress = Progress::new("minrepro file", "tokens", args.common.quiet);
    let temp = TempRoot::new_in(args.predicate.work_dir.as_deref())
        .map_err(|e| RunError::Failed(format!("cannot create a temporary directory: {e}")))?;
    let oracle = TreeOracle::new(&predicate, &temp);
    let options = EngineOptions {
        jobs: args.common.jobs as usize,
        config_digest: predicate.config_digest().to_owned(),
        size_unit: "tokens",
        exact: !args.common.fold,
    };
    progress.message("running the original");
    let first = Engine::new(&oracle, &cache, options.clone(), &progress).judge(&original, true)?;
    // The verdict goes to the reduction that follows, which then does not run the original again.
    if first.status != Status::Interesting {
        return Err(RunError::not_reproduced(&first));
    }
    if let Output::InPlace(origins) = &output {
        for origin in origins {
            std::fs::copy(&origin.path, orig_path(&origin.path)).map_err(|e| {
                RunError::Failed(format!("cannot keep {}: {e}", origin.path.display()))
            })?;
        }
    } else {
        // From now on the output always holds the smallest interesting tree so far.
        output
            .write(&original, &origins)
            .map_err(|e| RunError::Failed(format!("cannot write {}: {e}", output.describe())))?;
    }
    let known = (args.predicate.predicate_runs <= 1).then_some(first);
    let jobs = args.common.jobs as usize;
    if let Some(job) = single_text(&output, &original) {
        let (path, text) = job;
        let reduced = crate::syntax::reduce_single(
            grammar,
            TextFile {
                syntax: original.files[0].syntax(),
                latin1: matches!(original.files[0].content, tree::Content::Latin1(_)),
                standalone: true,
            },
            TextJob {
                front_end: "minrepro file",
                original: text,
                original_outcome: known,
                predicate: &predicate,
                executor: launch.executor(),
                temp: &temp,
                cache: &cache,
                progress: &progress,
                file_name: original.files[0].name.clone(),
                placeholders: Vec::new(),
                output: &path,
                stats_json: args.stats_json.as_deref(),
                strategy: match args.strategy {
                    StrategyArg::ProbDd => minrepro_text::Strategy::ProbDd,
                    StrategyArg::Ddmin => minrepro_text::Strategy::Ddmin,
                },
                jobs,
                exact: !args.common.fold,
            },
        )?;
        return Ok(format!(
            "minrepro file: wrote {} ({} tokens, was {})",
            output.describe(),
            reduced.size_after,
            reduced.size_before
        ));
    }
    reduce_tree(
        args,
        (&original, &origins, known),
        &output,
        (&oracle, &cache, &progress),
        options,
    )
}

/// The output file and text when the case is one text file whose name has no directory (the
/// text layer reduces it in a workspace holding just that file).
fn single_text<'t>(output: &Output, tree: &'t Tree) -> Option<(PathBuf, &'t str)> {
    let [file] = tree.files.as_slice() else {
        return None;
    };
    let path = match output {
        Output::File(path) => path.clone(),
        Output::InPlace(origins) => origins[0].path.clone(),
        Output::Dir(_) => return None,
    };
    (!file.name.contains('/'))
        .then_some(())
        .and(file.text().map(|text| (path, text)))
}

/// Reduces several files or a tree with [`GroupPass`]es after whole-file removal and header
/// inlining.
fn reduce_tree(
    args: &FileArgs,
    (original, origins, known): (&Tree, &[Origin], Option<Outcome>),
    output: &Output,
    (oracle, cache, progress): (&TreeOracle<'_>, &minrepro_cache::OutcomeCache, &Progress),
    options: EngineOptions,
) -> Result<String, RunError> {
    let strategy = match args.strategy {
        StrategyArg::ProbDd => Strategy::ProbDd,
        StrategyArg::Ddmin => Strategy::Ddmin,
    };
    let (files, inline) = (FilesPass, InlinePass);
    let groups = GroupPass::all(strategy);
    let mut passes: Vec<&dyn Pass<Tree>> = Vec::new();
    if original.files.len() > 1 {
        passes.push(&files);
        passes.push(&inline);
    }
    passes.extend(groups.iter().map(|p| p as &dyn Pass<Tree>));
    let mut on_accept = |tree: &Tree| {
        output
            .write(tree, origins)
            .map_err(|e| EngineError::Fatal(format!("cannot write {}: {e}", output.describe())))
    };
    let mut reduction = Reduction::new(oracle, cache, progress, options)
        .passes(&passes)
        .on_accept(&mut on_accept);
    if let Some(outcome) = known {
        reduction = reduction.original_outcome(outcome);
    }
    let (result, stats) = minrepro_driver::reduce(reduction, original.clone());
    let original = original.clone();
    if let Some(path) = &args.stats_json {
        let value = stats_json(
            &stats,
            args.predicate.predicate_runs as usize,
            result.is_ok(),
        );
        let text = serde_json::to_string_pretty(&value).unwrap_or_default() + "\n";
        write_atomically(path, text.as_bytes())
            .map_err(|e| RunError::Failed(format!("cannot write {}: {e}", path.display())))?;
    }
    let reduced = match result {
        Ok(reduced) => reduced,
        Err(error) => {
            eprintln!(
                "minrepro file: {} holds the smallest interesting candidate found before the run stopped",
                output.describe()
            );
            return Err(error);
        }
    };
    let (before, after) = (original.size(), reduced.case.size());
    Ok(format!(
        "minrepro file: wrote {} ({} tokens in {} file(s), was {} in {})",
        output.describe(),
        after.0 - reduced.case.files.len(),
        reduced.case.files.len(),
        before.0 - original.files.len(),
        original.files.len()
    ))
}
