//! Many candidates of one base text: apply and check selections of its rewrites without
//! re-parsing the whole module for each.
//!
//! [`Prepared::new`] parses the base once: its rewrite sites, the blocks `apply` refills with
//! `pass`, and its *chunks*. A chunk is the text from one top-level statement to the next, cut
//! only where a statement starts a line at column 0 after a logical newline (not after `;` or a
//! backslash continuation), so the lexer is in its initial state at every cut: no open bracket,
//! string or continuation, indentation 0.
//!
//! A candidate is the base with edits; only the chunks they touch change (edits spanning a cut
//! merge the chunks around it). [`Prepared::check`] concludes "valid" from the changed chunks
//! alone when each of them, checked on its own as a module ([`check_standalone`]), is valid,
//! stands alone (no module-scope `global`, no `__future__`), and -- unless it is the last --
//! is empty or ends with a line end that is not a backslash continuation (nor, unless it is the
//! first, starts with a byte order mark). Why that is the full
//! check's answer, given a valid base:
//! - lexing: a valid chunk ends in the lexer's initial state and the next chunk starts at
//!   column 0, so the candidate's tokens are the chunks' tokens in order (the token counts add
//!   up, which [`Prepared::new`] also verifies on the base);
//! - parsing: the module grammar is a sequence of statements, each inside one chunk;
//! - CPython's compile-time checks look inside one top-level statement, except for module-scope
//!   `global` declarations and `__future__` imports, which the chunks must not contain (and the
//!   base neither: otherwise every check is a full one);
//! - unchanged chunks are as valid as in the base; the bracket, indentation and tab limits are
//!   per logical line or per block, so per chunk.
//!
//! Every other outcome (an invalid chunk included) falls back to the full check, so errors are
//! reported exactly as [`check_valid_for`](crate::check_valid_for) reports them. The crate's
//! property tests compare both on random edit sets over real modules.
//!
//! The base itself is checked chunk by chunk (by the same argument, all chunks changed); a base
//! with a chunk that is invalid or does not stand alone gets full checks only. Chunk verdicts are
//! cached for the whole process (by text, with the token count and name summary the same parse
//! gives), so preparing an accepted candidate checks only the chunks that no earlier base or
//! candidate had, and a candidate's changed chunks are parsed once for the validity check and
//! the name filter (see the [`filter`] module).

use std::ops::Range;
use std::sync::{Arc, Mutex, OnceLock};

use rustc_hash::FxHashMap as HashMap;

use ruff_python_ast::token::TokenKind;
use ruff_text_size::Ranged;

use crate::apply::{kept_edits, refill, splice, Suites};
use crate::chunk_names::{Names, Summary};
use crate::text::line_start;
use crate::tokens::count_parsed;
use crate::validity::{check, check_standalone_with};
use crate::{analyse, list_rewrites, Group, NameUse, Parsed, Rewrite, SyntaxProblem};

mod filter;

/// A base text prepared for many candidates (see the module documentation).
#[derive(Debug)]
pub struct Prepared {
    source: String,
    minor: u8,
    sites: Vec<Rewrite>,
    tokens: usize,
    suites: Suites,
    /// `None` when every check must be a full one.
    chunks: Option<Chunks>,
    /// The chunks' name summaries summed, made on first use or handed over by an earlier base
    /// (see [`Prepared::inherit_names`]).
    names: Mutex<Option<Arc<Names>>>,
    /// The base's [`NameUse`], made on first use for candidates judged in full.
    full_names: OnceLock<Option<NameUse>>,
}

/// The base's chunks: starts (the first is 0) and what their check found.
#[derive(Debug)]
struct Chunks {
    starts: Vec<usize>,
    facts: Vec<Arc<ChunkFacts>>,
}

impl Chunks {
    /// The chunks' name summaries.
    fn summaries(&self) -> Vec<Arc<Summary>> {
        self.facts.iter().map(|f| Arc::clone(&f.summary)).collect()
    }
}

