use super::*;
use crate::language::Strategy;
use crate::spec::{Growth, LevelPolicy};
use crate::testlang::{Lines, Parens};
use minrepro_engine::run_search;

/// The text `pass` reduces `text` to, with the engine's rule: the first proposal of a batch
/// for which `interesting` holds becomes the current text.
fn reduce(pass: &dyn Pass<String>, text: &str, interesting: &dyn Fn(&str) -> bool) -> String {
    reduce_at(pass, Width::SEQUENTIAL, text, interesting)
}

/// [`reduce`] with the search told `width`.
fn reduce_at(
    pass: &dyn Pass<String>,
    width: Width,
    text: &str,
    interesting: &dyn Fn(&str) -> bool,
) -> String {
    let current = text.to_owned();
    let mut search = pass.search(&current);
    search.set_width(width);
    run_search(&mut *search, current, &mut |p| interesting(&p.case))
}

#[test]
fn a_plain_language_reduces_with_every_strategy_and_policy() {
    let text = "a\nb\nc\nd\ne\nf\n";
    let needs = |t: &str| t.contains("c\n") && t.contains("e\n");
    for (strategy, probdd, levels) in [
        (Strategy::Ddmin, false, false),
        (Strategy::ProbDd, true, false),
        (Strategy::ProbDd, true, true),
        (Strategy::ProbDd, false, true),
    ] {
        let language = Lines {
            probdd,
            levels,
            ..Lines::default()
        };
        for jobs in [1, 3] {
            let state = SharedState::new(language, text, strategy);
            let passes = group_passes(&state);
            assert_eq!(passes[0].name(), "lines");
            let width = Width::of(jobs, true);
            let reduced = reduce_at(&passes[0], width, text, &needs);
            assert_eq!(reduced, "c\ne\n", "{language:?}");
        }
    }
}

#[test]
fn a_copy_of_a_group_search_proposes_what_it_would_and_records_nothing() {
    let text = "a\nb\nc\nd\ne\nf\n".to_owned();
    let needs = |t: &str| t.contains('c') && t.contains('e');
    for (probdd, levels) in [(true, false), (true, true), (false, false)] {
        let language = Lines {
            probdd,
            levels,
            skip_failed: true,
            ..Lines::default()
        };
        let state = SharedState::new(language, &text, Strategy::ProbDd);
        let pass = &group_passes(&state)[0];
        let mut search = pass.search(&text);
        search.set_width(Width::of(3, false));
        let mut current = text.clone();
        let mut batch = search.next_batch(&current);
        while let Some(proposals) = batch {
            let (interesting, rejected): (Vec<usize>, Vec<usize>) =
                (0..proposals.len()).partition(|&i| needs(&proposals[i].case));
            let accepted = &interesting[..interesting.len().min(1)];
            let next = accepted.first().map(|&i| proposals[i].case.clone());
            let next = next.unwrap_or_else(|| current.clone());
            let failed = lock(&state.failed_sites).clone();
            let mut copy = search
                .fork(3)
                .expect("ProbDD and ddmin groups can be copied");
            copy.feedback_fold(accepted, &rejected);
            let ahead = copy
                .next_batch(&next)
                .map(|b| b.into_iter().map(|p| p.case));
            let ahead: Option<Vec<String>> = ahead.map(Iterator::collect);
            drop(copy);
            assert_eq!(*lock(&state.failed_sites), failed, "a copy records nothing");
            search.feedback_fold(accepted, &rejected);
            current = next;
            batch = search.next_batch(&current);
            let cases = batch
                .as_ref()
                .map(|b| b.iter().map(|p| p.case.clone()).collect());
            assert_eq!(cases, ahead, "probdd {probdd}, levels {levels}");
        }
        assert_eq!(current, "c\ne\n");
    }
}

#[test]
fn a_shrink_size_group_refuses_edits_that_keep_the_size() {
    let needs = |t: &str| t.contains('a');
    for (growth, expected) in [(Growth::Never, "a\n"), (Growth::NeverInSize, "a!\n")] {
        let language = Lines {
            growth,
            ..Lines::default()
        };
        let state = SharedState::new(language, "a!\n", Strategy::Ddmin);
        let passes = group_passes(&state);
        let mut text = "a!\n".to_owned();
        loop {
            let next = reduce(&passes[0], &text, &needs);
            if next == text {
                break;
            }
            text = next;
        }
        assert_eq!(text, expected, "{growth:?}");
    }
}

