#!/usr/bin/env python3
"""Writes a large bundle for minrepro scale runs.

usage: gen_bundle.py DIR OBJECTS ENTRIES [SPREAD]

DIR/bundle.json names OBJECTS code objects (copies of the committed fixtures, each with a unique
trailer "MARK-<i>;") and a metadata document with about ENTRIES list entries spread over
kernels (40 %), cases (10 %, each with 3 arguments: 30 %), arguments (10 %) and selected_tests
(10 %). DIR/predicate.sh is interesting while object 7, kernel k-<ENTRIES/5>, a case with
argument 2, and test t-3 remain; with SPREAD, also SPREAD evenly spaced kernels and objects
(this drives ddmin to high granularities, the worst case for memory).
"""
import json, os, sys

root = os.path.dirname(os.path.abspath(__file__))
fixtures = os.path.join(root, "..", "..", "crates", "bundle", "tests", "fixtures")
out, objects, entries = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
spread = int(sys.argv[4]) if len(sys.argv) > 4 else 0
os.makedirs(os.path.join(out, "objects"), exist_ok=True)
blobs = [open(os.path.join(fixtures, n), "rb").read() for n in ("alpha.co", "beta.co", "gamma.co")]
code_objects = []
for i in range(objects):
    name = f"objects/o{i}.co"
    with open(os.path.join(out, name), "wb") as f:
        f.write(blobs[i % 3] + f"MARK-{i};".encode())
    code_objects.append({"id": f"o{i}", "path": name})
k = entries * 4 // 10
c = entries // 10
meta = {
    "kernels": [{"name": f"k-{i}"} for i in range(k)],
    "cases": [{"name": f"c-{i}", "arguments": [i % 3, (i + 1) % 3, 7]} for i in range(c)],
    "arguments": [f"a-{i}" for i in range(entries // 10)],
    "selected_tests": [f"t-{i}" for i in range(entries // 10)],
    "owner": {"team": "scale"},
}
json.dump({"format": "comgr-hotswap-reducer-bundle", "version": 1,
           "code_objects": code_objects, "metadata": meta}, open(os.path.join(out, "bundle.json"), "w"))
# metadata.json is canonical JSON (compact, sorted keys, one line, as the original reducer
# writes it): the checks split it at commas and brackets to count entries.
needed_kernels = [f'"name":"k-{i * (k // spread)}"' for i in range(spread)]
needed_objects = [f"o{i * (objects // spread)}.co" for i in range(spread)]
with open(os.path.join(out, "needed-kernels.txt"), "w") as f:
    f.write("".join(line + "\n" for line in needed_kernels))
spread_check = ""
if spread:
    spread_check = f"""[ "$(tr ',{{}}[]' '\\n\\n\\n\\n\\n' < "$m" | grep -cxFf '{os.path.join(os.path.abspath(out), 'needed-kernels.txt')}')" = {len(set(needed_kernels))} ] || exit 1
cd "$1/objects" && ls {' '.join(sorted(set(needed_objects)))} >/dev/null 2>&1 || exit 1
"""
pred = os.path.join(out, "predicate.sh")
with open(pred, "w") as f:
    f.write(f"""#!/bin/sh
# interesting (exit 0) while object 7, kernel k-{k // 2}, an argument 2 and test t-3 remain
m="$1/metadata.json"
grep -q '"k-{k // 2}"' "$m" || exit 1
grep -q '"t-3"' "$m" || exit 1
grep -Eq '"arguments":\[([0-9]+,)*2[],]' "$m" || exit 1
grep -qs 'MARK-7;' "$1/objects/o7.co" || exit 1
{spread_check}exit 0
""")
os.chmod(pred, 0o755)
