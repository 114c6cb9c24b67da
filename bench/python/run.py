#!/usr/bin/env python3
"""Benchmark of `minrepro python` against TileLang's AutoDD and other reducers.

One command runs everything (from the repository root):

    python3 bench/python/run.py [--tools a,b] [--cases x,y] [--timeout-per-run S] [-j N]

Steps:
1. Check the corpus (check_cases.py's checks): every case must reproduce.
2. Set up the peers (once; `--reinstall` to redo): a private virtual environment
   bench/out/venv with pip-installed tilelang==0.1.15 (--no-deps) + typing_extensions (AutoDD),
   pysource-minimize, picire and shrinkray; C-Vise from Debian with apt-get where it installs.
   A peer that fails to install is recorded as unavailable, with the error, in
   bench/out/peers.json. minrepro is built with `cargo build --release -p minrepro`.
3. Run every (tool, case) pair sequentially, each capped by --timeout-per-run (the best result
   written so far is then measured and the run is marked `timeout`), and write one JSON file per
   run to bench/out/results/.
4. Write bench/python/RESULTS.md: per-case rows and a per-tool summary.

Predicate runs are counted the same way for every tool: one line is appended to a counter file
per candidate execution -- by bench/python/count_run.sh (called by the interestingness test of
picire, C-Vise and pysource-minimize) or, for AutoDD, which launches `python3 CANDIDATE` itself,
by counter_site/sitecustomize.py at interpreter start-up. minrepro runs with its default
(runner) backend and reports its own count in the `--stats-json` file.
See bench/python/README.md.
"""

import argparse
import datetime
import json
import math
import os
import platform
import re
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import check_cases
import common

VENV = common.OUT_DIR / "venv"
RESULTS_DIR = common.OUT_DIR / "results"
RUNS_DIR = common.OUT_DIR / "runs"
PEERS_FILE = common.OUT_DIR / "peers.json"
RESULTS_MD = common.PY_DIR / "RESULTS.md"
ALL_TOOLS = ["minrepro", "minrepro-fixed-timeout", "minrepro-no-values", "autodd", "autodd-runner", "pysource-minimize", "picire", "cvise", "shrinkray"]
# minrepro's own variants: extra flags on top of the common command. `minrepro` itself runs with
# its defaults (the adaptive candidate time limit among them); the quality bar is judged on it.
MINREPRO_VARIANTS = {"minrepro": [], "minrepro-fixed-timeout": ["--timeout-factor", "off"],
                     "minrepro-no-values": ["--no-value-substitution"]}

# pip requirements of each venv peer (installed one peer at a time so one failure is isolated).
PIP_PEERS = {
    "autodd": [["--no-deps", "tilelang==0.1.15"], ["typing_extensions"]],
    "pysource-minimize": [["pysource-minimize"]],
    "picire": [["picire"]],
    # shrinkray's current releases need Python >= 3.12; on 3.11 only the 0.0.x placeholders exist.
    "shrinkray": [["shrinkray>=25"]],
}
DIST_NAMES = {"autodd": "tilelang", "pysource-minimize": "pysource-minimize",
              "picire": "picire", "shrinkray": "shrinkray"}


# ---------------------------------------------------------------------------------------------
# Peers


def venv_python():
    return VENV / "bin" / "python"


