//! `minrepro file` end to end through the binary: C-Reduce's `TEST FILE...` form and the
//! `--predicate` form, `-o` for a file and for a tree, `--in-place`, whole-file removal, a word
//! substituted, binary files, bad inputs, SIGINT, and identical results for -j 1 and -j 3.
//! Predicates are real shell scripts run by /bin/sh.

use std::fs;
use std::path::{Path, PathBuf};
use std::process::Output;

use minrepro_testkit::temp_file;

use crate::support::{assert_file_holds, assert_success, interrupt_once_smaller, run_in, stderr};

const C_SOURCE: &str = "/* A small program. */\n#include <stdio.h>\n\nstatic int square(int x)\n{\n    return x * x;\n}\n\nint helper(int a, int b)\n{\n    int unused = 42;\n    return square(a) + b; // the sum\n}\n\nint main(void)\n{\n    printf(\"%d\\n\", helper(3, 4));\n    return 0;\n}\n";

/// An executable shell script `name` in `dir` with `body`.
fn script(dir: &Path, name: &str, body: &str) -> PathBuf {
    crate::support::script(dir, name, &format!("#!/bin/sh\n{body}\n"))
}

/// `minrepro file ARGS` run in `dir`, with its temporary files there too.
pub(crate) fn minrepro(dir: &Path, args: &[&str]) -> Output {
    run_in(dir, &[&["file"], args].concat())
}

/// No temporary directory of minrepro is left in `dir`.
fn no_leftovers(dir: &Path) {
    let left: Vec<String> = fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.starts_with(".tmp") || n.starts_with("minrepro"))
        .collect();
    assert!(left.is_empty(), "left behind: {left:?}");
}

/// Reduces `source` as `prog.c` in a fresh directory into `small.c` with the test `test`;
/// asserts the run succeeded, cut the file to under a third, left `prog.c` alone and no
/// temporary directory behind. Returns the run and the reduced bytes.
fn reduce_prog(source: &[u8], test: &str) -> (Output, Vec<u8>) {
    let (dir, prog) = temp_file("prog.c", source);
    script(dir.path(), "interesting.sh", test);
    let out = minrepro(
        dir.path(),
        &["./interesting.sh", "prog.c", "-o", "small.c", "-q"],
    );
    assert_success(&out);
    let small = fs::read(dir.path().join("small.c")).unwrap();
    let shown = String::from_utf8_lossy(&small);
    assert!(small.len() < source.len() / 3, "{shown:?}");
    assert_file_holds(&prog, source);
    no_leftovers(dir.path());
    (out, small)
}

#[test]
fn test_script_form_reduces_a_c_file_and_leaves_the_input_alone() {
    // Interesting while `square` is defined and still called with a product.
    let test =
        "grep -q 'square(int x)' prog.c && grep -q 'x \\* x' prog.c && grep -q 'square(a)' prog.c";
    let (out, small) = reduce_prog(C_SOURCE.as_bytes(), test);
    let small = String::from_utf8(small).unwrap();
    for needle in ["square(int x)", "x * x", "square(a)"] {
        assert!(small.contains(needle), "{needle} lost: {small:?}");
    }
    assert!(
        !small.contains("printf") && !small.contains("unused"),
        "{small:?}"
    );
    assert!(String::from_utf8_lossy(&out.stdout).contains("minrepro file: wrote small.c"));
}

#[test]
fn predicate_form_with_placeholders_and_exit_code() {
    let dir = tempfile::tempdir().unwrap();
    let doc = "{\n  \"name\": \"demo\",\n  \"items\": [1, 2, 3, {\"deep\": \"needle\"}],\n  \"other\": {\"a\": true, \"b\": null}\n}\n";
    fs::write(dir.path().join("doc.json"), doc).unwrap();
    let stats = dir.path().join("stats.json");
    let out = minrepro(
        dir.path(),
        &[
            "doc.json",
            "--predicate",
            "sh",
            "--predicate-arg=-c",
            "--predicate-arg=grep -q needle \"$0\" && test -d \"$1\" && exit 3",
            "--predicate-arg={file}",
            "--predicate-arg={workspace}",
            "--interesting-exit-code",
            "3",
            "-o",
            "out.json",
            "--stats-json",
            stats.to_str().unwrap(),
            "-q",
        ],
    );
    assert_success(&out);
    let result = fs::read_to_string(dir.path().join("out.json")).unwrap();
    assert_eq!(result.trim(), "\"needle\"", "{result:?}");
    let stats: serde_json::Value =
        serde_json::from_str(&fs::read_to_string(&stats).unwrap()).unwrap();
    assert_eq!(stats["complete"], true);
    assert!(stats["predicate_runs"].as_u64().unwrap() > 5);
    assert!(stats["size_after"].as_u64() < stats["size_before"].as_u64());
}

