//! README.md for users: short, without dates or commit ids, and in agreement with `--help` on
//! the figures both state (the token runs `minrepro file` sweeps, the defaults of `-j` and
//! `--timeout`), with the test command `.ci/run` calls.

use crate::support::{binary_command, repo_root};

fn readme() -> String {
    std::fs::read_to_string(repo_root().join("README.md")).unwrap()
}

fn help(front_end: &str) -> String {
    let out = binary_command()
        .args([front_end, "--help"])
        .output()
        .unwrap();
    assert!(out.status.success());
    String::from_utf8(out.stdout).unwrap()
}

/// `text` with every run of whitespace made one space (both wrap their lines).
fn flat(text: &str) -> String {
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// Each sentence part of `text` from "runs of " to the next ")" or ";".
fn run_figures(text: &str) -> Vec<String> {
    flat(text)
        .match_indices("runs of ")
        .map(|(at, _)| {
            let rest = &flat(text)[at..];
            rest[..rest.find([')', ';']).unwrap_or(rest.len())].to_owned()
        })
        .filter(|part| part.contains("tokens on "))
        .collect()
}

#[test]
fn the_readme_is_short_and_has_no_dates_or_commit_ids() {
    let text = readme();
    assert!(
        text.lines().count() <= 300,
        "{} lines",
        text.lines().count()
    );
    for word in text.split(|c: char| !c.is_ascii_alphanumeric() && c != '-') {
        let digits = word.chars().filter(char::is_ascii_digit).count();
        let is_date = word.len() == 10
            && word.as_bytes()[4] == b'-'
            && word.as_bytes()[7] == b'-'
            && digits == 8;
        let is_commit = word.len() >= 7
            && word
                .chars()
                .all(|c| c.is_ascii_hexdigit() && !c.is_ascii_uppercase())
            && digits > 0
            && digits < word.len();
        assert!(!is_date && !is_commit, "{word:?} in README.md");
    }
}

#[test]
fn readme_and_help_state_the_same_token_runs() {
    let in_readme = run_figures(&readme());
    let in_help = run_figures(&help("file"));
    assert!(
        !in_help.is_empty(),
        "minrepro file --help states no token runs"
    );
    assert!(!in_readme.is_empty(), "README.md states no token runs");
    for figure in &in_readme {
        assert!(
            in_help.contains(figure),
            "README: {figure:?}, --help: {in_help:?}"
        );
    }
}

/// The `[default: X]` that `help` states for the flag `flag`.
fn default_of(help: &str, flag: &str) -> String {
    let rest = &help[help.find(flag).unwrap_or_else(|| panic!("{flag}: {help}"))..];
    let rest = &rest[rest.find("[default: ").unwrap() + "[default: ".len()..];
    rest[..rest.find(']').unwrap()].to_owned()
}

#[test]
fn readme_and_help_state_the_same_defaults() {
    let text = flat(&readme());
    for front_end in ["file", "python", "bundle"] {
        let help = flat(&help(front_end));
        let jobs = default_of(&help, "-j, --jobs");
        let timeout = default_of(&help, "--timeout <");
        assert!(
            text.contains(&format!(
                "`-j N` runs up to N candidates at once; it defaults to {jobs}."
            )),
            "{front_end}: -j defaults to {jobs}"
        );
        assert!(
            text.contains(&format!("`--timeout SECONDS` (default {timeout})")),
            "{front_end}: --timeout defaults to {timeout}"
        );
    }
}

#[test]
fn ci_runs_the_readmes_test_command() {
    let text = readme();
    assert!(text.contains("```console\nscripts/test\n```"), "README.md");
    assert!(
        text.contains("```console\nscripts/example\n```"),
        "README.md"
    );
    let ci = std::fs::read_to_string(repo_root().join(".ci/run")).unwrap();
    assert!(ci.lines().any(|l| l.trim() == "scripts/test"), ".ci/run");
}