def site_packages():
    out = subprocess.run([str(venv_python()), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
                         capture_output=True, text=True, check=True)
    return Path(out.stdout.strip())


def pip_version(dist):
    out = subprocess.run([str(venv_python()), "-c",
                          "import importlib.metadata as m, sys; print(m.version(sys.argv[1]))", dist],
                         capture_output=True, text=True)
    return out.stdout.strip() if out.returncode == 0 else None


def setup_peers(reinstall):
    """Create the venv and install the peers; return {peer: {available, version, error}}."""
    if PEERS_FILE.exists() and VENV.exists() and not reinstall:
        return json.loads(PEERS_FILE.read_text())
    if reinstall and VENV.exists():
        shutil.rmtree(VENV)
    common.OUT_DIR.mkdir(parents=True, exist_ok=True)
    peers = {}
    if not venv_python().exists():
        print("creating %s" % VENV, flush=True)
        subprocess.run([common.real_python(), "-m", "venv", str(VENV)], check=True)
    for peer, requirement_sets in PIP_PEERS.items():
        error = None
        for requirement in requirement_sets:
            print("pip install %s" % " ".join(requirement), flush=True)
            proc = subprocess.run([str(venv_python()), "-m", "pip", "install", "-q",
                                   "--disable-pip-version-check"] + requirement,
                                  capture_output=True, text=True)
            if proc.returncode != 0:
                error = "pip install %s: %s" % (" ".join(requirement),
                                                (proc.stderr.strip() or proc.stdout.strip())[-1500:])
                break
        version = pip_version(DIST_NAMES[peer]) if error is None else None
        peers[peer] = {"available": error is None, "version": version, "error": error}
    peers["autodd-runner"] = peers["autodd"]  # the same install, its default backend
    peers["cvise"] = setup_cvise()
    PEERS_FILE.write_text(json.dumps(peers, indent=2))
    return peers


def setup_cvise():
    """C-Vise from Debian's package (apt-get, as root); unavailable when that fails."""
    if shutil.which("cvise") is None:
        if shutil.which("apt-get") is None or os.geteuid() != 0:
            return {"available": False, "version": None, "error": "cvise not installed; apt-get needs root"}
        print("apt-get install cvise", flush=True)
        env = dict(os.environ, DEBIAN_FRONTEND="noninteractive")
        update = subprocess.run(["apt-get", "update", "-qq"], capture_output=True, text=True, env=env)
        proc = subprocess.run(["apt-get", "install", "-y", "-qq", "cvise"], capture_output=True, text=True, env=env)
        if proc.returncode != 0 or shutil.which("cvise") is None:
            return {"available": False, "version": None,
                    "error": "apt-get install cvise: %s" % ((proc.stderr or update.stderr).strip()[-1500:])}
    out = subprocess.run(["cvise", "--version"], capture_output=True, text=True)
    return {"available": out.returncode == 0, "version": out.stdout.strip() or None,
            "error": None if out.returncode == 0 else out.stderr.strip()}


def setup_minrepro(path, build):
    """Build minrepro (unless given) and check that it has the `python` front end."""
    if path is None:
        path = common.REPO_DIR / "target" / "release" / "minrepro"
        if build:
            print("cargo build --release -p minrepro", flush=True)
            proc = subprocess.run(["cargo", "build", "--release", "-p", "minrepro"], cwd=common.REPO_DIR,
                                  capture_output=True, text=True)
            if proc.returncode != 0:
                return {"available": False, "version": None, "path": str(path),
                        "error": "cargo build failed: %s" % proc.stderr.strip()[-1500:]}
    path = Path(path).resolve()
    probe = subprocess.run([str(path), "python", "--help"], capture_output=True, text=True)
    if probe.returncode != 0 or "<SOURCE>" not in probe.stdout:
        return {"available": False, "version": None, "path": str(path),
                "error": "`minrepro python` (with --err-msg) is not in this build: %s"
                         % (probe.stderr.strip()[-500:] or probe.stdout.strip()[-500:])}
    version = subprocess.run([str(path), "--version"], capture_output=True, text=True).stdout.strip()
    commit = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=common.REPO_DIR,
                            capture_output=True, text=True).stdout.strip()
    return {"available": True, "version": "%s (commit %s)" % (version or path.name, commit),
            "path": str(path), "error": None}


# ---------------------------------------------------------------------------------------------
# One run