#[test]
fn in_place_keeps_the_original_and_refuses_to_overwrite_it() {
    let original = "import os\nx = 1\nif x:\n    print('keep me')\n    y = 2\n";
    let (dir, _) = temp_file("a.py", original);
    script(dir.path(), "t.sh", "grep -q 'keep me' a.py");
    assert_success(&minrepro(
        dir.path(),
        &["./t.sh", "a.py", "--in-place", "-q"],
    ));
    assert_file_holds(&dir.path().join("a.py.orig"), original);
    let reduced = fs::read_to_string(dir.path().join("a.py")).unwrap();
    assert_eq!(reduced.trim(), "'keep me'");
    let again = minrepro(dir.path(), &["./t.sh", "a.py", "--in-place", "-q"]);
    assert_eq!(again.status.code(), Some(1));
    assert!(stderr(&again).contains("a.py.orig already exists"));
    assert_eq!(
        reduced,
        fs::read_to_string(dir.path().join("a.py")).unwrap()
    );
}

/// A source tree: a header the test needs, a file it does not, a binary file it needs (kept
/// byte for byte) and one it does not.
fn tree(dir: &Path) -> Vec<u8> {
    let src = dir.join("src");
    fs::create_dir_all(src.join("include")).unwrap();
    fs::write(
        src.join("main.c"),
        "#include \"include/api.h\"\nint main(void) { return api_call(1, 2); }\n",
    )
    .unwrap();
    fs::write(
        src.join("include/api.h"),
        "// API\nint api_call(int a, int b);\nint api_other(void);\n",
    )
    .unwrap();
    fs::write(
        src.join("README.txt"),
        "Notes about the project.\nNothing needed here.\n",
    )
    .unwrap();
    let blob: Vec<u8> = (0u8..=255).cycle().take(600).collect();
    fs::write(src.join("data.bin"), &blob).unwrap();
    fs::write(src.join("junk.bin"), [0u8, 159, 146, 150, 0]).unwrap();
    blob
}

#[test]
fn trees_lose_unneeded_files_and_keep_binary_files_whole() {
    let dir = tempfile::tempdir().unwrap();
    let blob = tree(dir.path());
    script(
        dir.path(),
        "t.sh",
        "grep -q 'api_call(int' src/include/api.h && grep -q 'api_call(1' src/main.c && \
         test \"$(od -An -tu1 src/data.bin | wc -w)\" = 600",
    );
    assert_success(&minrepro(dir.path(), &["./t.sh", "src", "-o", "out", "-q"]));
    let out = dir.path().join("out");
    let mut names: Vec<String> = walk(&out);
    names.sort();
    assert_eq!(
        names,
        ["src/data.bin", "src/include/api.h", "src/main.c"],
        "unneeded files are removed whole"
    );
    assert_eq!(fs::read(out.join("src/data.bin")).unwrap(), blob);
    // The needle and at most one character more (a word substituted by a digit and joined
    // to it has the same token count).
    let header = fs::read_to_string(out.join("src/include/api.h")).unwrap();
    let header = header.trim();
    assert!(
        header.ends_with("api_call(int") && header.len() <= "api_call(int".len() + 1,
        "{header:?}"
    );
    assert!(
        dir.path().join("src/README.txt").exists(),
        "inputs untouched"
    );
}

fn walk(dir: &Path) -> Vec<String> {
    let mut out = Vec::new();
    for entry in fs::read_dir(dir).unwrap() {
        let entry = entry.unwrap();
        if entry.file_type().unwrap().is_dir() {
            let prefix = entry.file_name().to_string_lossy().into_owned();
            out.extend(
                walk(&entry.path())
                    .into_iter()
                    .map(|n| format!("{prefix}/{n}")),
            );
        } else {
            out.push(entry.file_name().to_string_lossy().into_owned());
        }
    }
    out
}

