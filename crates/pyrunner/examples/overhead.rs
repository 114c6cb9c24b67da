//! Per-candidate overhead of the fork-server runner against a fresh interpreter per candidate.
//!
//! `cargo run --release -p minrepro-pyrunner --example overhead -- [N]` runs the same trivial
//! candidate N times (default 200) both ways, then a candidate that imports a slow module, with
//! and without `--preload` of that module, and prints milliseconds per candidate and ratios.

use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use minrepro_predicate::process::{run_child, RunEnd, RunRequest};
use minrepro_predicate::{CancelFlag, Executor};
use minrepro_pyrunner::RunnerPool;

fn python() -> PathBuf {
    let out = std::process::Command::new("python3")
        .args(["-c", "import sys; print(sys.executable)"])
        .output()
        .expect("python3");
    PathBuf::from(String::from_utf8(out.stdout).expect("utf-8").trim())
}

fn per_candidate(n: usize, run: &dyn Fn() -> RunEnd) -> Duration {
    assert_eq!(run(), RunEnd::Exited(1), "warm-up run must reproduce");
    let start = Instant::now();
    for _ in 0..n {
        assert_eq!(run(), RunEnd::Exited(1));
    }
    start.elapsed() / n as u32
}

fn main() {
    let n: usize = std::env::args()
        .nth(1)
        .and_then(|a| a.parse().ok())
        .unwrap_or(200);
    let py = python();
    let dir = tempfile::tempdir().expect("tempdir");
    let trivial = dir.path().join("trivial.py");
    std::fs::write(&trivial, "x = 1\nraise ValueError('needle %d' % x)\n").expect("write");
    // A module that is slow to import, as torch or tilelang are (measured: see output).
    let slow_dir = dir.path().join("lib");
    std::fs::create_dir(&slow_dir).expect("mkdir");
    std::fs::write(
        slow_dir.join("slowmod.py"),
        "import asyncio, decimal, email.mime.multipart, http.client, json, unittest, xml.dom.minidom, argparse, difflib, inspect, typing\nimport time\ntime.sleep(0.2)\n",
    )
    .expect("write");
    let slow = dir.path().join("slow.py");
    std::fs::write(&slow, "import slowmod\nraise ValueError('needle')\n").expect("write");
    let env = vec![(
        OsString::from("PYTHONPATH"),
        slow_dir.clone().into_os_string(),
    )];
    let env_text = vec![(
        "PYTHONPATH".to_owned(),
        slow_dir.to_string_lossy().into_owned(),
    )];
    let run_with = |pool: Option<&RunnerPool>, script: &Path| {
        let args = vec![OsString::from(script)];
        let cancel = CancelFlag::new();
        let request = RunRequest {
            program: &py,
            args: &args,
            cwd: dir.path(),
            env: &env,
            timeout: Duration::from_secs(60),
            needle: Some(b"needle"),
            workspace_text: None,
            cancel: &cancel,
            keep_stdout: None,
        };
        match pool {
            Some(pool) => pool.run(&request).end,
            None => run_child(&request).end,
        }
    };
    let plain = RunnerPool::start(&py, &[], &env_text).expect("runner");
    let preloaded = RunnerPool::start(&py, &["slowmod".into()], &env_text).expect("runner");
    let fresh_trivial = per_candidate(n, &|| run_with(None, &trivial));
    let warm_trivial = per_candidate(n, &|| run_with(Some(&plain), &trivial));
    let slow_n = (n / 10).max(5);
    let fresh_slow = per_candidate(slow_n, &|| run_with(None, &slow));
    let warm_slow = per_candidate(slow_n, &|| run_with(Some(&preloaded), &slow));
    let ms = |d: Duration| d.as_secs_f64() * 1000.0;
    println!("interpreter: {}", py.display());
    println!("trivial candidate, {n} runs: subproc {:.2} ms, runner {:.2} ms per candidate -> runner {:.1}x faster",
        ms(fresh_trivial), ms(warm_trivial), ms(fresh_trivial) / ms(warm_trivial));
    println!("slow-import candidate, {slow_n} runs: subproc {:.2} ms, runner --preload slowmod {:.2} ms per candidate -> {:.1}x faster",
        ms(fresh_slow), ms(warm_slow), ms(fresh_slow) / ms(warm_slow));
}
