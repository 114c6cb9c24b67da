#!/usr/bin/env python3
"""Benchmark of `minrepro python ENTRY.py` on multi-module projects (issue 37), with peers side
by side, in one run:

    python3 bench/python/run_projects.py [--tools a,b] [--cases x,y] [--timeout-per-run S]

The cases are projects.json's: gen_projects.py writes each into bench/out/projects/<case>/.
Every tool gets a fresh copy of the project and the same wall-clock cap (--timeout-per-run):

- minrepro: `minrepro python ENTRY --err-msg MSG -o OUT -j 1` (its defaults otherwise: runner
  backend, origin fidelity); OUT is one file or, when that does not reproduce, a directory.
- pysource-minimize: its multi-file mode (`minimize_all`, drivers/pysource_minimize_project_driver.py).
- shrinkray: Shrink Ray on the project directory (`shrinkray --no-history TEST .`: with its
  history on, 26.7.6.1 fails on a file in a subdirectory, opening a log file below a directory
  it did not create).
- autodd: TileLang's AutoDD on the project's files concatenated into one file (concatenate(),
  below: modules in the order Python first imports them, local imports removed, `alias.name`
  read as `name`), where that concatenation still reproduces.

The peers judge candidates by --err-msg only (project_interesting.sh, AutoDD's criterion). Every
result is then measured the same way: tokens (Python tokenize without COMMENT, NL, ENCODING,
ENDMARKER, summed over the files of a directory), whether it is a single file, and whether it
reproduces alone -- copied into a fresh directory and run with `python3 ENTRY` and only the
installed third-party packages (numpy) on the path: --err-msg in the output, the original's
exception type, raised in the original's innermost function (qualified name, common.py's rule).
Results: bench/out/projects-results/*.json; report: bench/python/PROJECTS.md.

Third-party packages: numpy (cases that require it) is taken from the venv --venv311 (which also
holds pysource-minimize and tilelang==0.1.15 for AutoDD) through a directory of links that
holds only numpy, so candidates see numpy and nothing else of that venv. Shrink Ray comes from
the Python 3.12 venv --venv312.
"""

import argparse
import ast
import datetime
import json
import math
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import common
import gen_projects
import run

OUT = common.OUT_DIR
PROJECTS_DIR = OUT / "projects"
# Each tool's copy of a project runs outside this repository: its pyproject.toml would otherwise
# be the nearest one above the copy, and minrepro's default --root (the project's root).
RUNS_DIR = Path(tempfile.gettempdir()) / "minrepro-bench-projects"
RESULTS_DIR = OUT / "projects-results"
LIBS = OUT / "project-libs"        # links to the third-party packages the cases need (numpy)
REFERENCES = common.PY_DIR / "project_references"
REPORT = common.PY_DIR / "PROJECTS.md"
TOOLS = ["minrepro", "pysource-minimize", "shrinkray", "autodd"]


def project_env(extra=None):
    """Environment of every candidate and measurement: the benchmark's python3 first on PATH,
    only the linked third-party packages on PYTHONPATH."""
    env = common.candidate_env(extra)
    env["PYTHONPATH"] = str(LIBS)
    return env


def setup_libs(venv311):
    """Links LIBS/<name> to numpy's files in the venv (only what a case requires)."""
    site = next((venv311 / "lib").glob("python3*/site-packages"))
    LIBS.mkdir(parents=True, exist_ok=True)
    for entry in site.iterdir():
        if re.match(r"numpy([.-]|$)", entry.name) and not (LIBS / entry.name).exists():
            (LIBS / entry.name).symlink_to(entry)
    return site


# ---------------------------------------------------------------------------------------------
# Measurements


def files_of(result, entry):
    """{relative path: text} of a result: a file (named like the entry) or a directory."""
    result = Path(result)
    if result.is_file():
        return {entry: result.read_text(encoding="utf-8", errors="replace")}
    if not result.is_dir():
        return {}
    files = {str(p.relative_to(result)): p.read_text(encoding="utf-8", errors="replace")
             for p in sorted(result.rglob("*.py"))
             if not any(part == "__pycache__" or part.startswith(".") for part in p.relative_to(result).parts)}
    if entry not in files:
        # A directory whose tree starts above the project (a root further up): from the entry's
        # directory on.
        found = [rel[:-len(entry)] for rel in files if rel.endswith("/" + entry)]
        if len(found) == 1:
            files = {rel[len(found[0]):]: text for rel, text in files.items() if rel.startswith(found[0])}
    return files