def tool_command(tool, peers, case, work_src, out_file, run_dir, args):
    """argv, environment additions and the file holding the result, for `tool` on `case`."""
    msg = case["err_msg"]
    t = str(int(math.ceil(args.candidate_timeout)))
    jobs = str(args.jobs)
    py_dir = str(common.PY_DIR)
    interesting = str(common.PY_DIR / "interesting.sh")
    if tool in MINREPRO_VARIANTS:
        argv = [peers[tool]["path"], "python", str(work_src), "--err-msg", msg, "-o", str(out_file),
                "--timeout", t, "-j", jobs, "--stats-json", str(run_dir / "minrepro-stats.json")]
        return argv + MINREPRO_VARIANTS[tool], {}, out_file
    if tool in ("autodd", "autodd-runner"):
        # -P: do not put the script's directory (site-packages/tilelang) first on sys.path, where
        # tilelang/math would shadow the standard library's math module.
        argv = [str(venv_python()), "-P", str(site_packages() / "tilelang" / "autodd.py"), str(work_src),
                "--err-msg", msg, "-o", str(out_file), "--backend", "runner" if tool == "autodd-runner" else "subproc",
                "--timeout", t, "-j", jobs]
        env = {"PYTHONPATH": os.pathsep.join(map(str, [common.PY_DIR / "counter_site", common.SUPPORT_DIR,
                                                       common.LIBS_DIR])),
               "BENCH_COUNT_EXCLUDE": "autodd.py"}
        return argv, env, out_file
    if tool == "pysource-minimize":
        argv = [str(venv_python()), str(common.PY_DIR / "drivers" / "pysource_minimize_driver.py"),
                str(work_src), str(out_file)]
        return argv, {}, out_file
    if tool == "picire":
        picire_out = run_dir / "picire-out"
        argv = [str(VENV / "bin" / "picire"), "-i", str(work_src), "--test", interesting,
                "-a", "line", "-o", str(picire_out), "-l", "WARNING"]
        if args.jobs > 1:
            argv += ["-p", "-j", jobs]
        return argv, {}, picire_out / work_src.name
    if tool == "cvise":
        # C-Vise reduces in place and wants a bare file name (it runs in the work directory).
        argv = ["cvise", "--not-c", "--n", jobs, "--timeout", t, interesting, work_src.name]
        return argv, {}, work_src
    if tool == "shrinkray":
        argv = [str(VENV / "bin" / "shrinkray"), "--timeout", t, "--parallelism", jobs,
                "--ui", "basic", interesting, str(work_src)]
        return argv, {}, work_src
    raise ValueError(tool)


def stop_tool(proc):
    """Stops a tool's session: SIGTERM first (reducers, minrepro among them, then kill the
    predicate process groups they started and remove their temporary directories), SIGKILL only
    if it hangs."""
    for sig, grace in ((signal.SIGTERM, 15), (signal.SIGKILL, None)):
        try:
            os.killpg(proc.pid, sig)
        except ProcessLookupError:
            break
        try:
            proc.wait(timeout=grace)
            break
        except subprocess.TimeoutExpired:
            continue
    proc.wait()


def run_capped(argv, cwd, env, log_dir, cap):
    """Run a tool in its own session, its output in log_dir/stdout.log and stderr.log, stopped
    after `cap` seconds; return (status: "ok", "error (exit N)" or "timeout", wall seconds)."""
    start = time.monotonic()
    status = "ok"
    with open(log_dir / "stdout.log", "wb") as out, open(log_dir / "stderr.log", "wb") as err:
        proc = subprocess.Popen(argv, cwd=cwd, env=env, stdout=out, stderr=err,
                                stdin=subprocess.DEVNULL, start_new_session=True)
        try:
            code = proc.wait(timeout=cap)
            if code != 0:
                status = "error (exit %d)" % code
        except subprocess.TimeoutExpired:
            status = "timeout"
            stop_tool(proc)
        except BaseException:
            # The harness itself is interrupted (Ctrl-C, or SIGTERM turned into KeyboardInterrupt
            # by main): the tool runs in its own session, so stop it too before leaving.
            stop_tool(proc)
            raise
    return status, time.monotonic() - start


def raise_interrupt(signum, frame):
    """SIGTERM handler: unwinds like Ctrl-C, so the running tool is stopped (see run_one)."""
    raise KeyboardInterrupt


