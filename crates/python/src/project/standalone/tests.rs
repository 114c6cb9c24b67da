//! `inline_all` on small projects: the single file must run like the project (same standard
//! output, same exception), checked by running both with the machine's `python3`.

use std::path::Path;
use std::process::Command;

use minrepro_text::{Content, Doc};

use super::{inline_all, Search};
use crate::project::inlined_type_name;

fn docs(files: &[(&str, &str)]) -> Vec<Doc> {
    files
        .iter()
        .map(|(name, text)| Doc {
            name: (*name).to_owned(),
            content: Content::Text((*text).to_owned()),
        })
        .collect()
}

/// Standard output and the last line of standard error of `python3 entry` run in `dir`.
fn run(dir: &Path, entry: &str) -> (String, String) {
    let out = Command::new("python3")
        .arg(entry)
        .current_dir(dir)
        .env("PYTHONDONTWRITEBYTECODE", "1")
        .output()
        .expect("python3 runs");
    let stderr = String::from_utf8_lossy(&out.stderr);
    let last = stderr.lines().last().unwrap_or("").to_owned();
    (String::from_utf8_lossy(&out.stdout).into_owned(), last)
}

/// The project `files` in a temporary directory, and its single file (entry first) in another.
fn project_and_single_file(files: &[(&str, &str)]) -> (impl AsRef<Path>, impl AsRef<Path>, String) {
    let set = docs(files);
    let single =
        inline_all(&set, &Search::one("")).unwrap_or_else(|why| panic!("not one file: {why}"));
    let (project, _) = minrepro_testkit::temp_path("project");
    for (name, text) in files {
        let path = project.path().join(name);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, text).unwrap();
    }
    let (alone, _) = minrepro_testkit::temp_path("alone");
    let text = single.content.text().unwrap().to_owned();
    std::fs::write(alone.path().join(files[0].0), &text).unwrap();
    (project, alone, text)
}

/// The single file of `files` (entry first), after checking that it runs like the project.
fn inlined_like_the_project(files: &[(&str, &str)]) -> String {
    let (project, alone, text) = project_and_single_file(files);
    assert_eq!(
        run(alone.as_ref(), files[0].0),
        run(project.as_ref(), files[0].0),
        "the single file runs otherwise:\n{text}"
    );
    text
}

#[test]
fn two_modules_defining_one_name_keep_both_under_two_names() {
    let text = inlined_like_the_project(&[
        (
            "main.py",
            "import limits\nfrom scaling import check\n\n\ndef report(values):\n\
             \x20   scaled = [check(v) for v in values]\n    print('scaled', scaled)\n\
             \x20   return limits.check(sum(scaled))\n\n\nreport([1, 2, 3])\n",
        ),
        (
            "limits.py",
            "LIMIT = 10\n\n\ndef check(total):\n    if total > LIMIT:\n\
             \x20       raise OverflowError('total %d above %d' % (total, LIMIT))\n    return total\n",
        ),
        (
            "scaling.py",
            "FACTOR = 3\n\n\ndef check(value):\n    return value * FACTOR\n",
        ),
    ]);
    assert_eq!(text.matches("def check").count(), 2, "{text}");
    assert!(
        !text.contains("import limits") && !text.contains("limits."),
        "{text}"
    );
}

#[test]
fn relative_imports_re_exports_and_module_aliases_are_followed() {
    let text = inlined_like_the_project(&[
        (
            "main.py",
            "import pkg.helpers as h\nfrom pkg import compute\n\nprint(h.compute([1, 2]), compute([3]))\n",
        ),
        ("pkg/__init__.py", "from .helpers import compute\n"),
        (
            "pkg/helpers.py",
            "from . import util\n\n\ndef compute(values):\n    return [util.double(v) for v in values]\n",
        ),
        ("pkg/util.py", "def double(x):\n    return x * 2\n"),
    ]);
    assert!(
        !text.contains("import pkg") && !text.contains("from ."),
        "{text}"
    );
    // A module comes after the modules it imports, as Python runs them.
    assert!(text.find("def double") < text.find("def compute"), "{text}");
}

#[test]
fn a_module_main_block_goes_and_future_imports_lead() {
    let text = inlined_like_the_project(&[
        ("main.py", "from tool import area\n\nprint(area(2))\n"),
        (
            "tool.py",
            "from __future__ import annotations\n\n\ndef area(side: Square) -> int:\n\
             \x20   return side * side\n\n\nif __name__ == \"__main__\":\n    print('tool run')\n",
        ),
    ]);
    assert!(
        text.starts_with("from __future__ import annotations"),
        "{text}"
    );
    assert!(!text.contains("tool run"), "{text}");
}

