#!/usr/bin/env python3
"""Engine overhead benchmark: time per candidate spent in minrepro itself, predicate excluded.

    python3 bench/engine/run.py [--minrepro PATH] [--no-build] [--baseline PATH] [--out FILE]

Method. Each scenario runs one real reduction whose predicate is wrapped in bench/engine/timed.sh,
which appends its own start and end timestamps to a log. Then

    engine time per candidate = (reducer wall time - sum of in-predicate time) / predicate runs

where "predicate runs" is the number of log lines. What the wrapper cannot see -- forking and
exec'ing the wrapper (bash) itself -- is counted as engine time, so the figure is an upper bound;
the cost of launching the wrapper around /bin/true from this script is printed beside it for
scale. Each scenario is also run once without the wrapper (the bare predicate), giving wall time
per candidate with the same candidate count (the reductions are deterministic).

`minrepro python` can log its own predicate spans (MINREPRO_TIMING_LOG=FILE: one `START END`
line per evaluation, from just before the predicate's launch to just after its verdict), so
the bare run gives a second figure without the wrapper's launch: "engine ms/candidate, own
log" = (wall time - sum of logged spans) / evaluations. It still includes the candidates that
are built but never run (invalid, not smaller, or after the accepted one in a batch) and
minrepro's start-up (finding the interpreter -- a pyenv shim alone takes ~0.2 s here --, reading
and checking the source): "start-up" is the time from launch to the first predicate run, and
the next column leaves it out: (wall time - start-up - sum of logged spans) / evaluations.
Wall time on a shared machine includes waiting for a processor, so the last column gives
minrepro's own processor time (user + system, all its threads, no child processes; logged by
minrepro at the end of the run) per evaluation: this includes forking the predicates and
supervising them, so it is an upper bound of the engine's processor time.

With --baseline PATH, the python/grep scenario is also run with that binary (e.g. a build of
an older commit), in the same invocation, and the ratios new/baseline are reported.

For the bundle scenarios the wrapped run also writes --stats-json: its startup_seconds (from
launch to the first candidate: reading the bundle, listing every object's sections) and
elf_tool_seconds (llvm-objcopy/llvm-readobj runs that build section candidates, after start-up)
are taken out of "engine ms/candidate after start-up, ELF tools excluded" = (wall time -
start-up - ELF tool time - sum of in-predicate time) / predicate runs. It still contains the
wrapper's own launch (bash), so the notes under the table also give it minus the wrapper's
launch cost measured in the same run. On a busy machine wall time includes waiting for a
processor: the last column is minrepro's own processor time after start-up (all threads, no
child processes; cpu_seconds - startup_cpu_seconds of --stats-json) per predicate run.

Scenarios:
- bundle/true: `minrepro bundle` on examples/bundle with the trivial predicate /bin/true
  (every candidate is interesting).
- bundle/example: the same with examples/bundle/predicate.sh (a few greps).
- python/grep: `minrepro python` on a generated ~5,100-line Python file (nine pure-Python
  standard-library modules concatenated, see bench/python/gen_stdlib_case.py) with the predicate
  bench/engine/has_all.sh FILE MARKER... (a few `grep -qF`: the file must still contain six
  fixed strings spread over it; no interpreter is started). Skipped with a note
  while `minrepro python` is not in the build.

Writes bench/out/engine.json and bench/engine/RESULTS.md (figures from one run) and prints the
table.
"""

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

BENCH = Path(__file__).resolve().parent.parent
REPO = BENCH.parent
sys.path.insert(0, str(BENCH / "python"))
import gen_stdlib_case  # noqa: E402

TIMED = BENCH / "engine" / "timed.sh"
HAS_ALL = BENCH / "engine" / "has_all.sh"
# Statements the python/grep predicate keeps, spread over the file.
MARKERS = ["similarity %s below 3/4", "class SequenceMatcher", "def dedent(", "class Fraction(",
           "def heappush(", "class TopologicalSorter"]


