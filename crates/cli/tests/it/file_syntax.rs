//! `minrepro file` with tree-sitter grammars, end to end through the binary: one case per
//! language, judged by the real compiler or interpreter where it is installed (gcc, g++, rustc,
//! node, python3; Java by grep, javac being too slow) and else by grep; the result still
//! reproduces, is much smaller, and (for the cheap predicates: gcc, grep) is byte-identical for
//! -j 1 and -j 3. The cases (sources, tests, expectations) are the table
//! `crates/cli/tests/fixtures/file/cases.json`. Also `--list-languages`, `--language` for an
//! unknown extension, and an unknown language.

use std::fs;
use std::path::Path;
use std::process::{Command, Output};

use crate::support::{self, assert_fails, minrepro, repo_root, stderr, stdout};

/// Whether `tool` is on the PATH.
fn have(tool: &str) -> bool {
    Command::new("sh")
        .args(["-c", &format!("command -v {tool}")])
        .output()
        .is_ok_and(|o| o.status.success())
}

/// Runs `minrepro file` in `dir` with `args`, asserting success. Without NODE_EXTRA_CA_CERTS:
/// no case uses the network, and loading a certificate bundle given there costs every `node`
/// start about 100 ms (three times its start-up) where the environment sets it.
fn reduce(dir: &Path, args: &[&str]) -> Output {
    let out = minrepro()
        .arg("file")
        .args(args)
        .current_dir(dir)
        .env("TMPDIR", dir)
        .env_remove("NODE_EXTRA_CA_CERTS")
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", stderr(&out));
    out
}

/// The strings of a case's list `key` (none when it is absent).
fn strings<'a>(case: &'a serde_json::Value, key: &str) -> Vec<&'a str> {
    case[key].as_array().map_or(Vec::new(), |a| {
        a.iter().map(|s| s.as_str().unwrap()).collect()
    })
}

/// Reduces the case `name` of the table with `-j` for each of its `jobs`, and checks the result:
/// identical for every `-j`, still passing the test in a fresh directory, at most 1/`shrink` of
/// the original's tokens (from --stats-json), with every `keeps` and no `drops` string.
fn check(name: &str) {
    let fixtures = repo_root().join("crates/cli/tests/fixtures/file");
    let table = support::json(&fixtures.join("cases.json"));
    let case = &table["cases"][name];
    let text = |key: &str| case[key].as_str();
    let file = text("file").unwrap();
    let source = fs::read_to_string(fixtures.join(file)).unwrap();
    let test = text("test").unwrap();
    let body = if have(text("tool").unwrap()) {
        test
    } else {
        text("fallback").unwrap_or(test)
    };
    let dir = tempfile::tempdir().unwrap();
    fs::write(dir.path().join(file), &source).unwrap();
    support::script(dir.path(), "test.sh", &format!("#!/bin/sh\n{body}\n"));
    let mut results: Vec<(String, serde_json::Value)> = Vec::new();
    for j in strings(case, "jobs") {
        let (out, stats) = (format!("out-{j}-{file}"), format!("stats-{j}.json"));
        let args = [
            "./test.sh",
            file,
            "-o",
            &out,
            "-q",
            "-j",
            j,
            "--stats-json",
            &stats,
        ];
        reduce(dir.path(), &args);
        let text = fs::read_to_string(dir.path().join(&out)).unwrap();
        results.push((text, support::json(&dir.path().join(stats))));
    }
    let (text, stats) = results[0].clone();
    for (other, _) in &results[1..] {
        assert_eq!(&text, other, "{file}: -j 1 and -j 3 differ");
    }
    for needle in strings(case, "keeps") {
        assert!(text.contains(needle), "{file}: {needle:?} lost: {text}");
    }
    for gone in strings(case, "drops") {
        assert!(!text.contains(gone), "{file}: {gone:?} kept: {text}");
    }
    let tokens = |key: &str| stats[key].as_u64().unwrap();
    let (before, after) = (tokens("size_before"), tokens("size_after"));
    let shrink = case["shrink"].as_u64().unwrap();
    assert!(
        after * shrink < before,
        "{file}: {before} -> {after}: {text}"
    );
    if file.ends_with(".json") {
        // What stays parses (the grammar's checks refuse broken candidates).
        let value: serde_json::Value = serde_json::from_str(&text).unwrap();
        assert!(value.to_string().contains("needle"), "{text}");
    }
    // The result still reproduces: the test passes on it in a fresh directory.
    let check = tempfile::tempdir().unwrap();
    fs::write(check.path().join(file), &text).unwrap();
    let status = Command::new("sh")
        .arg("-c")
        .arg(body)
        .current_dir(check.path())
        .status()
        .unwrap();
    assert!(
        status.success(),
        "{file}: the result does not reproduce: {text}"
    );
}

