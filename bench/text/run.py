#!/usr/bin/env python3
"""The text reduction benchmark: `minrepro file` against C-Vise (`--not-c` and its C passes),
C-Reduce, shrinkray, picire and Lithium on the cases of cases.json. Not part of the test suite.

    python3 bench/text/run.py [--tools minrepro,cvise-not-c,...] [--cases a,b] [--cap 180]
        [--candidate-timeout 20] [--no-build] [--minrepro PATH] [--no-install]
        [--keep-results] [--large] [--report-file FILE]

Every tool runs with one job (-j 1 or its equivalent), one (tool, case) pair at a time, each
under a wall-clock cap (`--cap` seconds, the same for every tool: a capped run is measured on
what it had written by then). Every predicate run is counted the same way: the case's test
sources support/prelude.sh, which appends a line to $BENCH_COUNTER. Results are measured with
one token counter (support/measure.py, the rules of `minrepro file`), checked to still reproduce
in a fresh directory, written to bench/out/text/results/TOOL__CASE.json, and summarised in
bench/text/RESULTS.md (or --report-file). Peers are installed into bench/out (git-ignored):
C-Vise and C-Reduce with apt-get when missing, picire and Lithium into a venv, shrinkray into a
venv of pyenv's Python 3.12 (it needs >= 3.12)."""

import argparse
import json
import math
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

TEXT = Path(__file__).resolve().parent
REPO = TEXT.parent.parent
OUT = REPO / "bench" / "out" / "text"
VENV = REPO / "bench" / "out" / "text-venv"
VENV312 = REPO / "bench" / "out" / "text-venv312"
sys.path.insert(0, str(TEXT / "support"))
from measure import measure  # noqa: E402
from depth import depth_of  # noqa: E402

TOOLS = ["minrepro", "minrepro-plain", "treereduce", "cvise-not-c", "cvise", "creduce",
         "shrinkray", "picire", "lithium", "picireny"]
# treereduce's per-language binaries (published for these grammars), by case language.
TREEREDUCE = {"c": "treereduce-c", "rust": "treereduce-rust", "java": "treereduce-java",
              "javascript": "treereduce-javascript"}
TREEREDUCE_ROOT = REPO / "bench" / "out" / "treereduce"
# picireny's ANTLR grammars (its own package ships none), by case language: (file in
# support/grammars, start rule). Only JSON: no other grammar is at hand here.
PICIRENY = {"json": ("JSON.g4", "json")}
# The ANTLR tool as one jar (picireny runs `java -jar`), made from Debian's antlr4 jars:
# picireny's own download of it (antlerinator) needs the ANTLR site.
ANTLR_JAR = REPO / "bench" / "out" / "antlr4-complete.jar"
ANTLR_PARTS = ["stringtemplate4", "antlr4", "antlr4-runtime", "antlr3-runtime", "treelayout"]
# Tools that reduce without knowing the language: the done-when bar compares against these.
LANGUAGE_INDEPENDENT = ["cvise-not-c", "shrinkray", "picire", "lithium"]
# Tools that reduce one file only.
SINGLE_FILE = {"picire", "lithium", "treereduce", "picireny"}
# Tools run only on C and C++ cases (their passes are C passes).
C_ONLY = {"cvise", "creduce"}


def sh(cmd, **kw):
    print("+", " ".join(map(str, cmd)), flush=True)
    return subprocess.run(cmd, check=True, **kw)


