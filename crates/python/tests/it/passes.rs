//! The text layer's group passes and tidy pass over Python.

use std::sync::Arc;

use minrepro_engine::{run_search, Pass};
use minrepro_pysyntax::{rewrites, token_count, Group};
use minrepro_python::language::{Python, PROBDD_STATEMENTS_MAX_TOKENS};
use minrepro_text::{
    candidate, group_passes, GroupPass, Language, SharedState, Strategy, TidyPass,
};

const PY: Python = Python {
    minor: 11,
    encoding: None,
    values: None,
    keep_function: None,
};

fn state(text: &str, strategy: Strategy) -> Arc<SharedState<Python>> {
    SharedState::new(PY, text, strategy)
}

#[test]
fn candidates_apply_the_chosen_sites_and_never_propose_the_current_text() {
    let text = "x = 10\ny = 2\n";
    let state = state(text, Strategy::Ddmin);
    let current = &PY.prepare(text, Group::IntegerReduction);
    let shrink = candidate(Group::IntegerReduction, &state, current, &[0]).unwrap();
    assert_eq!(shrink.case, "x = 5\ny = 2\n");
    assert_eq!(shrink.change["group"], "integer-reduction");
    assert_eq!(shrink.change["rewrites"][0]["start"], 4);
    // A no-op is never proposed.
    assert!(candidate(Group::IntegerReduction, &state, current, &[]).is_none());
}

#[test]
fn candidates_that_lose_a_used_definition_are_not_proposed() {
    let text = "def f():\n    return 1\nprint(f())\n";
    let state = state(text, Strategy::Ddmin);
    let current = &PY.prepare(text, Group::FastRemovals);
    let site = |start| {
        let sites = minrepro_text::Prepared::sites(current);
        sites.iter().position(|s| s.range.start == start).unwrap()
    };
    assert!(candidate(Group::FastRemovals, &state, current, &[site(0)]).is_none());
    let kept = candidate(Group::FastRemovals, &state, current, &[site(22)]).unwrap();
    assert_eq!(kept.case, "def f():\n    return 1\n");
}

/// Every proposal of a search of `pass` over `text` when every candidate fails.
fn all_failing(pass: &GroupPass<Python>, text: &str) -> Vec<String> {
    let current = text.to_owned();
    let mut search = pass.search(&current);
    let mut proposed = Vec::new();
    while let Some(batch) = search.next_batch(&current) {
        proposed.extend(batch.into_iter().map(|p| p.case));
        search.feedback(None);
    }
    proposed
}

/// The proposals of `pass`'s search over `text`, in order, with the engine's rule: the first
/// proposal of a batch for which `interesting` holds becomes the current text.
fn reduce_with(
    pass: &GroupPass<Python>,
    text: &str,
    interesting: &dyn Fn(&str) -> bool,
) -> Vec<String> {
    let current = text.to_owned();
    let mut search = pass.search(&current);
    let mut proposed = Vec::new();
    run_search(&mut *search, current, &mut |p| {
        proposed.push(p.case.clone());
        interesting(&p.case)
    });
    proposed
}

#[test]
fn statement_removals_decide_the_outer_level_before_trying_inner_statements() {
    let text = "def keep():\n    a = 1\n    b = 2\nprint(1)\n";
    let needs = |t: &str| t.contains("def keep") && t.contains("print(1)");
    for strategy in [Strategy::Ddmin, Strategy::ProbDd] {
        let state = state(text, strategy);
        let passes = group_passes(&state);
        let removals = passes.iter().find(|p| p.group == Group::FastRemovals);
        let proposed = reduce_with(removals.unwrap(), text, &needs);
        // An outer proposal removes `def keep` (with its body) or `print(1)`; an inner one only
        // body lines. `def keep` replaced by its body (def-to-body, a hoisting) is neither.
        let hoisted = |t: &str| !t.contains("def keep") && t.contains("a = 1");
        let outer: Vec<usize> = (0..proposed.len())
            .filter(|&i| !needs(&proposed[i]) && !hoisted(&proposed[i]))
            .collect();
        let inner: Vec<usize> = (0..proposed.len())
            .filter(|&i| needs(&proposed[i]))
            .collect();
        assert!(
            !outer.is_empty() && !inner.is_empty(),
            "{strategy:?}: {proposed:?}"
        );
        assert!(
            outer.last() < inner.first(),
            "{strategy:?}: an inner statement was tried before the outer level was decided: {proposed:?}"
        );
    }
}

#[test]
fn statement_removals_of_large_texts_use_ddmin_whatever_the_strategy() {
    // 100 independent statements; ProbDD's first set holds 9 of them, ddmin's first half 50.
    let statements = |tokens_each: usize| -> String {
        (0..100)
            .map(|i| format!("v{i} = [{}]\n", vec!["1"; tokens_each].join(", ")))
            .collect()
    };
    let first_kept = |text: &str| {
        let state = state(text, Strategy::ProbDd);
        let passes = group_passes(&state);
        let removals = passes.iter().find(|p| p.group == Group::FastRemovals);
        let current = text.to_owned();
        let mut search = removals.unwrap().search(&current);
        let batch = search.next_batch(&current).unwrap();
        batch[0].case.lines().count()
    };
    let small = statements(2);
    assert!(token_count(&small) <= PROBDD_STATEMENTS_MAX_TOKENS);
    assert_eq!(first_kept(&small), 91);
    let large = statements(30);
    assert!(token_count(&large) > PROBDD_STATEMENTS_MAX_TOKENS);
    assert_eq!(first_kept(&large), 50);
}

