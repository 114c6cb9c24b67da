//! [`SharedState`]: what every group pass of one reduction shares (the language, the strategy,
//! texts already current, growth budgets, sites that failed alone, fruitless searches, learned
//! priors); the admissibility rules that use it are in `candidate`.

use std::collections::{HashMap, HashSet};
use std::sync::{Arc, Mutex};

use crate::language::{Language, Prepared, Strategy};
use crate::lock::lock;
use crate::sizes::Sizes;
use crate::spec::{GroupSpec, PROBDD_MAX_PRIOR, PROBDD_PRIOR};

/// State shared by every group pass of one reduction.
pub struct SharedState<L: Language> {
    pub(crate) language: L,
    /// The language's groups, in round order ([`Language::groups`], asked once).
    pub(crate) specs: Vec<GroupSpec<L::Group>>,
    /// Search strategy of the group passes.
    pub(crate) strategy: Strategy,
    pub(crate) original_size: usize,
    seen: Mutex<HashSet<[u8; 32]>>,
    /// Sites growing candidates of each growing group (by name) may still apply; set by the
    /// group's first search.
    growth_budgets: Mutex<HashMap<&'static str, usize>>,
    /// Single sites (by [`GroupSpec::identities`]) that were run alone and failed; later searches of the
    /// groups that skip those leave them out.
    pub(crate) failed_sites: Mutex<HashSet<[u8; 32]>>,
    /// The last text prepared by any pass: the next one takes over what it computed (see
    /// [`Prepared::inherit`]).
    last_base: Mutex<Option<Arc<L::Prepared>>>,
    /// The sizes of the original and of recent candidates.
    pub(crate) sizes: Sizes,
    /// (group name, [`GroupSpec::fruitless`] key) of the texts a group's whole search accepted
    /// nothing on: a text with the same key is not searched again by that group.
    pub(crate) fruitless: Mutex<HashSet<(&'static str, [u8; 32])>>,
    /// Per group (by name) that learns its prior: the share of its sites its last finished
    /// search kept.
    pub(crate) kept_shares: Mutex<HashMap<&'static str, f64>>,
    /// The bracket depth below which a depth group ([`SearchSpec::Bisect`](crate::SearchSpec::Bisect))
    /// found the test failing (a chain found minimal: `depth`), 0 before. A candidate of any
    /// group that nests brackets less deeply is refused unrun (`candidate`): the removals and
    /// emptyings of the outer levels of a chain that must stay deep would otherwise be tried
    /// one by one, all failing.
    depth_floor: Mutex<usize>,
}

impl<L: Language> SharedState<L> {
    /// State for a reduction of `original` in `language` with search `strategy` (the
    /// searches learn the engine's width from the engine).
    pub fn new(language: L, original: &str, strategy: Strategy) -> Arc<Self> {
        let original_size = language.size(original);
        let sizes = Sizes::default();
        sizes.record(original, original_size);
        Arc::new(SharedState {
            specs: language.groups(),
            original_size,
            sizes,
            language,
            strategy,
            seen: Mutex::new(HashSet::new()),
            growth_budgets: Mutex::new(HashMap::new()),
            failed_sites: Mutex::new(HashSet::new()),
            last_base: Mutex::new(None),
            fruitless: Mutex::new(HashSet::new()),
            kept_shares: Mutex::new(HashMap::new()),
            depth_floor: Mutex::new(0),
        })
    }

    /// The language.
    pub fn language(&self) -> &L {
        &self.language
    }

    /// The sizes of the original and of recent candidates (for the oracle).
    pub fn sizes(&self) -> &Sizes {
        &self.sizes
    }

    /// The spec of `group`, if the language lists it.
    pub(crate) fn spec_of(&self, group: L::Group) -> Option<&GroupSpec<L::Group>> {
        self.specs.iter().find(|spec| spec.group == group)
    }

    /// The spec of `group`, one of the language's groups.
    pub(crate) fn spec(&self, group: L::Group) -> &GroupSpec<L::Group> {
        self.spec_of(group)
            .expect("a group of the language's Language::groups")
    }

    /// Sites growing candidates of `group` may still apply (`None` before its first search).
    pub fn growth_budget(&self, group: L::Group) -> Option<usize> {
        let name = self.spec(group).name;
        lock(&self.growth_budgets).get(name).copied()
    }

    /// Sets the sites growing candidates of `group` may still apply.
    pub fn set_growth_budget(&self, group: L::Group, budget: usize) {
        let name = self.spec(group).name;
        lock(&self.growth_budgets).insert(name, budget);
    }