def install(tools):
    """Installs the requested peers that are missing."""
    debs = [t for t in ("cvise", "creduce") if any(x.startswith(t) for x in tools)
            and not shutil.which(t)]
    if debs:
        sh(["apt-get", "install", "-y", "--no-install-recommends", *debs],
           env={**os.environ, "DEBIAN_FRONTEND": "noninteractive"})
    if ({"picire", "lithium"} & set(tools)) and not (VENV / "bin" / "lithium").exists():
        sh([sys.executable, "-m", "venv", str(VENV)])
        sh([str(VENV / "bin" / "pip"), "install", "-q", "picire", "lithium-reducer"])
    if "picireny" in tools and not (VENV / "bin" / "picireny").exists():
        if not (VENV / "bin" / "pip").exists():
            sh([sys.executable, "-m", "venv", str(VENV)])
        sh([str(VENV / "bin" / "pip"), "install", "-q", "picireny"])
    if "picireny" in tools and not ANTLR_JAR.exists():
        if not Path("/usr/share/java/antlr4.jar").exists():
            sh(["apt-get", "install", "-y", "--no-install-recommends", "antlr4"],
               env={**os.environ, "DEBIAN_FRONTEND": "noninteractive"})
        with tempfile.TemporaryDirectory() as tmp:
            for part in ANTLR_PARTS:
                sh(["unzip", "-q", "-o", f"/usr/share/java/{part}.jar", "-x", "META-INF/*",
                    "-d", tmp])
            manifest = Path(tmp) / "manifest.txt"
            manifest.write_text("Main-Class: org.antlr.v4.Tool\n")
            sh(["jar", "cfm", str(ANTLR_JAR), str(manifest), "-C", tmp, "."])
    if "treereduce" in tools and not (TREEREDUCE_ROOT / "bin" / "treereduce-c").exists():
        # Its binaries are separate crates; a failed build leaves the tool out.
        subprocess.run(["cargo", "install", "--root", str(TREEREDUCE_ROOT),
                        *sorted(set(TREEREDUCE.values()))])
    if "shrinkray" in tools and not (VENV312 / "bin" / "shrinkray").exists():
        py312 = Path.home() / ".pyenv" / "versions"
        found = sorted(py312.glob("3.1[2-9]*/bin/python3"))
        if not found:
            print("shrinkray: no Python >= 3.12 under pyenv; not run", flush=True)
            return
        sh([str(found[0]), "-m", "venv", str(VENV312)])
        sh([str(VENV312 / "bin" / "pip"), "install", "-q", "shrinkray"])


def case_files(case):
    """Directory holding the case's original files (generated ones are written first)."""
    if "generated" in case:
        gen = OUT / "cases" / case["name"]
        gen.mkdir(parents=True, exist_ok=True)
        target = gen / case["files"][0]
        if not target.exists():
            sh([sys.executable, str(TEXT / "support" / case["generated"]),
                *case.get("generator_args", []), str(target)])
        return gen
    return TEXT / "cases" / case["name"]


def traced(test, files, where, deep=False):
    """A wrapper of `test` (for every tool: each runs it in a directory holding the candidate
    files under their names) that, when the candidate is interesting, appends the number of
    predicate runs so far and the candidate's tokens (support/measure.py) to $BENCH_TRACE. The
    counting runs after the test, is not a predicate run (the test's prelude counts runs) and
    keeps the test's exit status; the line ends with the time of day (seconds). At -j 1 the
    tools accept the interesting candidates they find, so the trace tells after how many runs a
    size was first reached. Files a candidate no longer has (removed whole) count as empty. For
    a deep-nesting case (`deep`) each line also holds the candidate's nesting depth
    (support/depth.py), before the time."""
    wrapper = where / "traced-test.sh"
    count = (f"import os, sys; sys.path.insert(0, {str(TEXT / 'support')!r}); "
             "from measure import measure; "
             "files = [f for f in sys.argv[1:] if os.path.exists(f)]; "
             "print(measure(files)['tokens'])")
    if deep:
        count = count[:-1] + ", end=' '); from depth import depth_of; print(depth_of(files))"
    names = " ".join(f"'{f}'" for f in files)
    wrapper.write_text(
        f'#!/bin/sh\n{test} "$@"\nrc=$?\n'
        'if [ "$rc" -eq 0 ] && [ -n "${BENCH_TRACE:-}" ]; then\n'
        f'    echo "$(wc -l < "$BENCH_COUNTER") $({sys.executable} -S -c "{count}" {names})'
        ' $(date +%s.%N)"'
        ' >> "$BENCH_TRACE"\nfi\nexit "$rc"\n')
    wrapper.chmod(0o755)
    return wrapper


