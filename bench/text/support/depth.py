"""The nesting depth of a text: the largest number of brackets `(`, `[`, `{` open at once,
outside quoted strings (closed on their line). What the deep-nesting cases need (cases.json's
`depth.needed`, found by bisection on the smallest text of each case's form). Standard library
only."""

import sys

OPEN, CLOSE = "([{", ")]}"


def nesting(text):
    depth = deepest = 0
    quote = None
    escaped = False
    for c in text:
        if quote:
            if escaped:
                escaped = False
            elif c == "\\":
                escaped = True
            elif c == quote or c == "\n":
                quote = None
        elif c in "\"'":
            quote = c
        elif c in OPEN:
            depth += 1
            deepest = max(deepest, depth)
        elif c in CLOSE:
            depth = max(depth - 1, 0)
    return deepest


def depth_of(paths):
    """The deepest nesting of any of `paths` (files that exist)."""
    best = 0
    for path in paths:
        with open(path, encoding="utf-8", errors="replace") as f:
            best = max(best, nesting(f.read()))
    return best


if __name__ == "__main__":
    print(depth_of(sys.argv[1:]))
