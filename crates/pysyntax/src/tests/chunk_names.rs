//! [`Prepared::loses_definition`]: its verdict, and the candidate's number of mismatched calls
//! when it is decided from the changed chunks alone, equal the full computation's on random
//! selections of real rewrite sites (and arbitrary edits) over the modules of
//! [`corpus`](super::prepared::corpus).

use super::edit;
use super::prepared::{corpus, random_edits, top_level_spans, Rng};
use crate::*;

/// Counts of one run of comparisons.
#[derive(Default)]
struct Tally {
    compared: usize,
    incremental: usize,
    lost: usize,
    /// Bases that took over (and updated) their predecessor's summaries.
    inherited: usize,
}

/// As after an acceptance: `next` (an edit of `earlier`'s text) becomes the base and takes over
/// `earlier`'s summaries; they must equal those summed from scratch.
fn accept(name: &str, earlier: &Prepared, next: &str, group: Group, tally: &mut Tally) -> Prepared {
    let prepared = Prepared::new(next, group, DEFAULT_MINOR);
    prepared.inherit_names(earlier);
    if let Some(same) = prepared.names_equal_fresh() {
        assert!(same, "{name}: inherited summaries differ from fresh ones");
        tally.inherited += 1;
    }
    prepared
}

/// Compares the incremental and the full verdict on one selection.
fn compare(name: &str, prepared: &Prepared, selected: &[&Rewrite], tally: &mut Tally) {
    let edited = prepared.apply(selected);
    if prepared.check(&edited).is_err() {
        // Only valid candidates reach the filter.
        return;
    }
    let full = match (NameUse::of(prepared.source()), NameUse::of(edited.text())) {
        (Some(base), Some(candidate)) => base.loses_definition(&candidate),
        _ => false,
    };
    let verdict = prepared.loses_definition(&edited);
    assert_eq!(verdict, full, "{name}: verdict differs for {selected:?}");
    if let Some((fast, mismatches)) = prepared.loses_definition_changed(&edited) {
        let parsed = ruff_python_parser::parse_module(edited.text()).expect("valid candidate");
        let expected = arity::mismatched_calls(&parsed.syntax().body);
        assert_eq!(fast, full, "{name}: verdict differs for {selected:?}");
        assert_eq!(
            mismatches, expected,
            "{name}: mismatched calls differ for {selected:?}"
        );
        tally.incremental += 1;
    }
    tally.compared += 1;
    tally.lost += usize::from(full);
}

/// A ddmin-like selection of `sites`: one, a few, or a contiguous run.
fn selection<'s>(rng: &mut Rng, sites: &'s [Rewrite], round: usize) -> Vec<&'s Rewrite> {
    match round % 3 {
        0 => vec![&sites[rng.below(sites.len())]],
        1 => (0..1 + rng.below(4))
            .map(|_| &sites[rng.below(sites.len())])
            .collect(),
        _ => {
            let len = 1 + rng.below(sites.len().min(40));
            let at = rng.below(sites.len() - len + 1);
            sites[at..at + len].iter().collect()
        }
    }
}

#[test]
fn incremental_name_filter_equals_full_on_random_edits() {
    let mut rng = Rng(0xa11ce);
    let mut tally = Tally::default();
    for (name, source) in corpus() {
        for group in Group::ALL {
            let prepared = Prepared::new(&source, group, DEFAULT_MINOR);
            let sites = prepared.sites();
            if sites.is_empty() {
                continue;
            }
            for round in 0..15 {
                let chosen = selection(&mut rng, sites, round);
                compare(&name, &prepared, &chosen, &mut tally);
                // As after an acceptance: the candidate becomes the base (its chunk summaries
                // come from the process-wide cache).
                let next = apply(&source, &chosen);
                if round % 5 == 0 && check_valid(&next).is_ok() {
                    let prepared = accept(&name, &prepared, &next, group, &mut tally);
                    let sites = prepared.sites();
                    for round in 0..sites.len().min(4) {
                        let chosen = selection(&mut rng, sites, round);
                        compare(&name, &prepared, &chosen, &mut tally);
                    }
                }
            }
        }
        let prepared = Prepared::new(&source, Group::FastRemovals, DEFAULT_MINOR);
        let statements = top_level_spans(&source);
        for round in 0..30 {
            let edits = random_edits(&mut rng, &source, &statements);
            let chosen: Vec<&Rewrite> = edits.iter().collect();
            compare(&name, &prepared, &chosen, &mut tally);
            let next = apply(&source, &chosen);
            if round % 5 == 0 && check_valid(&next).is_ok() {
                let accepted = accept(&name, &prepared, &next, Group::FastRemovals, &mut tally);
                // And back: the summaries go the other way too.
                accept(&name, &accepted, &source, Group::FastRemovals, &mut tally);
            }
        }
    }
    let Tally {
        compared,
        incremental,
        lost,
        inherited,
    } = tally;
    eprintln!(
        "{compared} compared, {incremental} incremental, {lost} lose a definition, \
         {inherited} bases inherited their summaries"
    );
    assert!(
        inherited >= 50,
        "{inherited} bases inherited their summaries"
    );
    // Not vacuous: most are decided incrementally, and both verdicts occur often.
    assert!(compared >= 500, "{compared} comparisons");
    assert!(incremental * 2 > compared, "{incremental} of {compared}");
    assert!(
        lost * 10 > compared && (compared - lost) * 10 > compared,
        "{lost} of {compared}"
    );
}

