#!/usr/bin/env python3
"""Predicate runs lost to a kill: issue 38's figures.

For each front end (file: examples/file; python: examples/python/shape_mismatch.py; bundle:
examples/bundle), with predicates that count their own runs in a file:
  1. an uninterrupted run with a fresh --cache-file: N runs, wall time T;
  2. the same command with another fresh cache, SIGKILLed after T/2: R1 runs;
  3. the same command again with that cache: R2 runs.
R1 + R2 - N is what the kill cost. Prints a Markdown table (and JSON with --json).

    python3 bench/resume/kill.py --minrepro target/debug/minrepro [--jobs 1] [--rerun-force]

--rerun-force adds --force to step 3 (a minrepro without resumption refuses the output its
killed run left). Timings are not the point (only run counts are): still, note the load.
"""

import argparse
import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def script(path, body):
    with open(path, "w") as f:
        f.write("#!/bin/sh\n" + body)
    os.chmod(path, 0o755)
    return path


def cases(work, count):
    """(name, argv after the binary without output and cache, output flag)."""
    ex = os.path.join(ROOT, "examples")
    file_test = script(
        os.path.join(work, "file-test.sh"),
        f"echo x >> '{count}'\nexec '{ex}/file/test.sh'\n",
    )
    py_test = script(
        os.path.join(work, "py-test.sh"),
        f"echo x >> '{count}'\n"
        f"'{sys.executable}' -S \"$1\" 2>&1 | grep -q 'T.gemm K shape check failed: 48 != 64'\n",
    )
    bundle_test = script(
        os.path.join(work, "bundle-test.sh"),
        f"echo x >> '{count}'\nexec '{ex}/bundle/predicate.sh' \"$@\"\n",
    )
    return [
        ("file", ["file", file_test, f"{ex}/file/ring.c"], "-o"),
        (
            "python",
            [
                "python",
                f"{ex}/python/shape_mismatch.py",
                "--python",
                sys.executable,
                "--predicate",
                py_test,
                "--predicate-arg={file}",
            ],
            "-o",
        ),
        (
            "bundle",
            [
                "bundle",
                "--bundle",
                f"{ex}/bundle/bundle.json",
                "--predicate",
                bundle_test,
                "--predicate-arg={bundle}",
            ],
            "--output",
        ),
    ]


def runs(count):
    try:
        with open(count) as f:
            return sum(1 for _ in f)
    except FileNotFoundError:
        return 0


def measure(binary, jobs, rerun_force):
    rows = []
    for name in ("file", "python", "bundle"):
        work = tempfile.mkdtemp(prefix="minrepro-bench-resume-")
        try:
            env = dict(os.environ, TMPDIR=work)
            count = os.path.join(work, "count")
            _, argv, out_flag = next(c for c in cases(work, count) if c[0] == name)

            def command(tag, extra=()):
                return (
                    [binary]
                    + argv
                    + [out_flag, os.path.join(work, f"out-{tag}"), "-q", f"-j{jobs}"]
                    + ["--cache-file", os.path.join(work, f"cache-{tag}.json")]
                    + list(extra)
                )

            start = time.monotonic()
            done = subprocess.run(command("whole"), env=env, capture_output=True, text=True)
            wall = time.monotonic() - start
            if done.returncode != 0:
                raise SystemExit(f"{name}: the uninterrupted run failed: {done.stderr}")
            whole = runs(count)
            os.remove(count)
            child = subprocess.Popen(
                command("killed"), env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
            )
            time.sleep(wall / 2)
            child.send_signal(signal.SIGKILL)
            child.wait()
            killed = runs(count)
            if killed:
                os.remove(count)
            # bundle publishes only at the end: a killed run leaves no output to refuse.
            extra = ["--force"] if rerun_force and name != "bundle" else []
            again = subprocess.run(
                command("killed", extra), env=env, capture_output=True, text=True
            )
            if again.returncode != 0:
                raise SystemExit(f"{name}: the resumed run failed: {again.stderr}")
            resumed = runs(count)
            same = identical(os.path.join(work, "out-whole"), os.path.join(work, "out-killed"))
            rows.append(
                {
                    "front_end": name,
                    "jobs": jobs,
                    "uninterrupted_runs": whole,
                    "wall_seconds": round(wall, 2),
                    "runs_before_kill": killed,
                    "runs_after_kill": resumed,
                    "extra_runs": killed + resumed - whole,
                    "same_result": same,
                }
            )
        finally:
            shutil.rmtree(work, ignore_errors=True)
    return rows


def identical(a, b):
    if os.path.isdir(a):
        names = sorted(
            os.path.relpath(os.path.join(d, f), a) for d, _, fs in os.walk(a) for f in fs
        )
        other = sorted(
            os.path.relpath(os.path.join(d, f), b) for d, _, fs in os.walk(b) for f in fs
        )
        return names == other and all(identical(os.path.join(a, n), os.path.join(b, n)) for n in names)
    with open(a, "rb") as x, open(b, "rb") as y:
        return x.read() == y.read()


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--minrepro", required=True)
    parser.add_argument("--jobs", type=int, default=1)
    parser.add_argument("--rerun-force", action="store_true")
    parser.add_argument("--json")
    args = parser.parse_args()
    load_before = open("/proc/loadavg").read().split()[:3]
    rows = measure(os.path.abspath(args.minrepro), args.jobs, args.rerun_force)
    load_after = open("/proc/loadavg").read().split()[:3]
    print(f"minrepro {args.minrepro}, -j {args.jobs}; load before {' '.join(load_before)}, after {' '.join(load_after)}")
    print("| front end | uninterrupted | killed at T/2 + resumed | extra | same result |")
    print("| --- | --- | --- | --- | --- |")
    for r in rows:
        print(
            f"| {r['front_end']} | {r['uninterrupted_runs']} ({r['wall_seconds']} s) | "
            f"{r['runs_before_kill']} + {r['runs_after_kill']} | {r['extra_runs']} | {r['same_result']} |"
        )
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"load_before": load_before, "load_after": load_after, "rows": rows}, f, indent=1)


if __name__ == "__main__":
    main()
