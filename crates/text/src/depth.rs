//! Depth as a dimension of a text: chains of nested nodes of one kind (brackets within
//! brackets, calls within calls, blocks within blocks), each cut by bisection over how many of
//! its outer levels go (the engine's [`Bisect`]), for the groups whose spec says
//! [`SearchSpec::Bisect`](crate::SearchSpec::Bisect).
//!
//! A language lists a chain's levels as sites ([`depth_sites`]): for each level, what lies
//! between its node's start and the next node's start (the opening part), then what lies
//! between the next node's end and its own end (the closing part), both removed. Cutting the
//! top `k` levels applies the first `k` pairs, which leaves the node `k` levels down in the
//! outermost node's place. Chains are found from the nodes alone ([`depth_chains`]), so a
//! syntax tree's nodes and a text's matched brackets are cut the same way.

use std::ops::Range;
use std::sync::{Arc, Mutex};

use minrepro_engine::{Bisect, Chain};

use crate::candidate::candidate;
use crate::language::{Language, Prepared};
use crate::lock::lock;
use crate::site::{Site, SiteInfo};
use crate::state::{bracket_depth, SharedState};

/// Least number of levels a chain must have to be offered: bisection's `log2(L + 1)` runs are
/// then at most half of the `L` runs that removing the levels one at a time costs (the nested
/// sites of the other groups do that), so a chain that cannot be cut at all costs little
/// beside what it may save.
pub const MIN_LEVELS: usize = 6;

/// Kind of the opening part of a level ([`depth_sites`]).
pub const DEPTH_OPEN: &str = "depth-open";
/// Kind of the closing part of a level.
pub const DEPTH_CLOSE: &str = "depth-close";

/// The chains of `nodes` (a kind and a byte range each, properly nested or disjoint, in any
/// order) with at least [`MIN_LEVELS`] levels, outermost node first, in the order of their
/// starts. A node's same-kind children are its nearest same-kind descendants; a chain goes on
/// into the child with the deepest same-kind nesting (the first one on ties), and every other
/// child starts a chain of its own. A chain that interleaves with a chain of at least as many
/// levels (it starts inside that one's outermost node and ends on the same path: a call's
/// argument lists beside the calls, an object's members beside the objects) is left out:
/// cutting either cuts the same depth.
pub fn depth_chains(nodes: &[(u32, Range<usize>)]) -> Vec<Vec<Range<usize>>> {
    let mut chains = chains_by_kind(nodes);
    chains.sort_by_key(|chain| std::cmp::Reverse(chain.len()));
    let within = |outer: &Range<usize>, inner: &Range<usize>| {
        outer.start <= inner.start && inner.end <= outer.end
    };
    let mut kept: Vec<Vec<Range<usize>>> = Vec::new();
    for chain in chains {
        let (root, inner) = (&chain[0], &chain[chain.len() - 1]);
        let interleaves = kept.iter().any(|longer| {
            let (longer_root, longer_inner) = (&longer[0], &longer[longer.len() - 1]);
            within(longer_root, root)
                && (within(longer_inner, inner) || within(inner, longer_inner))
        });
        if !interleaves {
            kept.push(chain);
        }
    }
    kept.sort_by_key(|chain| (chain[0].start, std::cmp::Reverse(chain[0].end)));
    kept
}

/// The chains of every kind of `nodes`.
fn chains_by_kind(nodes: &[(u32, Range<usize>)]) -> Vec<Vec<Range<usize>>> {
    let mut sorted: Vec<(u32, Range<usize>)> = nodes.to_vec();
    sorted.sort_by_key(|(kind, r)| (*kind, r.start, std::cmp::Reverse(r.end)));
    sorted.dedup();
    let mut chains = Vec::new();
    let mut at = 0;
    while at < sorted.len() {
        let kind = sorted[at].0;
        let end = at + sorted[at..].iter().take_while(|(k, _)| *k == kind).count();
        let ranges: Vec<Range<usize>> = sorted[at..end].iter().map(|(_, r)| r.clone()).collect();
        chains.extend(chains_of_kind(&ranges));
        at = end;
    }
    chains
        .sort_by_key(|chain: &Vec<Range<usize>>| (chain[0].start, std::cmp::Reverse(chain[0].end)));
    chains
}

