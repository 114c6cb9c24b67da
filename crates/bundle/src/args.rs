//! Command line of `minrepro bundle` and its usage checks.

use std::path::PathBuf;

use minrepro_driver::{parse_timeout_seconds, CommonArgs, PredicateArgs, RunError};

use crate::input::InputSource;

/// Extra help text of `minrepro bundle --help`: the placeholders and what a run writes.
pub const LONG_HELP: &str = "\
The predicate is an argv vector (--predicate EXE, then each --predicate-arg), never a shell\n\
string. It runs once per candidate in the candidate's private workspace (its working directory),\n\
exit code --interesting-exit-code (default 0) meaning \"still failing\". Its arguments may use:\n\
  {bundle}     the candidate's bundle.json\n\
  {metadata}   the candidate's metadata.json\n\
  {input}      the sole code object (only when exactly one is left; refused otherwise)\n\
  {workspace}  the candidate's directory\n\
  {slot}       this run's slot, 0..N-1 under -j N (also MINREPRO_SLOT; see --slot-env)\n\
\n\
OUTPUT (a new directory, published atomically) holds bundle.json, metadata.json, objects/ and\n\
reduction-log.json (the original reducer's comgr-hotswap-reduction-log schema and digests).\n\
Exit status: 0 success, 1 error, 2 usage error, 130 interrupted (nothing published).\n\
";

/// Command line of `minrepro bundle` (boxed, so the CLI's subcommand enum stays small).
#[derive(Debug, Clone, clap::Args)]
#[command(after_long_help = LONG_HELP)]
pub struct BundleArgs {
    /// The options.
    #[command(flatten)]
    pub options: Box<BundleOptions>,
}

impl std::ops::Deref for BundleArgs {
    type Target = BundleOptions;
    fn deref(&self) -> &BundleOptions {
        &self.options
    }
}

/// The options of `minrepro bundle`.
#[derive(Debug, Clone, clap::Args)]
pub struct BundleOptions {
    /// Input bundle JSON (object and metadata paths are relative to it).
    #[arg(long, value_name = "PATH")]
    pub bundle: Option<PathBuf>,
    /// A code object to reduce; repeat for more (instead of --bundle).
    #[arg(long = "code-object", value_name = "PATH")]
    pub code_objects: Vec<PathBuf>,
    /// NUL-delimited list of code-object paths (relative entries resolve from its directory).
    #[arg(long, value_name = "PATH")]
    pub worklist: Option<PathBuf>,
    /// Metadata or selector JSON (only with --code-object or --worklist).
    #[arg(long, value_name = "PATH")]
    pub metadata: Option<PathBuf>,
    /// Output directory; must not exist. Published atomically.
    #[arg(short = 'o', long, value_name = "PATH", required = true)]
    pub output: PathBuf,
    /// Allow the reduction to remove every code object.
    #[arg(long)]
    pub allow_empty_bundle: bool,
    /// Glob of non-allocated, unprotected sections that may be removed; repeatable. Section
    /// removal is off without it.
    #[arg(long, value_name = "GLOB")]
    pub allow_remove_section: Vec<String>,
    /// Glob of sections that must never be removed; repeatable.
    #[arg(long, value_name = "GLOB")]
    pub protect_section: Vec<String>,
    /// llvm-readobj to use.
    #[arg(long, value_name = "EXE", default_value = "llvm-readobj")]
    pub readobj: String,
    /// llvm-objcopy to use.
    #[arg(long, value_name = "EXE", default_value = "llvm-objcopy")]
    pub objcopy: String,
    /// Timeout in seconds for each llvm-readobj/llvm-objcopy run.
    #[arg(
        long,
        value_name = "SECONDS",
        default_value_t = 30.0,
        allow_hyphen_values = true,
        value_parser = parse_timeout_seconds
    )]
    pub tool_timeout: f64,
    /// Engine flags.
    #[command(flatten)]
    pub common: CommonArgs,
    /// Predicate flags.
    #[command(flatten)]
    pub predicate: PredicateArgs,
}

fn usage(message: impl Into<String>) -> RunError {
    RunError::Usage(message.into())
}

impl BundleOptions {
    /// The single input source, or a usage error.
    pub(crate) fn input_source(&self) -> Result<InputSource, RunError> {
        let given = usize::from(self.bundle.is_some())
            + usize::from(!self.code_objects.is_empty())
            + usize::from(self.worklist.is_some());
        if given != 1 {
            return Err(usage(
                "give exactly one input: --bundle, --code-object (repeatable) or --worklist",
            ));
        }
        if let Some(bundle) = &self.bundle {
            if self.metadata.is_some() {
                // Exit 1 with the original's words (its argument parser allows the pair).
                return Err(RunError::Failed(
                    "--bundle cannot be combined with --code-object, --worklist, or --metadata \
                     (a bundle names its own metadata)"
                        .into(),
                ));
            }
            return Ok(InputSource::Bundle(bundle.clone()));
        }
        if let Some(worklist) = &self.worklist {
            return Ok(InputSource::Worklist(
                worklist.clone(),
                self.metadata.clone(),
            ));
        }
        Ok(InputSource::CodeObjects(
            self.code_objects.clone(),
            self.metadata.clone(),
        ))
    }

    /// Checks the flags that need no file access.
    pub fn check(&self) -> Result<(), RunError> {
        if self.predicate.predicate.is_none() {
            return Err(usage("--predicate is required"));
        }
        for (flag, globs) in [
            ("--allow-remove-section", &self.allow_remove_section),
            ("--protect-section", &self.protect_section),
        ] {
            if globs.iter().any(String::is_empty) {
                return Err(usage(format!("{flag} must not be empty")));
            }
        }
        if let Some(stats) = &self.common.stats_json {
            let resolved = minrepro_driver::resolve_for_comparison(stats);
            let inputs = self
                .bundle
                .iter()
                .chain(&self.metadata)
                .chain(&self.worklist);
            let named = inputs.chain(&self.code_objects).chain([&self.output]);
            if named
                .into_iter()
                .any(|p| minrepro_driver::resolve_for_comparison(p) == resolved)
            {
                return Err(usage(format!(
                    "--stats-json {} is also an input or the output",
                    stats.display()
                )));
            }
        }
        Ok(())
    }
}
