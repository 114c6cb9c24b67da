#!/bin/sh
# Cheap, selective predicate for the engine benchmark: exits 0 iff FILE contains every MARKER
# (fixed strings). Usage: has_all.sh FILE MARKER...
file=$1
shift
for marker in "$@"; do
  grep -qF -- "$marker" "$file" || exit 1
done
exit 0