/// The long chains of `ranges` (one kind, sorted by start then longest first).
fn chains_of_kind(ranges: &[Range<usize>]) -> Vec<Vec<Range<usize>>> {
    let mut parent = vec![None; ranges.len()];
    let mut open: Vec<usize> = Vec::new();
    for (i, range) in ranges.iter().enumerate() {
        while open
            .last()
            .is_some_and(|&top| ranges[top].end <= range.start)
        {
            open.pop();
        }
        parent[i] = open
            .last()
            .copied()
            .filter(|&top| ranges[top].end >= range.end);
        open.push(i);
    }
    // Children come after their parents: heights and deepest children from the back.
    let mut height = vec![0usize; ranges.len()];
    let mut deepest: Vec<Option<usize>> = vec![None; ranges.len()];
    for i in (0..ranges.len()).rev() {
        if let Some(p) = parent[i] {
            if height[i] + 1 >= height[p] {
                height[p] = height[i] + 1;
                deepest[p] = Some(i);
            }
        }
    }
    let mut chains = Vec::new();
    for i in 0..ranges.len() {
        let continues = parent[i].is_some_and(|p| deepest[p] == Some(i));
        if continues || height[i] < MIN_LEVELS {
            continue;
        }
        let mut chain = vec![ranges[i].clone()];
        let mut node = i;
        while let Some(next) = deepest[node] {
            chain.push(ranges[next].clone());
            node = next;
        }
        chains.push(chain);
    }
    chains
}

/// The sites of `chains` (from [`depth_chains`]): for each level of each chain, its opening
/// part then its closing part, removed.
pub fn depth_sites(chains: &[Vec<Range<usize>>]) -> Vec<Site> {
    let mut sites = Vec::new();
    for chain in chains {
        for pair in chain.windows(2) {
            let (outer, inner) = (&pair[0], &pair[1]);
            sites.push(Site {
                kind: DEPTH_OPEN,
                range: outer.start..inner.start,
                replacement: String::new(),
            });
            sites.push(Site {
                kind: DEPTH_CLOSE,
                range: inner.end..outer.end,
                replacement: String::new(),
            });
        }
    }
    sites
}

/// A chain of a prepared text's site list: its key and the positions of its levels' pairs.
#[derive(Debug, Clone)]
struct Levels {
    key: usize,
    pairs: Range<usize>,
}

