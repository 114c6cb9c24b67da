#!/usr/bin/env python3
"""Generate the large `stdlib_bundle` case from the installed standard library.

The source of several pure-Python standard-library modules (bisect, heapq, colorsys, textwrap,
shlex, fractions, difflib, graphlib) is concatenated into one self-contained program -- each
module's `if __name__ == "__main__":` block removed so nothing runs at import -- and a short
driver that uses the concatenated definitions and fails with an integer-dependent ValueError
is appended. The output is deterministic for a given Python installation; no copy of the
standard library is committed.

Usage: gen_stdlib_case.py OUTPUT
"""

import ast
import importlib
import sys
from pathlib import Path

MODULES = ["bisect", "heapq", "colorsys", "textwrap", "shlex", "fractions", "difflib", "graphlib"]

DRIVER = '''

# ---- benchmark driver (appended by bench/python/gen_stdlib_case.py) ----
TEXT_A = """Delta debugging isolates failure causes by systematically narrowing down the
difference between a passing and a failing input. Hierarchical variants respect the structure
of the input, and syntax-aware reducers only propose candidates that still parse."""
TEXT_B = """Delta debugging isolates failure-inducing changes by narrowing down the difference
between a passing and a failing input. Hierarchical variants respect the input's structure, so
syntax-aware reducers only ever propose candidates that still parse and run."""


def bench_report(width):
    wrapper = TextWrapper(width=width, break_long_words=False)
    left = wrapper.wrap(TEXT_A)
    right = wrapper.wrap(TEXT_B)
    words_left = " ".join(left).split()
    words_right = " ".join(right).split()
    matcher = SequenceMatcher(None, words_left, words_right)
    matched = sum(block.size for block in matcher.get_matching_blocks())
    similarity = Fraction(2 * matched, len(words_left) + len(words_right))
    stages = TopologicalSorter({"wrap": (), "diff": ("wrap",), "score": ("diff",)})
    order = list(stages.static_order())
    argv = split("report --width %d --name 'bench case'" % width)
    hues = [round(rgb_to_hsv(i / 10, 0.5, 0.25)[0], 3) for i in range(3)]
    position = bisect_left(sorted(len(line) for line in left), width // 2)
    print(order, argv, hues, position, similarity)
    return left, right, similarity


def bench_main():
    for width in (72, 48, 30):
        left, right, similarity = bench_report(width)
        if similarity < Fraction(3, 4):
            raise ValueError("similarity %s below 3/4 at width %d (%d vs %d lines)" % (similarity, width, len(left), len(right)))


bench_main()
'''


def strip_main_blocks(source):
    """Return `source` without its top-level `if __name__ == "__main__":` statements."""
    tree = ast.parse(source)
    lines = source.splitlines(keepends=True)
    drop = []
    for node in tree.body:
        if (
            isinstance(node, ast.If)
            and isinstance(node.test, ast.Compare)
            and isinstance(node.test.left, ast.Name)
            and node.test.left.id == "__name__"
        ):
            drop.append((node.lineno - 1, node.end_lineno))
    for start, end in reversed(drop):
        del lines[start:end]
    return "".join(lines)


def generate(modules=MODULES):
    """The generated program's text (from `modules`, in that order, then the driver)."""
    parts = []
    for name in modules:
        module = importlib.import_module(name)
        source = Path(module.__file__).read_text(encoding="utf-8")
        parts.append("# ---- module %s (Python %d.%d standard library) ----\n" % (name, *sys.version_info[:2]))
        parts.append(strip_main_blocks(source).rstrip("\n") + "\n\n")
    return "".join(parts) + DRIVER


def main():
    if len(sys.argv) != 2 or sys.argv[1].startswith("-"):
        sys.exit(__doc__)
    out = Path(sys.argv[1])
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(generate(), encoding="utf-8")


if __name__ == "__main__":
    main()
