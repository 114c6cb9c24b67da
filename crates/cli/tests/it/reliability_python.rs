//! Reliability of `minrepro python`: bad and odd sources, hostile candidates with both backends,
//! signals during a reduction, a corrupt cache, and a large source with `-j 8`. Afterwards, in
//! every case: the source is byte-identical, the private TMPDIR is empty, no process of ours is
//! alive (found by the run tag every candidate, helper interpreter and their descendants carry,
//! and by the pids candidates recorded), and the output is absent or a valid Python program that
//! still reproduces the failure.

use std::process::{Command as StdCommand, Stdio};
use std::time::{Duration, Instant};

use crate::support::procs::*;
use crate::support::python::*;
use crate::support::*;

#[test]
fn bad_python_sources_are_rejected_before_any_run() {
    let raise = "raise ValueError('needle')\n";
    let deep = |open: &str, close: &str, n: usize| {
        format!("x = {}1{}\n{raise}", open.repeat(n), close.repeat(n))
    };
    let mut nested_blocks = String::new();
    for depth in 0..150 {
        nested_blocks.push_str(&format!("{}if True:\n", " ".repeat(depth)));
    }
    nested_blocks.push_str(&format!("{}{raise}", " ".repeat(150)));
    let source = |text: &str| format!("{text}{raise}").into_bytes();
    let encoded = |head: &[u8]| [head, raise.as_bytes()].concat();
    // A table: one case a line.
    #[rustfmt::skip]
    let cases: Vec<(&str, Vec<u8>, &str)> = vec![
        ("NUL byte", source("x = 1\ny = 2\0\n"), "line 2: source code cannot contain NUL bytes"),
        ("invalid UTF-8", encoded(b"x = 1\ny = '\xff\xfe'\n"), "is not UTF-8 text: line 2"),
        (
            "a multi-byte coding declaration (valid for CPython, not supported)",
            encoded(b"# -*- coding: shift_jis -*-\nx = '\x83\x41'\n"),
            "declares the encoding shift_jis, which minrepro does not support",
        ),
        (
            "a byte the declared encoding does not define",
            encoded(b"# coding: cp1252\nx = '\x81'\n"),
            "is not valid Python: line 2: cannot decode byte 0x81 as cp1252",
        ),
        ("an unknown encoding", source("# coding: no-such-codec\n"), "is not valid Python: unknown encoding: no-such-codec"),
        ("tabs and spaces mixed inconsistently", source("if True:\n\tx = 1\n        y = 2\n"), "is not valid Python"),
        ("unterminated triple-quoted string", source("x = '''abc\n"), "is not valid Python"),
        ("syntax error", source("def f(:\n    pass\n"), "is not valid Python"),
        ("3,000 nested parentheses", deep("(", ")", 3000).into_bytes(), "too many nested parentheses"),
        ("30,000 nested lists", deep("[", "]", 30000).into_bytes(), "too many nested parentheses"),
        ("100,000 unary minus", deep("-", "", 100_000).into_bytes(), "too complex"),
        ("150 nested blocks", nested_blocks.into_bytes(), "too many levels of indentation"),
        ("form feed in a syntax error", source("x = (\x0c\n"), "is not valid Python"),
    ];
    for (label, bytes, expected) in cases {
        for backend in ["runner", "subproc"] {
            let area = Area::new();
            let source = area.write_input("bad.py", &bytes);
            let (predicate, marker) = marker_predicate(&area.input());
            let predicate = predicate.to_string_lossy().into_owned();
            for extra in [
                vec!["--err-msg", "needle", "--backend", backend],
                vec![
                    "--err-msg",
                    "needle",
                    "--predicate",
                    &predicate,
                    "--predicate-arg",
                    "{file}",
                ],
            ] {
                let (_, output) = area.python_run(&source, &extra);
                assert_eq!(output.status.code(), Some(1), "{label}: {output:?}");
                let line = one_error_line(&output);
                assert!(
                    line.starts_with("minrepro python: error: ") && line.contains("bad.py"),
                    "{label}: {line}"
                );
                assert!(line.contains(expected), "{label}: {line}");
                assert!(!marker.exists(), "{label}: the predicate ran");
                assert!(!area.out_py().exists(), "{label}: output written");
                assert_eq!(std::fs::read(&source).unwrap(), bytes, "{label}");
                area.assert_tmp_empty();
            }
        }
    }
}

