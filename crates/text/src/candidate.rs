//! Candidates of a group pass: a choice of sites applied to a prepared text, kept only when
//! admissible, and the identities of sites across texts.
//!
//! Only valid texts are proposed, never the current text itself, and none that nests brackets
//! less deeply than a depth group found the test needs (the depth floor of [`SharedState`]). Termination: outside the groups
//! whose candidates may grow, a candidate must be strictly smaller than the current text in the
//! order (size, bytes, text), so those groups alone cannot cycle. A growing candidate (e.g. a
//! canonicalization) is never larger than the original, never a text that was already current
//! once, and only allowed within a budget of its group (each growing group has its own): the
//! number of the group's sites in the text the group's first search starts from. Every accepted
//! growing candidate spends as many sites as it applied (a site removed later, e.g. Python's
//! added `*args` of a parameter list, may be offered again, which without the budget could loop
//! forever through ever new whitespace variants).
//! Once the budget is spent, every accepted candidate is strictly smaller, so the fixpoint is
//! reached.
//!
//! That text comes after the first removals, not the original: on a large input most functions
//! are gone by then, and a budget sized for all of them let Python's `add-varargs` and
//! `remove-parameter` take turns re-adding and removing the same `*args` round after round, each
//! round paying a full sweep of every other group for nothing.

use minrepro_engine::Proposal;
use serde_json::json;

use crate::language::{Edited, Language, Prepared};
use crate::site::{size_key, SiteInfo};
use crate::spec::{GroupSpec, Growth, PROBDD_PRIOR};
use crate::state::SharedState;

/// The default identity of a site across texts (see [`GroupSpec::identities`]): its kind,
/// replacement, replaced text and the whole line(s) it sits on.
pub fn line_identity(text: &str, site: &SiteInfo<'_>) -> [u8; 32] {
    let start = text[..site.range.start.min(text.len())]
        .rfind('\n')
        .map_or(0, |i| i + 1);
    let end = text[site.range.end.min(text.len())..]
        .find('\n')
        .map_or(text.len(), |i| site.range.end + i);
    let fields: [&[u8]; 4] = [
        site.kind.as_bytes(),
        site.replacement.as_bytes(),
        text.get(site.range.clone()).unwrap_or("").as_bytes(),
        text.get(start..end).unwrap_or("").as_bytes(),
    ];
    *minrepro_predicate::digest_fields(&fields).as_bytes()
}

/// Sites a proposal applies, and the identity of its site when it applies only one.
pub(crate) type BatchSites = (usize, Option<[u8; 32]>);

/// The identities of every site of `prepared` (of the group of `spec`), in site order.
pub(crate) fn identities<P: Prepared, G>(spec: &GroupSpec<G>, prepared: &P) -> Vec<[u8; 32]> {
    let infos: Vec<SiteInfo<'_>> = prepared.sites().iter().map(P::info).collect();
    let text = prepared.source();
    let mut ids = match &spec.identities {
        Some(keys) => keys(text, &infos),
        None => infos.iter().map(|site| line_identity(text, site)).collect(),
    };
    // A site the language defers (a higher prior) is another site once it is no longer
    // deferred (e.g. the last use of the name its deletion would leave undeclared went).
    let prior = PROBDD_PRIOR;
    for (id, p) in ids.iter_mut().zip(prepared.priors(prior)) {
        if p > prior {
            let mut hasher = blake3::Hasher::new();
            hasher.update(b"deferred");
            hasher.update(id);
            *id = *hasher.finalize().as_bytes();
        }
    }
    ids
}

/// The candidate applying `chosen` sites of `current`, if it is admissible (see module docs).
pub fn candidate<L: Language>(
    group: L::Group,
    state: &SharedState<L>,
    current: &L::Prepared,
    chosen: &[usize],
) -> Option<Proposal<String>> {
    candidate_on(group, state, current, current, chosen)
}

/// The candidate applying `chosen` sites of `base`, judged against the `current` text (prepared
/// with [`Language::prepare_current`] at least), if it is admissible (see module docs).
pub(crate) fn candidate_on<L: Language>(
    group: L::Group,
    state: &SharedState<L>,
    base: &L::Prepared,
    current: &L::Prepared,
    chosen: &[usize],
) -> Option<Proposal<String>> {
    build(group, state, (base, current), chosen, true)
}

/// The candidate applying `chosen` sites of `current` under the size and growth rules only,
/// without [`Prepared::admissible`]'s guess (for the fixpoint check).
pub(crate) fn unguessed_candidate<L: Language>(
    group: L::Group,
    state: &SharedState<L>,
    current: &L::Prepared,
    chosen: &[usize],
) -> Option<Proposal<String>> {
    build(group, state, (current, current), chosen, false)
}

/// The candidate applying `chosen` sites of `base`, judged against `current`, if it keeps the
/// size and growth rules and, when `guessed`, is [admissible](Prepared::admissible).
fn build<L: Language>(
    group: L::Group,
    state: &SharedState<L>,
    (base, current): (&L::Prepared, &L::Prepared),
    chosen: &[usize],
    guessed: bool,
) -> Option<Proposal<String>> {
    let on_base = std::ptr::eq(base, current) || base.source() == current.source();
    let (judged, current) = (current, current.source());
    let all = base.sites();
    let selected: Vec<&<L::Prepared as Prepared>::Site> =
        chosen.iter().filter_map(|&i| all.get(i)).collect();
    let edited = base.apply(&selected);
    if edited.text() == current {
        return None;
    }
    let size = base.check(&edited)?;
    let text = edited.text();
    let spec = state.spec(group);
    let admissible = match spec.growth {
        Growth::Budgeted => {
            selected.len() <= state.growth_budget(group).unwrap_or(usize::MAX)
                && size <= state.original_size
                && !state.was_current(text)
        }
        Growth::NeverInSize => size < judged.size(),
        Growth::Never => size_key(size, text) < size_key(judged.size(), current),
    };
    if !admissible || (guessed && !base.admissible(&edited, (!on_base).then_some(judged))) {
        return None;
    }
    if !state.keeps_depth(text) {
        return None;
    }
    let text = edited.into_text();
    state.sizes.record(&text, size);
    let name = spec.name;
    // ProbDD hands over every site applied so far: list them only when few, so the in-memory
    // log stays linear in the number of candidates.
    let change = if selected.len() <= 16 {
        json!({
            "group": name,
            "rewrites": selected
                .iter()
                .map(|&site| {
                    let site = L::Prepared::info(site);
                    json!({"kind": site.kind, "start": site.range.start, "end": site.range.end})
                })
                .collect::<Vec<_>>(),
        })
    } else {
        json!({"group": name, "rewrites_applied": selected.len()})
    };
    Some(Proposal { case: text, change })
}
