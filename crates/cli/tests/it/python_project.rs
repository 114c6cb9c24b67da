//! `minrepro python` on an entry that imports local modules (issue 37): the entry and its
//! local modules are reduced together and inlined into one standalone file.

use std::path::Path;

use crate::support::python::*;

/// An entry importing a package (`pkg/__init__.py` re-exporting from `pkg/helpers.py` with a
/// relative import) whose helper raises the failure.
fn write_project(dir: &Path) -> std::path::PathBuf {
    std::fs::create_dir_all(dir.join("pkg")).unwrap();
    std::fs::write(
        dir.join("pkg/__init__.py"),
        "from .helpers import compute\nVERSION = '1.0'\n",
    )
    .unwrap();
    std::fs::write(
        dir.join("pkg/helpers.py"),
        "import os\n\n\ndef unused_helper(x):\n    return x * 2\n\n\n\
         def compute(values):\n    total = 0\n    for v in values:\n        total += v\n\
         \x20   if total > 10:\n        raise LookupError('total too big: %d' % total)\n\
         \x20   return total\n",
    )
    .unwrap();
    let entry = dir.join("main.py");
    std::fs::write(
        &entry,
        "import sys\nfrom pkg import compute, VERSION\n\n\ndef banner():\n    print('version', VERSION)\n\n\n\
         banner()\ndata = [1, 2, 3, 4, 5]\nprint(compute(data))\n",
    )
    .unwrap();
    entry
}

#[test]
fn a_package_with_relative_imports_becomes_one_standalone_file() {
    let dir = tempfile::tempdir().unwrap();
    let project = dir.path().join("project");
    let entry = write_project(&project);
    let original = run_candidate(&entry, &project);
    assert!(
        original.contains("LookupError: total too big"),
        "{original}"
    );
    let mut outputs = Vec::new();
    for jobs in ["1", "3"] {
        let out = dir.path().join(format!("out{jobs}.py"));
        let stats = dir.path().join(format!("stats{jobs}.json"));
        let assert = python_command(&entry, "LookupError", &out)
            .args(["-j", jobs])
            .arg("--stats-json")
            .arg(&stats)
            .assert()
            .code(0);
        // Values are recorded from the entry once the modules are inlined into it.
        let stats: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(&stats).unwrap()).unwrap();
        assert!(
            stats["value_recording_runs"].as_u64() > Some(0),
            "-j {jobs}: {stats}"
        );
        let said = all_output(assert.get_output());
        assert!(said.contains("one standalone file"), "{said}");
        assert!(
            out.is_file(),
            "-j {jobs}: {} is not one file",
            out.display()
        );
        outputs.push(std::fs::read(&out).unwrap());
    }
    assert_eq!(outputs[0], outputs[1], "-j 1 and -j 3 differ");
    let text = String::from_utf8(outputs[0].clone()).unwrap();
    assert!(
        !text.contains("import pkg") && !text.contains("from pkg") && !text.contains("from ."),
        "{text}"
    );
    assert!(
        !text.contains("unused_helper") && !text.contains("banner"),
        "{text}"
    );
    // Alone, in a fresh directory without the package, it raises the same exception type.
    let fresh = tempfile::tempdir().unwrap();
    let alone = fresh.path().join("repro.py");
    std::fs::write(&alone, &text).unwrap();
    let run = run_candidate(&alone, fresh.path());
    assert!(
        run.lines().any(|line| line.starts_with("LookupError")),
        "{run}"
    );
    assert!(!run.contains("ModuleNotFoundError"), "{run}");
    // The project itself is untouched.
    assert_eq!(run_candidate(&entry, &project), original);
}

