//! Words for why the original's run does not reproduce: in terms of the flags the user gave
//! (`--err-msg`, `--interesting-exit-code`, `--timeout`, `--predicate-runs`) when the front end
//! knows them ([`why_not_reproduced`]), else by the predicate's status and exit codes
//! ([`describe_uninteresting`]). An original that was interesting in only some of its runs is
//! told the rate it reproduced at and the `--predicate-runs N --min-interesting K` to try
//! ([`rate_hint`]).

use minrepro_predicate::{Outcome, RunRecord, Status};

/// How many of the original's last output lines an explanation shows.
const SHOWN_LINES: usize = 10;

/// What the user asked for: the needle and the exit code that mean "reproduces".
pub struct Expectation<'a> {
    /// `--err-msg`, if given.
    pub err_msg: Option<&'a str>,
    /// The exit code a run must end with (`--interesting-exit-code`, or 0 for a bare
    /// `--predicate`), if any.
    pub exit_code: Option<i32>,
    /// Whether a user's `--predicate` runs the candidates (not `PYTHON FILE`).
    pub custom_predicate: bool,
    /// `--timeout` in seconds.
    pub timeout_secs: f64,
    /// `--min-interesting`, if given.
    pub min_interesting: Option<u32>,
}

impl<'a> Expectation<'a> {
    /// What the shared predicate flags and `err_msg` (`--err-msg`) ask for.
    pub fn of(
        predicate: &crate::PredicateArgs,
        err_msg: Option<&'a str>,
        custom_predicate: bool,
    ) -> Self {
        Expectation {
            err_msg,
            exit_code: predicate.required_exit_code(err_msg),
            custom_predicate,
            timeout_secs: predicate.timeout,
            min_interesting: predicate.min_interesting,
        }
    }

    /// The error of an original whose verdict `outcome` is not interesting, explained.
    pub fn not_reproduced(&self, outcome: &Outcome) -> crate::RunError {
        crate::RunError::NotReproduced {
            status: outcome.status,
            explanation: why_not_reproduced(outcome, self),
        }
    }
}

/// Explains why the original run (`outcome`, judged without the fidelity guard) does not count
/// as reproducing the failure. Ends with the last lines the original printed.
pub fn why_not_reproduced(outcome: &Outcome, expected: &Expectation<'_>) -> String {
    let run = &outcome.last_run;
    let what = if expected.custom_predicate {
        "the predicate"
    } else {
        "the program"
    };
    let found = run.stdout.contains_needle || run.stderr.contains_needle;
    let code = |c: Option<i32>| c.map_or("no exit code".to_owned(), |c| c.to_string());
    let sometimes = outcome.interesting_runs.filter(|&i| i > 0);
    let mut message = match outcome.status {
        Status::Uninteresting if sometimes.is_some() => format!(
            "the original was interesting in {} of {} runs, fewer than --min-interesting {}{}",
            sometimes.unwrap_or_default(),
            outcome.exit_codes.len(),
            expected.min_interesting.unwrap_or_default(),
            suggestion(outcome)
                .map(|h| format!(": {h}"))
                .unwrap_or_default()
        ),
        Status::Timeout => format!(
            "the original run took longer than --timeout {} s and was stopped; give it more time \
             with a larger --timeout",
            expected.timeout_secs
        ),
        Status::LaunchError => format!(
            "{what} could not be started: {}",
            run.error.as_deref().unwrap_or("unknown error")
        ),
        Status::Flaky => format!(
            "the original is flaky: its runs disagreed (exit codes {}), so under the default \
             (every one of --predicate-runs must agree) no candidate could be judged{}",
            outcome
                .exit_codes
                .iter()
                .map(|&c| code(c))
                .collect::<Vec<_>>()
                .join(", "),
            rate_hint(outcome)
                .map(|h| format!("; {h}"))
                .unwrap_or_default()
        ),
        _ => match (expected.err_msg, expected.exit_code) {
            (Some(needle), _) if !found => format!(
                "--err-msg {needle:?} does not appear in the output of {what} (case-sensitive)"
            ),
            (_, Some(wanted)) => format!(
                "{what} exited with {}, but only exit code {wanted} counts as reproducing{}",
                code(run.exit_code),
                if expected.custom_predicate && expected.err_msg.is_none() {
                    " (a --predicate without --err-msg must exit 0, or give --interesting-exit-code)"
                } else {
                    " (--interesting-exit-code)"
                }
            ),
            _ => format!(
                "the original does not reproduce (exit code {})",
                code(run.exit_code)
            ),
        },
    };
    message.push_str("; nothing was written");
    message.push_str(&last_lines(run));
    message
}