def command(tool, case, test, work, out, args):
    """(argv, cwd, where the result files end up) for one run."""
    files = case["files"]
    t = str(args.candidate_timeout)
    test = traced(test, files, work.parent, deep="depth" in case)
    if tool in ("minrepro", "minrepro-plain"):
        # One file: -o names the file; several: a new directory. minrepro-plain: without the
        # syntax-aware passes (language-independent passes only).
        target = out / files[0] if len(files) == 1 else out / "tree"
        plain = ["--language", "none"] if tool == "minrepro-plain" else []
        argv = [args.minrepro, "file", str(test), *files, "-o",
                str(target), "-j", "1", "--timeout", t, *plain]
        return argv, work, (out if len(files) == 1 else target)
    if tool in ("cvise-not-c", "cvise"):
        extra = ["--not-c"] if tool == "cvise-not-c" else []
        return (["cvise", "--n", "1", "--tidy", "--timeout", t, *extra, str(test), *files],
                work, work)
    if tool == "creduce":
        return ["creduce", "--n", "1", "--tidy", "--timeout", t, str(test), *files], work, work
    if tool == "shrinkray":
        target = files[0] if len(files) == 1 else "."
        return ([str(VENV312 / "bin" / "shrinkray"), "--parallelism", "1", "--timeout", t,
                 "--ui", "basic", str(test), target], work, work)
    runner = [sys.executable, "-S", str(TEXT / "support" / "in_copy.py")]
    if tool == "treereduce":
        wrapper = work.parent / "treereduce-test.sh"
        wrapper.write_text(f'#!/bin/sh\nexec {" ".join(runner)} {test} {files[0]} "$1"\n')
        wrapper.chmod(0o755)
        binary = TREEREDUCE_ROOT / "bin" / TREEREDUCE[case["language"]]
        return ([str(binary), "--jobs", "1", "--timeout", t, "-s", str(work / files[0]),
                 "-o", str(out / files[0]), "--", str(wrapper), "@@"], work.parent, out)
    if tool == "picire":
        wrapper = work.parent / "picire-test.sh"
        wrapper.write_text(f'#!/bin/sh\nexec {" ".join(runner)} {test} {files[0]} "$1"\n')
        wrapper.chmod(0o755)
        return ([str(VENV / "bin" / "picire"), "-i", str(work / files[0]), "--test",
                 str(wrapper), "-a", "line", "-o", str(out)], work.parent, out)
    if tool == "picireny":
        wrapper = work.parent / "picireny-test.sh"
        wrapper.write_text(f'#!/bin/sh\nexec {" ".join(runner)} {test} {files[0]} "$1"\n')
        wrapper.chmod(0o755)
        grammar, start = PICIRENY[case["language"]]
        return ([str(VENV / "bin" / "picireny"), "-i", str(work / files[0]), "--test",
                 str(wrapper), "-g", str(TEXT / "support" / "grammars" / grammar), "-s", start,
                 "--antlr", str(ANTLR_JAR), "-o", str(out)], work.parent, out)
    if tool == "lithium":
        return ([str(VENV / "bin" / "lithium"), "--lines", str(TEXT / "support" / "in_copy.py"),
                 str(test), files[0], str(work / files[0])], work.parent, work)
    raise ValueError(tool)


def still_reproduces(test, result_dir, files, check):
    """Whether the test passes on a fresh copy of the result files (copied into `check`)."""
    shutil.rmtree(check, ignore_errors=True)
    check.mkdir(parents=True)
    for name in files:
        if (result_dir / name).exists():
            shutil.copyfile(result_dir / name, check / name)
    env = {k: v for k, v in os.environ.items() if k != "BENCH_COUNTER"}
    env["TEXT_BENCH"] = str(TEXT)
    rc = subprocess.run([str(test)], cwd=check, env=env, stdout=subprocess.DEVNULL,
                        stderr=subprocess.DEVNULL).returncode
    shutil.rmtree(check, ignore_errors=True)
    return rc == 0


