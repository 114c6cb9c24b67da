//! `minrepro file` with tree-sitter grammars, end to end through the binary: one case per
//! language, judged by the real compiler or interpreter where it is installed (gcc, g++, rustc,
//! node, python3; javac checks a grep-judged result once) and else by grep; the result still
//! reproduces, is much smaller, and (for the cheap predicates: gcc, grep) is byte-identical for
//! -j 1 and -j 3. Also `--list-languages`, `--language` for an unknown extension, and an
//! unknown language.

use std::fs;
use std::path::Path;
use std::process::{Command, Output};

use crate::support::{assert_fails, binary, json, stderr};

/// Whether `tool` is on the PATH.
fn have(tool: &str) -> bool {
    Command::new("sh")
        .args(["-c", &format!("command -v {tool}")])
        .output()
        .is_ok_and(|o| o.status.success())
}

/// Runs `minrepro file` in `dir` with `args`, asserting success.
fn reduce(dir: &Path, args: &[&str]) -> Output {
    let out = Command::new(binary())
        .arg("file")
        .args(args)
        .current_dir(dir)
        .env("TMPDIR", dir)
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", stderr(&out));
    out
}

/// One language's case: its file, the test script's body (the real tool when `tool` is
/// installed, else `fallback`), and text the result must keep.
struct Case {
    file: &'static str,
    source: &'static str,
    tool: &'static str,
    test: &'static str,
    fallback: &'static str,
    keeps: &'static [&'static str],
    /// Run once on the result when `tool` is installed (for tools too slow to be the predicate).
    verify: Option<&'static str>,
}

/// Reduces `case` with `-j` for each of `jobs` (results must be identical); returns the result
/// and the tokens before and after (from --stats-json).
fn run_case(case: &Case, jobs: &[&str]) -> (String, u64, u64) {
    let dir = tempfile::tempdir().unwrap();
    fs::write(dir.path().join(case.file), case.source).unwrap();
    let tool = have(case.tool);
    let body = if tool { case.test } else { case.fallback };
    crate::support::script(dir.path(), "test.sh", &format!("#!/bin/sh\n{body}\n"));
    let mut results: Vec<(String, serde_json::Value)> = Vec::new();
    for j in jobs {
        let (out, stats) = (format!("out-{j}-{}", case.file), format!("stats-{j}.json"));
        reduce(
            dir.path(),
            &[
                "./test.sh",
                case.file,
                "-o",
                &out,
                "-q",
                "-j",
                j,
                "--stats-json",
                &stats,
            ],
        );
        let text = fs::read_to_string(dir.path().join(&out)).unwrap();
        results.push((text, json(&dir.path().join(stats))));
    }
    let (text, stats) = results[0].clone();
    for (other, _) in &results[1..] {
        assert_eq!(&text, other, "{}: -j 1 and -j 3 differ", case.file);
    }
    for needle in case.keeps {
        assert!(
            text.contains(needle),
            "{}: {needle:?} lost: {text}",
            case.file
        );
    }
    // The result still reproduces: the test passes on it in a fresh directory.
    let check = tempfile::tempdir().unwrap();
    fs::write(check.path().join(case.file), &text).unwrap();
    let status = Command::new("sh")
        .arg("-c")
        .arg(body)
        .current_dir(check.path())
        .status()
        .unwrap();
    assert!(
        status.success(),
        "{}: the result does not reproduce: {text}",
        case.file
    );
    if let (Some(verify), true) = (case.verify, tool) {
        let status = Command::new("sh")
            .arg("-c")
            .arg(verify)
            .current_dir(check.path())
            .status()
            .unwrap();
        assert!(status.success(), "{}: {verify} fails on {text}", case.file);
    }
    let tokens = |key: &str| stats[key].as_u64().unwrap();
    (text, tokens("size_before"), tokens("size_after"))
}

const C: Case = Case {
    file: "prog.c",
    source: "#include <stdio.h>\n\nstruct pair { int a; int b; };\n\nstatic int sum(struct pair p, int scale)\n{\n    int total = (p.a + p.b) * scale;\n    return total;\n}\n\nint ratio(int x, int y)\n{\n    if (y > 0) {\n        return x / y;\n    } else {\n        return x / 0;\n    }\n}\n\nint main(void)\n{\n    struct pair p = { 1, 2 };\n    printf(\"%d %d\\n\", sum(p, 3), ratio(4, 5));\n    return 0;\n}\n",
    tool: "gcc",
    test: "gcc -Wall -c -o /dev/null prog.c 2>&1 | grep -q 'division by zero'",
    fallback: "grep -q '/ 0' prog.c",
    keeps: &[],
    verify: None,
};