/// What one parse of a chunk text that is valid and stands alone gives.
#[derive(Debug)]
struct ChunkFacts {
    /// Its [`token_count`](crate::token_count).
    tokens: usize,
    /// Its name summary (see [`chunk_names`](crate::chunk_names)).
    summary: Arc<Summary>,
}

/// The facts of a candidate's changed chunk groups, in order, and its token count.
#[derive(Debug)]
pub(crate) struct ChangedFacts {
    tokens: usize,
    groups: Vec<Arc<ChunkFacts>>,
}

/// A candidate: the base with a selection of its rewrites applied.
#[derive(Debug)]
pub struct Edited {
    text: String,
    /// Changed chunk groups: chunk indices and the group's text range in `text`; `None` when the
    /// candidate must be checked as a whole.
    changed: Option<Vec<(Range<usize>, Range<usize>)>>,
    /// The changed groups' facts once checked (`None`: they do not decide the candidate), so
    /// that the validity check and the name filter share one parse.
    facts: OnceLock<Option<ChangedFacts>>,
}

impl Edited {
    /// The candidate's text.
    pub fn text(&self) -> &str {
        &self.text
    }

    /// The candidate's text, by value.
    pub fn into_text(self) -> String {
        self.text
    }
}

impl Prepared {
    /// Parses `source` once: its `group` rewrite sites (exactly [`rewrites`](crate::rewrites)),
    /// for candidates checked for Python 3.`minor`.
    pub fn new(source: &str, group: Group, minor: u8) -> Prepared {
        Prepared::prepare(source, Some(group), minor)
    }

    /// `source` prepared with its chunks only (no rewrite sites): a text that candidates of
    /// another base are judged against (see [`Prepared::loses_definition_against`]).
    pub fn chunked(source: &str, minor: u8) -> Prepared {
        Prepared::prepare(source, None, minor)
    }

    /// See [`Prepared::new`]; no sites without a group.
    fn prepare(source: &str, group: Option<Group>, minor: u8) -> Prepared {
        let analysed = analyse(source, |parsed, frozen| {
            let (starts, tokens) = (chunk_starts(source, parsed), count_parsed(parsed.tokens()));
            let Some(group) = group else {
                return (Vec::new(), Suites::default(), starts, tokens);
            };
            let sites = list_rewrites(source, parsed, &frozen.ranges, group);
            let suites = Suites::of(source, &parsed.syntax().body);
            (sites, suites, starts, tokens)
        });
        let tokens = match &analysed {
            Ok((_, _, _, tokens)) => *tokens,
            Err(_) => crate::tokens::count(source),
        };
        let (sites, suites, chunks) = match analysed {
            Ok((sites, suites, starts, _)) => {
                // The base is valid and stands alone if every chunk does (the argument of the
                // module documentation, with every chunk changed); then unchanged chunks of a
                // candidate need no check. The chunks' token counts must add up to the base's.
                let facts: Option<Vec<Arc<ChunkFacts>>> = (0..starts.len())
                    .map(|i| standalone_facts(&source[chunk(&starts, i, source.len())], minor))
                    .collect();
                let chunks = facts
                    .filter(|f| f.iter().map(|f| f.tokens).sum::<usize>() == tokens)
                    .map(|facts| Chunks { starts, facts });
                (sites, suites, chunks)
            }
            Err(_) => (Vec::new(), Suites::default(), None),
        };
        Prepared {
            source: source.to_owned(),
            minor,
            sites,
            tokens,
            suites,
            chunks,
            names: Mutex::new(None),
            full_names: OnceLock::new(),
        }
    }

    /// The base text.
    pub fn source(&self) -> &str {
        &self.source
    }

    /// Leaves out the sites `keep` refuses (e.g. ones that already failed alone).
    pub fn retain_sites(&mut self, keep: impl FnMut(&Rewrite) -> bool) {
        self.sites.retain(keep);
    }