def find_results(result_dir, files):
    """The result files: picire nests its output one level down; a file that is missing from
    the result was removed whole."""
    found = {}
    for name in files:
        direct = result_dir / name
        nested = sorted(result_dir.rglob(name)) if not direct.exists() else []
        found[name] = direct if direct.exists() else (nested[-1] if nested else None)
    return found


def left_in(tmp):
    """What is left below `tmp`, relative paths, sorted. os.walk, not rglob: a tool killed at the
    cap may have a cleaner (minrepro's guardian) removing its directory while we look, and a
    directory that vanishes mid-walk is simply not left."""
    left = []
    for root, dirs, names in os.walk(tmp):
        left += [str(Path(root, n).relative_to(tmp)) for n in dirs + names]
    return sorted(left)


def run_one(tool, case, args):
    name = case["name"]
    files = case["files"]
    test = TEXT / "tests" / f"{name}.sh"
    base = OUT / "runs" / tool / name
    shutil.rmtree(base, ignore_errors=True)
    work, out = base / "work", base / "out"
    work.mkdir(parents=True)
    out.mkdir()
    src = case_files(case)
    for f in files:
        shutil.copyfile(src / f, work / f)
    counter = base / "counter"
    counter.write_text("")
    argv, cwd, result_dir = command(tool, case, test, work, out, args)
    # Each tool's temporary files go below its run directory: a tool stopped at the cap (C-Vise,
    # C-Reduce, picire's workers) leaves its temporary directories behind, never in /tmp.
    tmp = base / "tmp"
    tmp.mkdir()
    trace = base / "trace"
    env = dict(os.environ, BENCH_COUNTER=str(counter), TEXT_BENCH=str(TEXT), TMPDIR=str(tmp),
               BENCH_TRACE=str(trace))
    log = open(base / "log.txt", "w")
    load_before = os.getloadavg()[0]
    start = time.monotonic()
    started = time.time()
    proc = subprocess.Popen(argv, cwd=cwd, env=env, stdin=subprocess.DEVNULL, stdout=log,
                            stderr=subprocess.STDOUT, start_new_session=True)
    capped = False
    try:
        rc = proc.wait(timeout=args.cap)
    except subprocess.TimeoutExpired:
        capped = True
        os.killpg(proc.pid, signal.SIGINT)
        try:
            rc = proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)
            rc = proc.wait()
    wall = time.monotonic() - start
    log.close()
    # What the tool (and the compilers it ran) left in its TMPDIR.
    tmp_left = left_in(tmp)
    shutil.rmtree(tmp, ignore_errors=True)
    found = find_results(result_dir, files)
    if tool in ("minrepro", "minrepro-plain") and len(files) == 1 and found[files[0]] is None:
        found = {files[0]: work / files[0]}  # no output written: nothing was accepted
    kept = [p for p in found.values() if p is not None]
    if not kept:  # picire capped before writing: its result is the original
        kept = [work / f for f in files]
    final = OUT / "final" / tool / name
    shutil.rmtree(final, ignore_errors=True)
    final.mkdir(parents=True)
    for f, p in found.items():
        if p is not None:
            shutil.copyfile(p, final / f)
    result = {
        "tool": tool, "case": name, "rc": rc, "capped": capped, "wall_s": round(wall, 2),
        # The machine is shared: the 1-minute load average before and after the run.
        "load": [round(load_before, 1), round(os.getloadavg()[0], 1)],
        "runs": len(counter.read_text().splitlines()),
        "reproduces": still_reproduces(test, final, files, base / "check"),
        "original": measure([src / f for f in files]),
        "final": measure([final / f for f in files if (final / f).exists()]),
        "argv": [str(a) for a in argv],
        "tmp_left": tmp_left[:20],
    }
    deep = "depth" in case
    if trace.exists():  # (runs so far, tokens, seconds since the start[, depth]) at each
        # interesting run; a deep case's lines hold the depth before the time of day.
        result["trace"] = [
            [int(x[0]), int(x[1]), round(float(x[-1]) - started, 1), *([int(x[2])] if deep else [])]
            for x in map(str.split, trace.read_text().splitlines())
            if len(x) == (4 if deep else 3)]
    if deep:
        result["depth"] = {
            "needed": case["depth"]["needed"],
            "original": depth_of([src / f for f in files]),
            "final": depth_of([final / f for f in files if (final / f).exists()]),
        }
    (OUT / "results").mkdir(parents=True, exist_ok=True)
    (OUT / "results" / f"{tool}__{name}.json").write_text(json.dumps(result, indent=1) + "\n")
    print(f"{tool:12} {name:16} tokens {result['final']['tokens']:5} runs {result['runs']:6} "
          f"wall {wall:7.1f}s reproduces {result['reproduces']} capped {capped} "
          f"load {result['load']}", flush=True)
    return result


