#!/usr/bin/env python3
"""`-j` benchmark of `minrepro bundle`: does parallel evaluation pay, and is it honest?

    python3 bench/bundle/run.py [--minrepro PATH] [--pairs N] [--objects N] [--out FILE]

Input: a bundle of 30 real AMDGPU code objects, each compiled from its own OpenCL kernel with
clang and linked with ld.lld (as crates/bundle/tests/fixtures/regenerate.sh does), and metadata
lists (30 kernels, 10 cases of 3 arguments, 10 arguments, 10 selected tests). A candidate is
interesting while objects 7, 15 and 23, kernels kernel_7 and kernel_23, a case with argument 2
and test t-3 remain; the predicate checks that with shell builtins only (no process per check). Two predicates around that check:

- sleep: waits 0.3 s first (latency-bound, like a check on a GPU);
- cpu:   computes for about 0.15 s first (python3 -S, one core busy: CPU-bound).

Each scenario runs `-j N` and `-j 1` in turn, N and 1 alternating (`--pairs` times), and reports
the median of the per-pair wall-time ratios -j N / -j 1 (pairing keeps a ratio meaningful while
the machine's load drifts), the predicate runs launched and cancelled (from --stats-json), and
checks that every run's output and reduction log are byte-identical to the first -j 1 run's.
Targets (issue 13): sleep, -j 4 <= 0.5 x -j 1; cpu on 2 cores, -j 2 not slower than -j 1.

Writes bench/bundle/RESULTS.md (figures from this one run) and prints it.
"""

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parent.parent

# Shell builtins only (no process per check): the predicate's own cost is its sleep or its
# computation, not a dozen greps competing for the cores.
CHECK = r"""for k in 7 15 23; do [ -e "$1/objects/o$k.co" ] || exit 1; done
read -r m < "$1/metadata.json" || [ -n "$m" ] || exit 1
case $m in *'"kernel_7"'*) ;; *) exit 1 ;; esac
case $m in *'"kernel_23"'*) ;; *) exit 1 ;; esac
case $m in *'"t-3"'*) ;; *) exit 1 ;; esac
case $m in *'"arguments":[2,'* | *'"arguments":[2]'* | *'"arguments":['[0-9]','*2[],]*) ;; *) exit 1 ;; esac
exit 0
"""

PREDICATES = {
    "sleep": "#!/bin/sh\nsleep 0.3\n" + CHECK,
    "cpu": "#!/bin/sh\npython3 -S -c 'sum(range(3_000_000))'\n" + CHECK,
}

SCENARIOS = [("sleep", 4), ("sleep", 2), ("cpu", 2)]


def build_bundle(root: Path, objects: int) -> Path:
    """Compiles one kernel per object and writes bundle.json; returns its path."""
    (root / "objects").mkdir(parents=True)
    build = root / "build"
    build.mkdir()
    entries = []
    for i in range(objects):
        source = build / f"k{i}.cl"
        source.write_text(
            f"__kernel void kernel_{i}(__global int *out) "
            f"{{ out[__builtin_amdgcn_workitem_id_x()] = {i}; }}\n"
        )
        obj = build / f"k{i}.o"
        subprocess.run(
            ["clang", "-x", "cl", "-Xclang", "-finclude-default-header",
             "--target=amdgcn-amd-amdhsa", "-mcpu=gfx90a", "-nogpulib", "-g",
             "-c", str(source), "-o", str(obj)],
            check=True,
        )
        subprocess.run(
            ["ld.lld", "-shared", str(obj), "-o", str(root / "objects" / f"o{i}.co")],
            check=True,
        )
        entries.append({"id": f"o{i}", "path": f"objects/o{i}.co"})
    shutil.rmtree(build)
    metadata = {
        "kernels": [{"name": f"kernel_{i}"} for i in range(objects)],
        "cases": [{"name": f"c-{i}", "arguments": [i % 3, (i + 1) % 3, 7]} for i in range(10)],
        "arguments": [f"a-{i}" for i in range(10)],
        "selected_tests": [f"t-{i}" for i in range(10)],
    }
    bundle = root / "bundle.json"
    bundle.write_text(json.dumps({
        "format": "comgr-hotswap-reducer-bundle", "version": 1,
        "code_objects": entries, "metadata": metadata,
    }))
    return bundle