    /// Replaces the sites (e.g. by [`value_rewrites`](crate::value_rewrites) of the source,
    /// which [`Prepared::new`] cannot list: they need recorded values).
    pub fn set_sites(&mut self, sites: Vec<Rewrite>) {
        self.sites = sites;
    }

    /// The base's rewrite sites of the group it was prepared for.
    pub fn sites(&self) -> &[Rewrite] {
        &self.sites
    }

    /// The base's [`token_count`](crate::token_count).
    pub fn token_count(&self) -> usize {
        self.tokens
    }

    /// Exactly [`apply`](crate::apply)`(self.source(), selected)`, remembering which chunks
    /// changed.
    pub fn apply(&self, selected: &[&Rewrite]) -> Edited {
        let source = self.source.as_str();
        let mut edits = kept_edits(source, selected);
        refill(source, &mut edits, &self.suites);
        let Some(chunks) = &self.chunks else {
            let text = splice(source, &edits, &[]).text;
            return Edited {
                text,
                changed: None,
                facts: OnceLock::new(),
            };
        };
        let spliced = splice(source, &edits, &chunks.starts[1..]);
        let text = spliced.text;
        if spliced.comma_crossed_mark {
            return Edited {
                text,
                changed: None,
                facts: OnceLock::new(),
            };
        }
        // Chunk index ranges the edits touch, merged where they meet.
        let chunk_of = |at: usize| chunks.starts.partition_point(|&s| s <= at) - 1;
        let mut groups: Vec<Range<usize>> = Vec::new();
        for edit in &edits {
            let range = &edit.range;
            let first = chunk_of(range.start);
            let last = chunk_of(range.end.max(range.start + 1) - 1).max(first);
            match groups.last_mut() {
                Some(group) if group.end > first => group.end = group.end.max(last + 1),
                _ => groups.push(first..last + 1),
            }
        }
        let starts_in_text = |i: usize| {
            if i == 0 {
                0
            } else if i < chunks.starts.len() {
                spliced.marks[i - 1]
            } else {
                text.len()
            }
        };
        let changed = groups
            .into_iter()
            .map(|g| {
                let range = starts_in_text(g.start)..starts_in_text(g.end);
                (g, range)
            })
            .collect();
        Edited {
            text,
            changed: Some(changed),
            facts: OnceLock::new(),
        }
    }

    /// Exactly [`check_valid_for`](crate::check_valid_for)`(edited.text(), minor)`, and for a
    /// valid candidate its [`token_count`](crate::token_count).
    pub fn check(&self, edited: &Edited) -> Result<usize, SyntaxProblem> {
        if let Some(changed) = self.check_changed(edited) {
            return Ok(changed.tokens);
        }
        check(&edited.text, self.minor)?;
        Ok(crate::tokens::count(&edited.text))
    }

    /// The candidate's token count and its changed groups' facts when its changed chunks show
    /// it valid (see the module documentation), else `None`; worked out once per candidate.
    pub(crate) fn check_changed<'e>(&self, edited: &'e Edited) -> Option<&'e ChangedFacts> {
        edited
            .facts
            .get_or_init(|| self.check_changed_now(edited))
            .as_ref()
    }

    /// See [`Prepared::check_changed`].
    fn check_changed_now(&self, edited: &Edited) -> Option<ChangedFacts> {
        let chunks = self.chunks.as_ref()?;
        let changed = edited.changed.as_ref()?;
        let mut tokens = self.tokens;
        let mut groups = Vec::with_capacity(changed.len());
        for (group, range) in changed {
            let text = edited.text.get(range.clone())?;
            let last = group.end == chunks.starts.len();
            if !last && !text.is_empty() && !ends_cleanly(text) {
                return None;
            }
            // The lexer skips a byte order mark at the start of a text only.
            if group.start > 0 && text.starts_with('\u{feff}') {
                return None;
            }
            tokens -= chunks.facts[group.clone()]
                .iter()
                .map(|f| f.tokens)
                .sum::<usize>();
            let facts = standalone_facts(text, self.minor)?;
            tokens += facts.tokens;
            groups.push(facts);
        }
        Some(ChangedFacts { tokens, groups })
    }
}