def load(result):
    """The load average before and after a run ("a-b"), blank for older results."""
    return "-".join(str(x) for x in result.get("load", []))


def report(results, path, args):
    by_case = {}
    for r in results:
        by_case.setdefault(r["case"], {})[r["tool"]] = r
    tools = [t for t in TOOLS if any(t in v for v in by_case.values())]
    lines = [
        "# Text reduction benchmark: results",
        "",
        f"One run of `python3 bench/text/run.py --cap {args.cap} --candidate-timeout "
        f"{args.candidate_timeout}` (one job per tool, one run at a time, on a 2-core machine "
        "shared with other builds, so wall times are rough). Tokens are counted by "
        "`support/measure.py` for every tool; runs are predicate runs counted by the test "
        "itself; `capped` means the run hit the cap and is measured on what it had written.",
        "",
        "| case | tool | tokens | bytes | lines | runs | wall s | reproduces | capped | load |",
        "| --- | --- | ---: | ---: | ---: | ---: | ---: | --- | --- | --- |",
    ]
    for case in sorted(by_case):
        first = next(iter(by_case[case].values()))
        o = first["original"]
        lines.append(f"| {case} | (original) | {o['tokens']} | {o['bytes']} | {o['lines']} "
                     "| | | | | |")
        for t in tools:
            r = by_case[case].get(t)
            if r:
                f = r["final"]
                lines.append(f"| {case} | {t} | {f['tokens']} | {f['bytes']} | {f['lines']} | "
                             f"{r['runs']} | {r['wall_s']} | {'yes' if r['reproduces'] else 'NO'}"
                             f" | {'yes' if r['capped'] else ''} | {load(r)} |")
    # Issue 18's bar: the language-independent passes (minrepro-plain) against the
    # language-independent peers; minrepro with its syntax-aware passes is shown too.
    for mine_tool in ("minrepro-plain", "minrepro"):
        lines += bar(by_case, mine_tool)
    lines += syntax_bar(by_case)
    lines += depth_bar(by_case)
    lines += large_bar(by_case)
    path.write_text("\n".join(lines) + "\n")
    print(f"wrote {path}")


def against_cvise(by_case, mine_tool, cases):
    """`mine_tool`'s predicate runs and wall time summed over `cases` against C-Vise --not-c's,
    with the ratios."""
    def total(tool, key):
        return sum(by_case[c][tool][key] for c in cases)
    mr, cv = total(mine_tool, "runs"), total("cvise-not-c", "runs")
    mw, cw = total(mine_tool, "wall_s"), total("cvise-not-c", "wall_s")
    return (f"{mine_tool} {mr} runs, C-Vise --not-c {cv} runs (ratio {mr / max(cv, 1):.2f}); "
            f"wall {mw:.0f} s vs {cw:.0f} s (ratio {mw / max(cw, 1e-9):.2f}).")


