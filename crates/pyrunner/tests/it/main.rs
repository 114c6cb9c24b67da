//! The integration tests of `minrepro-pyrunner`, one test binary with a module per area.

mod runner;
