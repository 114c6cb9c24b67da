#!/bin/sh
# Example interestingness test for `minrepro bundle`: the "failure" reproduces while
# - a retained code object still defines the kernel `gamma`,
# - the metadata still lists the kernel `gamma`, and
# - some case still passes the argument 64.
# Usage: predicate.sh BUNDLE_JSON   (exit 0 = still interesting)
set -u
dir=$(dirname "$1")
# Whitespace is dropped first: the check works on compact and on pretty-printed JSON.
meta=$(tr -d ' \n' < "$dir/metadata.json")
printf '%s' "$meta" | grep -q '"name":"gamma"' || exit 1
printf '%s' "$meta" | grep -Eq '[[,]64[],]' || exit 1
for object in "$dir"/objects/*; do
  if [ -f "$object" ] && grep -q 'gamma' "$object"; then
    exit 0
  fi
done
exit 1