/// A failure whose message names its module (`__name__`): inlined into the entry it would say
/// `__main__`, so the single file does not reproduce and the module stays a module.
#[test]
fn a_module_the_failure_names_stays_a_module_and_the_run_says_why() {
    let dir = tempfile::tempdir().unwrap();
    let project = dir.path().join("project");
    std::fs::create_dir_all(&project).unwrap();
    std::fs::write(
        project.join("registry.py"),
        "HANDLERS = {}\n\n\ndef register(name):\n    def wrap(f):\n        HANDLERS[name] = f\n\
         \x20       return f\n    return wrap\n\n\ndef dispatch(name, value):\n\
         \x20   handler = HANDLERS.get(name)\n    if handler is None:\n\
         \x20       raise KeyError('%s has no handler for %r' % (__name__, name))\n\
         \x20   return handler(value)\n",
    )
    .unwrap();
    let entry = project.join("main.py");
    std::fs::write(
        &entry,
        "from registry import register, dispatch\n\n\n@register('double')\ndef double(x):\n\
         \x20   return x * 2\n\n\nprint(dispatch('double', 4))\nprint(dispatch('triple', 4))\n",
    )
    .unwrap();
    let out = dir.path().join("out");
    // The root given: the nearest pyproject.toml upwards may be another project's (the test
    // directory can sit inside one), and the directory's files are named relative to the root.
    let assert = python_command(&entry, "registry has no handler", &out)
        .arg("--root")
        .arg(&project)
        .assert()
        .code(0);
    let said = all_output(assert.get_output());
    assert!(
        said.contains("wrote the directory")
            && said.contains("not one file: the modules inlined into one file did not reproduce"),
        "{said}"
    );
    // The check the single file failed, by name: inlined, the message says `__main__`.
    assert!(
        said.contains(
            "(--err-msg \"registry has no handler\" is not in its output (it ends in KeyError))"
        ),
        "{said}"
    );
    let kept = out.join("registry.py");
    assert!(out.join("main.py").is_file() && kept.is_file(), "{said}");
    assert!(
        std::fs::read_to_string(&kept).unwrap().contains("__name__"),
        "the module's name is what the failure needs"
    );
    // The directory alone reproduces, and is smaller than the project.
    let run = run_candidate(&out.join("main.py"), &out);
    assert!(
        run.contains("KeyError") && run.contains("registry has no handler"),
        "{run}"
    );
    let size = |p: &Path| std::fs::read_to_string(p).unwrap().len();
    assert!(size(&out.join("main.py")) < size(&entry), "{said}");
}

/// Two modules defining the same name differently (`limit`), both needed by frozen code: the
/// single file keeps both definitions, the later module's renamed, and reproduces on its own.
#[test]
fn a_name_two_modules_define_is_renamed_in_the_single_file() {
    let dir = tempfile::tempdir().unwrap();
    let project = dir.path().join("project");
    std::fs::create_dir_all(&project).unwrap();
    std::fs::write(project.join("a.py"), "def limit():\n    return 10\n").unwrap();
    std::fs::write(
        project.join("b.py"),
        "def limit():\n    return 3\n\n\ndef check(n):\n    if n > limit():  # autodd: freeze\n\
         \x20       raise ValueError('over the limit: %d' % n)  # autodd: freeze\n",
    )
    .unwrap();
    let entry = project.join("main.py");
    std::fs::write(
        &entry,
        "from a import limit\nfrom b import check\n\ncheck(limit())  # autodd: freeze\n",
    )
    .unwrap();
    let mut outputs = Vec::new();
    for jobs in ["1", "3"] {
        let out = dir.path().join(format!("out{jobs}.py"));
        let assert = python_command(&entry, "over the limit", &out)
            .arg("--root")
            .arg(&project)
            .args(["-j", jobs])
            .assert()
            .code(0);
        let said = all_output(assert.get_output());
        assert!(said.contains("one standalone file"), "{said}");
        outputs.push(std::fs::read_to_string(&out).unwrap());
    }
    assert_eq!(outputs[0], outputs[1], "-j 1 and -j 3 differ");
    let text = &outputs[0];
    let definitions = text.lines().filter(|l| l.starts_with("def limit")).count();
    assert_eq!(
        definitions, 2,
        "both definitions of `limit` stay, one renamed:\n{text}"
    );
    assert!(!text.contains("import"), "{text}");
    // The frozen comparison now reads the renamed (b's) definition, the call a's.
    assert!(text.contains("if n > limit_"), "{text}");
    let fresh = tempfile::tempdir().unwrap();
    let alone = fresh.path().join("repro.py");
    std::fs::write(&alone, text).unwrap();
    let run = run_candidate(&alone, fresh.path());
    assert!(run.contains("ValueError: over the limit"), "{run}");
}