/// One test a case of the table, named as the case.
macro_rules! cases {
    ($($name:ident),*) => {
        $(
            #[test]
            fn $name() {
                check(stringify!($name));
            }
        )*
    };
}

cases!(c, cpp, rust, javascript, java, python, json, llvm, go, typescript, bash, cuda);

#[test]
fn list_languages_names_every_grammar_and_language_overrides_the_extension() {
    let out = minrepro()
        .args(["file", "--list-languages"])
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", stderr(&out));
    let listed = stdout(&out);
    let names: Vec<&str> = listed
        .lines()
        .filter_map(|l| l.split_whitespace().next())
        .collect();
    let grammars = "bash c cpp cuda go java javascript json llvm python rust tsx typescript";
    assert_eq!(names.join(" "), grammars, "{listed}");
    assert!(listed.contains(".rs") && listed.contains(".ll"), "{listed}");

    // A .txt file: by extension only the language-independent passes; --language c parses
    // it, so no candidate with a broken brace structure is ever run.
    let dir = tempfile::tempdir().unwrap();
    let source = "int f(int a) { return a; }\nint g(int b) { return f(b) + 1; }\n";
    fs::write(dir.path().join("prog.txt"), source).unwrap();
    let log = dir.path().join("seen.log");
    let body = format!(
        "#!/bin/sh\ncat prog.txt >> {}\necho ==== >> {}\ngrep -q 'f(b)' prog.txt\n",
        log.display(),
        log.display()
    );
    support::script(dir.path(), "test.sh", &body);
    reduce(
        dir.path(),
        &[
            "./test.sh",
            "prog.txt",
            "-o",
            "c.txt",
            "-q",
            "--language",
            "c",
        ],
    );
    let seen = fs::read_to_string(&log).unwrap();
    for candidate in seen.split("====\n").filter(|c| !c.is_empty()) {
        assert_eq!(
            candidate.matches('{').count(),
            candidate.matches('}').count(),
            "a candidate with unbalanced braces ran: {candidate:?}"
        );
    }
    let reduced = fs::read_to_string(dir.path().join("c.txt")).unwrap();
    assert!(
        reduced.contains("f(b)") && reduced.len() < source.len(),
        "{reduced}"
    );

    let bad = minrepro()
        .args([
            "file",
            "./test.sh",
            "prog.txt",
            "-o",
            "x.txt",
            "--language",
            "cobol",
        ])
        .current_dir(dir.path())
        .output()
        .unwrap();
    assert_fails(&bad, 2, "unknown --language cobol");
}

#[test]
fn c_functions_are_inlined_and_an_array_of_structs_made_one_scalar() {
    // A wrong value computed through a helper function and an array of accounts, judged by
    // gcc and the program's output (the bench's c_wrong_value in small). Without warnings: a
    // body that lost its `return` still "returns" its last value at -O0.
    let source = "#include <stdio.h>\n\
        struct account { long balance; int kind; };\n\
        static struct account accounts[4];\n\
        static long fee(long amount)\n{\n    long f = amount / 100;\n    return f > 0 ? f : 1;\n}\n\
        int main(void)\n{\n    int bank = 2;\n    accounts[bank].balance = 7300;\n\
        accounts[bank].balance -= fee(accounts[bank].balance);\n\
        printf(\"bank %ld\\n\", accounts[bank].balance);\n    return 0;\n}\n";
    let dir = tempfile::tempdir().unwrap();
    fs::write(dir.path().join("ledger.c"), source).unwrap();
    let test = "grep -q 7227 ledger.c && exit 1\n\
        gcc -Werror=return-type -Werror=implicit-int ledger.c -o prog 2>/dev/null || exit 1\n\
        ./prog | grep -q 'bank 7227'";
    support::script(dir.path(), "test.sh", &format!("#!/bin/sh\n{test}\n"));
    let args = [
        "./test.sh",
        "ledger.c",
        "-o",
        "small.c",
        "-q",
        "--stats-json",
        "stats.json",
    ];
    reduce(dir.path(), &args);
    let small = fs::read_to_string(dir.path().join("small.c")).unwrap();
    let stats = support::json(&dir.path().join("stats.json"));
    // Both rewrites were accepted: `fee` inlined (no function but main is left) and the
    // array made one scalar (no `[` is left: C-Vise's `accounts_0_0`).
    let rewrites = stats["passes"]["syntax-rewrites"]["accepted"].as_u64();
    assert!(rewrites >= Some(2), "{stats}\n{small}");
    assert!(!small.contains('['), "{small}");
    assert_eq!(small.matches('{').count(), 1, "{small}");
    let check = tempfile::tempdir().unwrap();
    fs::write(check.path().join("ledger.c"), &small).unwrap();
    let status = Command::new("sh")
        .args(["-c", test])
        .current_dir(check.path())
        .status()
        .unwrap();
    assert!(status.success(), "the result does not reproduce: {small}");
}
