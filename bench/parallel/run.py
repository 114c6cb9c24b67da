#!/usr/bin/env python3
"""Width that turns into speed: the three front ends at growing `-j` with a latency-bound predicate.

    python3 bench/parallel/run.py [--minrepro PATH] [--cases file,python,bundle]
        [--jobs 1,2,4,8,16,32] [--sleep 0.2] [--repeat 16] [--peers] [--slurm] [--mode ...]

The predicate waits (`sleep`, no CPU), the way a check on a GPU or a job step on another node
waits, so the 2 shared cores of the machine are no limit and wall time measures how many rounds
of predicate runs the search needs one after the other.

Cases (generated in a temporary directory):
- file:   a 300-line text of bracketed calls, 3 lines needed (`minrepro file`, C-Reduce style
          test script);
- python: examples/python/shape_mismatch.py with a frozen `time.sleep` at its top
          (`minrepro python --backend subproc`);
- bundle: 40 code objects and 60 cases from bench/scale/gen_bundle.py (spread 2: two objects
          and two kernels needed besides the generator's own), the predicate sleeping first.

Per run: wall time, predicate runs launched and cancelled and sequential steps (--stats-json),
result size, and a digest of the output (and of the bundle's reduction log). Each -j above 1 runs
in every mode of `--modes` (`exact`: results identical to -j 1; `fold`: folding). `--repeat N`
runs `-j N` a second time in each mode and says whether output, log and steps are identical. `--peers` adds C-Vise `--not-c --n N` and Shrink Ray
`--parallelism N` on the file case (Shrink Ray from a Python 3.12 venv, see --shrinkray).
`--slurm` runs the file case through a single-node Slurm started here (bench/slurm/run.py's
cluster; ports are fixed: not while the test suite's Slurm tests run).

Prints a Markdown table per case; figures go in bench/parallel/RESULTS.md.
"""

import argparse
import hashlib
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent

# The flags of each mode of width (-j 1 is the same in every mode and runs once).
MODES = {"exact": ["--exact"], "fold": ["--fold"]}
REPO = HERE.parent.parent

NEEDED = ("needle_alpha", "needle_beta", "needle_gamma")


def text_case(root: Path, sleep: float) -> tuple[Path, Path]:
    """300 lines of bracketed calls in nested blocks; 3 of them (one word each) needed."""
    lines = []
    for i in range(300):
        word = NEEDED[[37, 151, 262].index(i)] if i in (37, 151, 262) else f"w{i}"
        if i % 10 == 0:
            lines.append(f"block_{i} {{")
        inner = "    " if i % 10 else ""
        lines.append(f"{inner}{word} = call_{i % 7}({i}, [a{i % 5}, b{i % 3}], (c + {i}));")
        if i % 10 == 9:
            lines.append("}")
    (root / "input.txt").write_text("\n".join(lines) + "\n")
    test = root / "test.sh"
    checks = " && ".join(f"grep -q {n} input.txt" for n in NEEDED)
    test.write_text(f"#!/bin/sh\nsleep {sleep}\n{checks}\n")
    test.chmod(0o755)
    return test, root / "input.txt"


def python_case(root: Path, sleep: float) -> Path:
    source = (REPO / "examples" / "python" / "shape_mismatch.py").read_text()
    head, rest = source.split("import math\n", 1)
    frozen = f"import time  # autodd: freeze\ntime.sleep({sleep})  # autodd: freeze\n"
    path = root / "program.py"
    path.write_text(head + frozen + "import math\n" + rest)
    return path


def bundle_case(root: Path, sleep: float) -> Path:
    subprocess.run([sys.executable, str(REPO / "bench" / "scale" / "gen_bundle.py"),
                    str(root / "in"), "40", "600", "2"], check=True)
    pred = root / "in" / "predicate.sh"
    body = pred.read_text().split("\n", 1)[1]
    pred.write_text(f"#!/bin/sh\nsleep {sleep}\n{body}")
    return root / "in"


def digest(path: Path) -> str:
    h = hashlib.sha256()
    files = sorted(p for p in path.rglob("*") if p.is_file()) if path.is_dir() else [path]
    for p in files:
        if path.is_dir():  # a single file's name differs per run: its bytes alone
            h.update(str(p.relative_to(path)).encode())
        h.update(p.read_bytes())
    return h.hexdigest()[:12]


def size_of(path: Path) -> str:
    if path.is_dir():
        objects = len(list((path / "objects").glob("*"))) if (path / "objects").exists() else 0
        meta = path / "metadata.json"
        entries = meta.read_text().count(",") + 1 if meta.exists() else 0
        return f"{objects} obj / {entries} entries"
    text = path.read_text()
    return f"{len(text.split())} words / {len(text)} B"


