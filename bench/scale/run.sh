#!/bin/sh
# Full-scale reliability run: 2,000 code objects and 100,000 metadata entries with -j 8.
# Reports wall time and peak RSS (from /usr/bin/time -v) and checks that the result is the
# expected minimum and that TMPDIR is left empty.
#
# usage: bench/scale/run.sh [OBJECTS [ENTRIES [SPREAD [JOBS]]]]   (defaults 2000 100000 0 8)
# SPREAD > 0 also requires SPREAD evenly spaced kernels and objects (many more candidates).
set -eu
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
objects=${1:-2000}
entries=${2:-100000}
spread=${3:-0}
jobs=${4:-8}
bin=${MINREPRO:-$root/target/release/minrepro}
if [ ! -x "$bin" ]; then
    (cd "$root" && cargo build --release -p minrepro)
fi
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
python3 "$here/gen_bundle.py" "$work/in" "$objects" "$entries" "$spread"
mkdir "$work/tmp"
echo "input: $objects objects, $entries metadata entries, spread $spread, -j $jobs, $(du -sh "$work/in" | cut -f1)"
TMPDIR="$work/tmp" /usr/bin/time -v "$bin" bundle -j "$jobs" \
    --bundle "$work/in/bundle.json" --output "$work/out" \
    --predicate "$work/in/predicate.sh" --predicate-arg='{workspace}' \
    2> "$work/stderr" || { cat "$work/stderr"; exit 1; }
grep -E "predicate runs|Elapsed|Maximum resident|User time|System time" "$work/stderr"
"$work/in/predicate.sh" "$work/out" || { echo "FAIL: the output is not interesting"; exit 1; }
ls "$work/out/objects" | wc -l | sed 's/^/objects kept: /'
if [ -n "$(ls -A "$work/tmp")" ]; then echo "FAIL: TMPDIR not empty"; exit 1; fi
echo OK