def build(path, no_build):
    if path:
        return Path(path).resolve()
    if not no_build:
        subprocess.run(["cargo", "build", "--release", "-p", "minrepro"], cwd=REPO, check=True)
    return REPO / "target" / "release" / "minrepro"


def has_bundle(minrepro):
    """True when the build has the `minrepro bundle` front end."""
    probe = subprocess.run([str(minrepro), "bundle", "--help"], capture_output=True, text=True)
    return probe.returncode == 0 and "--bundle" in probe.stdout


def has_python(minrepro):
    """True when the build has the real `minrepro python` front end (its help has --err-msg)."""
    probe = subprocess.run([str(minrepro), "python", "--help"], capture_output=True, text=True)
    return probe.returncode == 0 and "<SOURCE>" in probe.stdout


def timed_run(argv, log, own_log=False):
    """Run argv with BENCH_TIMING_LOG=log (and MINREPRO_TIMING_LOG=log if own_log); return
    (wall seconds, runs, in-predicate seconds)."""
    log.write_text("")
    env = dict(os.environ, BENCH_TIMING_LOG=str(log))
    if own_log:
        env["MINREPRO_TIMING_LOG"] = str(log)
    launched = time.time()
    start = time.monotonic()
    proc = subprocess.run(argv, env=env, capture_output=True, text=True)
    wall = time.monotonic() - start
    if proc.returncode != 0:
        raise RuntimeError("%s failed (%d): %s" % (argv[:2], proc.returncode, proc.stderr[-1500:]))
    lines = [line.split() for line in log.read_text().splitlines() if line.strip()]
    spans = [tuple(map(float, line)) for line in lines if line[0] != "cpu"]
    cpu = [float(line[1]) + float(line[2]) for line in lines if line[0] == "cpu"]
    startup = spans[0][0] - launched if spans else 0.0
    return wall, len(spans), sum(end - start for start, end in spans), (startup, cpu[-1] if cpu else None)


def wrapper_launch_cost(n=200):
    """Mean seconds to fork+exec timed.sh around /bin/true from here (for scale)."""
    with tempfile.TemporaryDirectory() as tmp:
        env = dict(os.environ, BENCH_TIMING_LOG=os.path.join(tmp, "log"))
        start = time.monotonic()
        for _ in range(n):
            subprocess.run([str(TIMED), "/bin/true"], env=env, check=True)
        wrapped = (time.monotonic() - start) / n
        start = time.monotonic()
        for _ in range(n):
            subprocess.run(["/bin/true"], check=True)
        bare = (time.monotonic() - start) / n
    return wrapped, bare


