#!/usr/bin/env python3
"""The real TileLang case: TileLang's own AutoDD example (bench/python/real/tilelang_buggy.py,
CPU tensors) reduced with real `tilelang==0.1.15` + torch by `minrepro python` and, in the same
run, by AutoDD's runner backend; then minrepro's result reduced again (a fixpoint accepts
nothing and writes the same bytes).

    python3 bench/python/real_tilelang.py --venv DIR [--minrepro PATH] [--minrepro-before PATH]
                                          [--preload-row] [--tools minrepro,autodd] [--timeout 60]

DIR is a venv with tilelang 0.1.15 and torch (`pip install tilelang==0.1.15`, CPU only is
enough: the assert fires while the kernel is elaborated). Without it (or when it cannot import
both) the case is skipped with a one-line notice and exit status 0. `--minrepro-before` runs a
second minrepro binary on the same case first (e.g. main's, to compare the seconds of the
value-recording runs). minrepro runs with its default flags (the runner backend preloads the
program's top-level third-party imports by itself); `--preload-row` adds a row of the same binary
with `--preload tilelang` for comparison. Every run works in bench/out/real/tilelang/TOOL/; the
report is a new dated section at the top of bench/python/REAL_TILELANG.md (`--report-file`; the
earlier sections are kept), with each wall time as a ratio to AutoDD's of the same run.
Standard library only.

The failure the example is about: the `T.gemm K shape check failed` assert in
`_gemm_dense_slots` (tilelang/language/gemm_op.py), raised while `buggy_matmul` is elaborated.
minrepro keeps that by its default `--fidelity origin` (same innermost function, same exception
type) with `--err-msg "T.gemm K shape check failed"`. AutoDD has only a substring of the output,
so it gets the traceback's last frame and exception line as its `--err-msg`: the same
signature. Both results are checked by running them: that frame innermost, an uncaught
AssertionError with the message.
"""

import argparse
import datetime
import json
import os
import re
import shutil
import subprocess
import sys
import time
from pathlib import Path

import common

CASE = common.PY_DIR / "real" / "tilelang_buggy.py"
OUT = common.OUT_DIR / "real" / "tilelang"
MESSAGE = "T.gemm K shape check failed"
# The innermost frame, its source line and the exception line of the traceback: what origin
# fidelity keeps, as one substring for AutoDD.
FRAME = 'tilelang/language/gemm_op.py", line 83, in _gemm_dense_slots\n'
ASSERT_LINE = '    assert _prove_equal(K, K_B), f"{api_name} K shape check failed: K_A = {K}, K_B = {K_B}"\n'
SIGNATURE = FRAME + ASSERT_LINE + "AssertionError: " + MESSAGE


def clean_env():
    """The user's environment without the benchmark's stand-in tilelang or a PYTHONPATH."""
    env = dict(os.environ)
    for name in ("PYTHONPATH", "PYTHONHOME"):
        env.pop(name, None)
    env["PYTHONDONTWRITEBYTECODE"] = "1"
    return env


def venv_ready(python):
    """None when `python` imports tilelang and torch, else why not."""
    if not python.exists():
        return "no interpreter at %s" % python
    proc = subprocess.run([str(python), "-c", "import tilelang, torch; print(tilelang.__version__)"],
                          env=clean_env(), capture_output=True, text=True)
    if proc.returncode != 0:
        return "%s cannot import tilelang and torch: %s" % (python, proc.stderr.strip().splitlines()[-1:])
    return None


def keeps_the_bug(python, program):
    """(yes/no, why) for `program`: the gemm frame innermost, an uncaught AssertionError with the
    message, and tilelang called (the frame is tilelang's)."""
    proc = subprocess.run([str(python), str(program)], cwd=program.parent, env=clean_env(),
                          capture_output=True, text=True, timeout=600)
    err = proc.stderr
    frames = re.findall(r'File "([^"]+)", line \d+, in (\S+)', err)
    if not frames:
        return False, "no traceback (exit %d)" % proc.returncode
    file, function = frames[-1]
    last = err.strip().splitlines()[-1] if err.strip() else ""
    ok = (file.endswith("tilelang/language/gemm_op.py") and function == "_gemm_dense_slots"
          and last.startswith("AssertionError: " + MESSAGE))
    return ok, "%s in %s: %s" % (function, file, last[:80])


def load():
    return " ".join(open("/proc/loadavg").read().split()[:3])


