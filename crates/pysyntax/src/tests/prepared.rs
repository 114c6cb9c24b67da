//! [`Prepared`]: its apply equals [`apply`], and its incremental check equals the full check
//! (result and token count) on random edit sets over real modules: the benchmark cases and
//! modules of the installed standard library.

use std::path::PathBuf;

use super::edit;
use crate::*;

/// A small deterministic generator (splitmix64), so failures reproduce.
pub(super) struct Rng(pub(super) u64);

impl Rng {
    pub(super) fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    pub(super) fn below(&mut self, n: usize) -> usize {
        (self.next() % n.max(1) as u64) as usize
    }
}

/// Standard-library modules with classes, async code, `global`, `nonlocal`, decorators, `match`
/// and `__future__` imports between them.
const STDLIB: &[&str] = &[
    "textwrap.py",
    "dataclasses.py",
    "fractions.py",
    "graphlib.py",
    "shlex.py",
    "heapq.py",
    "contextlib.py",
    "asyncio/locks.py",
    "tomllib/_parser.py",
    "gettext.py",
    "zipfile.py",
];

/// The modules the property runs over (bench cases and whichever standard-library modules the
/// interpreter has).
pub(super) fn corpus() -> Vec<(String, String)> {
    let mut files = Vec::new();
    let cases = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../bench/python/cases");
    let mut case_files: Vec<PathBuf> = std::fs::read_dir(&cases)
        .expect("bench cases")
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|e| e == "py"))
        .collect();
    case_files.sort();
    files.extend(case_files);
    let stdlib = std::process::Command::new("python3")
        .args([
            "-c",
            "import sysconfig; print(sysconfig.get_paths()['stdlib'])",
        ])
        .output()
        .expect("python3 runs");
    let stdlib = PathBuf::from(String::from_utf8_lossy(&stdlib.stdout).trim());
    let found: Vec<PathBuf> = STDLIB.iter().map(|m| stdlib.join(m)).collect();
    assert!(
        found.iter().filter(|p| p.is_file()).count() >= 8,
        "standard library modules under {}",
        stdlib.display()
    );
    files.extend(found.into_iter().filter(|p| p.is_file()));
    files
        .into_iter()
        .map(|p| {
            let text = std::fs::read_to_string(&p).expect("readable module");
            (p.display().to_string(), text)
        })
        .collect()
}

/// Replacements for arbitrary edits that try every way one part of a module can break another.
const NASTY: &[&str] = &[
    "",
    "pass",
    "\n",
    "  ",
    "\t",
    "(",
    ")",
    "\\\n",
    "'''",
    ";",
    "#",
    "x = 1\n",
    "    x = 1\n",
    "global x\n",
    "nonlocal x\n",
    "from __future__ import annotations\n",
    "return 1\n",
    "yield\n",
    "break\n",
    "await x\n",
    "if x:\n",
    "@d\n",
    "x = 1",
    "def f(a, a): pass\n",
    "global __all__\n",
    "\u{feff}x = 1\n",
    "__all__ = []\n",
];

/// Byte ranges of the module's top-level statements (where [`random_edit`] edits).
pub(super) fn top_level_spans(source: &str) -> Vec<std::ops::Range<usize>> {
    ruff_python_parser::parse_module(source)
        .expect("parses")
        .syntax()
        .body
        .iter()
        .map(rewrites::span)
        .collect()
}

/// One to three [`random_edit`]s of `source`.
pub(super) fn random_edits(
    rng: &mut Rng,
    source: &str,
    statements: &[std::ops::Range<usize>],
) -> Vec<Rewrite> {
    (0..1 + rng.below(3))
        .map(|_| random_edit(rng, source, statements))
        .collect()
}

/// A random edit of `source`: often a whole top-level statement (`statements` are their
/// spans), else a range snapped to character boundaries and often to line starts, replaced
/// with one of [`NASTY`].
pub(super) fn random_edit(
    rng: &mut Rng,
    source: &str,
    statements: &[std::ops::Range<usize>],
) -> Rewrite {
    let snap = |mut at: usize| {
        while !source.is_char_boundary(at) {
            at -= 1;
        }
        at
    };
    let range = if rng.below(3) == 0 && !statements.is_empty() {
        let span = &statements[rng.below(statements.len())];
        text::line_start(source, span.start)..text::next_line_start(source, span.end)
    } else {
        let mut start = snap(rng.below(source.len() + 1));
        if rng.below(2) == 0 {
            start = text::line_start(source, start);
        }
        let long = if rng.below(4) == 0 { 3000 } else { 300 };
        let mut end = snap((start + rng.below(long)).min(source.len()));
        if rng.below(2) == 0 {
            end = text::next_line_start(source, end);
        }
        start..end.max(start)
    };
    let kinds = ["remove-statement", "remove-argument", "halve-integer"];
    edit(
        kinds[rng.below(kinds.len())],
        range,
        NASTY[rng.below(NASTY.len())],
    )
}

/// Compares [`Prepared`] with the full functions on one selection; returns whether the
/// incremental check decided alone.
fn compare(name: &str, prepared: &Prepared, selected: &[&Rewrite]) -> bool {
    let source = prepared.source();
    let edited = prepared.apply(selected);
    let text = apply(source, selected);
    assert_eq!(
        edited.text(),
        text,
        "{name}: apply differs for {selected:?}"
    );
    let full = check_valid_for(&text, DEFAULT_MINOR).map(|()| token_count(&text));
    let fast = prepared.check(&edited);
    assert_eq!(fast, full, "{name}: check differs for {selected:?}");
    prepared.check_changed(&edited).is_some()
}