def run_one(tool, peers, case, args):
    """Run `tool` on `case`; write and return the result record."""
    run_dir = RUNS_DIR / tool / case["name"]
    if run_dir.exists():
        shutil.rmtree(run_dir)
    work = run_dir / "work"
    work.mkdir(parents=True)
    original = case["path"].read_text(encoding="utf-8")
    work_src = work / case["path"].name
    work_src.write_text(original, encoding="utf-8")
    out_file = run_dir / ("reduced-" + case["path"].name)
    counter = run_dir / "predicate-runs.txt"
    counter.write_text("")
    argv, env_extra, result_file = tool_command(tool, peers, case, work_src, out_file, run_dir, args)
    env = common.candidate_env({
        "BENCH_COUNTER": str(counter),
        "BENCH_ERR_MSG": case["err_msg"],
        "BENCH_PY_DIR": str(common.PY_DIR),
        "BENCH_RUN_TIMEOUT": str(args.candidate_timeout),
        "BENCH_FILE_NAME": case["path"].name,
        **env_extra,
    })
    print("[%s] %s on %s ..." % (time.strftime("%H:%M:%S"), tool, case["name"]), flush=True)
    status, wall = run_capped(argv, work, env, run_dir, args.timeout_per_run)
    runs = len(counter.read_text().splitlines())
    stats_file = run_dir / "minrepro-stats.json"
    if tool in MINREPRO_VARIANTS and stats_file.exists():
        # minrepro runs candidates with its default (runner) backend, which no wrapper sees: its
        # own count is used (every candidate execution, the original's runs included).
        runs = json.loads(stats_file.read_text())["predicate_runs"]
    if tool == "autodd-runner":
        # Its reused workers start no interpreter per candidate: AutoDD's own count, the last
        # "Dispatched N tasks" line (printed every -j tasks: exact with -j 1).
        dispatched = re.findall(r"Dispatched (\d+) tasks", (run_dir / "stdout.log").read_text(errors="replace"))
        runs = int(dispatched[-1]) if dispatched else runs
    if result_file.exists() and result_file.stat().st_size > 0:
        result = result_file.read_text(encoding="utf-8", errors="replace")
        note = ""
    else:
        result = original
        note = "no output file; the original is measured"
    shutil.copy(result_file, out_file) if result_file.exists() and result_file != out_file else None
    record = {
        "tool": tool,
        "tool_version": peers[tool]["version"],
        "case": case["name"],
        "err_msg": case["err_msg"],
        "command": argv,
        "status": status,
        "note": note,
        "wall_seconds": round(wall, 3),
        "predicate_runs": runs,
        "jobs": args.jobs,
        "candidate_timeout": args.candidate_timeout,
        "timeout_per_run": args.timeout_per_run,
        "result_file": str(out_file if out_file.exists() else result_file),
        **common.evaluate_result(original, result, case),
    }
    if status.startswith("error"):
        record["stderr_tail"] = (run_dir / "stderr.log").read_text(errors="replace")[-2000:]
    RESULTS_DIR.mkdir(parents=True, exist_ok=True)
    (RESULTS_DIR / ("%s__%s.json" % (tool, case["name"]))).write_text(json.dumps(record, indent=2))
    print("    %s: %s tokens -> %s, %d runs, %.1f s, valid=%s reproduces=%s same_exc=%s frozen=%d/%d"
          % (status, record["original"]["tokens"], record["final"]["tokens"], runs, wall,
             record["valid_python"], record["reproduces"], record["same_exception"],
             record["frozen_kept"], record["frozen_total"]), flush=True)
    return record


def origin_text(origin):
    """An origin of common.failure_origin as a table cell: the qualified name, with the file
    when it is a library's."""
    if not origin:
        return "-"
    path, name = origin
    return name if path == "<program>" else "%s in %s" % (name, path.rsplit("/", 1)[-1])


def reevaluate(record):
    """Measure a saved run's result again (same result file, current measurement code) and
    rewrite its JSON file."""
    case = common.load_cases([record["case"]])[0]
    original = case["path"].read_text(encoding="utf-8")
    result_path = Path(record["result_file"])
    result = original if record["note"] or not result_path.exists() else result_path.read_text(
        encoding="utf-8", errors="replace")
    record.update(common.evaluate_result(original, result, case))
    (RESULTS_DIR / ("%s__%s.json" % (record["tool"], record["case"]))).write_text(json.dumps(record, indent=2))
    return record


