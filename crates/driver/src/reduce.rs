//! Running a reduction as every front end reports it.

use std::path::Path;

use minrepro_engine::{EngineError, Progress, Reduced, Reduction, Stats};

use crate::report::{write_report, ReportInput, ReportRequest};
use crate::stats::{report_stats, write_stats_json, StatsExtra};
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
    let result = result
        .map_err(RunError::from)
        .inspect(|reduced| report_stats(progress, unit, &reduced.stats));
    (result, stats)
}

/// Ends a reduction a front end ran itself (e.g. through a layer above the engine): on success
/// the statistics lines (through `progress`, so not with `-q`), the `--stats-json` document when
/// `stats_json` names a file (also when the reduction stopped), the `--report` page when
/// `report` asks for one (also after an interrupt), and the engine's error as a [`RunError`].
pub fn conclude(
    progress: &Progress,
    unit: &str,
    (result, stats): (Result<(), EngineError>, &Stats),
    stats_json: Option<&Path>,
    extra: StatsExtra,
    report: Option<ReportRequest<'_>>,
) -> Result<(), RunError> {
    if result.is_ok() {
        report_stats(progress, unit, stats);
    }
    if let Some(path) = stats_json {
        write_stats_json(path, stats, result.is_ok(), extra)?;
    }
    let result = result.map_err(RunError::from);
    if let Some(request) = report {
        let input = ReportInput {
            front_end: request.front_end,
            unit,
            stats,
            progress,
            ended: result.as_ref().map(|_| ()),
            original: request.original,
            result: request.result,
            sections: Vec::new(),
        };
        write_report(request.path, input)?;
    }
    result
}
