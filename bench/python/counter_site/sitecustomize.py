"""Counts candidate runs of tools that launch the candidate interpreter themselves (AutoDD).

When BENCH_COUNTER is set, every interpreter start that runs a script file (sys.argv[0] ends in
`.py`) appends one line to that file, except scripts whose base name is listed in
BENCH_COUNT_EXCLUDE (colon-separated; the reducer's own script, e.g. `autodd.py`). `-c` and `-m`
starts (interpreter probes) are not counted. This directory is put on PYTHONPATH only for the
tools counted this way; it has no other effect.
"""

import os
import sys


def _count():
    counter = os.environ.get("BENCH_COUNTER")
    if not counter or not sys.argv or not sys.argv[0].endswith(".py"):
        return
    excluded = os.environ.get("BENCH_COUNT_EXCLUDE", "").split(":")
    if os.path.basename(sys.argv[0]) in excluded:
        return
    with open(counter, "a", encoding="utf-8") as f:
        f.write("%d site\n" % os.getpid())


_count()