#[test]
fn odd_but_valid_sources_reduce() {
    let raise = "raise ValueError('needle')";
    let mut nested_blocks = String::new();
    for depth in 0..90 {
        nested_blocks.push_str(&format!("{}if True:\n", " ".repeat(depth)));
    }
    nested_blocks.push_str(&format!("{}x = 1\n{raise}\n", " ".repeat(90)));
    let cases: Vec<(&str, Vec<u8>)> = vec![
        (
            "BOM",
            format!("\u{feff}x = 1\ny = 2\n{raise}\n").into_bytes(),
        ),
        (
            "CRLF",
            format!("x = 1\r\nif x:\r\n    y = 2\r\n{raise}\r\n").into_bytes(),
        ),
        (
            "tabs",
            format!("if True:\n\tx = 1\n\tif x:\n\t\ty = 2\n\t\t{raise}\n").into_bytes(),
        ),
        (
            "no final newline, form feed, non-ASCII",
            format!("\x0cnäme = 'ü'\nprint(näme)\n{raise}").into_bytes(),
        ),
        (
            "150 nested parentheses",
            format!("x = {}1{}\n{raise}\n", "(".repeat(150), ")".repeat(150)).into_bytes(),
        ),
        ("90 nested blocks", nested_blocks.into_bytes()),
    ];
    for (label, bytes) in cases {
        reduces_and_still_fails(label, &bytes);
    }
}

/// A test of its own: the longest reduction of the suite runs beside the others instead of
/// after the small odd sources.
#[test]
fn fifty_thousand_lines_reduce() {
    let mut text = String::new();
    for i in 0..50_000 {
        text.push_str(&format!("v{i} = {i}\n"));
    }
    text.push_str("raise ValueError('needle')\n");
    reduces_and_still_fails("50,000 lines", text.as_bytes());
}

