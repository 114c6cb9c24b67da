//! [`NameUse::loses_definition`](crate::NameUse::loses_definition) for the candidates of a
//! [`Prepared`](crate::Prepared) base, from the chunks an edit changes alone.
//!
//! Everything the check looks at composes over a module's top-level statements (scopes are
//! ignored): name and attribute tables are unions, the arity check's bind counts are sums and its
//! function tables and calls are concatenations. So each chunk gets a [`Summary`] with counts
//! (made by the parse that checks the chunk, and cached by text with its verdict), a [`Names`]
//! base keeps their sums, and a candidate whose changed chunks are valid on their own (the same
//! condition under which the incremental validity check decides, so its statements are its
//! chunks' statements) is judged from the removed and added summaries:
//! - a name (attribute) can only be lost if a removed chunk binds (defines) it, so only those are
//!   looked at, with the candidate's counts `base - removed + added`;
//! - the dynamic flags depend on the counts of a few fixed names and of star imports;
//! - a call's resolution depends only on its name's bind count and table entries, so only calls
//!   of unchanged chunks to names the changed chunks bind or define can change their verdict; the
//!   base indexes its calls by callee for that.
//!
//! The sums of a new base (an accepted candidate) are the old base's updated the same way
//! ([`Names::rebase`]), from the chunks the two texts do not share.

use rustc_hash::{FxHashMap as HashMap, FxHashSet as HashSet};
use std::ops::Range;
use std::sync::Arc;

use ruff_python_ast::Stmt;

use crate::arity::{callee_name, resolve, Call, Callee, Inputs, Signature, Table as Signatures};
use crate::names::{add, counts_as_lost, dynamic_flags, entry, subtract, Counts, Table};

/// What one chunk contributes to the check.
#[derive(Debug, Default)]
pub(crate) struct Summary {
    names: Counts,
    arity: Inputs,
}

impl Summary {
    /// The summary of a chunk's statements.
    pub(crate) fn of_body(body: &[Stmt]) -> Summary {
        Summary {
            names: Counts::of(body),
            arity: Inputs::of(body),
        }
    }
}

/// A base text's summaries: per chunk, and summed.
#[derive(Debug)]
pub(crate) struct Names {
    chunks: Vec<Arc<Summary>>,
    totals: Counts,
    binds: HashMap<String, usize>,
    /// Function and method table entries with the chunk that defines them.
    functions: HashMap<String, Vec<(usize, Option<Signature>)>>,
    methods: HashMap<String, Vec<(usize, Option<Signature>)>>,
    /// Calls by callee: chunk and index in the chunk's calls.
    calls: HashMap<Callee, Vec<(usize, usize)>>,
    mismatches: usize,
}

impl Names {
    /// The base made of chunks with these summaries.
    pub(crate) fn new(chunks: Vec<Arc<Summary>>) -> Names {
        let mut names = Names {
            totals: Counts::default(),
            binds: HashMap::default(),
            functions: HashMap::default(),
            methods: HashMap::default(),
            calls: HashMap::default(),
            mismatches: 0,
            chunks: Vec::new(),
        };
        names.insert_chunks(0, chunks);
        let all = Inputs {
            binds: names.binds.clone(),
            functions: strip(&names.functions),
            methods: strip(&names.methods),
            calls: Vec::new(),
        };
        names.mismatches = names
            .chunks
            .iter()
            .flat_map(|c| &c.arity.calls)
            .filter(|call| call.mismatched(all.resolve(&call.callee)))
            .count();
        names
    }

    /// The base whose chunks are these with the chunks `removed` replaced by `added`: exactly
    /// [`Names::new`] of that chunk list, updated from the changed chunks (and a renumbering of
    /// the later chunks' table entries) instead of summed from scratch.
    pub(crate) fn rebase(mut self, removed: Range<usize>, added: Vec<Arc<Summary>>) -> Names {
        if removed.is_empty() && added.is_empty() {
            return self;
        }
        // The candidate's count of mismatched calls is the new base's.
        let (_, mismatches) = self.loses_definition(std::slice::from_ref(&removed), &added);
        let gone: Vec<Arc<Summary>> = self.chunks.splice(removed.clone(), []).collect();
        for chunk in &gone {
            self.totals.subtract(&chunk.names);
            subtract(&mut self.binds, &chunk.arity.binds);
        }
        // Table entries of the removed chunks go, later chunks move by the length difference.
        let renumber = |i: usize| {
            if i >= removed.end {
                Some(i - removed.len())
            } else {
                (i < removed.start).then_some(i)
            }
        };
        for table in [&mut self.functions, &mut self.methods] {
            table.retain(|_, entries| {
                entries.retain_mut(|(i, _)| renumber(*i).map(|n| *i = n).is_some());
                !entries.is_empty()
            });
        }
        self.calls.retain(|_, calls| {
            calls.retain_mut(|(i, _)| renumber(*i).map(|n| *i = n).is_some());
            !calls.is_empty()
        });
        self.insert_chunks(removed.start, added);
        self.mismatches = mismatches;
        self
    }

