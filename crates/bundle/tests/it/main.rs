//! The integration tests of `minrepro-bundle`, one test binary with a module per area.

mod elf_tools;
