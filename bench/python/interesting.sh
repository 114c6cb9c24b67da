#!/bin/sh
# Interestingness test shared by the line/AST peers (picire, C-Vise, pysource-minimize):
# runs the candidate with `python3` (the benchmark's interpreter, first on PATH) under a
# per-run timeout, through the counting wrapper, and exits 0 iff $BENCH_ERR_MSG occurs
# (case-sensitive, as a plain substring) in its stdout or stderr -- AutoDD's criterion.
# Usage: interesting.sh [FILE]   (without FILE: $BENCH_FILE_NAME in the current directory,
# as C-Vise calls it)
file=${1:-$BENCH_FILE_NAME}
out=$("$BENCH_PY_DIR/count_run.sh" timeout -s KILL "$BENCH_RUN_TIMEOUT" python3 "$file" 2>&1)
case $out in
  *"$BENCH_ERR_MSG"*) exit 0 ;;
esac
exit 1