# ---------------------------------------------------------------------------------------------
# Report


def machine_note():
    cpu = "unknown CPU"
    try:
        for line in open("/proc/cpuinfo"):
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    return "%s, %d cores (`nproc`), %s, Python %s" % (cpu, os.cpu_count() or 0, platform.platform(),
                                                   platform.python_version())


def geomean(values):
    values = [v for v in values if v is not None and v > 0]
    if not values:
        return None
    return math.exp(sum(math.log(v) for v in values) / len(values))


def reference_ratio(record):
    """Final tokens / hand-written reference tokens of a run record (computed from the current
    reference when the record predates the field)."""
    if "reference_ratio" in record:
        return record["reference_ratio"]
    reference = common.reference_tokens(record["case"])
    final = record["final"]["tokens"]
    return final / reference if final is not None and reference else None


def yes(flag):
    return "yes" if flag else "**no**"


def write_report(records, peers, args, started):
    """Write RESULTS.md (or --report-file) from the run records."""
    lines = ["# Python reduction benchmark: results", "",
             "Generated by `python3 bench/python/run.py` (see `bench/python/README.md`); every figure",
             "below comes from one run on this machine and will differ on another.", "",
             "- started: %s UTC" % started,
             "- machine: %s" % machine_note(),
             "- options: %s" % ", ".join(sorted({"`-j %d`, per-candidate timeout %g s, per-run cap %g s" % (
                 r["jobs"], r["candidate_timeout"], r["timeout_per_run"]) for r in records})),
             "- tokens: Python `tokenize` tokens without COMMENT, NL, ENCODING, ENDMARKER",
             "- predicate runs: lines appended to the run's counter file (one per candidate execution); "
             "minrepro's from its `--stats-json` (its runner backend runs candidates without a wrapper; "
             "the count matches a counting predicate's, see `python_reduce.rs`)",
             "", "## Tools", "", "| tool | version | available | note |", "| --- | --- | --- | --- |"]
    for tool in ALL_TOOLS:
        info = peers.get(tool)
        if not info:
            continue
        # The last line of an install error says what failed (pip's list of ignored versions
        # precedes it); the full text is in bench/out/peers.json.
        error_lines = [l for l in (info.get("error") or "").splitlines() if l.strip()]
        error = error_lines[-1] if error_lines else ""
        needs = re.findall(r"Requires-Python ([^;\n]+)", info.get("error") or "")
        if needs:
            error += " (its releases require Python %s; this is %s)" % (needs[-1].strip(), platform.python_version())
        error = error.replace("|", "\\|")
        if len(error) > 300:
            error = error[:300] + "..."
        lines.append("| %s | %s | %s | %s |" % (tool, info.get("version") or "-",
                                                 "yes" if info["available"] else "no", error))
    lines += ["", "Exact commands (one example per tool; `SRC`, `OUT` stand for the run's files):", ""]
    seen = set()
    for r in records:
        if r["tool"] in seen:
            continue
        seen.add(r["tool"])
        words = []
        for word in r["command"]:
            word = word.replace(str(common.REPO_DIR) + "/", "")
            word = re.sub(r"^bench/out/runs/[^/]+/[^/]+/work/.*", "SRC", word)
            word = re.sub(r"^bench/out/runs/[^/]+/[^/]+/reduced-.*", "OUT", word)
            word = re.sub(r"^bench/out/runs/[^/]+/[^/]+/picire-out$", "DIR", word)
            if word == r["case"] + ".py":
                word = "SRC"
            words.append("MSG" if word == r["err_msg"] else word)
        text = " ".join(words)
        lines.append("- %s: `%s`" % (r["tool"], text))
    lines += ["", "## Summary per tool", "",
              "| tool | runs | geomean final/original tokens | geomean tokens / hand-written tokens | max tokens / hand-written tokens | total predicate runs | total wall s | valid | reproduces | same exception | same innermost function | frozen kept | timeouts/errors |",
              "| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |"]
    by_tool = {}
    for r in records:
        by_tool.setdefault(r["tool"], []).append(r)
    for tool in ALL_TOOLS:
        rs = by_tool.get(tool)
        if not rs:
            continue
        g = geomean([r["token_ratio"] for r in rs])
        by_reference = [x for x in (reference_ratio(r) for r in rs) if x is not None]
        g_reference = geomean(by_reference)
        frozen_cases = [r for r in rs if r["frozen_total"]]
        lines.append("| %s | %d | %s | %s | %s | %d | %.1f | %d/%d | %d/%d | %d/%d | %d/%d | %d/%d | %d |" % (
            tool, len(rs), "%.3f" % g if g else "-", "%.2f" % g_reference if g_reference else "-",
            "%.2f" % max(by_reference) if by_reference else "-", sum(r["predicate_runs"] for r in rs),
            sum(r["wall_seconds"] for r in rs),
            sum(r["valid_python"] for r in rs), len(rs), sum(r["reproduces"] for r in rs), len(rs),
            sum(r["same_exception"] for r in rs), len(rs),
            sum(r.get("same_origin", False) for r in rs), len(rs),
            sum(r["frozen_ok"] for r in frozen_cases), len(frozen_cases),
            sum(r["status"] != "ok" for r in rs)))
    lines += ["", "## Per case", "",
              "| case | tool | status | tokens (orig -> final) | ratio | tokens / hand-written tokens | bytes | lines | predicate runs | wall s | valid | reproduces | same exception | same innermost function | frozen kept |",
              "| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |"]
    for r in sorted(records, key=lambda r: (r["case"], ALL_TOOLS.index(r["tool"]))):
        by_reference = reference_ratio(r)
        lines.append("| %s | %s | %s | %s -> %s | %s | %s | %d | %d | %d | %.1f | %s | %s | %s | %s | %s |" % (
            r["case"], r["tool"], r["status"], r["original"]["tokens"], r["final"]["tokens"],
            "%.3f" % r["token_ratio"] if r["token_ratio"] is not None else "-",
            "%.2f (%s)" % (by_reference, common.reference_tokens(r["case"])) if by_reference is not None else "-",
            r["final"]["bytes"], r["final"]["lines"], r["predicate_runs"], r["wall_seconds"],
            yes(r["valid_python"]), yes(r["reproduces"]),
            "%s (%s)" % (yes(r["same_exception"]), r["final_exception"]),
            "%s (%s)" % (yes(r.get("same_origin", False)), origin_text(r.get("final_origin"))),
            "%d/%d" % (r["frozen_kept"], r["frozen_total"]) if r["frozen_total"] else "-"))
    failed = [r for r in records if r["status"].startswith("error")]
    if failed:
        lines += ["", "Errors (the original is measured for these runs):", ""]
        for r in failed:
            tail = [l for l in r.get("stderr_tail", "").splitlines() if l.strip()]
            lines.append("- %s on %s: %s: `%s`" % (r["tool"], r["case"], r["status"],
                                                   tail[-1].strip() if tail else "no stderr"))
    unavailable = [t for t in ALL_TOOLS if t in peers and not peers[t].get("available")]
    if unavailable:
        lines += ["", "Not run (unavailable): %s." % ", ".join(unavailable)]
    target = Path(args.report_file) if args.report_file else RESULTS_MD
    target.write_text("\n".join(lines) + "\n")
    print("wrote %s" % target)


