#!/usr/bin/env python3
"""Writes the multi-module cases of bench/python/projects.json into a directory (default
bench/out/projects/<case>/): each case's hand-written core (the entry, the modules, the code
path that fails) plus, in every module, realistic code the failure does not need -- functions
and classes drawn from a few templates with names, constants and call chains from a seeded
generator (the seed is the case name, so a rerun writes the same bytes). The entry also calls
some of that code before it fails ("warm-up"), so a reducer has calls to remove, not only
definitions.

Standard library only. Usage: gen_projects.py [OUT_DIR] [--cases a,b]
"""

import argparse
import json
import random
import re
import sys
import textwrap
from pathlib import Path

PY_DIR = Path(__file__).resolve().parent
DEFAULT_OUT = PY_DIR.parent / "out" / "projects"

VERBS = ["collect", "merge", "score", "rank", "split", "pack", "index", "render", "scan", "fold",
         "route", "batch", "trim", "label", "weigh", "bucket", "probe", "align", "sample", "digest"]
NOUNS = ["records", "events", "slots", "tiers", "rows", "tokens", "frames", "entries", "spans",
         "groups", "orders", "ranges", "blocks", "keys", "steps", "cells", "pairs", "marks"]
CLASS_NOUNS = ["Window", "Ledger", "Schedule", "Catalog", "Buffer", "Profile", "Journal", "Pool",
               "Cursor", "Budget", "Queue", "Matrix", "Tally", "Registry", "Snapshot", "Planner"]
FIELDS = ["size", "weight", "count", "level", "offset", "limit", "span", "rank", "rate", "depth"]


def _function(rng, name, helpers):
    """One filler function over a list of ints; may call an earlier filler of its module."""
    a, b, c = rng.randint(2, 9), rng.randint(10, 99), rng.randint(1, 7)
    call = ""
    if helpers and rng.random() < 0.5:
        call = "    total += sum(%s(values[:%d]).values()) if isinstance(%s(values[:%d]), dict) else 0\n" % (
            rng.choice(helpers), c + 1, helpers[-1], c + 1)
    kind = rng.randrange(4)
    if kind == 0:
        body = (
            "def {name}(values, width={a}):\n"
            "    \"\"\"Group the values by their remainder modulo `width` and count each group.\"\"\"\n"
            "    groups = {{}}\n"
            "    total = 0\n"
            "    for i, v in enumerate(values):\n"
            "        groups.setdefault(v % width, []).append(v * {c} + i)\n"
            "        total += v\n"
            "{call}"
            "    if total > {b} * width:\n"
            "        groups[-1] = [total]\n"
            "    return {{k: len(v) for k, v in sorted(groups.items())}}\n")
    elif kind == 1:
        body = (
            "def {name}(values, start={c}, step={a}):\n"
            "    \"\"\"Running window sums of `values`, starting at `start`, every `step` items.\"\"\"\n"
            "    total = start\n"
            "    out = []\n"
            "    for lo in range(0, len(values), step):\n"
            "        chunk = values[lo:lo + step]\n"
            "        total += sum(chunk) - min(chunk, default=0)\n"
            "        out.append(total % {b})\n"
            "{call}"
            "    return {{\"windows\": len(out), \"last\": out[-1] if out else start}}\n")
    elif kind == 2:
        body = (
            "def {name}(values, label=\"{label}\"):\n"
            "    \"\"\"Format the values as `label:index=value` fields, skipping multiples of {a}.\"\"\"\n"
            "    total = 0\n"
            "    parts = []\n"
            "    for index, value in enumerate(values):\n"
            "        if value % {a} == 0:\n"
            "            continue\n"
            "        parts.append(\"%s:%d=%d\" % (label, index, value + {c}))\n"
            "        total += len(parts[-1])\n"
            "{call}"
            "    return {{\"text\": \",\".join(parts), \"width\": total}}\n")
    else:
        body = (
            "def {name}(values, threshold={b}):\n"
            "    \"\"\"Split the values around `threshold` and report both sides' statistics.\"\"\"\n"
            "    low = [v for v in values if v * {a} < threshold]\n"
            "    high = [v for v in values if v * {a} >= threshold]\n"
            "    total = sum(low) + {c}\n"
            "{call}"
            "    mean = total / len(low) if low else 0.0\n"
            "    return {{\"low\": len(low), \"high\": len(high), \"mean\": round(mean, 3)}}\n")
    return body.format(name=name, a=a, b=b, c=c, call=call, label=rng.choice(NOUNS))