#[test]
fn one_third_party_import_in_two_files_is_no_clash() {
    let text = inlined_like_the_project(&[
        (
            "main.py",
            "import os\nfrom paths import joined\n\nprint(joined('a'), os.sep)\n",
        ),
        (
            "paths.py",
            "import os\n\n\ndef joined(name):\n    return os.path.join('x', name)\n",
        ),
    ]);
    assert!(!text.contains("os_paths"), "{text}");
}

#[test]
fn a_set_that_cannot_be_one_file_says_why() {
    let why = |files: &[(&str, &str)]| inline_all(&docs(files), &Search::one("")).unwrap_err();
    let circular = why(&[
        ("main.py", "import a\n"),
        ("a.py", "import b\n"),
        ("b.py", "import a\n"),
    ]);
    assert!(circular.contains("circular import"), "{circular}");
    let star = why(&[("main.py", "from a import *\n"), ("a.py", "X = 1\n")]);
    assert!(star.contains("imports * from a local module"), "{star}");
    let inner = why(&[
        ("main.py", "import a\n\n\ndef f():\n    import b\n"),
        ("a.py", "X = 1\n"),
        ("b.py", "Y = 1\n"),
    ]);
    assert!(inner.contains("inside a function"), "{inner}");
}

/// An exception class a local module defines prints qualified by that module in the project's
/// traceback and bare in the single file's (it is `__main__`'s there): the name the fidelity
/// guard also accepts once modules may be inlined (`inlined_type_name`, issue 37's corpus).
#[test]
fn an_exception_class_of_a_local_module_prints_bare_once_inlined() {
    let files = [
        (
            "main.py",
            "from shop import checkout\n\n\ncheckout(100.0, 120.0)\n",
        ),
        ("shop/__init__.py", "from .pricing import checkout\n"),
        (
            "shop/pricing.py",
            "from .errors import DiscountError\n\n\ndef checkout(subtotal, off):\n\
             \x20   if off > subtotal:\n        raise DiscountError('%s > %s' % (off, subtotal))\n",
        ),
        (
            "shop/errors.py",
            "class DiscountError(ValueError):\n    pass\n",
        ),
    ];
    let (project, alone, text) = project_and_single_file(&files);
    let (_, in_project) = run(project.as_ref(), "main.py");
    let (_, in_single) = run(alone.as_ref(), "main.py");
    assert_eq!(in_project, "shop.errors.DiscountError: 120.0 > 100.0");
    assert_eq!(in_single, "DiscountError: 120.0 > 100.0", "{text}");
    let bare = inlined_type_name(
        "shop.errors.DiscountError",
        project.as_ref(),
        &Search::one(""),
        "main.py",
    );
    assert_eq!(bare.as_deref(), Some("DiscountError"));
    // Not a local module's class: a builtin, the standard library's.
    assert_eq!(
        inlined_type_name("ValueError", project.as_ref(), &Search::one(""), "main.py"),
        None
    );
    assert_eq!(
        inlined_type_name(
            "json.decoder.JSONDecodeError",
            project.as_ref(),
            &Search::one(""),
            "main.py"
        ),
        None
    );
}

/// A pytest test's conftest.py files go ahead of the test module's own code (pytest loads them
/// first), outermost first, with the modules they import before them; the test module itself
/// may import no local module.
#[test]
fn conftest_files_go_first_outermost_first() {
    let set = docs(&[
        (
            "tests/test_a.py",
            "import pytest\n\n\ndef test_a(db):\n    assert db == 2\n",
        ),
        ("conftest.py", "from shop import make\n"),
        (
            "tests/conftest.py",
            "import pytest\n\n\n@pytest.fixture\ndef db():\n    return 1\n",
        ),
        ("shop.py", "def make():\n    return 1\n"),
    ]);
    let single = inline_all(&set, &Search::one("")).unwrap();
    let text = single.content.text().unwrap();
    let at = |needle: &str| {
        text.find(needle)
            .unwrap_or_else(|| panic!("{needle:?} in {text}"))
    };
    assert!(
        at("def make") < at("def db") && at("def db") < at("def test_a"),
        "{text}"
    );
    assert!(!text.contains("from shop"), "{text}");
    // A class of the test module prints under the file's stem under pytest, bare in a script.
    let (_dir, root) = minrepro_testkit::temp_path("stem");
    assert_eq!(
        inlined_type_name(
            "test_a.RateError",
            &root,
            &Search::one(""),
            "tests/test_a.py"
        )
        .as_deref(),
        Some("RateError")
    );
}
