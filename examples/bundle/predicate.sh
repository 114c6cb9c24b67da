#!/bin/sh
# Example interestingness test for `minrepro bundle`: the "failure" reproduces while
# - a retained code object still defines the kernel `gamma`,
# - the metadata still lists the kernel `gamma`, and
# - some case still passes the argument 64.
# Usage: predicate.sh BUNDLE_JSON   (exit 0 = still interesting)
set -u
dir=$(dirname "$1")
meta="$dir/metadata.json"
grep -q '"name": "gamma"' "$meta" || exit 1
grep -q '^ *64,\{0,1\}$' "$meta" || exit 1
for object in "$dir"/objects/*; do
  if [ -f "$object" ] && grep -q 'gamma' "$object"; then
    exit 0
  fi
done
exit 1