#[test]
fn a_latin1_file_is_reduced_and_keeps_its_bytes() {
    // latin-1 bytes (0xe9 is 'é'): not UTF-8, so minrepro file reads it byte for character.
    let source = C_SOURCE
        .replace("A small program.", "Un petit caf\u{e9}.")
        .replace("the sum", "r\u{e9}sum\u{e9}");
    let bytes: Vec<u8> = source
        .chars()
        .map(|c| u8::try_from(u32::from(c)).unwrap())
        .collect();
    assert!(String::from_utf8(bytes.clone()).is_err());
    // Interesting while the latin-1 byte of the comment and the product are there.
    let test = "grep -q \"$(printf 'caf\\351')\" prog.c && grep -q 'x \\* x' prog.c";
    let (_, small) = reduce_prog(&bytes, test);
    assert!(small.windows(4).any(|w| w == b"caf\xe9"), "{small:?}");
    assert!(
        !small.windows(2).any(|w| w == "\u{e9}".as_bytes()),
        "written as UTF-8: {small:?}"
    );
}

#[test]
fn bad_inputs_fail_cleanly() {
    let dir = tempfile::tempdir().unwrap();
    script(dir.path(), "t.sh", "true");
    fs::write(dir.path().join("b.bin"), [0u8, 1, 2]).unwrap();
    // No NUL, not UTF-8, and mostly not ASCII: not text in any encoding minrepro reads.
    fs::write(dir.path().join("c.bin"), [0xffu8, 0xfe, 0x80, b'a', 0x81]).unwrap();
    fs::write(dir.path().join("empty.txt"), "").unwrap();
    // A missing input is a usage error (2), like every other mistake on the command line.
    for (input, words, code) in [
        ("b.bin", "is not a text file", 1),
        ("c.bin", "is not a text file", 1),
        ("empty.txt", "nothing to reduce", 1),
        ("missing.c", "missing.c", 2),
    ] {
        let out = minrepro(dir.path(), &["./t.sh", input, "-o", "o"]);
        assert_eq!(out.status.code(), Some(code), "{input}");
        let message = stderr(&out);
        assert!(message.contains(words), "{input}: {message}");
        assert!(!message.contains("panicked"));
        assert!(!dir.path().join("o").exists());
    }
    fs::write(dir.path().join("a.c"), "int a;\n").unwrap();
    let no_output = minrepro(dir.path(), &["./t.sh", "a.c"]);
    assert_eq!(no_output.status.code(), Some(2));
    assert!(stderr(&no_output).contains("--in-place"));
    script(dir.path(), "never.sh", "exit 1");
    let boring = minrepro(dir.path(), &["./never.sh", "a.c", "-o", "o"]);
    assert_eq!(boring.status.code(), Some(1));
    assert!(!dir.path().join("o").exists());
}

#[test]
fn jobs_do_not_change_the_result() {
    let dir = tempfile::tempdir().unwrap();
    tree(dir.path());
    fs::write(
        dir.path().join("src/main.c"),
        C_SOURCE.replace("helper(3, 4)", "api_call(1, 2)"),
    )
    .unwrap();
    script(
        dir.path(),
        "t.sh",
        "grep -q 'api_call(int' src/include/api.h && grep -q 'api_call(1' src/main.c && grep -q 'x \\* x' src/main.c",
    );
    assert_success(&minrepro(
        dir.path(),
        &["./t.sh", "src", "-o", "one", "-q", "-j", "1"],
    ));
    assert_success(&minrepro(
        dir.path(),
        &["./t.sh", "src", "-o", "three", "-q", "-j", "3"],
    ));
    let (one, three) = (dir.path().join("one"), dir.path().join("three"));
    let mut names = walk(&one);
    names.sort();
    let mut other = walk(&three);
    other.sort();
    assert_eq!(names, other);
    for name in &names {
        assert_eq!(
            fs::read(one.join(name)).unwrap(),
            fs::read(three.join(name)).unwrap(),
            "{name}"
        );
    }
}