def bar(by_case, mine_tool):
    """Issue 18's bar for `mine_tool`: on every case, tokens <= the smallest reproducing result
    of every language-independent peer; over the corpus, runs <= 50% of C-Vise --not-c's and
    wall time <= its."""
    lines = ["", f"## Done-when bar: {mine_tool}", ""]
    for case in sorted(by_case):
        mine = by_case[case].get(mine_tool)
        peers = {t: r for t, r in by_case[case].items() if t in LANGUAGE_INDEPENDENT and
                 r["reproduces"]}
        if mine and peers:
            best = min(r["final"]["tokens"] for r in peers.values())
            who = ", ".join(sorted(t for t, r in peers.items() if r["final"]["tokens"] == best))
            ok = mine["reproduces"] and mine["final"]["tokens"] <= best
            lines.append(f"- {case}: {mine_tool} {mine['final']['tokens']} tokens"
                         f"{' (capped)' if mine['capped'] else ''}, best language-independent "
                         f"peer {best} ({who}): {'met' if ok else 'NOT met'}")
    both = [c for c in by_case if {mine_tool, "cvise-not-c"} <= set(by_case[c])]
    if both:
        lines += ["", f"Over the {len(both)} cases both ran: "
                  f"{against_cvise(by_case, mine_tool, both)}"]
        free = [c for c in both
                if not by_case[c][mine_tool]["capped"] and not by_case[c]["cvise-not-c"]["capped"]]
        if free:
            lines += ["", f"Over the {len(free)} cases where neither hit the cap "
                      f"({', '.join(sorted(free))}): {against_cvise(by_case, mine_tool, free)}"]
        lines += to_common_size(by_case, mine_tool, both)
    return lines


def first_reach(result, tokens):
    """Predicate runs after which `result`'s trace first had a candidate of at most `tokens`
    tokens (None: never, or no trace)."""
    return next((n for n, t, *_ in result.get("trace", []) if t <= tokens), None)


def first_reach_time(result, tokens):
    """Seconds after which `result`'s trace first had a candidate of at most `tokens` tokens
    (None: never, or a trace without times)."""
    return next((x[2] for x in result.get("trace", []) if x[1] <= tokens and len(x) > 2), None)


def raw_runs(result):
    """A run's predicate runs, marked when it hit the cap."""
    return f"{result['runs']}{' capped' if result['capped'] else ''}"


def to_common_size(by_case, mine_tool, cases):
    """Runs each tool needed to FIRST reach the common size of a case (the larger of the two
    final token counts: a size both reached), from the traces, per case and summed over the
    cases where both traces reach it. Unlike raw runs, this does not count what a tool spent
    after that size (its fruitless tail, or its throughput until the cap)."""
    rows, mt, ct = [], 0, 0
    for case in sorted(cases):
        mine, cv = by_case[case][mine_tool], by_case[case]["cvise-not-c"]
        if "trace" not in mine or "trace" not in cv:
            continue
        common = max(mine["final"]["tokens"], cv["final"]["tokens"])
        m, c = first_reach(mine, common), first_reach(cv, common)
        if m is None or c is None:
            continue
        mt, ct = mt + m, ct + c
        rows.append(f"| {case} | {common} | {m} | {raw_runs(mine)} | {c} | {raw_runs(cv)} | "
                    f"{m / max(c, 1):.2f} |")
    if not rows:
        return []
    return ["", f"Runs to first reach the common size (the larger final size of {mine_tool} and "
            "C-Vise --not-c), from the traces:", "",
            f"| case | common tokens | {mine_tool} to reach | {mine_tool} raw | C-Vise to reach | "
            "C-Vise raw | ratio |", "| --- | ---: | ---: | ---: | ---: | ---: | ---: |", *rows,
            "", f"Over these {len(rows)} cases: {mine_tool} {mt} runs, C-Vise --not-c {ct} runs "
            f"(ratio {mt / max(ct, 1):.2f})."]