#[test]
fn c_is_reduced_with_gcc_along_the_syntax_and_identically_for_any_j() {
    let (text, before, after) = run_case(&C, &["1", "3"]);
    assert!(after * 5 < before, "{before} -> {after}: {text}");
    assert!(
        !text.contains("printf") && !text.contains("struct"),
        "{text}"
    );
}

#[test]
fn cpp_is_reduced_with_gxx() {
    let case = Case {
        file: "prog.cpp",
        source: "#include <vector>\n\nnamespace geo {\ntemplate <typename T>\nstruct Box {\n    T value;\n    T get() const { return value; }\n    void set(T v) { value = v; }\n};\n}\n\nint area(const geo::Box<int>& b, int scale) {\n    int w = b.get();\n    return w * scale + b.missing();\n}\n\nint main() {\n    std::vector<int> xs{1, 2, 3};\n    geo::Box<int> b{xs[0]};\n    b.set(4);\n    return area(b, 2);\n}\n",
        tool: "g++",
        test: "g++ -fsyntax-only prog.cpp 2>&1 | grep 'has no member named' | grep -q missing",
        fallback: "grep -q 'missing()' prog.cpp",
        keeps: &["missing"],
        verify: None,
    };
    let (text, before, after) = run_case(&case, &["3"]);
    assert!(after * 3 < before, "{before} -> {after}: {text}");
    assert!(!text.contains("vector"), "{text}");
}

#[test]
fn rust_is_reduced_with_rustc_error_codes() {
    let case = Case {
        file: "prog.rs",
        source: "struct Point {\n    x: i32,\n    y: i32,\n}\n\nfn norm(p: &Point) -> i32 {\n    p.x * p.x + p.y * p.y\n}\n\nfn main() {\n    let p = Point { x: 3, y: 4 };\n    let n: i32 = norm(&p);\n    let s: String = if n > 0 { n } else { 0 };\n    println!(\"{} {}\", n, s);\n}\n",
        tool: "rustc",
        test: "rustc --edition 2021 --crate-type lib --emit=metadata -o out.rmeta prog.rs 2>&1 | grep -q 'E0308'",
        fallback: "grep -q 'String' prog.rs",
        keeps: &[],
        verify: None,
    };
    let (text, before, after) = run_case(&case, &["3"]);
    assert!(after * 3 < before, "{before} -> {after}: {text}");
    assert!(!text.contains("println"), "{text}");
}

#[test]
fn javascript_is_reduced_with_node() {
    let case = Case {
        file: "prog.js",
        source: "'use strict';\nconst config = { depth: 2, names: ['a', 'b', 'c'] };\n\nfunction pick(list, i) {\n  return i < list.length ? list[i] : undefined;\n}\n\nfunction shout(word) {\n  return word.toUpperCase() + '!';\n}\n\nfor (let i = 0; i < config.depth; i++) {\n  console.log(shout(pick(config.names, i)));\n}\nconsole.log(shout(pick(config.names, 7)));\n",
        tool: "node",
        test: "node prog.js 2>&1 | grep -q \"TypeError.*'toUpperCase'\"",
        fallback: "grep -q 'toUpperCase' prog.js",
        keeps: &["toUpperCase"],
        verify: None,
    };
    let (text, before, after) = run_case(&case, &["3"]);
    assert!(after * 3 < before, "{before} -> {after}: {text}");
}

#[test]
fn java_is_reduced_with_javac() {
    let case = Case {
        file: "Prog.java",
        source: "class Prog {\n  static int twice(int x) { return 2 * x; }\n  public static void main(String[] args) {\n    int n = twice(3);\n    String s = \"a\" + n;\n    int bad = s;\n    System.out.println(n + bad);\n  }\n}\n",
        // javac takes about a second a run: grep judges, javac checks the result once.
        tool: "javac",
        test: "grep -q class Prog.java && grep -q 'String s' Prog.java && grep -q 'int bad = s' Prog.java",
        fallback: "grep -q class Prog.java && grep -q 'String s' Prog.java && grep -q 'int bad = s' Prog.java",
        keeps: &[],
        verify: Some("javac -d out Prog.java 2>&1 | grep -q 'incompatible types'"),
    };
    let (text, before, after) = run_case(&case, &["3"]);
    assert!(after * 2 < before, "{before} -> {after}: {text}");
    assert!(
        !text.contains("println") && !text.contains("twice"),
        "{text}"
    );
}

