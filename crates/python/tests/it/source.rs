//! Reading and checking the source and the failure message.

use std::path::Path;

use minrepro_driver::resolve_for_comparison;
use minrepro_python::source::read_source;

#[test]
fn the_source_path_is_resolved() {
    let (dir, file) = minrepro_testkit::temp_file("p.py", "print(1)\n");
    let same = dir.path().join(".").join("p.py");
    let source = read_source(&same, Path::new("python3"), 11).unwrap();
    assert_eq!(source.file_name, "p.py");
    assert_eq!(source.path, resolve_for_comparison(&file));
}

#[test]
fn an_unreadable_source_is_an_error() {
    let (dir, missing) = minrepro_testkit::temp_path("missing.py");
    let err = read_source(&missing, Path::new("python3"), 11).unwrap_err();
    assert!(err.to_string().contains("cannot read"));
    assert!(read_source(dir.path(), Path::new("python3"), 11).is_err());
}
