#!/usr/bin/env python3
"""What a Slurm job step costs minrepro, measured on a local single-node cluster.

Starts the cluster with scripts/slurm-local.sh (root; stops it again at the end), then measures
in one run, interleaving the two sides so that drift of the machine's speed hits both:

1. one predicate run alone: `python3 -S -c pass` as a local child vs through
   `srun --ntasks=1 --nodes=1 --quiet --quiet --chdir=DIR` (median of N pairs, and the median
   of the pairwise ratios);
2. a whole reduction (examples/python/shape_mismatch.py, --backend subproc, release build) at
   -j 1 and -j 2, locally and with --launcher slurm: wall time, predicate runs, the overhead per
   predicate run ((slurm wall - local wall) * jobs / runs), and whether the outputs are
   byte-identical.

Usage: python3 bench/slurm/run.py [PAIRS]   (default 30). Not part of the test suite.
"""

import contextlib
import os
import statistics
import subprocess
import sys
import tempfile
import time

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
SCRIPT = os.path.join(ROOT, "scripts", "slurm-local.sh")
MINREPRO = os.path.join(ROOT, "target", "release", "minrepro")
SOURCE = os.path.join(ROOT, "examples", "python", "shape_mismatch.py")
ERR_MSG = "T.gemm K shape check failed"


def wall(argv, **kwargs):
    start = time.perf_counter()
    subprocess.run(argv, check=True, stdin=subprocess.DEVNULL, **kwargs)
    return time.perf_counter() - start


def step_overhead(work, pairs):
    predicate = [sys.executable, "-S", "-c", "pass"]
    srun = ["srun", "--ntasks=1", "--nodes=1", "--quiet", "--quiet", "--chdir=" + work]
    local, remote, ratios = [], [], []
    wall(srun + predicate)  # warm-up: the first step after a cold start is slower
    for _ in range(pairs):
        a = wall(predicate, cwd=work)
        b = wall(srun + predicate)
        local.append(a)
        remote.append(b)
        ratios.append(b / a)
    ms = lambda xs: statistics.median(xs) * 1000
    print(f"one run of `python3 -S -c pass`, median of {pairs} pairs:")
    print(f"  local child {ms(local):.1f} ms, srun step {ms(remote):.1f} ms,"
          f" overhead {ms(remote) - ms(local):.1f} ms per step,"
          f" ratio srun/local {statistics.median(ratios):.2f}")


def reduce(out, jobs, extra):
    argv = [MINREPRO, "python", SOURCE, "--err-msg", ERR_MSG, "-o", out, "--backend", "subproc",
            "-j", str(jobs), "--stats-json", out + ".json", "-q"] + extra
    seconds = wall(argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    import json
    with open(out + ".json") as f:
        runs = json.load(f)["predicate_runs"]
    with open(out, "rb") as f:
        return seconds, runs, f.read()


def reductions(work, tmp):
    for jobs in (1, 2):
        local = reduce(os.path.join(tmp, f"local-{jobs}.py"), jobs, [])
        remote = reduce(os.path.join(tmp, f"slurm-{jobs}.py"), jobs,
                        ["--launcher", "slurm", "--work-dir", work])
        per_run = (remote[0] - local[0]) * jobs / remote[1] * 1000
        print(f"reduction of shape_mismatch.py at -j {jobs}: local {local[0]:.2f} s,"
              f" slurm {remote[0]:.2f} s ({remote[1]} predicate runs),"
              f" ratio {remote[0] / local[0]:.2f}, overhead {per_run:.0f} ms per run,"
              f" outputs {'identical' if local[2] == remote[2] else 'DIFFERENT'}")


@contextlib.contextmanager
def cluster(env_dir):
    """A single-node Slurm started for the block (scripts/slurm-local.sh, root) and stopped after
    it; yields the environment that points srun and minrepro's launcher at it."""
    env = dict(os.environ, MINREPRO_SLURM_DIR=str(env_dir))
    started = subprocess.run([SCRIPT, "start"], capture_output=True, text=True, env=env)
    if started.returncode != 0:
        sys.exit(f"cannot start the local Slurm: {started.stderr.strip()}")
    env["SLURM_CONF"] = os.path.join(str(env_dir), "slurm.conf")
    try:
        yield env
    finally:
        subprocess.run([SCRIPT, "stop"], check=False, env=env)


def main():
    pairs = int(sys.argv[1]) if len(sys.argv) > 1 else 30
    subprocess.run(["cargo", "build", "--quiet", "--release", "-p", "minrepro"], cwd=ROOT,
                   check=True)
    with tempfile.TemporaryDirectory(prefix="minrepro-slurm-bench-") as tmp:
        with cluster(os.path.join(tmp, "cluster")) as env:
            os.environ.update(env)
            work = os.path.join(tmp, "work")
            os.mkdir(work)
            print(f"{os.cpu_count()} CPUs; single-node Slurm on 127.0.0.1")
            step_overhead(work, pairs)
            reductions(work, tmp)

if __name__ == "__main__":
    main()
