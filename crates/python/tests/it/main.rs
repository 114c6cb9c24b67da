//! Integration tests of minrepro-python's library (the command line is tested in crates/cli).

mod encoding;
mod guard;
mod passes;
mod source;