def scenario(name, make_argv, tmp, stats_json=False):
    """Run one scenario with and without the timing wrapper; return its figures. With
    stats_json, the wrapped run also writes --stats-json, whose startup_seconds (from launch to
    the first candidate: loading, listing sections) is taken out of the per-candidate figure."""
    log = tmp / ("%s.log" % name.replace("/", "_"))
    argv = make_argv(tmp / (name.replace("/", "_") + "-timed"), True)
    stats_file = tmp / ("%s.stats.json" % name.replace("/", "_"))
    if stats_json:
        argv += ["--stats-json", str(stats_file)]
    wall, runs, inside, _ = timed_run(argv, log)
    stats = json.loads(stats_file.read_text()) if stats_json else {}
    wrapped_startup = stats.get("startup_seconds")
    tools = stats.get("elf_tool_seconds", 0.0)
    bare_wall, own_runs, own_inside, (startup, cpu) = timed_run(
        make_argv(tmp / (name.replace("/", "_") + "-bare"), False), log, own_log=True)
    return {
        "startup_s_stats": round(wrapped_startup, 4) if wrapped_startup is not None else None,
        "cpu_ms_per_candidate_after_startup":
        round(1000 * (stats["cpu_seconds"] - stats["startup_cpu_seconds"]) / runs, 3)
        if runs and stats_json else None,
        "elf_tool_ms_per_candidate": round(1000 * tools / runs, 3) if runs and stats_json else None,
        "engine_ms_per_candidate_after_startup":
        round(1000 * (wall - wrapped_startup - inside - tools) / runs, 3)
        if runs and wrapped_startup is not None else None,
        "scenario": name,
        "predicate_runs": runs,
        "wall_s": round(wall, 4),
        "in_predicate_s": round(inside, 4),
        "engine_ms_per_candidate": round(1000 * (wall - inside) / runs, 3) if runs else None,
        "bare_wall_s": round(bare_wall, 4),
        "bare_wall_ms_per_candidate": round(1000 * bare_wall / runs, 3) if runs else None,
        "own_log_runs": own_runs,
        "engine_ms_per_candidate_own_log": round(1000 * (bare_wall - own_inside) / own_runs, 3)
        if own_runs else None,
        "startup_s": round(startup, 4) if own_runs else None,
        "engine_ms_per_candidate_own_log_after_startup":
        round(1000 * (bare_wall - startup - own_inside) / own_runs, 3) if own_runs else None,
        "cpu_ms_per_candidate": round(1000 * cpu / own_runs, 3) if own_runs and cpu is not None else None,
    }


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--minrepro", help="minrepro binary (default: build target/release/minrepro)")
    parser.add_argument("--no-build", action="store_true")
    parser.add_argument("--baseline", help="also run python/grep with this minrepro binary and report ratios")
    parser.add_argument("--out", default=str(BENCH / "out" / "engine.json"))
    parser.add_argument("--markdown", default=str(BENCH / "engine" / "RESULTS.md"),
                        help="markdown table to write ('' for none)")
    args = parser.parse_args()
    minrepro = build(args.minrepro, args.no_build)
    example = REPO / "examples" / "bundle"
    results = []
    notes = []
    with tempfile.TemporaryDirectory(prefix="bench-engine-") as tmp:
        tmp = Path(tmp)

        def bundle_argv(predicate):
            def make(out, wrapped):
                pred = [str(TIMED), predicate] if wrapped else [predicate]
                argv = [str(minrepro), "bundle", "--bundle", str(example / "bundle.json"), "--output", str(out),
                        "--allow-remove-section", ".debug_*", "-q", "--predicate", pred[0]]
                for a in pred[1:] + (["{bundle}"] if predicate.endswith(".sh") else []):
                    argv += ["--predicate-arg", a]
                return argv
            return make

        if has_bundle(minrepro):
            results.append(scenario("bundle/true", bundle_argv("/bin/true"), tmp, stats_json=True))
            results.append(scenario("bundle/example", bundle_argv(str(example / "predicate.sh")), tmp,
                                    stats_json=True))
        else:
            notes.append("bundle scenarios skipped: `minrepro bundle` is not in this build")

        if has_python(minrepro):
            source = tmp / "big.py"
            source.write_text(gen_stdlib_case.generate(gen_stdlib_case.MODULES + ["string"]))
            lines = len(source.read_text().splitlines())

            def python_argv_of(binary):
                def python_argv(out, wrapped):
                    pred = [str(TIMED), str(HAS_ALL)] if wrapped else [str(HAS_ALL)]
                    argv = [str(binary), "python", str(source), "-o", str(out) + ".py", "-q",
                            "--predicate", pred[0]]
                    for a in pred[1:] + ["{file}"] + MARKERS:
                        argv += ["--predicate-arg", a]
                    return argv
                return python_argv

            if args.baseline:
                r = scenario("python/grep (baseline)", python_argv_of(Path(args.baseline).resolve()), tmp)
                r["source_lines"] = lines
                results.append(r)
            r = scenario("python/grep", python_argv_of(minrepro), tmp)
            r["source_lines"] = lines
            results.append(r)
        else:
            notes.append("python/grep skipped: `minrepro python` is not in this build")
    wrapped, bare = wrapper_launch_cost()
    machine = "%d cores; %s" % (os.cpu_count() or 0, os.uname().release)
    report = {"minrepro": str(minrepro), "machine": machine, "results": results, "notes": notes,
              "wrapper_launch_ms": round(1000 * wrapped, 3), "bin_true_launch_ms": round(1000 * bare, 3)}
    Path(args.out).parent.mkdir(parents=True, exist_ok=True)
    Path(args.out).write_text(json.dumps(report, indent=2))
    commit = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=REPO, capture_output=True,
                            text=True).stdout.strip()
    out = ["# Engine overhead: results", "",
           "Generated by `python3 bench/engine/run.py` (method in its docstring); figures from one run",
           "on %s, %s UTC, minrepro at commit %s. Other work on the machine affects them." % (
               machine, time.strftime("%Y-%m-%d %H:%M", time.gmtime()), commit), "",
           "| scenario | predicate runs | wall s | in predicate s | engine ms/candidate (wrapper) "
           "| bare-predicate wall ms/candidate | engine ms/candidate (own log) | start-up s (own log) "
           "| engine ms/candidate after start-up (own log) | minrepro CPU ms/candidate "
           "| start-up s (--stats-json) | ELF tools ms/candidate (--stats-json) "
           "| engine ms/candidate after start-up, ELF tools excluded (wrapper) "
           "| minrepro CPU ms/candidate after start-up (--stats-json) |",
           "| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |"]
    for r in results:
        own = r["own_log_runs"]
        dash = lambda v: "-" if v is None else v  # noqa: E731
        out.append("| %s | %d | %.3f | %.3f | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s |" % (
            r["scenario"], r["predicate_runs"], r["wall_s"], r["in_predicate_s"],
            r["engine_ms_per_candidate"], r["bare_wall_ms_per_candidate"],
            r["engine_ms_per_candidate_own_log"] if own else "-", r["startup_s"] if own else "-",
            r["engine_ms_per_candidate_own_log_after_startup"] if own else "-",
            r["cpu_ms_per_candidate"] if r["cpu_ms_per_candidate"] is not None else "-",
            dash(r["startup_s_stats"]), dash(r["elf_tool_ms_per_candidate"]),
            dash(r["engine_ms_per_candidate_after_startup"]),
            dash(r["cpu_ms_per_candidate_after_startup"])))
    by_name = {r["scenario"]: r for r in results}
    new, old = by_name.get("python/grep"), by_name.get("python/grep (baseline)")
    if new and old:
        def ratio(key):
            return "%.3f" % (new[key] / old[key]) if new.get(key) and old.get(key) else "-"
        out += ["", "python/grep, this build / baseline (%s): engine ms/candidate (wrapper) %s, "
                "engine ms/candidate (own log) %s, after start-up %s; minrepro CPU %s; "
                "bare-predicate wall time %s." % (
                    args.baseline, ratio("engine_ms_per_candidate"),
                    ratio("engine_ms_per_candidate_own_log"),
                    ratio("engine_ms_per_candidate_own_log_after_startup"),
                    ratio("cpu_ms_per_candidate"), ratio("bare_wall_s"))]
    out += ["", "For scale: launching timed.sh around /bin/true from Python took %.3f ms, /bin/true alone %.3f ms"
            " (mean of 200)." % (1000 * wrapped, 1000 * bare)]
    for r in results:
        if r.get("engine_ms_per_candidate_after_startup") is not None:
            out.append("%s: engine ms/candidate after start-up, ELF tools and the wrapper's own launch"
                       " (%.3f ms, the difference above) excluded: %.3f." % (
                           r["scenario"], 1000 * (wrapped - bare),
                           r["engine_ms_per_candidate_after_startup"] - 1000 * (wrapped - bare)))
    if any(r.get("source_lines") for r in results):
        out.append("The Python file had %d lines." % next(r["source_lines"] for r in results if r.get("source_lines")))
    out += ["Note: %s." % n for n in notes]
    text = "\n".join(out) + "\n"
    if args.markdown:
        Path(args.markdown).write_text(text)
    print(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
