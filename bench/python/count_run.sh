#!/bin/sh
# Counting wrapper: appends one line to $BENCH_COUNTER (one predicate run), then runs COMMAND.
# Usage: count_run.sh COMMAND [ARG...]
printf '%s wrap\n' "$$" >> "$BENCH_COUNTER"
exec "$@"
