//! What every minrepro front end's command line shares, so that the engine knows nothing of
//! command lines and exit statuses.
//!
//! Its modules are private; their items are re-exported here.
//!
//! - `args`: the common and predicate flags (`-j`, `--timeout`, `--launcher`, …), parsed and
//!   validated once with the same words for every front end;
//! - `error`: [`RunError`], how a run ends when it does not succeed, and its exit status;
//! - `cache`: opening `--cache-file` with its rule that no input or output may be overwritten;
//! - `stats`: the end-of-run statistics lines, the `--stats-json` schema, and the explanation
//!   of an original that is not interesting;
//! - `publish`: atomic publication of an output directory;
//! - `reduce`: runs an engine [`Reduction`](minrepro_engine::Reduction) and reports it as
//!   every front end does.

mod args;
mod cache;
mod error;
mod publish;
mod reduce;
mod stats;

pub use args::{
    parse_timeout_seconds, CommonArgs, LauncherKind, PredicateArgs, ValueError, WorkDirError,
    MAX_TIMEOUT_SECS,
};
pub use cache::{claim_output, open_cache, resolve_for_comparison};
pub use error::RunError;
pub use publish::{check_output_location, publish_directory, write_atomically, PublishError};
pub use reduce::reduce;
pub use stats::{describe_uninteresting, pass_stats_line, stats_json, stats_line};