    /// Inserts `chunks` at chunk index `at` (later chunks must not be in the tables yet, or
    /// be numbered as if the inserted chunks were not there), adding their counts and entries.
    fn insert_chunks(&mut self, at: usize, chunks: Vec<Arc<Summary>>) {
        let count = chunks.len();
        if at < self.chunks.len() {
            let shift = |i: &mut usize| *i += usize::from(*i >= at) * count;
            for table in [&mut self.functions, &mut self.methods] {
                table.values_mut().flatten().for_each(|(i, _)| shift(i));
            }
            self.calls
                .values_mut()
                .flatten()
                .for_each(|(i, _)| shift(i));
        }
        for (k, chunk) in chunks.iter().enumerate() {
            let i = at + k;
            self.totals.add(&chunk.names);
            add(&mut self.binds, &chunk.arity.binds);
            for (mine, theirs) in [
                (&mut self.functions, &chunk.arity.functions),
                (&mut self.methods, &chunk.arity.methods),
            ] {
                for (name, entries) in theirs {
                    let list = entry(mine, name);
                    // Entries stay in chunk order.
                    let position = list.partition_point(|(j, _)| *j < i);
                    list.splice(position..position, entries.iter().map(|e| (i, e.clone())));
                }
            }
            for (j, call) in chunk.arity.calls.iter().enumerate() {
                let list = match self.calls.get_mut(&call.callee) {
                    Some(list) => list,
                    None => self.calls.entry(call.callee.clone()).or_default(),
                };
                let position = list.partition_point(|&(c, _)| c < i);
                list.insert(position, (i, j));
            }
        }
        self.chunks.splice(at..at, chunks);
    }

    /// Whether two bases have the same chunks (the same summaries) and tables.
    #[cfg(test)]
    pub(crate) fn same_as(&self, other: &Names) -> bool {
        self.chunks.len() == other.chunks.len()
            && self
                .chunks
                .iter()
                .zip(&other.chunks)
                .all(|(a, b)| Arc::ptr_eq(a, b))
            && self.totals == other.totals
            && self.binds == other.binds
            && self.functions == other.functions
            && self.methods == other.methods
            && self.calls == other.calls
            && self.mismatches == other.mismatches
    }

    /// Whether the candidate that replaces the chunks `removed` (index ranges) with chunks
    /// summarized by `added` loses a definition (see the module documentation), and its number
    /// of mismatched calls.
    pub(crate) fn loses_definition(
        &self,
        removed: &[Range<usize>],
        added: &[Arc<Summary>],
    ) -> (bool, usize) {
        let is_removed = |i: usize| removed.iter().any(|r| r.contains(&i));
        let gone: Vec<&Summary> = removed
            .iter()
            .flat_map(|r| &self.chunks[r.clone()])
            .map(|s| &**s)
            .collect();
        // The removed and the added chunks summed once: a candidate may remove thousands of
        // chunks, and summing them again for every name they hold was quadratic.
        let mut gone_counts = Counts::default();
        gone.iter().for_each(|s| gone_counts.add(&s.names));
        let mut added_counts = Counts::default();
        added.iter().for_each(|s| added_counts.add(&s.names));
        let count = |table: Table, name: &str| {
            let of = |c: &Counts| c.table(table).get(name).copied().unwrap_or(0);
            of(&self.totals) - of(&gone_counts) + of(&added_counts)
        };
        let stars = self.totals.star_imports - gone_counts.star_imports + added_counts.star_imports;
        let (dynamic_names, dynamic_attributes) =
            dynamic_flags(stars > 0, |table, name| count(table, name) > 0);
        let base_has = |table: Table, name: &str| self.totals.table(table).contains_key(name);
        let defined = |has: &dyn Fn(Table, &str) -> bool, name: &str| {
            [Table::AttributesStored, Table::Bound, Table::AttributeWords]
                .iter()
                .any(|&t| has(t, name))
        };
        let lost_name = !dynamic_names
            && gone.iter().flat_map(|s| s.names.bound.keys()).any(|name| {
                count(Table::Loaded, name) > 0
                    && base_has(Table::Bound, name)
                    && count(Table::Bound, name) == 0
                    && counts_as_lost(Table::Loaded, name)
            });
        let lost_attribute = !dynamic_attributes
            && gone
                .iter()
                .flat_map(|s| {
                    [Table::AttributesStored, Table::Bound, Table::AttributeWords]
                        .into_iter()
                        .flat_map(|t| s.names.table(t).keys())
                })
                .any(|name| {
                    count(Table::AttributesRead, name) > 0
                        && defined(&base_has, name)
                        && !defined(&|t, n| count(t, n) > 0, name)
                        && counts_as_lost(Table::AttributesRead, name)
                });
        let mismatches = self.mismatches_after(&is_removed, &gone, added);
        (
            lost_name || lost_attribute || mismatches > self.mismatches,
            mismatches,
        )
    }