/// Reduces `bytes` for `--err-msg needle`: success, a smaller output that still fails, the
/// source unchanged and TMPDIR empty.
fn reduces_and_still_fails(label: &str, bytes: &[u8]) {
    let area = Area::new();
    let source = area.write_input("odd.py", bytes);
    let (_, output) = area.python_run(&source, &["--err-msg", "needle"]);
    assert!(
        output.status.success(),
        "{label}: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    assert_output_reproduces(&area, "needle");
    let reduced = std::fs::read(area.out_py()).unwrap();
    assert!(reduced.len() < bytes.len(), "{label}: not reduced");
    assert_eq!(std::fs::read(&source).unwrap(), bytes, "{label}");
    area.assert_tmp_empty();
}

#[test]
fn pep_263_encodings_are_decoded_and_written_back() {
    // The needle depends on the decoded characters: decoding the bytes any other way (as UTF-8,
    // or writing candidates back as UTF-8) changes the number or fails.
    let cases: Vec<(&str, Vec<u8>, &str, &[u8])> = vec![
        (
            "latin-1 on line 1",
            b"# -*- coding: latin-1 -*-\nimport sys\ns = 'caf\xe9'\nt = [1, 2]\nfor x in t:\n    print(x)\nraise ValueError('needle %d' % ord(s[-1]))\n".to_vec(),
            "needle 233",
            b"\xe9",
        ),
        (
            "cp1252 on line 2 after a shebang, CRLF",
            b"#!/usr/bin/env python3\r\n# vim: set fileencoding=cp1252 :\r\nu = 1\r\ns = '\x80\x80'\r\nraise ValueError('needle %d' % sum(map(ord, s)))\r\n".to_vec(),
            "needle 16728",
            b"\x80",
        ),
        (
            "koi8-r (Cyrillic)",
            b"# coding: koi8-r\nname = '\xc1\xc2'\nn = len(name.encode('utf-8'))\nraise ValueError('needle %d' % n)\n".to_vec(),
            "needle 4",
            b"\xc1\xc2",
        ),
        (
            "latin-1, only ASCII left after reduction",
            b"# coding: latin-1\nunused = '\xe9'\nraise ValueError('needle')\n".to_vec(),
            "needle",
            b"",
        ),
    ];
    for (label, bytes, needle, kept) in cases {
        for backend in ["runner", "subproc"] {
            let area = Area::new();
            let source = area.write_input("coded.py", &bytes);
            let (_, output) =
                area.python_run(&source, &["--err-msg", needle, "--backend", backend]);
            let stderr = String::from_utf8_lossy(&output.stderr);
            assert!(output.status.success(), "{label} {backend}: {stderr}");
            let reduced = std::fs::read(area.out_py()).unwrap();
            assert!(reduced.len() < bytes.len(), "{label}: not reduced");
            // Written back in the declared encoding, with the declaration (when still needed).
            if !kept.is_empty() {
                assert!(
                    reduced.windows(kept.len()).any(|w| w == kept)
                        && reduced.windows(6).any(|w| w == b"coding"),
                    "{label} {backend}: {}",
                    String::from_utf8_lossy(&reduced)
                );
            }
            assert!(compiles(&area.out_py()), "{label} {backend}");
            let text = run_candidate(&area.out_py(), area.root.path());
            assert!(text.contains(needle), "{label} {backend}: {text}");
            assert_eq!(std::fs::read(&source).unwrap(), bytes, "{label}");
            area.assert_tmp_empty();
        }
    }
}

#[test]
fn deeply_nested_expressions_do_not_overflow_the_stack() {
    // CPython itself refuses most of these (RecursionError during compilation), so a --predicate
    // that only looks for the needle in the text accepts them: then the validity checks and
    // rewrites walk the whole depth to reach the needle. Such chains lose one level per accepted
    // candidate (thousands of predicate runs), so the run is stopped with SIGINT once a smaller
    // candidate was written: it must be alive until then and leave a valid, smaller output.
    let cases = [
        format!("x = {}'needle'\n", "-".repeat(1500)),
        format!("x = {}'needle'\n", "1 if 2 else ".repeat(600)),
        format!("x = {}'needle'{}\n", "f(".repeat(190), ")".repeat(190)),
    ];
    for text in cases {
        let label = &text[..30];
        let area = Area::new();
        let source = area.write_input("deep.py", &text);
        let predicate = area.write_input("grep.sh", "#!/bin/sh\ngrep -q needle \"$1\"\n");
        make_executable(&predicate);
        let mut child = area
            .python_cmd(
                &source,
                &[
                    "--predicate",
                    predicate.to_str().unwrap(),
                    "--predicate-arg",
                    "{file}",
                ],
            )
            .spawn()
            .unwrap();
        let start = Instant::now();
        let mut finished = None;
        while !area.out_py().exists() && start.elapsed() < Duration::from_secs(120) {
            if let Some(status) = child.try_wait().unwrap() {
                finished = Some(status);
                break;
            }
            std::thread::sleep(Duration::from_millis(20));
        }
        if finished.is_none() {
            send("INT", child.id());
        }
        let output = child.wait_with_output().unwrap();
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert!(
            matches!(output.status.code(), Some(0 | 130)),
            "{label}: {:?} {stderr}",
            output.status
        );
        assert!(!stderr.contains("overflow") && !stderr.contains("panicked"));
        let reduced = std::fs::read_to_string(area.out_py()).unwrap();
        // (A lambda chain has no smaller form; every other chain loses levels.)
        assert!(
            reduced.contains("needle") && reduced.len() <= text.len(),
            "{label}"
        );
        if !text.contains("lambda") {
            assert!(reduced.len() < text.len(), "{label}");
        }
        assert!(
            minrepro_syntax_ok(&reduced),
            "{label}: output is not valid Python syntax"
        );
        assert_eq!(std::fs::read_to_string(&source).unwrap(), text);
        area.assert_tmp_empty();
    }
}

/// Whether `text` parses with the real interpreter's `ast` module (which, unlike the compiler,
/// accepts deep expressions when the recursion limit is raised in a big-stack thread).
fn minrepro_syntax_ok(text: &str) -> bool {
    let script = "import ast, sys, threading\nsys.setrecursionlimit(1000000)\nthreading.stack_size(512 * 1024 * 1024)\nok = []\nt = threading.Thread(target=lambda: ok.append(ast.parse(sys.stdin.read())))\nt.start(); t.join()\nsys.exit(0 if ok else 1)\n";
    let mut child = StdCommand::new(python())
        .args(["-c", script])
        .stdin(Stdio::piped())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    use std::io::Write;
    child
        .stdin
        .take()
        .unwrap()
        .write_all(text.as_bytes())
        .unwrap();
    child.wait().unwrap().success()
}

// One test per backend, so that the harness runs them side by side (most of their time is spent
// waiting for timeouts and interpreters).
#[test]
fn hostile_candidates_leave_nothing_behind_runner() {
    hostile_candidates_leave_nothing_behind("runner");
}

#[test]
fn hostile_candidates_leave_nothing_behind_subproc() {
    hostile_candidates_leave_nothing_behind("subproc");
}

fn hostile_candidates_leave_nothing_behind(backend: &str) {
    let cases: Vec<(&str, &str, &str)> = vec![
        ("hangs", "time.sleep(1000)", "2"),
        (
            "ignores SIGTERM and SIGINT while hanging",
            "signal.signal(signal.SIGTERM, signal.SIG_IGN)\nsignal.signal(signal.SIGINT, signal.SIG_IGN)\ntime.sleep(1000)",
            "2",
        ),
        (
            "grandchild holds stdout",
            "p = subprocess.Popen(['sleep', '1000'])\nopen(PIDS, 'a').write('%d\\n' % p.pid)",
            "30",
        ),
        (
            "setsid daemon (subprocess) holds stdout",
            "p = subprocess.Popen(['sleep', '1000'], start_new_session=True)\nopen(PIDS, 'a').write('%d\\n' % p.pid)\ntime.sleep(0.2)",
            "30",
        ),
        (
            "double-forked setsid daemon without exec, ignoring SIGTERM",
            "if os.fork() == 0:\n    os.setsid()\n    if os.fork() == 0:\n        signal.signal(signal.SIGTERM, signal.SIG_IGN)\n        open(PIDS, 'a').write('%d\\n' % os.getpid())\n        time.sleep(1000)\n    os._exit(0)\ntime.sleep(0.2)",
            "30",
        ),
        (
            "twenty forked children",
            "for _ in range(20):\n    if os.fork() == 0:\n        open(PIDS, 'a').write('%d\\n' % os.getpid())\n        time.sleep(1000)",
            "30",
        ),
        (
            "prints 200 MB",
            "for _ in range(200):\n    sys.stdout.write('x' * 1000000)",
            "60",
        ),
        ("crashes with SIGSEGV", "os.kill(os.getpid(), signal.SIGSEGV)", "30"),
        (
            // Through a C slot on every level: Python 3.11 runs pure-Python recursion on the heap,
            // which only grows memory (GBs) until the timeout; this overflows the C stack.
            "unbounded recursion with a huge recursion limit (C stack overflow)",
            "sys.setrecursionlimit(10 ** 8)\nclass R:\n    def __repr__(self): return repr(self)\nrepr(R())",
            "30",
        ),
        (
            "closes its streams and exits",
            "os.close(1)\nos.close(2)\nos._exit(3)",
            "30",
        ),
        (
            "writes outside its workspace",
            "open(os.path.join(os.path.dirname(PIDS), '..', 'written-by-candidate'), 'w').write('x')\nos.chdir('/')\nopen(os.path.join(os.path.dirname(PIDS), 'new.py'), 'w').write('x')",
            "30",
        ),
    ];
    for (label, hostile, timeout) in cases {
        let label = format!("{label} {backend}");
        reduce_staged(&label, hostile, "_n == 3", &staged_flags(backend, timeout));
    }
}

/// Reduces a [`staged_program`] running `hostile` where `stage` holds, with `flags`; then checks
/// that minrepro succeeded, nothing of it survives, its TMPDIR is empty, the source is unchanged
/// and the output still reproduces.
fn reduce_staged(label: &str, hostile: &str, stage: &str, flags: &[&str]) {
    let area = Area::new();
    let (source, text) = area.stage("staged.py", hostile, stage);
    let (pid, output) = area.python_run(&source, flags);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(output.status.success(), "{label}: {stderr}");
    assert_no_survivors(pid, &area.input().join("pids"));
    area.assert_tmp_empty();
    assert_eq!(std::fs::read_to_string(&source).unwrap(), text, "{label}");
    std::fs::remove_file(area.input().join("count")).unwrap();
    assert_output_reproduces(&area, "needle");
}

#[test]
fn flaky_candidates_do_not_break_the_output() {
    for backend in ["runner", "subproc"] {
        // Every second candidate exits early without the needle.
        let flags = ["--err-msg", "needle", "--backend", backend];
        reduce_staged(backend, "sys.exit(0)", "_n > 2 and _n % 2 == 0", &flags);
    }
}

#[test]
fn signals_during_a_reduction_leave_a_valid_output_or_none() {
    // Every run sleeps and leaves a forked setsid daemon (no exec) and a subprocess daemon.
    let hostile = "if os.fork() == 0:\n    os.setsid()\n    open(PIDS, 'a').write('%d\\n' % os.getpid())\n    time.sleep(1000)\n    os._exit(0)\np = subprocess.Popen(['sleep', '1000'], start_new_session=True)\nopen(PIDS, 'a').write('%d\\n' % p.pid)\ntime.sleep(0.3)";
    let plan = [
        ("runner", "INT", 150),
        ("runner", "TERM", 700),
        ("runner", "INT", 1600),
        ("runner", "TERM", 2600),
        ("subproc", "TERM", 150),
        ("subproc", "INT", 700),
        ("subproc", "TERM", 1600),
        ("subproc", "INT", 2600),
    ];
    let mut interrupted = 0;
    for (backend, signal, delay) in plan {
        let area = Area::new();
        // The verification run of the output (below) must not start daemons: `calm` stops them.
        let (source, text) = area.stage(
            "slow.py",
            hostile,
            "not os.path.exists(os.path.join(os.path.dirname(PIDS), 'calm'))",
        );
        let child = area
            .python_cmd(
                &source,
                &["--err-msg", "needle", "--backend", backend, "-j", "2"],
            )
            .spawn()
            .unwrap();
        let pid = child.id();
        // The delay counts from the first run of the program: before it, minrepro may not have
        // installed its signal handler yet (a cold start of the debug binary right after a
        // build took over 700 ms on a loaded machine, and the signal's default action ended it).
        let started = wait_for(120, || area.input().join("count").exists());
        assert!(started, "{backend}: the original never ran");
        std::thread::sleep(Duration::from_millis(delay));
        send(signal, pid);
        let output = child.wait_with_output().unwrap();
        let label = format!("{backend} {signal} {delay} ms after the first run");
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert!(!stderr.contains("panicked"), "{label}: {stderr}");
        match output.status.code() {
            Some(130) => interrupted += 1,
            Some(0) => {}
            other => panic!("{label}: exit {other:?}: {stderr}"),
        }
        assert_no_survivors(pid, &area.input().join("pids"));
        area.assert_tmp_empty();
        assert_eq!(std::fs::read_to_string(&source).unwrap(), text, "{label}");
        if area.out_py().exists() {
            std::fs::write(area.input().join("calm"), "").unwrap();
            // A candidate killed by the signal between truncating the run counter and writing
            // it leaves the counter empty, which the output's frozen code would choke on.
            let _ = std::fs::remove_file(area.input().join("count"));
            assert_output_reproduces(&area, "needle");
        }
        let staging = area.root_names_with(&[".out.py", ".minrepro-"]);
        assert!(staging.is_empty(), "{label}: {staging:?}");
    }
    assert!(interrupted > 0, "no run was interrupted");
}

#[test]
fn corrupt_cache_files_are_refused_before_any_run() {
    for garbage in [
        b"".to_vec(),
        b"\x00\xff garbage".to_vec(),
        b"{\"format\": \"minrepro-cache\", \"version\"".to_vec(),
    ] {
        let area = Area::new();
        let source = area.write_input("p.py", "a = 1\nraise ValueError('needle')\n");
        let (predicate, marker) = marker_predicate(&area.input());
        let cache = area.write_input("cache.json", &garbage);
        let (_, output) = area.python_run(
            &source,
            &[
                "--err-msg",
                "needle",
                "--cache-file",
                cache.to_str().unwrap(),
                "--predicate",
                predicate.to_str().unwrap(),
                "--predicate-arg",
                "{file}",
            ],
        );
        let stderr = String::from_utf8_lossy(&output.stderr);
        // The cache is opened before anything runs, the original included.
        assert_eq!(output.status.code(), Some(1), "{stderr}");
        let line = stderr.lines().last().unwrap_or_default();
        assert!(line.contains("cache.json"), "{stderr}");
        let runs = std::fs::read_to_string(&marker).unwrap_or_default();
        assert_eq!(runs.lines().count(), 0, "the predicate ran: {runs}");
        assert!(!area.out_py().exists());
        assert_eq!(std::fs::read(&cache).unwrap(), garbage);
        area.assert_tmp_empty();
    }
}

#[test]
fn five_thousand_statements_with_eight_jobs() {
    let area = Area::new();
    let source = area.input().join("big.py");
    let mut text = String::new();
    for i in 0..5000 {
        match i % 4 {
            0 => text.push_str(&format!("v{i} = {i} * 2\n")),
            1 => text.push_str(&format!("def f{i}(a, b=3):\n    return a + b + {i}\n")),
            2 => text.push_str(&format!(
                "if v{} > 5:\n    w{i} = [v{}, {i}]\n",
                i - 2,
                i - 2
            )),
            _ => text.push_str(&format!("print(f{}(v{}))\n", i - 2, i - 3)),
        }
    }
    text.push_str("raise ValueError('needle %d' % v0)\n");
    std::fs::write(&source, &text).unwrap();
    let (pid, output, peak_kib) =
        run_measured(&mut area.python_cmd(&source, &["--err-msg", "needle", "-j", "8"]));
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(output.status.success(), "{stderr}");
    eprintln!("peak RSS of minrepro: {} MiB", peak_kib / 1024);
    assert!(peak_kib < 1024 * 1024, "peak RSS {peak_kib} KiB");
    assert_no_survivors(pid, &area.input().join("pids"));
    area.assert_tmp_empty();
    assert_eq!(std::fs::read_to_string(&source).unwrap(), text);
    assert_output_reproduces(&area, "needle");
    assert!(std::fs::read(area.out_py()).unwrap().len() < 100);
}