#[test]
fn calls_of_unchanged_chunks_follow_their_callee() {
    // The edit is in `f`'s chunk; the calls that stop (or start) fitting are elsewhere.
    let base = "def f(a):\n    return a\n\nx = f(1)\ny = f(2)\n\nclass C:\n    def m(self):\n        pass\n\nC().m()\n";
    for (from, to, loses) in [
        ("def f(a):", "def f(a, b):", true),
        ("def f(a):", "def f(a=0):", false),
        ("    def m(self):", "    def m(self, z):", true),
        // A second binding makes `f` ambiguous: no call is checked any more.
        ("    return a\n", "    return a\nf = 1\n", false),
    ] {
        let at = base.find(from).expect("site");
        let edit = edit("test", at..at + from.len(), to);
        let prepared = Prepared::new(base, Group::FastRemovals, DEFAULT_MINOR);
        let edited = prepared.apply(&[&edit]);
        assert!(prepared.loses_definition_changed(&edited).is_some(), "{to}");
        assert_eq!(prepared.loses_definition(&edited), loses, "{to}");
    }
}

/// As ProbDD judges a candidate: made from a fixed base, compared with the text accepted so far.
#[test]
fn name_filter_against_another_text_equals_full_on_random_edits() {
    let mut rng = Rng(0xb0b);
    let (mut compared, mut incremental, mut lost) = (0, 0, 0);
    for (name, source) in corpus() {
        for group in [Group::FastRemovals, Group::Simplifications] {
            let base = Prepared::new(&source, group, DEFAULT_MINOR);
            let sites = base.sites();
            if sites.is_empty() {
                continue;
            }
            let mut current: Option<Prepared> = None;
            for round in 0..12 {
                let accepted = selection(&mut rng, sites, round);
                let text = apply(&source, &accepted);
                if check_valid(&text).is_err() {
                    continue;
                }
                let next = Prepared::chunked(&text, DEFAULT_MINOR);
                // Summaries handed on from one current text to the next, as in a search.
                next.inherit_names(current.as_ref().unwrap_or(&base));
                let current = current.insert(next);
                for round in 0..3 {
                    let mut chosen = accepted.clone();
                    chosen.extend(selection(&mut rng, sites, round));
                    let edited = base.apply(&chosen);
                    if base.check(&edited).is_err() {
                        continue;
                    }
                    let full = match (NameUse::of(&text), NameUse::of(edited.text())) {
                        (Some(before), Some(after)) => before.loses_definition(&after),
                        _ => false,
                    };
                    let verdict = base.loses_definition_against(&edited, current);
                    assert_eq!(verdict, full, "{name}: verdict differs for {chosen:?}");
                    if let Some((fast, mismatches)) =
                        base.loses_definition_against_changed(&edited, current)
                    {
                        let parsed = ruff_python_parser::parse_module(edited.text())
                            .expect("valid candidate");
                        let expected = arity::mismatched_calls(&parsed.syntax().body);
                        assert_eq!(fast, full, "{name}: verdict differs for {chosen:?}");
                        assert_eq!(mismatches, expected, "{name}: mismatches for {chosen:?}");
                        incremental += 1;
                    }
                    compared += 1;
                    lost += usize::from(full);
                }
            }
        }
    }
    eprintln!("{compared} compared, {incremental} incremental, {lost} lose a definition");
    assert!(compared >= 200, "{compared} comparisons");
    assert!(incremental * 2 > compared, "{incremental} of {compared}");
    assert!(
        lost * 10 > compared && (compared - lost) * 10 > compared,
        "{lost} of {compared}"
    );
}
