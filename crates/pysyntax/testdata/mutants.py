"""Deterministic line-deletion and re-indentation mutants of a Python file, with CPython's
verdict: prints `<0|1> <kind> <a> <b>` per mutant (kind `del`: lines a..b removed; kind `ind`:
line a gets b extra leading spaces, negative b removes up to -b leading characters)."""
import random
import sys
import warnings

warnings.simplefilter("ignore")
path, count = sys.argv[1], int(sys.argv[2])
lines = open(path, encoding="utf-8").read().splitlines(keepends=True)
rng = random.Random(1234)
for _ in range(count):
    if rng.random() < 0.7:
        a = rng.randrange(len(lines))
        b = min(len(lines), a + rng.choice([1, 1, 1, 2, 3, 5]))
        text = "".join(lines[:a] + lines[b:])
        kind = "del"
    else:
        a = rng.randrange(len(lines))
        b = rng.choice([-4, -2, -1, 1, 4])
        line = lines[a]
        line = " " * b + line if b > 0 else line[-b:] if line[: -b].strip() == "" else line
        text = "".join(lines[:a] + [line] + lines[a + 1 :])
        kind = "ind"
    try:
        compile(text, path, "exec")
        ok = 1
    except SyntaxError:
        ok = 0
    except Exception:
        ok = 0
    print(ok, kind, a, b)
