//! The integration tests of `minrepro-pysyntax`, one test binary with a module per area.

mod properties;
mod values;
