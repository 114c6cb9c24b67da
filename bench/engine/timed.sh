#!/bin/bash
# Timing wrapper for the engine benchmark: runs COMMAND and appends "START END" (bash's
# $EPOCHREALTIME, seconds) to $BENCH_TIMING_LOG, so the time spent inside predicate runs can be
# subtracted from the reducer's wall time. The log is passed through the environment, not as an
# argument, so it is not part of the predicate's identity (which minrepro re-checks).
# Usage: timed.sh COMMAND [ARG...]
start=$EPOCHREALTIME
"$@"
code=$?
end=$EPOCHREALTIME
echo "$start $end" >> "$BENCH_TIMING_LOG"
exit $code