/// For an original interesting in only some of its runs (counted in `outcome`): the rate, and
/// the quorum [`minrepro_predicate::suggest`] derives from it, e.g. `interesting in 2 of 4
/// runs: try --predicate-runs 7 --min-interesting 1 (...)`. `None` when the counts are unknown
/// (a cache written before they were kept) or no run was interesting.
pub fn rate_hint(outcome: &Outcome) -> Option<String> {
    let interesting = outcome.interesting_runs?;
    let runs = outcome.exit_codes.len();
    let hint = suggestion(outcome)?;
    Some(format!(
        "interesting in {interesting} of {runs} runs: {hint}"
    ))
}

/// The flags [`rate_hint`] suggests, with why.
fn suggestion(outcome: &Outcome) -> Option<String> {
    let interesting = outcome.interesting_runs?;
    let runs = outcome.exit_codes.len() as u32;
    let quorum = minrepro_predicate::suggest(interesting, runs)?;
    let min = quorum.min_interesting.unwrap_or(quorum.runs);
    let why = if interesting >= runs {
        " (only the exit codes differed; --min-interesting judges runs by interestingness alone)"
            .to_owned()
    } else {
        format!(
            " (a candidate is then interesting when {min} or more of its {} runs are, which misses \
             one that reproduces at this rate at most {:.0}% of the time)",
            quorum.runs,
            minrepro_predicate::MISS_RATE * 100.0
        )
    };
    Some(format!(
        "try --predicate-runs {} --min-interesting {min}{why}",
        quorum.runs
    ))
}

/// A captured line as a message shows it: captured output names the candidate's workspace
/// `{workspace}` (so that logs do not depend on temporary paths), and the workspace holds the
/// inputs under their relative names, so a path in it reads as that name (`{workspace}/a.py`
/// as `a.py`) and the workspace itself as `.`: no placeholder appears in a message.
pub fn relative_to_workspace(line: &str) -> String {
    line.replace("{workspace}/", "").replace("{workspace}", ".")
}

/// The last lines of both streams, each under a heading; empty when nothing was printed.
fn last_lines(run: &RunRecord) -> String {
    let mut text = String::new();
    for (name, stream) in [("stdout", &run.stdout), ("stderr", &run.stderr)] {
        let lines: Vec<&str> = stream.tail.lines().collect();
        if lines.is_empty() {
            continue;
        }
        text.push_str(&format!("\n--- its last lines on {name} ---"));
        for line in &lines[lines.len().saturating_sub(SHOWN_LINES)..] {
            text.push('\n');
            text.push_str(&relative_to_workspace(line));
        }
    }
    text
}

/// Explains why the original is not interesting, with the tail of what it printed.
pub fn describe_uninteresting(outcome: &minrepro_predicate::Outcome) -> String {
    let status = serde_json::to_value(outcome.status)
        .ok()
        .and_then(|v| v.as_str().map(str::to_owned));
    let codes: Vec<String> = outcome
        .exit_codes
        .iter()
        .map(|c| c.map_or("none".to_owned(), |c| c.to_string()))
        .collect();
    let mut message = format!(
        "the original input is not interesting (predicate status {}, exit codes [{}]); nothing was published",
        status.unwrap_or_default(),
        codes.join(", ")
    );
    if let Some(hint) = rate_hint(outcome) {
        message.push_str(&format!("\n{hint}"));
    }
    for (name, stream) in [
        ("stdout", &outcome.last_run.stdout),
        ("stderr", &outcome.last_run.stderr),
    ] {
        let tail: Vec<&str> = stream.tail.lines().rev().take(SHOWN_LINES).collect();
        if !tail.is_empty() {
            message.push_str(&format!("\n--- last lines of the original's {name} ---"));
            for line in tail.iter().rev() {
                message.push('\n');
                message.push_str(&relative_to_workspace(line));
            }
        }
    }
    if let Some(error) = &outcome.last_run.error {
        message.push_str(&format!("\n{error}"));
    }
    message
}