/// The chains of a list of [`depth_sites`]: consecutive levels whose parts adjoin (the next
/// level's opening part starts where this one's ends, its closing part ends where this one's
/// starts) are one chain. Keys: a chain's start, times 256, plus its rank among the chains that
/// start there (distinct across one text, kept by cuts of the chain).
fn levels_of(sites: &[SiteInfo<'_>]) -> Vec<Levels> {
    let mut chains: Vec<Levels> = Vec::new();
    for pair in 0..sites.len() / 2 {
        let (open, close) = (&sites[2 * pair], &sites[2 * pair + 1]);
        let joins = pair > 0 && {
            let (before, after) = (&sites[2 * pair - 2], &sites[2 * pair - 1]);
            before.range.end == open.range.start && close.range.end == after.range.start
        };
        match chains.last_mut() {
            Some(last) if joins && last.pairs.end == pair => last.pairs.end = pair + 1,
            _ => {
                let start = open.range.start;
                let same = chains.iter().filter(|c| c.key >> 8 == start).count();
                chains.push(Levels {
                    key: (start << 8) + same.min(255),
                    pairs: pair..pair + 1,
                });
            }
        }
    }
    chains.sort_by_key(|c| c.key);
    chains
}

/// The prepared current text and its chains.
type Memo<P> = Option<(Arc<P>, Arc<Vec<Levels>>)>;

/// The bisection search of `group` (a group searched by [`SearchSpec::Bisect`](crate::SearchSpec::Bisect)).
pub(crate) fn search<L: Language>(group: L::Group, state: &Arc<SharedState<L>>) -> Bisect<String> {
    let memo: Arc<Mutex<Memo<L::Prepared>>> = Arc::new(Mutex::new(None));
    let last = Arc::clone(&memo);
    let prepared = {
        let state = Arc::clone(state);
        move |current: &str| {
            let mut memo = lock(&memo);
            if let Some((prepared, levels)) = memo.as_ref() {
                if prepared.source() == current {
                    return (Arc::clone(prepared), Arc::clone(levels));
                }
            }
            let prepared = Arc::new(state.language().prepare(current, group));
            state.follow(&prepared);
            let infos: Vec<SiteInfo<'_>> = prepared.sites().iter().map(L::Prepared::info).collect();
            let levels = Arc::new(levels_of(&infos));
            *memo = Some((Arc::clone(&prepared), Arc::clone(&levels)));
            (prepared, levels)
        }
    };
    let prepared = Arc::new(prepared);
    let listed = Arc::clone(&prepared);
    let floors = Arc::clone(state);
    let (witnessed, witness_state) = (Arc::clone(&prepared), Arc::clone(state));
    let state = Arc::clone(state);
    let bisect = Bisect::new(
        Arc::new(move |current: &String| {
            let (_, levels) = listed(current);
            levels
                .iter()
                .map(|c| Chain {
                    key: c.key,
                    levels: c.pairs.len(),
                })
                .collect()
        }),
        Arc::new(move |current: &String, chain: &Chain, cut: usize| {
            let (text, levels) = prepared(current);
            let found = levels.iter().find(|c| c.key == chain.key)?;
            let first = found.pairs.start;
            let chosen: Vec<usize> = (2 * first..2 * (first + cut)).collect();
            candidate(group, &state, &*text, &chosen)
        }),
    );
    // The witness cuts the innermost level (its parent replaced by it). The floor is the
    // bracket depth of the text the chain was found minimal in (the current one: a rejection
    // leaves it current), when the chain is nested in brackets at least as deep (not, say, a
    // chain of indented blocks).
    let witness = move |current: &String, chain: &Chain| {
        let (text, levels) = witnessed(current);
        let found = levels.iter().find(|c| c.key == chain.key)?;
        let last = found.pairs.end.checked_sub(1)?;
        candidate(group, &witness_state, &*text, &[2 * last, 2 * last + 1])
    };
    bisect.on_minimal(
        Arc::new(witness),
        Arc::new(move |key| {
            let floor = lock(&last).as_ref().and_then(|(text, chains)| {
                let chain = chains.iter().find(|c| c.key == key)?;
                let depth = bracket_depth(text.source());
                (depth >= chain.pairs.len()).then_some(depth)
            });
            if let Some(floor) = floor {
                floors.raise_depth_floor(floor);
            }
        }),
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::site::splice;

    /// Ranges of every matched `(`/`[` pair of `text`, the bracket as the kind.
    fn pairs(text: &str) -> Vec<(u32, Range<usize>)> {
        let mut open = Vec::new();
        let mut out = Vec::new();
        for (i, c) in text.char_indices() {
            match c {
                '(' | '[' => open.push((c, i)),
                ')' | ']' => {
                    // Unbalanced texts (a candidate's) list the pairs that match.
                    if let Some((o, start)) = open.pop() {
                        out.push((o as u32, start..i + 1));
                    }
                }
                _ => {}
            }
        }
        out
    }

    fn cut(text: &str, k: usize) -> String {
        let sites = depth_sites(&depth_chains(&pairs(text)));
        let chosen: Vec<&Site> = sites[..2 * k].iter().collect();
        splice(text, &chosen)
    }

    #[test]
    fn a_chain_follows_the_deepest_same_kind_child_and_skips_other_kinds() {
        // `f(` nested 8 deep with a side call at the third level, brackets in between.
        let text = "f(1,f([f(g(h(i(j(k(x))))))], y(z)), 2)";
        let chains = depth_chains(&pairs(text));
        assert_eq!(chains.len(), 1, "{chains:?}");
        let outer: Vec<&str> = chains[0].iter().map(|r| &text[r.clone()]).collect();
        assert_eq!(outer[0], &text[1..]);
        assert_eq!(outer.last(), Some(&"(x)"));
        assert_eq!(cut(text, 1), "f([f(g(h(i(j(k(x))))))], y(z))");
        assert_eq!(cut(text, 2), "f(g(h(i(j(k(x))))))");
        assert_eq!(cut(text, 7), "f(x)");
        // Shallow nesting offers nothing.
        assert!(depth_chains(&pairs("f(g(h(x)))")).is_empty());
    }

    #[test]
    fn interleaved_chains_count_once_and_side_chains_stay() {
        // Tuples and arrays alternate 12 deep; a side array 7 deep at the second level.
        let side = format!("{}1{}", "[".repeat(7), "]".repeat(7));
        let mut text = "0".to_owned();
        for level in 0..12 {
            text = if level == 10 {
                format!("(a, [{text}, {side}])")
            } else {
                format!("(a, [{text}])")
            };
        }
        let nodes = pairs(&text);
        let chains = depth_chains(&nodes);
        let roots: Vec<&str> = chains.iter().map(|c| &text[c[0].clone()]).collect();
        assert_eq!(roots, [text.as_str(), side.as_str()], "{chains:?}");
    }

    #[test]
    fn the_sites_of_chains_are_read_back_as_chains() {
        let text = format!(
            "{}x{} {}y{}",
            "(".repeat(9),
            ")".repeat(9),
            "[".repeat(7),
            "]".repeat(7)
        );
        let sites = depth_sites(&depth_chains(&pairs(&text)));
        let infos: Vec<SiteInfo<'_>> = sites.iter().map(Site::info).collect();
        let levels = levels_of(&infos);
        assert_eq!(levels.len(), 2);
        assert_eq!((levels[0].key, levels[0].pairs.clone()), (0, 0..8));
        assert_eq!((levels[1].key >> 8, levels[1].pairs.clone()), (20, 8..14));
    }

    /// Parentheses cut by bisection (group `true`), then, when `empties`, every pair emptied by
    /// ProbDD (group `false`: `f(g(x))` -> `f()`).
    struct Nested {
        empties: bool,
    }

    /// The emptyings of the pairs of `text`.
    fn emptyings(text: &str) -> Vec<Site> {
        let mut pairs = pairs(text);
        pairs.sort_by_key(|(_, range)| range.start);
        pairs
            .into_iter()
            .filter(|(_, range)| range.len() > 2)
            .map(|(_, range)| Site {
                kind: "empty",
                range: range.start + 1..range.end - 1,
                replacement: String::new(),
            })
            .collect()
    }

    impl Language for Nested {
        type Group = bool;
        type Prepared = crate::plain::SitesText<crate::testlang::CharCount>;

        fn groups(&self) -> Vec<crate::spec::GroupSpec<bool>> {
            let depth = crate::spec::GroupSpec::new(true, "depth", crate::spec::SearchSpec::Bisect);
            let mut groups = vec![depth];
            if self.empties {
                groups.push(crate::spec::GroupSpec::probdd(false, "empty"));
            }
            groups
        }
        fn size(&self, text: &str) -> usize {
            text.chars().count()
        }
        fn prepare(&self, text: &str, depth: bool) -> Self::Prepared {
            let sites = if depth {
                depth_sites(&depth_chains(&pairs(text)))
            } else {
                emptyings(text)
            };
            crate::plain::SitesText::new(text, sites, crate::testlang::CharCount)
        }
        fn prepare_current(&self, text: &str) -> Self::Prepared {
            crate::plain::SitesText::new(text, Vec::new(), crate::testlang::CharCount)
        }
        fn is_valid(&self, _text: &str) -> bool {
            true
        }
    }

    /// Deepest nesting of `(` in `text`.
    fn depth(text: &str) -> usize {
        let (mut depth, mut deepest) = (0usize, 0);
        for c in text.chars() {
            match c {
                '(' => depth += 1,
                ')' => depth = depth.saturating_sub(1),
                _ => continue,
            }
            deepest = deepest.max(depth);
        }
        deepest
    }

    #[test]
    fn a_bisecting_group_reaches_the_exact_depth_a_test_needs_in_log_runs() {
        use crate::language::Strategy;
        use crate::passes::group_passes;
        use crate::state::SharedState;
        use minrepro_engine::{run_search, Pass};
        // 600 calls deep, a side call at some levels; the test needs 300 levels and the side
        // call of the innermost one.
        let nested = |levels| {
            let side = |_, t: &str| format!("f({t}, g(1))");
            minrepro_testkit::nested_chain(levels, "x", 7, side, |t| format!("f({t})"))
        };
        let text = nested(600);
        let needs = |t: &str| depth(t) >= 300 && t.starts_with("f(") && t.contains("(x, g(1))");
        for jobs in [1, 4] {
            let state = SharedState::new(Nested { empties: false }, &text, Strategy::ProbDd);
            let pass = &group_passes(&state)[0];
            let mut runs = 0;
            let mut search = pass.search(&text);
            search.set_width(minrepro_engine::Width::of(jobs, true));
            let end = run_search(&mut *search, text.clone(), &mut |p| {
                runs += 1;
                needs(&p.case)
            });
            assert_eq!(depth(&end), 300, "jobs {jobs}");
            assert!(needs(&end));
            // log2(600) cuts and the witness.
            assert!(runs <= 12, "{runs} runs");
            // The innermost 299 calls as they were (`g(1)` inside the innermost makes 300).
            assert_eq!(end, nested(299));
        }
    }

    #[test]
    fn once_a_chain_is_minimal_no_edit_that_leaves_it_shallower_is_run() {
        use crate::language::Strategy;
        use crate::passes::group_passes;
        use minrepro_engine::{run_search, Pass};
        let text = format!("{}x{}", "f(".repeat(60), ")".repeat(60));
        let needs = |t: &str| depth(t) >= 30;
        let state = SharedState::new(Nested { empties: true }, &text, Strategy::ProbDd);
        let passes = group_passes(&state);
        let mut current = text.clone();
        let mut runs = [0usize; 2];
        for (pass, runs) in passes.iter().zip(&mut runs) {
            let mut search = pass.search(&current);
            current = run_search(&mut *search, current.clone(), &mut |p| {
                *runs += 1;
                needs(&p.case)
            });
        }
        assert_eq!(depth(&current), 30);
        // Bisection and its witness; then emptying any pair but the innermost would leave
        // fewer than 30 levels: only the innermost's is run (and accepted: `x` goes).
        assert!(runs[0] <= 8, "{runs:?}");
        assert_eq!(runs[1], 1, "{runs:?}");
        assert!(
            current.contains("()") && !current.contains('x'),
            "{current}"
        );
        // Without the depth group's floor the emptyings are run, all failing but one.
        let state = SharedState::new(Nested { empties: true }, &current, Strategy::ProbDd);
        let passes = group_passes(&state);
        let mut search = passes[1].search(&current);
        let mut unfloored = 0;
        run_search(&mut *search, current.clone(), &mut |p| {
            unfloored += 1;
            needs(&p.case)
        });
        assert!(unfloored >= 10, "{unfloored}");
    }
}
