#!/usr/bin/env python3
"""Prove that every benchmark case reproduces.

For each case of cases.json: run it (as `python3 FILE` in a temporary directory, the stand-in
`tilelang` package on PYTHONPATH), check that its `err_msg` appears in stdout or stderr, record
the exception type it ends in (None: it exits without an uncaught exception) and compare it with
the case's `exception`, run it a second time to check the output is identical (determinism),
and report its size. Also lists the frozen code the reducers must keep.

Usage: check_cases.py [--cases a,b,...] [--json OUT]
Exit status 0 when every case passes.
"""

import argparse
import json
import sys

import common


def check(case):
    """Check one case; return a result dict with `ok` and the reasons it is not."""
    text = case["path"].read_text(encoding="utf-8")
    first = common.run_program(text, case["path"].name)
    second = common.run_program(text, case["path"].name)
    found = common.exception_type(first["stderr"])
    problems = []
    if not common.reproduces(first, case["err_msg"]):
        problems.append("err_msg does not appear in the output")
    if found != case.get("exception"):
        problems.append("ends in %s, cases.json says %s" % (found, case.get("exception")))
    if (first["stdout"], first["stderr"], first["returncode"]) != \
            (second["stdout"], second["stderr"], second["returncode"]):
        problems.append("two runs print different output (not deterministic)")
    if not common.is_valid_python(text):
        problems.append("does not compile")
    return {
        "case": case["name"],
        "ok": not problems,
        "problems": problems,
        "exception": found,
        "returncode": first["returncode"],
        "frozen_items": len(common.frozen_items(text)),
        **common.sizes(text),
    }


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--cases", help="comma-separated case names (default: all)")
    parser.add_argument("--json", help="also write the results to this JSON file")
    args = parser.parse_args()
    cases = common.load_cases(args.cases.split(",") if args.cases else None)
    results = [check(case) for case in cases]
    print("%-17s %-4s %-15s %4s %6s %6s %6s  %s" % ("case", "ok", "exception", "exit", "tokens", "lines", "frozen", "problems"))
    for r in results:
        print("%-17s %-4s %-15s %4s %6s %6s %6s  %s" % (
            r["case"], "yes" if r["ok"] else "NO", r["exception"], r["returncode"], r["tokens"],
            r["lines"], r["frozen_items"], "; ".join(r["problems"])))
    if args.json:
        with open(args.json, "w", encoding="utf-8") as f:
            json.dump(results, f, indent=2)
    return 0 if all(r["ok"] for r in results) else 1


if __name__ == "__main__":
    sys.exit(main())