def minrepro_argv(args, case: str, paths: dict, jobs: int, out: Path, stats: Path,
                  mode: str) -> list[str]:
    common = ["-j", str(jobs), "--stats-json", str(stats), "-q", *MODES[mode], *args.extra]
    if case == "file":
        test, input_file = paths["file"]
        return [args.minrepro, "file", str(test), str(input_file), "-o", str(out), *common]
    if case == "python":
        return [args.minrepro, "python", str(paths["python"]), "--err-msg",
                "K shape check failed", "--backend", "subproc", "-o", str(out), *common]
    bundle = paths["bundle"]
    return [args.minrepro, "bundle", "--bundle", str(bundle / "bundle.json"), "--output",
            str(out), "--predicate", str(bundle / "predicate.sh"),
            "--predicate-arg={workspace}", *common]


def run_minrepro(args, case, paths, jobs, work: Path, tag: str, mode: str) -> dict:
    out = work / f"out-{case}-{jobs}-{mode}-{tag}"
    if case == "file":
        out = out.with_suffix(".txt")
    stats = work / f"stats-{case}-{jobs}-{mode}-{tag}.json"
    argv = minrepro_argv(args, case, paths, jobs, out, stats, mode)
    cwd = paths["file"][0].parent if case == "file" else work
    start = time.monotonic()
    proc = subprocess.run(argv, cwd=cwd, capture_output=True, text=True)
    wall = time.monotonic() - start
    if proc.returncode != 0:
        raise SystemExit(f"{' '.join(argv)} failed ({proc.returncode}):\n{proc.stderr}")
    s = json.loads(stats.read_text())
    tool = "minrepro" if jobs == 1 else f"minrepro {mode}"
    result = {"tool": tool, "jobs": jobs, "wall": wall, "runs": s["predicate_runs"],
              "cancelled": s["cancelled_runs"], "size": size_of(out), "tokens": s["size_after"],
              "steps": s.get("sequential_steps"), "digest": digest(out)}
    if case == "bundle":
        result["log"] = digest(out / "reduction-log.json")
    return result


def run_peer(name: str, label: str, command: list[str], paths, jobs, work: Path) -> dict:
    """Runs a peer reducer (`command` + its test + the input's name) on a copy of the file case
    in its own directory, in place, as C-Vise and Shrink Ray reduce."""
    test, input_file = paths["file"]
    d = work / f"{name}-{jobs}"
    d.mkdir()
    shutil.copy(input_file, d / input_file.name)
    shutil.copy(test, d / test.name)
    start = time.monotonic()
    subprocess.run(command + [str(d / test.name), input_file.name], cwd=d, check=True,
                   capture_output=True)
    wall = time.monotonic() - start
    out = d / input_file.name
    return {"tool": label, "jobs": jobs, "wall": wall, "runs": None, "cancelled": None,
            "steps": None, "size": size_of(out), "tokens": None, "digest": digest(out)}


def run_cvise(args, paths, jobs, work: Path) -> dict:
    return run_peer("cvise", "C-Vise --not-c",
                    ["cvise", "--n", str(jobs), "--not-c", "--timeout", "30"], paths, jobs, work)


def run_shrinkray(args, paths, jobs, work: Path) -> dict:
    return run_peer("shrinkray", "Shrink Ray",
                    [args.shrinkray, "--parallelism", str(jobs), "--timeout", "30",
                     "--ui", "basic"], paths, jobs, work)


def table(case: str, rows: list[dict]) -> str:
    """Ratios against the same tool's -j 1 (every minrepro mode against minrepro -j 1)."""
    family = lambda tool: tool.split()[0]  # noqa: E731
    base = {family(r["tool"]): r["wall"] for r in rows if r["jobs"] == 1}
    base_runs = next((r["runs"] for r in rows if r["tool"] == "minrepro" and r["jobs"] == 1),
                     None)
    lines = [f"### {case}", "",
             "| tool | -j | wall s | / -j 1 | runs | / -j 1 runs | cancelled | steps | result | tokens | output |",
             "| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |"]
    for r in rows:
        b = base.get(family(r["tool"]))
        ratio = r["wall"] / b if b else float("nan")
        runs_ratio = (f"{r['runs'] / base_runs:.2f}" if r["runs"] is not None and base_runs
                      and r["tool"].startswith("minrepro") else "")
        output = r["digest"] + (f" (log {r['log']})" if "log" in r else "")
        lines.append(
            f"| {r['tool']} | {r['jobs']} | {r['wall']:.1f} | {ratio:.2f} | {r['runs'] or ''} | "
            f"{runs_ratio} | {'' if r['cancelled'] is None else r['cancelled']} | "
            f"{r['steps'] or ''} | {r['size']} | {r['tokens'] or ''} | {output} |")
    return "\n".join(lines) + "\n"