#[test]
fn a_search_that_found_nothing_is_not_repeated_on_a_text_with_the_same_key() {
    let state = SharedState::new(Lines::default(), "a\nb\n", Strategy::Ddmin);
    let pass = &group_passes(&state)[0];
    let asked = std::cell::Cell::new(0);
    let nothing = |_: &str| {
        asked.set(asked.get() + 1);
        false
    };
    assert_eq!(reduce(pass, "a\nb\n", &nothing), "a\nb\n");
    let first = asked.replace(0);
    assert!(first > 0);
    // Same key (the test language ignores case): not searched again.
    assert_eq!(reduce(pass, "A\nB\n", &nothing), "A\nB\n");
    assert_eq!(asked.get(), 0);
    // Another key: searched; a search that accepts something is not recorded.
    assert_eq!(reduce(pass, "a\nc\n", &|t: &str| t == "c\n"), "c\n");
    assert_eq!(reduce(pass, "a\nc\n", &nothing), "a\nc\n");
    assert!(asked.get() > 0);
}

/// What the group search of [`Parens`] under `levels` proposes on `text` (every candidate,
/// in order), searched with ProbDD or ddmin at `jobs`, and the text it ends at (the
/// engine's rule).
fn proposed(
    levels: LevelPolicy,
    probdd: bool,
    jobs: usize,
    text: &str,
    interesting: &dyn Fn(&str) -> bool,
) -> (String, Vec<String>) {
    proposed_refusing(levels, probdd, jobs, text, interesting, None)
}

/// [`proposed`] with the candidates for which `refused` holds refused without a run (they
/// are not among the candidates returned).
fn proposed_refusing(
    levels: LevelPolicy,
    probdd: bool,
    jobs: usize,
    text: &str,
    interesting: &dyn Fn(&str) -> bool,
    refused: Option<fn(&str) -> bool>,
) -> (String, Vec<String>) {
    let strategy = if probdd {
        Strategy::ProbDd
    } else {
        Strategy::Ddmin
    };
    let state = SharedState::new(
        Parens {
            levels,
            probdd,
            sweeps: false,
            refused,
        },
        text,
        strategy,
    );
    let pass = &group_passes(&state)[0];
    let mut seen = Vec::new();
    let current = text.to_owned();
    let mut search = pass.search(&current);
    search.set_width(Width::of(jobs, true));
    let end = run_search(&mut *search, current, &mut |p| {
        seen.push(p.case.clone());
        interesting(&p.case)
    });
    (end, seen)
}

#[test]
fn a_resweep_retries_what_a_later_acceptance_at_the_same_level_freed() {
    // `(d)` may go only once `(f)` is gone; ProbDD tries `(d)` alone first (and never
    // again): only a re-sweep of the level removes it.
    let text = "(d)(a)(b)(c)(e)(g)(f)\n";
    let interesting = |t: &str| {
        ["(a)", "(b)", "(c)", "(e)", "(g)"]
            .iter()
            .all(|n| t.contains(n))
            && (!t.contains("(f)") || t.contains("(d)"))
    };
    let freed = "(a)(b)(c)(e)(g)\n";
    for (resweep, expected) in [(false, "(d)(a)(b)(c)(e)(g)\n"), (true, freed)] {
        let levels = LevelPolicy {
            resweep,
            stop_after_fruitless: None,
        };
        let (end, one) = proposed(levels, true, 1, text, &interesting);
        assert_eq!(end, expected);
        assert!(one.iter().any(|c| c == "(a)(b)(c)(e)(g)(f)\n"));
        // The same candidates at any width.
        assert_eq!(proposed(levels, true, 3, text, &interesting).1, one);
        // ddmin tries the freed site again by itself.
        assert_eq!(proposed(levels, false, 1, text, &interesting).0, freed);
    }
}

