#!/bin/sh
# Full-size Python scale run: a generated 20,000-statement (30,001-line) program reduced with
# `-j 8` (on whatever machine this runs), timed with /usr/bin/time -v (wall time, peak RSS).
# Usage: bench/scale/python_20k.sh [STATEMENTS] [JOBS] [MINREPRO]
set -eu
n=${1:-20000}
jobs=${2:-8}
root=$(cd "$(dirname "$0")/../.." && pwd)
bin=${3:-$root/target/release/minrepro}
[ -x "$bin" ] || (cd "$root" && cargo build --release -q)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
python3 - "$n" "$work/big.py" <<'PY'
import sys
n, path = int(sys.argv[1]), sys.argv[2]
lines = []
for i in range(n):
    if i % 4 == 0: lines.append(f"v{i} = {i} * 2")
    elif i % 4 == 1: lines.append(f"def f{i}(a, b=3):\n    return a + b + {i}")
    elif i % 4 == 2: lines.append(f"if v{i-2} > 5:\n    print('x{i}')")
    else: lines.append(f"w{i} = [v{i-3}, {i}]")
lines.append("raise ValueError('needle %d' % v0)")
open(path, "w").write("\n".join(lines) + "\n")
PY
wc -l "$work/big.py"
mkdir "$work/tmp"
TMPDIR="$work/tmp" /usr/bin/time -v "$bin" python "$work/big.py" --err-msg needle \
    -o "$work/out.py" -j "$jobs" 2>&1 |
    grep -E "predicate runs|wrote|error|Elapsed|Maximum resident"
cat "$work/out.py"
python3 "$work/out.py" 2>&1 | tail -1
[ -z "$(ls -A "$work/tmp")" ] && echo "TMPDIR empty"