#[test]
fn incremental_check_equals_full_check_on_random_edits() {
    let mut rng = Rng(0x5eed);
    let (mut compared, mut decided_alone, mut invalid) = (0usize, 0usize, 0usize);
    for (name, source) in corpus() {
        assert!(check_valid(&source).is_ok(), "{name} is valid");
        for group in Group::ALL {
            let prepared = Prepared::new(&source, group, DEFAULT_MINOR);
            assert_eq!(prepared.sites(), &rewrites(&source, group)[..], "{name}");
            assert_eq!(prepared.token_count(), token_count(&source));
            let sites = prepared.sites();
            if sites.is_empty() {
                continue;
            }
            for round in 0..12 {
                // Like ddmin: one site, a few, or a contiguous chunk of them.
                let chosen: Vec<&Rewrite> = match round % 3 {
                    0 => vec![&sites[rng.below(sites.len())]],
                    1 => (0..1 + rng.below(4))
                        .map(|_| &sites[rng.below(sites.len())])
                        .collect(),
                    _ => {
                        let len = 1 + rng.below(sites.len());
                        let at = rng.below(sites.len() - len + 1);
                        sites[at..at + len].iter().collect()
                    }
                };
                decided_alone += usize::from(compare(&name, &prepared, &chosen));
                compared += 1;
                // As after an acceptance: the candidate becomes the base (its chunks' verdicts
                // come from the process-wide cache), and its own candidates must agree too.
                let next = apply(&source, &chosen);
                if round % 4 == 0 && check_valid(&next).is_ok() {
                    let prepared = Prepared::new(&next, group, DEFAULT_MINOR);
                    let sites = prepared.sites();
                    for _ in 0..sites.len().min(3) {
                        let site = &sites[rng.below(sites.len())];
                        decided_alone += usize::from(compare(&name, &prepared, &[site]));
                        compared += 1;
                    }
                }
            }
        }
        let prepared = Prepared::new(&source, Group::FastRemovals, DEFAULT_MINOR);
        let statements = top_level_spans(&source);
        for _ in 0..60 {
            let edits = random_edits(&mut rng, &source, &statements);
            let chosen: Vec<&Rewrite> = edits.iter().collect();
            invalid += usize::from(check_valid(&apply(&source, &chosen)).is_err());
            decided_alone += usize::from(compare(&name, &prepared, &chosen));
            compared += 1;
        }
    }
    eprintln!("{compared} compared, {decided_alone} decided alone, {invalid} invalid");
    // The property must not hold vacuously: the fast path decides most candidates, and the
    // arbitrary edits break many of them.
    assert!(compared >= 500, "{compared} comparisons");
    assert!(
        decided_alone * 2 > compared,
        "{decided_alone} of {compared}"
    );
    assert!(invalid * 5 > compared / 4, "{invalid} invalid");
}

#[test]
fn module_state_forces_full_checks() {
    // A `global` at module scope or a `__future__` import: nothing is decided per chunk.
    for base in [
        "global x\nx = 1\ndef f():\n    pass\n",
        "from __future__ import annotations\nx = 1\ny = 2\n",
    ] {
        let prepared = Prepared::new(base, Group::FastRemovals, DEFAULT_MINOR);
        let site = &prepared.sites()[prepared.sites().len() - 1];
        let edited = prepared.apply(&[site]);
        assert!(prepared.check_changed(&edited).is_none(), "{base}");
        assert_eq!(
            prepared.check(&edited),
            Ok(token_count(edited.text())),
            "{base}"
        );
    }
    // A chunk that gains a future import or a module-scope global is checked in full: both are
    // errors only in the context of the whole module.
    let base = "x = 1\ny = 2\n";
    let prepared = Prepared::new(base, Group::FastRemovals, DEFAULT_MINOR);
    for replacement in ["from __future__ import annotations\n", "global x\n"] {
        let edit = edit("test", 6..12, replacement);
        let edited = prepared.apply(&[&edit]);
        assert!(prepared.check_changed(&edited).is_none());
        assert!(prepared.check(&edited).is_err(), "{replacement}");
    }
}

#[test]
fn an_invalid_base_gets_full_checks() {
    // `return` outside a function in one chunk: an edit elsewhere must not make it valid.
    let base = "x = 1\nreturn 2\ny = 3\n";
    let prepared = Prepared::new(base, Group::FastRemovals, DEFAULT_MINOR);
    let edit = edit("test", 15..21, "y = 4\n");
    let edited = prepared.apply(&[&edit]);
    assert_eq!(edited.text(), "x = 1\nreturn 2\ny = 4\n");
    assert!(prepared.check_changed(&edited).is_none());
    assert!(prepared.check(&edited).is_err());
}

#[test]
fn chunks_that_do_not_end_a_line_are_checked_in_full() {
    let base = "x = 1\ny = 2\nz = 3\n";
    let prepared = Prepared::new(base, Group::FastRemovals, DEFAULT_MINOR);
    for (range, replacement, valid) in [
        // `x = 1` glued to `y = 2`.
        (0..6, "x = 1", false),
        // A continuation joins the next statement's line.
        (0..6, "x = 1 \\\n", false),
        // Indented whitespace before the next statement.
        (0..6, "   ", false),
        // A block left open by the removal of the next line's body.
        (6..12, "if y:\n", false),
        (6..12, "w = 2\n", true),
        // A byte order mark is only skipped at the start of the file.
        (6..12, "\u{feff}w = 2\n", false),
    ] {
        let edit = edit("test", range, replacement);
        let edited = prepared.apply(&[&edit]);
        let full = check_valid(edited.text()).map(|()| token_count(edited.text()));
        assert_eq!(full.is_ok(), valid, "{:?}", edited.text());
        assert_eq!(prepared.check(&edited), full, "{:?}", edited.text());
    }
}