def _class(rng, name):
    """One filler class: a small container with validation, a summary and a merge."""
    field = rng.choice(FIELDS)
    other = rng.choice([f for f in FIELDS if f != field])
    a, b = rng.randint(2, 9), rng.randint(20, 200)
    return textwrap.dedent("""\
        class {name}:
            \"\"\"A bounded collection of ({field}, {other}) pairs.\"\"\"

            capacity = {b}

            def __init__(self, label, items=None):
                self.label = label
                self.items = list(items or [])
                self.history = []

            def add(self, {field}, {other}=0):
                if len(self.items) >= self.capacity:
                    self.items.pop(0)
                self.items.append(({field}, {other}))
                self.history.append(("add", {field}))
                return self

            def total(self):
                return sum(f * {a} + o for f, o in self.items)

            def summary(self):
                if not self.items:
                    return "%s: empty" % self.label
                top = max(self.items)
                return "%s: %d items, total %d, top %r" % (self.label, len(self.items), self.total(), top)

            def merge(self, other):
                merged = {name}(self.label + "+" + other.label, self.items + other.items)
                merged.history = self.history + other.history + [("merge", other.label)]
                return merged

            def __repr__(self):
                return "{name}(%r, %d items)" % (self.label, len(self.items))
        """).format(name=name, field=field, other=other, a=a, b=b)


def filler(rng, functions, classes, taken=()):
    """Filler source: `functions` functions and `classes` classes, none named like a word of
    `taken` (the core's identifiers); returns (text, function names, class names)."""
    used = set(taken)

    def fresh(make):
        while True:
            name = make()
            if name not in used:
                used.add(name)
                return name

    names, class_names, chunks = [], [], []
    for _ in range(functions):
        name = fresh(lambda: "%s_%s" % (rng.choice(VERBS), rng.choice(NOUNS)))
        chunks.append(_function(rng, name, names))
        names.append(name)
    for _ in range(classes):
        name = fresh(lambda: rng.choice(CLASS_NOUNS) + rng.choice(["", "Set", "Map", "View"]))
        chunks.append(_class(rng, name))
        class_names.append(name)
    return "\n\n".join(chunks), names, class_names


def write_case(case, out_dir):
    """Write one case's files under out_dir/<name>/; return the directory."""
    rng = random.Random(case["name"])
    root = out_dir / case["name"]
    if root.exists():
        for path in sorted(root.rglob("*"), reverse=True):
            path.unlink() if path.is_file() else path.rmdir()
    root.mkdir(parents=True, exist_ok=True)
    source_dir = PY_DIR / "projects" / case["name"]
    warm = []
    for src in sorted(source_dir.rglob("*.py")):
        rel = src.relative_to(source_dir)
        core = src.read_text(encoding="utf-8")
        spec = case["filler"].get(str(rel), [0, 0])
        text, functions, classes = filler(rng, *spec, taken=set(re.findall(r"\w+", core)))
        access = case.get("access", {}).get(str(rel))
        if access is not None:
            # The entry calls a few of this module's fillers through `access` (how it reaches it).
            for name in functions[: max(1, len(functions) // 4)]:
                warm.append("print(%s%s(list(range(%d))))" % (access, name, rng.randint(5, 30)))
            for name in classes[:1]:
                warm.append("print(%s%s(%r).add(%d, %d).summary())"
                            % (access, name, rel.stem, rng.randint(1, 9), rng.randint(1, 9)))
        if text:
            # Filler goes after the core's imports and definitions, before any main code.
            marker = "# --- main ---\n"
            if marker in core:
                head, tail = core.split(marker, 1)
                core = head.rstrip("\n") + "\n\n\n" + text + "\n\n" + tail
            else:
                core = core.rstrip("\n") + "\n\n\n" + text
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(core, encoding="utf-8")
    entry = root / case["entry"]
    entry_text = entry.read_text(encoding="utf-8")
    entry.write_text(entry_text.replace("# --- warm-up ---\n", "\n".join(warm) + "\n"), encoding="utf-8")
    return root


def load(selected=None):
    data = json.loads((PY_DIR / "projects.json").read_text(encoding="utf-8"))
    cases = [c for c in data["cases"] if not selected or c["name"] in selected]
    if selected and len(cases) != len(selected):
        raise SystemExit("unknown case(s): %s" % ", ".join(sorted(set(selected) - {c["name"] for c in cases})))
    return cases


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("out", nargs="?", default=str(DEFAULT_OUT))
    parser.add_argument("--cases")
    args = parser.parse_args()
    for case in load(args.cases.split(",") if args.cases else None):
        root = write_case(case, Path(args.out))
        files = sorted(root.rglob("*.py"))
        lines = sum(len(p.read_text().splitlines()) for p in files)
        print("%s: %d modules, %d lines" % (root, len(files), lines))
    return 0


if __name__ == "__main__":
    sys.exit(main())
