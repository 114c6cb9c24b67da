//! Words for why the original's run does not reproduce: in terms of the flags the user gave
//! (`--err-msg`, `--interesting-exit-code`, `--timeout`, `--predicate-runs`) when the front end
//! knows them ([`why_not_reproduced`]), else by the predicate's status and exit codes
//! ([`describe_uninteresting`]).

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
    let mut message = match outcome.status {
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
            "the original's runs disagreed (exit codes {}): the failure does not reproduce every \
             time, so no candidate could be judged (--predicate-runs)",
            outcome
                .exit_codes
                .iter()
                .map(|&c| code(c))
                .collect::<Vec<_>>()
                .join(", ")
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
    }
}
