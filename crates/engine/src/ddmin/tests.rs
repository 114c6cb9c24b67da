use super::*;
use crate::search::{remove_positions, run_search, without_indices};
use proptest::prelude::*;

/// Drives a search sequentially, as `-j 1` would: first interesting proposal wins.
fn reduce(
    len: usize,
    min_size: usize,
    interesting: &dyn Fn(&[usize]) -> bool,
) -> (Vec<usize>, usize) {
    let mut search = Ddmin::new(min_size, |items: &Vec<usize>| items.len(), remove_positions);
    let mut tests = 0;
    let current = run_search(&mut search, (0..len).collect(), &mut |proposal| {
        tests += 1;
        assert!(tests < 10_000, "ddmin did not terminate");
        interesting(&proposal.case)
    });
    (current, tests)
}

fn assert_one_minimal(result: &[usize], min_size: usize, interesting: &dyn Fn(&[usize]) -> bool) {
    assert!(interesting(result), "result {result:?} is not interesting");
    if result.len() <= min_size {
        return;
    }
    for skip in 0..result.len() {
        let smaller = without_indices(result, &[skip]);
        assert!(
            !interesting(&smaller),
            "{result:?} is not 1-minimal: {smaller:?} is interesting"
        );
    }
}

#[test]
fn split_chunks_covers_and_balances() {
    for len in 0..20 {
        for n in 1..25 {
            let chunks = split_chunks(len, n);
            let flat: Vec<usize> = chunks.iter().flat_map(|c| c.clone()).collect();
            assert_eq!(flat, (0..len).collect::<Vec<_>>());
            let sizes: Vec<usize> = chunks.iter().map(|c| c.len()).collect();
            if let (Some(min), Some(max)) = (sizes.iter().min(), sizes.iter().max()) {
                assert!(max - min <= 1);
            }
        }
    }
}

/// Every monotone predicate on subsets of a list of up to 4 elements with the full set
/// interesting: ddmin's result is interesting and 1-minimal, with and without a minimum size.
#[test]
fn exhaustive_monotone_predicates_give_one_minimal_results() {
    for len in 0..=4usize {
        let subsets = 1usize << len;
        let full = subsets - 1;
        let mut checked = 0;
        for table in 0u64..(1u64 << subsets) {
            let value = |mask: usize| table >> mask & 1 == 1;
            if !value(full) {
                continue;
            }
            let monotone =
                (0..subsets).all(|a| !value(a) || (0..len).all(|bit| value(a | (1 << bit))));
            if !monotone {
                continue;
            }
            checked += 1;
            let interesting = |items: &[usize]| value(items.iter().fold(0, |m, &i| m | (1 << i)));
            for min_size in [0, 1] {
                let (result, _) = reduce(len, min_size, &interesting);
                assert!(result.len() >= min_size.min(len));
                assert_one_minimal(&result, min_size, &interesting);
            }
        }
        let dedekind_with_top = [1, 2, 5, 19, 167][len];
        assert_eq!(checked, dedekind_with_top, "len {len}");
    }
}

#[test]
fn single_culprit_needs_logarithmic_tests() {
    let (result, tests) = reduce(1024, 0, &|items| items.contains(&700));
    assert_eq!(result, vec![700]);
    assert!(tests <= 2 * 10 + 2, "{tests} tests");
}

proptest! {
    /// Random monotone predicates: "some required set is contained".
    #[test]
    fn random_monotone_predicates(len in 1usize..24, sets in proptest::collection::vec(proptest::collection::btree_set(0usize..24, 0..4), 1..4), min_size in 0usize..2) {
        let sets: Vec<Vec<usize>> = sets.into_iter().map(|s| s.into_iter().filter(|&i| i < len).collect()).collect();
        let interesting = |items: &[usize]| sets.iter().any(|s| s.iter().all(|i| items.contains(i)));
        let (result, _) = reduce(len, min_size, &interesting);
        assert_one_minimal(&result, min_size, &interesting);
    }
}

