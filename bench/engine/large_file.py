#!/usr/bin/env python3
"""Cost per candidate of `minrepro file` on large inputs, and its memory (issue 35).

    python3 bench/engine/large_file.py [--minrepro PATH] [--seconds 120] [--out FILE]

Inputs, made by bench/text's generator (support/gen_compiler_inputs.py): the preprocessed C++
unit `tu map_key` (about 1.3 MB) and, for memory, a 5 MB text of C++ made of four
preprocessed units one after the other (each `tu` unit once, map_key twice).

Predicate: bench/engine/has_all.sh (a few `grep -qF`: the file must still contain fixed
strings spread over it), wrapped in timed.sh, which logs each run's start and end. The
reduction runs for `--seconds` and is then interrupted (SIGINT; minrepro saves what it has):
the figure is the reducer's own time per predicate run while it searches,

    ms per candidate = (time of the last run's end - time of the first run's start
                        - time inside predicate runs) / (predicate runs - 1)

which counts, per run, everything minrepro does between two predicate runs: producing the
candidate, checking it (the re-parse), the candidates refused without a run, writing the
workspace, the cache, and re-preparing the sites after an acceptance. Start-up (reading,
parsing, listing the first sites) is reported on its own. Max RSS is GNU time's (`%M`) for the
whole run, children excluded (the predicates are small shells).

Writes bench/engine/LARGE.md (or --out) and prints the table. Not part of the test suite.
"""

import argparse
import os
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ENGINE = Path(__file__).resolve().parent
REPO = ENGINE.parent.parent
GEN = REPO / "bench" / "text" / "support" / "gen_compiler_inputs.py"
TIMED = ENGINE / "timed.sh"
HAS_ALL = ENGINE / "has_all.sh"
# Strings the predicate keeps, from the start, middle and end of a preprocessed unit.
MARKERS = ["struct Point", "count_points", "namespace std"]


def make_inputs(tmp):
    """The 1.3 MB unit and the 5 MB text."""
    units = {}
    for name in ("map_key", "unique_copy", "sort_list"):
        path = tmp / f"{name}.cpp"
        subprocess.run([sys.executable, str(GEN), "tu", name, str(path)], check=True)
        units[name] = path.read_text()
    one = tmp / "one" / "unit.cpp"
    one.parent.mkdir()
    one.write_text(units["map_key"])
    five = tmp / "five" / "unit.cpp"
    five.parent.mkdir()
    five.write_text(units["unique_copy"] + units["sort_list"] + units["map_key"] * 2)
    return one, five


def run(minrepro, source, seconds, tmp):
    log = tmp / f"{source.parent.name}.log"
    log.write_text("")
    out = tmp / f"{source.parent.name}.out.cpp"
    predicate = ["--predicate", str(TIMED)] + [
        f"--predicate-arg={a}" for a in (str(HAS_ALL), "{file}", *MARKERS)]
    argv = ["/usr/bin/time", "-f", "maxrss_kb %M", minrepro, "file", *predicate, str(source),
            "-o", str(out), "-j", "1"]
    env = dict(os.environ, BENCH_TIMING_LOG=str(log))
    launched = time.time()
    proc = subprocess.Popen(argv, cwd=source.parent, env=env, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, start_new_session=True)
    try:
        _, err = proc.communicate(timeout=seconds)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGINT)
        _, err = proc.communicate()
    spans = [tuple(map(float, line.split())) for line in log.read_text().splitlines()
             if line.strip()]
    rss = [int(line.split()[1]) for line in err.splitlines() if line.startswith("maxrss_kb")]
    if len(spans) < 2:
        return {"input": source.parent.name, "bytes": source.stat().st_size,
                "runs": len(spans), "rss_mb": rss[-1] / 1024 if rss else None,
                "note": err[-400:]}
    inside = sum(end - start for start, end in spans[1:])
    between = spans[-1][1] - spans[0][1] - inside
    return {
        "input": source.parent.name,
        "bytes": source.stat().st_size,
        "runs": len(spans),
        "startup_s": round(spans[0][0] - launched, 2),
        "ms_per_candidate": round(1000 * between / (len(spans) - 1), 1),
        "rss_mb": round(rss[-1] / 1024) if rss else None,
    }


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--minrepro", default=str(REPO / "target" / "release" / "minrepro"))
    p.add_argument("--seconds", type=float, default=120)
    p.add_argument("--out", type=Path, default=ENGINE / "LARGE.md")
    args = p.parse_args()
    # Runs start in the input's directory: a relative path would not name the binary there.
    args.minrepro = str(Path(args.minrepro).resolve())
    commit = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=REPO,
                            capture_output=True, text=True).stdout.strip()
    with tempfile.TemporaryDirectory() as tmp:
        one, five = make_inputs(Path(tmp))
        load = os.getloadavg()[0]
        rows = [run(args.minrepro, one, args.seconds, Path(tmp)),
                run(args.minrepro, five, args.seconds, Path(tmp))]
    lines = ["# Large inputs: cost per candidate and memory", "",
             f"`python3 bench/engine/large_file.py --seconds {args.seconds:g}` at {commit}, "
             f"load average {load:.1f} at the start (2 cores, shared).", "",
             "| input | bytes | predicate runs | start-up s | ms per candidate | max RSS MB |",
             "| --- | ---: | ---: | ---: | ---: | ---: |"]
    for r in rows:
        lines.append(f"| {r['input']} | {r['bytes']} | {r['runs']} | {r.get('startup_s', '-')} "
                     f"| {r.get('ms_per_candidate', '-')} | {r['rss_mb']} |")
    text = "\n".join(lines) + "\n"
    for r in rows:
        if "note" in r:
            print(f"{r['input']}: minrepro made fewer than 2 runs; its last output:\n{r['note']}",
                  file=sys.stderr)
    print(text)
    args.out.write_text(text)


if __name__ == "__main__":
    main()