/// Locks `mutex`, also after a panic elsewhere (the data stays consistent: it is only
/// replaced whole).
fn lock<T>(mutex: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    mutex.lock().unwrap_or_else(|e| e.into_inner())
}

/// Chunk texts known to be valid and to stand alone, per Python minor version, with their
/// facts. A text's facts never change, so the cache is shared by every [`Prepared`] of the
/// process: after an accepted candidate, the new base's unchanged chunks are found here.
static STANDALONE: Mutex<Option<KnownChunks>> = Mutex::new(None);

/// See [`STANDALONE`].
#[derive(Default)]
struct KnownChunks {
    facts: HashMap<u8, HashMap<String, Arc<ChunkFacts>>>,
    bytes: usize,
}

/// Bytes of chunk text [`STANDALONE`] holds at most (it starts over when full).
const STANDALONE_BYTES: usize = 64 << 20;

/// The facts of `text` if it is valid for Python 3.`minor` and stands alone (see
/// [`check_standalone`](crate::validity::check_standalone)), else `None`: one parse gives the
/// verdict, the token count and the name summary.
fn standalone_facts(text: &str, minor: u8) -> Option<Arc<ChunkFacts>> {
    let known = |f: &mut dyn FnMut(&mut KnownChunks)| {
        f(lock(&STANDALONE).get_or_insert_with(KnownChunks::default));
    };
    let mut found = None;
    known(&mut |k| found = k.facts.get(&minor).and_then(|m| m.get(text)).cloned());
    if found.is_some() {
        return found;
    }
    let (alone, facts) = check_standalone_with(text, minor, |body, tokens| ChunkFacts {
        tokens: count_parsed(tokens),
        summary: Arc::new(Summary::of_body(body)),
    })
    .ok()?;
    if !alone {
        return None;
    }
    let facts = Arc::new(facts);
    known(&mut |k| {
        if k.bytes + text.len() > STANDALONE_BYTES {
            *k = KnownChunks::default();
        }
        k.bytes += text.len();
        let by_text = k.facts.entry(minor).or_default();
        by_text.insert(text.to_owned(), Arc::clone(&facts));
    });
    Some(facts)
}

/// Whether `text` ends with a line end that does not continue its line (no backslash before it).
fn ends_cleanly(text: &str) -> bool {
    let Some(body) = text
        .strip_suffix("\r\n")
        .or_else(|| text.strip_suffix('\n'))
        .or_else(|| text.strip_suffix('\r'))
    else {
        return false;
    };
    !body.ends_with('\\')
}

/// The byte range of chunk `i` of a text of length `len`.
fn chunk(starts: &[usize], i: usize, len: usize) -> Range<usize> {
    starts[i]..starts.get(i + 1).copied().unwrap_or(len)
}

/// Chunk starts of a parsed module: 0, then every later top-level statement that starts its
/// line at column 0 right after a logical newline.
fn chunk_starts(source: &str, parsed: &Parsed) -> Vec<usize> {
    let tokens = parsed.tokens();
    let mut starts = vec![0];
    for stmt in parsed.syntax().body.iter().skip(1) {
        let at = stmt.start().to_usize();
        if line_start(source, at) != at {
            continue;
        }
        // The last significant token before the statement must end a logical line.
        let before = tokens.partition_point(|t| t.end().to_usize() <= at);
        let previous = tokens[..before].iter().rev().find(|t| {
            !matches!(
                t.kind(),
                TokenKind::Comment
                    | TokenKind::NonLogicalNewline
                    | TokenKind::Indent
                    | TokenKind::Dedent
            )
        });
        if previous.is_some_and(|t| t.kind() == TokenKind::Newline) {
            starts.push(at);
        }
    }
    starts
}
