//! Folding concurrent successes (C-Vise's folding, Shrink Ray's merged patches): when several
//! candidates of a window are interesting, the candidate making all their changes together is
//! judged, then those making fewer of them, in a fixed order. A union is accepted only once it
//! was itself judged interesting; when none is, the first interesting candidate alone stands.
//! Which candidates are decided and accepted depends only on verdicts, never on timing, so a
//! rerun with the same `-j` decides the same.

use std::sync::Arc;

use minrepro_predicate::{Outcome, Status};

use super::{eval_error, Engine, EngineError, LogEntry};
use crate::dispatch::Dispatcher;
use crate::search::{Proposal, Search};

impl<C: Clone + Send + Sync> Engine<'_, C> {
    /// Folds the interesting proposals at `interesting` (two or more) of the last batch: their
    /// union first, then the unions of fewer of them in batch order (the first `k`, largest
    /// `k` first, judged side by side), each judged before it may be accepted. Returns the
    /// members of the largest interesting union and its case, or `None` when none was (or
    /// the search cannot combine), and the first interesting proposal alone stands.
    pub(super) fn fold(
        &mut self,
        pass: &str,
        (search, current): (&dyn Search<C>, &C),
        interesting: &[usize],
        dispatcher: &mut Dispatcher<C>,
    ) -> Result<Option<(Vec<usize>, C)>, EngineError> {
        if let Some(all) = search.combine(current, interesting) {
            if let Some(case) = self.judge_unions(pass, vec![all], dispatcher)?.1 {
                return Ok(Some((interesting.to_vec(), case)));
            }
        }
        let (sizes, unions): (Vec<usize>, Vec<Proposal<C>>) = (2..interesting.len())
            .rev()
            .filter_map(|k| search.combine(current, &interesting[..k]).map(|u| (k, u)))
            .unzip();
        if unions.is_empty() {
            return Ok(None);
        }
        let (first, case) = self.judge_unions(pass, unions, dispatcher)?;
        Ok(first
            .zip(case)
            .map(|(index, case)| (interesting[..sizes[index]].to_vec(), case)))
    }

    /// Judges fold candidates side by side (all of them) and logs them; returns the first
    /// interesting one's index and case.
    fn judge_unions(
        &mut self,
        pass: &str,
        unions: Vec<Proposal<C>>,
        dispatcher: &mut Dispatcher<C>,
    ) -> Result<(Option<usize>, Option<C>), EngineError> {
        let unions: Vec<Proposal<C>> = unions
            .into_iter()
            .map(|p| Proposal {
                change: serde_json::json!({ "fold": p.change }),
                case: p.case,
            })
            .collect();
        let digests: Vec<String> = unions.iter().map(|p| self.oracle.digest(&p.case)).collect();
        let config = &self.options.config_digest;
        let keys: Vec<String> = digests.iter().map(|d| self.cache.key(d, config)).collect();
        let (batch, window) = (Arc::new(unions), keys.len());
        let mut nothing = |_: usize| Vec::new();
        self.stats.sequential_steps += 1;
        let evaluated = dispatcher.evaluate(
            pass,
            (batch.clone(), &keys, window),
            self.cache,
            &mut nothing,
        );
        let (verdicts, first) = evaluated.map_err(eval_error)?;
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