#[test]
fn python_is_reduced_with_python3() {
    let case = Case {
        file: "prog.py",
        source: "import sys\n\n\ndef mean(xs):\n    if not xs:\n        return 0\n    return sum(xs) / len(xs)\n\n\ndef spread(xs):\n    m = mean(xs)\n    return max(xs) - m, min(xs) - m\n\n\nprint(spread([1, 2, 3]), file=sys.stdout)\nprint(1 / (len(sys.argv) - 1))\n",
        tool: "python3",
        test: "python3 prog.py 2>&1 | grep -q ZeroDivisionError",
        fallback: "grep -q '1 /' prog.py",
        keeps: &[],
        verify: None,
    };
    let (text, before, after) = run_case(&case, &["3"]);
    assert!(after * 3 < before, "{before} -> {after}: {text}");
    assert!(!text.contains("def spread"), "{text}");
}

/// Languages judged by grep here: what must stay is one line; everything else can go, and
/// what stays parses (the grammar's checks refuse broken candidates).
#[test]
fn json_llvm_go_typescript_bash_and_cuda_keep_only_what_grep_needs_identically_for_any_j() {
    let cases = [
        ("data.json", "{\n  \"name\": \"demo\",\n  \"items\": [1, 2, {\"needle\": true}, 4],\n  \"nested\": {\"a\": [\"x\", \"y\"], \"b\": null}\n}\n", "needle"),
        ("mod.ll", "define i32 @helper(i32 %a) {\n  %b = add i32 %a, 1\n  ret i32 %b\n}\n\ndefine i32 @main() {\nentry:\n  %x = call i32 @helper(i32 2)\n  %needle = mul i32 %x, 3\n  ret i32 %needle\n}\n", "needle"),
        ("main.go", "package main\n\nimport \"fmt\"\n\nfunc helper(a int, b int) int {\n\treturn a + b\n}\n\nfunc main() {\n\tneedle := helper(1, 2)\n\tfmt.Println(needle, helper(3, 4))\n}\n", "needle"),
        ("app.ts", "interface Shape { area(): number; }\nclass Sq implements Shape {\n  constructor(private s: number) {}\n  area(): number { return this.s * this.s; }\n}\nconst needle: Shape = new Sq(2);\nconsole.log(needle.area());\n", "needle"),
        ("run.sh", "#!/bin/sh\nset -e\nhelper() {\n  echo \"$1\"\n}\nfor x in a b c; do\n  helper \"$x\"\ndone\nneedle=1\necho done\n", "needle"),
        ("k.cu", "__global__ void scale(float *a, float s, int n) {\n  int i = blockIdx.x * blockDim.x + threadIdx.x;\n  if (i < n) { a[i] *= s; }\n}\n\nint main() {\n  float *needle;\n  scale<<<1, 32>>>(needle, 2.0f, 32);\n  return 0;\n}\n", "needle"),
    ];
    for (file, source, needle) in cases {
        let case = Case {
            file,
            source,
            tool: "grep",
            test: "",
            fallback: "",
            keeps: &[],
            verify: None,
        };
        let test = format!("grep -q {needle} {file}");
        let case = Case {
            test: Box::leak(test.clone().into_boxed_str()),
            fallback: Box::leak(test.into_boxed_str()),
            ..case
        };
        let (text, before, after) = run_case(&case, &["1", "3"]);
        assert!(after * 3 < before, "{file}: {before} -> {after}: {text}");
        if file.ends_with(".json") {
            let value: serde_json::Value = serde_json::from_str(&text).unwrap();
            assert!(value.to_string().contains(needle), "{text}");
        }
    }
}

#[test]
fn list_languages_names_every_grammar_and_language_overrides_the_extension() {
    let out = Command::new(binary())
        .args(["file", "--list-languages"])
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", stderr(&out));
    let listed = String::from_utf8_lossy(&out.stdout);
    for name in [
        "bash",
        "c",
        "cpp",
        "cuda",
        "go",
        "java",
        "javascript",
        "json",
        "llvm",
        "python",
        "rust",
        "typescript",
    ] {
        assert!(
            listed
                .lines()
                .any(|l| l.split_whitespace().next() == Some(name)),
            "{name} missing: {listed}"
        );
    }
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
    crate::support::script(dir.path(), "test.sh", &body);
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

    let bad = Command::new(binary())
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
