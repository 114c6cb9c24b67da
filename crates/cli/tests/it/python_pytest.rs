//! `minrepro python --pytest NODEID` (issue 37): a failing pytest test, its conftest.py
//! fixtures and the local modules they import reduced together, then turned into a plain
//! script that fails the same way without pytest.

use std::path::Path;
use std::process::Command as StdCommand;

use crate::support::minrepro;
use crate::support::python::*;

/// Fails the calling test unless the tests' interpreter has pytest: the suite needs it
/// (`scripts/test` installs the Debian package python3-pytest).
fn require_pytest() {
    let found = StdCommand::new(python())
        .args(["-c", "import pytest"])
        .output()
        .is_ok_and(|out| out.status.success());
    assert!(
        found,
        "{} cannot import pytest: these tests need it (scripts/test --install-only installs \
         the Debian package python3-pytest)",
        python().display()
    );
}

/// A package (`shop`, re-exporting from `shop/pricing.py`), a conftest.py whose fixtures use
/// it (one a `yield` fixture), a helper module beside the test (found as pytest finds it: the
/// test's directory has no `__init__.py`), and a parametrized test whose `gold` case fails in
/// the package.
fn write_project(dir: &Path) {
    std::fs::create_dir_all(dir.join("shop")).unwrap();
    std::fs::create_dir_all(dir.join("tests")).unwrap();
    let files = [
        (
            "shop/__init__.py",
            "from .pricing import Catalog, price_of\nVERSION = '2.1'\n",
        ),
        (
            "shop/pricing.py",
            "import math\n\n\nclass Catalog:\n    def __init__(self, items):\n\
             \x20       self.items = dict(items)\n\n    def names(self):\n\
             \x20       return sorted(self.items)\n\n\ndef unused_rounding(x):\n\
             \x20   return math.floor(x * 100) / 100\n\n\ndef price_of(catalog, name, tier):\n\
             \x20   base = catalog.items[name]\n    rates = {'silver': 0.05, 'bronze': 0.0}\n\
             \x20   if tier not in rates:\n\
             \x20       raise LookupError('no discount rate for tier %r' % tier)\n\
             \x20   return base * (1 - rates[tier])\n",
        ),
        (
            "tests/conftest.py",
            "import pytest\nfrom shop import Catalog\n\n\n@pytest.fixture\ndef catalog():\n\
             \x20   return Catalog([('apple', 3.0), ('pear', 4.5), ('plum', 1.25)])\n\n\n\
             @pytest.fixture\ndef basket(catalog):\n    items = ['apple', 'pear']\n\
             \x20   yield items\n    items.clear()\n\n\n@pytest.fixture\ndef unused_fixture():\n\
             \x20   return 42\n",
        ),
        (
            "tests/helpers.py",
            "def pick(basket, n):\n    return basket[:n]\n\n\ndef unused_helper():\n    return 0\n",
        ),
        (
            "tests/test_orders.py",
            "import pytest\nfrom shop import price_of, VERSION\nfrom helpers import pick\n\n\n\
             def test_version():\n\
             \x20   assert VERSION.startswith('2')\n\n\n\
             @pytest.mark.parametrize('tier', ['bronze', 'silver', 'gold'])\n\
             def test_discount(catalog, basket, tier):\n    total = 0.0\n\
             \x20   for name in pick(basket, 2):\n        total += price_of(catalog, name, tier)\n\
             \x20   assert total > 0\n",
        ),
    ];
    for (name, text) in files {
        std::fs::write(dir.join(name), text).unwrap();
    }
}

/// `minrepro python --pytest NODEID --err-msg MSG -o OUT --root DIR`, started in `dir`.
fn pytest_command(dir: &Path, node: &str, err_msg: &str, out: &Path) -> assert_cmd::Command {
    let mut command = minrepro();
    command
        .current_dir(dir)
        .args(["python", "--pytest", node, "--err-msg", err_msg, "-o"])
        .arg(out)
        // The root given: the test directory may sit inside another project's tree.
        .arg("--root")
        .arg(dir);
    command
}

