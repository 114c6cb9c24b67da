//! How a front end's run ends when it does not succeed, and the exit status that says so.

use std::path::PathBuf;

use minrepro_engine::EngineError;
use minrepro_predicate::Status;

/// How a front end's run ends when it does not succeed.
#[derive(Debug, thiserror::Error)]
pub enum RunError {
    /// Bad command line (exit 2).
    #[error("{0}")]
    Usage(String),
    /// The original input does not reproduce (exit 1): its verdict and the explanation.
    #[error("{explanation}")]
    NotReproduced {
        /// The original's verdict (never interesting).
        status: Status,
        /// Why, in the user's terms.
        explanation: String,
    },
    /// The output already exists and may not be replaced (exit 1).
    #[error("{} already exists; {reason}", path.display())]
    OutputExists {
        /// The output.
        path: PathBuf,
        /// Why it is kept and what to do instead.
        reason: String,
    },
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
            RunError::NotReproduced { .. }
            | RunError::OutputExists { .. }
            | RunError::Failed(_) => 1,
            RunError::Interrupted => 130,
        }
    }

    /// The original's `outcome` was not interesting, explained in general terms.
    pub fn not_reproduced(outcome: &minrepro_predicate::Outcome) -> Self {
        RunError::NotReproduced {
            status: outcome.status,
            explanation: crate::explain::describe_uninteresting(outcome),
        }
    }
}

impl From<EngineError> for RunError {
    fn from(error: EngineError) -> Self {
        match error {
            EngineError::Interrupted => RunError::Interrupted,
            EngineError::OriginalNotInteresting(outcome) => RunError::not_reproduced(&outcome),
            other => RunError::Failed(other.to_string()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use minrepro_predicate::{CapturedStream, Outcome};

    #[test]
    fn typed_failures_keep_their_messages_and_exit_codes() {
        let stderr = CapturedStream {
            tail: "boom\n".into(),
            ..CapturedStream::default()
        };
        let outcome = Outcome::of_one_run(
            Status::Uninteresting,
            Some(3),
            CapturedStream::default(),
            stderr,
        );
        let error = RunError::from(EngineError::OriginalNotInteresting(Box::new(outcome)));
        assert!(matches!(
            error,
            RunError::NotReproduced {
                status: Status::Uninteresting,
                ..
            }
        ));
        let message = error.to_string();
        assert!(
            message.contains("not interesting") && message.contains("exit codes [3]"),
            "{message}"
        );
        assert!(message.contains("boom"), "{message}");
        assert_eq!(error.exit_code(), 1);

        let exists = RunError::OutputExists {
            path: "o.py".into(),
            reason: "pass --force".into(),
        };
        assert_eq!(exists.to_string(), "o.py already exists; pass --force");
        assert_eq!(exists.exit_code(), 1);
        assert_eq!(RunError::Usage("bad".into()).exit_code(), 2);
        assert_eq!(RunError::Interrupted.exit_code(), 130);
    }
}
