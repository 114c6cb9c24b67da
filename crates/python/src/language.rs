//! Python as a [`Language`] of the text layer: the rewrite groups of `minrepro_pysyntax`, sized in
//! tokens, prepared with [`minrepro_pysyntax::Prepared`] (chunked re-checks; the name filter is
//! what makes a candidate admissible), written in the source's declared encoding.

use std::sync::Arc;

use minrepro_pysyntax::{check_valid_for, token_count, Group, Rewrite};
use minrepro_text::{
    without_blank_lines, EncodeError, Encoded, GroupSpec, Growth, Language, LevelPolicy,
    ProbDdSpec, SearchSpec, SiteInfo,
};

use crate::encoding::{file_bytes, SourceEncoding};
use minrepro_pyvalues::ValueRecorder;

/// Largest text (in tokens) whose statement removals ProbDD searches: ProbDD keeps the text it
/// started from and re-applies every accepted site to it in each candidate, and every accepted
/// removal re-prepares (parses) the text the name filter judges against; with the many
/// acceptances of statement removals on a large file that cost more engine time per candidate
/// (1.2 ms against 0.9 ms on the engine benchmark's 5,000-line file) than the runs it saved.
/// Below the limit a parse is cheap and ProbDD's fewer runs win.
pub const PROBDD_STATEMENTS_MAX_TOKENS: usize = 4000;

/// Python 3.`minor`, written in `encoding` (UTF-8 when `None`).
#[derive(Debug, Clone)]
pub struct Python {
    /// Python 3 minor version candidates must be valid for.
    pub minor: u8,
    /// The source's declared encoding (PEP 263), if not UTF-8.
    pub encoding: Option<SourceEncoding>,
    /// The instrumented runs of runtime-value substitution; `None` turns the group off.
    pub values: Option<Arc<ValueRecorder>>,
    /// The qualified name of the program's function the failure must stay in (`--fidelity
    /// origin`): it is never inlined into its caller.
    pub keep_function: Option<String>,
}

/// A Python text prepared for many candidates of one group.
#[derive(Debug)]
pub struct PyPrepared(minrepro_pysyntax::Prepared);

/// A Python candidate (remembers which chunks changed, for the checks).
#[derive(Debug)]
pub struct PyEdited(minrepro_pysyntax::Edited);

impl minrepro_text::Edited for PyEdited {
    fn text(&self) -> &str {
        self.0.text()
    }

    fn into_text(self) -> String {
        self.0.into_text()
    }
}

impl minrepro_text::Prepared for PyPrepared {
    type Site = Rewrite;
    type Edited = PyEdited;

    fn source(&self) -> &str {
        self.0.source()
    }

    fn sites(&self) -> &[Rewrite] {
        self.0.sites()
    }

    fn retain_sites(&mut self, keep: &mut dyn FnMut(&Rewrite) -> bool) {
        self.0.retain_sites(keep);
    }

    fn size(&self) -> usize {
        self.0.token_count()
    }

    fn info(site: &Rewrite) -> SiteInfo<'_> {
        SiteInfo {
            kind: site.kind,
            range: site.range.clone(),
            replacement: &site.replacement,
        }
    }

    fn apply(&self, selected: &[&Rewrite]) -> PyEdited {
        PyEdited(self.0.apply(selected))
    }

    fn check(&self, edited: &PyEdited) -> Option<usize> {
        // The same verdict and token count as check_valid_for and token_count, mostly from the
        // changed parts of the text alone.
        self.0.check(&edited.0).ok()
    }

    fn admissible(&self, edited: &PyEdited, judged: Option<&Self>) -> bool {
        // Judged against the base, the filter looks at the changed chunks only.
        !match judged {
            None => self.0.loses_definition(&edited.0),
            Some(current) => self.0.loses_definition_against(&edited.0, &current.0),
        }
    }

    fn inherit(&self, earlier: &Self) {
        self.0.inherit_names(&earlier.0);
    }
}

/// Rewrites that move a function's body into its caller (or the enclosing code).
const INLINING: [&str; 4] = [
    "inline-function-call",
    "inline-call-expression",
    "inline-call-body",
    "def-to-body",
];

/// Whether `site` inlines the function defined at `at` into its caller: an inlining that
/// removes that definition (the text from `at` to its line's end no longer appears as often).
fn inlines_away(text: &str, at: usize, site: &Rewrite) -> bool {
    if !INLINING.contains(&site.kind) || !site.range.contains(&at) {
        return false;
    }
    let line = &text[at..];
    let header = &line[..line.find(['\n', '\r']).unwrap_or(line.len())];
    let before = text[site.range.clone()].matches(header).count();
    site.replacement.matches(header).count() < before
}

