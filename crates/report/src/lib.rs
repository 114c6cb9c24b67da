//! The HTML report of a reduction (`--report FILE.html`): one self-contained page (inline CSS
//! and SVG; no script, no network) with the command line, how the run ended, the counters, the
//! size plotted over predicate runs and over time, per-pass candidates, acceptances and time,
//! further sections a front end adds (a bundle's kept objects), and the original and the result
//! side by side as a line diff.
//!
//! Plain data in ([`Report`]), a string out ([`render`]); writing the file is the caller's.
//! Modules: `plot` (the SVG step plots), `diff` (the line diff).

mod diff;
mod plot;

use std::fmt::Write;

pub use diff::{rows, Row};

/// A point of the size trace: after `runs` predicate runs and `seconds`, the size was `size`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Point {
    /// Predicate runs launched so far.
    pub runs: usize,
    /// Seconds since the run started.
    pub seconds: f64,
    /// The current size.
    pub size: u64,
}

/// One pass's counters.
#[derive(Debug, Clone, PartialEq)]
pub struct PassRow {
    /// The pass's name.
    pub name: String,
    /// Candidates decided.
    pub candidates: usize,
    /// Candidates accepted.
    pub accepted: usize,
    /// Seconds spent in the pass (all rounds).
    pub seconds: f64,
}

/// One file of the original or the result.
#[derive(Debug, Clone, PartialEq)]
pub struct Document {
    /// Its name (relative path).
    pub name: String,
    /// Its text (lossy for binary files).
    pub text: String,
}

/// Everything the page shows.
#[derive(Debug, Clone, Default)]
pub struct Report {
    /// The front end (`minrepro file`).
    pub title: String,
    /// The command line, one word each.
    pub command_line: Vec<String>,
    /// How the run ended (`complete`, `interrupted: …`).
    pub outcome: String,
    /// The size unit (`tokens`, `bytes`).
    pub unit: String,
    /// Counters as label and value, in order.
    pub summary: Vec<(String, String)>,
    /// The size trace, the original's size first.
    pub trace: Vec<Point>,
    /// Predicate runs and seconds at the end (the plots run to there).
    pub end: (usize, f64),
    /// Per-pass counters.
    pub passes: Vec<PassRow>,
    /// Further sections: heading and preformatted text.
    pub sections: Vec<(String, String)>,
    /// The original's files.
    pub original: Vec<Document>,
    /// The result's files (empty when there is none, say after an interrupted bundle run).
    pub result: Vec<Document>,
}

/// Lines of one document shown in the diff; beyond, the rest is summarised (a page of a
/// million rows is of no use and slow to open).
const MAX_ROWS: usize = 20_000;

/// `text` safe in HTML text and attribute values.
pub fn escape(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            _ => out.push(c),
        }
    }
    out
}

const STYLE: &str = "body{font-family:sans-serif;margin:1.5em;color:#222}\
h1{font-size:1.4em}h2{font-size:1.15em;margin-top:1.6em}\
code,pre,td.line{font-family:monospace;font-size:0.9em}\
pre{background:#f6f8fa;padding:0.6em;overflow-x:auto}\
table{border-collapse:collapse}td,th{padding:0.15em 0.6em;text-align:left;vertical-align:top}\
table.counters td:nth-child(n+2),table.passes td:nth-child(n+2){text-align:right}\
table.diff{width:100%;table-layout:fixed}table.diff td.line{white-space:pre-wrap;word-break:break-all}\
tr.removed td.old{background:#ffebe9}tr.added td.new{background:#dafbe1}\
tr.changed td.old{background:#ffebe9}tr.changed td.new{background:#dafbe1}\
.plot text{font-size:11px;fill:#444}.outcome{font-weight:bold}";

/// The page.
pub fn render(report: &Report) -> String {
    let mut page = String::new();
    let title = escape(&report.title);
    let _ = write!(
        page,
        "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\
<title>{title} report</title><style>{STYLE}</style></head><body>\n<h1>{title} report</h1>\n"
    );
    let command: Vec<String> = report.command_line.iter().map(|w| shell_word(w)).collect();
    let _ = write!(
        page,
        "<p>Command line:</p><pre id=\"command\">{}</pre>\n<p class=\"outcome\" id=\"outcome\">{}</p>\n",
        escape(&command.join(" ")),
        escape(&report.outcome)
    );
    page.push_str("<h2>Counters</h2>\n<table class=\"counters\">");
    for (label, value) in &report.summary {
        table_row(&mut page, &[label, value]);
    }
    page.push_str("</table>\n");
    plots(&mut page, report);
    passes(&mut page, &report.passes);
    for (heading, text) in &report.sections {
        let _ = write!(
            page,
            "<h2>{}</h2>\n<pre>{}</pre>\n",
            escape(heading),
            escape(text)
        );
    }
    documents(&mut page, report);
    page.push_str("</body></html>\n");
    page
}

fn plots(page: &mut String, report: &Report) {
    let unit = &report.unit;
    page.push_str("<h2>Size over predicate runs</h2>\n");
    let by_runs: Vec<(f64, u64)> = report
        .trace
        .iter()
        .map(|p| (p.runs as f64, p.size))
        .collect();
    page.push_str(&plot::step_plot(
        "size-over-runs",
        &by_runs,
        report.end.0 as f64,
        "predicate runs",
        unit,
    ));
    page.push_str("\n<h2>Size over time</h2>\n");
    let by_time: Vec<(f64, u64)> = report.trace.iter().map(|p| (p.seconds, p.size)).collect();
    page.push_str(&plot::step_plot(
        "size-over-time",
        &by_time,
        report.end.1,
        "seconds",
        unit,
    ));
    page.push('\n');
}