def slurm_run(args, paths, work: Path) -> str:
    """The file case through a single-node Slurm at -j 1 and -j 8 (1 s predicate)."""
    import importlib.util  # bench/slurm/run.py by path: this script is a run.py too
    spec = importlib.util.spec_from_file_location("slurm_bench", REPO / "bench" / "slurm" / "run.py")
    slurm_bench = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(slurm_bench)
    rows = []
    # Eight job steps at once need eight CPUs on the single node: the predicate sleeps, so
    # declaring them models eight nodes waiting, not eight computing on 2 cores.
    os.environ.setdefault("MINREPRO_SLURM_CPUS", "8")
    with slurm_bench.cluster(work / "slurm") as env:
        for jobs in (1, 8):
            out = work / f"slurm-out-{jobs}.txt"
            stats = work / f"slurm-stats-{jobs}.json"
            test, input_file = paths["file"]
            argv = [args.minrepro, "file", str(test), str(input_file), "-o", str(out), "-j",
                    str(jobs), "--stats-json", str(stats), "-q", "--launcher", "slurm",
                    "--work-dir", str(work / "slurm-work"), *args.extra]
            (work / "slurm-work").mkdir(exist_ok=True)
            start = time.monotonic()
            subprocess.run(argv, cwd=test.parent, check=True, env=env)
            wall = time.monotonic() - start
            s = json.loads(stats.read_text())
            rows.append({"tool": "minrepro (slurm)", "jobs": jobs, "wall": wall,
                         "runs": s["predicate_runs"], "cancelled": s["cancelled_runs"],
                         "steps": s.get("sequential_steps"),
                         "size": size_of(out), "tokens": s["size_after"], "digest": digest(out)})
    return table("file through Slurm", rows)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--minrepro", default=str(REPO / "target" / "debug" / "minrepro"))
    parser.add_argument("--cases", default="file,python,bundle")
    parser.add_argument("--jobs", default="1,2,4,8,16,32")
    parser.add_argument("--sleep", type=float, default=0.2)
    parser.add_argument("--repeat", type=int, default=16,
                        help="run this -j twice and compare outputs (0: no repeat)")
    parser.add_argument("--peers", action="store_true")
    parser.add_argument("--peer-jobs", default="1,4,16")
    parser.add_argument("--slurm", action="store_true")
    parser.add_argument("--shrinkray",
                        default=str(Path("/work/tmp/width/venv-shrinkray/bin/shrinkray")))
    parser.add_argument("--modes", default="exact,fold",
                        help="modes of width run at each -j above 1 (exact: --exact, fold: --fold)")
    parser.add_argument("--extra", action="append", default=[],
                        help="an extra minrepro flag (repeatable)")
    args = parser.parse_args()
    jobs = [int(j) for j in args.jobs.split(",")]
    cases = [c for c in args.cases.split(",") if c]  # --cases "" with --slurm: Slurm alone
    print(f"load before: {os.getloadavg()}", flush=True)
    with tempfile.TemporaryDirectory(prefix="parallel-bench-") as tmp:
        work = Path(tmp)
        paths = {}
        for case in cases + (["file"] if args.slurm or args.peers else []):
            root = work / case
            root.mkdir(exist_ok=True)
            if case == "file" and "file" not in paths:
                paths["file"] = text_case(root, args.sleep)
            elif case == "python":
                paths["python"] = python_case(root, args.sleep)
            elif case == "bundle":
                paths["bundle"] = bundle_case(root, args.sleep)
        modes = args.modes.split(",")
        for case in cases:
            rows = []
            for j in jobs:
                for mode in modes[:1] if j == 1 else modes:
                    rows.append(run_minrepro(args, case, paths, j, work, "a", mode))
                    print(json.dumps({"case": case, **rows[-1]}), flush=True)
            for mode in modes if args.repeat else []:
                again = run_minrepro(args, case, paths, args.repeat, work, "b", mode)
                first = next(r for r in rows
                             if r["jobs"] == args.repeat and r["tool"] == again["tool"])
                same = all(again.get(k) == first.get(k) for k in ("digest", "log", "steps"))
                print(json.dumps({"case": case, "repeat": args.repeat, "identical": same,
                                  **again}), flush=True)
            if case == "file" and args.peers:
                for j in [int(j) for j in args.peer_jobs.split(",")]:
                    rows.append(run_cvise(args, paths, j, work))
                    print(json.dumps({"case": case, **rows[-1]}), flush=True)
                    if Path(args.shrinkray).exists():
                        rows.append(run_shrinkray(args, paths, j, work))
                        print(json.dumps({"case": case, **rows[-1]}), flush=True)
            print(table(case, rows), flush=True)
        if args.slurm:
            print(slurm_run(args, paths, work), flush=True)
    print(f"load after: {os.getloadavg()}", flush=True)


if __name__ == "__main__":
    main()
