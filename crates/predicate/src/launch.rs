//! Where predicate runs happen and which slot each one holds.
//!
//! A [`Launch`] says how a run is started — as a direct child ([`Launcher::Local`]) or as a Slurm
//! job step ([`Launcher::Slurm`], see [`crate::slurm`]) — and hands every evaluation a *slot*: the
//! lowest number no other running evaluation holds. With at most N evaluations at once (`-j N`)
//! the slots are 0…N-1, reused as evaluations finish and never shared by two running ones, so a
//! predicate can pin itself to GPU number `{slot}`. The slot reaches the predicate as the
//! `{slot}` placeholder, the [`SLOT_VAR`] variable and every `--slot-env` variable; it is part of
//! neither the cache key nor the log, so a predicate whose verdict depends on it breaks the
//! "same result for every -j" guarantee.

use std::ffi::OsString;
use std::sync::{Arc, Mutex};

use crate::predicate::{DirectExecutor, Executor, PredicateError};
use crate::process::RUN_TAG_VAR;
use crate::slurm::SlurmLauncher;

/// The variable that carries a run's slot number.
pub const SLOT_VAR: &str = "MINREPRO_SLOT";
/// The placeholder that expands to a run's slot number.
pub const SLOT_PLACEHOLDER: &str = "slot";

/// How predicate runs are started.
#[derive(Debug, Default)]
pub enum Launcher {
    /// As direct children of minrepro.
    #[default]
    Local,
    /// As Slurm job steps through `srun`.
    Slurm(SlurmLauncher),
}

/// The launcher, the slot variables and the slot pool of one reduction (cheap to clone: clones
/// share the pool, so the original's probe and the reduction hand out the same slots).
#[derive(Debug, Clone, Default)]
pub struct Launch {
    launcher: Arc<Launcher>,
    slot_env: Vec<String>,
    slots: Arc<SlotPool>,
}

impl Launch {
    /// A launch through `launcher` that also sets every variable in `slot_env` to the slot.
    /// Names must be non-empty, without `=` or NUL, and not minrepro's own variables.
    pub fn new(launcher: Launcher, slot_env: Vec<String>) -> Result<Self, PredicateError> {
        for name in &slot_env {
            let bad_char = name.is_empty() || name.contains(['=', '\0']);
            if bad_char || name == RUN_TAG_VAR || name == SLOT_VAR {
                return Err(PredicateError::Invalid(format!(
                    "--slot-env {name:?} is not a usable variable name (non-empty, no '=', not {RUN_TAG_VAR} or {SLOT_VAR})"
                )));
            }
        }
        Ok(Launch {
            launcher: Arc::new(launcher),
            slot_env,
            slots: Arc::default(),
        })
    }

    /// The launcher.
    pub fn launcher(&self) -> &Launcher {
        &self.launcher
    }

    /// Whether runs go anywhere but direct children (then a fork server cannot run them).
    pub fn is_remote(&self) -> bool {
        !matches!(*self.launcher, Launcher::Local)
    }

    /// The executor that starts each run the way the launcher says.
    pub fn executor(&self) -> &dyn Executor {
        match &*self.launcher {
            Launcher::Local => &DirectExecutor,
            Launcher::Slurm(slurm) => slurm,
        }
    }

    /// Takes the lowest free slot until the returned guard drops.
    pub fn acquire_slot(&self) -> Slot {
        Slot {
            number: self.slots.acquire(),
            pool: Arc::clone(&self.slots),
        }
    }

    /// The variables a run in `slot` gets: [`SLOT_VAR`] and every `--slot-env` name.
    pub fn slot_env(&self, slot: usize) -> Vec<(OsString, OsString)> {
        let value = OsString::from(slot.to_string());
        std::iter::once(SLOT_VAR)
            .chain(self.slot_env.iter().map(String::as_str))
            .map(|name| (OsString::from(name), value.clone()))
            .collect()
    }
}

/// The slots in use: `busy[n]` while an evaluation holds slot `n`.
#[derive(Debug, Default)]
struct SlotPool {
    busy: Mutex<Vec<bool>>,
}

impl SlotPool {
    fn acquire(&self) -> usize {
        let mut busy = self.busy.lock().unwrap_or_else(|e| e.into_inner());
        match busy.iter().position(|held| !held) {
            Some(free) => {
                busy[free] = true;
                free
            }
            None => {
                busy.push(true);
                busy.len() - 1
            }
        }
    }

    fn release(&self, number: usize) {
        let mut busy = self.busy.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(held) = busy.get_mut(number) {
            *held = false;
        }
    }
}

/// A held slot; released when dropped.
#[derive(Debug)]
pub struct Slot {
    number: usize,
    pool: Arc<SlotPool>,
}

impl Slot {
    /// The slot's number.
    pub fn number(&self) -> usize {
        self.number
    }
}

impl Drop for Slot {
    fn drop(&mut self) {
        self.pool.release(self.number);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn slots_are_the_lowest_free_numbers_and_never_shared() {
        let launch = Launch::default();
        let a = launch.acquire_slot();
        let b = launch.acquire_slot();
        let c = launch.acquire_slot();
        assert_eq!((a.number(), b.number(), c.number()), (0, 1, 2));
        drop(b);
        let d = launch.acquire_slot();
        assert_eq!(d.number(), 1, "a released slot is reused first");
        let e = launch.clone().acquire_slot();
        assert_eq!(e.number(), 3, "clones share the pool");
    }

    #[test]
    fn slot_variables_are_set_to_the_slot() {
        let launch = Launch::new(Launcher::Local, vec!["HIP_VISIBLE_DEVICES".into()]).unwrap();
        let env = launch.slot_env(2);
        assert_eq!(
            env,
            [
                (OsString::from(SLOT_VAR), OsString::from("2")),
                (OsString::from("HIP_VISIBLE_DEVICES"), OsString::from("2"))
            ]
        );
        for bad in ["", "A=B", SLOT_VAR, RUN_TAG_VAR] {
            assert!(
                Launch::new(Launcher::Local, vec![bad.into()]).is_err(),
                "{bad}"
            );
        }
    }
}
