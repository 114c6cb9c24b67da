//! What every minrepro front end's command line shares, so that the engine knows nothing of
//! command lines and exit statuses.
//!
//! Its modules are private; their items are re-exported here.
//!
//! - `args`: the common and predicate flags (`-j`, `--timeout`, `--launcher`, …), parsed and
//!   validated once with the same words for every front end;
//! - `error`: [`RunError`], how a run ends when it does not succeed, and its exit status;
//! - `cache`: opening `--cache-file` with its rule that no input or output may be overwritten;
//! - `stats`: the end-of-run statistics lines and the `--stats-json` document (its schema and
//!   its one writer);
//! - `explain`: why an original does not reproduce, in the user's terms;
//! - `publish`: atomic publication of an output directory;
//! - `report`: `--report FILE.html`, the page of `minrepro-report` from a run's counters,
//!   progress history and documents;
//! - `reduce`: runs an engine [`Reduction`](minrepro_engine::Reduction) and reports it as
//!   every front end does.

mod args;
mod cache;
mod error;
mod explain;
mod publish;
mod reduce;
mod report;
mod stats;

pub use args::{
    check_input_exists, parse_timeout_seconds, CommonArgs, LauncherKind, PredicateArgs,
    StrategyArg, ValueError, WorkDirError, MAX_TIMEOUT_SECS,
};
pub use cache::{claim_output, open_cache, resolve_for_comparison};
pub use error::RunError;
pub use explain::{describe_uninteresting, relative_to_workspace, why_not_reproduced, Expectation};
pub use publish::{check_output_location, publish_directory, write_atomically, PublishError};
pub use reduce::{conclude, reduce};
pub use report::{check_report_path, write_report, Document, ReportInput, ReportRequest};
pub use stats::{
    pass_stats_line, report_stats, stats_json, stats_line, timeout_cost, write_stats_json,
    StatsExtra,
};
