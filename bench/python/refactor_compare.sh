#!/bin/sh
# Runs one minrepro binary over the examples and the quick bench/python cases at -j 1 and -j 3,
# keeping each output and its --stats-json under OUT/CASE.jJ.{py,json}. Run it once with the
# binary built before a refactoring and once after, then compare with `refactor_table.py`.
# Usage (from the repository root): bench/python/refactor_compare.sh BINARY OUT
set -u
bin=$1
out=$2
mkdir -p "$out"
# name|source|err_msg
cases='shape_mismatch|examples/python/shape_mismatch.py|T.gemm K shape check failed: 48 != 64
control_flow|examples/python/control_flow.py|budget exceeded
stdout_exit0|examples/python/stdout_exit0.py|CHECKSUM MISMATCH
main_guard|examples/python/main_guard.py|empty input
frozen|examples/python/frozen.py|frozen failure 42
fidelity|examples/python/fidelity.py|needle
sibling|examples/python/sibling/main.py|sibling helper overflow'
bench=$(python3 - <<'PY'
import json
for c in json.load(open("bench/python/cases.json"))["cases"]:
    if "file" in c and "generator" not in c:
        print(f'{c["name"]}|bench/python/cases/{c["file"]}|{c["err_msg"]}')
PY
)
printf '%s\n%s\n' "$cases" "$bench" | while IFS='|' read -r name src msg; do
    [ -n "$name" ] || continue
    for j in 1 3; do
        rm -f "$out/$name.j$j.py" "$out/$name.j$j.json"
        PYTHONPATH="$PWD/bench/python/support" "$bin" python "$src" --err-msg "$msg" \
            -o "$out/$name.j$j.py" -j "$j" --timeout 30 --timeout-factor off \
            --stats-json "$out/$name.j$j.json" -q </dev/null >"$out/$name.j$j.log" 2>&1
        echo "$name -j $j: exit $?"
    done
done
