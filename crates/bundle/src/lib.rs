//! `minrepro bundle`: reduces a JSON bundle of AMDGPU code objects and its metadata lists while a
//! user's predicate command keeps returning the interesting exit code.

use minrepro_engine::{CommonArgs, PredicateArgs, RunError};

/// Command line of `minrepro bundle`.
#[derive(Debug, Clone, clap::Args)]
pub struct BundleArgs {
    /// Engine flags.
    #[command(flatten)]
    pub common: CommonArgs,
    /// Predicate flags.
    #[command(flatten)]
    pub predicate: PredicateArgs,
}

/// Runs a bundle reduction; returns the success line.
pub fn run(_args: &BundleArgs) -> Result<String, RunError> {
    Err(RunError::Failed("not yet implemented".into()))
}