impl Language for Python {
    type Group = Group;
    type Prepared = PyPrepared;

    fn groups(&self) -> Vec<GroupSpec<Group>> {
        // Values first: substituted expressions leave definitions dead for statement removal.
        let values = self.values.as_ref().map(|_| Group::ValueSubstitution);
        values.into_iter().chain(Group::ALL).map(spec).collect()
    }

    fn size(&self, text: &str) -> usize {
        token_count(text)
    }

    fn prepare(&self, text: &str, group: Group) -> PyPrepared {
        let mut prepared = minrepro_pysyntax::Prepared::new(text, group, self.minor);
        if let (Group::ValueSubstitution, Some(recorder)) = (group, &self.values) {
            prepared.set_sites(minrepro_pysyntax::value_rewrites(
                text,
                &recorder.values(text),
            ));
        }
        if let Some(function) = &self.keep_function {
            if let Some(at) = minrepro_pysyntax::definition_offset(text, function) {
                prepared.retain_sites(|site| !inlines_away(text, at, site));
            }
        }
        PyPrepared(prepared)
    }

    fn prepare_current(&self, text: &str) -> PyPrepared {
        PyPrepared(minrepro_pysyntax::Prepared::chunked(text, self.minor))
    }

    fn count_sites(&self, text: &str, group: Group) -> usize {
        if group == Group::ValueSubstitution {
            // The growth budget: every substitution turns at least one site into a literal.
            return minrepro_pysyntax::value_sites(text).len();
        }
        minrepro_pysyntax::rewrites(text, group).len()
    }

    fn is_valid(&self, text: &str) -> bool {
        check_valid_for(text, self.minor).is_ok()
    }

    fn tidy_steps(&self, text: &str) -> Vec<(&'static str, String)> {
        let uncommented = minrepro_pysyntax::without_comment_lines(text);
        let tidied = without_blank_lines(uncommented.as_deref().unwrap_or(text));
        vec![("remove-blank-and-comment-lines", tidied)]
    }

    fn encode<'t>(&self, text: &'t str) -> Result<Encoded<'t>, EncodeError> {
        file_bytes(self.encoding.as_ref(), text)
            .map(Encoded::One)
            .map_err(|e| EncodeError(e.to_string()))
    }
}

/// How a group is searched: ProbDD (canonicalizations with ddmin), statement removals and value
/// substitutions level by level.
fn spec(group: Group) -> GroupSpec<Group> {
    let search = if group == Group::Canonicalizations {
        SearchSpec::Ddmin
    } else {
        SearchSpec::ProbDd(ProbDdSpec {
            max_size: (group == Group::FastRemovals).then_some(PROBDD_STATEMENTS_MAX_TOKENS),
            ..ProbDdSpec::default()
        })
    };
    let growth = match group {
        // A name replaced by a literal has as many tokens and often more bytes; its gain comes
        // when statement removal deletes the definition it no longer needs.
        Group::Canonicalizations | Group::ValueSubstitution => Growth::Budgeted,
        // Statement and expression edits must save tokens (literals may shrink in bytes only):
        // see `--help` on readability.
        Group::FastRemovals | Group::Simplifications | Group::SlowRemovals => Growth::NeverInSize,
        _ => Growth::Never,
    };
    let spec = GroupSpec::new(group, group.name(), search)
        // Expression-level edits rarely start to work later (statement removals do, once the
        // uses of what they remove are gone), so re-running them every round mostly spends runs.
        .skip_failed(matches!(
            group,
            Group::Simplifications
                | Group::IntegerReduction
                | Group::SlowRemovals
                | Group::ValueSubstitution
        ))
        .growth(growth)
        // The result must be a fixpoint: the sites skipped after failing on an earlier text,
        // and the candidates the name filter refuses by its guess, are tried once more, each
        // alone, when a round changed nothing.
        .confirm(true);
    // Value substitution too: a site's enclosing expression (larger) is tried first.
    if matches!(group, Group::FastRemovals | Group::ValueSubstitution) {
        spec.levels(LevelPolicy::default())
    } else {
        spec
    }
}

/// The value recorder's counters for `--stats-json` (the cost of runs that are not predicate
/// runs); none without value substitution.
pub fn value_stats(recorder: Option<&ValueRecorder>) -> Vec<(String, serde_json::Value)> {
    let Some(recorder) = recorder else {
        return Vec::new();
    };
    let cost = recorder.cost();
    vec![
        ("value_recording_runs".into(), cost.runs.into()),
        ("value_recording_seconds".into(), cost.seconds.into()),
        ("value_recording_failed".into(), cost.failed.into()),
    ]
}
