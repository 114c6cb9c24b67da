//! Test support shared by minrepro's crates: a dev-dependency only, never part of a build.
//!
//! Unit tests across the floors (predicate, driver, text, front ends) start from the same
//! scratch state: a fresh temporary directory with one path, or one file, in it.

use std::path::PathBuf;

use tempfile::TempDir;

/// A fresh temporary directory and the path of `name` in it (nothing created there yet).
/// The directory is removed when the returned [`TempDir`] is dropped.
pub fn temp_path(name: &str) -> (TempDir, PathBuf) {
    let dir = tempfile::tempdir().expect("create a temporary directory");
    let path = dir.path().join(name);
    (dir, path)
}

/// A fresh temporary directory holding the file `name` with `contents`, and that file's path.
pub fn temp_file(name: &str, contents: impl AsRef<[u8]>) -> (TempDir, PathBuf) {
    let (dir, path) = temp_path(name);
    std::fs::write(&path, contents).expect("write a temporary file");
    (dir, path)
}

/// A chain `levels` deep around `innermost`, built from the inside out (level 0 innermost):
/// `marked(level, inner)` at every `every`th level, 0 included, and `plain(inner)` at the others.
/// The deep-nesting tests (bisection over depth, in a unit test and end to end) build their
/// inputs with it: a long chain with a side element now and then.
pub fn nested_chain(
    levels: usize,
    innermost: &str,
    every: usize,
    marked: impl Fn(usize, &str) -> String,
    plain: impl Fn(&str) -> String,
) -> String {
    (0..levels).fold(innermost.to_owned(), |inner, level| {
        if level % every == 0 {
            marked(level, &inner)
        } else {
            plain(&inner)
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_chain_is_marked_at_every_nth_level_from_the_inside() {
        let chain = nested_chain(
            5,
            "x",
            2,
            |level, t| format!("<{t}:{level}>"),
            |t| format!("({t})"),
        );
        assert_eq!(chain, "<(<(<x:0>):2>):4>");
        assert_eq!(nested_chain(0, "x", 3, |_, t| t.into(), |t| t.into()), "x");
    }

    #[test]
    fn the_file_is_there_until_the_directory_is_dropped() {
        let (dir, path) = temp_file("b.txt", "x");
        assert_eq!(std::fs::read_to_string(&path).unwrap(), "x");
        let (other, missing) = temp_path("c");
        assert!(!missing.exists() && other.path() != dir.path());
        drop(dir);
        assert!(!path.exists());
    }
}