def innermost(stderr, tmp):
    """(relative file or library path, qualified name) of the final traceback's innermost frame."""
    index = stderr.rfind("Traceback (most recent call last):")
    if index < 0:
        return None
    frames = [m.groups() for m in map(common._FRAME_LINE.match, stderr[index:].splitlines()) if m]
    if not frames:
        return None
    path, line, name = frames[-1]
    try:
        source = Path(path).read_text(encoding="utf-8")
    except OSError:
        return (path, name)
    where = os.path.relpath(path, tmp) if path.startswith(tmp + os.sep) else path
    return (where, common._qualified_name(source, int(line), name) or name)


def run_alone(files, entry, timeout=30.0):
    """Run the files in a fresh directory as `python3 ENTRY`: dict(output, exception, origin)."""
    with tempfile.TemporaryDirectory(prefix="bench-alone-") as tmp:
        tmp = os.path.realpath(tmp)
        for rel, text in files.items():
            path = Path(tmp) / rel
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(text, encoding="utf-8")
        try:
            proc = subprocess.run(["python3", entry], cwd=tmp, env=project_env(),
                                  capture_output=True, timeout=timeout)
        except subprocess.TimeoutExpired:
            return {"output": "", "exception": None, "origin": None, "timed_out": True}
        out = proc.stdout.decode("utf-8", "replace") + proc.stderr.decode("utf-8", "replace")
        stderr = proc.stderr.decode("utf-8", "replace")
        return {"output": out, "exception": common.exception_type(stderr),
                "origin": innermost(stderr, tmp), "timed_out": False}


def measure(files, case):
    """Tokens, single file, and the standalone run's verdicts of a result's files."""
    tokens = [common.count_tokens(t) for t in files.values()]
    run = run_alone(files, case["entry"]) if case["entry"] in files else None
    reproduces = bool(run) and not run["timed_out"] and case["err_msg"] in run["output"]
    return {
        "files": len(files),
        "nonempty_files": sum(1 for t in files.values() if t.strip()),
        "tokens": sum(t for t in tokens if t is not None) if None not in tokens else None,
        "lines": sum(len(t.splitlines()) for t in files.values()),
        "single_file": sum(1 for t in files.values() if t.strip()) == 1,
        "reproduces": reproduces,
        "exception": run and run["exception"],
        "origin": run and run["origin"],
        "same_exception": bool(run) and run["exception"] == case["exception"],
        "same_origin": bool(run) and bool(run["origin"]) and run["origin"][1] == case["origin"],
    }


# ---------------------------------------------------------------------------------------------
# AutoDD's input: the project concatenated into one file


