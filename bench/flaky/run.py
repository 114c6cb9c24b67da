#!/usr/bin/env python3
"""Failures that happen only sometimes: what `--predicate-runs N --min-interesting K` costs.

    python3 bench/flaky/run.py [--minrepro PATH] [--seeds S] [--out FILE]

Method. A few generated inputs (`minrepro file`, one text each, seeded generators below), each
holding needles that the predicate requires. The predicate (predicate.sh) is never interesting
without every needle; with them, a run is interesting with probability p: its verdict is a bit
of SHA-256 over a seed, the candidate's digest and how many times that candidate ran before, so
a reduction is reproducible for a given seed while each candidate sees its own sequence of
passes and failures. p = 1 is the deterministic predicate (one run per candidate), the
reference. Every run appends a line to a log; "runs" is its line count (every predicate process
started, the original's and the empty-file check's included), at -j 1 (no cancelled runs).

N and K per p are derived, not tuned: K = 1, since a candidate without the needles is never
interesting (the predicate checks for the failure itself), and N is the fewest runs that miss a
candidate still holding the needles at most 1% of the time, (1 - p)^N <= 0.01 -- the rule
minrepro itself uses when it suggests flags for a flaky original. That gives N = 13, 7, 3 for
p = 0.3, 0.5, 0.8. The expected cost per candidate is then N runs for a rejected one and
(1 - (1 - p)^N) / p runs for an accepted one (a truncated geometric), which the table compares
with what was measured ("model").

For contrast, each flaky p also runs with the default (one run per candidate, no flags): the
original is refused when its one run fails, and otherwise every failing run rejects a candidate
that still has the needles.

Writes bench/out/flaky/results.json and bench/flaky/RESULTS.md (figures from one run), and
prints the table. Notes the load (/proc/loadavg) before and after: the figures are counts, not
times, so load does not change them, but the wall times printed beside them do.
"""

import argparse
import json
import math
import os
import random
import shutil
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parent.parent
OUT = REPO / "bench" / "out" / "flaky"
RATES = [0.3, 0.5, 0.8]
MISS_RATE = 0.01
WORDS = ["alpha", "beta", "gamma", "delta", "epsilon", "zeta", "eta", "theta", "iota", "kappa"]


def runs_for(p):
    """The fewest runs N with (1 - p)^N <= MISS_RATE (K = 1), at least 2; 1 for p = 1."""
    if p >= 1:
        return 1
    return max(2, math.ceil(math.log(MISS_RATE) / math.log(1 - p)))


def lines_case(rng):
    """60 lines of words, one needle line in the middle."""
    lines = [" ".join(rng.choice(WORDS) for _ in range(rng.randint(2, 6))) for _ in range(60)]
    lines[31] = "the NEEDLE_A is here"
    return "\n".join(lines) + "\n", ["NEEDLE_A"]


def two_needles_case(rng):
    """150 lines, two needles far apart (both must stay)."""
    lines = [" ".join(rng.choice(WORDS) for _ in range(rng.randint(1, 5))) for _ in range(150)]
    lines[20] = "first NEEDLE_A"
    lines[121] = "second NEEDLE_B"
    return "\n".join(lines) + "\n", ["NEEDLE_A", "NEEDLE_B"]


def nested_case(rng):
    """C-like functions with nested blocks; the needle deep in one of them."""
    out = []
    for f in range(12):
        out.append(f"int f{f}(int x) {{")
        for s in range(rng.randint(2, 5)):
            out.append(f"    if (x > {s}) {{")
            out.append(f"        x = x * {rng.randint(2, 9)} + {rng.choice(WORDS)};")
            if f == 7 and s == 1:
                out.append("        NEEDLE_A(x);")
            out.append("    }")
        out.append("    return x;")
        out.append("}")
    return "\n".join(out) + "\n", ["NEEDLE_A"]


