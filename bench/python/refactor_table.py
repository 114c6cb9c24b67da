#!/usr/bin/env python3
"""Compares two runs of refactor_compare.sh: prints a Markdown table (case, -j, predicate runs
and decided candidates before and after, output bytes identical) and exits 1 if an output, a
decided-candidate count, or a -j 1 predicate-run count differs. A case missing from AFTER_DIR
(not run) is listed as such and not compared. At -j 2 and more the engine
starts speculative runs that a later acceptance cancels, so the predicate-run count varies from
run to run of one binary; the decided candidates (and the output) do not.

Usage: python3 bench/python/refactor_table.py BEFORE_DIR AFTER_DIR
"""
import json
import pathlib
import sys


def main():
    before, after = (pathlib.Path(d) for d in sys.argv[1:3])
    rows, same = [], True
    for stats in sorted(before.glob("*.j*.json")):
        name, j = stats.name[: -len(".jN.json")], stats.name[-6]
        other = after / stats.name
        b = json.loads(stats.read_text())
        if not other.exists():
            rows.append(f"| {name} | {j} | {b['predicate_runs']} | not run | {b['candidates']} | not run | - |")
            continue
        a = json.loads(other.read_text())
        runs_b, runs_a = b["predicate_runs"], a.get("predicate_runs")
        cand_b, cand_a = b["candidates"], a.get("candidates")
        out_b, out_a = before / f"{name}.j{j}.py", after / f"{name}.j{j}.py"
        identical = out_a.exists() and out_b.read_bytes() == out_a.read_bytes()
        same &= identical and cand_a == cand_b and (j != "1" or runs_a == runs_b)
        rows.append(
            f"| {name} | {j} | {runs_b} | {runs_a} | {cand_b} | {cand_a} "
            f"| {'yes' if identical else 'NO'} |"
        )
    print(
        "| case | -j | before runs | after runs | before candidates | after candidates "
        "| output identical |"
    )
    print("| --- | --- | --- | --- | --- | --- | --- |")
    print("\n".join(rows))
    sys.exit(0 if same else 1)


if __name__ == "__main__":
    main()
