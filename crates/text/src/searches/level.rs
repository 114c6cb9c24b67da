//! A group's search level by level (HDD) under a [`LevelPolicy`] (see [`LevelSearch`]).

use minrepro_engine::{InnerSearch, Proposal, Search, Width};

use super::SiteSearches;
use crate::language::Language;
use crate::lock::lock;
use crate::spec::LevelPolicy;

/// A group's search level by level (HDD) under a [`LevelPolicy`]: each level's search opened
/// on the text current when the previous one ended, a level searched again while its search
/// accepted something (`resweep`), and no deeper level once enough levels in a row accepted
/// nothing after an acceptance (`stop_after_fruitless`).
pub(crate) struct LevelSearch<L: Language> {
    sites: SiteSearches<L>,
    policy: LevelPolicy,
    level: usize,
    /// The open search of the level, if any (at the engine's width).
    inner: InnerSearch<'static, String>,
    /// Whether the next search of the level is a re-sweep.
    resweeping: bool,
    /// Whether the open search, the current level and the whole search accepted something.
    search_accepted: bool,
    level_accepted: bool,
    accepted_any: bool,
    /// Consecutive levels that accepted nothing, and their sites.
    fruitless_levels: usize,
    fruitless_sites: usize,
    /// Whether the current level has proposed a batch (a level whose every candidate was
    /// refused unrun costs nothing, so it does not count as fruitless).
    level_ran: bool,
    /// Sites of the current level when its first search opened.
    level_sites: usize,
    done: bool,
}

impl<L: Language> LevelSearch<L> {
    /// The level search of `sites` under `policy`.
    pub(crate) fn new(sites: SiteSearches<L>, policy: LevelPolicy) -> Self {
        LevelSearch {
            sites,
            policy,
            level: 0,
            inner: InnerSearch::default(),
            resweeping: false,
            search_accepted: false,
            level_accepted: false,
            accepted_any: false,
            fruitless_levels: 0,
            fruitless_sites: 0,
            level_ran: false,
            level_sites: 0,
            done: false,
        }
    }

    /// The number of sites at `level` of `current`.
    fn sites_at(&self, current: &str, level: usize) -> usize {
        self.sites.prepared(current).positions(Some(level)).len()
    }

    /// Moves to the next level of `current`, or ends the search (see
    /// [`LevelPolicy::stop_after_fruitless`]): not when the next level has at least as many
    /// sites as the fruitless ones together (a chain of wrappers before a wide level: a Java
    /// class's deletion, its two hoistings and its modifiers, then its ten members).
    fn next_level(&mut self, current: &str) {
        if self.level_accepted {
            self.fruitless_levels = 0;
            self.fruitless_sites = 0;
        } else if self.level_ran {
            self.fruitless_levels += 1;
            self.fruitless_sites += self.level_sites;
        }
        let stop = self
            .policy
            .stop_after_fruitless
            .is_some_and(|most| self.accepted_any && self.fruitless_levels >= most);
        self.done |= stop && self.sites_at(current, self.level + 1) < self.fruitless_sites;
        self.level += 1;
        self.level_accepted = false;
        self.level_ran = false;
        self.resweeping = false;
    }
}

impl<L: Language> Search<String> for LevelSearch<L> {
    fn next_batch(&mut self, current: &String) -> Option<Vec<Proposal<String>>> {
        loop {
            if self.done {
                return None;
            }
            if !self.inner.is_open() {
                let opened = if self.resweeping {
                    let failed = self
                        .sites
                        .level_failed
                        .as_ref()
                        .map(|set| std::mem::take(&mut *lock(set)))
                        .unwrap_or_default();
                    let mut failed = failed;
                    if let Some(sticky) = &self.sites.deferred_failed {
                        failed.extend(lock(sticky).iter().copied());
                    }
                    self.sites
                        .resweeping(failed)
                        .open(current, Some(self.level))
                } else {
                    self.level_sites = self.sites_at(current, self.level);
                    self.sites.open(current, Some(self.level))
                };
                match opened {
                    Some(search) => self.inner.open(search),
                    // Every site of the level left out: on to the next one.
                    None if self.resweeping => {
                        self.next_level(current);
                        continue;
                    }
                    // No site this deep.
                    None => {
                        self.done = true;
                        return None;
                    }
                }
            }
            if let Some(batch) = self.inner.next_batch(current) {
                // ddmin hands over an empty batch when every candidate of a step was refused
                // unrun: that step cost nothing.
                self.level_ran |= !batch.is_empty();
                return Some(batch);
            }
            if self.policy.resweep && self.search_accepted {
                self.search_accepted = false;
                self.resweeping = true;
            } else {
                self.next_level(current);
            }
        }
    }

    fn feedback(&mut self, accepted: Option<usize>) {
        let decided = accepted.unwrap_or(lock(&self.sites.batch_sites).len());
        let rejected: Vec<usize> = (0..decided).collect();
        self.record(&rejected);
        self.inner.feedback(accepted);
        self.accepted(accepted.is_some());
    }

    fn combine(&self, current: &String, indices: &[usize]) -> Option<Proposal<String>> {
        self.inner.combine(current, indices)
    }

    fn set_width(&mut self, width: Width) {
        self.inner.set_width(width);
    }

    fn feedback_fold(&mut self, accepted: &[usize], rejected: &[usize]) {
        self.record(rejected);
        self.inner.feedback_fold(accepted, rejected);
        self.accepted(!accepted.is_empty());
    }
}

impl<L: Language> LevelSearch<L> {
    /// Records ddmin's single sites of the last batch's `rejected` proposals as failed at this
    /// level (ProbDD reports its own).
    fn record(&self, rejected: &[usize]) {
        if let Some(failed) = &self.sites.level_failed {
            let batch = lock(&self.sites.batch_sites);
            lock(failed).extend(rejected.iter().filter_map(|&i| batch.get(i)?.1));
        }
    }

    /// Notes whether the last batch changed the text.
    fn accepted(&mut self, accepted: bool) {
        if accepted {
            self.search_accepted = true;
            self.level_accepted = true;
            self.accepted_any = true;
            if let Some(failed) = &self.sites.level_failed {
                lock(failed).clear();
            }
        }
    }
}