def run_minrepro(binary, python, src, work, timeout, tag, extra=()):
    """One minrepro reduction of `src` with its default flags and `extra`; the row."""
    out = work / ("min_" + src.name)
    stats = work / "stats.json"
    for stale in (out, stats):
        stale.unlink(missing_ok=True)
    argv = [str(binary), "python", str(src), "--err-msg", MESSAGE, "-o", str(out), "--python", str(python),
            "--timeout", str(timeout), "-j", "1", "-q", "--stats-json", str(stats), *extra]
    before = load()
    started = time.monotonic()
    proc = subprocess.run(argv, cwd=work, env=clean_env(), capture_output=True, text=True)
    wall = time.monotonic() - started
    if proc.returncode != 0:
        raise SystemExit("%s failed (exit %d): %s" % (" ".join(argv), proc.returncode, proc.stderr[-3000:]))
    data = json.loads(stats.read_text())
    return {
        "tool": tag, "out": out, "wall": wall, "load": "%s / %s" % (before, load()),
        "runs": data.get("predicate_runs"), "accepted": data.get("accepted"),
        "recording_runs": data.get("value_recording_runs"),
        "recording_seconds": data.get("value_recording_seconds"),
        "timeouts": data.get("timeouts"), "rejudged": data.get("rejudged_timeouts"),
        "summary": proc.stdout.strip().splitlines()[-1:],
    }


def run_autodd(python, src, work, timeout):
    """AutoDD's runner backend on `src`; the row (runs: its dispatched tasks, -j 1)."""
    out = work / ("min_" + src.name)
    out.unlink(missing_ok=True)
    argv = [str(python), "-m", "tilelang.autodd", str(src), "--err-msg", SIGNATURE, "-o", str(out),
            "--backend", "runner", "--timeout", str(int(timeout)), "-j", "1"]
    before = load()
    started = time.monotonic()
    proc = subprocess.run(argv, cwd=work, env=clean_env(), capture_output=True, text=True)
    wall = time.monotonic() - started
    (work / "autodd.log").write_text(proc.stdout + proc.stderr)
    dispatched = [int(n) for n in re.findall(r"Dispatched (\d+) tasks", proc.stdout)]
    return {
        "tool": "autodd-runner", "out": out, "wall": wall, "load": "%s / %s" % (before, load()),
        "runs": max(dispatched, default=0), "exit": proc.returncode,
    }


TITLE = "# The real TileLang case"


def report_section(python, args, started, rows, fixpoint):
    """The lines of this run's dated section of the report."""
    version = subprocess.run([str(python), "-c", "import tilelang; print(tilelang.__version__)"],
                             env=clean_env(), capture_output=True, text=True).stdout.strip()
    lines = [
        "## %s UTC" % started,
        "",
        "Generated by `python3 bench/python/real_tilelang.py` (see its docstring).",
        "TileLang's AutoDD example (bench/python/real/tilelang_buggy.py, CPU tensors), tilelang %s" % version,
        "+ torch from `%s`; -j 1, per-candidate timeout %g s. minrepro: default flags (the runner" % (
            args.venv, args.timeout),
        "backend, `--fidelity origin`, automatic preload) and `--err-msg \"%s\"`; AutoDD:" % MESSAGE,
        "`--backend runner`, `--err-msg` the last frame, its line and the exception line (the same",
        "signature). Tokens: Python `tokenize` without COMMENT, NL, ENCODING, ENDMARKER. Wall ratio:",
        "to AutoDD's runner in this run. Load: 1/5/15-minute load average before / after.",
        "",
        "| tool | tokens (of %d) | runs | wall s | wall / AutoDD | value recording: runs, s | keeps the bug | load |" % (
            common.count_tokens(CASE.read_text())),
        "| --- | --- | --- | --- | --- | --- | --- | --- |",
    ]
    autodd = [r["wall"] for r in rows if r["tool"] == "autodd-runner"]
    for r in rows:
        tokens = common.count_tokens(r["out"].read_text()) if r["out"].exists() else "-"
        kept, why = keeps_the_bug(python, r["out"]) if r["out"].exists() else (False, "no output")
        recording = "-" if r.get("recording_runs") is None else "%s, %.1f" % (
            r["recording_runs"], r["recording_seconds"])
        ratio = "%.3f" % (r["wall"] / autodd[0]) if autodd else "-"
        lines.append("| %s | %s | %s | %.1f | %s | %s | %s (%s) | %s |" % (
            r["tool"], tokens, r["runs"], r["wall"], ratio, recording, "yes" if kept else "**no**", why, r["load"]))
        print(lines[-1], flush=True)
    if fixpoint:
        lines += ["", "Fixpoint: minrepro's result reduced again accepted %s candidates in %s runs (%.1f s); "
                  "same bytes: %s." % (fixpoint["accepted"], fixpoint["runs"], fixpoint["wall"],
                                       "yes" if fixpoint["identical"] else "**no**")]
        print(lines[-1], flush=True)
    return lines


