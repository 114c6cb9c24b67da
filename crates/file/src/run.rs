//! `minrepro file` from the command line to the published result.

use std::path::{Path, PathBuf};

use std::sync::Arc;

use minrepro_cache::OutcomeCache;
use minrepro_driver::{claim_output, open_cache, ReportRequest, RunError, StatsExtra, StrategyArg};
use minrepro_engine::{Engine, EngineOptions, Progress, TempRoot};
use minrepro_predicate::{Launch, Predicate, Status};
use minrepro_text::{reduce_text, DocSet, Language, Publish, TextJob, TextOracle};

use crate::args::FileArgs;
use crate::includes::Includes;
use crate::language::TextFile;
use crate::output::{orig_path, output, single_text, Output};
use crate::tree::{self, Origin, Tree};

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
    let config = args.predicate.config_matching(
        executable,
        vec!["file", "workspace"],
        args.err_msg.as_deref(),
        None,
        Vec::new(),
    );
    let launch = args.predicate.launch()?;
    let predicate = Predicate::new(config)
        .map_err(|e| RunError::Usage(test_error(args, e)))?
        .with_launch(launch.clone());
    Ok((predicate, launch, inputs))
}

/// The message of a test that cannot be used; when the first operand is no executable file but
/// a later one is, the operands are likely swapped, and the message says the test comes first.
fn test_error(args: &FileArgs, error: minrepro_predicate::PredicateError) -> String {
    use minrepro_predicate::{ExecutableError, PredicateError};
    let not_runnable = matches!(
        error,
        PredicateError::Executable(ExecutableError::NotExecutable(_))
            | PredicateError::Executable(ExecutableError::NotRegular(_))
    );
    let executable = |path: &Path| {
        use std::os::unix::fs::PermissionsExt;
        std::fs::metadata(path).is_ok_and(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
    };
    let swapped = match args.operands.as_slice() {
        [first, rest @ ..] if args.predicate.predicate.is_none() && not_runnable => rest
            .iter()
            .find(|p| executable(p))
            .map(|test| (first, test)),
        _ => None,
    };
    match swapped {
        Some((first, test)) => format!(
            "{} is not an executable test, but {} is: the test comes first: minrepro file TEST \
             FILE... (here: minrepro file {} {} ...)",
            first.display(),
            test.display(),
            test.display(),
            first.display()
        ),
        None => error.to_string(),
    }
}

/// Why a test that accepts empty files is refused, and what to do.
fn empty_accepted(files: usize) -> String {
    let what = if files == 1 {
        "an empty file"
    } else {
        "empty files"
    };
    format!(
        "the test also accepts {what}, so it probably checks too little (a reduction would \
         end with nothing): make it look for the failure itself, e.g. grep the compiler's \
         error message or give --err-msg MSG, and reject inputs that fail for another reason \
         (do not parse or compile). Pass --allow-empty if an empty result is what you want. \
         Nothing was written"
    )
}

/// Runs `minrepro file`; returns the success line.
pub fn run(args: &FileArgs) -> Result<String, RunError> {
    if args.list_languages {
        return Ok(crate::syntax::list_languages());
    }
    let (predicate, launch, inputs) = predicate(args)?;
    for input in &inputs {
        minrepro_driver::check_input_exists(input, "input")?;
    }
    let failed = |e: tree::InputError| RunError::Failed(e.to_string());
    let origins = tree::origins(&inputs).map_err(failed)?;
    let original = tree::load(&origins).map_err(failed)?;
    let output_path = match (&args.output, args.in_place) {
        (Some(path), false) => path.clone(),
        _ => PathBuf::from("/nonexistent-minrepro-output"),
    };
    let mut protected: Vec<PathBuf> = origins.iter().map(|o| o.path.clone()).collect();
    protected.extend(predicate.identity_files().iter().map(|f| f.path.clone()));
    let cache = open_cache(args.common.cache_file.as_deref(), &protected, &output_path)?;
    let resumed = !args.in_place && claim_output(&cache, &output_path);
    let output = output(args, &inputs, &origins, resumed)?;
    let grammar = match original.files.as_slice() {
        [one] => crate::syntax::grammar(args.language.as_deref(), &one.name)?,
        _ => None,
    };
    let mut kept: Vec<&Path> = origins.iter().map(|o| o.path.as_path()).collect();
    if let Output::File(path) | Output::Dir(path) = &output {
        kept.push(path);
    }
    minrepro_driver::check_report_path(args.common.report.as_deref(), &kept)?;
    let single_path = single_text(&output, &original).map(|(path, _)| path);
    let set = single_path.is_none();
    let languages: Vec<(String, TextFile)> = original
        .files
        .iter()
        .map(|f| {
            let file = TextFile {
                syntax: f.syntax(),
                latin1: matches!(f.content, tree::Content::Latin1(_)),
                standalone: true,
            };
            (f.name.clone(), file)
        })
        .collect();
    let case = Case {
        args,
        original: &original,
        origins: &origins,
        output: &output,
        single_path,
        predicate: &predicate,
        launch: &launch,
        cache: &cache,
    };
    match crate::syntax::syntax_aware(grammar, languages.clone())? {
        Some(languages) => reduce(DocSet::new(languages, set), case),
        None if set => reduce(
            DocSet::new(languages, set).with_rewrites(Arc::new(Includes)),
            case,
        ),
        None => reduce(DocSet::new(languages, set), case),
    }
}

/// What [`reduce`] works on.
struct Case<'a> {
    args: &'a FileArgs,
    original: &'a Tree,
    origins: &'a [Origin],
    output: &'a Output,
    /// The output file when the case is one file (the text layer writes it); `None`: the case
    /// is a set of documents (several files, or one in a directory), written by `publish`.
    single_path: Option<PathBuf>,
    predicate: &'a Predicate,
    launch: &'a Launch,
    cache: &'a OutcomeCache,
}