    /// The candidate's number of mismatched calls (see [`Names::loses_definition`]).
    fn mismatches_after(
        &self,
        is_removed: &dyn Fn(usize) -> bool,
        gone: &[&Summary],
        added: &[Arc<Summary>],
    ) -> usize {
        // Names whose resolution may change: those the changed chunks bind or define.
        let mut changed: HashSet<&str> = HashSet::default();
        for s in gone.iter().copied().chain(added.iter().map(|s| &**s)) {
            let arity = &s.arity;
            changed.extend(arity.binds.keys().map(String::as_str));
            changed.extend(arity.functions.keys().map(String::as_str));
            changed.extend(arity.methods.keys().map(String::as_str));
        }
        let base_entries = |methods: bool, name: &str, kept_only: bool| {
            let table = if methods {
                &self.methods
            } else {
                &self.functions
            };
            table
                .get(name)
                .map(|v| {
                    v.iter()
                        .filter(|(i, _)| !kept_only || !is_removed(*i))
                        .map(|(_, s)| s)
                        .collect::<Vec<_>>()
                })
                .unwrap_or_default()
        };
        let before = |callee: &Callee| {
            let name = callee_name(callee);
            let binds = self.binds.get(name).copied().unwrap_or(0);
            let functions = base_entries(false, name, false);
            let methods = base_entries(true, name, false);
            resolve(callee, binds, &functions, &methods).cloned()
        };
        // Bindings of the removed and added chunks, summed once (see `loses_definition`).
        let mut gone_binds = HashMap::default();
        gone.iter()
            .for_each(|s| add(&mut gone_binds, &s.arity.binds));
        let mut added_binds = HashMap::default();
        added
            .iter()
            .for_each(|s| add(&mut added_binds, &s.arity.binds));
        let after = |callee: &Callee| {
            let name = callee_name(callee);
            let of = |binds: &HashMap<String, usize>| binds.get(name).copied().unwrap_or(0);
            let binds = of(&self.binds) - of(&gone_binds) + of(&added_binds);
            let with_added = |methods: bool| {
                let mut entries = base_entries(methods, name, true);
                for s in added {
                    let table = if methods {
                        &s.arity.methods
                    } else {
                        &s.arity.functions
                    };
                    entries.extend(table.get(name).into_iter().flatten());
                }
                entries
            };
            let functions = with_added(false);
            let methods = with_added(true);
            resolve(callee, binds, &functions, &methods).cloned()
        };
        let mismatched = |calls: &[Call], resolution: &dyn Fn(&Callee) -> Option<Signature>| {
            calls
                .iter()
                .filter(|call| call.mismatched(resolution(&call.callee).as_ref()))
                .count()
        };
        let mut total = self.mismatches;
        for s in gone {
            total -= mismatched(&s.arity.calls, &before);
        }
        for s in added {
            total += mismatched(&s.arity.calls, &after);
        }
        // Calls of unchanged chunks whose callee resolves differently now.
        for name in changed {
            for callee in [
                Callee::Name(name.to_owned()),
                Callee::Attribute(name.to_owned()),
            ] {
                let Some(calls) = self.calls.get(&callee) else {
                    continue;
                };
                let (old, new) = (before(&callee), after(&callee));
                if old == new {
                    continue;
                }
                for &(i, j) in calls.iter().filter(|(i, _)| !is_removed(*i)) {
                    let call = &self.chunks[i].arity.calls[j];
                    total -= usize::from(call.mismatched(old.as_ref()));
                    total += usize::from(call.mismatched(new.as_ref()));
                }
            }
        }
        total
    }
}

/// A table without the chunk indices.
fn strip(table: &HashMap<String, Vec<(usize, Option<Signature>)>>) -> Signatures {
    table
        .iter()
        .map(|(name, v)| (name.clone(), v.iter().map(|(_, s)| s.clone()).collect()))
        .collect()
}

/// The chunks of `to` that differ from `from`'s, both given by their summaries: the range of
/// `from`'s chunks to replace (all but a common prefix and suffix, compared by identity) and
/// `to`'s chunks that replace them.
pub(crate) fn difference(
    from: &[Arc<Summary>],
    to: &[Arc<Summary>],
) -> (Range<usize>, Vec<Arc<Summary>>) {
    let same = |(a, b): (&Arc<Summary>, &Arc<Summary>)| Arc::ptr_eq(a, b);
    let prefix = from.iter().zip(to).take_while(|&p| same(p)).count();
    let rest = from.len().min(to.len()) - prefix;
    let suffix = from
        .iter()
        .rev()
        .zip(to.iter().rev())
        .take(rest)
        .take_while(|&p| same(p))
        .count();
    (
        prefix..from.len() - suffix,
        to[prefix..to.len() - suffix].to_vec(),
    )
}