def module_of(rel):
    parts = list(Path(rel).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts = parts[:-1]
    return ".".join(parts)


def concatenate(project, entry):
    """The project's files as one file, as a person would paste them: each local module once,
    in the order Python first imports it (its own local imports first), the entry last; every
    import of a local module removed (`pass` where a block needs a statement), and a module
    bound by such an import (`import pkg.mod as m`, `from pkg import mod`, `import pkg.mod`)
    read through its definitions: `m.f` -> `f`. Returns the text."""
    files = {str(p.relative_to(project)): p.read_text(encoding="utf-8")
             for p in sorted(project.rglob("*.py")) if "__pycache__" not in p.parts}
    by_module = {module_of(rel): rel for rel in files if rel != entry}
    order, visiting, prefixes = [], set(), set()

    def resolve(rel, node):
        """Local modules an import statement names (packages on the way included), and the
        prefixes it binds."""
        found, bound = [], []
        if isinstance(node, ast.Import):
            for alias in node.names:
                parts = alias.name.split(".")
                if parts[0] not in {m.split(".")[0] for m in by_module}:
                    continue
                found += [".".join(parts[:i]) for i in range(1, len(parts) + 1)]
                bound.append(alias.asname or alias.name)
            if not found:
                return None, []
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                package = module_of(rel).split(".") if rel.endswith("__init__.py") else module_of(rel).split(".")[:-1]
                package = package[:len(package) - (node.level - 1)]
                base = ".".join(package + ([node.module] if node.module else []))
            if base.split(".")[0] not in {m.split(".")[0] for m in by_module}:
                return None, []
            parts = base.split(".")
            found += [".".join(parts[:i]) for i in range(1, len(parts) + 1)]
            for alias in node.names:
                if "%s.%s" % (base, alias.name) in by_module:
                    found.append("%s.%s" % (base, alias.name))
                    bound.append(alias.asname or alias.name)
        else:
            return None, []
        return [m for m in found if m in by_module], bound

    def visit(rel):
        if rel in visiting:
            return
        visiting.add(rel)
        for node in ast.walk(ast.parse(files[rel])):
            modules, bound = resolve(rel, node)
            if modules is None:
                continue
            prefixes.update(bound)
            for module in modules:
                visit(by_module[module])
        order.append(rel)

    visit(entry)
    pieces = []
    for rel in order:
        text = files[rel]
        tree = ast.parse(text)
        lines = text.splitlines()
        for node in sorted(ast.walk(tree), key=lambda n: -getattr(n, "lineno", 0)):
            modules, _ = resolve(rel, node)
            if modules is None:
                continue
            indent = lines[node.lineno - 1][:node.col_offset]
            lines[node.lineno - 1:node.end_lineno] = [indent + "pass"] if indent.strip() == "" and indent else []
        pieces.append((rel, "\n".join(lines)))
    out = []
    for rel, text in pieces:
        for prefix in sorted(prefixes, key=len, reverse=True):
            text = re.sub(r"(?<![\w.])%s\." % re.escape(prefix), "", text)
        out.append("# ---- %s ----\n%s\n" % (rel, text))
    return "\n\n".join(out)


# ---------------------------------------------------------------------------------------------
# Runs


def run_tool(tool, case, args):
    """Run one tool on one case; return its record (None when the tool does not apply)."""
    project = PROJECTS_DIR / case["name"]
    run_dir = RUNS_DIR / tool / case["name"]
    shutil.rmtree(run_dir, ignore_errors=True)
    work = run_dir / "work"
    shutil.copytree(project, work)
    counter = run_dir / "predicate-runs.txt"
    counter.write_text("")
    entry = case["entry"]
    t = str(int(math.ceil(args.candidate_timeout)))
    env_extra = {"BENCH_COUNTER": str(counter), "BENCH_ERR_MSG": case["err_msg"],
                 "BENCH_PY_DIR": str(common.PY_DIR), "BENCH_RUN_TIMEOUT": t,
                 "BENCH_ENTRY": entry, "TMPDIR": str(run_dir)}
    note = ""
    if tool == "minrepro":
        result = run_dir / "out"
        argv = [args.minrepro, "python", str(work / entry), "--err-msg", case["err_msg"],
                "-o", str(result), "-j", "1", "--stats-json", str(run_dir / "stats.json")]
    elif tool == "pysource-minimize":
        result = run_dir / "out"
        argv = [str(args.venv311 / "bin" / "python"),
                str(common.PY_DIR / "drivers" / "pysource_minimize_project_driver.py"),
                str(work), str(result)]
    elif tool == "shrinkray":
        result = work
        argv = [str(args.venv312 / "bin" / "shrinkray"), "--parallelism", "1", "--timeout", t,
                "--ui", "basic", "--no-history", str(common.PY_DIR / "project_interesting.sh"), "."]
    elif tool == "autodd":
        single = run_dir / "single" / entry
        single.parent.mkdir(parents=True, exist_ok=True)
        single.write_text(concatenate(project, entry), encoding="utf-8")
        check = measure({entry: single.read_text()}, case)
        if not check["reproduces"]:
            return {"tool": tool, "case": case["name"], "status": "not run",
                    "note": "the concatenated file does not reproduce: %s"
                            % (check["exception"] or "no exception"), "concatenated": check}
        shutil.rmtree(work)
        work = single.parent
        result = run_dir / ("reduced-" + Path(entry).name)
        site = next((args.venv311 / "lib").glob("python3*/site-packages"))
        argv = [str(args.venv311 / "bin" / "python"), "-P", str(site / "tilelang" / "autodd.py"),
                str(single), "--err-msg", case["err_msg"], "-o", str(result),
                "--backend", "subproc", "--timeout", t, "-j", "1"]
        env_extra.update({"BENCH_COUNT_EXCLUDE": "autodd.py",
                          "PYTHONPATH": os.pathsep.join([str(common.PY_DIR / "counter_site"), str(LIBS)])})
        note = "on the concatenated file (%d tokens)" % check["tokens"]
    env = project_env(env_extra)
    if "PYTHONPATH" in env_extra:
        env["PYTHONPATH"] = env_extra["PYTHONPATH"]
    load_before = open("/proc/loadavg").read().split()[0]
    print("[%s] %s on %s (load %s) ..." % (time.strftime("%H:%M:%S"), tool, case["name"], load_before), flush=True)
    status, wall = run.run_capped(argv, work, env, run_dir, args.timeout_per_run)
    runs = len(counter.read_text().splitlines())
    if tool == "minrepro" and (run_dir / "stats.json").exists():
        runs = json.loads((run_dir / "stats.json").read_text())["predicate_runs"]
    files = files_of(result, entry)
    if not files:
        note = (note + "; " if note else "") + "no result; the original is measured"
        files = files_of(project, entry)
    said = [l for l in (run_dir / "stderr.log").read_text(errors="replace").splitlines()
            if l.startswith("minrepro python: wrote")]
    record = {"tool": tool, "case": case["name"], "status": status, "note": note,
              "command": argv, "wall_seconds": round(wall, 1), "predicate_runs": runs,
              "load_before": load_before, "load_after": open("/proc/loadavg").read().split()[0],
              "minrepro_said": said[-1] if said else None,
              "result_file": str(result), **measure(files, case)}
    print("    %s: %s tokens, %d files, single=%s reproduces=%s type=%s origin=%s, %d runs, %.0f s"
          % (status, record["tokens"], record["nonempty_files"], record["single_file"],
             record["reproduces"], record["same_exception"], record["same_origin"], runs, wall), flush=True)
    return record


# ---------------------------------------------------------------------------------------------
# Report


def geomean(values):
    values = [v for v in values if v]
    return math.exp(sum(map(math.log, values)) / len(values)) if values else None


def yes(flag):
    return "yes" if flag else "**no**"


def write_report(records, cases, started, args):
    ref = {c["name"]: common.count_tokens((REFERENCES / (c["name"] + ".py")).read_text()) for c in cases}
    records = [r for r in records if r["case"] in ref]
    by = {(r["case"], r["tool"]): r for r in records}
    lines = ["# `minrepro python` on multi-module projects (issue 37): results", "",
             "Generated by `python3 bench/python/run_projects.py` (see its docstring); every figure below",
             "comes from one run on this machine (2 cores shared with other builds: the 1-minute load",
             "average before each run is in the per-run table) and will differ on another.", "",
             "- started: %s UTC; per-tool cap %g s per case, per-candidate timeout %g s, `-j 1`"
             % (started, args.timeout_per_run, args.candidate_timeout),
             "- tokens: Python `tokenize` tokens without COMMENT, NL, ENCODING, ENDMARKER, summed over a result's files",
             "- single file: the result has one non-empty `.py` file",
             "- alone: the result copied into a fresh directory and run as `python3 ENTRY` with only numpy "
             "on the path: **msg** = --err-msg in the output, **type** = the original's exception type, "
             "**origin** = raised in the original's innermost function (qualified name)",
             "- the peers accept a candidate on --err-msg alone (AutoDD's criterion); minrepro on its "
             "default fidelity (message, exception type and origin)", "",
             "## Cases", "", "| case | modules | lines | tokens | exception in | reference tokens | what it exercises |",
             "| --- | --- | --- | --- | --- | --- | --- |"]
    for c in cases:
        files = files_of(PROJECTS_DIR / c["name"], c["entry"])
        lines.append("| %s | %d | %d | %d | %s: %s | %d | %s |" % (
            c["name"], len(files), sum(len(t.splitlines()) for t in files.values()),
            sum(common.count_tokens(t) for t in files.values()), c["exception"], c["origin"],
            ref[c["name"]], c["kind"].replace("|", "\\|")))
    lines += ["", "## Tokens per tool (ratio to the hand-written reference)", "",
              "| case | reference | " + " | ".join(TOOLS) + " |", "| --- | --- |" + " --- |" * len(TOOLS)]
    for c in cases:
        cells = []
        for tool in TOOLS:
            r = by.get((c["name"], tool))
            if not r or r["status"] == "not run":
                cells.append("-")
                continue
            cells.append("%s (%.2f×)%s%s" % (r["tokens"], r["tokens"] / ref[c["name"]],
                                            "" if r["single_file"] else ", %d files" % r["nonempty_files"],
                                            "" if r["reproduces"] and r["same_exception"] and r["same_origin"] else " ✗"))
        lines.append("| %s | %d | %s |" % (c["name"], ref[c["name"]], " | ".join(cells)))
    lines += ["", "✗: the result, run alone, does not end in the original's message, exception type and "
              "innermost function.", "", "## Summary per tool", "",
              "| tool | cases run | single file | alone: msg / type / origin | geomean tokens / reference | total predicate runs | total wall s | timeouts / errors |",
              "| --- | --- | --- | --- | --- | --- | --- | --- |"]
    for tool in TOOLS:
        rs = [r for r in records if r["tool"] == tool and r["status"] != "not run"]
        if not rs:
            continue
        g = geomean([r["tokens"] / ref[r["case"]] for r in rs if r["tokens"]])
        lines.append("| %s | %d | %d/%d | %d / %d / %d | %s | %d | %.0f | %d |" % (
            tool, len(rs), sum(r["single_file"] for r in rs), len(rs),
            sum(r["reproduces"] for r in rs), sum(r["same_exception"] for r in rs),
            sum(r["same_origin"] for r in rs), "%.2f" % g if g else "-",
            sum(r["predicate_runs"] for r in rs), sum(r["wall_seconds"] for r in rs),
            sum(r["status"] != "ok" for r in rs)))
    lines += ["", "## Per run", "",
              "| case | tool | status | tokens | files | single | alone: msg | type | origin | predicate runs | wall s | load before | note |",
              "| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |"]
    for c in cases:
        for tool in TOOLS:
            r = by.get((c["name"], tool))
            if not r:
                continue
            if r["status"] == "not run":
                lines.append("| %s | %s | not run | - | - | - | - | - | - | - | - | - | %s |" % (c["name"], tool, r["note"]))
                continue
            origin = r["origin"]
            lines.append("| %s | %s | %s | %s | %d | %s | %s | %s (%s) | %s (%s) | %d | %.0f | %s | %s |" % (
                c["name"], tool, r["status"], r["tokens"], r["nonempty_files"], yes(r["single_file"]),
                yes(r["reproduces"]), yes(r["same_exception"]), r["exception"], yes(r["same_origin"]),
                ("%s in %s" % (origin[1], origin[0])) if origin else "-", r["predicate_runs"],
                r["wall_seconds"], r["load_before"], (r["note"] or "").replace("|", "\\|")))
    said = [r for r in records if r["tool"] == "minrepro" and r.get("minrepro_said")]
    if said:
        lines += ["", "What minrepro said (its last line, paths shortened):", ""]
        for r in said:
            text = r["minrepro_said"].replace(str(RUNS_DIR) + "/", "")
            lines.append("- %s: `%s`" % (r["case"], text))
    lines += ["", "<!-- analysis -->", ""]
    target = Path(args.report_file) if args.report_file else REPORT
    old = target.read_text() if target.exists() else ""
    analysis = old.split("<!-- analysis -->", 1)[1].lstrip("\n") if "<!-- analysis -->" in old else ""
    target.write_text("\n".join(lines) + analysis)
    print("wrote %s" % target)


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--tools", default=",".join(TOOLS))
    parser.add_argument("--cases")
    parser.add_argument("--timeout-per-run", type=float, default=120.0)
    parser.add_argument("--candidate-timeout", type=float, default=10.0)
    parser.add_argument("--minrepro", default=str(common.REPO_DIR / "target" / "release" / "minrepro"))
    parser.add_argument("--venv311", type=Path, default=Path("/work/venvs/pyproj311"),
                        help="venv with numpy, pysource-minimize and tilelang==0.1.15 (AutoDD)")
    parser.add_argument("--venv312", type=Path, default=Path("/work/venvs/pyproj312"),
                        help="Python 3.12 venv with shrinkray")
    parser.add_argument("--report-only", action="store_true", help="rewrite the report from saved results")
    parser.add_argument("--report-file")
    args = parser.parse_args()
    signal.signal(signal.SIGTERM, run.raise_interrupt)
    cases = gen_projects.load(args.cases.split(",") if args.cases else None)
    started_file = OUT / "projects-started.txt"
    if args.report_only:
        records = [json.loads(p.read_text()) for p in sorted(RESULTS_DIR.glob("*.json"))]
        write_report(records, cases, started_file.read_text().strip(), args)
        return 0
    setup_libs(args.venv311)
    for case in cases:
        gen_projects.write_case(case, PROJECTS_DIR)
        original = measure(files_of(PROJECTS_DIR / case["name"], case["entry"]), case)
        reference = measure({case["entry"]: (REFERENCES / (case["name"] + ".py")).read_text()}, case)
        for what, m in (("case", original), ("reference", reference)):
            if not (m["reproduces"] and m["same_exception"] and m["same_origin"]):
                raise SystemExit("%s %s does not fail as projects.json says: %s in %s"
                                 % (what, case["name"], m["exception"], m["origin"]))
    started = datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M")
    started_file.write_text(started)
    RESULTS_DIR.mkdir(parents=True, exist_ok=True)
    tools = args.tools.split(",")
    for tool in tools:  # minrepro first: its results can be read while the peers run
        for case in cases:
            record = run_tool(tool, case, args)
            (RESULTS_DIR / ("%s__%s.json" % (tool, case["name"]))).write_text(json.dumps(record, indent=2))
    records = [json.loads(p.read_text()) for p in sorted(RESULTS_DIR.glob("*.json"))]
    write_report(records, cases, started, args)
    return 0


if __name__ == "__main__":
    try:
        sys.exit(main())
    except KeyboardInterrupt:
        sys.exit(130)
