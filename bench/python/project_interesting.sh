#!/bin/sh
# Interestingness test of the multi-module peers (pysource-minimize's driver, Shrink Ray on a
# directory): runs `python3 $BENCH_ENTRY` in DIR (default: the current directory, where Shrink
# Ray runs it) under a per-run timeout, through the counting wrapper, and exits 0 iff
# $BENCH_ERR_MSG occurs in its stdout or stderr -- AutoDD's criterion, as interesting.sh.
# Usage: project_interesting.sh [DIR]
if [ -n "$1" ] && [ -d "$1" ]; then cd "$1" || exit 1; fi
[ -f "$BENCH_ENTRY" ] || exit 1
out=$("$BENCH_PY_DIR/count_run.sh" timeout -s KILL "$BENCH_RUN_TIMEOUT" python3 "$BENCH_ENTRY" 2>&1)
case $out in
  *"$BENCH_ERR_MSG"*) exit 0 ;;
esac
exit 1
