//! Running a reduction as every front end reports it.

use minrepro_engine::{Reduced, Reduction, Stats};

use crate::stats::{pass_stats_line, stats_line};
use crate::RunError;

/// Runs `reduction` from `original`; on success prints the statistics lines (through its
/// progress reporter, so not with `-q`). Engine errors become [`RunError`]s (an uninteresting
/// original is explained with the tail of its output). The counters come back in every case.
pub fn reduce<C: Clone + Send + Sync>(
    reduction: Reduction<'_, C>,
    original: C,
) -> (Result<Reduced<C>, RunError>, Stats) {
    let progress = reduction.progress();
    let unit = reduction.size_unit();
    let (result, stats) = reduction.run(original);
    let result = result.map_err(RunError::from).inspect(|reduced| {
        progress.message(&stats_line(&reduced.stats, unit));
        progress.message(&pass_stats_line(&reduced.stats));
    });
    (result, stats)
}