#[cfg(test)]
mod tests {
    use super::*;
    use minrepro_predicate::CapturedStream;

    fn stream(text: &str, needle: &str) -> CapturedStream {
        CapturedStream {
            head: text.into(),
            tail: text.into(),
            contains_needle: !needle.is_empty() && text.contains(needle),
        }
    }

    fn outcome(status: Status, code: Option<i32>, stderr: &str, needle: &str) -> Outcome {
        Outcome::of_one_run(status, code, stream("", needle), stream(stderr, needle))
    }

    fn expect<'a>(err_msg: Option<&'a str>, exit_code: Option<i32>) -> Expectation<'a> {
        Expectation {
            err_msg,
            exit_code,
            custom_predicate: false,
            timeout_secs: 60.0,
            min_interesting: None,
        }
    }

    #[test]
    fn missing_needle_is_named_with_the_last_lines() {
        let o = outcome(Status::Uninteresting, Some(1), "KeyError: 'x'\n", "boom");
        let text = why_not_reproduced(&o, &expect(Some("boom"), None));
        assert!(
            text.starts_with(
                "--err-msg \"boom\" does not appear in the output of the program (case-sensitive)"
            ),
            "{text}"
        );
        assert!(
            text.contains("--- its last lines on stderr ---\nKeyError: 'x'"),
            "{text}"
        );
    }

    #[test]
    fn wrong_exit_code_names_both_codes() {
        let o = outcome(Status::Uninteresting, Some(3), "boom\n", "boom");
        let text = why_not_reproduced(&o, &expect(Some("boom"), Some(1)));
        assert!(
            text.contains("exited with 3, but only exit code 1 counts"),
            "{text}"
        );
    }

    #[test]
    fn timeouts_and_flaky_runs_are_explained() {
        let o = outcome(Status::Timeout, None, "", "boom");
        let text = why_not_reproduced(&o, &expect(Some("boom"), None));
        assert!(text.contains("took longer than --timeout 60 s"), "{text}");
        let mut o = outcome(Status::Flaky, Some(1), "", "boom");
        o.exit_codes = vec![Some(1), Some(0)];
        let text = why_not_reproduced(&o, &expect(Some("boom"), None));
        assert!(text.contains("disagreed (exit codes 1, 0)"), "{text}");
        assert!(!text.contains("try --predicate-runs"), "no counts: {text}");
    }

    #[test]
    fn a_flaky_original_is_told_its_rate_and_the_flags_to_try() {
        let mut o = outcome(Status::Flaky, Some(0), "", "");
        o.exit_codes = vec![Some(1), Some(0), Some(0), Some(1)];
        o.interesting_runs = Some(2);
        let text = why_not_reproduced(&o, &expect(None, Some(0)));
        assert!(
            text.contains("the original is flaky")
                && text.contains(
                    "interesting in 2 of 4 runs: try --predicate-runs 7 --min-interesting 1"
                ),
            "{text}"
        );
        let text = describe_uninteresting(&o);
        assert!(text.contains("\ninteresting in 2 of 4 runs: try"), "{text}");
        // Every run interesting, exit codes differing: all of them required, by verdict only.
        o.interesting_runs = Some(4);
        let text = rate_hint(&o).unwrap();
        assert!(
            text.starts_with(
                "interesting in 4 of 4 runs: try --predicate-runs 4 --min-interesting 4"
            ),
            "{text}"
        );
        // Too few interesting runs under --min-interesting: the count, K, and a suggestion.
        o.status = Status::Uninteresting;
        o.interesting_runs = Some(1);
        let mut wanted = expect(None, Some(0));
        wanted.min_interesting = Some(2);
        let text = why_not_reproduced(&o, &wanted);
        assert!(
            text.starts_with("the original was interesting in 1 of 4 runs, fewer than --min-interesting 2: try --predicate-runs 17 --min-interesting 1"),
            "{text}"
        );
    }
}