impl Case<'_> {
    /// The text of `tree` for the text layer: its one file's text, or the set's.
    fn text_of(&self, tree: &Tree) -> String {
        match self.single_path.is_none() {
            true => minrepro_text::join_docs(&tree.docs()),
            false => tree.files[0].text().unwrap_or_default().to_owned(),
        }
    }

    /// The tree of a text of the text layer.
    fn tree_of(&self, text: &str) -> Tree {
        let docs = minrepro_text::split_docs(text, &self.original.files[0].name);
        Tree::of_docs(docs)
    }
}

/// Judges the original (and, without --allow-empty, empty files), then reduces it in
/// `language` and publishes the result; returns the success line.
fn reduce<L: Language>(language: DocSet<L>, case: Case<'_>) -> Result<String, RunError>
where
    DocSet<L>: Language,
{
    let (args, original, output) = (case.args, case.original, case.output);
    let progress = Progress::new("minrepro file", "tokens", args.common.quiet);
    let temp = TempRoot::new_in(args.predicate.work_dir.as_deref())
        .map_err(|e| RunError::Failed(format!("cannot create a temporary directory: {e}")))?;
    let file_name = original.files[0].name.clone();
    let oracle = TextOracle::new(&language, case.predicate, &temp, file_name.clone())
        .with_executor(case.launch.executor());
    let options = EngineOptions {
        jobs: args.common.jobs as usize,
        config_digest: case.predicate.config_digest().to_owned(),
        size_unit: "tokens",
        exact: args.common.exact_order(),
    };
    let text = case.text_of(original);
    progress.message("running the original");
    let judge = |text: &String| {
        Engine::new(&oracle, case.cache, options.clone(), &progress).judge(text, true)
    };
    let first = judge(&text)?;
    // The verdict goes to the reduction that follows, which then does not run the original again.
    if first.status != Status::Interesting {
        let expected =
            minrepro_driver::Expectation::of(&args.predicate, args.err_msg.as_deref(), true);
        return Err(expected.not_reproduced(&first));
    }
    if !args.allow_empty {
        progress.message("running the test on empty files (--allow-empty skips this)");
        let empty = judge(&case.text_of(&original.emptied()))?;
        if empty.status == Status::Interesting {
            return Err(RunError::Failed(empty_accepted(original.files.len())));
        }
    }
    if let Output::InPlace(origins) = output {
        for origin in origins {
            std::fs::copy(&origin.path, orig_path(&origin.path)).map_err(|e| {
                RunError::Failed(format!("cannot keep {}: {e}", origin.path.display()))
            })?;
        }
    } else {
        // From now on the output always holds the smallest interesting tree so far.
        output
            .write(original, case.origins)
            .map_err(|e| RunError::Failed(format!("cannot write {}: {e}", output.describe())))?;
    }
    // With several runs agreeing, the reduction judges the original once more (the text layer
    // keys it apart); with --min-interesting its counted verdict stands, as a cached one would.
    let once = args.predicate.predicate_runs <= 1 || args.predicate.min_interesting.is_some();
    let publish = |text: &str| {
        output
            .write(&case.tree_of(text), case.origins)
            .map_err(|e| format!("cannot write {}: {e}", output.describe()))
    };
    let output_path = case.single_path.clone().unwrap_or_default();
    let run = reduce_text(
        language,
        TextJob {
            front_end: "minrepro file",
            original: &text,
            original_outcome: once.then_some(first),
            predicate: case.predicate,
            executor: case.launch.executor(),
            temp: &temp,
            cache: case.cache,
            progress: &progress,
            file_name,
            placeholders: Vec::new(),
            output: &output_path,
            publish: case.single_path.is_none().then_some(&publish as &Publish),
            strategy: match args.strategy {
                StrategyArg::ProbDd => minrepro_text::Strategy::ProbDd,
                StrategyArg::Ddmin => minrepro_text::Strategy::Ddmin,
            },
            jobs: args.common.jobs as usize,
            exact: args.common.exact_order(),
            rejudge: minrepro_text::Rejudge::Never,
        },
    );
    let extra = StatsExtra {
        runs: 0, // the original's first run was counted when it ran (or answered from the cache)
        run_limit: Some(run.run_limit),
        fields: Vec::new(),
    };
    let stats = &run.stats;
    let reduced = run.reduced.as_deref().map(|text| case.tree_of(text));
    let report = args.common.report.as_deref().map(|path| ReportRequest {
        path,
        front_end: "minrepro file",
        original: documents(original),
        result: reduced.as_ref().map(documents).unwrap_or_default(),
    });
    minrepro_driver::conclude(
        &progress,
        run.size_unit,
        (run.result, stats),
        args.common.stats_json.as_deref(),
        extra,
        report,
    )?;
    if case.single_path.is_some() {
        return Ok(format!(
            "minrepro file: wrote {} ({} tokens, was {})",
            output.describe(),
            stats.size_after,
            stats.size_before
        ));
    }
    let files = |n: usize| match n {
        1 => "1 file".to_owned(),
        _ => format!("{n} files"),
    };
    let kept = reduced
        .as_ref()
        .map_or(original.files.len(), |t| t.files.len());
    // The figures of the statistics line: a set's size counts each file as a token.
    Ok(format!(
        "minrepro file: wrote {} ({} tokens in {}, was {} in {}; each file counts as a token)",
        output.describe(),
        stats.size_after,
        files(kept),
        stats.size_before,
        files(original.files.len())
    ))
}

/// A tree's files for the report (binary ones by their size).
fn documents(tree: &Tree) -> Vec<minrepro_driver::Document> {
    tree.files
        .iter()
        .map(|f| minrepro_driver::Document {
            name: f.name.clone(),
            text: f
                .text()
                .map(str::to_owned)
                .unwrap_or_else(|| format!("(binary, {} bytes)\n", f.bytes().len())),
        })
        .collect()
}