def syntax_bar(by_case):
    """Issue 19's bar: on C and C++, tokens <= C-Reduce's and C-Vise's (C passes) in <= 50% of
    C-Vise's runs; everywhere, tokens <= treereduce's in <= its runs; and what the syntax-aware
    passes change against minrepro-plain."""
    lines = ["", "## Syntax-aware bar", ""]
    for case in sorted(by_case):
        tools = by_case[case]
        mine = tools.get("minrepro")
        if not mine:
            continue
        notes = []
        for peer in ("cvise", "creduce", "treereduce", "minrepro-plain"):
            r = tools.get(peer)
            if not r:
                continue
            # A peer's result that does not reproduce is no result: minrepro's (if it does)
            # is better whatever its size and runs.
            beaten = mine["reproduces"] and not r["reproduces"]
            tokens_ok = beaten or mine["final"]["tokens"] <= r["final"]["tokens"]
            runs_ok = beaten or mine["runs"] <= (r["runs"] * 0.5 if peer == "cvise" else r["runs"])
            # Runs after which minrepro's candidate was first at most the peer's size.
            reached = first_reach(mine, r["final"]["tokens"])
            notes.append(f"{peer} {r['final']['tokens']} tokens / {r['runs']} runs"
                         f"{'' if r['reproduces'] else ' (NO repro)'}"
                         f"{' (capped)' if r['capped'] else ''}: "
                         f"{'met' if tokens_ok and runs_ok else 'NOT met'}"
                         f"{'' if reached is None else f' (its size reached after {reached} runs)'}")
        if notes:
            lines.append(f"- {case}: minrepro {mine['final']['tokens']} tokens / {mine['runs']} "
                         f"runs{' (capped)' if mine['capped'] else ''}; " + "; ".join(notes))
    return lines


def depth_bar(by_case):
    """Issue 41's bar on the deep-nesting cases: the final depth within 10% of the depth the
    predicate needs, reached within 4 x log2(original depth) predicate runs (from the trace), and
    tokens <= Shrink Ray's and C-Vise --not-c's."""
    deep = [c for c in sorted(by_case) if any("depth" in r for r in by_case[c].values())]
    if not deep:
        return []
    lines = ["", "## Deep-nesting bar", "",
             "| case | tool | depth (original → final, needed) | runs to within 10% | budget "
             "4·log2(depth) | tokens | runs | capped |",
             "| --- | --- | --- | ---: | ---: | ---: | ---: | --- |"]
    notes = []
    for case in deep:
        for tool, r in sorted(by_case[case].items()):
            d = r.get("depth")
            if not d:
                continue
            bound = d["needed"] * 1.1
            reached = next((x[0] for x in r.get("trace", []) if x[3] <= bound), None)
            budget = 4 * math.log2(max(d["original"], 2))
            lines.append(f"| {case} | {tool} | {d['original']} → {d['final']}, {d['needed']} | "
                         f"{'never' if reached is None else reached} | {budget:.0f} | "
                         f"{r['final']['tokens']} | {r['runs']} | "
                         f"{'yes' if r['capped'] else ''} |")
        mine = by_case[case].get("minrepro")
        if mine and "depth" in mine:
            d = mine["depth"]
            reached = next((x[0] for x in mine.get("trace", [])
                            if x[3] <= d["needed"] * 1.1), None)
            ok = (mine["reproduces"] and d["final"] <= d["needed"] * 1.1 and reached is not None
                  and reached <= 4 * math.log2(max(d["original"], 2)))
            peers = [(t, by_case[case][t]) for t in ("shrinkray", "cvise-not-c")
                     if t in by_case[case] and by_case[case][t]["reproduces"]]
            ok &= all(mine["final"]["tokens"] <= p["final"]["tokens"] for _, p in peers)
            notes.append(f"- {case}: {'met' if ok else 'NOT met'} (minrepro depth {d['final']}"
                         f" of {d['needed']} needed, {mine['final']['tokens']} tokens; "
                         + ", ".join(f"{t} {p['final']['tokens']}" for t, p in peers) + ")")
    return lines + [""] + notes