def write_report(path, section):
    """Puts `section` first below the title of `path`, keeping the earlier sections."""
    earlier = path.read_text(encoding="utf-8") if path.exists() else TITLE + "\n"
    body = earlier[len(TITLE):].lstrip("\n") if earlier.startswith(TITLE) else earlier
    with open(path, "w", encoding="utf-8") as f:
        f.write(TITLE + "\n\n" + "\n".join(section) + "\n\n" + body)


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--venv", default=os.environ.get("TILELANG_VENV", str(common.OUT_DIR / "venv-tilelang")))
    parser.add_argument("--minrepro", default=str(common.REPO_DIR / "target" / "release" / "minrepro"))
    parser.add_argument("--minrepro-before", help="another minrepro binary run first on the same case")
    parser.add_argument("--preload-row", action="store_true",
                        help="also run the minrepro binary with --preload tilelang")
    parser.add_argument("--tools", default="minrepro,autodd")
    parser.add_argument("--timeout", type=float, default=60.0, help="per-candidate timeout, seconds")
    parser.add_argument("--report-file", default=str(common.PY_DIR / "REAL_TILELANG.md"))
    args = parser.parse_args()
    python = Path(args.venv) / "bin" / "python"
    why = venv_ready(python)
    if why:
        print("real TileLang case skipped: %s (--venv DIR with tilelang==0.1.15 and torch)" % why)
        return 0
    tools = args.tools.split(",")
    ok, why = keeps_the_bug(python, CASE)
    if not ok:
        raise SystemExit("the bench copy does not fail as expected: %s" % why)
    started = datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M")
    rows = []
    binaries = [(args.minrepro_before, "minrepro (before)", ())] if args.minrepro_before else []
    binaries.append((args.minrepro, "minrepro", ()))
    if args.preload_row:
        binaries.append((args.minrepro, "minrepro --preload tilelang", ("--preload", "tilelang")))
    if "minrepro" in tools:
        for binary, tag, extra in binaries:
            work = OUT / re.sub(r"[^a-z]+", "-", tag).strip("-")
            shutil.rmtree(work, ignore_errors=True)
            (work / "src").mkdir(parents=True)
            src = work / "src" / CASE.name
            shutil.copy(CASE, src)
            print("running %s ..." % tag, flush=True)
            rows.append(run_minrepro(binary, python, src, work, args.timeout, tag, extra))
    if "autodd" in tools:
        work = OUT / "autodd"
        shutil.rmtree(work, ignore_errors=True)
        (work / "src").mkdir(parents=True)
        src = work / "src" / CASE.name
        shutil.copy(CASE, src)
        print("running AutoDD's runner ...", flush=True)
        rows.append(run_autodd(python, src, work, args.timeout))
    fixpoint = None
    mine = [r for r in rows if r["tool"] == "minrepro"]
    if mine:
        work = OUT / "fixpoint"
        shutil.rmtree(work, ignore_errors=True)
        (work / "src").mkdir(parents=True)
        src = work / "src" / CASE.name
        src.write_bytes(mine[0]["out"].read_bytes())
        print("reducing minrepro's result again ...", flush=True)
        again = run_minrepro(args.minrepro, python, src, work, args.timeout, "minrepro (again)")
        fixpoint = {
            "accepted": again["accepted"], "runs": again["runs"], "wall": again["wall"],
            "identical": again["out"].read_bytes() == mine[0]["out"].read_bytes(),
        }
    lines = report_section(python, args, started, rows, fixpoint)
    write_report(Path(args.report_file), lines)
    return 0 if fixpoint is None or (fixpoint["identical"] and fixpoint["accepted"] == 0) else 1


if __name__ == "__main__":
    sys.exit(main())