fn passes(page: &mut String, passes: &[PassRow]) {
    page.push_str(
        "<h2>Passes</h2>\n<table class=\"passes\"><tr><th>pass</th><th>candidates</th><th>accepted</th><th>seconds</th></tr>",
    );
    for pass in passes {
        let (candidates, accepted) = (pass.candidates.to_string(), pass.accepted.to_string());
        let seconds = format!("{:.2}", pass.seconds);
        table_row(page, &[&pass.name, &candidates, &accepted, &seconds]);
    }
    page.push_str("</table>\n");
}

/// One row of plain cells, each escaped.
fn table_row(page: &mut String, cells: &[&str]) {
    page.push_str("<tr>");
    for cell in cells {
        let _ = write!(page, "<td>{}</td>", escape(cell));
    }
    page.push_str("</tr>");
}

fn documents(page: &mut String, report: &Report) {
    page.push_str("<h2>Original and result</h2>\n");
    if report.result.is_empty() {
        page.push_str("<p>No result was written.</p>\n");
    }
    for original in &report.original {
        let result = report.result.iter().find(|d| d.name == original.name);
        let _ = writeln!(
            page,
            "<h3>{}{}</h3>",
            escape(&original.name),
            if result.is_none() && !report.result.is_empty() {
                " (removed)"
            } else {
                ""
            }
        );
        let empty = String::new();
        let after = result.map_or(&empty, |d| &d.text);
        diff_table(page, &original.text, after);
    }
    for added in report
        .result
        .iter()
        .filter(|d| !report.original.iter().any(|o| o.name == d.name))
    {
        let _ = writeln!(page, "<h3>{} (new)</h3>", escape(&added.name));
        diff_table(page, "", &added.text);
    }
}

/// Side by side: a removed line and the added line after it share a row.
fn diff_table(page: &mut String, before: &str, after: &str) {
    page.push_str("<table class=\"diff\"><tr><th>original</th><th>result</th></tr>");
    let rows = diff::rows(before, after);
    let mut shown = 0;
    let mut index = 0;
    while index < rows.len() && shown < MAX_ROWS {
        let (class, old, new, step) = match (&rows[index], rows.get(index + 1)) {
            (Row::Removed(old), Some(Row::Added(new))) => ("changed", *old, *new, 2),
            (Row::Removed(old), _) => ("removed", *old, "", 1),
            (Row::Added(new), _) => ("added", "", *new, 1),
            (Row::Kept(line), _) => ("kept", *line, *line, 1),
        };
        let _ = write!(
            page,
            "<tr class=\"{class}\"><td class=\"line old\">{}</td><td class=\"line new\">{}</td></tr>",
            escape(old),
            escape(new)
        );
        shown += 1;
        index += step;
    }
    if index < rows.len() {
        let _ = write!(
            page,
            "<tr><td colspan=\"2\">… {} more rows not shown</td></tr>",
            rows.len() - index
        );
    }
    page.push_str("</table>\n");
}

/// A word of the command line as a POSIX shell reads it back.
fn shell_word(word: &str) -> String {
    let plain = !word.is_empty()
        && word
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || "-_./=:,+@%".contains(c));
    if plain {
        word.to_owned()
    } else {
        format!("'{}'", word.replace('\'', "'\\''"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn report() -> Report {
        Report {
            title: "minrepro file".into(),
            command_line: vec!["minrepro".into(), "file".into(), "a b.c".into()],
            outcome: "complete".into(),
            unit: "tokens".into(),
            summary: vec![("predicate runs".into(), "12".into())],
            trace: vec![
                Point {
                    runs: 1,
                    seconds: 0.1,
                    size: 40,
                },
                Point {
                    runs: 5,
                    seconds: 0.4,
                    size: 12,
                },
            ],
            end: (12, 1.0),
            passes: vec![PassRow {
                name: "lines<0>".into(),
                candidates: 7,
                accepted: 2,
                seconds: 0.25,
            }],
            sections: vec![],
            original: vec![Document {
                name: "a.c".into(),
                text: "int a;\nint <b>;\n".into(),
            }],
            result: vec![Document {
                name: "a.c".into(),
                text: "int <b>;\n".into(),
            }],
        }
    }

    #[test]
    fn the_page_escapes_everything_and_holds_both_plots_and_the_diff() {
        let page = render(&report());
        assert!(page.contains("minrepro file &#39;a b.c&#39;"), "{page}");
        assert!(page.contains("lines&lt;0&gt;") && !page.contains("lines<0>"));
        assert_eq!(page.matches("<svg ").count(), 2);
        assert!(page.contains(
            "<tr class=\"removed\"><td class=\"line old\">int a;</td><td class=\"line new\"></td></tr>"
        ));
        assert!(page.contains("int &lt;b&gt;;"));
        for external in ["<script", "src=", "href=", "http://example", "https://"] {
            assert!(!page.contains(external), "{external}");
        }
    }
}
