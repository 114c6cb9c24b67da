"""Writes one deep-nesting case's file, chosen by its name, deterministically (fixed seed):

    python3 gen_deep.py TARGET   # TARGET's file name: nest.json, calls.py, blocks.c, query.sql,
                                 # matrix.toml

Each nests one kind of bracket thousands or hundreds of levels deep, with a little content at
every level (keys, arguments, declarations, operands) and a few unrelated lines around, so that
a reducer must both cut depth and remove breadth. Standard library only."""

import random
import sys
from pathlib import Path


def nest_json(rng, levels=10_000):
    out = ['{"format": 2, "generator": "deep", "root":\n']
    for level in range(levels):
        extra = ""
        if rng.random() < 0.3:
            extra = f'"id": {rng.randrange(1000)}, '
        if rng.random() < 0.1:
            extra += f'"tags": ["t{rng.randrange(9)}"], '
        out.append(f'{{{extra}"child":\n')
    out.append('{"leaf": true}')
    closing = "}" * levels
    out.extend(closing[i:i + 100] + "\n" for i in range(0, levels, 100))
    out.append("}\n")
    return "".join(out)


def calls_py(rng, levels=600):
    lines = ["def wrap(x, tag): return x", "def pad(x): return x + 0", "base = 7",
             "other = pad(base) * 3", "print(other)"]
    expr = "base"
    for level in range(levels):
        if rng.random() < 0.25:
            expr = f"wrap({expr}, {level})"
        else:
            expr = f"pad({expr})"
    lines += [f"value = {expr}", "print(value)", "total = other + 1", "print(total)"]
    return "\n".join(lines) + "\n"


def blocks_c(rng, levels=500):
    out = ["#include <stdio.h>", "", "static int twice(int x) { return 2 * x; }", "",
           "int main(int argc, char **argv) {", "  int v0 = argc;"]
    for level in range(1, levels + 1):
        pad = "  " * min(level, 12)  # deeper levels flat: the file stays small
        if rng.random() < 0.3:
            out.append(f"{pad}if (argc > {level}) {{")
        else:
            out.append(f"{pad}{{")
        out.append(f"{pad}  int v{level} = {rng.randrange(100)};")
        if rng.random() < 0.2:
            out.append(f'{pad}  printf("%d\\n", twice(v{level}));')
    for level in range(levels, 0, -1):
        out.append("  " * min(level, 12) + "}")
    out += ["  return twice(v0) > 100;", "}"]
    return "\n".join(out) + "\n"


def query_sql(rng, levels=10_000):
    ops = ["+", "-", "*", "/"]
    head = "SELECT a, b + 1, c FROM t WHERE a > 0 AND\n"
    parts = []
    for level in range(levels):
        operand = rng.choice(["a", "b", "c", str(rng.randrange(100))])
        parts.append(f"({operand} {rng.choice(ops)} ")
        if level % 20 == 19:
            parts.append("\n")
    closing = ")" * levels
    body = "".join(parts) + "c" + "\n".join(closing[i:i + 100] for i in range(0, levels, 100))
    return head + body + "\n;\n"


def matrix_toml(rng, levels=2_000):
    head = ['title = "deep matrix"', "version = 3", "", "[owner]", 'name = "bench"', "",
            "[data]"]
    parts = []
    for level in range(levels):
        item = rng.choice([str(rng.randrange(100)), '"x"', "true", "1.5"])
        parts.append(f"[{item}, " if rng.random() < 0.4 else "[")
        if level % 25 == 24:
            parts.append("\n")
    closing = "]" * levels
    body = "matrix = " + "".join(parts) + "0" + "\n".join(
        closing[i:i + 100] for i in range(0, levels, 100))
    return "\n".join(head) + "\n" + body + "\n"


GENERATORS = {"nest.json": nest_json, "calls.py": calls_py, "blocks.c": blocks_c,
              "query.sql": query_sql, "matrix.toml": matrix_toml}


def main():
    target = Path(sys.argv[1])
    text = GENERATORS[target.name](random.Random(41))
    target.write_text(text)


if __name__ == "__main__":
    main()
