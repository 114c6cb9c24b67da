//! The reduction engine shared by every front end.
//!
//! A reduction is a fixpoint over [`Pass`]es: each pass opens a [`Search`] that proposes batches of
//! candidate edits of the current test case, in the order a sequential reducer would try them. The
//! [`Engine`] alone decides: it evaluates a batch on `-j` executors (module `dispatch`), speculating
//! only as far as is likely to pay (module `speculation`), accepts the first interesting candidate in
//! batch order (exactly what `-j 1` would accept), cancels the runs that no longer matter,
//! records every decided candidate in the log, and repeats the pass hierarchy
//! until a complete round changes nothing. Front ends supply an [`Oracle`] (how to digest, measure
//! and judge a candidate) and the passes, and start a run with the [`Reduction`] builder; the
//! engine owns the cache, scheduling and progress. Command lines, exit statuses and published
//! outputs are not its business (see the `minrepro-driver` crate).

mod bisect;
mod combinators;
mod cpu;
mod ddmin;
mod dispatch;
mod engine;
mod probdd;
mod progress;
mod reduction;
mod search;
mod speculation;
mod temp;

pub use bisect::{Bisect, BuildCut, BuildWitness, Chain, ListChains, OnMinimal};
pub use combinators::{
    Exhausted, InnerSearch, MakeOne, OneShot, OpenSearch, SearchSequence, Sequence,
};
pub use ddmin::{split_chunks, Ddmin, MAX_BATCH};
pub use engine::{Engine, EngineError, EngineOptions, LogEntry, Oracle, Stats};
pub use probdd::ProbDd;
pub use progress::{History, Progress, ProgressMode, TracePoint};
pub use reduction::{OnAccept, Reduced, Reduction};
pub use search::{run_search, without_indices, Pass, Proposal, Search, Width};
pub use temp::TempRoot;