#[test]
fn expression_sites_that_failed_alone_are_left_out_later() {
    let text = "def f(a, b):\n    return a\nx = f(a + b, 2)\nprint(x)\n";
    for strategy in [Strategy::Ddmin, Strategy::ProbDd] {
        let state = state(text, strategy);
        let passes = group_passes(&state);
        let simplifications = passes.iter().find(|p| p.group == Group::Simplifications);
        let simplifications = simplifications.unwrap();
        assert!(
            !all_failing(simplifications, text).is_empty(),
            "{strategy:?}"
        );
        assert!(
            all_failing(simplifications, text).is_empty(),
            "{strategy:?}"
        );
        // A changed line gives its sites new identities.
        let changed = text.replace("2)", "3)");
        assert!(
            !all_failing(simplifications, &changed).is_empty(),
            "{strategy:?}"
        );
        // Statement removals are always tried again.
        let removals = passes.iter().find(|p| p.group == Group::FastRemovals);
        let first = all_failing(removals.unwrap(), text);
        assert!(!first.is_empty(), "{strategy:?}");
        assert_eq!(all_failing(removals.unwrap(), text), first, "{strategy:?}");
    }
}

#[test]
fn canonicalizations_may_grow_but_never_revisit() {
    let current = "def f(a):\n    return a\nf(1)\n";
    let base = &PY.prepare(current, Group::Canonicalizations);
    // Not beyond the original's size.
    let state = state(current, Strategy::Ddmin);
    assert!(candidate(Group::Canonicalizations, &state, base, &[0]).is_none());
    let state = self::state(&format!("{current}x = [1, 2, 3]\n"), Strategy::Ddmin);
    let grown = candidate(Group::Canonicalizations, &state, base, &[0]).unwrap();
    assert!(PY.size(&grown.case) > PY.size(current), "{}", grown.case);
    state.mark_current(&grown.case);
    assert!(candidate(Group::Canonicalizations, &state, base, &[0]).is_none());
}

#[test]
fn canonicalizations_stop_when_the_budget_is_spent() {
    let original = "def f(a):\n    return a\n";
    let state = state(original, Strategy::Ddmin);
    let passes = group_passes(&state);
    let canon = &passes[1];
    assert_eq!(canon.name(), "canonicalizations");
    let current = original.to_owned();
    let mut search = canon.search(&current);
    // Set by the first search, from the text it starts from.
    let budget = state.growth_budget(Group::Canonicalizations).unwrap();
    assert_eq!(budget, rewrites(original, Group::Canonicalizations).len());
    let mut spent = 0;
    while let Some(batch) = search.next_batch(&current) {
        if batch.is_empty() {
            search.feedback(None);
            continue;
        }
        spent += 1;
        search.feedback(Some(0));
        break;
    }
    let left = state.growth_budget(Group::Canonicalizations).unwrap();
    assert!(left + spent >= budget && left <= budget);
    state.set_growth_budget(Group::Canonicalizations, 0);
    let mut search = canon.search(&current);
    while let Some(batch) = search.next_batch(&current) {
        assert!(
            batch.is_empty(),
            "no canonicalization once the budget is spent"
        );
        search.feedback(None);
    }
}

#[test]
fn the_canonicalization_budget_counts_the_first_searched_text_not_the_original() {
    // Statement removals run first: by the time canonicalizations start, two of the three
    // functions are gone, and only the survivor's sites may be spent.
    let original =
        "def f(a):\n    return a\ndef g(b):\n    return b\ndef h(c):\n    return c\nh(1)\n";
    let later = "def h(c):\n    return c\nh(1)\n";
    let state = state(original, Strategy::Ddmin);
    let passes = group_passes(&state);
    let _search = passes[1].search(&later.to_owned());
    let budget = state.growth_budget(Group::Canonicalizations).unwrap();
    assert_eq!(budget, rewrites(later, Group::Canonicalizations).len());
    assert!(budget < rewrites(original, Group::Canonicalizations).len());
    // A later search does not reset it.
    state.set_growth_budget(Group::Canonicalizations, 0);
    let _again = passes[1].search(&later.to_owned());
    assert_eq!(state.growth_budget(Group::Canonicalizations).unwrap(), 0);
}

#[test]
fn tidy_removes_blank_and_comment_lines_once() {
    let current = "\n\nx = 1\n   \n# leftover\n\ny = 2\n".to_owned();
    let state = state(&current, Strategy::Ddmin);
    let tidy_pass = TidyPass::new(&state);
    let mut search = tidy_pass.search(&current);
    let batch = search.next_batch(&current).unwrap();
    assert_eq!(batch[0].case, "x = 1\ny = 2\n");
    search.feedback(None);
    assert!(search.next_batch(&current).is_none());
    let tidy = "x = 1\n".to_owned();
    assert!(tidy_pass
        .search(&tidy)
        .next_batch(&tidy)
        .unwrap()
        .is_empty());
}

#[test]
fn passes_follow_group_order() {
    let state = state("", Strategy::Ddmin);
    let names: Vec<String> = group_passes(&state).iter().map(|p| p.name()).collect();
    let expected: Vec<String> = Group::ALL.iter().map(|g| g.name().to_owned()).collect();
    assert_eq!(names, expected);
}