# ---------------------------------------------------------------------------------------------


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--tools", default=",".join(ALL_TOOLS), help="comma-separated tools (default: all)")
    parser.add_argument("--cases", help="comma-separated case names (default: all)")
    parser.add_argument("--timeout-per-run", type=float, default=600.0,
                        help="wall-clock cap of one tool's run on one case, seconds (default 600)")
    parser.add_argument("--candidate-timeout", type=float, default=10.0,
                        help="per-candidate timeout given to every tool, seconds (default 10)")
    parser.add_argument("-j", "--jobs", type=int, default=1,
                        help="candidates each tool may evaluate concurrently (default 1)")
    parser.add_argument("--minrepro", help="minrepro binary to use (default: build target/release/minrepro)")
    parser.add_argument("--no-build", action="store_true", help="do not run cargo build")
    parser.add_argument("--reinstall", action="store_true", help="recreate the venv and reinstall the peers")
    parser.add_argument("--keep-results", action="store_true",
                        help="keep earlier JSON results in bench/out/results and report them too")
    parser.add_argument("--no-report", action="store_true", help="do not rewrite RESULTS.md")
    parser.add_argument("--report-file", help="write the report to this file instead of bench/python/RESULTS.md "
                        "(e.g. a run of one tool, to be merged by hand into RESULTS.md)")
    parser.add_argument("--reevaluate", action="store_true",
                        help="with --report-only: measure the saved results again (after a change to the measurements)")
    parser.add_argument("--report-only", action="store_true",
                        help="only rewrite RESULTS.md from bench/out/results and bench/out/peers-used.json")
    args = parser.parse_args()
    signal.signal(signal.SIGTERM, raise_interrupt)
    args.tools = [t for t in args.tools.split(",") if t]
    for tool in args.tools:
        if tool not in ALL_TOOLS:
            parser.error("unknown tool %s (known: %s)" % (tool, ", ".join(ALL_TOOLS)))
    started = datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M")
    started_file = common.OUT_DIR / "started.txt"
    if args.report_only:
        records = [json.loads(p.read_text()) for p in sorted(RESULTS_DIR.glob("*.json"))]
        if args.reevaluate:
            records = [reevaluate(r) for r in records]
        peers = json.loads((common.OUT_DIR / "peers-used.json").read_text())
        write_report(records, peers, args, started_file.read_text().strip() if started_file.exists() else "?")
        return 0

    cases = common.load_cases(args.cases.split(",") if args.cases else None)
    bad = [r for r in (check_cases.check(c) for c in cases) if not r["ok"]]
    if bad:
        for r in bad:
            print("case %s does not reproduce: %s" % (r["case"], "; ".join(r["problems"])))
        return 1

    # Only set up the venv peers when one of them is asked for (a minrepro-only run needs none).
    if any(tool in PIP_PEERS or tool in ("cvise", "autodd-runner") for tool in args.tools):
        peers = setup_peers(args.reinstall)
    else:
        peers = {}
    wanted = [tool for tool in MINREPRO_VARIANTS if tool in args.tools]
    if wanted:
        built = setup_minrepro(args.minrepro, not args.no_build)
        peers.update({tool: built for tool in wanted})
    for tool in args.tools:
        info = peers.get(tool)
        print("%-18s %s" % (tool, ("available, " + str(info["version"])) if info["available"]
                            else "UNAVAILABLE: " + (info["error"] or "")[-300:]), flush=True)

    if RESULTS_DIR.exists() and not args.keep_results:
        shutil.rmtree(RESULTS_DIR)
    if not args.keep_results or not started_file.exists():
        started_file.write_text(started)
    else:
        started = started_file.read_text().strip() + " (runs added %s)" % started
    for tool in args.tools:
        if not peers[tool]["available"]:
            continue
        for case in cases:
            run_one(tool, peers, case, args)

    records = [json.loads(p.read_text()) for p in sorted(RESULTS_DIR.glob("*.json"))] if RESULTS_DIR.exists() else []
    used_file = common.OUT_DIR / "peers-used.json"
    if args.keep_results and used_file.exists():
        peers = {**json.loads(used_file.read_text()), **peers}
    used_file.write_text(json.dumps(peers, indent=2))
    if not args.no_report:
        write_report(records, peers, args, started)
    return 0


if __name__ == "__main__":
    try:
        sys.exit(main())
    except KeyboardInterrupt:
        print("interrupted: the running tool was stopped; results so far are in bench/out/results",
              file=sys.stderr)
        sys.exit(130)