    /// Makes `prepared` the last prepared text, handing it what the previous one computed.
    pub(crate) fn follow(&self, prepared: &Arc<L::Prepared>) {
        if let Some(earlier) = lock(&self.last_base).replace(Arc::clone(prepared)) {
            prepared.inherit(&earlier);
        }
    }

    /// ProbDD's prior for a search of `group` (see [`ProbDdSpec::learns_prior`](crate::ProbDdSpec)).
    pub(crate) fn prior(&self, group: L::Group) -> f64 {
        let spec = self.spec(group);
        let Some(probdd) = spec.probdd_spec() else {
            return PROBDD_PRIOR;
        };
        let shares = lock(&self.kept_shares);
        let fallback = || {
            let source = self.spec_of(probdd.prior_fallback?)?;
            shares.get(source.name).copied()
        };
        let learned = shares.get(spec.name).copied().or_else(fallback);
        drop(shares);
        let max = probdd.max_prior.clamp(PROBDD_PRIOR, PROBDD_MAX_PRIOR);
        learned.map_or(PROBDD_PRIOR, |share| share.clamp(PROBDD_PRIOR, max))
    }

    /// The single sites that failed alone so far when `skips` (the group skips them), else none.
    pub(crate) fn failed_so_far(&self, skips: bool) -> HashSet<[u8; 32]> {
        if skips {
            lock(&self.failed_sites).clone()
        } else {
            HashSet::new()
        }
    }

    /// Raises the depth floor (see [`SharedState::depth_floor`]) to `depth`.
    pub(crate) fn raise_depth_floor(&self, depth: usize) {
        let mut floor = lock(&self.depth_floor);
        *floor = (*floor).max(depth);
    }

    /// Whether `text` nests brackets at least as deep as the depth floor.
    pub(crate) fn keeps_depth(&self, text: &str) -> bool {
        let floor = *lock(&self.depth_floor);
        floor == 0 || bracket_depth(text) >= floor
    }

    /// Records `text` as a text that has been current.
    pub fn mark_current(&self, text: &str) {
        lock(&self.seen).insert(*blake3::hash(text.as_bytes()).as_bytes());
    }

    /// Whether `text` has been current before.
    pub(crate) fn was_current(&self, text: &str) -> bool {
        lock(&self.seen).contains(blake3::hash(text.as_bytes()).as_bytes())
    }
}

/// What the group passes remember across rounds to skip work: single sites that failed alone,
/// fruitless searches, learned priors, depth floors (see [`SharedState`]). The fixpoint check (`confirm`)
/// searches without it, as a fresh reduction of the same text would.
#[derive(Default)]
pub(crate) struct Memory {
    failed_sites: HashSet<[u8; 32]>,
    fruitless: HashSet<(&'static str, [u8; 32])>,
    kept_shares: HashMap<&'static str, f64>,
    depth_floor: usize,
}

impl<L: Language> SharedState<L> {
    /// Takes the memory out (the passes then search as if nothing were remembered).
    pub(crate) fn take_memory(&self) -> Memory {
        Memory {
            failed_sites: std::mem::take(&mut *lock(&self.failed_sites)),
            fruitless: std::mem::take(&mut *lock(&self.fruitless)),
            kept_shares: std::mem::take(&mut *lock(&self.kept_shares)),
            depth_floor: std::mem::take(&mut *lock(&self.depth_floor)),
        }
    }

    /// Puts `saved` back, with what was learned since it was taken (learned priors: the newer).
    pub(crate) fn restore_memory(&self, saved: Memory) {
        lock(&self.failed_sites).extend(saved.failed_sites);
        self.raise_depth_floor(saved.depth_floor);
        lock(&self.fruitless).extend(saved.fruitless);
        let mut shares = lock(&self.kept_shares);
        for (group, share) in saved.kept_shares {
            shares.entry(group).or_insert(share);
        }
    }
}

/// The deepest nesting of brackets (`(`, `[`, `{`) in `text`, read as bytes. The measure of a
/// depth floor: a chain's kind is a language's view (calls, objects), but a test that needs
/// depth mostly counts brackets (a recursive parser), and an edit that keeps them (`pad(x)` ->
/// `(x)`) keeps what it needs. A linear scan, cheap next to listing a candidate's chains.
pub(crate) fn bracket_depth(text: &str) -> usize {
    let (mut depth, mut deepest) = (0usize, 0usize);
    for byte in text.bytes() {
        match byte {
            b'(' | b'[' | b'{' => {
                depth += 1;
                deepest = deepest.max(depth);
            }
            b')' | b']' | b'}' => depth = depth.saturating_sub(1),
            _ => {}
        }
    }
    deepest
}