/// A two-file C project whose conflict is between the header and the source: the header is
/// inlined into the source (it is included once) and goes; `-j 1` and `-j 3` agree.
#[test]
fn a_header_included_once_is_inlined_and_removed() {
    let dir = tempfile::tempdir().unwrap();
    let proj = dir.path().join("proj");
    fs::create_dir_all(&proj).unwrap();
    fs::write(
        proj.join("main.c"),
        "#include <stdio.h>\n#include \"util.h\"\n\nlong scale(long x) { return x * 2; }\n\nint main(void)\n{\n    printf(\"%ld\\n\", scale(3));\n    return other();\n}\n",
    )
    .unwrap();
    fs::write(
        proj.join("util.h"),
        "#ifndef UTIL_H\n#define UTIL_H\n/* Scales. */\nint scale(int x);\nint other(void);\n#endif\n",
    )
    .unwrap();
    script(
        dir.path(),
        "t.sh",
        "cd proj && LC_ALL=C gcc -c main.c -o /dev/null 2>&1 | grep -q \"conflicting types for 'scale'\"",
    );
    let mut results = Vec::new();
    for (jobs, out) in [("1", "one"), ("3", "three")] {
        assert_success(&minrepro(
            dir.path(),
            &["./t.sh", "proj", "-o", out, "-q", "-j", jobs],
        ));
        let out = dir.path().join(out);
        assert_eq!(
            walk(&out),
            ["proj/main.c"],
            "the header is inlined and gone"
        );
        let main = fs::read_to_string(out.join("proj/main.c")).unwrap();
        assert!(!main.contains("include"), "{main}");
        assert_eq!(main.matches("scale").count(), 2, "{main}");
        results.push(main);
    }
    assert_eq!(results[0], results[1]);
    assert!(proj.join("util.h").exists(), "inputs untouched");
}

#[test]
fn sigint_keeps_the_best_result_so_far() {
    let dir = tempfile::tempdir().unwrap();
    let mut text = String::new();
    for i in 0..40 {
        text.push_str(&format!("line {i} filler words here\n"));
    }
    text.push_str("the needle line\n");
    fs::write(dir.path().join("big.txt"), &text).unwrap();
    script(dir.path(), "slow.sh", "sleep 0.2; grep -q needle big.txt");
    let out = dir.path().join("out.txt");
    // Interrupted once a smaller candidate was accepted.
    let args = ["file", "./slow.sh", "big.txt", "-q", "-o", "out.txt"];
    interrupt_once_smaller(dir.path(), &args, &out, text.len());
    let kept = fs::read_to_string(&out).unwrap();
    assert!(
        kept.contains("needle") && kept.len() < text.len(),
        "{kept:?}"
    );
    assert_file_holds(&dir.path().join("big.txt"), &text);
    no_leftovers(dir.path());
}

#[test]
fn a_name_used_once_more_is_replaced_by_one_already_there() {
    let dir = tempfile::tempdir().unwrap();
    let source = "class Outer {\n    class Inner {}\n    int count;\n    Inner make() {}\n}\n";
    fs::write(dir.path().join("Outer.java"), source).unwrap();
    // Interesting while one class wraps an empty method whose return type is a class declared
    // in the file (javac's "missing return statement" without the compiler).
    let check = "import re, sys\n\
        text = open('Outer.java').read()\n\
        outer = re.fullmatch(r'\\s*class\\s+\\w+\\s*\\{(.*)\\}\\s*', text, re.S)\n\
        declared = set(re.findall(r'class\\s+(\\w+)', text))\n\
        body = outer.group(1) if outer else ''\n\
        depths = [body[:i].count('{') - body[:i].count('}') for i in range(len(body) + 1)]\n\
        balanced = outer is not None and min(depths) == 0 and depths[-1] == 0\n\
        methods = re.findall(r'(\\w+)\\s+\\w+\\s*\\(\\)\\s*\\{\\s*\\}', body) if balanced else []\n\
        sys.exit(0 if any(m in declared for m in methods) else 1)\n";
    // Outside the candidate directory the test runs in.
    let checker = dir.path().join("check.py");
    fs::write(&checker, check).unwrap();
    let body = format!("python3 -S '{}'", checker.display());
    script(dir.path(), "interesting.sh", &body);
    let out = minrepro(
        dir.path(),
        &[
            "./interesting.sh",
            "Outer.java",
            "--language",
            "none",
            "-o",
            "small.java",
            "-q",
        ],
    );
    assert_success(&out);
    let small = fs::read_to_string(dir.path().join("small.java")).unwrap();
    // Without the substitution of a return type by the outer class's name the nested class
    // stays (`class b{class c d(){}}`); with it, it goes.
    assert_eq!(small.matches("class").count(), 1, "{small:?}");
    assert!(!small.contains("count"), "{small:?}");
    no_leftovers(dir.path());
}