/// `file` run by the tests' interpreter without its site directories (so without pytest) in
/// `cwd`; stdout and stderr.
fn run_without_pytest(file: &Path, cwd: &Path) -> String {
    let run = |args: &[&std::ffi::OsStr]| {
        let out = StdCommand::new(python())
            .arg("-S")
            .args(args)
            .current_dir(cwd)
            .env("PYTHONDONTWRITEBYTECODE", "1")
            .env_remove("PYTHONPATH")
            .output()
            .unwrap();
        (out.status.success(), all_output(&out))
    };
    let (imports, said) = run(&["-c".as_ref(), "import pytest".as_ref()]);
    assert!(!imports, "pytest is importable with -S: {said}");
    run(&[file.as_os_str()]).1
}

#[test]
fn a_test_with_conftest_fixtures_becomes_one_plain_script() {
    require_pytest();
    let dir = tempfile::tempdir().unwrap();
    let project = dir.path().join("project");
    write_project(&project);
    let node = "tests/test_orders.py::test_discount[gold]";
    let mut outputs = Vec::new();
    for jobs in ["1", "3"] {
        let out = dir.path().join(format!("repro{jobs}.py"));
        let assert = pytest_command(&project, node, "no discount rate", &out)
            .args(["-j", jobs])
            .assert()
            .code(0);
        let said = all_output(assert.get_output());
        assert!(
            said.contains("one standalone file") && said.contains("a plain script"),
            "-j {jobs}: {said}"
        );
        assert!(out.is_file(), "-j {jobs}: {said}");
        outputs.push(std::fs::read(&out).unwrap());
    }
    assert_eq!(outputs[0], outputs[1], "-j 1 and -j 3 differ");
    let text = String::from_utf8(outputs[0].clone()).unwrap();
    for gone in ["pytest", "shop", "helpers", "unused", "test_version"] {
        assert!(!text.contains(gone), "{gone:?} in {text}");
    }
    // Alone, in a fresh directory, by python3 without pytest: the same exception, raised in
    // the same function.
    let fresh = tempfile::tempdir().unwrap();
    let alone = fresh.path().join("repro.py");
    std::fs::write(&alone, &text).unwrap();
    let run = run_without_pytest(&alone, fresh.path());
    assert!(
        run.lines()
            .any(|l| l.starts_with("LookupError: no discount rate")),
        "{run}"
    );
    assert!(run.contains(", in price_of\n"), "{run}");
    // The project is untouched.
    assert!(std::fs::read_to_string(project.join("tests/conftest.py"))
        .unwrap()
        .contains("unused_fixture"));
}

/// A test that needs pytest's own `tmp_path` fixture (the file it writes there, broken JSON,
/// makes the json module raise) cannot be a plain script: the output stays a reduced pytest
/// test, which still fails under pytest, and the run says why.
#[test]
fn a_test_needing_a_builtin_fixture_stays_a_pytest_test_and_the_run_says_why() {
    require_pytest();
    let dir = tempfile::tempdir().unwrap();
    let project = dir.path().join("project");
    std::fs::create_dir_all(&project).unwrap();
    std::fs::write(
        project.join("test_files.py"),
        "import json\n\n\ndef load(path):\n    with open(path) as f:\n        return json.load(f)\n\n\n\
         def test_config(tmp_path):\n    path = tmp_path / 'config.json'\n\
         \x20   path.write_text('{\"retries\": 3')\n    config = load(path)\n\
         \x20   assert config['retries'] == 3\n",
    )
    .unwrap();
    let out = dir.path().join("test_repro.py");
    let assert = pytest_command(&project, "test_files.py::test_config", "Expecting", &out)
        .assert()
        .code(0);
    let said = all_output(assert.get_output());
    assert!(
        said.contains("it stays a pytest test: the test needs the fixture `tmp_path`"),
        "{said}"
    );
    assert!(said.contains("-m pytest"), "{said}");
    let run = StdCommand::new(python())
        .args(["-m", "pytest", "-q", "-p", "no:cacheprovider"])
        // tmp_path's directories inside the test's own directory, not in TMPDIR.
        .arg(format!(
            "--basetemp={}",
            dir.path().join("pytest-tmp").display()
        ))
        .arg(format!("{}::test_config", out.display()))
        .current_dir(dir.path())
        .env("PYTHONDONTWRITEBYTECODE", "1")
        .output()
        .unwrap();
    let run = all_output(&run);
    assert!(run.contains("JSONDecodeError"), "{run}");
}
