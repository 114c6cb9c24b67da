#!/usr/bin/env python3
"""Prove that every benchmark case and its hand-written minimal reproducer reproduce.

For each case of cases.json: run it (as `python3 FILE` in a temporary directory, the stand-in
`tilelang` package on PYTHONPATH), check that its `err_msg` appears in stdout or stderr, record
the exception type it ends in (None: it exits without an uncaught exception) and compare it with
the case's `exception`, run it a second time to check the output is identical (determinism),
and report its size. Also lists the frozen code the reducers must keep.

The same checks apply to the case's reference, references/FILE (the minimal reproducer a person
would write, the yardstick of the "tokens / hand-written tokens" column of RESULTS.md), which
must also keep every frozen item of the case (common.frozen_kept), fail where the case fails
(the innermost frame's file and qualified name, minrepro's origin rule: common.failure_origin)
and be smaller than the case.

With --outputs it checks the benchmark's results instead (bench/out/results/*.json, as run.py
left them): every tool's output, run again, must end in the original's exception type and fail
in the original's innermost function (common.failure_origin).

Usage: check_cases.py [--cases a,b,...] [--json OUT] [--outputs [--tools a,b,...]]
Exit status 0 when every case (or output) passes.
"""

import argparse
import json
import sys
from pathlib import Path

import common


def check_program(text, case, what):
    """Problems of one program (the case or its reference, named `what` in the messages):
    err_msg, exception type, determinism, validity. Returns (problems, first run)."""
    first = common.run_program(text, case["path"].name)
    first["origin"] = common.failure_origin(first["stderr"], text, case["path"].name)
    second = common.run_program(text, case["path"].name)
    found = common.exception_type(first["stderr"])
    problems = []
    if not common.reproduces(first, case["err_msg"]):
        problems.append("%s: err_msg does not appear in the output" % what)
    if found != case.get("exception"):
        problems.append("%s ends in %s, cases.json says %s" % (what, found, case.get("exception")))
    if (first["stdout"], first["stderr"], first["returncode"]) != \
            (second["stdout"], second["stderr"], second["returncode"]):
        problems.append("%s: two runs print different output (not deterministic)" % what)
    if not common.is_valid_python(text):
        problems.append("%s does not compile" % what)
    return problems, first


def check(case):
    """Check one case and its reference; return a result dict with `ok` and the reasons it is
    not."""
    text = case["path"].read_text(encoding="utf-8")
    problems, first = check_program(text, case, "case")
    reference_tokens = None
    path = common.reference_path(case)
    if not path.exists():
        problems.append("no reference %s" % path.relative_to(common.REPO_DIR))
    else:
        reference = path.read_text(encoding="utf-8")
        reference_problems, reference_run = check_program(reference, case, "reference")
        problems += reference_problems
        if reference_run["origin"] != first["origin"]:
            problems.append("reference fails in %s, the case in %s (minrepro's origin rule)"
                            % (reference_run["origin"], first["origin"]))
        kept, total = common.frozen_kept(text, reference)
        if kept != total:
            problems.append("reference keeps %d of %d frozen items" % (kept, total))
        reference_tokens = common.count_tokens(reference)
        if reference_tokens is None or reference_tokens >= common.count_tokens(text):
            problems.append("reference is not smaller than the case")
    return {
        "case": case["name"],
        "ok": not problems,
        "problems": problems,
        "exception": common.exception_type(first["stderr"]),
        "origin": first["origin"],
        "returncode": first["returncode"],
        "frozen_items": len(common.frozen_items(text)),
        "reference_tokens": reference_tokens,
        **common.sizes(text),
    }


def check_outputs(cases, tools):
    """Re-run every saved result of the selected cases and tools; print one line per output
    and return whether each keeps the original's exception type and innermost function."""
    ok = True
    names = {case["name"]: case for case in cases}
    row = "%-17s %-24s %-4s %-40s %s"
    print(row % ("case", "tool", "ok", "fails in", "original fails in"))
    for path in sorted((common.OUT_DIR / "results").glob("*.json")):
        record = json.loads(path.read_text(encoding="utf-8"))
        case = names.get(record["case"])
        if case is None or (tools and record["tool"] not in tools):
            continue
        original = case["path"].read_text(encoding="utf-8")
        result_path = Path(record["result_file"])
        result = original if record.get("note") or not result_path.exists() else \
            result_path.read_text(encoding="utf-8", errors="replace")
        measured = common.evaluate_result(original, result, case)
        good = measured["same_exception"] and measured["same_origin"]
        ok &= good
        print(row % (record["case"], record["tool"], "yes" if good else "NO",
                     "%s %s" % (measured["final_exception"], measured["final_origin"]),
                     "%s %s" % (measured["original_exception"], measured["original_origin"])))
    return ok


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--cases", help="comma-separated case names (default: all)")
    parser.add_argument("--json", help="also write the results to this JSON file")
    parser.add_argument("--outputs", action="store_true",
                        help="check the saved results' outputs instead of the cases")
    parser.add_argument("--tools", help="with --outputs: comma-separated tools (default: all)")
    args = parser.parse_args()
    cases = common.load_cases(args.cases.split(",") if args.cases else None)
    if args.outputs:
        return 0 if check_outputs(cases, args.tools.split(",") if args.tools else None) else 1
    results = [check(case) for case in cases]
    row = "%-17s %-4s %-15s %4s %6s %6s %6s %9s  %s"
    print(row % ("case", "ok", "exception", "exit", "tokens", "lines", "frozen", "reference", "problems"))
    for r in results:
        print(row % (
            r["case"], "yes" if r["ok"] else "NO", r["exception"], r["returncode"], r["tokens"],
            r["lines"], r["frozen_items"], r["reference_tokens"], "; ".join(r["problems"])))
    if args.json:
        with open(args.json, "w", encoding="utf-8") as f:
            json.dump(results, f, indent=2)
    return 0 if all(r["ok"] for r in results) else 1


if __name__ == "__main__":
    sys.exit(main())