def run_once(minrepro, bundle, predicate, jobs, work: Path, name: str):
    """One reduction; returns (wall seconds, stats, output bytes by file)."""
    out = work / name
    stats_file = work / f"{name}.stats.json"
    command = [minrepro, "bundle", "-q", "-j", str(jobs), "--bundle", str(bundle),
               "--output", str(out), "--predicate", str(predicate),
               "--predicate-arg={workspace}", "--stats-json", str(stats_file)]
    started = time.monotonic()
    subprocess.run(command, check=True)
    wall = time.monotonic() - started
    files = {str(p.relative_to(out)): p.read_bytes() for p in sorted(out.rglob("*")) if p.is_file()}
    stats = json.loads(stats_file.read_text())
    shutil.rmtree(out)
    stats_file.unlink()
    return wall, stats, files


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--minrepro", default=str(REPO / "target/release/minrepro"))
    parser.add_argument("--pairs", type=int, default=3)
    parser.add_argument("--objects", type=int, default=30)
    parser.add_argument("--out", default=str(HERE / "RESULTS.md"))
    parser.add_argument("--only", help="run only this scenario, e.g. sleep:4")
    args = parser.parse_args()
    scenarios = SCENARIOS
    if args.only:
        kind, jobs = args.only.split(":")
        scenarios = [(kind, int(jobs))]
    work = Path(tempfile.mkdtemp(prefix="bench-bundle-"))
    try:
        bundle = build_bundle(work / "in", args.objects)
        rows = []
        reference = {}
        for kind, jobs in scenarios:
            predicate = work / f"{kind}.sh"
            predicate.write_text(PREDICATES[kind])
            predicate.chmod(0o755)
            ratios, walls, launched, cancelled = [], {1: [], jobs: []}, {}, {}
            for pair in range(args.pairs):
                for j in (jobs, 1) if pair % 2 == 0 else (1, jobs):
                    wall, stats, files = run_once(args.minrepro, bundle, predicate, j, work, f"{kind}-{j}")
                    walls[j].append(wall)
                    launched.setdefault(j, []).append(stats["predicate_runs"])
                    cancelled.setdefault(j, []).append(stats["cancelled_runs"])
                    reference.setdefault(kind, files)
                    if files != reference[kind]:
                        sys.exit(f"{kind} -j {j}: output differs from the first -j 1 run")
                ratios.append(walls[jobs][-1] / walls[1][-1])
            rows.append({
                "predicate": kind, "jobs": jobs,
                "ratio": statistics.median(ratios),
                "ratios": ratios,
                "wall_n": statistics.median(walls[jobs]), "wall_1": statistics.median(walls[1]),
                "runs_n": launched[jobs], "cancelled_n": cancelled[jobs], "runs_1": launched[1],
            })
            print(rows[-1], flush=True)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    write_results(rows, args)


def write_results(rows, args):
    commit = subprocess.run(["git", "-C", str(REPO), "rev-parse", "--short", "HEAD"],
                            capture_output=True, text=True).stdout.strip()
    lines = [
        "# `minrepro bundle` -j: results",
        "",
        f"Generated by `python3 bench/bundle/run.py` (method in its docstring): {args.objects}"
        f" code objects, {args.pairs} pairs per scenario, {os.cpu_count()} cores,"
        f" {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}, commit {commit}."
        " Figures from this one run; other work on the machine affects them.",
        "",
        "| predicate | -j N | wall -j N / -j 1 (median of pairs) | pair ratios | median wall -j N s |"
        " median wall -j 1 s | runs launched -j N (cancelled) | runs -j 1 |",
        "| --- | --- | --- | --- | --- | --- | --- | --- |",
    ]
    for r in rows:
        launched = ", ".join(f"{a} ({c})" for a, c in zip(r["runs_n"], r["cancelled_n"]))
        lines.append(
            f"| {r['predicate']} | {r['jobs']} | {r['ratio']:.3f} |"
            f" {', '.join(f'{x:.3f}' for x in r['ratios'])} | {r['wall_n']:.2f} |"
            f" {r['wall_1']:.2f} | {launched} | {', '.join(map(str, r['runs_1']))} |"
        )
    lines.append("")
    lines.append("Every run's output directory (reduction-log.json included) was byte-identical"
                 " to the first -j 1 run's of the same predicate.")
    text = "\n".join(lines) + "\n"
    Path(args.out).write_text(text)
    print(text)


if __name__ == "__main__":
    main()