#[test]
fn a_deferred_site_that_failed_alone_stays_out_of_the_levels_re_sweeps() {
    // `(!d)` may go only once `(!e)` is gone. Both are deferred: tried after `(a)`, alone,
    // in order; `(!d)` fails, `(!e)` goes, and the re-sweep does not try `(!d)` again
    // (its line is unchanged; the language would mark it anew if its deferral changed).
    let text = "(!d)\n(!e)\n(a)\n";
    let interesting = |t: &str| t.contains("(a)") && (t.contains("(!d)") || !t.contains("(!e)"));
    let levels = LevelPolicy {
        resweep: true,
        stop_after_fruitless: None,
    };
    let (end, seen) = proposed(levels, true, 1, text, &interesting);
    assert_eq!(seen[0], "(!d)\n(!e)\n\n", "{seen:?}");
    let alone = seen.iter().filter(|c| *c == "\n(!e)\n(a)\n").count();
    assert_eq!(alone, 1, "{seen:?}");
    assert_eq!(end, "(!d)\n\n(a)\n");
    // Not deferred: removed together at once.
    let plain = |t: &str| t.contains("(a)") && (t.contains("(d)") || !t.contains("(e)"));
    assert_eq!(
        proposed(levels, true, 1, "(d)\n(e)\n(a)\n", &plain).0,
        "\n\n(a)\n"
    );
}

#[test]
fn a_search_stops_descending_after_fruitless_levels_only_once_it_accepted_something() {
    // Levels: `(a)` and `(b(c(d))(e))`; `(c(d))` and `(e)`; `(d)`.
    let text = "(a)(b(c(d))(e))\n";
    let deepest = |seen: &[String]| seen.iter().any(|c| c.ends_with("(b(c)(e))\n"));
    let levels = |stop| LevelPolicy {
        resweep: false,
        stop_after_fruitless: stop,
    };
    let keeps = |t: &str| ['b', 'c', 'd', 'e'].iter().all(|&n| t.contains(n));
    let all = |t: &str| keeps(t) && t.contains('a');
    for probdd in [false, true] {
        // `(a)` goes at level 0, level 1 (two sites) accepts nothing: no level 2 (one site)
        // with the stop.
        let (end, seen) = proposed(levels(Some(1)), probdd, 1, text, &keeps);
        assert_eq!(end, "(b(c(d))(e))\n");
        assert!(!deepest(&seen), "{seen:?}");
        let (end, seen) = proposed(levels(None), probdd, 1, text, &keeps);
        assert_eq!(end, "(b(c(d))(e))\n");
        assert!(deepest(&seen));
        // Nothing accepted: every level is searched.
        let (end, seen) = proposed(levels(Some(1)), probdd, 1, text, &all);
        assert_eq!(end, text);
        assert!(seen.iter().any(|c| c == "(a)(b(c)(e))\n"), "{seen:?}");
        // A next level as wide as the fruitless ones is searched.
        let wide = "(a)(b(c(d)(e)))\n";
        let (_, seen) = proposed(levels(Some(1)), probdd, 1, wide, &keeps);
        assert!(seen.iter().any(|c| c == "(b(c(e)))\n"), "{seen:?}");
    }
}

#[test]
fn a_level_whose_every_candidate_was_refused_unrun_is_not_fruitless() {
    // As in the test above, `(a)` goes at level 0 and level 1 (`(c(d))`, `(e)`) can give
    // nothing; here the language refuses its candidates before any run (each loses `c` or
    // `e`). Such a level cost nothing, so the stop after one fruitless level does not
    // apply: level 2 (`(d)`) is searched, where the same level rejected by runs ends the
    // search.
    let text = "(a)(b(c(d))(e))\n";
    let levels = LevelPolicy {
        resweep: false,
        stop_after_fruitless: Some(1),
    };
    let keeps = |t: &str| ['b', 'c', 'd', 'e'].iter().all(|&n| t.contains(n));
    let loses_c_or_e: fn(&str) -> bool = |t| !t.contains('c') || !t.contains('e');
    let level_two = |seen: &[String]| seen.iter().any(|c| c == "(b(c)(e))\n");
    for probdd in [false, true] {
        let (end, seen) = proposed_refusing(levels, probdd, 1, text, &keeps, Some(loses_c_or_e));
        assert_eq!(end, "(b(c(d))(e))\n");
        assert!(!seen.iter().any(|c| loses_c_or_e(c)), "{seen:?}");
        assert!(level_two(&seen), "{seen:?}");
        let (_, seen) = proposed(levels, probdd, 1, text, &keeps);
        assert!(!level_two(&seen), "{seen:?}");
    }
}