def large_bar(by_case):
    """Issue 35's bar on the large inputs and the C++ depth cases: minrepro's tokens <= the
    smaller of C-Vise's and C-Reduce's (C passes); on the large ones, minrepro first at C-Vise's
    final size within half of C-Vise's wall time; nothing left in TMPDIR."""
    cases = {c["name"]: c for c in json.loads((TEXT / "cases.json").read_text())}
    lines = ["", "## Large-input and C++ depth bar (issue 35)", ""]
    for case in sorted(by_case):
        meta = cases.get(case, {})
        if not (meta.get("large") or case.startswith("depth_")):
            continue
        tools = by_case[case]
        mine = tools.get("minrepro")
        peers = {t: tools[t] for t in ("cvise", "creduce") if t in tools}
        if not mine or not peers:
            continue
        best = min(r["final"]["tokens"] for r in peers.values() if r["reproduces"]) \
            if any(r["reproduces"] for r in peers.values()) else None
        ok = mine["reproduces"] and (best is None or mine["final"]["tokens"] <= best)
        note = (f"- {case}: minrepro {mine['final']['tokens']} tokens in {mine['wall_s']} s"
                f"{' (capped)' if mine['capped'] else ''}; " + "; ".join(
                    f"{t} {r['final']['tokens']} in {r['wall_s']} s"
                    f"{' (capped)' if r['capped'] else ''}{'' if r['reproduces'] else ' NO repro'}"
                    for t, r in peers.items()) + f": tokens {'met' if ok else 'NOT met'}")
        cv = peers.get("cvise")
        if meta.get("large") and cv:
            at = first_reach_time(mine, cv["final"]["tokens"])
            fast = at is not None and at <= 0.5 * cv["wall_s"]
            note += (f"; C-Vise's size reached after {at} s (half C-Vise's wall: "
                     f"{0.5 * cv['wall_s']:.0f} s): {'met' if fast else 'NOT met'}")
        left = {t: len(r.get("tmp_left", [])) for t, r in tools.items() if r.get("tmp_left")}
        note += f"; left in TMPDIR: {left or 'nothing'}"
        lines.append(note)
    return lines


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--tools", default=",".join(TOOLS))
    p.add_argument("--cases", default="")
    p.add_argument("--cap", type=float, default=180, help="wall-clock cap per run, seconds")
    p.add_argument("--candidate-timeout", type=int, default=20)
    p.add_argument("--minrepro", default=str(REPO / "target" / "release" / "minrepro"))
    p.add_argument("--no-build", action="store_true")
    p.add_argument("--no-install", action="store_true")
    p.add_argument("--keep-results", action="store_true")
    p.add_argument("--large", action="store_true",
                   help="also the large compiler inputs (cases marked `large`: csmith programs, "
                   "preprocessed C++ units), which --cases can also name one by one")
    p.add_argument("--report-file", type=Path, default=TEXT / "RESULTS.md")
    args = p.parse_args()
    tools = [t for t in args.tools.split(",") if t]
    cases = json.loads((TEXT / "cases.json").read_text())
    if args.cases:
        wanted = args.cases.split(",")
        cases = [c for c in cases if c["name"] in wanted]
    elif not args.large:
        cases = [c for c in cases if not c.get("large")]
    if not args.no_install:
        install(tools)
    if "minrepro" in tools and not args.no_build:
        sh(["cargo", "build", "--release", "-p", "minrepro"], cwd=REPO)
    if not args.keep_results:
        shutil.rmtree(OUT / "results", ignore_errors=True)
    for case in cases:
        for tool in tools:
            if tool in C_ONLY and not case["c"]:
                continue
            if tool in SINGLE_FILE and len(case["files"]) > 1:
                continue
            if tool == "shrinkray" and not (VENV312 / "bin" / "shrinkray").exists():
                continue
            if tool == "picireny" and case.get("language") not in PICIRENY:
                continue
            if tool == "treereduce" and not (
                    case.get("language") in TREEREDUCE and
                    (TREEREDUCE_ROOT / "bin" / TREEREDUCE[case["language"]]).exists()):
                continue
            run_one(tool, case, args)
    results = [json.loads(f.read_text()) for f in sorted((OUT / "results").glob("*.json"))]
    report(results, args.report_file, args)


if __name__ == "__main__":
    main()
