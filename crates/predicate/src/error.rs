//! Typed errors of the predicate crate's set-up functions; each prints the one-line message the
//! command line shows.

use std::path::PathBuf;

/// Why a file's identity could not be recorded, or no longer holds.
#[derive(Debug, thiserror::Error)]
pub enum IdentityError {
    /// The file cannot be read.
    #[error("cannot read {}: {source}", path.display())]
    Unreadable {
        /// The file.
        path: PathBuf,
        /// Why.
        source: std::io::Error,
    },
    /// The path is no regular file.
    #[error("{} is not a regular file", .0.display())]
    NotRegular(PathBuf),
    /// The file disappeared or cannot be looked at any more.
    #[error("{} changed during the reduction: {source}", path.display())]
    Gone {
        /// The file.
        path: PathBuf,
        /// Why.
        source: std::io::Error,
    },
    /// The file's identity can no longer be read.
    #[error("{} changed during the reduction: {source}", path.display())]
    Changed {
        /// The file.
        path: PathBuf,
        /// Why its identity cannot be read.
        source: Box<IdentityError>,
    },
    /// The content or the mode differ from what was recorded.
    #[error(
        "predicate identity changed during the reduction: {} ({what} differs); aborting so that no \
         stale verdict is used",
        path.display()
    )]
    Differs {
        /// The file.
        path: PathBuf,
        /// `content` or `mode`.
        what: &'static str,
    },
}

/// Why an executable name does not resolve to an executable regular file.
#[derive(Debug, thiserror::Error)]
pub enum ExecutableError {
    /// The name is empty.
    #[error("the predicate executable is empty")]
    Empty,
    /// The path cannot be made absolute.
    #[error("{name}: {source}")]
    Path {
        /// The name or path.
        name: String,
        /// Why.
        source: std::io::Error,
    },
    /// A path that is no regular file.
    #[error("predicate executable {0} is not a regular file")]
    NotRegular(String),
    /// A regular file without execute permission.
    #[error("predicate executable {0} is not executable; make it so with: chmod +x {0}")]
    NotExecutable(String),
    /// A path that does not exist.
    #[error("predicate executable {name} not found: {source}")]
    NotFound {
        /// The path.
        name: String,
        /// Why.
        source: std::io::Error,
    },
    /// A name that is on no `PATH` directory.
    #[error("predicate executable {0} not found on PATH")]
    NotOnPath(String),
}

/// Why an argv template cannot be parsed or expanded.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum TemplateError {
    /// A `{name}` the front end does not know.
    #[error("unknown placeholder {{{name}}} in predicate argument {arg:?} (known: {})", known.join(", "))]
    UnknownPlaceholder {
        /// The placeholder's name.
        name: String,
        /// The argument it occurs in.
        arg: String,
        /// The known placeholders, braces included.
        known: Vec<String>,
    },
    /// A placeholder the lookup has no value for.
    #[error("placeholder {{{0}}} has no value here")]
    NoValue(String),
}

/// A process-wide facility (signal handler, guardian) that could not be set up.
#[derive(Debug, Clone, thiserror::Error)]
#[error("{what}: {message}")]
pub struct SetupError {
    /// What failed, e.g. `cannot install the signal handler`.
    pub what: &'static str,
    /// The system's reason.
    pub message: String,
}

impl SetupError {
    /// `what` failed because of `error`.
    pub fn new(what: &'static str, error: impl std::fmt::Display) -> Self {
        SetupError {
            what,
            message: error.to_string(),
        }
    }
}

/// Why a run could not be started or watched; the message goes to the run's log as a launch
/// error.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct StartError(pub String);

impl From<String> for StartError {
    fn from(message: String) -> Self {
        StartError(message)
    }
}