/// The unsliced algorithm, written out: every candidate tested, in order. A sweep starts at the
/// accepted chunk's position and wraps around.
fn reference_sequence(len: usize, interesting: &dyn Fn(&[usize]) -> bool) -> Vec<Vec<usize>> {
    let mut current: Vec<usize> = (0..len).collect();
    let mut granularity = 2;
    let mut start = 0;
    let mut tested = Vec::new();
    while !current.is_empty() {
        let n = granularity.min(current.len());
        let chunks = split_chunks(current.len(), n);
        let mut accepted = None;
        for step in 0..chunks.len() {
            let index = (start % chunks.len() + step) % chunks.len();
            let chunk = &chunks[index];
            let kept = without_indices(&current, &chunk.clone().collect::<Vec<_>>());
            tested.push(kept.clone());
            if interesting(&kept) {
                accepted = Some((kept, index));
                break;
            }
        }
        match accepted {
            Some((kept, index)) => {
                current = kept;
                start = index;
                granularity = n.saturating_sub(1).max(2);
            }
            None if n >= current.len() => break,
            None => {
                start = 0;
                granularity = (n * 2).min(current.len());
            }
        }
    }
    tested
}

/// Batches never exceed MAX_BATCH (memory stays bounded on long lists), or the limit set with
/// `with_max_batch`, and slicing tests exactly the candidates, in exactly the order, of the
/// unsliced algorithm.
#[test]
fn batches_are_bounded_and_slicing_keeps_the_sequence() {
    for limit in [MAX_BATCH, 3, 1] {
        let needed: Vec<usize> = (0..300).step_by(7).collect();
        let interesting = |items: &[usize]| needed.iter().all(|n| items.contains(n));
        let search = Ddmin::new(0, |items: &Vec<usize>| items.len(), remove_positions);
        let mut search = search.with_max_batch(limit);
        let mut current: Vec<usize> = (0..300).collect();
        let mut tested = Vec::new();
        let mut largest = 0;
        while let Some(batch) = search.next_batch(&current) {
            largest = largest.max(batch.len());
            let accepted = batch.iter().position(|p| {
                tested.push(p.case.clone());
                interesting(&p.case)
            });
            if let Some(index) = accepted {
                current = batch[index].case.clone();
            }
            search.feedback(accepted);
        }
        assert_eq!(current, needed);
        assert_eq!(largest, limit, "limit {limit}");
        assert_eq!(
            tested,
            reference_sequence(300, &interesting),
            "limit {limit}"
        );
    }
}

/// What a batch proposes, for comparisons.
fn cases(batch: &[Proposal<Vec<usize>>]) -> Vec<Vec<usize>> {
    batch.iter().map(|p| p.case.clone()).collect()
}

#[test]
fn a_fork_proposes_what_the_search_itself_would_after_the_same_acceptance() {
    let mut search = Ddmin::new(1, |items: &Vec<usize>| items.len(), remove_positions);
    let mut current: Vec<usize> = (0..40).collect();
    // Reject the first sweep (granularity 2), then look at granularity 4.
    let first = search.next_batch(&current).unwrap();
    search.feedback(None);
    assert_eq!(first.len(), 2);
    let batch = search.next_batch(&current).unwrap();
    for (accepted, proposal) in batch.iter().enumerate() {
        let mut fork = search.fork(3).expect("ddmin forks");
        fork.feedback(Some(accepted));
        let ahead = fork.next_batch(&proposal.case).unwrap();
        let mut real = Ddmin::clone(&search);
        real.feedback(Some(accepted));
        let after = real.next_batch(&proposal.case).unwrap();
        // The fork's smaller batch is the start of the real one, in the same order.
        assert_eq!(
            cases(&ahead),
            cases(&after)[..3].to_vec(),
            "accepted {accepted}"
        );
    }
    search.feedback(Some(1));
    current = batch[1].case.clone();
    assert_eq!(current.len(), 30);
}