def large_case(rng):
    """400 lines in 40 indented blocks, three needles in different blocks."""
    lines = []
    for block in range(40):
        lines.append(f"block {block} {{")
        lines.extend("    " + " ".join(rng.choice(WORDS) for _ in range(rng.randint(1, 6)))
                     for _ in range(9))
        lines.append("}")
    lines[57] = "    NEEDLE_A here"
    lines[230] = "    NEEDLE_B there"
    lines[401] = "    and NEEDLE_C"
    return "\n".join(lines) + "\n", ["NEEDLE_A", "NEEDLE_B", "NEEDLE_C"]


CASES = [("lines", lines_case), ("two-needles", two_needles_case), ("nested", nested_case),
         ("large", large_case)]


def write_predicate(path, state, needles, p, seed):
    """predicate.sh FILE: needles required; then interesting with probability p (in 1/4096)."""
    threshold = round(p * 4096)
    checks = "\n".join(f"grep -q '{n}' \"$1\" || {{ echo no >> \"$state/log\"; exit 1; }}"
                       for n in needles)
    path.write_text(f"""#!/bin/sh
state='{state}'
d=$(sha256sum < "$1" | cut -c1-16)
n=$(cat "$state/$d" 2>/dev/null || echo 0); echo $((n + 1)) > "$state/$d"
{checks}
h=$(printf '%s-%s-%s' {seed} "$d" "$n" | sha256sum | cut -c1-3)
if [ $((0x$h)) -lt {threshold} ]; then echo yes >> "$state/log"; exit 0; fi
echo fail >> "$state/log"; exit 1
""")
    path.chmod(0o755)


def reduce(minrepro, work, text, needles, p, seed, flags):
    """One reduction; returns its figures."""
    if work.exists():
        shutil.rmtree(work)
    state = work / "state"
    state.mkdir(parents=True)
    (work / "in.txt").write_text(text)
    write_predicate(work / "predicate.sh", state, needles, p, seed)
    stats = work / "stats.json"
    argv = [str(minrepro), "file", "--predicate", str(work / "predicate.sh"),
            "--predicate-arg", "{file}", "in.txt", "-o", "out.txt", "-q",
            "--stats-json", str(stats)] + flags
    started = time.monotonic()
    done = subprocess.run(argv, cwd=work, capture_output=True, text=True,
                          env=dict(os.environ, TMPDIR=str(work)))
    seconds = time.monotonic() - started
    log = (state / "log").read_text().split() if (state / "log").exists() else []
    row = {"runs": len(log), "fails": log.count("fail"), "seconds": round(seconds, 2),
           "exit": done.returncode}
    if done.returncode == 0:
        result = (work / "out.txt").read_text()
        figures = json.loads(stats.read_text())
        row.update(bytes=len(result.encode()), tokens=figures["size_after"],
                   candidates=figures["candidates"], accepted=figures["accepted"],
                   complete=all(n in result for n in needles), result=result)
    else:
        row["error"] = done.stderr.strip().splitlines()[-1][:200] if done.stderr.strip() else ""
    return row


def model_runs(reference, p, n):
    """Expected runs with K = 1 of N at rate p, from the deterministic run's decisions: every
    rejected candidate costs N, every accepted one (1 - (1 - p)^N) / p on average (as if the
    flaky reduction decided the same candidates)."""
    accepted_evals = reference["accepted"] + 1  # the original
    rejected_evals = reference["runs"] - accepted_evals
    per_accepted = (1 - (1 - p) ** n) / p
    return rejected_evals * n + accepted_evals * per_accepted


