//! Helpers shared by every integration-test module.

pub mod bundle;
pub mod procs;
pub mod python;
pub mod python_reliability;
pub mod slots;
pub mod slurm;
