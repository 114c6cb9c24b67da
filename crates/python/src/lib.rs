//! `minrepro python`: AutoDD-style reduction of a Python program by syntax-tree rewrites while a
//! failure message keeps appearing in its output.

use minrepro_engine::{CommonArgs, PredicateArgs, RunError};

/// Command line of `minrepro python`.
#[derive(Debug, Clone, clap::Args)]
pub struct PythonArgs {
    /// Engine flags.
    #[command(flatten)]
    pub common: CommonArgs,
    /// Predicate flags.
    #[command(flatten)]
    pub predicate: PredicateArgs,
}

/// Runs a Python reduction; returns the success line.
pub fn run(_args: &PythonArgs) -> Result<String, RunError> {
    Err(RunError::Failed("not yet implemented".into()))
}