def loadavg():
    return Path("/proc/loadavg").read_text().split()[:3]


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--minrepro", default=str(REPO / "target" / "debug" / "minrepro"))
    parser.add_argument("--seeds", type=int, default=5)
    parser.add_argument("--out", default=str(HERE / "RESULTS.md"))
    args = parser.parse_args()
    minrepro = Path(args.minrepro).resolve()
    OUT.mkdir(parents=True, exist_ok=True)
    load_before = loadavg()
    rows = []
    for name, make in CASES:
        text, needles = make(random.Random(name))
        reference = reduce(minrepro, OUT / name / "deterministic", text, needles, 1.0, 0, [])
        assert reference["exit"] == 0, reference
        rows.append(dict(case=name, p=1.0, setting="1 run", seed=0, **reference))
        print(name, "deterministic", reference["runs"], "runs", reference["tokens"], "tokens",
              flush=True)
        for p in RATES:
            n = runs_for(p)
            for seed in range(1, args.seeds + 1):
                for setting, flags in [
                    (f"N={n} K=1", ["--predicate-runs", str(n), "--min-interesting", "1"]),
                    ("default, 1 run", []),
                ]:
                    work = OUT / name / f"p{p}-{setting.split(',')[0].replace(' ', '')}-s{seed}"
                    row = reduce(minrepro, work, text, needles, p, seed, flags)
                    row.update(case=name, p=p, setting=setting, seed=seed)
                    if flags:
                        row["model_runs"] = round(model_runs(reference, p, n))
                    rows.append(row)
                    print(name, p, setting, seed, row.get("runs"), row.get("tokens"),
                          row.get("error", ""), flush=True)
    load_after = loadavg()
    (OUT / "results.json").write_text(json.dumps(
        {"load_before": load_before, "load_after": load_after, "rows": rows}, indent=1))
    report = render(rows, load_before, load_after, args.seeds)
    Path(args.out).write_text(report)
    print(report)


def render(rows, load_before, load_after, seeds):
    out = ["# Failures that happen only sometimes: runs spent and result size", "",
           "Generated by `python3 bench/flaky/run.py` (method, inputs and how N and K are chosen:",
           "its docstring; every row of the run in bench/out/flaky/results.json). `minrepro "
           "file`, -j 1, debug build. Load average (1, 5, 15 min) before "
           f"{' '.join(load_before)}, after {' '.join(load_after)}: the figures are counts, "
           "which load does not change; only the seconds do.", "",
           f"K = 1 and N the fewest runs with (1 - p)^N <= {MISS_RATE}; {seeds} seeds per p "
           "(the seed picks which runs fail). \"runs\" counts every predicate process (the "
           "original's and the empty-file check's too), mean over the seeds that reduced; "
           "\"x det.\" is that over the deterministic reduction's runs; \"model\" the expected "
           "runs had the flaky reduction decided the same candidates as the deterministic one "
           "(rejected: N each; accepted: (1 - (1 - p)^N) / p each); \"refused\" how many seeds' "
           "originals were refused; \"same\" how many results are byte-identical to the "
           "deterministic one; tokens: mean result size (min-max).", ""]
    out.append("| input | p | setting | runs | x det. | model | refused | same | result tokens "
               "| seconds |")
    out.append("| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |")
    groups = {}
    for row in rows:
        groups.setdefault((row["case"], row["p"], row["setting"]), []).append(row)
    for (case, p, setting), group in groups.items():
        ref = groups[(case, 1.0, "1 run")][0]
        done = [r for r in group if r["exit"] == 0]
        refused = len(group) - len(done)
        if not done:
            out.append(f"| {case} | {p} | {setting} | | | | {refused} of {len(group)} | | | |")
            continue
        mean = lambda key: sum(r[key] for r in done) / len(done)
        runs = mean("runs")
        tokens = [r["tokens"] for r in done]
        span = f"{min(tokens)}-{max(tokens)}" if min(tokens) != max(tokens) else f"{tokens[0]}"
        same = sum(r["result"] == ref["result"] for r in done)
        model = f"{mean('model_runs'):.0f}" if "model_runs" in done[0] else ""
        out.append(f"| {case} | {p} | {setting} | {runs:.0f} | {runs / ref['runs']:.1f} | "
                   f"{model} | {refused} of {len(group)} | {same} of {len(done)} | "
                   f"{mean('tokens'):.1f} ({span}) | {mean('seconds'):.1f} |")
    out.append("")
    return "\n".join(out) + "\n"


if __name__ == "__main__":
    sys.exit(main())
