//! Folding concurrent successes (C-Vise's folding, Shrink Ray's merged patches): when several
//! candidates of a window are interesting, the candidate making all their changes together is
//! judged, then those making fewer of them, in a fixed order. A union is accepted only once it
//! was itself judged interesting; when none is, the first interesting candidate alone stands.
//! Which candidates are decided and accepted depends only on verdicts, never on timing, so a
//! rerun with the same `-j` decides the same.

use std::sync::Arc;

use minrepro_predicate::{Outcome, Status};

use super::{ahead, eval_error, Engine, EngineError, LogEntry};
use crate::dispatch::{Dispatcher, LookAhead};
use crate::search::{Pass, Proposal, Search};

/// What a fold works on: the search whose batch it folds, the current case, and the pass that
/// runs next if the search ends after an accepted union.
pub(super) type FoldContext<'a, C> = (&'a dyn Search<C>, &'a C, Option<&'a dyn Pass<C>>);

/// A union of the window's interesting proposals: its candidate and its members (ascending).
type Union<C> = (Proposal<C>, Vec<usize>);

impl<C: Clone + Send + Sync> Engine<'_, C> {
    /// Folds the interesting proposals at `interesting` (two or more) of the last batch's
    /// `decided` first proposals: their union first, then the unions of fewer of them in batch
    /// order (the first `k`, largest `k` first, judged side by side), each judged before it
    /// may be accepted. Returns the members of the largest interesting union and its case, or
    /// `None` when none was (or the search cannot combine), and the first interesting
    /// proposal alone stands.
    pub(super) fn fold(
        &mut self,
        pass: &str,
        context: FoldContext<'_, C>,
        (interesting, decided): (&[usize], usize),
        dispatcher: &mut Dispatcher<C>,
    ) -> Result<Option<(Vec<usize>, C)>, EngineError> {
        let (search, current, _) = context;
        let rejected: Vec<usize> = (0..decided)
            .filter(|i| interesting.binary_search(i).is_err())
            .collect();
        let union = |members: &[usize]| {
            let proposal = search.combine(current, members)?;
            Some((proposal, members.to_vec()))
        };
        if let Some(all) = union(interesting) {
            let (first, case) =
                self.judge_unions(pass, vec![all], (context, &rejected), dispatcher)?;
            if let Some(case) = case {
                return Ok(first.map(|_| (interesting.to_vec(), case)));
            }
        }
        let unions: Vec<Union<C>> = (2..interesting.len())
            .rev()
            .filter_map(|k| union(&interesting[..k]))
            .collect();
        if unions.is_empty() {
            return Ok(None);
        }
        let members: Vec<Vec<usize>> = unions.iter().map(|u| u.1.clone()).collect();
        let (first, case) = self.judge_unions(pass, unions, (context, &rejected), dispatcher)?;
        Ok(first
            .zip(case)
            .map(|(index, case)| (members[index].clone(), case)))
    }

    /// Judges fold candidates side by side (all of them) and logs them; returns the first
    /// interesting one's index and case. While they run, the dispatcher may run ahead the
    /// batch that follows a union's acceptance (the search told it with the window's
    /// `rejected` proposals), as likely as the pass's unions were accepted so far.
    fn judge_unions(
        &mut self,
        pass: &str,
        unions: Vec<Union<C>>,
        ((search, _, following), rejected): (FoldContext<'_, C>, &[usize]),
        dispatcher: &mut Dispatcher<C>,
    ) -> Result<(Option<usize>, Option<C>), EngineError> {
        let (unions, members): (Vec<Proposal<C>>, Vec<Vec<usize>>) = unions
            .into_iter()
            .map(|(p, members)| {
                let change = serde_json::json!({ "fold": p.change });
                (
                    Proposal {
                        change,
                        case: p.case,
                    },
                    members,
                )
            })
            .unzip();
        let digests: Vec<String> = unions.iter().map(|p| self.oracle.digest(&p.case)).collect();
        let config = &self.options.config_digest;
        let keys: Vec<String> = digests.iter().map(|d| self.cache.key(d, config)).collect();
        let (batch, window) = (Arc::new(unions), keys.len());
        let (oracle, cache, width) = (self.oracle, self.cache, self.width());
        let key = |p: &Proposal<C>| cache.key(&oracle.digest(&p.case), config);
        let mut look_ahead = |index: usize| -> LookAhead<C> {
            let (Some(members), Some(union)) = (members.get(index), batch.get(index)) else {
                return Vec::new();
            };
            let premise = |fork: &mut dyn Search<C>| fork.feedback_fold(members, rejected);
            let next = (&union.case, following);
            ahead::batch_after(search, &premise, next, width, &key)
        };
        // The speculation policy learns how often a pass's unions are accepted apart from
        // how often its candidates are.
        let unions_of = format!("{pass} (fold)");
        self.stats.sequential_steps += 1;
        let evaluated = dispatcher.evaluate(
            &unions_of,
            (batch.clone(), &keys, window),
            self.cache,
            &mut look_ahead,
        );
        let (verdicts, first) = evaluated.map_err(eval_error)?;
        dispatcher.decided(&unions_of, first.is_some());
        let mark = self.log.len();
        self.record_batch(pass, &batch, &digests, verdicts);
        if let Some(first) = first {
            self.mark_accepted(pass, mark + first);
        }
        Ok((first, first.map(|i| batch[i].case.clone())))
    }

    /// Logs and counts the decided candidates of a batch (none marked accepted yet).
    pub(super) fn record_batch(
        &mut self,
        pass: &str,
        batch: &[Proposal<C>],
        digests: &[String],
        verdicts: Vec<(Outcome, bool)>,
    ) {
        for (index, (proposal, (outcome, hit))) in batch.iter().zip(verdicts).enumerate() {
            if hit {
                self.stats.cache_hits += 1;
            }
            self.stats.candidates_decided += 1;
            self.stats.timeouts += usize::from(outcome.status == Status::Timeout);
            let pass_stats = self.stats.per_pass.entry(pass.to_owned()).or_default();
            pass_stats.0 += 1;
            let timed_out = outcome.status == Status::Timeout;
            self.progress.tried(hit, timed_out);
            // Every entry is pushed (also without a collected log) so that positions stay
            // meaningful while a batch is recorded; see `mark_accepted`.
            self.log.push(LogEntry {
                pass: pass.to_owned(),
                change: proposal.change.clone(),
                candidate_digest: digests[index].clone(),
                accepted: false,
                outcome,
            });
        }
    }

    /// Marks the log entry at `position` as the accepted candidate of `pass`.
    pub(super) fn mark_accepted(&mut self, pass: &str, position: usize) {
        if let Some(entry) = self.log.get_mut(position) {
            entry.accepted = true;
        }
        self.stats.per_pass.entry(pass.to_owned()).or_default().1 += 1;
    }

    /// Forgets the log entries of the last batch when the log is not collected (they are
    /// recorded while a batch is decided, to mark the accepted one).
    pub(super) fn drop_uncollected_log(&mut self) {
        if !self.collect_log {
            self.log.clear();
        }
    }
}
