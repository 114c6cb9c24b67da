//! How a front end's run ends when it does not succeed, and the exit status that says so.

use minrepro_engine::EngineError;

/// How a front end's run ends when it does not succeed.
#[derive(Debug, thiserror::Error)]
pub enum RunError {
    /// Bad command line (exit 2).
    #[error("{0}")]
    Usage(String),
    /// Anything else that stops the run (exit 1).
    #[error("{0}")]
    Failed(String),
    /// SIGINT/SIGTERM (exit 130); nothing new was published.
    #[error("interrupted")]
    Interrupted,
}

impl RunError {
    /// The process exit status: usage 2, failure 1, interruption 130.
    pub fn exit_code(&self) -> u8 {
        match self {
            RunError::Usage(_) => 2,
            RunError::Failed(_) => 1,
            RunError::Interrupted => 130,
        }
    }
}

impl From<EngineError> for RunError {
    fn from(error: EngineError) -> Self {
        match error {
            EngineError::Interrupted => RunError::Interrupted,
            EngineError::OriginalNotInteresting(outcome) => {
                RunError::Failed(crate::stats::describe_uninteresting(&outcome))
            }
            other => RunError::Failed(other.to_string()),
        }
    }
}
